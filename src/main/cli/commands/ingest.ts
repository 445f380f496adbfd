import { resolve } from 'node:path';
import type { IngestReport } from '../../../shared/types.ts';
import { embedVia, formatBackfill, type EmbedResult } from './embed.ts';
import { printable } from '../printable.ts';
import { CliError, intOption, printJson, type Command, type CommandContext } from '../command.ts';
import { withApi } from '../api-client.ts';
import { projectExists } from '../../core/projects/projects.ts';
import { userDataDir } from '../../paths.ts';

export const ingestCommand: Command = {
  name: 'ingest',
  summary: 'Index files and folders (honours .gitignore and .contextpackignore)',
  usage: 'contextpack ingest <path...> [--db FILE] [--max-file-mb N] [--follow-symlinks] [--no-embed] [--progress | --quiet] [--json] | contextpack ingest --rescan',
  options: {
    'follow-symlinks': { type: 'boolean', default: false },
    'max-file-mb': { type: 'string' },
    rescan: { type: 'boolean', default: false },
    progress: { type: 'boolean', default: false },
    'no-embed': { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
  // Indexing into a project that does not exist yet creates it (and says so); every other command refuses the name.
  newProject: 'create',
  async run(ctx) {
    if (ctx.args.length === 0 && ctx.values.rescan !== true) throw new CliError(`ingest: give at least one path\nusage: ${this.usage}`);
    const read = { maxFileMb: intOption(ctx, 'max-file-mb', 20), followSymlinks: ctx.values['follow-symlinks'] === true };
    const progress = ctx.values.progress === true;
    const named = ctx.values.db === undefined && !ctx.io.env.CONTEXTPACK_DB ? ((ctx.values.project as string | undefined) ?? ctx.io.env.CONTEXTPACK_PROJECT) : undefined;
    if (named !== undefined && !projectExists(userDataDir(ctx.io.env), named)) ctx.io.stderr(`new project ${named} (\`contextpack projects\` lists them)\n`);
    return withApi(ctx, 'ingest', async (call, api) => {
      const { events } = api;
      const stop = progress
        ? events.subscribe((e) => {
            if (e.name === 'ingest.progress') ctx.io.stderr(`\r${e.payload.phase} ${e.payload.filesDone}/${e.payload.filesTotal}`);
          })
        : () => {};
      let report: IngestReport;
      try {
        report = ctx.values.rescan === true ? await call('library.rescan', read) : await call('library.ingest', { paths: ctx.args.map((p) => resolve(p)), ...read });
      } finally {
        stop();
      }
      // New chunks get their vectors right away when a local model is there; without one, BM25 still works.
      let embedding: EmbedResult | null = null;
      if (ctx.values['no-embed'] !== true && report.added.length + report.updated.length > 0) {
        embedding = await embedVia(call, api, ctx, {});
      }
      if (ctx.json) printJson(ctx, { ...report, embedding: embedding && (embedding.ok ? embedding.report : { reason: embedding.reason }) });
      else {
        ctx.io.stdout(formatReport(report));
        if (embedding?.ok) ctx.io.stdout(formatBackfill(embedding.report));
        else if (embedding) ctx.io.stderr(`${embedding.reason} (BM25 search works; see docs/semantic-search.md, "Embeddings")\n`);
      }
      return report.failed.length > 0 ? 1 : 0;
    });
  },
};

export function formatReport(r: IngestReport): string {
  const lines = [
    `added ${r.added.length}, updated ${r.updated.length}, unchanged ${r.unchanged}, removed ${r.removed.length}, ` +
      `skipped ${r.skipped.length}, failed ${r.failed.length} — ${r.files} files, ${r.chunks} chunks in ${(r.durationMs / 1000).toFixed(2)} s`,
  ];
  for (const o of r.offline ?? []) lines.push(`  offline ${printable(o)}: not there; its sources are kept until it returns`);
  for (const f of r.failed) lines.push(`  failed  ${printable(f.path)}: ${printable(f.reason)}`);
  for (const s of r.skipped) lines.push(`  skipped ${printable(s.path)}: ${printable(s.reason)}`);
  for (const w of r.warnings ?? []) lines.push(`  warning ${printable(w.path)}: ${printable(w.reason)}`);
  return lines.join('\n') + '\n';
}

export type { CommandContext };
