import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRedactor } from './redactor.ts';

/*
 * False-positive rate on ordinary text: the share of lines the gate redacts
 * in real code and prose that contain no secrets. Over-redaction is allowed by
 * the spec, but a gate that eats ordinary lines ruins packets (issue #10 target:
 * ≤ 3 redacted lines per 10,000). Corpora are files every clone has: package
 * sources, tests and READMEs in node_modules and this repository's own docs.
 * Spec 000 denylists PII (emails, private IP addresses); those redactions are
 * by design and counted apart from the credential rules.
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
  'react-dom/cjs/react-dom-client.development.js',
  '@huggingface/transformers/src/pipelines.js',
  '@huggingface/transformers/src/tokenization_utils.js',
  '@modelcontextprotocol/sdk/dist/esm/server/mcp.js',
  '@modelcontextprotocol/sdk/dist/esm/client/auth.js',
  '@modelcontextprotocol/sdk/dist/esm/server/auth/handlers/token.js',
  'htmlparser2/src/Parser.ts',
  'better-sqlite3/lib/database.js',
];

// Test suites: fixtures of passwords, URLs, emails and IPs on purpose (a validator's tests).
const TEST_FILES = ['zod/src/v4/classic/tests/string.test.ts', 'zod/src/v4/classic/tests/object.test.ts'];

const DOC_FILES = [
  'zod/README.md',
  'zustand/README.md',
  're2/README.md',
  'gpt-tokenizer/README.md',
  'ignore/README.md',
  '@huggingface/transformers/README.md',
  'unpdf/README.md',
  'better-sqlite3/README.md',
  '@modelcontextprotocol/sdk/README.md',
  'htmlparser2/README.md',
  'jsonc-parser/README.md',
];

/** Spec 000 PII types: redacted by design, not credential false positives. */
const PII = new Set(['email', 'private_ip']);

// Prose this repository ships (no test may read outside the clone): the README and the docs/ it links.
const DOCS = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
const PROSE_FILES = ['README.md', ...DOCS, 'src/main/core/embed/README.md', 'resources/protocol/ao-v1.md', 'resources/protocol/layered-v1-system.md', 'resources/models/README.md'];

interface Rate {
  lines: number;
  redacted: number;
  rate: number;
  /** Redactions by credential rules (everything but spec-000 PII), per 10,000 non-blank lines. */
  credentialPer10k: number;
  pii: number;
  byRule: Record<string, number>;
  samples: string[];
}

function measure(name: string, texts: Array<{ source: string; text: string }>): Rate {
  const redactor = createRedactor();
  let lines = 0;
  let redacted = 0;
  let pii = 0;
  const byRule: Record<string, number> = {};
  const samples: string[] = [];
  const started = performance.now();
  for (const { source, text } of texts) {
    const original = text.split('\n');
    const { redactions } = redactor.redactText(text, { source, section: 'TEST' });
    lines += original.filter((l) => l.trim().length > 0).length;
    redacted += redactions.length;
    for (const e of redactions) {
      if (PII.has(e.type)) pii++;
      byRule[e.pattern] = (byRule[e.pattern] ?? 0) + 1;
      samples.push(`${e.pattern}\t${source}:${e.line}\t${original[e.line - 1].trim().slice(0, 160)}`);
    }
  }
  const ms = performance.now() - started;
  const rate = redacted / lines;
  const credentialPer10k = ((redacted - pii) / lines) * 10_000;
  console.log(
    `[false-positive] ${name}: ${redacted}/${lines} non-blank lines redacted = ${(rate * 10_000).toFixed(2)} per 10,000 ` +
      `(credential rules ${credentialPer10k.toFixed(2)}, spec PII ${((pii / lines) * 10_000).toFixed(2)}; ${((ms * 1000) / lines).toFixed(1)} µs/line)`,
    byRule,
  );
  if (process.env.REDACT_FP_SAMPLES) console.log(samples.join('\n'));
  return { lines, redacted, rate, credentialPer10k, pii, byRule, samples };
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
    expect(r.lines).toBeGreaterThan(40_000);
    // Measured 1 / 53,774 lines = 0.19 per 10,000 (a base64 data line; was 78 / 18,580 = 42 per 10,000 before
    // issue #10 on the first 12 of these files); the target is ≤ 3 per 10,000.
    expect(r.credentialPer10k).toBeLessThanOrEqual(1);
    expect(r.rate).toBeLessThanOrEqual(3 / 10_000);
  });

  it('tests with fixtures (zod string and object tests)', () => {
    const r = measure('tests', readAll(TEST_FILES));
    expect(r.lines).toBeGreaterThan(2_000);
    // Measured: credential rules 4 lines (a URL with a fixture password, a random key, base64 vectors) = 19 per 10,000 on a
    // validator's own test-vector file; the emails and private IPs it validates are spec PII.
    expect(r.credentialPer10k).toBeLessThanOrEqual(25);
  });

  it("prose (this repository's documentation)", () => {
    const r = measure('prose', prose());
    expect(r.lines).toBeGreaterThan(300);
    // Measured 0 / 433 (was 5 = 1.15%).
    expect(r.redacted).toBe(0);
  });

  it('markdown docs (package READMEs)', () => {
    const r = measure('markdown', readAll(DOC_FILES));
    expect(r.lines).toBeGreaterThan(2_000);
    // Measured 0 / 3,035 (was 14 / 2,387 = 0.59% on the first 8).
    expect(r.rate).toBeLessThanOrEqual(3 / 10_000);
  });
});
