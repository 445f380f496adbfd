import { HANDOFF_TYPES } from '../../../shared/session.ts';
import { DEFAULT_WINDOW, type CapacityReport } from '../../core/session/index.ts';
import { TOKEN_ENCODINGS, type TokenEncoding } from '../../core/tokens/index.ts';
import { CliError, intOption, numberOption, oneOf, printJson, readInput, type Command } from '../command.ts';
import { agentOf, str, strs, subcommand } from './memory-shared.ts';
import { readTranscriptInput, transcriptWarnings } from './transcript-input.ts';
import { withApi } from '../api-client.ts';

/** The transcript's text and name are one flag's. */
const TRANSCRIPT_FLAGS = { 'transcript.text': '--transcript', 'transcript.name': '--transcript' };

const fmt = (n: number) => n.toLocaleString('en-US');

function capacityText(r: CapacityReport): string {
  return [
    `${r.level.padEnd(6)} ${fmt(r.tokens)} / ${fmt(r.window)} tokens (${r.usage_pct.toFixed(1)} %)`,
    `Action: ${r.action} — ${r.status}`,
    `Response: ${r.response}`,
    r.tokens_to_next_level !== null ? `Next level in ${fmt(r.tokens_to_next_level)} tokens` : 'Over the last threshold',
  ].join('\n') + '\n';
}

export const capacityCommand: Command = {
  name: 'capacity',
  summary: "Context capacity level (seed 002: GREEN / YELLOW / ORANGE / RED at 80 / 90 / 95 %) and the action it prescribes",
  usage: 'contextpack capacity (--tokens N | --transcript FILE|-) [--window W] [--encoding o200k_base|cl100k_base] [--json]',
  options: { tokens: { type: 'string' }, transcript: { type: 'string' }, window: { type: 'string' }, encoding: { type: 'string' } },
  async run(ctx) {
    const window = intOption(ctx, 'window', DEFAULT_WINDOW);
    const encoding = oneOf(ctx.values.encoding, TOKEN_ENCODINGS, 'encoding', 'o200k_base' as TokenEncoding);
    const file = str(ctx, 'transcript');
    if ((file === undefined) === (ctx.values.tokens === undefined)) throw new CliError(`capacity: give --tokens N or --transcript FILE\nusage: ${this.usage}`);
    // The file is read (and its malformed lines reported) here; sessions.capacity counts each turn as the agent saw it.
    const read = file !== undefined ? await readTranscriptInput(ctx, file) : undefined;
    const tokens = read ? undefined : intOption(ctx, 'tokens', 0, 0);
    // Capacity reads no store: none is opened.
    return withApi(
      ctx,
      'capacity',
      async (call) => {
        const { transcript: t, ...r } = await call('sessions.capacity', read ? { transcript: read, window, encoding } : { tokens, window });
        transcriptWarnings(ctx, t);
        if (ctx.json) printJson(ctx, { ...r, ...(t ? { transcript: t.name, format: t.format, turns: t.turns, problems: t.problems, encoding } : {}) });
        else ctx.io.stdout(capacityText(r));
        return 0;
      },
      TRANSCRIPT_FLAGS,
      true,
    );
  },
};

export const compactCommand: Command = {
  name: 'compact',
  summary: "Compact a transcript per seed 002's preservation rules; prints the compacted context and the compaction summary",
  usage: 'contextpack compact --transcript FILE|- [--target-tokens N | --reduction 0.3] [--json]',
  options: { transcript: { type: 'string' }, 'target-tokens': { type: 'string' }, reduction: { type: 'string' } },
  async run(ctx) {
    const file = str(ctx, 'transcript');
    if (!file) throw new CliError(`compact: give --transcript FILE\nusage: ${this.usage}`);
    const target = intOption(ctx, 'target-tokens', undefined);
    const reduction = ctx.values.reduction === undefined ? undefined : numberOption(ctx, 'reduction', 0, 0, 0.95);
    const read = await readTranscriptInput(ctx, file);
    // sessions.analyze compacts and counts as written; what it answers has passed the gate.
    return withApi(ctx, 'compact', async (call) => {
      const r = await call('sessions.analyze', { transcript: read, targetReduction: reduction, targetTokens: target });
      transcriptWarnings(ctx, r);
      if (ctx.json) printJson(ctx, { compaction: r.compaction, reduction: r.reduction, target_tokens: r.target_tokens, preserved: r.preserved, elements: r.elements, text: r.text });
      else {
        ctx.io.stdout(r.text);
        ctx.io.stderr(`${JSON.stringify(r.compaction)}\n`);
      }
      return r.compaction.preservation_validation ? 0 : 1;
    }, TRANSCRIPT_FLAGS);
  },
};

