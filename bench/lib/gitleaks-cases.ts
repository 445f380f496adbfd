// The true and false positives of gitleaks' rule definitions (cmd/generate/config/rules/*.go), read from a checkout:
// the `tps` / `fps` slices each rule validates itself against. The Go that builds them is a small subset (string
// literals, `+`, `append`, `[]string{…}`, `map[string]string{…}`, `fmt.Sprintf`, utils.GenerateSampleSecret(s),
// secrets.NewSecret / newPlausibleSecret over a regex, utils.Hex / AlphaNumeric / … sizes), evaluated here with a
// seeded generator; an expression outside it drops that one element (counted in `skipped`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface GitleaksCase {
  rule: string;
  text: string;
  positive: boolean;
}

type Tok = { k: 'str' | 'id' | 'num' | 'p'; v: string };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) { i++; continue; }
    if (src.startsWith('//', i)) { i = src.indexOf('\n', i); if (i < 0) break; continue; }
    if (src.startsWith('/*', i)) { i = src.indexOf('*/', i) + 2; continue; }
    if (c === '`') { const j = src.indexOf('`', i + 1); out.push({ k: 'str', v: src.slice(i + 1, j) }); i = j + 1; continue; }
    if (c === '"') {
      let j = i + 1;
      let s = '';
      while (src[j] !== '"') {
        if (src[j] === '\\') {
          const e = src[j + 1]!;
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
          j += 2;
        } else s += src[j++];
      }
      out.push({ k: 'str', v: s });
      i = j + 1;
      continue;
    }
    const id = /^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*/.exec(src.slice(i, i + 200));
    if (id) { out.push({ k: 'id', v: id[0] }); i += id[0].length; continue; }
    const num = /^\d+/.exec(src.slice(i, i + 20));
    if (num) { out.push({ k: 'num', v: num[0] }); i += num[0].length; continue; }
    const p = ['...', ':=', '[]'].find((x) => src.startsWith(x, i)) ?? c;
    out.push({ k: 'p', v: p });
    i += p.length;
  }
  return out;
}

const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';

/** A seeded generator of strings matching a simple regex (classes, literals, groups with `|`, `{n}`, `{n,m}`, `?`). */
function makeGen(seed: number) {
  let s = seed >>> 0;
  const rnd = (n: number) => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s % n;
  };
  function gen(re: string): string {
    let i = 0;
    const alt = (): string[][] => {
      const branches: string[][] = [[]];
      while (i < re.length && re[i] !== ')') {
        if (re[i] === '|') { branches.push([]); i++; continue; }
        branches.at(-1)!.push(...atom());
      }
      return branches;
    };
    const atom = (): string[] => {
      let choices: string[];
      let grouped: string[][] | null = null;
      const c = re[i]!;
      if (c === '[') {
        i++;
        choices = [];
        while (re[i] !== ']') {
          let a = re[i]!;
          if (a === '\\') {
            a = re[++i]!;
            const cls = a === 'w' ? WORD : a === 'd' ? '0123456789' : a === 's' ? ' ' : null;
            if (cls) {
              choices.push(...cls);
              i++;
              continue;
            }
          }
          if (re[i + 1] === '-' && re[i + 2] !== ']') {
            let b = re[i + 2]!;
            if (b === '\\') { b = re[i + 3]!; i++; }
            for (let x = a.charCodeAt(0); x <= b.charCodeAt(0); x++) choices.push(String.fromCharCode(x));
            i += 3;
          } else { choices.push(a); i++; }
        }
        i++;
      } else if (c === '(') {
        i++;
        if (re.startsWith('?:', i)) i += 2;
        else if (re[i] === '?') throw new Error('flags');
        grouped = alt();
        i++;
        choices = [];
      } else if (c === '\\') {
        const e = re[i + 1]!;
        i += 2;
        choices = e === 'd' ? [...'0123456789'] : e === 'w' ? [...WORD] : [e];
      } else if ('^$'.includes(c)) {
        i++;
        return [];
      } else {
        i++;
        choices = [c];
      }
      let min = 1;
      let max = 1;
      const q = /^\{(\d+)(?:,(\d*))?\}|^\?|^\*|^\+/.exec(re.slice(i));
      if (q) {
        i += q[0].length;
        if (q[0] === '?') [min, max] = [0, 1];
        else if (q[0] === '*') [min, max] = [0, 3];
        else if (q[0] === '+') [min, max] = [1, 4];
        else { min = Number(q[1]); max = q[2] === undefined ? min : q[2] === '' ? min + 4 : Number(q[2]); }
      }
      const n = min + rnd(max - min + 1);
      const out: string[] = [];
      for (let k = 0; k < n; k++) {
        if (grouped) out.push(...grouped[rnd(grouped.length)]!);
        else out.push(choices[rnd(choices.length)]!);
      }
      return out;
    };
    const branches = alt();
    return branches[rnd(branches.length)]!.join('');
  }
  return gen;
}

