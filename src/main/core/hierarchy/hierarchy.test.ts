import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from 'better-sqlite3';
import { ingestPaths } from '../ingest/index.ts';
import { createDecision, ValidationError } from '../memory/index.ts';
import { fixedClock, memoryStores } from '../memory/testing/store.ts';
import { writeTree } from '../testing/tmp.ts';
import {
  addSection,
  centrality,
  checkConsistency,
  deleteSection,
  draftSection,
  getExecutiveSummary,
  getSection,
  hierarchyTree,
  navigationIndex,
  propagationHints,
  setExecutiveSummary,
  updateSection,
} from './index.ts';

const stores = memoryStores('cp-hier-');
afterAll(() => stores.cleanup());
const clock = fixedClock('2025-11-04T15:30:00Z');

const FILES = {
  'src/services/auth/jwt_handler.py': 'class JWTHandler:\n    """JWT token generation and validation for the authentication service."""\n    expiry_minutes = 15\n',
  'src/services/payment/stripe.ts': 'export function charge(amount: number) { return amount; }\n',
  'docs/architecture.md': [
    '# Architecture',
    '',
    'The platform uses microservices deployed on Kubernetes. Each service owns its PostgreSQL schema and talks to others over REST.',
    '',
    '## Services',
    '',
    'The auth service issues JWT tokens for every other service. The payment service calls Stripe and records payments in PostgreSQL.',
    'Services publish events to RabbitMQ so that slow work happens asynchronously.',
    '',
    '## Storage',
    '',
    'PostgreSQL holds transactional data for every service. Redis caches sessions for the auth service.',
    '',
  ].join('\n'),
  'docs/onboarding.md': '# Onboarding\n\nInstall Node 22 and run npm ci. Ask the team for access to the staging cluster.\n',
};

async function project(): Promise<{ db: Database; root: string; dec: string }> {
  const store = stores.open();
  const root = stores.dir();
  writeTree(root, FILES);
  await ingestPaths(store.db, [root]);
  const dec = createDecision(store.db, { title: 'PostgreSQL over MongoDB', decision: 'PG', rationale: 'ACID', importance: 9 }, clock).decision_id!;
  return { db: store.db, root, dec };
}

/** A hierarchy that passes every check. */
function consistent(db: Database, dec: string) {
  setExecutiveSummary(
    db,
    { goal: 'Build a scalable e-commerce API', status_pct: 45, status_text: 'auth done, payments in progress', priorities: ['Payments', 'Orders', 'Infra'], blockers: ['PCI review'], key_decisions: [dec] },
    { ...clock, actor: 'Implementation-Lead-003' },
  );
  addSection(db, { level: 2, title: 'Architecture', body: `Microservices on Kubernetes. PostgreSQL over MongoDB [${dec}].\n\n[Details: §3.1]`, status_pct: 60 }, clock);
  addSection(db, { level: 2, title: 'Payment', body: 'Stripe integration.', status_pct: 30 }, clock);
  addSection(db, { level: 3, parent: '2.1', title: 'Architecture Details', body: 'See [jwt](§4.services.auth.jwt_handler) and §4.docs/architecture.md.' }, clock);
  addSection(db, { level: 3, parent: '2.1', title: 'Service Communication', body: 'REST between services; events over RabbitMQ. Code: §4.src/services/*' }, clock);
  addSection(db, { level: 3, parent: '2.2', title: 'Payment Details', body: 'See §4.src/services/payment/stripe.ts.' }, clock);
}

