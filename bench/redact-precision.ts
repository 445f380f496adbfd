// npm run bench:redact-precision -- [--gitleaks DIR] [--secretlint DIR] [--samples] [PATH ...]
// Held-out-style figures for the redaction gate, from other scanners' public rule tests and from real text:
// - --gitleaks DIR: a checkout of github.com/gitleaks/gitleaks; every rule's `tps` (must be redacted) and `fps`
//   (should not be) in cmd/generate/config/rules/*.go, generated as gitleaks' own tests do (bench/lib/gitleaks-cases.ts).
// - --secretlint DIR: a checkout of github.com/secretlint/secretlint; each rule's snapshot fixtures
//   (packages/@secretlint/secretlint-rule-*/test/snapshots/{ng,ok}.*): every range secretlint reports in an `ng`
//   input must be gone after redaction; an input where it reports nothing should keep every line.
// - PATH ...: real code, docs or transcripts (files or folders): redacted lines per 10,000 non-blank lines, credential
//   rules apart from spec-000 PII (emails, private IPs), which the spec redacts by design.
// --samples prints every miss, every flagged negative and every redacted real line (rule, where, the line).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { createRedactor } from '../src/main/core/redact/index.ts';
import { readGitleaksCases } from './lib/gitleaks-cases.ts';
import { walkFiles } from './lib/walk-files.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    gitleaks: { type: 'string' },
    secretlint: { type: 'string' },
    samples: { type: 'boolean', default: false },
    seeds: { type: 'string', default: '3' },
  },
});

const redactor = createRedactor();
const PII = new Set(['email', 'private_ip']);
const ctx = { source: 'bench', section: 'BENCH' };
const show = (s: string) => JSON.stringify(s.length > 160 ? s.slice(0, 160) + '…' : s);
const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)} %`);



if (values.gitleaks) {
  let tp = 0;
  let tpHit = 0;
  let fp = 0;
  let fpFlagged = 0;
  let fpFlaggedAny = 0;
  let skipped = 0;
  const misses: string[] = [];
  const flagged: string[] = [];
  for (let seed = 1; seed <= Number(values.seeds); seed++) {
    const read = readGitleaksCases(values.gitleaks, seed);
    skipped += read.skipped;
    for (const c of read.cases) {
      const all = redactor.redactText(c.text, ctx).redactions;
      const cred = all.filter((e) => !PII.has(e.type));
      if (c.positive) {
        tp++;
        if (cred.length > 0) tpHit++;
        else if (seed === 1) misses.push(`${c.rule}\t${show(c.text)}`);
      } else {
        fp++;
        if (cred.length > 0) {
          fpFlagged++;
          if (seed === 1) flagged.push(`${c.rule}\t${cred.map((e) => e.pattern).join(',')}\t${show(c.text)}`);
        }
        if (all.length > 0) fpFlaggedAny++;
      }
    }
  }
  console.log(`gitleaks rule tests (${values.seeds} seeds; ${skipped} elements outside the evaluated Go subset skipped):`);
  console.log(`  recall: ${tpHit} / ${tp} = ${(tpHit / tp).toFixed(4)}`);
  console.log(`  negatives flagged by credential rules: ${fpFlagged} / ${fp} = ${pct(fpFlagged, fp)} (any rule, PII included: ${pct(fpFlaggedAny, fp)})`);
  if (values.samples) {
    for (const m of misses) console.log(`  MISS\t${m}`);
    for (const f of flagged) console.log(`  FLAGGED\t${f}`);
  }
}

if (values.secretlint) {
  const root = join(values.secretlint, 'packages/@secretlint');
  let pos = 0;
  let posHit = 0;
  let neg = 0;
  let negFlagged = 0;
  const notes: string[] = [];
  for (const pkg of readdirSync(root).sort()) {
    if (!pkg.startsWith('secretlint-rule-') || /filter-comments|internal-test|preset|pattern|no-homedir|no-dotenv|example/.test(pkg)) continue;
    const snaps = join(root, pkg, 'test/snapshots');
    if (!existsSync(snaps)) continue;
    for (const dir of readdirSync(snaps).sort()) {
      if (!/^(?:ng|ok)\./.test(dir)) continue;
      const outPath = join(snaps, dir, 'output.json');
      const input = readdirSync(join(snaps, dir)).find((f) => f.startsWith('input'));
      if (!input || !existsSync(outPath) || /\.(?:p12|pfx|bin)$/.test(input)) continue;
      const out = JSON.parse(readFileSync(outPath, 'utf8')) as { messages: Array<{ range: [number, number] }>; sourceContent?: string };
      const text = out.sourceContent ?? readFileSync(join(snaps, dir, input), 'utf8');
      const result = redactor.redactText(text, ctx);
      if (out.messages.length > 0) {
        for (const m of out.messages) {
          const secret = text.slice(m.range[0], m.range[1]);
          pos++;
          if (!result.text.includes(secret)) posHit++;
          else notes.push(`MISS\t${pkg}/${dir}\t${show(secret)}`);
        }
      } else {
        neg++;
        const cred = result.redactions.filter((e) => !PII.has(e.type));
        if (cred.length > 0) {
          negFlagged++;
          const lines = text.split('\n');
          notes.push(`FLAGGED\t${pkg}/${dir}\t${cred.map((e) => `${e.pattern}:${show(lines[e.line - 1] ?? '')}`).join(' ; ')}`);
        }
      }
    }
  }
  console.log(`secretlint rule snapshots:`);
  console.log(`  recall (reported ranges gone): ${posHit} / ${pos} = ${(posHit / pos).toFixed(4)}`);
  console.log(`  clean inputs flagged by credential rules: ${negFlagged} / ${neg} = ${pct(negFlagged, neg)}`);
  if (values.samples) for (const n of notes) console.log(`  ${n}`);
}

const EXT = /\.(?:ts|js|mjs|cjs|md|tsx|jsx|py|go|rs|java|rb|rst|txt|ya?ml|toml|json|jsonl|ini|cfg|sh|html|tf|tfvars|sql|env)$/;
let totalLines = 0;
let totalCred = 0;
for (const path of positionals) {
  const files = walkFiles(path, EXT, [], 64_000_000);
  let lines = 0;
  let cred = 0;
  let pii = 0;
  const samples: string[] = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const original = text.split('\n');
    lines += original.filter((l) => l.trim().length > 0).length;
    for (const e of redactor.redactText(text, ctx).redactions) {
      if (PII.has(e.type)) pii++;
      else {
        cred++;
        samples.push(`${e.pattern}\t${relative(path, f) || f}:${e.line}\t${show(original[e.line - 1]!.trim())}`);
      }
    }
  }
  totalLines += lines;
  totalCred += cred;
  console.log(`${path}: ${files.length} files, ${lines} non-blank lines; credential rules ${cred} = ${((cred / Math.max(lines, 1)) * 10_000).toFixed(2)} per 10,000; PII ${pii}`);
  if (values.samples) for (const s of samples) console.log(`  ${s}`);
}
if (positionals.length > 1) console.log(`all paths: ${totalCred} / ${totalLines} = ${((totalCred / Math.max(totalLines, 1)) * 10_000).toFixed(2)} per 10,000 (target ≤ 3)`);
