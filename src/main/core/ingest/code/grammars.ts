import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';

/** Languages with a symbol chunker; everything else keeps the line chunker. Keys are FileKind.language values (tsx by extension). */
export type CodeLanguage = 'javascript' | 'typescript' | 'tsx' | 'python' | 'go' | 'rust' | 'java';

const WASM_NAME: Record<CodeLanguage, string> = {
  javascript: 'javascript', typescript: 'typescript', tsx: 'tsx', python: 'python', go: 'go', rust: 'rust', java: 'java',
};

export function isCodeLanguage(lang: string | null | undefined): lang is CodeLanguage {
  return lang != null && Object.hasOwn(WASM_NAME, lang);
}

// Not named `require`: the bundled main process would see its own require shadowed (see desktop-smoke.test.ts).
const requireWasm = createRequire(import.meta.url);
let init: Promise<void> | null = null;
const languages = new Map<CodeLanguage, Promise<Language>>();
const parsers = new Map<CodeLanguage, Parser>();

/**
 * One parser per language, each grammar compiled once per process (loading a grammar costs 5–900 ms; parsing a
 * file takes about a millisecond).
 */
export async function parserFor(lang: CodeLanguage): Promise<Parser> {
  const cached = parsers.get(lang);
  if (cached) return cached;
  init ??= Parser.init();
  await init;
  let language = languages.get(lang);
  if (!language) {
    const path = requireWasm.resolve(`tree-sitter-wasms/out/tree-sitter-${WASM_NAME[lang]}.wasm`);
    language = Language.load(upgradeDylink(new Uint8Array(readFileSync(path))));
    languages.set(lang, language);
  }
  const parser = new Parser();
  parser.setLanguage(await language);
  parsers.set(lang, parser);
  return parser;
}

/**
 * tree-sitter-wasms 0.1.13 ships grammars built by tree-sitter-cli 0.20 (emscripten's legacy `dylink` custom
 * section); web-tree-sitter ≥ 0.25 only reads the `dylink.0` section (tree-sitter issue #5171). The two carry the
 * same facts (memory size/alignment, table size/alignment, needed libraries), so the section is rewritten in
 * the new layout and the rest of the module is kept byte for byte. A module already in the new layout is
 * returned as is.
 */
export function upgradeDylink(bin: Uint8Array): Uint8Array {
  // Magic + version (8 bytes), then the dylink custom section must come first (id 0).
  if (bin.length < 10 || bin[8] !== 0) return bin;
  let [size, p] = readLeb(bin, 9);
  const end = p + size;
  let nameLen: number;
  [nameLen, p] = readLeb(bin, p);
  const name = new TextDecoder().decode(bin.subarray(p, p + nameLen));
  if (name !== 'dylink') return bin;
  p += nameLen;
  const memInfo: number[] = [];
  for (let i = 0; i < 4; i++) {
    let v: number;
    [v, p] = readLeb(bin, p);
    memInfo.push(...leb(v));
  }
  let needed: number;
  [needed, p] = readLeb(bin, p);
  const neededBytes = bin.subarray(p, end);
  const sectionName = [...new TextEncoder().encode('dylink.0')];
  // Subsection 1 = WASM_DYLINK_MEM_INFO, 2 = WASM_DYLINK_NEEDED (count, then length-prefixed names as before).
  const body = [sectionName.length, ...sectionName, 1, ...leb(memInfo.length), ...memInfo];
  if (needed > 0) {
    const list = [...leb(needed), ...neededBytes];
    body.push(2, ...leb(list.length), ...list);
  }
  const section = [0, ...leb(body.length), ...body];
  const out = new Uint8Array(8 + section.length + (bin.length - end));
  out.set(bin.subarray(0, 8));
  out.set(section, 8);
  out.set(bin.subarray(end), 8 + section.length);
  return out;
}

function readLeb(b: Uint8Array, o: number): [number, number] {
  let r = 0;
  let shift = 0;
  let x: number;
  do {
    x = b[o++]!;
    r += (x & 0x7f) * 2 ** shift;
    shift += 7;
  } while (x & 0x80);
  return [r, o];
}

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let x = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) x |= 0x80;
    out.push(x);
  } while (n > 0);
  return out;
}
