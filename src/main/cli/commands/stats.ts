import { withApi } from '../api-client.ts';
import { printJson, type Command } from '../command.ts';

export const statsCommand: Command = {
  name: 'stats',
  summary: 'Show what the index holds and which capabilities are on',
  usage: 'contextpack stats [--db FILE] [--json]',
  options: {},
  async run(ctx) {
    return withApi(ctx, 'stats', async (call) => {
      const { integrity: state, ...s } = await call('stats.get', {});
      const integrity = INTEGRITY[state];
      if (ctx.json) printJson(ctx, { ...s, integrity });
      else {
        ctx.io.stdout(
          [
            `database   ${s.dbPath} (${(s.dbBytes / 1024 / 1024).toFixed(1)} MB)`,
            `sources    ${s.sources.indexed} indexed, ${s.sources.skipped} skipped, ${s.sources.failed} failed`,
            `documents  ${s.documents}`,
            `chunks     ${s.chunks}`,
            `integrity  ${integrity}`,
            `last ingest ${s.lastIngest ? `${s.lastIngest.startedAt} (${s.lastIngest.durationMs ?? '?'} ms)` : 'never'}`,
            ...s.notices,
          ].join('\n') + '\n',
        );
      }
      return 0;
    });
  },
};

const INTEGRITY = {
  damaged: 'damaged: open read-only',
  new: 'new database',
  ran: 'PRAGMA quick_check passed',
  unchanged: 'unchanged since it last passed PRAGMA quick_check or was closed by ContextPack',
  memory: 'in memory',
} as const;
