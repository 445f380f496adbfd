// Seed 002's Intelligent Context Compaction, deterministic and extractive: preservation-scored (100) elements are
// rendered first and never dropped while they fit; discard rules (0–30) compress verbose tool output to its summary
// statistics, drop duplicate outputs, repeated reads and superseded plans; the rest is scored 31–99 (recency,
// reference, task relevance, information density) and removed lowest first until the target is met.
import { escapeControls } from '../../../shared/text-escape.ts';
import { countTokens } from '../tokens/index.ts';
import { renderTurn, type Transcript } from '../transcripts/index.ts';
import { STACK_FRAME } from './errors.ts';
import { WINDOW_TURNS } from './extract-lines.ts';
import { extract, openIssuesOf, type Extraction, type Provenance } from './extract.ts';

import type { CompactionSummary, ElementAction, ElementReport, PreservedCheck, PreservedKind } from '../../../shared/session.ts';
import { joinLines } from './one-line.ts';
import { inline, QUOTE_BEGIN, QUOTE_END, quoteTurn, quoteTurns, unquote } from './quote.ts';

export type { CompactionSummary, ElementAction, ElementReport, PreservedCheck, PreservedKind };

export interface CompactionResult {
  text: string;
  summary: CompactionSummary;
  /** Achieved reduction, 0–1. */
  reduction: number;
  target_tokens: number | null;
  extraction: Extraction;
  preserved: PreservedCheck[];
  elements: ElementReport[];
}

export interface CompactOptions {
  /** Compact until the text is at most this many tokens (preserved elements are never dropped to get there). */
  targetTokens?: number;
  /** Only the preserved block, no conversation (emergency handoffs: "critical state only"). */
  preservedOnly?: boolean;
  /** The target as a function of tokens_before (handoffs: a reduction of it, capped by the budget). */
  targetFor?: (tokensBefore: number) => number;
  /** Words of the task, for relevance scoring; default: the extracted task. */
  focus?: string;
  /** Reuse an extraction of the same transcript. */
  extraction?: Extraction;
  count?: (text: string) => number;
}

const STAT = /\b\d[\d,.]*\s*(?:tests?|specs?|passed|passing|failed|failing|skipped|pending|errors?|warnings?|files?|matches|results|suites?|found|changed|insertions?|deletions?|problems?|issues?)\b|\b(?:passed|failed|ok|success(?:ful)?|build (?:succeeded|completed)|all clear)\b/i;
const VERBOSE_TOKENS = 60;
/** Turns scored one by one (compactTranscript says why older ones are removed as a whole): extraction's window. */
export const COMPACT_WINDOW_TURNS = WINDOW_TURNS;
const LONG_TEXT_CHARS = 300;

const firstLine = (s: string, max = 160) => {
  const l = (s.split('\n').find((x) => x.trim() !== '') ?? '').trim();
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
};
const at = (p: Provenance | null) => (p ? `turn ${p.turn}, line ${p.line}` : 'inferred');
const stamp = (p: Provenance | null) => (p?.ts ? `[${p.ts}] ` : '');
const normalizeOutput = (s: string) => s.replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z?/g, '').replace(/\b\d+(\.\d+)?\s*m?s\b/g, '').replace(/\s+/g, ' ').trim();

/** An error output's first lines (at most 4, none a stack frame, each cut at 200 characters) and what was left out. */
export function errorHead(text: string): { lines: string[]; dropped: number; frames: number } {
  const all = text.split('\n').filter((l) => l.trim() !== '');
  const lines: string[] = [];
  let frames = 0;
  for (const l of all) {
    if (STACK_FRAME.test(l)) frames++;
    else if (lines.length < 4) lines.push(l.length > 200 ? `${l.slice(0, 199)}…` : l);
  }
  if (lines.length === 0) lines.push(firstLine(text, 200));
  return { lines, dropped: all.length - lines.length, frames };
}

/** "300 tests passed"-style lines of a tool output, or its first line. */
export function summarizeOutput(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const stats = lines.filter((l) => STAT.test(l) && l.length <= 200);
  const keep = (stats.length > 0 ? stats.slice(-3) : [lines[0] ?? '(no output)']).map((l) => (l.length > 200 ? `${l.slice(0, 199)}…` : l));
  return `${keep.join(' · ')} (${lines.length} line${lines.length === 1 ? '' : 's'} of output compressed)`;
}

