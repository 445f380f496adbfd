import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { InjectionRecord, PacketRequest } from '../../../shared/packet.ts';
import { alphabets, createRng } from '../redact/fake-secrets.testkit.ts';
import { createJsonlRedactionLog, getDefaultRedactor } from '../redact/index.ts';
import type { Store } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { assemble, buildPacket } from './assemble.ts';
import { PROJECT_FILES, packetStore } from './fixtures.testkit.ts';
import { manifestOf, renderPacket } from './render.ts';
import { resolveRequest } from './request.ts';
import { getSnapshot } from './snapshots.ts';
import type { MemoryEntry, MemoryProvider } from './sources.ts';

const tmp = tempDirs('cp-pack-reqgate-');
const stores: Store[] = [];
afterAll(() => {
  for (const s of stores) s.close();
  tmp.cleanup();
});

// Fake secrets, generated at run time (nothing secret-shaped is committed): one per place a request or the store
// can carry free text into a packet, so a leak names its way in.
const a = alphabets(createRng(20260301));
const aws = () => 'AKIA' + a.upnum(16);
const ghp = () => 'ghp_' + createRng(Number.parseInt(a.digits(6), 10)).chars('abcdefghijklmnopqrstuvwxyz0123456789', 36);
const S = {
  toolName: aws(),
  toolPurpose: ghp(),
  toolPairValue: a.b62(24),
  toolExtra: aws(),
  query: ghp(),
  task: aws(),
  criterion: ghp(),
  turn: aws(),
  turnExtra: ghp(),
  pathGlob: aws(),
  sessionId: ghp(),
  requestExtra: aws(),
  providerError: ghp(),
  fileName: aws(),
  heading: ghp(),
};
const secrets = Object.entries(S);

function leaks(where: string, text: string): string[] {
  // JSON escapes nothing in these alphabets, but compare the decoded form of JSON documents too.
  let decoded = text;
  try {
    decoded = JSON.stringify(JSON.parse(text));
  } catch {
    /* not JSON */
  }
  return secrets.filter(([, s]) => text.includes(s) || decoded.includes(s)).map(([field]) => `${where}: ${field}`);
}

/** The store's own memory, plus a decisions search that fails quoting what it was given (as FTS5 errors do). */
function quotingMemory(base: MemoryProvider | null | undefined): MemoryProvider {
  return {
    latestStates: (n) => base?.latestStates(n) ?? [],
    decisionTimeline: (n) => base?.decisionTimeline(n) ?? [],
    decisions: () => {
      throw new Error(`fts5: syntax error near "${S.providerError}"`);
    },
    learnings: (q, n) => base?.learnings(q, n) ?? [],
    openIssues: (q, n) => base?.openIssues(q, n) ?? [],
  };
}

