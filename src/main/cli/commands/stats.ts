import { storeStats } from '../../core/stats.ts';
import { defaultModelDirs } from '../../paths.ts';
import { openCliStore, printJson, type Command } from '../command.ts';

export const statsCommand: Command = {
  name: 'stats',
  summary: 'Show what the index holds and which capabilities are on',
  usage: 'contextpack stats [--db FILE] [--json]',
  options: {},
  async run(ctx) {
    const store = openCliStore(ctx);
    try {
      const s = await storeStats(store, defaultModelDirs(ctx.io.env));
      if (ctx.json) printJson(ctx, s);
      else {
        ctx.io.stdout(
          [
            `database   ${s.dbPath} (${(s.dbBytes / 1024 / 1024).toFixed(1)} MB)`,
            `sources    ${s.sources.indexed} indexed, ${s.sources.skipped} skipped, ${s.sources.failed} failed`,
            `documents  ${s.documents}`,
            `chunks     ${s.chunks}`,
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
