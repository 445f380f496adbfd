// What a new session is handed at start: after a compaction or on resume, the latest handoff stored for that session
// (else the project's), cut to a budget; on a fresh start, the project's rehydration bundle. Claude Code inlines a
// hook's output up to about 10,000 characters (past that it shows a preview), so both fit under a character cap too.
// Budgets are counted as seed 000 counts injected text (4 characters a token): loading the BPE tables would cost a
// session start more time than everything else it does.
import type { Database } from 'better-sqlite3';
import type { HandoffPackage } from '../../../shared/session.ts';
import { rehydrate } from '../memory/index.ts';
import { getExecutiveSummary } from '../hierarchy/index.ts';
import { decodeHandoff, FINISHED_LINE, joinLines, LAST_REPORT_LABEL, oneLine, QUOTE_BEGIN, QUOTE_END, quoteLine, quoteText } from '../session/index.ts';
import { countTokens, estimateTokens } from '../tokens/index.ts';

/** The default budget (issue #33: ≤ 1,500 tokens); a project sets its own (settings: sessionStartTokens). */
export const DEFAULT_INJECT_TOKENS = 1_500;
export const MAX_INJECT_CHARS = 9_500;

export interface StoredHandoff {
  hash: string;
  created_at: string;
  package: HandoffPackage;
}

/** The stored handoffs that decode, newest first, at most `scan` snapshots read. */
export function* recentHandoffs(db: Database, scan: number): Generator<StoredHandoff> {
  const rows = db
    .prepare("SELECT hash, created_at, bytes FROM packet_snapshots WHERE template LIKE 'handoff-%' ORDER BY created_at DESC, rowid DESC LIMIT ?")
    .iterate(scan) as IterableIterator<{ hash: string; created_at: string; bytes: Buffer }>;
  for (const r of rows) {
    const pkg = decodeHandoff(r.bytes);
    if (pkg) yield { hash: r.hash, created_at: r.created_at, package: pkg };
  }
}

/** Newest first: the latest handoff whose package names this session, else the project's latest (scope says which). */
export function latestHandoff(db: Database, sessionId: string | null, scan = 200): { handoff: StoredHandoff; scope: 'session' | 'project' } | null {
  let first: StoredHandoff | null = null;
  for (const h of recentHandoffs(db, scan)) {
    if (sessionId && h.package.source.session_id === sessionId) return { handoff: h, scope: 'session' };
    first ??= h;
  }
  return first ? { handoff: first, scope: 'project' } : null;
}

/** Adds blocks in priority order while they fit both budgets; a block that does not fit is skipped, later ones may. */
class Fitter {
  readonly parts: string[] = [];
  private tokens = 0;
  private chars = 0;
  private readonly maxTokens: number;
  private readonly maxChars: number;
  private readonly count: (s: string) => number;
  constructor(maxTokens: number, maxChars: number, count: (s: string) => number = estimateTokens) {
    this.maxTokens = maxTokens;
    this.maxChars = maxChars;
    this.count = count;
  }
  add(block: string): boolean {
    const t = this.count(block + '\n');
    if (this.tokens + t > this.maxTokens || this.chars + block.length + 1 > this.maxChars) return false;
    this.parts.push(block);
    this.tokens += t;
    this.chars += block.length + 1;
    return true;
  }
  /** As many of `lines` as fit, taken from the end (the newest context), under `heading` and above `footer`. */
  addTail(heading: string, lines: string[], footer = ''): void {
    let lo = 0;
    let hi = lines.length;
    const tail = footer ? `\n${footer}` : '';
    const room = (n: number) => {
      const block = `${heading}\n${lines.slice(lines.length - n).join('\n')}${tail}`;
      return this.count(block + '\n') + this.tokens <= this.maxTokens && this.chars + block.length + 1 <= this.maxChars;
    };
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (room(mid)) lo = mid;
      else hi = mid - 1;
    }
    if (lo > 0) this.add(`${heading}\n${lines.slice(lines.length - lo).join('\n')}${tail}`);
  }
  text(): string {
    return this.parts.join('\n') + '\n';
  }
}