const SIZE_FNS: Record<string, (n: string) => string> = {
  'utils.Numeric': (n) => `[0-9]{${n}}`,
  'utils.Hex': (n) => `[a-f0-9]{${n}}`,
  'utils.AlphaNumeric': (n) => `[a-z0-9]{${n}}`,
  'utils.AlphaNumericExtendedShort': (n) => `[a-z0-9_-]{${n}}`,
  'utils.AlphaNumericExtended': (n) => `[a-z0-9=_\\-]{${n}}`,
  'utils.AlphaNumericExtendedLong': (n) => `[a-z0-9\\/=_\\+\\-]{${n}}`,
};

// gitleaks' GenerateSampleSecrets templates (config/utils/generate.go), the ones not marked TODO there.
const SAMPLES = [
  '{i}Token="{s}"', '{i}Token = "{s}"', '{i}Token={s}', '{i}Token = {s}', '{\n    "{i}_token": "{s}"\n}',
  '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}', '<{i}Token>\n    {s}\n</{i}Token>', '{i}_token: {s}',
  "{i}_token: '{s}'", '{i}_token: "{s}"', 'string {i}Token = "{s}";', 'var {i}Token string = "{s}"', '{i}Token := "{s}"',
  '{i}Token := `{s}`', 'String {i}Token = "{s}";', 'var {i}Token = "{s}"', '${i}Token .= "{s}"', "{i}Token = '{s}'",
  '{i}Token = "{s}"', 'System.setProperty("{I}_TOKEN", "{s}")', '  "{i}Token" => "{s}"', '{i}_TOKEN = "{s}"',
  '{i}_TOKEN := "{s}"', '{i}_TOKEN ::= "{s}"', '{i}_TOKEN :::= "{s}"', '{i}_TOKEN ?= "{s}"',
];
const sample = (id: string, s: string, t: string) => t.replaceAll('{i}', id).replaceAll('{I}', id.toUpperCase()).replaceAll('{s}', s);

type Val = string | string[];

