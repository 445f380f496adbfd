import { readFileSync } from 'node:fs';
import { openStore } from '../../core/store/index.ts';
import { bestPerDocument, createBm25Retriever } from '../../core/search/index.ts';
import type { SearchHit } from '../../../shared/types.ts';
import { CliError, intOption, printJson, type Command } from '../command.ts';

export const searchCommand: Command = {
  name: 'search',
  summary: 'Search the index; batch mode prints a TREC run',
  usage: 'contextpack search "<query>" [--k N] [--json] [--db FILE]\n       contextpack search --queries FILE.jsonl --k 100 --format trec [--db FILE]',
  options: { k: { type: 'string' }, queries: { type: 'string' }, format: { type: 'string' } },
  async run(ctx) {
    const k = intOption(ctx, 'k', ctx.values.queries ? 100 : 10);
    const store = openStore(ctx.dbPath);
    try {
      const retriever = createBm25Retriever(store.db);
      if (typeof ctx.values.queries === 'string') {
        const format = ctx.values.format ?? 'trec';
        if (format !== 'trec') throw new CliError(`--format must be trec in batch mode, got ${JSON.stringify(format)}`);
        for (const q of readQueries(ctx.values.queries)) {
          // Over-fetch chunks so that k distinct documents survive collapsing multi-chunk documents.
          const hits = bestPerDocument(await retriever.search({ text: q.text, k: k * 3 }), k);
          const lines = hits.map((h, i) => `${q.id} Q0 ${h.externalId ?? `${h.path}#${h.anchor}`} ${i + 1} ${h.score.toFixed(6)} contextpack`);
          if (lines.length > 0) ctx.io.stdout(lines.join('\n') + '\n');
        }
        return 0;
      }
      const text = ctx.args.join(' ');
      if (text.trim() === '') throw new CliError(`search: give a query\nusage: ${this.usage}`);
      const hits = await retriever.search({ text, k });
      if (ctx.json) printJson(ctx, { query: text, mode: retriever.mode, k, hits });
      else ctx.io.stdout(hits.length === 0 ? 'no results\n' : hits.map(formatHit).join('\n'));
      return 0;
    } finally {
      store.close();
    }
  },
};

export function formatHit(h: SearchHit, i: number): string {
  const where = `${h.path}${h.anchor ? `#${h.anchor}` : ''}:${h.lineStart}-${h.lineEnd}`;
  const snippet = h.text.replace(/\s+/g, ' ').slice(0, 160);
  return `${String(i + 1).padStart(2)}. ${h.score.toFixed(3)}  ${where}${h.externalId ? `  [${h.externalId}]` : ''}\n    ${snippet}\n`;
}

export function readQueries(file: string): { id: string; text: string }[] {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`--queries ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const out: { id: string; text: string }[] = [];
  raw.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let q: { _id?: unknown; id?: unknown; text?: unknown };
    try {
      q = JSON.parse(line);
    } catch {
      throw new CliError(`${file}:${i + 1}: invalid JSON`);
    }
    const id = q._id ?? q.id;
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof q.text !== 'string') {
      throw new CliError(`${file}:${i + 1}: expected {"_id", "text"}`);
    }
    out.push({ id: String(id), text: q.text });
  });
  return out;
}