/** The preserved block and the checks that prove each element survived. */
function preservedBlock(x: Extraction): { sections: string[]; checks: PreservedCheck[] } {
  const sections: string[] = [];
  const checks: PreservedCheck[] = [];
  const decisions = x.decisions;
  if (decisions.length > 0) {
    const lines = decisions.map((d) => {
      const parts = [`${stamp(d.at)}DECISION: ${d.decision || d.title}`];
      if (d.rationale) parts.push(`Rationale: ${d.rationale}`);
      if (d.alternatives.length > 0) parts.push(`Alternatives: ${d.alternatives.map((a) => `${a.name} (${a.reason})`).join('; ')}`);
      if (d.impact) parts.push(`Impact: ${d.impact}`);
      if (d.validation) parts.push(`Validated: ${d.validation}`);
      if (d.agent) parts.push(`Agent: ${d.agent}`);
      checks.push({ id: d.id, kind: 'decision', expect: [d.decision || d.title, ...(d.rationale ? [d.rationale] : []), ...d.alternatives.map((a) => a.name)], present: false });
      return inline(`- ${parts.join(' — ')} (${at(d.at)})`);
    });
    sections.push(`## Decisions\n${lines.join('\n')}`);
  }
  if (x.errors.length > 0) {
    const lines = x.errors.map((e) => {
      checks.push({ id: e.id, kind: 'error', expect: [e.message, ...(e.root_cause ? [e.root_cause] : [])], present: false });
      const resolution = e.resolved ? ` — Resolved: a later run passed${e.resolved_at ? ` (turn ${e.resolved_at.turn}, line ${e.resolved_at.line})` : ''}` : '';
      return inline(`- ${stamp(e.at)}ERROR${e.tool ? ` (${e.tool}${e.occurrences > 1 ? ` ×${e.occurrences}` : ''})` : ''}: ${e.message} — Root cause: ${e.root_cause ?? 'not identified yet'}${resolution} (${at(e.at)})`);
    });
    sections.push(`## Errors and root causes\n${lines.join('\n')}`);
  }
  const s = x.state;
  if (s.task || s.text) {
    const lines = [`TASK: ${s.task || '(not stated)'}`];
    if (s.completion_percentage !== null) lines.push(`Progress: ${s.completion_percentage}% complete`);
    for (const c of s.completed) lines.push(`✓ ${c}`);
    for (const c of s.in_progress) lines.push(`⧖ ${c}`);
    for (const c of s.not_started) lines.push(`☐ ${c}`);
    if (s.next_actions.length > 0) lines.push(`Next actions: ${s.next_actions.map((a, i) => `${i + 1}. ${a}`).join(' ')}`);
    if (s.blockers.length > 0) lines.push(`Blockers: ${s.blockers.join('; ')}`);
    checks.push({ id: 'task_state', kind: 'task_state', expect: [s.task, ...s.next_actions, ...s.blockers, ...s.in_progress].filter((e) => e !== ''), present: false });
    sections.push(`## Current task state (${at(s.at)})\n${lines.map(inline).join('\n')}`);
  }
  const open = openIssuesOf(x);
  if (open.length > 0) {
    const lines = open.map((i) => {
      checks.push({ id: i.id, kind: 'open_issue', expect: [i.title], present: false });
      return inline(i.kind === 'todo' ? `- TODO: ${i.title} (${at(i.at)})` : `- ${i.key} [${i.severity.toUpperCase()}]: ${joinLines(i.text).replace(i.key ?? '', '').replace(/^[\s:—–-]*(\[[A-Z]+\])?[\s:—–-]*/, '')} (${at(i.at)})`);
    });
    sections.push(`## Open issues\n${lines.join('\n')}`);
  }
  if (x.acceptance.length > 0) {
    for (const a of x.acceptance) checks.push({ id: a.id, kind: 'acceptance', expect: [a.text], present: false });
    sections.push(`## Acceptance criteria\n${x.acceptance.map((a) => inline(`- ${a.text}`)).join('\n')}`);
  }
  const recent = x.files.slice(-5);
  if (recent.length > 0) {
    for (const f of recent) checks.push({ id: `file:${f.at.turn}`, kind: 'file_modification', expect: [f.path], present: false });
    sections.push(`## Recent file modifications (last ${recent.length})\n${recent.map((f) => inline(`- ${stamp(f.at)}Modified: ${f.path} (${f.tool}, ${at(f.at)})`)).join('\n')}`);
  }
  if (x.learnings.length > 0) sections.push(`## Lessons\n${x.learnings.map((l) => inline(`- ${l.text}`)).join('\n')}`);
  return { sections, checks };
}