const bullets = (items: string[], max = 12) => items.slice(0, max).map((s) => `- ${joinLines(s)}`).join('\n');

/** The handoff as the context a continuing agent reads: task and next actions first, the newest compacted turns last. */
export function renderHandoffContext(h: StoredHandoff, scope: 'session' | 'project', maxTokens = DEFAULT_INJECT_TOKENS, maxChars = MAX_INJECT_CHARS): string {
  const p = h.package;
  const s = p.context_summary.current_task_state;
  // Counted in o200k tokens, as an agent's context counts them: 4 characters a token under-counts paths, hashes and
  // non-Latin text by up to 1.8× (measured on ../shared/transcripts), and the budget is a promise. The tables' load
  // (~200 ms) fits the hook's time.
  const f = new Fitter(maxTokens, maxChars, (t) => countTokens(t));
  const session = p.source.session_id ? ` of session ${p.source.session_id}` : '';
  f.add(
    `# ContextPack handoff${session}\n` +
      `${scope === 'session' ? 'Saved before this session\'s context was compacted' : 'The latest handoff stored for this project (none for this session)'}, ` +
      `at ${p.handoff_metadata.timestamp}. Hash ${h.hash.slice(0, 16)}; the whole package: \`contextpack replay ${h.hash.slice(0, 16)}\`.`,
  );
  const summary = p.context_summary.executive_summary.split('\n');
  const finished = summary.includes(FINISHED_LINE);
  const report = reportOf(summary);
  // The task as the user last stated it, whole sentences (the package keeps it so), quoted: the user's words.
  if (s.task) f.add(`## Task\n> ${oneLine(s.task, 700)}`);
  // What remains, each thing once and only what adds to the task above: stated next steps and remaining work, the
  // failing check, the question the agent left open.
  const remains = [...new Set([...p.next_actions.immediate, ...p.next_actions.short_term, ...s.in_progress])].filter((a) => !restatesTask(a, s.task));
  const failing = p.agent_specific_notes.known_pitfalls.map((x) => `Failing: ${oneLine(x, 240)}`);
  const question = report && /\?\s*$/.test(report.text) ? [`Open question to the user: ${oneLine(report.text.slice(report.text.lastIndexOf('. ', report.text.length - 2) + 1), 300)}`] : [];
  const next = [...remains, ...failing, ...question];
  // Progress only as the transcript states it; a finished session says so instead of a percentage. Finished: the
  // agent's last report says done with nothing open (handoff.ts), or every step of its own list is done.
  const allDone = s.completion_percentage === 100 && next.length === 0 && p.context_summary.blocking_dependencies.length === 0;
  const status = summary.find((l) => l.startsWith('Status: '))?.slice(8) ?? '';
  if (finished) f.add(`## Status\nThe work looks finished: the agent's last report says it is done, and no error, blocker or remaining step is open.`);
  else if (allDone) f.add(`## Status\nThe work looks finished: every step of the transcript's own task list is done (100 %), and no error or blocker is open.`);
  else if (status || s.completion_percentage !== null) f.add(`## Status\n${[status && oneLine(status, 300), s.completion_percentage !== null ? `${s.completion_percentage} % complete (as the transcript states)` : ''].filter(Boolean).join(' — ')}`);
  if (next.length) f.add(`## What remains\n${bullets(next, 12)}`);
  else if (!finished && !allDone && s.task) f.add(`## What remains\n- The transcript states no remaining step: continue the task above.`);
  if (p.context_summary.blocking_dependencies.length) f.add(`## Blockers\n${bullets(p.context_summary.blocking_dependencies)}`);
  // The agent's last report, its own words, quoted as such (the most useful part of a compacted session).
  if (report) f.add(`## The agent's last report (turn ${report.turn}, line ${report.line})\n${quoteText(report.text)}`);
  if (p.context_summary.open_issues.length) f.add(`## Open issues\n${bullets(p.context_summary.open_issues.map((i) => `[${i.severity}] ${oneLine(i.title, 160)} (${i.source})`), 8)}`);
  if (p.context_summary.critical_decisions.length) f.add(`## Decisions\n${bullets(p.context_summary.critical_decisions.map((d) => `${oneLine(d.title, 120)}: ${oneLine(d.decision, 200)}${d.rationale ? ` — ${oneLine(d.rationale, 200)}` : ''}`), 8)}`);
  if (p.next_actions.success_criteria.length) f.add(`## Acceptance criteria\n${bullets(p.next_actions.success_criteria, 8)}`);
  if (s.completed.length) f.add(`## Done\n${bullets(s.completed, 10)}`);
  if (p.agent_specific_notes.useful_resources.length) f.add(`## Files\n${bullets(p.agent_specific_notes.useful_resources, 15)}`);
  // The transcript's words only, quoted (session/quote.ts): a package stored before quoting, or the compacted context's
  // own headings, never reach the agent as structure of this text.
  const all = p.compacted_context.split('\n');
  const quoted = all.includes(QUOTE_BEGIN);
  const from = quoted ? all.indexOf(QUOTE_BEGIN) : all.findIndex((l) => l.startsWith('# CONVERSATION'));
  const to = quoted && all.lastIndexOf(QUOTE_END) > from ? all.lastIndexOf(QUOTE_END) : all.length;
  const context = all
    .slice(from + 1, to)
    .filter((l) => l.trim() !== '')
    // Quoted by the compaction: as they are; a package stored before quoting: each line quoted here.
    .map((l) => (quoted ? oneLine(l, 400) : quoteLine(oneLine(l, 400))));
  if (context.length) f.addTail(`## Recent context (compacted, newest last)\n${QUOTE_BEGIN}`, context, QUOTE_END);
  return f.text();
}

