import { PACKET_FORMATS, type ReplayDiff } from '../../../shared/packet.ts';
import { createStoreSources, getSnapshot, replay } from '../../core/packet/index.ts';
import { decodeHandoff, renderHandoffMarkdown } from '../../core/session/index.ts';
import { CliError, oneOf, printJson, withStore, type Command } from '../command.ts';
import { asCliError } from './packet-shared.ts';
import { cliRetrieval } from '../retrieval.ts';

function formatDiff(d: ReplayDiff): string {
  const out = [d.identical ? `identical: ${d.hash}` : `stored ${d.hash}\nrebuilt ${d.reassembled_hash}`];
  for (const i of d.added) out.push(`+ ${i.section} ${i.id}${i.score === null ? '' : ` (score ${i.score})`}`);
  for (const i of d.removed) out.push(`- ${i.section} ${i.id}${i.score === null ? '' : ` (score ${i.score})`}`);
  for (const c of d.changed) out.push(`~ ${c.section} ${c.id}: ${c.before.digest === c.after.digest ? '' : 'content changed; '}score ${c.before.score} → ${c.after.score}${c.before.section === c.after.section ? '' : `; ${c.before.section} → ${c.after.section}`}`);
  for (const n of d.notes) out.push(`  ${n}`);
  out.push(`${d.added.length} added, ${d.removed.length} removed, ${d.changed.length} changed`);
  return out.join('\n') + '\n';
}

export const replayCommand: Command = {
  name: 'replay',
  summary: 'Print a stored packet by its hash (verified), or rebuild it and diff by item id',
  usage: 'contextpack replay <hash> [--reassemble] [--format md|json|contextos] [--raw] [--json] [--db FILE]\n' +
    '       (Markdown by default, like pack; --json = --format json; --raw prints the exact stored bytes, which hash to the id)',
  options: { reassemble: { type: 'boolean', default: false }, format: { type: 'string' }, raw: { type: 'boolean', default: false } },
  async run(ctx) {
    const hash = ctx.args[0];
    if (!hash) throw new CliError(`replay: give a snapshot hash (or a unique prefix)\nusage: ${this.usage}`);
    const raw = ctx.values.raw === true;
    if (raw && ctx.values.format !== undefined) throw new CliError('replay: --raw prints the stored bytes; it takes no --format');
    // Like pack: Markdown unless asked otherwise (--json means the json format).
    const format = raw ? undefined : oneOf(ctx.values.format, PACKET_FORMATS, 'format', ctx.json ? 'json' : 'md');
    return withStore(ctx, async (store) => {
      try {
        const reassemble = ctx.values.reassemble === true;
        // Handoff packages share the snapshot store: replayed from their verified bytes, never reassembled.
        const snap = getSnapshot(store.db, hash);
        const handoff = decodeHandoff(snap.bytes);
        if (handoff) {
          if (reassemble) throw new CliError('replay --reassemble rebuilds packets; a handoff package is replayed from its stored bytes only');
          if (format === 'contextos') throw new CliError('a handoff package has the formats md and json');
          ctx.io.stdout(format === 'md' ? renderHandoffMarkdown(handoff, snap.hash) : format === 'json' ? `${JSON.stringify({ ...handoff, context_snapshot_hash: snap.hash }, null, 2)}\n` : Buffer.from(snap.bytes).toString('utf8'));
          return 0;
        }
        // A reassembly retrieves as a new packet would today, so the diff shows what a rebuild would change.
        const retrieval = reassemble ? await cliRetrieval(store, ctx.io.env, { purpose: 'packet' }) : null;
        let r;
        try {
          r = await replay(
            store.db,
            hash,
            { reassemble, format },
            retrieval ? { sources: createStoreSources(store.db, { retriever: retrieval.retriever, embedderId: retrieval.embedderId, retrievalFallback: retrieval.fallbackReason }) } : undefined,
          );
        } finally {
          await retrieval?.close();
        }
        if (reassemble) {
          if (ctx.json) printJson(ctx, r.diff);
          else ctx.io.stdout(formatDiff(r.diff!));
          return 0;
        }
        // --raw: the exact stored bytes (canonical JSON), which hash to the snapshot id.
        ctx.io.stdout(r.text ?? Buffer.from(r.bytes).toString('utf8'));
        return 0;
      } catch (err) {
        throw asCliError(err);
      }
    });
  },
};
