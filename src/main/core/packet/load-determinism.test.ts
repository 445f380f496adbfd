// Issue #35: the same input gives the same gate output and the same packet hash whatever the machine's load. The
// gate bounds a line by the work it reads, not by time; here it runs idle and again with two busy-loop processes
// taking both cores, on text that holds secrets, ordinary prose and long lines near the old 100 ms budget.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLeakCorpus } from '../redact/fake-secrets.testkit.ts';
import { createRedactor } from '../redact/index.ts';
import type { Store } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { buildPacket } from './assemble.ts';
import { canonicalJson, sha256Hex } from './canonical.ts';
import { packetStore, PROJECT_FILES } from './fixtures.testkit.ts';

const tmp = tempDirs('cp-load-');
const stores: Store[] = [];
afterAll(() => {
  for (const s of stores) s.close();
  tmp.cleanup();
});

// Long lines that took the old gate 50–100 ms: a minified bundle's worth of code with key words, a transcript turn as
// one JSON line, a long base64 run. Built, not read: tests read nothing outside the repository.
const CODE = 'function a(t){var e=t.password||opts.token;return e?{auth:e,key:k[i]}:null}var cfg={apiKey:process.env.API_KEY,secret:s};';
const LONG_LINES = [
  CODE.repeat(Math.ceil(300_000 / CODE.length)),
  JSON.stringify({ role: 'assistant', content: [{ type: 'text', text: 'password: ${DB_PASSWORD}\ntoken = "<your token>"\n'.repeat(4000) }] }),
  Buffer.from('lorem ipsum dolor sit amet '.repeat(20_000)).toString('base64'),
];

function gateText(): string[] {
  const corpus = buildLeakCorpus(3535).map((c) => c.text);
  return [...corpus, ...LONG_LINES, ...Object.values(PROJECT_FILES)];
}

/** The gate's output over every text, from a fresh redactor (cold automata, as a new process has them). */
function gateHash(texts: string[]): string {
  const redactor = createRedactor({ now: () => new Date(0) });
  return sha256Hex(canonicalJson(texts.map((t) => redactor.redactText(t, { source: 'load', section: 'LOAD' }))));
}

async function packHashes(dir: string): Promise<string[]> {
  const files = { ...PROJECT_FILES, 'config/app.yaml': `db:\n  password: ZebraMangoKiwi\n  host: localhost\n`, 'dist/bundle.min.js': LONG_LINES[0]!, 'notes/turn.json': LONG_LINES[1]! };
  const f = await packetStore(dir, { files });
  stores.push(f.store);
  const out: string[] = [];
  for (const q of ['retry backoff', 'database password config', 'bundle api key']) {
    const p = await buildPacket({ query: q, task: q, maxTokens: 4000 }, { sources: f.sources, redactor: createRedactor() });
    out.push(sha256Hex(canonicalJson(p)));
  }
  return out;
}

/** CPU ticks a child has used (Linux), to show the load was real. */
function ticks(pid: number): number | null {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return null;
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function underLoad<T>(work: () => Promise<T>): Promise<{ result: T; busyTicks: Array<number | null> }> {
  const children: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    await new Promise((r) => setTimeout(r, 200));
    const result = await work();
    return { result, busyTicks: children.map((c) => ticks(c.pid!)) };
  } finally {
    for (const c of children) c.kill('SIGKILL');
  }
}

describe('the same answer under load', () => {
  it('gives the same gate output and packet hashes with two busy cores as idle', async () => {
    const texts = gateText();
    const idleGate = gateHash(texts);
    const idlePacks = await packHashes(tmp.make());
    const busy = await underLoad(async () => ({ gate: gateHash(texts), packs: await packHashes(tmp.make()) }));
    // The busy loops really ran while the gate did.
    for (const t of busy.busyTicks) if (t !== null) expect(t).toBeGreaterThan(10);
    expect(busy.result.gate).toBe(idleGate);
    expect(busy.result.packs).toEqual(idlePacks);
    // And the long lines were judged to the end, not cut short: none is redacted whole for its length.
    const redactor = createRedactor();
    for (const line of LONG_LINES) expect(redactor.redactText(line, { source: 'load', section: 'LOAD' }).redactions.filter((e) => e.pattern === 'redaction_limit')).toEqual([]);
  }, 120_000);
});