/** The agent's last report as the package's summary records it (session/handoff.ts), or null. */
function reportOf(summary: string[]): { text: string; turn: number; line: number } | null {
  for (const l of summary) {
    const m = /^Agent's last report \(turn (\d+), line (\d+)\): (.*)$/.exec(l);
    if (m && l.startsWith(LAST_REPORT_LABEL)) return { turn: Number(m[1]), line: Number(m[2]), text: m[3]! };
  }
  return null;
}

/** A next action that only says "continue / answer the latest request: <the task>" adds nothing to the task shown. */
function restatesTask(action: string, task: string): boolean {
  const norm = (x: string) => x.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const a = norm(action);
  const t = norm(task);
  return t !== '' && (a === t || (a.includes(t) && a.length - t.length < 60) || (t.includes(a) && a.length > 20));
}

export const mcpPointer = (project: string) =>
  `ContextPack tools for this project over MCP (\`contextpack mcp --project ${project}\`): search, pack, rehydrate, remember, handoff; the others (ingest, end_session, resolve_issue, …) with \`--tools all\`.`;

/** A fresh session: the rehydration bundle (state, active decisions, open issues, learnings) and where the tools are. */
export function startupContext(db: Database, project: string, opts: { maxTokens?: number; maxChars?: number; touch?: boolean; now?: () => Date } = {}): string {
  const maxTokens = opts.maxTokens ?? DEFAULT_INJECT_TOKENS;
  const maxChars = opts.maxChars ?? MAX_INJECT_CHARS;
  const pointer = mcpPointer(project);
  const room = maxTokens - estimateTokens(pointer + '\n') - 8;
  let bundle = rehydrate(db, { summary: getExecutiveSummary(db), maxTokens: room, touch: opts.touch ?? false, now: opts.now }).text.trim();
  if (bundle.length + pointer.length + 2 > maxChars) bundle = bundle.slice(0, bundle.lastIndexOf('\n', maxChars - pointer.length - 40)) + '\n[… cut to fit the hook output]';
  return `${bundle}\n\n${pointer}\n`;
}
