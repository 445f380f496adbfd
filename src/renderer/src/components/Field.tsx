import { useId, type ReactNode } from 'react';

interface Props {
  label: string;
  error?: string;
  hint?: string;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }) => ReactNode;
}

/** A labelled form control with its validation message tied to it for screen readers. */
export function Field({ label, error, hint, children }: Props) {
  const id = useId();
  const msg = `${id}-msg`;
  return (
    <div className={`field ${error ? 'field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': error || hint ? msg : undefined })}
      {error ? (
        <p id={msg} className="field-error" role="alert">
          {error}
        </p>
      ) : hint ? (
        <p id={msg} className="field-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
