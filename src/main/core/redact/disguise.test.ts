import { describe, expect, it } from 'vitest';
import { alphabets, buildLeakCorpus, createRng, fakePem } from './fake-secrets.testkit.ts';
import { base64Text, base64View, canonicalViews } from './normalize.ts';
import { createRedactor } from './redactor.ts';

/*
 * Issue #10 items 1 and 2: a secret is caught whatever its spelling (every view of the line is judged) and
 * wherever its value runs (every line holding part of it is redacted). Fake values are built at run time.
 */

const r = createRng(1010);
const a = alphabets(r);
const redactor = createRedactor();
const ctx = { source: 'disguise.test', section: 'TEST' };
const run = (text: string) => redactor.redactText(text, ctx).text.split('\n');
const REDACTED = /^\[REDACTED: [a-z0-9_]+\]\r?$/;

const awsKey = () => 'AKIA' + a.upnum(16);
const ghToken = () => 'ghp_' + a.b62(36);
const password = () => 'Pq7' + a.b62(6) + '!x' + a.b62(4);

/** Full-width forms of ASCII letters and digits (U+FF01…U+FF5E). */
const fullWidth = (s: string) => [...s].map((c) => (c > ' ' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');
const jsonEscapeAll = (s: string) => [...s].map((c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')).join('');

describe('normalize, then match (item 1)', () => {
  const cases: Array<[string, () => { line: string; secret: string }]> = [
    ['full-width letters', () => { const k = awsKey(); return { line: `key id ${fullWidth(k)} in the vault`, secret: fullWidth(k) }; }],
    ['full-width key name and value', () => { const p = password(); return { line: fullWidth(`DB_PASSWORD=${p}`), secret: fullWidth(p) }; }],
    ['zero-width space inside a token', () => { const t = ghToken(); const d = t.slice(0, 10) + '\u200b' + t.slice(10); return { line: `token ${d}`, secret: d }; }],
    ['zero-width joiner and word joiner', () => { const t = ghToken(); const d = t.slice(0, 4) + '\u200d' + t.slice(4, 20) + '\u2060' + t.slice(20); return { line: d, secret: d }; }],
    ['soft hyphen inside a token', () => { const t = awsKey(); const d = t.slice(0, 8) + '\u00ad' + t.slice(8); return { line: `aws ${d}`, secret: d }; }],
    ['BOM and bidi controls inside a token', () => { const t = ghToken(); const d = '\ufeff' + t.slice(0, 6) + '\u202e' + t.slice(6); return { line: d, secret: d }; }],
    ['no-break spaces around =', () => { const p = password(); return { line: `DB_PASSWORD\u00a0=\u00a0${p}`, secret: p }; }],
    ['narrow no-break and ideographic spaces', () => { const p = password(); return { line: `password\u202f:\u3000${p}`, secret: p }; }],
    ['JSON \\u escapes of the whole token', () => { const t = ghToken(); return { line: `{"note": "${jsonEscapeAll(t)}"}`, secret: jsonEscapeAll(t) }; }],
    ['JSON \\u escapes of the key name', () => { const p = password(); return { line: `{"\\u0070assword": "${p}"}`, secret: p }; }],
    ['escaped slashes in a connection string', () => { const p = password(); return { line: `{"url": "postgres:\\/\\/app:${p}@db.internal:5432\\/app"}`, secret: p }; }],
    ['\\n inside a quoted value (YAML in a JSON string)', () => { const p = password(); return { line: `{"config": "db:\\n  password: ${p}\\n  pool: 5"}`, secret: p }; }],
    ['JS \\x and \\u{…} escapes', () => { const t = awsKey(); return { line: `const id = "\\x41\\u{4B}${t.slice(2)}";`, secret: t.slice(2) }; }],
    ['HTML character references', () => { const t = awsKey(); const enc = [...t].map((c) => `&#${c.charCodeAt(0)};`).join(''); return { line: `<td>${enc}</td>`, secret: enc }; }],
    ['hex character references in a key name', () => { const p = password(); return { line: `pass&#x77;ord = ${p}`, secret: p }; }],
    ['percent-encoded token in a URL', () => { const t = 'xoxb-' + a.digits(11) + '-' + a.b62(24); return { line: `https://x.example/cb?t=${encodeURIComponent(t).replace(/-/g, '%2D')}`, secret: t.slice(5, 16) }; }],
    ['Cyrillic and Greek look-alike letters', () => { const k = awsKey(); const d = '\u0410' + k.slice(1, 2) + '\u0399' + k.slice(3); return { line: `key ${d}`, secret: d }; }],
    ['math bold letters (NFKC)', () => { const k = awsKey(); const bold = [...k].map((c) => (c >= 'A' && c <= 'Z' ? String.fromCodePoint(0x1d400 + c.charCodeAt(0) - 65) : c >= '0' && c <= '9' ? String.fromCodePoint(0x1d7ce + c.charCodeAt(0) - 48) : c)).join(''); return { line: `id: ${bold}`, secret: bold }; }],
  ];
  it.each(cases)('%s', (_name, make) => {
    for (let i = 0; i < 5; i++) {
      const { line, secret } = make();
      const out = run(`before\n${line}\nafter`);
      expect(out).toEqual(['before', expect.stringMatching(REDACTED), 'after']);
      expect(out.join('\n')).not.toContain(secret);
    }
  });

  it('keeps the original line when no view holds a secret', () => {
    const lines = ['Café déjà vu — “quoted” text', 'path\\/to\\/file and \\n newline', 'A&amp;B &lt;tag&gt;', 'discount 50%25 off', 'ｆｕｌｌ ｗｉｄｔｈ prose'];
    expect(run(lines.join('\n'))).toEqual(lines);
  });

  it('gives views only where they differ from the line', () => {
    expect(canonicalViews('plain ascii line')).toEqual([]);
    expect(canonicalViews('ＡＢＣ')).toEqual(['ABC']);
    expect(canonicalViews('a\u200bb\u00a0c')).toEqual(['ab c']);
    expect(canonicalViews('"\\u0041\\/x"')).toEqual(['"A/x"']);
  });
});

describe('base64 of a secret, judged decoded', () => {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
  // Secrets of several lengths, so the encodings end with no, one and two padding characters.
  const secrets = () => [awsKey(), ghToken(), 'sk_live_' + a.b62(24), 'xoxb-' + a.digits(11) + '-' + a.digits(12) + '-' + a.b62(24), `DB_PASSWORD=${password()}`, 'glpat-' + a.b62(20)];
  const contexts: Array<[string, (enc: string) => string]> = [
    ['a Kubernetes Secret data value', (enc) => `  data-blob: ${enc}`],
    ['a quoted string in code', (enc) => `const blob = "${enc}";`],
    ['a JSON value', (enc) => `{"payload": "${enc}", "v": 2}`],
    ['a bare line', (enc) => enc],
  ];
  it.each(contexts)('%s (standard and URL-safe alphabets, every padding)', (_name, wrap) => {
    for (let i = 0; i < 3; i++) {
      for (const secret of secrets()) {
        for (const enc of [b64(secret), b64url(secret)]) {
          const out = run(`before\n${wrap(enc)}\nafter`);
          expect(out, `${secret} as ${enc}`).toEqual(['before', expect.stringMatching(REDACTED), 'after']);
          expect(out.join('\n')).not.toContain(enc);
        }
      }
    }
  });

  it('leaves base64 of ordinary text and binary, long identifiers, hashes and integrity strings alone', () => {
    const lines = [
      `const greeting = "${b64('Hello there, this is an ordinary sentence.')}";`,
      `  checksum: ${Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 73 + 11) % 256)).toString('base64')}`,
      'const createBm25RetrieverWithSignals = makeRetrieverFactoryForTests(defaultOptions);',
      'export function DefaultIncrementalLoaderConfiguration() {}',
      '"integrity": "sha512-Z5Dl7kVbQJ2iWyK9ZpKjm3y0DkJd3Jf6cKb5hJ9N8i0b0FQ6gW3Vn1qP4xY7zR2sT5uV8wX1yZ3aB6cD9eF2gH==",',
      'sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    ];
    expect(run(lines.join('\n'))).toEqual(lines);
  });

  it('decodes only runs that are text', () => {
    expect(base64Text(b64('AKIA' + 'QW7R2T9Y4U6I8O0P'))).toBe('AKIAQW7R2T9Y4U6I8O0P');
    expect(base64Text(b64url('ghp_' + 'x'.repeat(36)))).toBe('ghp_' + 'x'.repeat(36));
    expect(base64Text('createBm25Retriever')).toBeNull();
    expect(base64Text(b64('short'))).toBeNull();
    expect(base64View(`token ${b64('AKIA' + 'QW7R2T9Y4U6I8O0P')} here`)).toBe('token AKIAQW7R2T9Y4U6I8O0P here');
  });
});

describe('multi-line values (item 2)', () => {
  const p = () => password();

  it('YAML | and > block scalars: every value line, not the next key', () => {
    for (const style of ['|', '>', '|-', '>+', '|2']) {
      const v1 = p();
      const v2 = p();
      const out = run(['db:', `  password: ${style}`, `    ${v1}`, '', `    ${v2}`, '  pool: 5'].join('\n'));
      expect(out[0]).toBe('db:');
      expect(out[1]).toBe(`  password: ${style}`);
      expect(out[2]).toMatch(REDACTED);
      expect(out[4]).toMatch(REDACTED);
      expect(out[5]).toBe('  pool: 5');
    }
  });

  it('YAML value on the next line and plain continuation', () => {
    const v1 = p();
    const v2 = p();
    const out = run(['secrets:', '  api_token:', `    ${v1}`, `    ${v2}`, '  region: eu-west-1'].join('\n'));
    expect(out.slice(2, 4).every((l) => REDACTED.test(l))).toBe(true);
    expect(out[4]).toBe('  region: eu-west-1');
  });

  it('a nested mapping under a password key is structure, not a value', () => {
    const text = ['password:', '  minLength: 12', '  requireDigits: true', 'username: app'].join('\n');
    expect(run(text)).toEqual(text.split('\n'));
  });

  it('TOML and Python triple-quoted strings', () => {
    for (const q of ['"""', "'''"]) {
      const v1 = p();
      const v2 = p();
      const out = run(['[db]', `password = ${q}${v1}`, v2, `${q}`, 'port = 5432'].join('\n'));
      expect(out.slice(1, 4).every((l) => REDACTED.test(l))).toBe(true);
      expect(out[4]).toBe('port = 5432');
    }
  });

  it('Python dict and JS object: value on the line after its key', () => {
    const v = p();
    const py = run(['CONFIG = {', '    "password":', `        "${v}",`, '    "host": "db",', '}'].join('\n'));
    expect(py[2]).toMatch(REDACTED);
    expect(py[3]).toBe('    "host": "db",');
    const v2 = a.b62(32);
    const js = run(['const opts = {', '  apiKey:', `    '${v2}',`, '  retries: 3,', '};'].join('\n'));
    expect(js[2]).toMatch(REDACTED);
    expect(js[3]).toBe('  retries: 3,');
    const v3 = p();
    const paren = run(['DB_PASSWORD = (', `    "${v3.slice(0, 6)}"`, `    "${v3.slice(6)}"`, ')', 'DEBUG = False'].join('\n'));
    expect(paren.slice(1, 3).every((l) => REDACTED.test(l))).toBe(true);
    expect(paren[4]).toBe('DEBUG = False');
  });

  it('code whose value on the next line is an expression stays', () => {
    const text = ['const tokenGenerator =', "  typeof input === 'string'", '    ? this.encode(input)', '    : this.encodeChat(input);', 'const password =', '  process.env.DB_PASSWORD;'].join('\n');
    expect(run(text)).toEqual(text.split('\n'));
  });

  it('an open quote or template literal runs to its closing quote; a trailing backslash continues', () => {
    const v = p();
    const out = run(['token: "' + v.slice(0, 5), v.slice(5) + '"', 'next: 1'].join('\n'));
    expect(out.slice(0, 2).every((l) => REDACTED.test(l))).toBe(true);
    expect(out[2]).toBe('next: 1');
    const t = run(['const secret = `', v, '`;', 'const x = 1;'].join('\n'));
    expect(t[1]).toMatch(REDACTED);
    expect(t[3]).toBe('const x = 1;');
    const sh = run([`export API_TOKEN=${a.b62(20)}\\`, `${a.b62(20)}`, 'echo done'].join('\n'));
    expect(sh.slice(0, 2).every((l) => REDACTED.test(l))).toBe(true);
    expect(sh[2]).toBe('echo done');
  });

  it('a PEM body, a GCP service-account key on one escaped line, and one split over concatenated strings', () => {
    const pem = fakePem(r, 'PRIVATE KEY');
    const yaml = run(['tls:', '  cert: |', ...pem.lines.map((l) => `    ${l}`), '  ca: none'].join('\n'));
    expect(yaml.slice(2, -1).every((l) => REDACTED.test(l))).toBe(true);
    const escaped = pem.lines.join('\\n') + '\\n';
    const sa = run(['{', '  "type": "service_account",', `  "private_key": "${escaped}",`, '  "client_id": "1234"', '}'].join('\n'));
    expect(sa[2]).toMatch(REDACTED);
    expect(sa[1]).toBe('  "type": "service_account",');
    const js = run(['const sa = {', '  private_key:', ...pem.lines.map((l, i) => `    "${l}\\n"${i < pem.lines.length - 1 ? ' +' : ','}`), '  project_id: "demo",', '};'].join('\n'));
    for (const body of pem.body) expect(js.join('\n')).not.toContain(body);
    expect(js.at(-2)).toBe('  project_id: "demo",');
  });

  it('a markdown table cell next to a key cell', () => {
    const v = p();
    const out = run(['| name | value |', '|---|---|', `| DB_PASSWORD | ${v} |`, '| region | eu-west-1 |'].join('\n'));
    expect(out[2]).toMatch(REDACTED);
    expect(out[3]).toBe('| region | eu-west-1 |');
  });

  it('a token hard-wrapped over two lines redacts both; a whole token does not spill onto the next line', () => {
    const gh = ghToken();
    const wrapped = run([`Use the CI token ${gh.slice(0, 18)}`, `${gh.slice(18)} for the release job.`, 'Nothing else.'].join('\n'));
    expect(wrapped.slice(0, 2).every((l) => REDACTED.test(l))).toBe(true);
    expect(wrapped[2]).toBe('Nothing else.');
    const whole = run([`token ${gh}`, 'footer line'].join('\n'));
    expect(whole).toEqual([expect.stringMatching(REDACTED), 'footer line']);
    const words = ['const isWithinTokenLimitWithSpecial', 'countChatCompletionTokens = 1'];
    expect(run(words.join('\n'))).toEqual(words);
  });

  it('works across CRLF line endings', () => {
    const v = p();
    const out = redactor.redactText(['db:', '  password: |', `    ${v}`, '  pool: 5'].join('\r\n'), ctx).text;
    expect(out).not.toContain(v);
    expect(out.endsWith('  pool: 5')).toBe(true);
  });
});

describe('the whole generated leak corpus, disguised (items 1 and 2 together)', () => {
  const fw = (s: string) => [...s].map((c) => (c > ' ' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');
  const zw = (s: string) => s.slice(0, 3) + '\u200b' + s.slice(3, 6) + '\u200d' + s.slice(6);
  const uesc = (s: string) => [...s].map((c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')).join('');
  const ent = (s: string) => [...s].map((c) => `&#${c.charCodeAt(0)};`).join('');
  const DISGUISES: Array<[string, (text: string, secret: string) => { text: string; secret: string }]> = [
    ['full-width value', (t, s) => ({ text: t.split(s).join(fw(s)), secret: fw(s) })],
    ['zero-width characters inside the value', (t, s) => ({ text: t.split(s).join(zw(s)), secret: zw(s) })],
    ['\\u-escaped value', (t, s) => ({ text: t.split(s).join(uesc(s)), secret: uesc(s) })],
    ['HTML character references', (t, s) => ({ text: t.split(s).join(ent(s)), secret: ent(s) })],
    ['no-break spaces around = and :', (t, s) => ({ text: t.replace(/ ?= ?/g, '\u00a0=\u00a0').replace(/: /g, ':\u00a0'), secret: s })],
    ['the whole text full-width', (t, s) => ({ text: fw(t), secret: fw(s) })],
  ];
  it.each(DISGUISES)('%s: no leak', (_name, disguise) => {
    let secrets = 0;
    const leaks: string[] = [];
    for (const c of buildLeakCorpus(4242)) {
      for (const s0 of c.secrets) {
        if (s0.length < 8) continue;
        const { text, secret } = disguise(c.text, s0);
        if (!text.includes(secret)) continue;
        secrets++;
        if (redactor.redactText(text, ctx).text.includes(secret)) leaks.push(c.name);
      }
    }
    expect(leaks.slice(0, 5)).toEqual([]);
    expect(secrets).toBeGreaterThan(1500);
  });
});
