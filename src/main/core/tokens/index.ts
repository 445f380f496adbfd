export { countTokens, estimateTokens, warmTokenizer, CHARS_PER_TOKEN } from './count-tokens.ts';
export { createTokenCounter } from './token-counter.ts';
export type { TokenCount, TokenCounter, TokenCounterDeps } from './token-counter.ts';
export { TOKEN_ENCODINGS } from './encodings.ts';
export type { TokenEncoding } from './encodings.ts';
