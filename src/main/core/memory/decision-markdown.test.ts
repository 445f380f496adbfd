import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTree } from '../testing/tmp.ts';
import { createDecision, DecisionFileError, getDecision, exportDecisions, getMemory, importDecisions, listAudit, listDecisions, parseDecisionMarkdown, renderDecisionMarkdown } from './index.ts';
import { fixedClock, memoryStores } from './testing/store.ts';

const stores = memoryStores('cp-decmd-');
afterAll(() => stores.cleanup());

// The seed's own example, verbatim (its layout has no blank lines).
const SEED_EXAMPLE = `## DECISION: Adopt PostgreSQL over MongoDB
**Decision ID**: DEC-2025-11-04-003
**Timestamp**: 2025-11-04T14:32:00Z
**Agent**: Database-Architect-002
**Project**: ecommerce-platform-v2
**Importance**: 9
### Decision
Selected PostgreSQL as the primary database for the e-commerce platform, replacing the initially proposed MongoDB solution.
### Rationale
- ACID compliance critical for order processing and payment transactions
- Team has 5 years PostgreSQL experience vs. 1 year MongoDB experience
### Alternatives Considered
1. **MongoDB**: Rejected due to lack of multi-document ACID transactions (required for order processing) and weaker consistency guarantees
2. **MySQL**: Rejected due to inferior JSON handling and less robust full-text search capabilities
3. **Hybrid (PostgreSQL + MongoDB)**: Rejected due to operational complexity and data synchronization challenges
### Expected Impact
- Development: Estimated 2 weeks faster due to team expertise
### Validation Criteria
- Timeframe: Validate after 3 months in production
### Context
- Project in initial architecture phase, no existing database commitment
### Tags
database, architecture, postgresql, acid-transactions, ecommerce
`;

function seedStore() {
  const store = stores.open();
  const clock = fixedClock('2025-11-04T10:00:00Z');
  const a = createDecision(
    store.db,
    {
      title: 'Adopt PostgreSQL',
      decision: 'Use PostgreSQL for orders.',
      rationale: '- ACID\n- JSONB where needed\n\n  indented note',
      alternatives_considered: [
        { name: 'MongoDB', reason: 'No multi-document ACID.' },
        { name: 'Hybrid (PG + Mongo)', reason: 'Two systems to run.\n\nAnd to keep in sync.' },
      ],
      expected_impact: 'Faster development.',
      context: 'Related: none yet.',
      tags: ['database', 'architecture'],
      importance: 9,
      agent_id: 'Database-Architect-002',
      project_id: 'shop',
    },
    clock,
  );
  const b = createDecision(store.db, { title: 'Redis for sessions', decision: 'Redis.', rationale: 'Speed.', importance: 6, supersedes: undefined }, clock);
  createDecision(store.db, { title: 'PG 17', decision: 'Pin 17.', rationale: 'LTS.', importance: 7, supersedes: a.decision_id! }, clock);
  return { ...store, clock, a, b };
}

