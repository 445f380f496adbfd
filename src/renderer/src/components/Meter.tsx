interface Props {
  label: string;
  value: number;
  max: number;
  /** Shown after the label, e.g. "3 / 10 files". */
  text: string;
  over?: boolean;
  testId?: string;
}

export function Meter({ label, value, max, text, over, testId }: Props) {
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
    </div>
  );
}
