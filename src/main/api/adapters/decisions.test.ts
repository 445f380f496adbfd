import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../core/store/index.ts';
import { tempDirs } from '../../core/testing/tmp.ts';
import { createDecisionsAdapter } from './decisions.ts';

const tmp = tempDirs('cp-decisions-adapter-');
let store: Store;

beforeAll(() => {
  store = openStore(join(tmp.make(), 'd.db'));
});
afterAll(() => {
  store.close();
  tmp.cleanup();
});

const decision = (i: number) => ({ title: `Decision ${i}`, decision: `Do thing ${i}`, rationale: `Because ${i}`, importance: 5 });

describe('decisions adapter export', () => {
  it('names the ids it could not find', () => {
    const adapter = createDecisionsAdapter(store.db);
    const d = adapter.create(decision(0));
    expect(() => adapter.exportMarkdown({ decisionIds: [d.decision_id!, 'DEC-2001-01-01-001', 'DEC-2001-01-01-002'] })).toThrow(
      'some decisions were not found: DEC-2001-01-01-001, DEC-2001-01-01-002',
    );
    expect(adapter.exportMarkdown({ decisionIds: [d.decision_id!] }).markdown).toContain('Decision 0');
  });

  it('exports every decision, however many there are (more than one search page of 10,000)', () => {
    const adapter = createDecisionsAdapter(store.db);
    const model = adapter.create(decision(1));
    const total = 10_050;
    // Cloned in SQL from one real decision: creating ten thousand through the engine would take seconds.
    store.db
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO memories (id, type, timestamp, project_id, agent_id, title, content, body, tags, importance, decision_id, updated_at)
         SELECT m.id || '-' || n.i, m.type, m.timestamp, m.project_id, m.agent_id, m.title, m.content, m.body, m.tags, m.importance,
                printf('DEC-2030-01-01-%05d', n.i), m.updated_at
         FROM memories m, n WHERE m.decision_id = ?`,
      )
      .run(total - 2, model.decision_id);
    const md = adapter.exportMarkdown({}).markdown;
    expect(md.split('\n---\n\n')).toHaveLength(total);
    expect(md).toContain('DEC-2030-01-01-10048');
  });
});