export const handoffCommand: Command = {
  name: 'handoff',
  summary: "Build seed 002's handoff package (complete | specialist | continuation | emergency), stored and replayable by hash",
  usage:
    'contextpack handoff --type complete|specialist|continuation|emergency [--transcript FILE|-] [--from A] [--to B] [--reason R]\n' +
    '                    [--max-tokens N] [--format md|json] [--save] [--section §2.1]... [--encoding o200k_base|cl100k_base] [--json]',
  options: {
    type: { type: 'string' },
    transcript: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    reason: { type: 'string' },
    'max-tokens': { type: 'string' },
    format: { type: 'string' },
    save: { type: 'boolean', default: false },
    section: { type: 'string', multiple: true },
    encoding: { type: 'string' },
  },
  async run(ctx) {
    const type = oneOf(ctx.values.type, HANDOFF_TYPES, 'type', undefined);
    if (!type) throw new CliError(`handoff: give --type ${HANDOFF_TYPES.join('|')}\nusage: ${this.usage}`);
    const format = oneOf(ctx.values.format, ['md', 'json'] as const, 'format', 'md' as const);
    const encoding = oneOf(ctx.values.encoding, TOKEN_ENCODINGS, 'encoding', 'o200k_base' as TokenEncoding);
    const maxTokens = intOption(ctx, 'max-tokens', undefined, 100);
    const file = str(ctx, 'transcript');
    const read = file ? await readTranscriptInput(ctx, file) : undefined;
    const sections = strs(ctx, 'section');
    return withApi(ctx, 'handoff', async (call) => {
      const r = await call('sessions.handoff', {
        type,
        transcript: read,
        from: str(ctx, 'from') ?? agentOf(ctx),
        to: str(ctx, 'to'),
        reason: str(ctx, 'reason'),
        maxTokens,
        encoding,
        sections: sections.length ? sections : undefined,
        format,
        save: ctx.values.save === true,
      });
      transcriptWarnings(ctx, r.transcript);
      const p = r.package;
      if (ctx.json) printJson(ctx, { context_snapshot_hash: r.hash, stored: r.stored, recorded_memory_id: r.recorded_memory_id, saved: r.saved, package: p });
      else ctx.io.stdout(r.text);
      ctx.io.stderr(
        `handoff ${r.hash.slice(0, 16)} (handoff-${p.handoff_metadata.handoff_type}): ${fmt(p.budget.package_tokens)} / ${fmt(p.budget.max_tokens)} tokens, ` +
          `reduction ${(p.compaction.reduction_achieved * 100).toFixed(1)} % (target ${p.compaction.reduction_target * 100} %), preservation_validation ${p.compaction.preservation_validation}` +
          `${r.saved ? `; saved ${r.saved.created.length} memories, ${r.saved.duplicates.length} already known` : ''}\n`,
      );
      return p.budget.within_budget ? 0 : 1;
    }, TRANSCRIPT_FLAGS);
  },
};

export const sessionCommand: Command = {
  name: 'session',
  summary: "Record seed 002's session summary (done, decisions, bugs, TODOs) and save its findings as memories; list sessions",
  usage: 'contextpack session end [--notes FILE|- | --transcript FILE|-] [--agent A] [--json]\n       contextpack session list [--limit N] [--json]',
  options: { notes: { type: 'string' }, transcript: { type: 'string' }, agent: { type: 'string' }, limit: { type: 'string' } },
  async run(ctx) {
    const sub = subcommand(ctx, ['end', 'list'], this.usage);
    if (sub === 'list') {
      const limit = intOption(ctx, 'limit', 20);
      return withApi(ctx, 'session list', async (call) => {
        const sessions = await call('sessions.list', { limit });
        if (ctx.json) printJson(ctx, { sessions });
        else ctx.io.stdout(sessions.length === 0 ? 'no sessions recorded (contextpack session end --notes FILE)\n' : sessions.map((s) => `${s.ended_at}  ${s.headline}`).join('\n') + '\n');
        return 0;
      });
    }
    const notes = str(ctx, 'notes');
    const file = str(ctx, 'transcript');
    if ((notes === undefined) === (file === undefined)) throw new CliError(`session end: give --notes FILE or --transcript FILE\nusage: ${this.usage}`);
    const read = file !== undefined ? await readTranscriptInput(ctx, file) : undefined;
    const text = read ? undefined : await readInput(ctx, notes!, '--notes');
    return withApi(ctx, 'session end', async (call) => {
      const { transcript: t, ...r } = await call('sessions.end', read ? { transcript: read, agent: agentOf(ctx) } : { notes: text, notesName: notes === '-' ? 'stdin' : notes, agent: agentOf(ctx) });
      transcriptWarnings(ctx, t);
      if (ctx.json) printJson(ctx, r);
      else {
        const s = r.summary;
        const lines = [`session ${s.session_metadata.session_id} — ${r.headline}`];
        for (const d of s.done) lines.push(`  done      ${d}`);
        for (const d of s.decisions_made) lines.push(`  decision  ${d.title}`);
        for (const i of s.issues_encountered) lines.push(`  ${i.kind.padEnd(9)} ${i.id.startsWith('issue:') || i.id.startsWith('todo:') ? '' : `${i.id} `}${i.title}`);
        lines.push(`saved ${r.saved.created.length} memories${r.saved.duplicates.length ? `, ${r.saved.duplicates.length} already known` : ''}`);
        ctx.io.stdout(lines.join('\n') + '\n');
      }
      return 0;
    }, TRANSCRIPT_FLAGS);
  },
};
