import { CliError, printJson, readInput, type Command } from '../command.ts';
import { withApi } from '../api-client.ts';

export const redactCommand: Command = {
  name: 'redact',
  summary: 'Run text through the redaction gate (what packets get); --json reports what was redacted',
  usage: 'contextpack redact [FILE|-] [--pattern ID:TYPE:REGEX]... [--json]',
  options: { pattern: { type: 'string', multiple: true } },
  async run(ctx) {
    const file = ctx.args[0] ?? '-';
    const patterns = ((ctx.values.pattern as string[] | undefined) ?? []).map((spec) => {
      const m = /^([^:]+):([^:]+):(.+)$/s.exec(spec);
      if (!m) throw new CliError(`--pattern must look like ID:TYPE:REGEX, got ${JSON.stringify(spec)}`);
      return { id: m[1]!, type: m[2]!, pattern: m[3]! };
    });
    const text = await readInput(ctx, file, 'redact');
    // redact.text reads no store: none is opened.
    return withApi(
      ctx,
      'redact',
      // A pattern RE2 cannot take is refused by the flag that gave it.
      async (call) => {
        const report = await call('redact.text', { text, source: file === '-' ? 'stdin' : file, patterns: patterns.length > 0 ? patterns : undefined });
        if (ctx.json) printJson(ctx, report);
        else ctx.io.stdout(report.text);
        return 0;
      },
      { patterns: '--pattern' },
      true,
    );
  },
};