describe('sections and markers', () => {
  it('allocates §2.N, §3.N and §3.N.M, keeps markers across edits and never reuses one', async () => {
    const { db, dec } = await project();
    consistent(db, dec);
    expect(hierarchyTree(db).sections.map((s) => [s.marker, s.children.map((c) => c.marker)])).toEqual([
      ['2.1', ['3.1', '3.1.1']],
      ['2.2', ['3.2']],
    ]);
    expect(addSection(db, { level: 3, parent: '3.1', title: 'Schema' }, clock).marker).toBe('3.1.2');
    const edited = updateSection(db, '§2.1', { title: 'System Architecture', body: 'Changed.' }, clock);
    expect([edited.marker, edited.anchor]).toEqual(['2.1', '21-system-architecture']);
    deleteSection(db, '2.2', clock);
    expect(getSection(db, '2.2')).toBeNull();
    expect(addSection(db, { level: 2, title: 'Infrastructure' }, clock).marker).toBe('2.3');
    expect(() => addSection(db, { level: 2, title: 'Again', marker: '2.2' }, clock)).toThrow(/§2.2 is taken/);
    expect(() => addSection(db, { level: 3, title: 'No parent' }, clock)).toThrow(ValidationError);
  });

  it('validates the executive summary per field', () => {
    const { db } = stores.open();
    let err: ValidationError | undefined;
    try {
      setExecutiveSummary(db, { goal: ' ', status_pct: 101, priorities: ['a', 'b', 'c', 'd'], key_decisions: ['DEC-1'] });
    } catch (e) {
      err = e as ValidationError;
    }
    expect(err!.issues.map((i) => i.field)).toEqual(['goal', 'status_pct', 'priorities', 'key_decisions[0]']);
    expect(getExecutiveSummary(db)).toBeNull();
  });

  it('renders L1 with goal, status %, priorities, blockers and linked decisions', async () => {
    const { db, dec } = await project();
    consistent(db, dec);
    const s = getExecutiveSummary(db)!;
    expect(s.key_decisions).toEqual([{ decision_id: dec, title: 'PostgreSQL over MongoDB', exists: true }]);
    expect(s.text).toBe(
      [
        '# PROJECT EXECUTIVE SUMMARY',
        '§1.0',
        '',
        '**Goal**: Build a scalable e-commerce API',
        '**Status**: 45% complete - auth done, payments in progress',
        '**Priorities**:',
        '1. Payments',
        '2. Orders',
        '3. Infra',
        '**Blockers**:',
        '- PCI review',
        '**Key Decisions**:',
        `- [${dec}] PostgreSQL over MongoDB`,
        '**Last Updated**: 2025-11-04T15:30:00.000Z | **Agent**: Implementation-Lead-003',
        '',
      ].join('\n'),
    );
  });

  it('builds the tree with L4 files relative to their root, and the navigation index', async () => {
    const { db, dec } = await project();
    consistent(db, dec);
    const tree = hierarchyTree(db);
    expect(tree.l4.map((n) => n.marker)).toEqual([
      '4.docs/architecture.md',
      '4.docs/onboarding.md',
      '4.src/services/auth/jwt_handler.py',
      '4.src/services/payment/stripe.ts',
    ]);
    expect(tree.l4[0]!.chunks).toBeGreaterThan(0);
    expect(navigationIndex(tree).markdown).toBe(
      [
        '# NAVIGATION INDEX',
        '## Executive Summary',
        '[§1.0 - Project Overview](#10-project-overview) - Goal, status, priorities, blockers',
        '## Section Summaries',
        '[§2.1 - Architecture](#21-architecture) - Microservices on Kubernetes. [IN PROGRESS 60%]',
        '[§2.2 - Payment](#22-payment) - Stripe integration. [IN PROGRESS 30%]',
        '## Detailed Documentation',
        '[§3.1 - Architecture Details](#31-architecture-details) - See jwt(§4.services.auth.jwt_handler) and §4.docs/architecture.md.',
        '[§3.1.1 - Service Communication](#311-service-communication) - REST between services; events over RabbitMQ.',
        '[§3.2 - Payment Details](#32-payment-details) - See §4.src/services/payment/stripe.ts.',
        '## Source Files (Level 4)',
        '[§4.docs/* - docs/*](#4-docs) - 2 files',
        '[§4.src/* - src/*](#4-src) - 2 files',
        '---',
        '',
      ].join('\n'),
    );
  });
});

describe('consistency checks', () => {
  it('stay quiet on a consistent hierarchy', async () => {
    const { db, dec } = await project();
    consistent(db, dec);
    expect(checkConsistency(db)).toEqual([]);
  });

  it('check 1: broken L3 → L4 references (unknown path, and a file gone from disk)', async () => {
    const { db, dec, root } = await project();
    consistent(db, dec);
    updateSection(db, '3.2', { body: 'See §4.src/services/payment/paypal.ts and §4.src/services/payment/stripe.ts.' }, clock);
    expect(checkConsistency(db)).toEqual([
      { check: 'broken-l4-reference', marker: '§3.2', ref: '§4.src/services/payment/paypal.ts', message: 'Broken L3→L4 reference: §4.src/services/payment/paypal.ts matches no indexed file' },
    ]);
    rmSync(join(root, 'src/services/payment/stripe.ts'));
    expect(checkConsistency(db).map((f) => f.ref)).toEqual(['§4.src/services/payment/paypal.ts', '§4.src/services/payment/stripe.ts']);
    expect(checkConsistency(db)[1]!.message).toMatch(/no longer exists on disk/);
  });

  it('check 2: an L2 summary without L3 details', async () => {
    const { db, dec } = await project();
    consistent(db, dec);
    addSection(db, { level: 2, title: 'Infrastructure', body: 'Terraform.' }, clock);
    expect(checkConsistency(db)).toEqual([{ check: 'l2-without-l3', marker: '§2.3', ref: null, message: 'L2 summary without L3 details: §2.3 Infrastructure' }]);
    addSection(db, { level: 3, parent: '2.3', title: 'Infrastructure Details', body: 'Modules.' }, clock);
    expect(checkConsistency(db)).toEqual([]);
  });

  it('check 3: L1 status % more than 5 points from the L2 mean', async () => {
    const { db, dec } = await project();
    consistent(db, dec); // L1 45; L2 60 and 30 → mean 45
    updateSection(db, '2.1', { status_pct: 70 }, clock); // mean 50: exactly 5 off, within tolerance
    expect(checkConsistency(db)).toEqual([]);
    updateSection(db, '2.1', { status_pct: 71 }, clock); // mean 50.5
    expect(checkConsistency(db)).toEqual([{ check: 'status-mismatch', marker: '§1.0', ref: null, message: 'Status mismatch: L1=45%, L2 aggregate=50.5% (tolerance 5)' }]);
  });

  it('check 4: referenced decision ids that do not exist', async () => {
    const { db, dec } = await project();
    consistent(db, dec);
    updateSection(db, '3.1.1', { body: 'REST, see DEC-2025-10-22-005. Code: §4.src/services/*' }, clock);
    setExecutiveSummary(db, { goal: 'g', status_pct: 45, key_decisions: [dec, 'DEC-2025-10-15-001'] }, clock);
    createDecision(db, { title: 'Queue', decision: 'RabbitMQ', rationale: 'r', importance: 5, context: 'Builds on DEC-2025-01-01-009.' }, clock);
    expect(checkConsistency(db).map((f) => [f.check, f.marker, f.ref])).toEqual([
      ['missing-decision', '§1.0', 'DEC-2025-10-15-001'],
      ['missing-decision', '§3.1.1', 'DEC-2025-10-22-005'],
      ['missing-decision', 'DEC-2025-11-04-002', 'DEC-2025-01-01-009'],
    ]);
  });
});

