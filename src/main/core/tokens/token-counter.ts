import { countTokens, estimateTokens } from './count-tokens.ts';
import type { TokenEncoding } from './encodings.ts';

export interface TokenCount {
  chars: number;
  /** ceil(chars / 4), the spec's budget unit. */
  estimate: number;
  /** Exact BPE count. */
  tokens: number;
  encoding: TokenEncoding;
}

export interface TokenCounter {
  readonly encoding: TokenEncoding;
  count(text: string): number;
  estimate(text: string): number;
  /** Both figures, as shown per section next to each other. */
  measure(text: string): TokenCount;
}

export interface TokenCounterDeps {
  /** Defaults to gpt-tokenizer; injectable so callers can test budgets without BPE tables. */
  count?: (text: string, encoding: TokenEncoding) => number;
  /** Entries kept in the repeat cache (default 64; 0 disables it). */
  cacheSize?: number;
}

// Below this, BPE is about as fast as hashing the key; above the max, holding the key costs too much memory.
const CACHE_MIN_CHARS = 1_024;
const CACHE_MAX_CHARS = 256 * 1_024;

/**
 * A counter for one encoding. Sections are re-counted while a packet is
 * trimmed and across packets (PROTOCOL, GOALS barely change), so large texts
 * are cached by content: measured ~8-15 ms to count a fresh 28K-char section
 * vs ~0.005 ms for a Map lookup on an equal string.
 */
export function createTokenCounter(encoding: TokenEncoding = 'o200k_base', deps: TokenCounterDeps = {}): TokenCounter {
  const countRaw = deps.count ?? countTokens;
  const cacheSize = deps.cacheSize ?? 64;
  const cache = new Map<string, number>();

  const count = (text: string): number => {
    if (cacheSize <= 0 || text.length < CACHE_MIN_CHARS || text.length > CACHE_MAX_CHARS) return countRaw(text, encoding);
    const hit = cache.get(text);
    if (hit !== undefined) {
      // Re-insert so Map order doubles as least-recently-used order.
      cache.delete(text);
      cache.set(text, hit);
      return hit;
    }
    const n = countRaw(text, encoding);
    cache.set(text, n);
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    return n;
  };

  return {
    encoding,
    count,
    estimate: estimateTokens,
    measure: (text) => ({ chars: text.length, estimate: estimateTokens(text), tokens: count(text), encoding }),
  };
}
