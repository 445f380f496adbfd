// npm run bench:redact [-- --mb 4 --rounds 5 --dir PATH --lines DIR]
// 1. Throughput of the redaction gate (the default rule set: the gate's own rules, secretlint's recommended families,
// gitleaks' default rules) on real code and docs: the .ts/.js/.mjs/.md files of a fixed list of packages in
// node_modules (or every such file under --dir), read in path order until --mb megabytes. Prints MB/s for a cold
// first pass (RE2 DFAs being built) and the median of --rounds warm passes, with the redacted-line rate.
// Target (issue #10): ≥ 10 MB/s.
// 2. The pathological lines of issue #22 (128 KB and 1 MB token runs followed by a word and a newline, long base64,
// minified code, a long URL, the quadratic cases found in the gate's own passes): milliseconds for the worst line,
// and each line's work (characters the gate read; a line over the work limit is redacted as `limit`, whatever the
// load: issue #35). Target: ≤ 100 ms per line.
// 3. With --lines DIR (e.g. ../shared/transcripts): every line of every file under DIR judged on its own, the worst
// line's CPU time and work, and the count of `limit` redactions (real text should have none).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRedactor, DEFAULT_WORK_LIMIT } from '../src/main/core/redact/index.ts';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '4' }, rounds: { type: 'string', default: '5' }, dir: { type: 'string' }, lines: { type: 'string' }, samples: { type: 'boolean', default: false } },
});
const LIMIT = Number(values.mb) * 1024 * 1024;
const ROUNDS = Number(values.rounds);
const ROOT = resolve(import.meta.dirname, '..');

// Real code and docs every clone has (sources, not minified bundles: a packet holds code people read).
const PACKAGES = ['zod', '@huggingface/jinja', '@huggingface/transformers/src', 'gpt-tokenizer/src', 'react/cjs', 'react-dom/cjs',
  'zustand', 'ignore', 'htmlparser2', 'unpdf', '@modelcontextprotocol/sdk/dist/esm', 'better-sqlite3/lib', 'jsonc-parser/lib/esm'];
// Code and docs; with --dir also Python, Go, reStructuredText, plain text and config files.
const EXT = values.dir ? /\.(?:ts|js|mjs|cjs|md|tsx|jsx|py|go|rs|java|rb|rst|txt|ya?ml|toml|json|ini|cfg|sh)$/ : /\.(?:ts|js|mjs|cjs|md|tsx)$/;

function walk(dir: string, out: string[]): void {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (EXT.test(name) && !/\.min\.|\.d\.ts$|\.map$/.test(name) && st.size < 2_000_000) out.push(p);
  }
}

const files: string[] = [];
if (values.dir) walk(resolve(values.dir), files);
else for (const pkg of PACKAGES) walk(join(ROOT, 'node_modules', pkg), files);

const texts: Array<{ source: string; text: string }> = [];
let bytes = 0;
for (const f of files) {
  if (bytes >= LIMIT) break;
  const text = readFileSync(f, 'utf8');
  texts.push({ source: relative(ROOT, f), text });
  bytes += Buffer.byteLength(text);
}
const lines = texts.reduce((n, t) => n + t.text.split('\n').length, 0);
console.log(`corpus: ${texts.length} files, ${(bytes / 1024 / 1024).toFixed(2)} MB, ${lines} lines (${values.dir ?? PACKAGES.join(', ')})`);

// Each judged line's work (characters read), for the work-limit figures below.
let lineWork = 0;
const redactor = createRedactor({ onLineWork: (_line, chars) => (lineWork = Math.max(lineWork, chars)) });
console.log(`rules: ${redactor.rules.length}; work limit ${(DEFAULT_WORK_LIMIT / 1e6).toFixed(1)} M characters per line`);

// Spec 000 denylists PII (emails, private IP addresses): redacted by design, counted apart from credential rules.
const PII = new Set(['email', 'private_ip']);

// Wall time and this process's CPU time: on a shared machine the CPU figure is the gate's own speed.
function pass(): { ms: number; cpuMs: number; redacted: number; pii: number } {
  let redacted = 0;
  let pii = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const { source, text } of texts) {
    for (const e of redactor.redactText(text, { source, section: 'BENCH' }).redactions) {
      redacted++;
      if (PII.has(e.type)) pii++;
    }
  }
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, redacted, pii };
}