describe('propagation hints', () => {
  it('follow the seed matrix and name the sections that reference a changed file', async () => {
    const { db, dec } = await project();
    consistent(db, dec);
    const hints = propagationHints(db, { type: 'code-change', path: 'src/services/payment/stripe.ts' });
    expect(hints).toEqual([
      { level: 4, rule: 'Always', update: 'always', markers: ['§4.src/services/payment/stripe.ts'] },
      { level: 3, rule: 'If significant', update: 'conditional', markers: ['§3.1.1', '§3.2'] },
      { level: 2, rule: 'If impacts status', update: 'conditional', markers: ['§2.1', '§2.2'] },
      { level: 1, rule: 'If changes status %', update: 'conditional', markers: ['§1.0'] },
    ]);
    expect(propagationHints(db, { type: 'progress-update' }).map((h) => [h.level, h.update])).toEqual([
      [4, 'never'],
      [3, 'always'],
      [2, 'always'],
      [1, 'always'],
    ]);
    expect(propagationHints(db, { type: 'decision-made' }).map((h) => h.rule)).toEqual(['Reference', 'Full details', 'Summary', 'Link only']);
    expect(() => propagationHints(db, { type: 'refactor' as never })).toThrow(/unknown change type/);
  });
});

describe('extractive drafts', () => {
  it('centrality favours the unit whose terms recur in the others; an unrelated unit scores zero', () => {
    const s = centrality(['postgres stores orders and payments', 'orders and payments flow through postgres', 'payments in postgres', 'the cat sat on the mat']);
    expect(s.indexOf(Math.max(...s))).toBe(2);
    expect(s[0]).toBeGreaterThan(0);
    expect(s[3]).toBe(0);
  });

  it('drafts L3 from the chunks under a path, marked as a draft, with § references that resolve', async () => {
    const { db, dec } = await project();
    consistent(db, dec);
    const d = draftSection(db, { level: 3, title: 'Docs', pathPrefix: 'docs/', size: 2 });
    expect(d.draft).toBe(true);
    expect(d.text.startsWith('> **DRAFT** — extractive')).toBe(true);
    expect(d.sources.length).toBe(2);
    expect(d.sources.every((s) => s.marker.startsWith('§4.docs/'))).toBe(true);
    const saved = addSection(db, { level: 3, parent: '2.2', title: 'Docs draft', body: d.text, is_draft: true }, clock);
    expect(saved.is_draft).toBe(true);
    expect(checkConsistency(db)).toEqual([]);
    expect(navigationIndex(hierarchyTree(db)).markdown).toContain('[DRAFT]');
  });

  it('drafts an L2 summary of central sentences for a query', async () => {
    const { db } = await project();
    const d = draftSection(db, { level: 2, title: 'Architecture', query: 'PostgreSQL services', size: 2 });
    expect(d.text).toMatch(/^> \*\*DRAFT\*\*/);
    const body = d.text.split('\n\n')[1]!;
    expect(body).toMatch(/PostgreSQL/);
    expect(d.text).toContain('Sources: §4.docs/architecture.md');
    expect(draftSection(db, { level: 2, title: 'None', query: 'zzzyx' }).sources).toEqual([]);
  });
});
