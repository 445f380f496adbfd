import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRedactor } from './redactor.ts';

/*
 * False-positive rate on ordinary text: the share of lines the gate redacts
 * in real code and prose that contain no secrets. Over-redaction is allowed by
 * the spec, but a gate that eats ordinary lines ruins packets. Corpora are
 * files every clone has: package sources in node_modules and this repository's
 * own documentation.
 */

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const NM = path.join(ROOT, 'node_modules');

const CODE_FILES = [
  'zod/src/v4/classic/schemas.ts',
  'zod/src/v4/core/schemas.ts',
  'zod/src/v4/core/util.ts',
  'zod/src/v4/core/regexes.ts',
  'zod/src/v4/core/to-json-schema.ts',
  '@tanstack/virtual-core/src/index.ts',
  '@huggingface/jinja/src/parser.ts',
  '@huggingface/jinja/src/runtime.ts',
  'gpt-tokenizer/src/GptEncoding.ts',
  'react/cjs/react.development.js',
  'zustand/esm/middleware.mjs',
  'ignore/index.js',
];

const DOC_FILES = [
  'zod/README.md',
  'zustand/README.md',
  're2/README.md',
  'gpt-tokenizer/README.md',
  'ignore/README.md',
  '@huggingface/transformers/README.md',
  'unpdf/README.md',
  'better-sqlite3/README.md',
];

// Prose this repository ships (no test may read outside the clone).
const PROSE_FILES = ['README.md', 'src/main/core/embed/README.md', 'resources/protocol/ao-v1.md', 'resources/protocol/layered-v1-system.md', 'resources/models/README.md'];

interface Rate {
  lines: number;
  redacted: number;
  rate: number;
  byRule: Record<string, number>;
  samples: string[];
}

function measure(name: string, texts: Array<{ source: string; text: string }>): Rate {
  const redactor = createRedactor();
  let lines = 0;
  let redacted = 0;
  const byRule: Record<string, number> = {};
  const samples: string[] = [];
  const started = performance.now();
  for (const { source, text } of texts) {
    const original = text.split('\n');
    const { redactions } = redactor.redactText(text, { source, section: 'TEST' });
    lines += original.filter((l) => l.trim().length > 0).length;
    redacted += redactions.length;
    for (const e of redactions) {
      byRule[e.pattern] = (byRule[e.pattern] ?? 0) + 1;
      samples.push(`${e.pattern}\t${source}:${e.line}\t${original[e.line - 1].trim().slice(0, 160)}`);
    }
  }
  const ms = performance.now() - started;
  const rate = redacted / lines;
  console.log(
    `[false-positive] ${name}: ${redacted}/${lines} non-blank lines redacted = ${(rate * 100).toFixed(2)}% ` +
      `(${((ms * 1000) / lines).toFixed(1)} µs/line)`,
    byRule,
  );
  if (process.env.REDACT_FP_SAMPLES) console.log(samples.join('\n'));
  return { lines, redacted, rate, byRule, samples };
}

function readAll(files: string[]): Array<{ source: string; text: string }> {
  return files.map((f) => {
    const p = path.join(NM, f);
    if (!fs.existsSync(p)) throw new Error(`false-positive corpus file missing: ${p} (update the fixed list)`);
    return { source: f, text: fs.readFileSync(p, 'utf8') };
  });
}

function prose(): Array<{ source: string; text: string }> {
  return PROSE_FILES.map((f) => ({ source: f, text: fs.readFileSync(path.join(ROOT, f), 'utf8') }));
}

describe('false-positive rate on ordinary text', () => {
  it('code (TypeScript / JavaScript sources from node_modules)', () => {
    const r = measure('code', readAll(CODE_FILES));
    expect(r.lines).toBeGreaterThan(10_000);
    // Measured 0.42% (78 / 18,580 lines); the issue allows 5%, this bound catches regressions.
    expect(r.rate).toBeLessThan(0.01);
  });

  it("prose (this repository's documentation)", () => {
    const r = measure('prose', prose());
    expect(r.lines).toBeGreaterThan(300);
    // Measured 1.15% (5 / 433 lines: hashes and example commands in the README).
    expect(r.rate).toBeLessThan(0.02);
  });

  it('markdown docs (package READMEs)', () => {
    const r = measure('markdown', readAll(DOC_FILES));
    expect(r.lines).toBeGreaterThan(1_500);
    // Measured 0.59% (14 / 2,387 lines).
    expect(r.rate).toBeLessThan(0.015);
  });
});
