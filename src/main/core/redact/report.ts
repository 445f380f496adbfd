import { getDefaultRedactor } from './redactor.ts';
import type { RedactionReport, Redactor } from './types.ts';

export interface RedactReportOptions {
  /** Section recorded on the events (default `cli`). */
  section?: string;
  redactor?: Redactor;
}

/**
 * What `contextpack redact [FILE|-]` needs: the redacted text plus, for
 * `--json`, how many lines of each type were redacted and where.
 */
export function redactReport(text: string, source: string, options: RedactReportOptions = {}): RedactionReport {
  const redactor = options.redactor ?? getDefaultRedactor();
  const { text: redacted, redactions } = redactor.redactText(text, { source, section: options.section ?? 'cli' });
  const byType: RedactionReport['byType'] = {};
  for (const e of redactions) {
    const entry = (byType[e.type] ??= { count: 0, lines: [] });
    entry.count++;
    entry.lines.push(e.line);
  }
  return {
    source,
    totalLines: text.length === 0 ? 0 : text.split('\n').length,
    redactedLines: redactions.length,
    byType,
    redactions,
    text: redacted,
  };
}
