import { resolve } from 'node:path';
import { ingestPaths, rescan } from '../../core/ingest/index.ts';
import { openStore } from '../../core/store/index.ts';
import type { IngestReport } from '../../../shared/types.ts';
import { CliError, intOption, printJson, type Command, type CommandContext } from '../command.ts';

export const ingestCommand: Command = {
  name: 'ingest',
  summary: 'Index files and folders (honours .gitignore and .contextpackignore)',
  usage: 'contextpack ingest <path...> [--db FILE] [--max-file-mb N] [--json] | contextpack ingest --rescan',
  options: { 'max-file-mb': { type: 'string' }, rescan: { type: 'boolean', default: false }, progress: { type: 'boolean', default: false } },
  async run(ctx) {
    if (ctx.args.length === 0 && ctx.values.rescan !== true) throw new CliError(`ingest: give at least one path\nusage: ${this.usage}`);
    const store = openStore(ctx.dbPath);
    try {
      const options = {
        maxFileBytes: intOption(ctx, 'max-file-mb', 20) * 1024 * 1024,
        onProgress: ctx.values.progress === true
          ? (p: { phase: string; filesDone: number; filesTotal: number }) => ctx.io.stderr(`\r${p.phase} ${p.filesDone}/${p.filesTotal}`)
          : undefined,
      };
      const report = ctx.values.rescan === true
        ? await rescan(store.db, options)
        : await ingestPaths(store.db, ctx.args.map((p) => resolve(p)), options);
      if (ctx.json) printJson(ctx, report);
      else ctx.io.stdout(formatReport(report));
      return report.failed.length > 0 ? 1 : 0;
    } finally {
      store.close();
    }
  },
};

export function formatReport(r: IngestReport): string {
  const lines = [
    `added ${r.added.length}, updated ${r.updated.length}, unchanged ${r.unchanged}, removed ${r.removed.length}, ` +
      `skipped ${r.skipped.length}, failed ${r.failed.length} — ${r.files} files, ${r.chunks} chunks in ${(r.durationMs / 1000).toFixed(2)} s`,
  ];
  for (const f of r.failed) lines.push(`  failed  ${f.path}: ${f.reason}`);
  for (const s of r.skipped) lines.push(`  skipped ${s.path}: ${s.reason}`);
  return lines.join('\n') + '\n';
}

export type { CommandContext };
