interface Props {
  label: string;
  value: number;
  max: number;
  /** Shown after the label, e.g. "3 / 10 files". */
  text: string;
  over?: boolean;
  /** A remark under the bar (e.g. why a section is empty). */
  note?: string | null;
  testId?: string;
}

export function Meter({ label, value, max, text, over, note, testId }: Props) {
  const pct = max > 0 ? Math.min(100, (value / max) * 100) : 0;
  return (
    <div className={`meter ${over ? 'meter-over' : ''}`} data-testid={testId}>
      <div className="meter-label">
        <span>{label}</span>
        <span className="meter-text">{text}</span>
      </div>
      <div className="meter-track" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={value} aria-valuetext={text}>
        <div className="meter-fill" style={{ width: `${pct}%` }} />
      </div>
      {note ? <p className="meter-note">{note}</p> : null}
    </div>
  );
}
