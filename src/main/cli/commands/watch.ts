import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Store } from '../../core/store/index.ts';
import type { LibraryChange } from '../../../shared/types.ts';
import { CliError, intOption, withStore, type Command, type CommandContext } from '../command.ts';

export const watchCommand: Command = {
  name: 'watch',
  summary: 'Keep the index current: follow folders and re-index what changes (Ctrl+C stops)',
  usage: 'contextpack watch [PATH…] [--db FILE | --project NAME] [--debounce-ms N] [--no-embed] [--json]\n' +
    '  no PATH: every indexed root whose watch switch is on; a PATH not indexed yet is ingested first',
  options: { 'debounce-ms': { type: 'string' }, 'no-embed': { type: 'boolean', default: false } },
  async run(ctx) {
    const debounceMs = intOption(ctx, 'debounce-ms', 150, 0);
    return withStore(ctx, async (store) => {
      // Loaded here: the watcher pulls in a native addon that other commands never need.
      const { createWatcher, parcelSubscribe } = await import('../../core/watch/index.ts');
      const { ensureRoot, listRoots } = await import('../../core/ingest/index.ts');
      let rootIds: number[] | undefined;
      if (ctx.args.length > 0) {
        rootIds = [];
        for (const p of ctx.args.map((a) => resolve(a))) {
          if (!existsSync(p) && !listRoots(store.db).some((r) => r.path === p)) throw new CliError(`watch: ${p}: not found`);
          rootIds.push(ensureRoot(store.db, p).id);
        }
      } else if (!listRoots(store.db).some((r) => r.watch)) {
        throw new CliError('watch: nothing to watch — no indexed root has its watch switch on (give a PATH, or `contextpack ingest PATH` first)');
      }
      const embed = ctx.values['no-embed'] === true ? null : await embedderFor(ctx, store);
      const print = (c: LibraryChange, ms?: number) => {
        if (ctx.json) ctx.io.stdout(JSON.stringify({ event: 'library.changed', ...c }) + '\n');
        else ctx.io.stdout(`${c.at.slice(11, 19)} ${c.root}: +${c.added.length} ~${c.updated.length} -${c.removed.length}${ms === undefined ? '' : ` (${ms} ms)`}${summary(c)}\n`);
      };
      const watcher = createWatcher({
        db: store.db,
        subscribe: parcelSubscribe,
        rootIds,
        debounceMs,
        onChange: (c) => print(c),
        onError: (what, err) => ctx.io.stderr(`contextpack watch: ${what}: ${(err as Error).message ?? String(err)}\n`),
        afterBatch: embed ? () => embed.run() : undefined,
      });
      const stopped = new Promise<void>((done) => {
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
      });
      await watcher.start();
      const s = watcher.status();
      const offline = s.roots.filter((r) => r.status === 'offline').map((r) => r.name);
      if (ctx.json) ctx.io.stdout(JSON.stringify({ event: 'watch.status', ...s }) + '\n');
      else ctx.io.stderr(`watching ${s.watching} root${s.watching === 1 ? '' : 's'} (${s.roots.map((r) => r.name).join(', ')})${offline.length ? `; offline: ${offline.join(', ')}` : ''}${embed ? '' : '; BM25 only'} — Ctrl+C stops\n`);
      await stopped;
      await watcher.close();
      await embed?.close();
      if (!ctx.json) ctx.io.stderr('stopped\n');
      return 0;
    });
  },
};

function summary(c: LibraryChange): string {
  const names = [...c.added, ...c.updated, ...c.removed];
  return names.length === 0 ? '' : `  ${names.slice(0, 3).join(', ')}${names.length > 3 ? `, … ${names.length - 3} more` : ''}`;
}

/** One embedder for the whole session when a local model is there: each batch's new chunks get vectors right away. */
async function embedderFor(ctx: CommandContext, store: Store): Promise<{ run(): Promise<void>; close(): Promise<void> } | null> {
  if (!store.vec.loaded) return null;
  const { configuredModelId, backfillVectors } = await import('../../core/vectors/index.ts');
  const { defaultModelDirs } = await import('../../paths.ts');
  const { tryOpenEmbedder } = await import('../../core/embed/embedder.ts');
  const opened = await tryOpenEmbedder({ modelId: configuredModelId(store.db), dirs: defaultModelDirs(ctx.io.env) }, { inProcess: true });
  if (!opened.ok) return null;
  return {
    async run() {
      await backfillVectors(store.db, opened.embedder, {});
    },
    close: () => opened.embedder.close(),
  };
}
