import { PatternRefusedError, createRedactor, redactReport, type UserPattern } from '../../core/redact/index.ts';
import { CliError, printJson, readInput, type Command } from '../command.ts';

export const redactCommand: Command = {
  name: 'redact',
  summary: 'Run text through the redaction gate (what packets get); --json reports what was redacted',
  usage: 'contextpack redact [FILE|-] [--pattern ID:TYPE:REGEX]... [--json]',
  options: { pattern: { type: 'string', multiple: true } },
  async run(ctx) {
    const file = ctx.args[0] ?? '-';
    const userPatterns: UserPattern[] = ((ctx.values.pattern as string[] | undefined) ?? []).map((spec) => {
      const m = /^([^:]+):([^:]+):(.+)$/s.exec(spec);
      if (!m) throw new CliError(`--pattern must look like ID:TYPE:REGEX, got ${JSON.stringify(spec)}`);
      return { id: m[1], type: m[2], pattern: m[3] };
    });
    let redactor;
    try {
      redactor = userPatterns.length > 0 ? createRedactor({ userPatterns }) : undefined;
    } catch (err) {
      // Refused, never silently dropped.
      if (err instanceof PatternRefusedError) throw new CliError(err.message);
      throw err;
    }
    const text = await readInput(ctx, file, 'redact');
    const report = redactReport(text, file === '-' ? 'stdin' : file, { redactor });
    if (ctx.json) printJson(ctx, report);
    else ctx.io.stdout(report.text);
    return 0;
  },
};
