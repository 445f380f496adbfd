import { extname } from 'node:path';
import type { CodeLanguage } from './grammars.ts';

const BY_EXTENSION: Record<string, CodeLanguage> = {
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'tsx',
  py: 'python', pyi: 'python', go: 'go', rs: 'rust', java: 'java',
};

/** The grammar for a source file, or null when its language keeps the line chunker. */
export function symbolLanguage(path: string): CodeLanguage | null {
  return BY_EXTENSION[extname(path).slice(1).toLowerCase()] ?? null;
}