const WORD = /[a-z][a-z0-9_]{2,}/g;
const words = (s: string) => new Set(s.toLowerCase().match(WORD) ?? []);

export function compactTranscript(t: Transcript, options: CompactOptions = {}): CompactionResult {
  const exact = options.count ?? ((s: string) => countTokens(s));
  // Short texts repeat (a 10^6-turn history of one-word turns): each is counted once. Exact, only cheaper.
  const memo = new Map<string, number>();
  const count = (s: string) => {
    if (s.length > 120) return exact(s);
    let n = memo.get(s);
    if (n === undefined) {
      n = exact(s);
      if (memo.size < 200_000) memo.set(s, n);
    }
    return n;
  };
  const x = options.extraction ?? extract(t);
  const n = t.turns.length;
  const focus = words(options.focus ?? `${x.state.task} ${x.state.next_actions.join(' ')}`);
  const later = new Map<string, number>();

  // The work bound: only the newest COMPACT_WINDOW_TURNS turns are scored one by one. Older turns are counted (the
  // size as written) and removed as one element: a budget of at most 40k tokens cannot hold more turns than that, and
  // their decisions, errors and state reach the preserved block through the extraction, which reads every turn.
  const windowStart = Math.max(0, n - COMPACT_WINDOW_TURNS);

  // Which tool outputs repeat a later one (the most recent representative is kept).
  const dupOf = new Set<number>();
  for (let i = n - 1; i >= windowStart; i--) {
    const turn = t.turns[i]!;
    if (turn.kind !== 'tool_result' || turn.text.length < 40) continue;
    const key = `${turn.tool_name}\0${normalizeOutput(turn.text)}`;
    if (later.has(key)) dupOf.add(i);
    else later.set(key, i);
  }
  const repeatedReads = new Set(x.repeated_read_turns);
  const supersededPlans = new Map<number, string[]>();
  for (const p of x.superseded_plans) supersededPlans.set(p.at.turn, [...(supersededPlans.get(p.at.turn) ?? []), p.text]);

  type Work = ElementReport & { text: string; compress: { text: string; reason: string; score: number; always?: boolean } | null; contentScore: number };
  const elements: Work[] = [];
  let tokensBefore = 0;
  if (windowStart > 0) {
    let older = 0;
    for (let i = 0; i < windowStart; i++) older += count(renderTurn(t.turns[i]!)) + 1;
    tokensBefore += older;
    const first = t.turns[0]!;
    elements.push({ id: `turns:0-${windowStart - 1}`, turn: 0, kind: first.kind, role: first.role, tokens_before: older, preview: `${windowStart} older turns`, contentScore: 0, action: 'dropped', reason: `older than the newest ${COMPACT_WINDOW_TURNS} turns (the compaction's work bound; their decisions, errors and state are in the preserved block)`, score: 0, tokens_after: 0, text: '', compress: null });
  }
  for (let i = windowStart; i < n; i++) {
    const turn = t.turns[i]!;
    const full = renderTurn(turn);
    const before = count(full) + 1;
    tokensBefore += before;
    // Seed 002's 31–99 band: recency 30, reference 20, task relevance 30, information density 20.
    const w = words(turn.text);
    const overlap = focus.size === 0 ? 0 : [...w].filter((v) => focus.has(v)).length / Math.min(focus.size, 12);
    const density = w.size / Math.max(1, turn.text.split(/\s+/).length);
    const reference = turn.role === 'user' ? 1 : turn.kind === 'text' ? 0.5 : 0.25;
    const weighted = 0.3 * ((turn.index + 1) / n) + 0.2 * reference + 0.3 * Math.min(1, overlap) + 0.2 * Math.min(1, density);
    const contentScore = Math.min(99, 31 + Math.round(68 * weighted));
    const base = { id: `turn:${turn.index}`, turn: turn.index, kind: turn.kind, role: turn.role, tokens_before: before, preview: firstLine(turn.text, 120), contentScore };
    // Deduplication always applies (seed 002's step 5); the other discard rules only as far as the target needs.
    if (dupOf.has(turn.index)) {
      elements.push({ ...base, action: 'dropped', reason: 'duplicate tool output (a later identical one is kept)', score: 5, tokens_after: 0, text: '', compress: null });
      continue;
    }
    if (turn.text.trim() === '' && turn.kind !== 'tool_result') {
      elements.push({ ...base, action: 'dropped', reason: 'empty turn', score: 0, tokens_after: 0, text: '', compress: null });
      continue;
    }
    if (repeatedReads.has(turn.index)) {
      elements.push({ ...base, action: 'dropped', reason: 'repeated read of the same file (the last read is kept)', score: 10, tokens_after: 0, text: '', compress: null });
      continue;
    }
    let text = full;
    let action: ElementAction = 'kept';
    let reason = 'kept';
    let compress: Work['compress'] = null;
    if (turn.kind === 'tool_result' && turn.is_error) {
      // Seed 002: "Preserve: Error message and root cause (discard trace)". The error's first lines stay (the cause is
      // in the preserved block); stack frames and the rest go, whatever the target: a trace is never worth its tokens.
      // 003: tool results are summarized with provenance (the turn and its line in the transcript).
      const head = errorHead(turn.text);
      compress = {
        text: `${renderTurn({ ...turn, text: '' })}${head.lines.join('\n')}${head.dropped > 0 ? `\n(${head.dropped} more line${head.dropped === 1 ? '' : 's'} dropped${head.frames > 0 ? `, ${head.frames} of them stack frames` : ''})` : ''} (turn ${turn.index}, line ${turn.line})`,
        reason: 'error output: first lines kept, stack trace discarded',
        score: 25,
        always: head.dropped > 0,
      };
    } else if (turn.kind === 'tool_result' && before > VERBOSE_TOKENS) {
      // Seed 002: "Preserve: Summary statistics (discard raw logs)"; "Tests passed (retain only pass count)". Always.
      compress = { text: `${renderTurn({ ...turn, text: '' })}${summarizeOutput(turn.text)} (turn ${turn.index}, line ${turn.line})`, reason: 'verbose tool output: summary statistics kept', score: 20, always: true };
    } else if (turn.kind === 'tool_use' && full.length > LONG_TEXT_CHARS) {
      compress = { text: firstLine(full, LONG_TEXT_CHARS), reason: 'long tool input: first line kept', score: 30 };
    } else if (turn.kind === 'text') {
      let body = turn.text;
      const used = x.consumed.get(turn.index);
      if (used) {
        // Lines copied into the preserved block are shown once, there.
        const rest = body.split('\n').filter((_, i) => !used.has(i));
        body = rest.join('\n').trim() === '' ? '' : `${rest.join('\n').replace(/\n{3,}/g, '\n\n').trim()}\n(+ ${used.size} line${used.size === 1 ? '' : 's'} in PRESERVED above)`;
        if (body === '') [action, reason] = ['dropped', 'every line is in the preserved block'];
        else [action, reason] = ['compressed', 'lines already in the preserved block shown once'];
        text = body === '' ? '' : renderTurn({ ...turn, text: body });
      }
      const plans = supersededPlans.get(turn.index);
      if (plans && body !== '') {
        let without = body;
        for (const p of plans) without = without.replace(p, '(superseded plan removed)');
        if (without !== body) compress = { text: renderTurn({ ...turn, text: without }), reason: 'superseded plan removed', score: 15 };
      }
    }
    elements.push({ ...base, action, reason, score: compress?.score ?? contentScore, tokens_after: text ? count(quoteTurn(text)) + 1 : 0, text, compress });
  }

  const { sections, checks } = preservedBlock(x);
  const header = `# COMPACTED CONTEXT\nSource: ${escapeControls(t.source)} (${t.format}, ${n} turns${t.session_id ? `, session ${escapeControls(t.session_id)}` : ''})`;
  const preserved = sections.length > 0 ? `# PRESERVED (seed 002: score 100)\n\n${sections.join('\n\n')}` : '';
  const fixedTokens = count(header) + (preserved ? count(preserved) : 0) + count(`${QUOTE_BEGIN}\n${QUOTE_END}`) + 40;

  const applyCompress = (e: Work) => {
    const c = e.compress!;
    e.compress = null;
    [e.action, e.reason, e.text, e.tokens_after] = ['compressed', c.reason, c.text, count(quoteTurn(c.text)) + 1];
  };
  // The discard rules that apply whatever the target (verbose output, stack traces); the others only as far as it needs.
  const always = new Set<Work>();
  for (const e of elements) {
    if (!e.compress?.always) continue;
    applyCompress(e);
    always.add(e);
  }
  // Duplicates, empty turns and repeated reads are gone whatever happens below, the fallback included.
  const discarded = new Set(elements.filter((e) => e.action === 'dropped'));
  if (options.preservedOnly) for (const e of elements) if (e.action !== 'dropped') [e.action, e.reason, e.text, e.tokens_after, e.compress] = ['dropped', 'critical state only (emergency handoff)', '', 0, null];

  const target = options.targetFor ? options.targetFor(tokensBefore) : (options.targetTokens ?? null);
  if (target === null) {
    // No target: every discard rule applies, nothing scored is removed.
    for (const e of elements) if (e.compress) applyCompress(e);
  } else {
    // Seed 002's procedure: lowest score first until the target holds. Discard rules (0–30) compress before
    // anything scored (31–99) is removed; preserved content (100) is outside this loop.
    let total = fixedTokens + elements.reduce((a, e) => a + e.tokens_after, 0);
    const byScore = (a: Work, b: Work) => a.score - b.score || a.turn - b.turn;
    for (const e of elements.filter((e) => e.compress).sort(byScore)) {
      if (total <= target) break;
      const was = e.tokens_after;
      applyCompress(e);
      total -= was - e.tokens_after;
    }
    const live = elements.filter((e) => e.text !== '').sort((a, b) => a.contentScore - b.contentScore || a.turn - b.turn);
    for (const e of live) {
      if (total <= target) break;
      total -= e.tokens_after;
      [e.action, e.reason, e.text, e.tokens_after, e.score, e.compress] = ['dropped', `over the target of ${target} tokens (score ${e.contentScore})`, '', 0, e.contentScore, null];
    }
  }

  let kept = elements.filter((e) => e.text !== '');
  let dropped = elements.length - kept.length + Math.max(0, windowStart - 1);
  // The transcript's words only as a quote (quote.ts): no line of a turn can pose as a heading or item of ours.
  const conversation = kept.length > 0 ? `# CONVERSATION (compacted: ${kept.length} of ${n} turns${dropped > 0 ? `, ${dropped} removed` : ''})\n\n${quoteTurns(kept.map((e) => e.text))}` : '';
  let text = [header, preserved, conversation].filter((s) => s !== '').join('\n\n') + '\n';
  let tokensAfter = count(text);
  if (tokensAfter >= tokensBefore && !options.preservedOnly) {
    // Below the size where the preserved block and the scored removals pay for themselves, compaction would only add:
    // the transcript is handed on as written, quoted like any transcript text, with only the rules that always apply
    // (verbose output summarized, stack traces cut, duplicates and repeated reads dropped) — which also pay for the
    // quote's marks, so a small transcript does not come out larger as a rule.
    const handed = elements.filter((e) => !discarded.has(e));
    text = `${quoteTurns(handed.map((e) => (always.has(e) ? e.text : renderTurn(t.turns[e.turn]!))))}\n`;
    tokensAfter = count(text);
    for (const e of handed) if (!always.has(e)) Object.assign(e, { action: 'kept', reason: 'kept (compaction would not make this transcript smaller)', tokens_after: e.tokens_before, score: e.contentScore, text: 'kept' });
    kept = handed;
    dropped = discarded.size;
  }
  // Checked on the words, without the escapes quoted lines carry.
  const flat = unquote(text).replace(/\s+/g, ' ');
  for (const c of checks) c.present = c.expect.every((e) => e.split(' | ').every((part) => flat.includes(part.replace(/\s+/g, ' '))));
  return {
    text,
    summary: {
      tokens_before: tokensBefore,
      tokens_after: tokensAfter,
      tokens_saved: tokensBefore - tokensAfter,
      elements_removed: dropped,
      preservation_validation: checks.every((c) => c.present),
    },
    reduction: tokensBefore === 0 ? 0 : (tokensBefore - tokensAfter) / tokensBefore,
    target_tokens: target,
    extraction: x,
    preserved: checks,
    elements: elements.map(({ text: _t, compress: _c, contentScore: _s, ...e }) => e),
  };
}
