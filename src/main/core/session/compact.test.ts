import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTranscript, type Transcript } from '../transcripts/index.ts';
import { compactTranscript, summarizeOutput } from './compact.ts';
import { extract } from './extract.ts';
import { QUOTE_BEGIN, QUOTE_END } from './quote.ts';
import { countTokens } from '../tokens/index.ts';

const fixture = (name: string) => parseTranscript(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'), name);
const md = (text: string): Transcript => parseTranscript(text, 'chat.md');
/** A verbose test run, so compaction has something to save (below that size it hands the transcript on as written). */
const VERBOSE = `## Tool: Bash\n${Array.from({ length: 80 }, (_, i) => ` ✓ suite ${i} › case ${i} passes with the expected output (${i} ms)`).join('\n')}\n 80 passed\n\n`;

describe('compaction: MUST PRESERVE rules', () => {
  it('keeps a decision with its rationale and alternatives, even under a tight target', () => {
    const t = fixture('decision.claude.jsonl');
    const r = compactTranscript(t, { targetTokens: 200 });
    expect(r.text).toContain('DECISION: Use BullMQ on the existing Redis for background jobs');
    expect(r.text).toContain('Rationale: Redis is already deployed for the cache');
    expect(r.text).toContain('pg-boss (adds polling load to the primary Postgres)');
    expect(r.text).toContain('AWS SQS');
    expect(r.preserved.find((p) => p.kind === 'decision')!.present).toBe(true);
    expect(r.summary.preservation_validation).toBe(true);
  });
  it('keeps an error message and its root cause, not the stack trace', () => {
    const r = compactTranscript(fixture('failure.chat.md'), { targetTokens: 300 });
    expect(r.text).toContain('Error: expect(received).toHaveURL(expected)');
    expect(r.text).toContain('Root cause: commit 9c1e2f4 set the session cookie to SameSite=Strict');
    expect(r.text).not.toContain('processTicksAndRejections');
    expect(r.text).not.toContain('at /app/e2e/login.spec.ts:27:22');
    expect(r.extraction.errors[0]!.occurrences).toBe(2);
  });
  it('keeps the current task state (latest block) and drops the superseded one', () => {
    const t = md(VERBOSE + '## User\nBuild it\n\n## Assistant\nTASK: Build the importer\nProgress: 20% complete\nNext actions:\n1. Parse CSV\n\n## Assistant\nTASK: Build the importer\nProgress: 65% complete\n✓ Parse CSV\n⧖ Validate rows\n☐ Write to DB\nNext actions:\n1. Finish row validation\n2. Batch inserts\nBlockers: schema review pending\n');
    const r = compactTranscript(t, { targetTokens: 120 });
    expect(r.extraction.state).toMatchObject({ task: 'Build the importer', completion_percentage: 65, completed: ['Parse CSV'], in_progress: ['Validate rows'], not_started: ['Write to DB'], next_actions: ['Finish row validation', 'Batch inserts'], blockers: ['schema review pending'], superseded: 1 });
    expect(r.text).toContain('Progress: 65% complete');
    expect(r.text).toContain('Next actions: 1. Finish row validation 2. Batch inserts');
    expect(r.text).not.toContain('20% complete');
    expect(r.summary.preservation_validation).toBe(true);
  });
  it('keeps open issues and drops ones resolved later', () => {
    const t = md(VERBOSE + '## User\nFix uploads\n\n## Assistant\nBUG-12 [CRITICAL]: uploads corrupt large files\nRepro: upload 2 GB\n\nBUG-13 [LOW]: typo in footer\n\n## Assistant\nBUG-13 fixed in 4e1a.\nTODO: add a 2 GB upload test\n');
    const r = compactTranscript(t);
    expect(r.text).toContain('BUG-12 [CRITICAL]');
    expect(r.text).toContain('TODO: add a 2 GB upload test');
    expect(r.preserved.filter((p) => p.kind === 'open_issue').map((p) => p.id)).toEqual(['issue:BUG-12', 'todo:3']);
    expect(r.text).not.toMatch(/BUG-13 \[LOW\]/);
  });
  it('reads the markers in Markdown emphasis too', () => {
    const t = md('## User\nShip it\n\n## Tool: Bash (error)\nError: port 5432 refused\n\n## Assistant\n**Root cause:** the database container was not started.\n\n**Decision:** start Postgres from docker-compose in the test setup\n**Rationale:** tests must not depend on a local install\n\n**Next steps:**\n1. Add the service\n2. Re-run the suite\n');
    const x = compactTranscript(t).extraction;
    expect(x.errors[0]!.root_cause).toBe('the database container was not started.');
    expect(x.decisions[0]).toMatchObject({ decision: 'start Postgres from docker-compose in the test setup', rationale: 'tests must not depend on a local install' });
    expect(x.state.next_actions).toEqual(['Add the service', 'Re-run the suite']);
  });
  it('keeps acceptance criteria', () => {
    const r = compactTranscript(fixture('midtask.codex.jsonl'), { targetTokens: 100 });
    for (const a of ['All four endpoints covered by integration tests', 'DELETE cascades to sessions and avatars', 'Rate limit of 30 requests/minute per user']) expect(r.text).toContain(a);
  });
});

describe('compaction: COMPRESS / DISCARD rules', () => {
  it('compresses verbose tool output to its summary statistics', () => {
    const r = compactTranscript(fixture('decision.claude.jsonl'));
    expect(r.text).toMatch(/Bash result: .*Tests {2}300 passed \(300\) \(12 lines of output compressed\) \(turn 23, line 24\)/);
    expect(r.text).not.toContain('test/billing.test.ts (64 tests)');
    expect(summarizeOutput('a\nb\n Tests  12 passed (12)\n')).toBe('Tests  12 passed (12) (3 lines of output compressed)');
  });
  it('drops duplicate outputs and repeated reads, keeping the most recent', () => {
    const r = compactTranscript(fixture('decision.claude.jsonl'));
    const reasons = r.elements.filter((e) => e.action === 'dropped').map((e) => e.reason);
    // The second `npm test` output and the re-read worker.ts are identical to later ones; the first read call repeats a later one.
    expect(reasons.filter((x) => x.startsWith('duplicate tool output'))).toHaveLength(2);
    expect(reasons.filter((x) => x.startsWith('repeated read'))).toHaveLength(1);
    expect(r.text.match(/→ Read: file_path: src\/outbox\/worker\.ts/g)).toHaveLength(1);
  });
  it('under a target, discard rules apply only as far as needed, but verbose output, traces and duplicates always go', () => {
    const t = fixture('decision.claude.jsonl');
    const roomy = compactTranscript(t, { targetTokens: 100_000 });
    // Seed 002: summary statistics kept, raw logs discarded, whatever room the target leaves (issue #33 item 7).
    expect(roomy.text).not.toContain('test/billing.test.ts (64 tests)');
    expect(roomy.text).toContain('Tests  300 passed (300)');
    const compressed = roomy.elements.filter((e) => e.action === 'compressed').map((e) => e.reason);
    expect(compressed.filter((r) => r === 'lines already in the preserved block shown once')).toHaveLength(2);
    expect(compressed.filter((r) => r === 'verbose tool output: summary statistics kept').length).toBeGreaterThan(0);
    expect(compressed.every((r) => /^(lines already in the preserved block|verbose tool output|error output)/.test(r))).toBe(true);
    expect(roomy.elements.filter((e) => e.reason.startsWith('duplicate tool output'))).toHaveLength(2);
    // Tighter: the cheapest remaining discard rule (superseded plan 15) goes first, scored turns only after.
    const tight = compactTranscript(t, { targetTokens: roomy.summary.tokens_after - 40 });
    const reasons = tight.elements.map((e) => e.reason);
    expect(reasons).toContain('superseded plan removed');
    // Scored turns (31–99) only go after every discard rule was spent.
    expect(tight.elements.filter((e) => e.reason.startsWith('over the target')).every((e) => e.score >= 31)).toBe(true);
    expect(tight.summary.tokens_after).toBeLessThan(roomy.summary.tokens_after);
  });
  it('removes superseded plans and keeps the latest', () => {
    const r = compactTranscript(fixture('decision.claude.jsonl'));
    expect(r.text).not.toContain('Add a cron job that polls the outbox');
    expect(r.text).toContain('Add BullMQ with a dedicated `outbox` queue');
    expect(r.extraction.plan!.text).toContain('Updated plan');
  });
  it('reports the seed\'s summary fields and is deterministic', () => {
    const t = fixture('decision.claude.jsonl');
    const a = compactTranscript(t, { targetTokens: 900 });
    const b = compactTranscript(t, { targetTokens: 900 });
    expect(a.text).toBe(b.text);
    expect(Object.keys(a.summary).sort()).toEqual(['elements_removed', 'preservation_validation', 'tokens_after', 'tokens_before', 'tokens_saved']);
    expect(a.summary.tokens_saved).toBe(a.summary.tokens_before - a.summary.tokens_after);
    expect(a.summary.tokens_after).toBeLessThanOrEqual(900);
    expect(a.summary.elements_removed).toBe(a.elements.filter((e) => e.action === 'dropped').length);
  });
  it('never makes a transcript larger than its quoted form: below the size where it saves anything, it is handed on as written', () => {
    const small = md('## User\nRename the flag to --dry-run\n\n## Assistant\nDone: renamed it in cli.ts and the README.\nNext: release 1.2.\n');
    // As written, quoted (quote.ts): the markers and a ">" a line are all it adds.
    const quoteCost = countTokens(`# CONVERSATION (as written: 2 turns)\n\n${QUOTE_BEGIN}\n${QUOTE_END}\n`) + small.turns.reduce((a, t) => a + t.text.split('\n').length, 0);
    for (const r of [compactTranscript(small), compactTranscript(small, { targetTokens: 10_000 })]) {
      expect(r.summary.tokens_after).toBeLessThanOrEqual(r.summary.tokens_before + quoteCost);
      expect(r.text).toContain(QUOTE_BEGIN);
      expect(r.text).toContain('Rename the flag to --dry-run');
      expect(r.summary.elements_removed).toBe(0);
      expect(r.summary.preservation_validation).toBe(true);
    }
    const big = md(VERBOSE + '## User\nRename the flag\n\n## Assistant\nOn it.\n');
    const r = compactTranscript(big);
    expect(r.summary.tokens_after).toBeLessThan(r.summary.tokens_before);
  });
  it('fails preservation_validation when a preserved element is missing from the output', () => {
    const t = fixture('failure.chat.md');
    const r = compactTranscript(t, {});
    // Simulate the check against a text that lost the root cause: the same checks must then fail.
    const lost = r.text.replace(/SameSite=Strict, so the browser/g, 'X');
    expect(r.preserved.every((c) => c.expect.every((e) => lost.includes(e)))).toBe(false);
  });
});

describe('file modifications', () => {
  it('counts a patch applied through the shell tool, and keeps only the last five', () => {
    const j = (o: unknown) => JSON.stringify(o);
    const calls = Array.from({ length: 7 }, (_, i) => [
      j({ timestamp: `2026-01-01T00:0${i}:00Z`, type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: j({ command: ['apply_patch', `*** Begin Patch\n*** Update File: src/f${i}.ts\n*** End Patch`] }), call_id: `c${i}` } }),
      j({ timestamp: `2026-01-01T00:0${i}:01Z`, type: 'response_item', payload: { type: 'function_call_output', call_id: `c${i}`, output: j({ output: 'Done', metadata: { exit_code: 0 } }) } }),
    ]).flat();
    const t = parseTranscript([j({ timestamp: '2026-01-01T00:00:00Z', type: 'session_meta', payload: { id: 's' } }), j({ timestamp: '2026-01-01T00:00:00Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Refactor' }] } }), ...calls].join('\n'), 'codex.jsonl');
    const r = compactTranscript(t);
    expect(r.extraction.files.map((f) => f.path)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `src/f${i}.ts`));
    expect(r.preserved.filter((p) => p.kind === 'file_modification').map((p) => p.expect[0])).toEqual([2, 3, 4, 5, 6].map((i) => `src/f${i}.ts`));
  });
});

describe('the three realistic transcripts', () => {
  it.each([
    ['decision.claude.jsonl', { decisions: 1, errors: 0, open_issues: 1, acceptance: 3, files: 3 }],
    ['failure.chat.md', { decisions: 0, errors: 1, open_issues: 2, acceptance: 2, files: 1 }],
    ['midtask.codex.jsonl', { decisions: 1, errors: 1, open_issues: 0, acceptance: 3, files: 2 }],
  ] as const)('%s: every preserved element is found', (name, counts) => {
    const t = fixture(name);
    const x = extract(t);
    expect({ decisions: x.decisions.length, errors: x.errors.length, open_issues: x.issues.filter((i) => !i.resolved).length, acceptance: x.acceptance.length, files: x.files.length }).toEqual(counts);
    const r = compactTranscript(t, { targetTokens: 400 });
    expect(r.preserved.filter((p) => !p.present)).toEqual([]);
  });
});
