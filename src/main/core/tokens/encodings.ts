import { createRequire } from 'node:module';

export type TokenEncoding = 'o200k_base' | 'cl100k_base';

export const TOKEN_ENCODINGS: readonly TokenEncoding[] = ['o200k_base', 'cl100k_base'];

type EncodingModule = typeof import('gpt-tokenizer/encoding/o200k_base');

// Not named `require`: a local of that name would shadow CommonJS's own in the bundled main process.
const requireEncoding = createRequire(import.meta.url);
const loaded = new Map<TokenEncoding, EncodingModule>();

/**
 * Loads a BPE table on first use. Importing both eagerly costs ~280 ms at
 * startup (measured: o200k ~200 ms, cl100k ~85 ms), paid even by commands that
 * never count tokens; require() keeps countTokens synchronous.
 */
export function loadEncoding(encoding: TokenEncoding): EncodingModule {
  let mod = loaded.get(encoding);
  if (!mod) {
    if (encoding === 'o200k_base') mod = requireEncoding('gpt-tokenizer/encoding/o200k_base') as EncodingModule;
    else if (encoding === 'cl100k_base') mod = requireEncoding('gpt-tokenizer/encoding/cl100k_base') as EncodingModule;
    else throw new Error(`Unknown token encoding "${String(encoding)}" (expected ${TOKEN_ENCODINGS.join(' or ')})`);
    loaded.set(encoding, mod);
  }
  return mod;
}
