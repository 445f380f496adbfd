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
}

export function createTokenCounter(encoding: TokenEncoding = 'o200k_base', deps: TokenCounterDeps = {}): TokenCounter {
  const count = deps.count ?? countTokens;
  return {
    encoding,
    count: (text) => count(text, encoding),
    estimate: estimateTokens,
    measure: (text) => ({ chars: text.length, estimate: estimateTokens(text), tokens: count(text, encoding), encoding }),
  };
}
