// Does a value read as words (an identifier, a phrase) rather than random characters? Letter pairs decide: the
// key-context rules (value-check.ts) keep a wordy value, a credential is rarely made of common pairs.

// The letter pairs that make up 95% of the pairs in English technical prose (measured on the READMEs of this
// project's dependencies): words and identifiers are made of them, random strings mostly are not (≈ 37%).
const COMMON_BIGRAMS = new Set(
  (
    'abacadagaiakalamanaparasatauavaybabebibjblbobrbubycacechcickclcocrcsctcudadddedidldodrdsdueaebecedeeefegeiel' +
    'emenepeqeresetevewexeyfafefffiflfofrfugeghgiglgngogrgsguhahehihohrhthuiaibicidieifigiliminioipirisitivizjajejs' +
    'kakekilaldlelilllolsltlulymambmemimlmmmompnancndnenfngninlnnnonpnsntnunvnyoaobocodofogokolomonoooporosotouovow' +
    'papepiplpmpoppprpsptpuqurarcrdrergrirkrlrmrnrorrrsrtrurvrysascseshsisospssstsusvsytatctethtitmtotptrtstttutyua' +
    'ubucueufuguiulumunupurusutvavevgviwawewhwiwnwowrwswwxaxpxtynyoypze'
  ).match(/../g) ?? [],
);

/**
 * Splits a value into word-ish segments: runs of letters split at camelCase
 * humps (`getItemKey` → get, Item, Key; `HTMLParser` → HTML, Parser), runs of
 * digits, and separators dropped.
 */
export function segments(value: string): string[] {
  return value.match(/[A-Z]{2,}(?=[A-Z][a-z]|[^A-Za-z]|$)|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g) ?? [];
}

/** Share of adjacent letter pairs within the parts that are common English pairs. */
function commonShare(parts: string[]): number {
  let pairs = 0;
  let common = 0;
  for (const p of parts) {
    const lower = p.toLowerCase();
    for (let i = 0; i + 1 < lower.length; i++) {
      pairs++;
      if (COMMON_BIGRAMS.has(lower.slice(i, i + 2))) common++;
    }
  }
  return pairs === 0 ? 0 : common / pairs;
}

/**
 * True when the value reads as words or identifiers (`getItemKey`,
 * `TOKEN_TYPES.Identifier`, `my-app-session`, `onnx/model_quantized.onnx`)
 * rather than random characters: its letter segments are long enough and
 * made of common English letter pairs, with few single letters and digits.
 */
export function isWordy(value: string): boolean {
  // A camelCase / PascalCase / CONSTANT name of whole words (`UnknownKeysParam`, `TOKEN_TYPES.Identifier`): random
  // mixed case switches case every couple of characters, so it never splits into segments of three letters or more.
  if (/^[A-Za-z_$.]+$/.test(value)) {
    const parts = value.match(/[A-Z]{2,}(?=[A-Z][a-z]|[^A-Za-z]|$)|[A-Z]?[a-z]+|[A-Z]+/g) ?? [];
    if (parts.length >= 2 && parts.every((p) => p.length >= 3) && parts.some((p) => /[a-z]{3}/.test(p)) && commonShare(parts) >= 0.7) return true;
  }
  const segs = segments(value);
  if (segs.length === 0) return true;
  let alnum = 0;
  let digits = 0;
  let singles = 0;
  let letters = 0;
  let letterSegs = 0;
  let pairs = 0;
  let common = 0;
  for (const seg of segs) {
    alnum += seg.length;
    if (seg.charCodeAt(0) <= 57) {
      digits += seg.length;
      continue;
    }
    if (seg.length === 1) {
      singles++;
      continue;
    }
    // Short all-caps acronyms (`URL`, `API`, `HTTP`) are neutral.
    if (seg.length <= 4 && seg === seg.toUpperCase()) continue;
    letters += seg.length;
    letterSegs++;
    const lower = seg.toLowerCase();
    for (let i = 0; i + 1 < lower.length; i++) {
      pairs++;
      if (COMMON_BIGRAMS.has(lower.slice(i, i + 2))) common++;
    }
  }
  if (digits / alnum > 0.3 || singles / alnum > 0.15) return false;
  if (letterSegs === 0) return singles === 0 && digits === 0;
  // Random mixed case breaks into many short segments; words and identifiers do not.
  if (letters / letterSegs < 3 || alnum / segs.length < 3.2) return false;
  return pairs > 0 && common / pairs >= 0.82;
}