describe('every free-text member of a request passes the gate before it enters the packet', () => {
  it('keeps generated secrets in tools, query, task, criteria, conversation, filters, session id and unknown members out of every format, the stored rows, the manifest and the logs', async () => {
    const dir = tmp.make();
    const files = {
      ...PROJECT_FILES,
      // As relevant to the query and the task (both feed retrieval, #32) as the best hit, so the relevance floor keeps it.
      [`docs/${S.fileName}.md`]: '# Token signing\n\ntoken signing notes: token signing for the deploy key. Rotate the deploy key with no downtime; revoke the old one.\n',
      'docs/deploy.md': `# Deploy\n\n## ${S.heading}\n\ntoken signing steps for the deploy.\n`,
    };
    const f = await packetStore(dir, { files, seed: { decisions: 2, learnings: 2, goals: true } });
    stores.push(f.store);
    // Ingest gates the heading before slugging it (issue #10): the stored anchor is the marker's slug.
    const anchors = (f.store.db.prepare('SELECT anchor FROM chunks').all() as { anchor: string }[]).map((r) => r.anchor);
    expect(anchors).not.toContain(S.heading);
    expect(anchors.some((x) => x.startsWith('redacted-'))).toBe(true);
    // The test can fail: put the raw anchor back (an index built before the gate did this), so the packet's own
    // label gate is what keeps it out; the file name is in the index as is.
    f.store.db.prepare("UPDATE chunks SET anchor = ? WHERE anchor LIKE 'redacted-%'").run(S.heading);
    expect((f.store.db.prepare('SELECT anchor FROM chunks').all() as { anchor: string }[]).map((r) => r.anchor)).toContain(S.heading);
    // A pair neither half of which is a secret to the gate, but which is one on the Tools line.
    const redactor = getDefaultRedactor();
    const judged = (t: string) => redactor.redactText(t, { source: 't', section: 't' }).redactions.length;
    expect([judged('db_password'), judged(S.toolPairValue), judged(`db_password: ${S.toolPairValue}`)]).toEqual([0, 0, 1]);

    const injections: InjectionRecord[] = [];
    const logFile = join(dir, 'redaction.jsonl');
    for (const template of ['ao-v1', 'layered-v1'] as const) {
      const request = {
        query: `token signing ${S.query}`,
        task: `Rotate the deploy key.\nUse ${S.task} for the test account.\n- [ ] revoke ${S.criterion}\n- [ ] no downtime`,
        template,
        maxTokens: 100_000,
        k: 50,
        filters: { pathGlob: `*${S.pathGlob}*` },
        tools: [
          { name: S.toolName, purpose: 'read a file', capability_class: 'observe' as const },
          { name: 'file_write', purpose: `write with ${S.toolPurpose}`, risk_level: 'write_reversible' as const, parameters: { token: S.toolExtra } },
          { name: 'db_password', purpose: S.toolPairValue },
        ],
        conversation: [
          { role: 'user' as const, text: `my key is ${S.turn}`, note: S.turnExtra },
          { role: 'assistant' as const, text: 'noted' },
        ],
        sessionId: `ses ${S.sessionId}`,
        extra: S.requestExtra,
      } as PacketRequest;
      // Filters narrow the search; an unfiltered run shows evidence from the secret-named file and heading.
      for (const req of [request, { ...request, filters: undefined }]) {
        const res = await assemble(req, {
          db: f.store.db,
          sources: { ...f.sources, memory: quotingMemory(f.sources.memory) },
          redactionLog: createJsonlRedactionLog(logFile),
          injectionLog: (r) => injections.push(r),
        }, 'json');
        const found = [
          ...leaks(`${template}/md`, renderPacket(res.packet, res.hash, 'md')),
          ...leaks(`${template}/json`, renderPacket(res.packet, res.hash, 'json')),
          ...leaks(`${template}/contextos`, renderPacket(res.packet, res.hash, 'contextos')),
          ...leaks(`${template}/manifest`, JSON.stringify(manifestOf(res.packet, res.hash))),
          ...leaks(`${template}/snapshot bytes`, Buffer.from(getSnapshot(f.store.db, res.hash).bytes).toString('utf8')),
        ];
        expect(found).toEqual([]);
        // The gate did see them: markers where the secrets were.
        const m = manifestOf(res.packet, res.hash);
        expect(m.tool_capabilities.map((t) => [t.name, t.purpose])).toEqual([
          ['[REDACTED: aws_key]', 'read a file'],
          ['file_write', '[REDACTED: github_token]'],
          [expect.stringMatching(/^\[REDACTED: /), expect.stringMatching(/^\[REDACTED: /)],
        ]);
        expect(m.tool_capabilities[1]).not.toHaveProperty('parameters');
        expect(res.packet.inputs.task_sha256).not.toBeNull();
        expect(res.packet.degradations).toContain('memory.decisions: provider failed ([REDACTED: github_token])');
        if (req.filters) expect(res.packet.retrieval.filters).toEqual({ pathGlob: '[REDACTED: aws_key]' });
        else {
          // Evidence ids are path#anchor:lines, and the path and the anchor come from the indexed content.
          const ids = res.packet.included.filter((i) => i.kind === 'evidence').map((i) => i.id);
          expect(ids).toContainEqual(expect.stringMatching(/^\[REDACTED: aws_key\]:\d+-\d+$/));
          // A secret anchor alone is replaced by its marker; the (safe) path stays as provenance.
          expect(ids).toContainEqual(expect.stringMatching(/docs\/deploy\.md#\[REDACTED: github_token\]:\d+-\d+$/));
        }
        if (template === 'layered-v1') {
          const tools = res.packet.sections.find((s) => s.name === 'TOOLS')!;
          expect(tools.text).toMatch(/^- \[REDACTED: aws_key\]: read a file \(observe\)$/m);
          expect(res.packet.included.filter((i) => i.kind === 'tool').map((i) => i.redacted_lines)).toEqual([1, 1, 1]);
        }
      }
    }
    const rows = JSON.stringify(
      [
        ...f.store.db.prepare('SELECT * FROM packet_snapshots').all().map((r) => ({ ...(r as object), bytes: Buffer.from((r as { bytes: Buffer }).bytes).toString('utf8') })),
        ...f.store.db.prepare('SELECT * FROM packet_injections').all(),
      ],
    );
    expect([...leaks('stored rows', rows), ...leaks('injection log', JSON.stringify(injections)), ...leaks('redaction log', readFileSync(logFile, 'utf8'))]).toEqual([]);
    expect(injections[0].session_id).toBe('[REDACTED: github_token]');
    expect(rows).toContain('\\"query\\":\\"[REDACTED: github_token]\\"');
  });

  it('records a digest of the gated task: two tasks that differ only in a redacted line share it', async () => {
    const f = await packetStore(tmp.make());
    stores.push(f.store);
    const p1 = await buildPacket({ query: 'token', task: `Rotate keys.\nkey ${aws()}` }, { sources: f.sources });
    const p2 = await buildPacket({ query: 'token', task: `Rotate keys.\nkey ${aws()}` }, { sources: f.sources });
    expect(p1.inputs.task).toBe('Rotate keys.\n[REDACTED: aws_key]');
    expect(p2.inputs.task_sha256).toBe(p1.inputs.task_sha256);
  });

  it('rejects request members that would reach the packet unchecked', () => {
    expect(() => resolveRequest({ query: 'q', signals: { [aws()]: 1 } as never })).toThrow(/^signals: unknown signal/);
    expect(() => resolveRequest({ query: 'q', tools: [{ name: 'x', purpose: 'y', risk_level: aws() as never }] })).toThrow(/^tools\[0\]\.risk_level: must be one of/);
    expect(() => resolveRequest({ query: 'q', tools: [{ name: 'x\ny', purpose: 'y' }] })).toThrow(/^tools\[0\]\.name: must be a single line/);
    expect(() => resolveRequest({ query: 'q', filters: { modifiedAfter: `2026-01-01 ${aws()}` } })).toThrow(/^filters\.modifiedAfter/);
    expect(() => resolveRequest({ query: 'q', filters: { types: ['markdown', 'exe' as never] } })).toThrow(/^filters\.types\[1\]/);
    const r = resolveRequest({ query: 'q', tools: [{ name: 'x', purpose: 'y', extra: 1 } as never], conversation: [{ role: 'user', text: 't', extra: 1 } as never], filters: { pathGlob: '*.md', extra: 1 } as never });
    expect([r.tools, r.conversation, r.filters]).toEqual([[{ name: 'x', purpose: 'y' }], [{ role: 'user', text: 't' }], { pathGlob: '*.md' }]);
  });
});

describe('determinism', () => {
  it('breaks memory score ties by code unit, not by locale collation', async () => {
    const f = await packetStore(tmp.make());
    stores.push(f.store);
    const e = (id: string): MemoryEntry => ({ id, kind: 'decision', source: id, ts: '2026-01-01T00:00:00Z', title: `decision ${id}`, text: 'body', score: 0.5 });
    const memory: MemoryProvider = { latestStates: () => [], decisionTimeline: () => [], decisions: () => [e('mem-a'), e('mem-B'), e('mem-_')], learnings: () => [], openIssues: () => [] };
    const p = await buildPacket({ query: 'token', template: 'layered-v1', maxTokens: 20_000 }, { sources: { ...f.sources, memory, goals: null } });
    // Code units: 'B' (0x42) < '_' (0x5f) < 'a' (0x61); ICU collation would put '_' first and 'a' before 'B'.
    expect(p.included.filter((i) => i.section === 'MEMORY').map((i) => i.id)).toEqual(['mem-B', 'mem-_', 'mem-a']);
  });

  it('keeps locale collation, randomness and the wall clock out of the packet module', () => {
    const dir = import.meta.dirname;
    const names = ['assemble', 'ao-v1', 'canonical', 'gather', 'items', 'layered-v1', 'render', 'replay', 'request', 'snapshots', 'sources', 'store-sources', 'templates'];
    const found: string[] = [];
    for (const n of names) {
      const src = readFileSync(join(dir, `${n}.ts`), 'utf8');
      for (const bad of [/localeCompare/, /Math\.random/, /Date\.now\(/, /performance\.now/, /toLocale\w*\(/, /\bIntl\./]) if (bad.test(src)) found.push(`${n}.ts: ${bad.source}`);
    }
    expect(found).toEqual([]);
  });
});
