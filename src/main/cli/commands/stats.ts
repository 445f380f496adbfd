import { storeStats } from '../../core/stats.ts';
import { defaultModelDirs } from '../../paths.ts';
import { openCliStore, printJson, type Command } from '../command.ts';

// Not a client of stats.get: `contextpack stats` is in the start-up bench, and through the handler map it costs 175 ms
// against 69 direct (131 with zod bundled; docs/cli.md has the figures). Even a dispatcher over stats.get's handler
// alone pays ~20 ms for zod and the contract's schemas. The contract suite checks that both say the same.
export const statsCommand: Command = {
  name: 'stats',
  summary: 'Show what the index holds and which capabilities are on',
  usage: 'contextpack stats [--db FILE] [--json]',
  options: {},
  async run(ctx) {
    const store = openCliStore(ctx);
    try {
      const s = await storeStats(store, defaultModelDirs(ctx.io.env));
      const integrity = store.readOnlyReason ? 'damaged: open read-only' : INTEGRITY[store.integrity];
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
    } finally {
      store.close();
    }
  },
};

const INTEGRITY = {
  new: 'new database',
  ran: 'PRAGMA quick_check passed',
  unchanged: 'unchanged since it last passed PRAGMA quick_check or was closed by ContextPack',
  memory: 'in memory',
} as const;
