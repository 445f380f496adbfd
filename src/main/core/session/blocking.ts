// Which unresolved errors blocked the work (issue #33 item 5). SessionEnd saves an open issue, and a handoff names a
// pitfall, only for an error that stopped the agent and stayed so. Not for:
// - a probe: a read or listing of a path that does not exist (the agent was looking whether it does);
// - a check meant to fail: the agent said so just before it ran ("this should fail", "confirm it fails first");
// - an error followed by green: a later test or build run of the same kind passed;
// - an error the work went past: the agent's last report says the work is done, and no error came after it.
import type { Transcript, TranscriptTurn } from '../transcripts/index.ts';
import type { ExtractedError } from './errors.ts';
import { READ_TOOLS } from './extract-patterns.ts';

const PROBE_TOOL = /^(read|read_file|view|cat|open_file|ls|list|list_files|list_dir|glob|grep|search|search_files|find|find_files|file_search|codebase_search)$/i;
// Listings and reads look; `rm` of what is not there has nothing to do: either way a missing path blocks nothing.
const PROBE_COMMAND = /^(?:ls|tree|du|wc|test|\[|stat|cat|head|tail|find|which|command -v|type|grep|rg|file|readlink|realpath|rm|rmdir|git (?:show|ls-files|cat-file|rev-parse))\b/;
const MISSING = /\b(does not exist|doesn't exist|no such file|not found|ENOENT|cannot access|cannot find|could not find|no matches|0 matches|nothing matched)\b/i;
const MEANT_TO_FAIL = /\b(?:should|must|will|ought to|expect(?:ed|ing)?(?: it)? to) fail\b|\b(?:confirm|verify|check|make sure|see)(?: that)? (?:it|the (?:new )?tests?|this|they) fails?\b|\b(?:red|failing) (?:test|run) first\b|\bexpected(?: to be)? (?:a )?fail(?:ure|ing)?\b|\bfails? as expected\b/i;
/** A green run resolves the failures of its own kind only: passing tests say nothing of a type check. */
const KINDS: [string, RegExp][] = [
  ['test', /\b(test|tests|pytest|jest|vitest|mocha|rspec|go test|cargo test|ctest|e2e|playwright)\b/i],
  ['build', /\b(tsc|build|compile|cargo (?:build|check)|make|gradle|mvn|typecheck)\b/i],
  ['lint', /\b(lint|eslint|ruff|flake8|clippy|prettier --check)\b/i],
];
const kindOf = (command: string): string | null => KINDS.find(([, re]) => re.test(command))?.[0] ?? null;
/**
 * The suite a command runs: the script of `npm run X` / `yarn X` / `pnpm X`, else the runner (`pytest`, `vitest`,
 * `cargo test`, `go test`). A later green run of the same suite, however narrowed or widened, resolves a red one.
 */
function suiteOf(command: string): string {
  const words = command.replace(/^(?:command|cmd):\s*/, '').trim().split(/\s+/).filter((w) => !w.startsWith('-'));
  const i = words[0] === 'npx' || words[0] === 'bunx' ? 1 : 0;
  if (/^(npm|pnpm|yarn|bun)$/.test(words[i] ?? '')) return words[i + 1] === 'run' ? (words[i + 2] ?? '') : (words[i + 1] ?? '');
  if (/^(cargo|go|python|python3|uv|poetry)$/.test(words[i] ?? '')) return words.slice(i, i + 2).join(' ');
  return words[i] ?? '';
}
const GREEN = /\b(all (?:\d+ )?(?:tests?|checks?) pass(?:ed)?|\d+ pass(?:ed|ing)|0 failed|build (?:succeeded|completed)|compiled successfully|no (?:errors|problems|issues) found|✓)/i;
const RED_COUNT = /\b[1-9]\d* (?:failed|failing|errors?)\b/i;
const DONE_REPORT = /\b(done|fixed|finished|complete[d]?|resolved|all (?:\d+ )?(?:tests?|checks?) pass(?:es|ed)?|works now|is working|passes now|green)\b/i;
const NOT_DONE = /\b(still (?:fail|broken|red|error)|not (?:yet )?(?:fixed|working|done)|couldn't|could not|unable to|blocked|remaining|left to do|todo|next:|fails? still)\b/i;

/** Whether an agent's report says the work is done (and nothing it says is still open). */
export const reportsDone = (text: string): boolean => DONE_REPORT.test(text) && !NOT_DONE.test(text);

/** The agent's last report: its last own prose turn (not a harness message, not a sub-agent's). */
export function lastReportOf(t: Transcript): TranscriptTurn | null {
  for (let i = t.turns.length - 1; i >= 0; i--) {
    const x = t.turns[i]!;
    if (x.kind === 'text' && x.role === 'assistant' && x.origin === undefined && x.text.trim() !== '') return x;
  }
  return null;
}

/** The agent's words just before a tool call (same turn's text, or the text turn right before it). */
function wordsBefore(t: Transcript, at: number): string {
  for (let i = at - 1; i >= 0 && i >= at - 4; i--) {
    const x = t.turns[i]!;
    if (x.kind === 'text' && x.role === 'assistant') return x.text.slice(-600);
    if (x.kind === 'tool_result') break;
  }
  return '';
}

/** The command a tool result answers (its call's text), or '' when the transcript does not say. */
function commandOf(t: Transcript, r: TranscriptTurn): string {
  for (let i = r.index - 1; i >= 0 && i >= r.index - 6; i--) {
    const x = t.turns[i]!;
    if (x.kind === 'tool_use' && (!r.tool_use_id || x.tool_use_id === r.tool_use_id)) return x.text;
  }
  return /^\s*\$ (.+)$/m.exec(r.text)?.[1] ?? '';
}

/** Why an unresolved error did not block the work, or null when it did. Marks `expected` on each error. */
export function classifyErrors(t: Transcript, errors: ExtractedError[]): void {
  const callAt = (e: ExtractedError): number => {
    const r = t.turns[e.at.turn];
    if (!r) return e.at.turn;
    for (let i = e.at.turn - 1; i >= 0 && i >= e.at.turn - 6; i--) {
      const x = t.turns[i]!;
      if (x.kind === 'tool_use' && (!r.tool_use_id || x.tool_use_id === r.tool_use_id)) return i;
    }
    return e.at.turn;
  };
  const results = t.turns.filter((x) => x.kind === 'tool_result');
  const lastError = results.filter((x) => x.is_error).at(-1)?.index ?? -1;
  const lastReport = lastReportOf(t);
  const finished = !!lastReport && lastReport.index > lastError && reportsDone(lastReport.text);
  for (const e of errors) {
    e.expected = null;
    if (e.resolved) continue;
    const cmd = e.command ?? '';
    if ((PROBE_TOOL.test(e.tool ?? '') || READ_TOOLS.test(e.tool ?? '') || PROBE_COMMAND.test(cmd)) && MISSING.test(e.message)) {
      e.expected = 'a probe: the path or pattern looked for was not there';
      continue;
    }
    if (MEANT_TO_FAIL.test(wordsBefore(t, callAt(e)))) {
      e.expected = 'a check the agent ran expecting it to fail';
      continue;
    }
    const kind = kindOf(cmd);
    if (kind) {
      const suite = suiteOf(cmd);
      const green = results.find((r: TranscriptTurn) => r.index > e.at.turn && !r.is_error && kindOf(commandOf(t, r)) === kind && suiteOf(commandOf(t, r)) === suite && GREEN.test(r.text) && !RED_COUNT.test(r.text.replace(/\b0 (?:failed|failing|errors?)\b/gi, '')));
      if (green) {
        e.expected = `followed by a green run (turn ${green.index}, line ${green.line})`;
        continue;
      }
    }
    if (finished) e.expected = `the work went on past it: the agent's last report (turn ${lastReport!.index}, line ${lastReport!.line}) says it is done`;
  }
}
