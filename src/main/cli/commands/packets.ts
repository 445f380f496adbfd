import { withApi } from '../api-client.ts';
import { intOption, printJson, type Command } from '../command.ts';
import { printable } from '../printable.ts';

export const packetsCommand: Command = {
  name: 'packets',
  gatesOutput: true,
  summary: 'List stored packets, newest first, each with whether a cited source changed since (stale)',
  usage: 'contextpack packets [--limit N] [--json] [--db FILE]',
  options: { limit: { type: 'string' } },
  async run(ctx) {
    const limit = intOption(ctx, 'limit', 50);
    return withApi(ctx, 'packets', async (call) => {
      const list = await call('packets.list', { limit });
      if (ctx.json) printJson(ctx, { packets: list });
      else if (list.length === 0) ctx.io.stdout('no packets yet (contextpack pack --query "…")\n');
      else
        ctx.io.stdout(
          list
            .map((p) => printable(`${p.hash.slice(0, 16)}  ${p.created_at}  ${p.template.padEnd(10)}  ${String(p.total_chars).padStart(6)} chars  ${String(p.total_tokens).padStart(5)} tok  ${p.redactions} red.  ${JSON.stringify(p.query)}${p.stale ? `  STALE (${(p.changed_sources ?? []).map((c) => `${c.path} ${c.change}`).join(', ')})` : ''}`))
            .join('\n') + '\n',
        );
      return 0;
    });
  },
};
