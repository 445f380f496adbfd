import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FitnessView } from '../../../shared/api/index.ts';
import { CliError, printJson, type Command } from '../command.ts';
import { CliApiError, withApi } from '../api-client.ts';
import { writeAtomic } from './packet-shared.ts';
import { agentOf, str } from './memory-shared.ts';

const USAGE = [
  'contextpack goals [--json]                                   (the fitness spec at an indexed root, with each gate\'s latest result)',
  'contextpack goals record <gate> pass|fail [--value V] [--agent A] [--json]',
  'contextpack goals init [--dir DIR]                           (writes a GOALS.md template; then ingest DIR)',
].join('\n       ');

const TEMPLATE = `# GOALS

Fitness spec for this repository (read by \`contextpack pack\`; record results with \`contextpack goals record\`).

## Gates
- tests-pass: The unit and integration tests pass (threshold 100%)
- lint-clean: No lint warnings (threshold 0 warnings)
- build-success: The build succeeds

## Directives
- Prioritize test reliability over coverage percentage
`;

function render(f: FitnessView): string {
  const out = [`${f.file}: ${f.passing}/${f.gates.length} gates passing, ${f.failing} failing, ${f.unmeasured} not measured`];
  const w = Math.max(4, ...f.gates.map((g) => g.id.length));
  for (const g of f.gates) {
    const status = g.status === null ? '----' : g.status.toUpperCase();
    const measured = [g.value, g.threshold !== null ? `threshold ${g.threshold}` : null].filter(Boolean).join(', ');
    out.push(`${status.padEnd(4)}  ${g.id.padEnd(w)}  ${g.description}${measured ? ` (${measured})` : ''}${g.recorded_at ? `  [${g.recorded_at}]` : ''}`);
  }
  if (f.directives.length > 0) out.push('Directives:', ...f.directives.map((d) => `- ${d}`));
  return out.join('\n') + '\n';
}

export const goalsCommand: Command = {
  name: 'goals',
  gatesOutput: true,
  summary: 'Fitness goals (GOALS.md gates and directives): show their state, record a gate result, write a template',
  usage: USAGE,
  options: { value: { type: 'string' }, agent: { type: 'string' }, dir: { type: 'string' } },
  async run(ctx) {
    const sub = ctx.args[0] ?? 'show';
    if (sub === 'init') {
      const file = join(resolve(str(ctx, 'dir') ?? '.'), 'GOALS.md');
      if (existsSync(file)) throw new CliError(`goals init: ${file} already exists`);
      writeAtomic(file, TEMPLATE);
      ctx.io.stderr(`wrote ${file}: edit its gates and directives, then ingest its folder\n`);
      return 0;
    }
    if (sub !== 'show' && sub !== 'record') throw new CliError(`goals: unknown subcommand ${JSON.stringify(sub)}\nusage: ${USAGE}`);
    if (sub === 'record') {
      const [, gate, status] = ctx.args;
      if (!gate || (status !== 'pass' && status !== 'fail')) throw new CliError(`goals record: give a gate and pass|fail\nusage: ${USAGE}`);
    }
    return withApi(ctx, 'goals', async (call) => {
      try {
        if (sub === 'record') {
          const [, gate, status] = ctx.args as [string, string, 'pass' | 'fail'];
          const r = await call('goals.record', { gate, status, value: str(ctx, 'value'), agent: agentOf(ctx) });
          if (ctx.json) printJson(ctx, r);
          else ctx.io.stdout(`${r.gate_id}: ${r.status.toUpperCase()}${r.value ? ` (${r.value})` : ''} recorded at ${r.recorded_at}\n`);
          return 0;
        }
        const f = await call('goals.show', {});
        if (ctx.json) printJson(ctx, f);
        else ctx.io.stdout(f.file === null ? 'No fitness goals defined: no GOALS.md or GOALS.yaml at an indexed root (contextpack goals init --dir DIR, then ingest DIR).\n' : render(f));
        return 0;
      } catch (err) {
        // A malformed spec or an unknown gate, in the engine's words, as this command always said it.
        if (err instanceof CliApiError && err.apiError.code === 'invalid_input') throw new CliError(`goals: ${err.apiError.message}`);
        throw err;
      }
    });
  },
};
