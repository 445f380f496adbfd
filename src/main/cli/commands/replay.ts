import { PACKET_FORMATS, type ReplayDiff } from '../../../shared/packet.ts';
import { CliError, oneOf, printJson, type Command } from '../command.ts';
import { CliApiError, withApi } from '../api-client.ts';

/** packets.* refuse a handoff package by its hash field; sessions.handoffGet serves it. */
const isHandoff = (err: unknown): boolean =>
  err instanceof CliApiError && err.apiError.code === 'invalid_input' && (err.apiError.issues ?? []).some((i) => i.field === 'hash' && i.message === 'a handoff package');

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
    const reassemble = ctx.values.reassemble === true;
    return withApi(
      ctx,
      'replay',
      async (call) => {
        try {
          // A reassembly retrieves as a new packet would today, so the diff shows what a rebuild would change.
          if (reassemble) {
            const diff = await call('packets.replay', { hash });
            if (ctx.json) printJson(ctx, diff);
            else ctx.io.stdout(formatDiff(diff));
            return 0;
          }
          const p = await call('packets.get', { hash, format, raw });
          // --raw: the exact stored bytes (canonical JSON), which hash to the snapshot id.
          ctx.io.stdout(raw ? p.stored! : p.text);
          return 0;
        } catch (err) {
          // Handoff packages share the snapshot store: replayed from their verified bytes, never reassembled.
          if (!isHandoff(err)) throw err;
          if (reassemble) throw new CliError('replay --reassemble rebuilds packets; a handoff package is replayed from its stored bytes only');
          if (format === 'contextos') throw new CliError('a handoff package has the formats md and json');
          const h = await call('sessions.handoffGet', { hash, raw });
          ctx.io.stdout(format === 'md' ? h.text : format === 'json' ? `${JSON.stringify({ ...h.package, context_snapshot_hash: h.hash }, null, 2)}\n` : h.stored!);
          return 0;
        }
      },
      { hash: '<hash>' },
    );
  },
};