function evaluator(toks: Tok[], gen: (re: string) => string, vars: Record<string, string[]>) {
  let i = 0;
  const peek = () => toks[i];
  const eat = (v: string) => {
    if (toks[i]?.v !== v) throw new Error(`expected ${v} at ${toks[i]?.v}`);
    i++;
  };
  function args(): Array<{ v: Val; spread: boolean }> {
    eat('(');
    const out: Array<{ v: Val; spread: boolean }> = [];
    while (peek()?.v !== ')') {
      const v = expr();
      let spread = false;
      if (peek()?.v === '...') { i++; spread = true; }
      out.push({ v, spread });
      if (peek()?.v === ',') i++;
    }
    eat(')');
    return out;
  }
  function list(): string[] {
    eat('{');
    const out: string[] = [];
    while (peek()?.v !== '}') {
      const start = i;
      try {
        const v = expr();
        if (peek()?.v === ':') { i++; out.push(str(expr())); } // map value
        else out.push(str(v));
      } catch (err) {
        skipped++;
        if (process.env.GITLEAKS_CASES_DEBUG) console.error(`element: ${err instanceof Error ? err.message : String(err)}`);
        i = start;
        skipElement();
      }
      if (peek()?.v === ',') i++;
    }
    eat('}');
    return out;
  }
  function skipElement() {
    let depth = 0;
    while (i < toks.length) {
      const v = toks[i]!.v;
      if (depth === 0 && (v === ',' || v === '}' || v === ')')) return;
      if ('({['.includes(v)) depth++;
      if (')}]'.includes(v)) depth--;
      i++;
    }
  }
  const str = (v: Val): string => {
    if (typeof v !== 'string') throw new Error('not a string');
    return v;
  };
  function primary(): Val {
    const t = toks[i++]!;
    if (t.k === 'str') return t.v;
    if (t.v === '[]') { i++; return list(); } // []string{…}
    if (t.v === 'map') { while (peek()?.v !== '{') i++; return list(); }
    if (t.k === 'id' && peek()?.v !== '(') {
      if (vars[t.v]) return vars[t.v]!;
      throw new Error(`unknown variable ${t.v}`);
    }
    if (t.k === 'id') {
      const fn = t.v;
      const a = args();
      if (SIZE_FNS[fn]) return SIZE_FNS[fn]!(str(a[0]!.v));
      if (fn === 'utils.Hex8_4_4_4_12') return '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
      if (fn === 'secrets.NewSecret' || fn === 'newPlausibleSecret') {
        const re = str(a[0]!.v);
        if (fn === 'secrets.NewSecret') return gen(re);
        for (let k = 0; k < 50; k++) {
          const s = gen(re);
          if (/[1-9]/.test(s)) return s;
        }
        return gen(re);
      }
      if (fn === 'utils.GenerateSampleSecrets') return SAMPLES.map((tpl) => sample(str(a[0]!.v), str(a[1]!.v), tpl));
      if (fn === 'utils.GenerateSampleSecret') return sample(str(a[0]!.v), str(a[1]!.v), '{i}_api_token = "{s}"');
      if (fn === 'fmt.Sprintf') {
        let k = 1;
        return str(a[0]!.v).replace(/%[sdv]/g, () => str(a[k++]!.v));
      }
      if (fn === 'append') {
        const out: string[] = [];
        for (const x of a) {
          if (Array.isArray(x.v)) out.push(...x.v);
          else out.push(x.v);
        }
        return out;
      }
      if (fn === 'strings.Repeat') return str(a[0]!.v).repeat(Number(a[1]!.v));
      throw new Error(`unknown ${fn}`);
    }
    if (t.k === 'num') return t.v;
    throw new Error(`unexpected ${t.v}`);
  }
  function expr(): Val {
    let v = primary();
    while (peek()?.v === '+') {
      i++;
      v = str(v) + str(primary());
    }
    return v;
  }
  let skipped = 0;
  return {
    at: (k: number) => { i = k; },
    expr,
    get pos() { return i; },
    get skipped() { return skipped; },
    addSkip() { skipped++; },
  };
}

export function readGitleaksCases(repo: string, seed = 1): { cases: GitleaksCase[]; skipped: number } {
  const dir = join(repo, 'cmd/generate/config/rules');
  const gen = makeGen(seed);
  const cases: GitleaksCase[] = [];
  let skipped = 0;
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.go') || f.endsWith('_test.go')) continue;
    const toks = tokenize(readFileSync(join(dir, f), 'utf8'));
    const lists: Record<string, string[]> = {};
    const ev = evaluator(toks, gen, lists);
    let rule = f.replace(/\.go$/, '');
    for (let k = 0; k < toks.length; k++) {
      const t = toks[k]!;
      if (t.k === 'id' && t.v === 'RuleID' && toks[k + 2]?.k === 'str') rule = toks[k + 2]!.v;
      if (t.k !== 'id' || !/^(?:tps|fps)$/.test(t.v) || (toks[k + 1]?.v !== ':=' && toks[k + 1]?.v !== '=')) continue;
      ev.at(k + 2);
      let v: Val;
      try {
        v = ev.expr();
      } catch (err) {
        ev.addSkip();
        if (process.env.GITLEAKS_CASES_DEBUG) console.error(`${f}: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      const arr = Array.isArray(v) ? v : [v];
      // `tps = append(tps, …)` already holds the earlier elements.
      const prev = toks[k + 1]!.v === ':=' ? [] : (lists[t.v] ?? []);
      const fresh = toks[k + 1]!.v === '=' && toks[k + 2]?.v === 'append' && toks[k + 4]?.v === t.v ? arr.slice(prev.length) : arr;
      lists[t.v] = [...prev, ...fresh];
      for (const text of fresh) cases.push({ rule, text, positive: t.v === 'tps' });
    }
    skipped += ev.skipped;
  }
  return { cases, skipped };
}