describe('decision markdown', () => {
  it('parses the seed example exactly', () => {
    const p = parseDecisionMarkdown(SEED_EXAMPLE, 'seed.md');
    expect(p.input).toMatchObject({
      title: 'Adopt PostgreSQL over MongoDB',
      decision_id: 'DEC-2025-11-04-003',
      timestamp: '2025-11-04T14:32:00Z',
      agent_id: 'Database-Architect-002',
      project_id: 'ecommerce-platform-v2',
      importance: 9,
      tags: ['database', 'architecture', 'postgresql', 'acid-transactions', 'ecommerce'],
    });
    expect(p.input.alternatives_considered!.map((a) => a.name)).toEqual(['MongoDB', 'MySQL', 'Hybrid (PostgreSQL + MongoDB)']);
    expect(p.input.rationale).toBe('- ACID compliance critical for order processing and payment transactions\n- Team has 5 years PostgreSQL experience vs. 1 year MongoDB experience');
  });

  it('round-trips: export, import (no-op), export again is byte-identical and files are not rewritten', () => {
    const { db } = seedStore();
    const dir = join(stores.dir(), 'docs', 'decisions');
    const first = exportDecisions(db, dir);
    expect(first.written.map((f) => f.split('/').pop())).toEqual(['DEC-2025-11-04-001.md', 'DEC-2025-11-04-002.md', 'DEC-2025-11-04-003.md']);
    const bytes = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
    const mtimes = readdirSync(dir).map((f) => statSync(join(dir, f)).mtimeMs);
    const auditBefore = listAudit(db, { limit: 1000 }).length;
    const updatedBefore = listDecisions(db, { archived: 'any' }).map((d) => d.updated_at);

    const report = importDecisions(db, dir, { now: () => new Date('2026-01-01T00:00:00Z') });
    expect(report.results.map((r) => r.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect(listAudit(db, { limit: 1000 })).toHaveLength(auditBefore);
    expect(listDecisions(db, { archived: 'any' }).map((d) => d.updated_at)).toEqual(updatedBefore);

    const second = exportDecisions(db, dir);
    expect(second.written).toEqual([]);
    expect(second.unchanged).toHaveLength(3);
    for (const [f, b] of Object.entries(bytes)) expect(readFileSync(join(dir, f)).equals(b)).toBe(true);
    expect(readdirSync(dir).map((f) => statSync(join(dir, f)).mtimeMs)).toEqual(mtimes);
    // The rendered file reads back to the very same record fields.
    const a = getDecision(db, 'DEC-2025-11-04-001', { touch: false })!;
    const parsed = parseDecisionMarkdown(bytes['DEC-2025-11-04-001.md']!.toString(), 'a.md').input;
    expect(parsed.alternatives_considered).toEqual(a.content.alternatives_considered);
    expect(parsed.rationale).toBe(a.content.rationale);
    expect(renderDecisionMarkdown(a)).toBe(bytes['DEC-2025-11-04-001.md']!.toString());
    expect(bytes['DEC-2025-11-04-001.md']!.toString()).toContain('**Superseded By**: DEC-2025-11-04-003');
  });

  it('an edited file updates its record; CRLF and extra blank lines alone do not', () => {
    const { db } = seedStore();
    const dir = stores.dir();
    exportDecisions(db, dir);
    const file = join(dir, 'DEC-2025-11-04-002.md');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace(/\n/g, '\r\n').replace('### Rationale', '\r\n\r\n### Rationale'));
    expect(importDecisions(db, file).results[0]!.action).toBe('unchanged');

    writeFileSync(file, original.replace('Speed.', 'Speed, and TTLs.').replace('**Importance**: 6', '**Importance**: 8').replace('### Tags\n', '### Tags\n\ncache, sessions\n'));
    const r = importDecisions(db, file, { now: () => new Date('2025-12-01T00:00:00Z') });
    expect(r.results).toEqual([{ file, decision_id: 'DEC-2025-11-04-002', action: 'updated' }]);
    const d = getDecision(db, 'DEC-2025-11-04-002', { touch: false })!;
    expect([d.content.rationale, d.importance, d.tags, d.updated_at]).toEqual(['Speed, and TTLs.', 8, ['cache', 'sessions'], '2025-12-01T00:00:00.000Z']);
    expect(listAudit(db, { memoryId: d.memory_id })[0]).toMatchObject({ action: 'UPDATED', reason: 'changed content, tags, importance' });
    // Exporting now reproduces the edited file byte for byte (it was in canonical layout).
    exportDecisions(db, dir);
    expect(readFileSync(file, 'utf8')).toBe(original.replace('Speed.', 'Speed, and TTLs.').replace('**Importance**: 6', '**Importance**: 8').replace('### Tags\n', '### Tags\n\ncache, sessions\n'));
  });

  it('a file without an id gets one allocated and written into the file; a new id creates the record', () => {
    const { db } = stores.open();
    const dir = stores.dir();
    writeTree(dir, {
      'new.md': '## DECISION: Use pnpm\n\n**Importance**: 4\n\n### Decision\n\nSwitch to pnpm.\n\n### Rationale\n\nDisk space.\n',
      'given.md': SEED_EXAMPLE,
      'README.md': '# Decisions\n\nThis folder holds decision records.\n',
    });
    const r = importDecisions(db, dir, { now: () => new Date('2025-11-04T09:00:00Z') });
    expect(r.skipped.map((s) => s.file.split('/').pop())).toEqual(['README.md']);
    expect(r.results.map((x) => [x.file.split('/').pop(), x.decision_id, x.action, x.id_written])).toEqual([
      ['given.md', 'DEC-2025-11-04-003', 'created', undefined],
      ['new.md', 'DEC-2025-11-04-004', 'created', true],
    ]);
    expect(readFileSync(join(dir, 'new.md'), 'utf8')).toBe(
      '## DECISION: Use pnpm\n\n**Decision ID**: DEC-2025-11-04-004\n**Importance**: 4\n\n### Decision\n\nSwitch to pnpm.\n\n### Rationale\n\nDisk space.\n',
    );
    expect(importDecisions(db, dir).results.map((x) => x.action)).toEqual(['unchanged', 'unchanged']);
    expect(getMemory(db, 'DEC-2025-11-04-003', { touch: false })!.timestamp).toBe('2025-11-04T14:32:00.000Z');
  });

  it('reports malformed files with file and line, writing nothing', () => {
    const { db } = stores.open();
    const cases: [string, number, RegExp][] = [
      ['Just some notes\n', 1, /expected '## DECISION: <title>'/],
      ['## DECISION: T\n**Importance**: 5\n**Colour**: red\n### Decision\nx\n### Rationale\ny\n', 3, /unknown field '\*\*Colour\*\*'/],
      ['## DECISION: T\n**Importance**: high\n### Decision\nx\n### Rationale\ny\n', 2, /Importance must be an integer/],
      ['## DECISION: T\n**Importance**: 5\n### Decision\nx\n### Rationale\ny\n### Alternatives Considered\n- MySQL, too slow\n', 8, /expected '1\. \*\*Alternative\*\*/],
      ['## DECISION: T\n**Importance**: 5\n### Decision\nx\n### Outcome\ny\n', 5, /unknown section '### Outcome'/],
      ['## DECISION: T\n**Importance**: 5\n### Decision\nx\n', 5, /missing section '### Rationale'/],
      ['## DECISION: T\n**Importance**: 5\n### Decision\n\n### Rationale\ny\n', 3, /decision \(line 3\): is required/],
      ['## DECISION: T\n**Importance**: 11\n### Decision\nx\n### Rationale\ny\n', 2, /importance \(line 2\): must be an integer from 1 to 10/],
      ['## DECISION: T\n**Importance**: 5\n### Decision\nx\n### Rationale\ny\n## DECISION: U\n', 7, /one decision per file/],
    ];
    for (const [text, line, message] of cases) {
      const dir = stores.dir();
      writeTree(dir, { 'ok.md': '## DECISION: Fine\n**Importance**: 5\n### Decision\nx\n### Rationale\ny\n', 'bad.md': text });
      let err: unknown;
      try {
        importDecisions(db, [join(dir, 'ok.md'), join(dir, 'bad.md')]);
      } catch (e) {
        err = e;
      }
      expect(err, text).toBeInstanceOf(DecisionFileError);
      expect((err as DecisionFileError).line, text).toBe(line);
      expect((err as DecisionFileError).message).toMatch(message);
      expect((err as DecisionFileError).message.startsWith(join(dir, 'bad.md') + ':' + line + ':')).toBe(true);
    }
    expect(db.prepare('SELECT count(*) AS n FROM memories').get()).toEqual({ n: 0 });
  });

  it('applies a Supersedes line from an imported file', () => {
    const { db } = stores.open();
    const old = createDecision(db, { title: 'Old', decision: 'x', rationale: 'y', importance: 5, timestamp: '2025-11-01T00:00:00Z' });
    const dir = stores.dir();
    writeTree(dir, { 'n.md': `## DECISION: New\n**Importance**: 6\n**Supersedes**: ${old.decision_id}\n### Decision\nx\n### Rationale\ny\n` });
    const r = importDecisions(db, dir);
    const created = getMemory(db, r.results[0]!.decision_id, { touch: false })!;
    expect(created.supersedes).toBe(old.decision_id);
    expect(getMemory(db, old.decision_id!, { touch: false })).toMatchObject({ is_archived: true, superseded_by: created.decision_id });
  });
});
