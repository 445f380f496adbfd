import { useState, type DragEvent, type ReactNode } from 'react';

/** A drop target for files (Library, Sessions): highlights while something is dragged over, hands the drop on. */
export function DropZone({ testId, onDrop, children }: { testId: string; onDrop: (e: DragEvent) => void | Promise<void>; children: ReactNode }) {
  const [over, setOver] = useState(false);
  return (
    <div
      className={`dropzone ${over ? 'dropzone-over' : ''}`}
      data-testid={testId}
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        void onDrop(e);
      }}
    >
      {children}
    </div>
  );
}
