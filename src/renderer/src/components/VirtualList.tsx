import { useEffect, useRef, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';

interface Props<T> {
  items: readonly T[];
  estimate: number;
  render: (item: T, index: number) => ReactNode;
  itemKey: (item: T) => string | number;
  label: string;
  className?: string;
  maxHeight?: number;
  /** Keeps this row rendered and in view (keyboard navigation); -1 or absent: none. */
  scrollToIndex?: number;
}

/** Only the rows in view are in the DOM, so a library of 100k sources scrolls like one of ten. */
export function VirtualList<T>({ items, estimate, render, itemKey, label, className, maxHeight = 480, scrollToIndex = -1 }: Props<T>) {
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: items.length,
    getScrollElement: () => parent.current,
    estimateSize: () => estimate,
    getItemKey: (i) => itemKey(items[i]!),
    overscan: 6,
  });
  useEffect(() => {
    if (scrollToIndex >= 0 && scrollToIndex < items.length) v.scrollToIndex(scrollToIndex, { align: 'auto' });
  }, [scrollToIndex, items.length, v]);
  return (
    // The box shrinks to its content up to a cap, so a short list does not leave a tall empty frame.
    <div ref={parent} className={`vlist ${className ?? ''}`} role="list" aria-label={label} tabIndex={0} style={{ height: Math.min(maxHeight, v.getTotalSize() + 8) }}>
      <div className="vlist-inner" style={{ height: v.getTotalSize() }}>
        {v.getVirtualItems().map((row) => (
          <div
            key={row.key}
            role="listitem"
            data-index={row.index}
            ref={v.measureElement}
            className="vlist-row"
            style={{ transform: `translateY(${row.start}px)` }}
          >
            {render(items[row.index]!, row.index)}
          </div>
        ))}
      </div>
    </div>
  );
}