const mbps = (ms: number) => bytes / 1024 / 1024 / (ms / 1000);
const cold = pass();
console.log(`cold pass: ${cold.ms.toFixed(0)} ms = ${mbps(cold.ms).toFixed(1)} MB/s wall, ${mbps(cold.cpuMs).toFixed(1)} MB/s CPU`);
const runs = Array.from({ length: ROUNDS }, () => pass());
const mid = <T>(xs: T[], key: (x: T) => number) => [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)]!;
const median = mid(runs, (r) => r.ms).ms;
const medianCpu = mid(runs, (r) => r.cpuMs).cpuMs;
const best = Math.min(...runs.map((r) => r.ms));
console.log(`warm passes (${ROUNDS}): median ${median.toFixed(0)} ms = ${mbps(median).toFixed(1)} MB/s wall (best ${mbps(best).toFixed(1)}), ${mbps(medianCpu).toFixed(1)} MB/s CPU`);
const { loadavg, availableParallelism } = await import('node:os');
console.log(`machine: load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);
const per10k = (n: number) => ((n / lines) * 10_000).toFixed(2);
console.log(`redacted lines: ${cold.redacted} / ${lines} = ${per10k(cold.redacted)} per 10,000`);
console.log(`  by credential rules: ${cold.redacted - cold.pii} = ${per10k(cold.redacted - cold.pii)} per 10,000 (target ≤ 3)`);
console.log(`  spec-000 PII (emails, private IPs): ${cold.pii} = ${per10k(cold.pii)} per 10,000`);
if (values.samples) {
  // What was redacted, for judging false positives by eye: rule, file:line, the original line.
  for (const { source, text } of texts) {
    const original = text.split('\n');
    for (const e of redactor.redactText(text, { source, section: 'BENCH' }).redactions) {
      console.log(`${e.pattern}\t${source}:${e.line}\t${original[e.line - 1]!.trim().slice(0, 160)}`);
    }
  }
}
console.log(`throughput target ≥ 10 MB/s: ${mbps(median) >= 10 ? 'met' : 'NOT met'} (wall), ${mbps(medianCpu) >= 10 ? 'met' : 'NOT met'} (CPU)`);

// --- Pathological lines (issue #22) ---------------------------------------------------------------------------------
// Each text is one long line (and at most a short next one): the time of the whole redactText call is the line's time.
const KB = 1024;
const tokenRun = (n: number) => 'aB3x9/+Qz'.repeat(Math.ceil(n / 9)).slice(0, n);
const minified = (() => {
  // A real minified bundle when node_modules has one (axe-core's longest line is ~650 KB), else built from code.
  const file = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
  if (existsSync(file)) return readFileSync(file, 'utf8').split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
  return texts.map((t) => t.text).join('\n').replace(/\s*\n\s*/g, ';').slice(0, 650 * KB);
})();
const pathological: Array<[string, string]> = [
  ['128 KB token run + word + newline', `${tokenRun(128 * KB)} word\nnext`],
  ['1 MB token run + word + newline', `${tokenRun(1024 * KB)} word\nnext`],
  ['1 MB run of one letter + word + newline', `${'A'.repeat(1024 * KB)} word\nnext`],
  ['long base64 (of text, 1.3 MB)', Buffer.from('lorem ipsum dolor sit amet '.repeat(38_000)).toString('base64')],
  ['long base64 (of binary, 1.3 MB)', Buffer.from(Array.from({ length: 1024 * KB }, (_, i) => (i * 7919) % 251)).toString('base64')],
  [`minified code (${(minified.length / KB).toFixed(0)} KB line)`, minified],
  ['long URL (1 MB)', `https://example.com/search?${'q=alpha&page=2&'.repeat(Math.ceil((1024 * KB) / 15))}`],
  ['1 MB of \\n escapes after a key (JSON string)', `"token": "${'ab\\n'.repeat(256 * KB)}"`],
  ['sensitive key + 128 KB of `)`', `password = ${')'.repeat(128 * KB)}`],
  ['multi-line value + 128 KB of `,`', `password:\n  ${','.repeat(128 * KB)}x`],
  ['hard-wrapped 128 KB runs', `${tokenRun(128 * KB)}\n${tokenRun(128 * KB)}`],
];
console.log('pathological lines (best of 3 warm runs, wall and CPU, and the first run; work in characters read):');
let worst = 0;
let worstCpu = 0;
for (const [name, text] of pathological) {
  const ms: number[] = [];
  const cpu: number[] = [];
  let outcome = '';
  lineWork = 0;
  for (let i = 0; i < 4; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = redactor.redactText(text, { source: 'bench', section: 'BENCH' });
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    outcome = r.redactions.length === 0 ? 'kept' : [...new Set(r.redactions.map((e) => e.type))].join(', ');
  }
  const warm = Math.min(...ms.slice(1));
  const warmCpu = Math.min(...cpu.slice(1));
  worst = Math.max(worst, warm);
  worstCpu = Math.max(worstCpu, warmCpu);
  console.log(`  ${name.padEnd(48)} ${warm.toFixed(1).padStart(7)} ms wall ${warmCpu.toFixed(1).padStart(7)} ms CPU (first ${ms[0]!.toFixed(1)})  work ${(lineWork / 1e6).toFixed(1)} M  ${outcome}`);
}
console.log(`max ms per line: ${worst.toFixed(1)} wall, ${worstCpu.toFixed(1)} CPU (target ≤ 100, plus the budget check's granularity)`);

if (values.lines) {
  const all: string[] = [];
  const every = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) every(p);
      else all.push(p);
    }
  };
  every(resolve(values.lines));
  let worstLine = 0;
  let worstAt = '';
  let limits = 0;
  let count = 0;
  let worstWork = 0;
  for (const f of all) {
    const lines = readFileSync(f, 'utf8').split('\n');
    lines.forEach((line, i) => {
      count++;
      lineWork = 0;
      const c0 = process.cpuUsage();
      const r = redactor.redactText(line, { source: f, section: 'BENCH' });
      const c = process.cpuUsage(c0);
      const ms = (c.user + c.system) / 1000;
      if (ms > worstLine) [worstLine, worstAt] = [ms, `${relative(resolve(values.lines!), f)}:${i + 1} (${line.length} characters)`];
      worstWork = Math.max(worstWork, lineWork);
      if (r.redactions.some((e) => e.type === 'limit')) limits++;
    });
  }
  console.log(`--lines ${values.lines}: ${all.length} files, ${count} lines; worst line ${worstLine.toFixed(1)} ms CPU at ${worstAt}; most work on a line ${(worstWork / 1e6).toFixed(1)} M of ${(DEFAULT_WORK_LIMIT / 1e6).toFixed(1)} M; ${limits} \`limit\` redactions`);
}
