import { basename, extname } from 'node:path';
import type { SourceType } from '../../../shared/types.ts';

export interface FileKind {
  type: SourceType;
  language: string | null;
}

const CODE_LANGUAGES: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  py: 'python', pyi: 'python', rb: 'ruby', go: 'go', rs: 'rust', java: 'java', kt: 'kotlin', kts: 'kotlin',
  scala: 'scala', swift: 'swift', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp',
  cs: 'csharp', fs: 'fsharp', php: 'php', pl: 'perl', pm: 'perl', lua: 'lua', r: 'r', dart: 'dart',
  ex: 'elixir', exs: 'elixir', erl: 'erlang', hs: 'haskell', ml: 'ocaml', clj: 'clojure', zig: 'zig', nim: 'nim',
  sh: 'shell', bash: 'shell', zsh: 'shell', fish: 'shell', ps1: 'powershell', bat: 'batch',
  sql: 'sql', css: 'css', scss: 'scss', sass: 'sass', less: 'less', vue: 'vue', svelte: 'svelte',
  yaml: 'yaml', yml: 'yaml', toml: 'toml', ini: 'ini', cfg: 'ini', conf: 'ini', xml: 'xml', gradle: 'groovy',
  graphql: 'graphql', gql: 'graphql', proto: 'protobuf', tf: 'terraform', env: 'dotenv',
};

const CODE_FILENAMES: Record<string, string> = {
  dockerfile: 'dockerfile', makefile: 'make', gemfile: 'ruby', rakefile: 'ruby', justfile: 'just',
  '.env': 'dotenv', '.bashrc': 'shell', '.zshrc': 'shell', '.profile': 'shell',
};

// Never worth reading as text; skipping them by name avoids reading large media files at all.
const BINARY_EXTENSIONS = new Set([
  'png', 'jpg', 'jpeg', 'gif', 'bmp', 'ico', 'webp', 'tiff', 'psd', 'heic', 'mp3', 'wav', 'flac', 'ogg', 'mp4',
  'mov', 'avi', 'mkv', 'webm', 'zip', 'gz', 'tgz', 'bz2', 'xz', '7z', 'rar', 'jar', 'war', 'exe', 'dll', 'so',
  'dylib', 'a', 'o', 'obj', 'class', 'pyc', 'wasm', 'node', 'woff', 'woff2', 'ttf', 'otf', 'eot', 'sqlite',
  'db', 'bin', 'dat', 'iso', 'dmg', 'pkg', 'deb', 'rpm', 'docx', 'xlsx', 'pptx', 'odt', 'key', 'numbers',
]);

export function classifyPath(path: string): FileKind | 'binary' {
  const name = basename(path).toLowerCase();
  const ext = extname(name).slice(1);
  if (BINARY_EXTENSIONS.has(ext)) return 'binary';
  if (ext === 'md' || ext === 'markdown' || ext === 'mdx') return { type: 'markdown', language: null };
  if (ext === 'html' || ext === 'htm' || ext === 'xhtml') return { type: 'html', language: null };
  if (ext === 'pdf') return { type: 'pdf', language: null };
  if (ext === 'jsonl' || ext === 'ndjson') return { type: 'jsonl', language: null };
  if (ext === 'json' || ext === 'jsonc') return { type: 'json', language: 'json' };
  const byName = CODE_FILENAMES[name] ?? (name.startsWith('.env') ? 'dotenv' : undefined);
  if (byName) return { type: 'code', language: byName };
  const lang = CODE_LANGUAGES[ext];
  if (lang) return { type: 'code', language: lang };
  return { type: 'text', language: null };
}
