import { afterAll, describe, expect, it } from 'vitest';
import { getExecutiveSummary, setExecutiveSummary } from '../hierarchy/index.ts';
import { alphabets, createRng } from '../redact/fake-secrets.testkit.ts';
import { addMemory, createDecision, rehydrate } from './index.ts';
import { fixedClock, memoryStores } from './testing/store.ts';

/*
 * Issue #10 item 5: `memory rehydrate` is the bundle an agent starts with. Secrets in decisions, issues, learnings,
 * state and the executive summary must not reach its text or its records; ids stay as stored.
 */

const stores = memoryStores('cp-rehydrate-redact-');
afterAll(() => stores.cleanup());

describe('memory rehydrate through the redaction gate', () => {
  it('prints no secret from decisions, issues, learnings, state or the summary, in the text or the records', () => {
    const { db } = stores.open();
    const clock = fixedClock('2026-03-01T00:00:00Z');
    const r = createRng(77);
    const a = alphabets(r);
    const secrets = {
      aws: 'AKIA' + a.upnum(16),
      gh: 'ghp_' + a.b62(36),
      pw: 'Pq7' + a.b62(8) + '!x',
      stripe: 'sk_live_' + a.b62(32),
      slack: `xoxb-${a.digits(11)}-${a.digits(12)}-${a.b62(24)}`,
    };
    const at = '2026-02-27T00:00:00Z';
    const dec = createDecision(
      db,
      { title: `Rotate ${secrets.aws} quarterly`, decision: `Use the deploy token ${secrets.gh} only in CI.`, rationale: `DB_PASSWORD=${secrets.pw} leaked once.`, importance: 9, timestamp: at },
      { ...clock, actor: 'test' },
    );
    addMemory(db, { memory_type: 'issue', title: 'Payments key in logs', content: { description: `The log shows ${secrets.stripe}`, severity: 'critical', status: 'open' }, timestamp: at }, clock);
    addMemory(db, { memory_type: 'learning', title: 'Slack bot', content: { lesson: `bot token: ${secrets.slack}` }, timestamp: at }, clock);
    addMemory(db, { memory_type: 'state', title: 'Working', content: { task_description: `export GITHUB_TOKEN=${secrets.gh}`, completion_percentage: 10, next_actions: [`rotate ${secrets.aws}`] }, timestamp: at }, clock);
    setExecutiveSummary(db, { goal: `Ship with password: ${secrets.pw}`, status_pct: 10, priorities: ['a'], blockers: [], key_decisions: [dec.decision_id!] }, { ...clock, actor: 'test' });

    const b = rehydrate(db, { summary: getExecutiveSummary(db), ...clock, touch: false });
    const json = JSON.stringify(b);
    // The test can fail: every kind of memory made it into the bundle.
    expect(b.key_decisions).toHaveLength(1);
    expect(b.open_issues).toHaveLength(1);
    expect(b.applicable_learnings).toHaveLength(1);
    expect(b.current_state).not.toBeNull();
    expect(b.project_summary).not.toBeNull();
    for (const s of Object.values(secrets)) {
      expect(b.text).not.toContain(s);
      expect(json).not.toContain(s);
    }
    expect(b.text).toMatch(/\[REDACTED: /);
    expect(b.key_decisions[0]!.decision_id).toBe(dec.decision_id);
    expect(b.key_decisions[0]!.memory_id).toBe(dec.memory_id);
  });
});
