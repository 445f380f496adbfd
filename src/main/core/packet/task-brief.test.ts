import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { buildPacket } from './assemble.ts';
import { packetStore } from './fixtures.testkit.ts';
import { briefTask, TASK_SHOWN_MIN, taskRoomChars } from './task-brief.ts';

// An issue as reporters write them: a title, prose, a traceback, a reproduction and an environment dump.
const ENV = ['## Environment', '', '```', ...Array.from({ length: 60 }, (_, i) => `package-${i}==1.${i}.0`), '```'].join('\n');
const TRACE = ['```', 'Traceback (most recent call last):', ...Array.from({ length: 40 }, (_, i) => `  File "src/mod${i}.py", line ${i + 10}, in call_${i}\n    step_${i}()`), 'RetryError: gave up after 3 attempts', '```'].join('\n');
const issue = (paras: number) =>
  ['retry gives up too early when the backoff overflows', '', ...Array.from({ length: paras }, (_, i) => `Paragraph ${i}: the retry helper stops after the third attempt even when attempts is larger, because the delay wraps.`), '', TRACE, '', ENV].join('\n');

describe('briefTask', () => {
  it('shows a task that fits whole, unchanged', () => {
    const t = 'Fix the retry backoff.\n\nIt overflows after 30 attempts.';
    expect(briefTask(t, 1_000)).toEqual({ text: t, shortened: false });
  });

  it('leaves out environment output first, and says so', () => {
    const t = issue(3);
    const withoutEnv = t.slice(0, t.indexOf('## Environment')).trim();
    const b = briefTask(t, withoutEnv.length + 200);
    expect(b.shortened).toBe(true);
    expect(b.text).not.toMatch(/package-\d+==/);
    expect(b.text).toContain('RetryError: gave up after 3 attempts');
    expect(b.text).toMatch(/\[task shortened to fit the packet: [\d,]+ of [\d,]+ characters shown; 6\d lines of environment output left out; the whole task was searched\]$/);
  });

  it('cuts a long traceback to its head and its error before cutting the prose', () => {
    const b = briefTask(issue(3), 2_000);
    expect(b.text).toContain('Traceback (most recent call last):');
    expect(b.text).toContain('RetryError: gave up after 3 attempts');
    expect(b.text).toMatch(/⋯ \(\d+ lines left out\)/);
    expect(b.text).toContain('1 long code block cut to head and tail');
    expect(b.text.length).toBeLessThanOrEqual(2_000);
  });

  it('cuts after whole lines within the room, keeps fences balanced and is deterministic', () => {
    const t = issue(400);
    for (const room of [1_000, 5_000, 12_800]) {
      const b = briefTask(t, room);
      expect(b.text.length, String(room)).toBeLessThanOrEqual(room);
      expect(b.text.startsWith('retry gives up too early')).toBe(true);
      expect(b.text).toContain('the rest cut');
      expect((b.text.match(/^\s*```/gm) ?? []).length % 2).toBe(0);
      expect(briefTask(t, room)).toEqual(b);
    }
  });

  it("gives ao-v1's TASK its scaled maximum, and layered-v1's at least the seed maximum and never over half the packet", () => {
    expect(taskRoomChars('ao-v1', 7_000)).toBe(5_000 - 64);
    expect(taskRoomChars('ao-v1', 14_000)).toBe(10_000 - 64);
    expect(taskRoomChars('layered-v1', 8_000)).toBe(12_800);
    expect(taskRoomChars('layered-v1', 2_500)).toBe(TASK_SHOWN_MIN);
    expect(taskRoomChars('layered-v1', 2_000)).toBe(4_000);
  });
});

describe('a packet from an issue-length task', () => {
  const dirs = tempDirs();
  afterAll(dirs.cleanup);

  it('stays within max_tokens in both templates, shows the start of the task and says it was shortened', async () => {
    const f = await packetStore(dirs.make());
    const task = issue(700); // ~80,000 characters
    expect(task.length).toBeGreaterThan(70_000);
    for (const template of ['ao-v1', 'layered-v1'] as const) {
      const p = await buildPacket({ query: 'retry backoff', task, template, maxTokens: 8_000, briefTask: true }, { sources: f.sources });
      expect(p.budgets.total_tokens, template).toBeLessThanOrEqual(8_000);
      expect(p.budget_warnings.join('\n'), template).not.toMatch(/over max_tokens|over its [\d]+-char/);
      expect(p.inputs.task, template).toBe(task); // the whole task stays in the inputs (replay, retrieval)
      const shown = p.sections.find((s) => s.name === 'TASK')!.text;
      expect(shown, template).toContain('retry gives up too early when the backoff overflows');
      expect(shown, template).toContain('the whole task was searched');
      expect(p.degradations.join('\n'), template).toMatch(/TASK: task shortened to fit the packet/);
      expect(p.inputs.task_brief, template).toBe(true);
      // The assembler alone never trims TASK (seed 000): without the request's briefTask the task is shown whole.
      const whole = await buildPacket({ query: 'retry backoff', task, template, maxTokens: 8_000 }, { sources: f.sources });
      expect(whole.sections.find((s) => s.name === 'TASK')!.text, template).toContain(task.trim());
      expect(whole.inputs, template).not.toHaveProperty('task_brief');
      // An issue handed over as the query alone (the query is then the task) is shortened alike.
      const asQuery = await buildPacket({ query: task, template, maxTokens: 8_000, briefTask: true }, { sources: f.sources });
      expect(asQuery.budgets.total_tokens, template).toBeLessThanOrEqual(8_000);
      expect(asQuery.sections.find((s) => s.name === 'TASK')!.text, template).toContain('the whole task was searched');
    }
    f.store.close();
  });
});
