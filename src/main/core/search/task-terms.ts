import { queryIsAboutTests } from './code-paths.ts';
import { isCodeTask } from './code-task.ts';
import { codeWordTerms, identifierPhrases, spellingVariants, splitIdentifier } from './code-words.ts';
import { STOPWORDS, queryTerms } from './fts-query.ts';

// Issue #32: the task an agent is handed is an issue (paragraphs, a traceback, a code sample, version dumps), not a
// commit subject. What retrieval uses is read from it once, here, into one value the packet's stages receive: the
// weighted words BM25 searches, the identifier phrases, the paths, traceback frames and names it mentions, whether
// it is a code task, and the stemmed words lines are matched with. A short query keeps exactly what it had before.

/** One FTS term (a lower-case word as FTS5's unicode61 splits text) with how much it counts for this task. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/** A traceback frame: file as written (a path, maybe absolute), its line and function when given. */
export interface TraceFrame {
  file: string;
  line: number | null;
  func: string | null;
  /** An interpreter or standard-library frame (`<frozen …>`, node:internal, lib/python3.x): no evidence. */
  external: boolean;
  /**
   * Under site-packages or node_modules: the project itself as installed, or another package. `file` is then the
   * part after that folder (`pkg/core.py`), which the index either holds or not.
   */
  installed: boolean;
}

export interface TaskTerms {
  readonly text: string;
  /** More than a subject line: weighted (false: every term weighs 1, as a short query always did). */
  readonly long: boolean;
  /** BM25's terms, best first. */
  readonly terms: readonly WeightedTerm[];
  /** Compound identifiers as word sequences (`package_name` → package, name), strongest first. */
  readonly phrases: readonly string[][];
  /** File paths and module paths the task names (`a/b.py`, `pkg/mod` from `pkg.mod`), as written, forward slashes. */
  readonly paths: readonly string[];
  readonly frames: readonly TraceFrame[];
  /** Function, class and method names the task names (traceback functions, calls, backticked or CamelCase names). */
  readonly symbols: readonly string[];
  /** Exception / error type names (`KeyError`, `ValueError`). */
  readonly errors: readonly string[];
  /** About code (an identifier, a behaviour, an error) rather than docs. */
  readonly codeTask: boolean;
  /** About tests themselves: test files are not demoted. */
  readonly aboutTests: boolean;
  /** The words a role's file name is matched against (queryTerms of the text). */
  readonly words: ReadonlySet<string>;
  /** Stemmed words (stem()) for matching lines (windows, excerpts), each once, strongest first. */
  readonly lineTerms: readonly string[];
}

/** Over this many characters (or with a fenced block or a traceback) a task is weighed as an issue. */
export const LONG_TASK_CHARS = 240;
/** BM25 terms kept for a long task, strongest first: the rest weigh little and cost a postings list each. */
export const MAX_TASK_TERMS = 96;
/** Identifier phrases kept for a long task. */
export const MAX_TASK_PHRASES = 24;
/** Line terms kept for a long task. */
const MAX_LINE_TERMS = 48;

/** Weights by where a word is said. */
export const TASK_WEIGHTS = {
  /** A project frame's function or file name, a path the task names. */
  frame: 3,
  path: 3,
  /** An identifier in prose: backticked, called, snake_case, camelCase, dotted. */
  identifier: 2.5,
  errorType: 2.5,
  /** A word of the title (its first line). */
  title: 2,
  errorMessage: 1.5,
  /** An identifier inside a code block. */
  codeIdentifier: 1.5,
  code: 1,
  prose: 1,
  /** Issue-template words and reproduction boilerplate. */
  template: 0.3,
  /** Library frames, environment dumps, version lists, interpreter banners. */
  noise: 0.1,
};

/** The one English stem for matching lines to a task's words (completions/completion, filtering/filter). */
export function stem(w: string): string {
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith('es')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

// Words of issue templates and of how people write reports: they say nothing about where the code is.
const TEMPLATE_WORDS = new Set([
  'describe', 'description', 'bug', 'bugs', 'expected', 'expect', 'expecting', 'behavior', 'behaviour', 'actual', 'reproduce', 'reproducing', 'reproduction',
  'reproducible', 'steps', 'step', 'output', 'outputs', 'result', 'results', 'version', 'versions', 'environment', 'checklist', 'searched', 'search',
  'confirm', 'confirmed', 'issue', 'issues', 'example', 'examples', 'minimal', 'verifiable', 'complete', 'mcve', 'mvce', 'problem', 'solution',
  'alternatives', 'alternative', 'context', 'additional', 'please', 'thanks', 'thank', 'hi', 'hello', 'feature', 'request', 'requests', 'would',
  'should', 'could', 'like', 'also', 'just', 'get', 'got', 'gets', 'use', 'using', 'used', 'seems', 'seem', 'think', 'here', 'following', 'below',
  'above', 'code', 'snippet', 'sample', 'run', 'running', 'ran', 'works', 'work', 'working', 'happen', 'happens', 'what', 'when', 'how', 'why',
  'one', 'some', 'any', 'all', 'other', 'more', 'there', 'very', 'so', 'my', 'me', 'i', 'im', 'ive', 'dont', 'doesnt', 'instead', 'install',
  'installed', 'installation', 'latest', 'anything', 'something', 'way', 'now', 'still', 'only', 'same',
  'well', 'make', 'makes', 'see', 'want', 'need', 'needs', 'know', 'try', 'tried', 'trying', 'case', 'cases', 'since', 'because', 'however',
  'note', 'notes', 'current', 'currently', 'possible', 'able', 'correct', 'correctly', 'fine', 'ok', 'okay', 'yes', 'new', 'old', 'first',
  'second', 'two', 'three', 'thing', 'things', 'way', 'may', 'might', 'must', 'let', 'lets', 'etc', 'e', 'g', 'eg', 'ie', 'via', 'both',
  'each', 'every', 'many', 'much', 'most', 'same', 'another', 'without', 'within', 'after', 'before', 'while', 'where', 'who', 'whether',
]);

// Keywords and built-ins every code block is full of: as search terms they match everything and mean nothing.
const CODE_WORDS = new Set([
  'def', 'self', 'cls', 'return', 'import', 'class', 'print', 'true', 'false', 'none', 'null', 'nil', 'undefined', 'var', 'let', 'const',
  'function', 'func', 'fn', 'pub', 'else', 'elif', 'for', 'while', 'try', 'except', 'catch', 'finally', 'raise', 'throw', 'new', 'this',
  'lambda', 'pass', 'yield', 'async', 'await', 'int', 'str', 'float', 'bool', 'dict', 'list', 'tuple', 'len', 'range', 'object', 'string',
  'np', 'pd', 'plt', 'echo', 'cd', 'sudo', 'pip', 'npm', 'python', 'python3', 'node', 'go', 'cargo', 'in', 'out', 'args', 'kwargs',
]);

// Lines of environment dumps: `numpy: 1.21.0`, `numpy==1.21`, `- pytest 7.1.2`, platform and interpreter lines.
const VERSION_LINE = /^\s*[-*•]?\s*[\w.\-[\]]+\s*(?:==|>=|<=|~=|:|=|\s)\s*v?\d+(?:\.\d+)+[\w.+\-]*(?:\s.*)?$/;
const ENV_LINE = /^\s*(?:[-*]\s*)?(?:python|platform|os|os-release|machine|processor|byteorder|lc_all|lang|locale|commit|python-bits|sys\.version|architecture|kernel|system|release|implementation|executable|cpu|ram|memory|node|npm|go version|rustc|cargo|browser|device|libhdf5|libnetcdf|blas|lapack)\s*[:=]/i;
const BANNER = /^\s*(?:Python \d+\.\d+[\d.]*\s*[(|]|Type "help", "copyright"|\[(?:GCC|Clang|MSC)\b|IPython \d|Jupyter|Platform:|INSTALLED VERSIONS|-{6,}\s*$|={6,}\s*$)/;
const ENV_HEADING = /^\s*(?:#{1,6}\s*|\*\*)?\s*(?:environment|versions?|system info(?:rmation)?|installed versions|output of `?(?:pip freeze|pip list|conda list|xr\.show_versions|pd\.show_versions|sklearn\.show_versions|np\.show_config)|pip (?:freeze|list)|conda list|dependencies|platform|setup|os|python version|package versions?)\b[^\n]{0,40}:?\s*(?:\*\*)?\s*$/i;
const HEADING = /^\s*(?:#{1,6}\s+\S|\*\*[^*]+\*\*\s*:?\s*$|[A-Z][\w ]{2,40}:\s*$)/;
const SHOW_VERSIONS = /\b(?:show_versions|show_config|pip freeze|pip list|conda list|sys\.version|platform\.platform|__version__|--version)\b/;

// Traceback frames: Python, JS/TS (V8), Java/Kotlin, Go, Rust, Ruby, and `path:line` at large.
const PY_FRAME = /File "([^"]+)", line (\d+)(?:, in ([\w<>.]+))?/;
const JS_FRAME = /^\s*at (?:(?:async )?([\w$.<>\[\] ]+?) \()?((?:[A-Za-z]:)?[^\s():]+\.[cm]?[jt]sx?):(\d+)(?::\d+)?\)?\s*$/;
const JAVA_FRAME = /^\s*at ([\w$.]+)\.([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)/;
const PATH_LINE = /((?:[A-Za-z]:)?(?:[\w.\-@~]+\/)*[\w.\-]+\.(?:py|pyx|pyi|go|rs|rb|java|kt|scala|[cm]?[jt]sx?|c|cc|cpp|h|hpp|cs|php|swift|ex|exs|lua|dart|vue|svelte)):(\d+)/;
const ERROR_LINE = /^\s*(?:Uncaught )?(?:[\w.]+\.)?((?:[A-Z]\w*)?(?:Error|Exception|Warning|Exit|Interrupt|Fault|Failure))(?::\s*(.*))?$|^\s*(panic|error(?:\[E\d+\])?|fatal error|thread '[^']*' panicked at)[:\s]\s*(.*)$/;
const INSTALLED = /^.*\/(?:site-packages|dist-packages|node_modules)\//;
const EXTERNAL_FRAME = /(?:^|\/)(?:lib\/python\d[\d.]*\/(?!site-packages|dist-packages)|<frozen|<string>|<stdin>|<ipython-input|node:|internal\/|rustc\/|go\/src\/runtime|\.cargo\/registry|<anonymous>|Python\.framework)/;

// Identifier shapes in prose.
const CAMEL = /\b[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b/g;
const SNAKE_OR_DOTTED = /\b[A-Za-z_][A-Za-z0-9_]*(?:[._][A-Za-z_][A-Za-z0-9_]*)+\b/g;
const CALL = /\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;
const BACKTICK = /`([^`\n]{1,120})`/g;
const PATH_TOKEN = /(?:^|[\s("'`[])((?:[\w.\-@~]+\/)+[\w.\-]+\.[A-Za-z]{1,5}|[\w\-]+\.(?:py|pyx|go|rs|rb|java|kt|[cm]?[jt]sx?|c|cc|cpp|h|hpp|cs|php|swift|ex|exs|lua|dart|vue|svelte|toml|cfg|ini|yaml|yml))(?=$|[\s)"'`:,\]])/g;

const WORD = /[\p{L}\p{N}]+/gu;
const SOURCE_FILE = /\.(?:py|pyx|pyi|go|rs|rb|java|kt|scala|[cm]?[jt]sx?|c|cc|cpp|h|hpp|cs|php|swift|ex|exs|lua|dart|vue|svelte|md|rst|txt|toml|cfg|ini|ya?ml|json)$/;

// Folders of a path that say nothing about which file it is (a user's home, a checkout's usual top folders).
const GENERIC_DIRS = new Set(['home', 'users', 'user', 'me', 'tmp', 'var', 'usr', 'opt', 'src', 'lib', 'app', 'code', 'projects', 'project', 'repo', 'repos', 'workspace', 'dev', 'git', 'documents', 'desktop', 'c', 'mnt', 'root']);

/** The words of a path worth searching: its last three components without the extension or generic folders. */
function pathWords(path: string): string[] {
  const parts = path.replace(/\\/g, '/').split('/').filter(Boolean).slice(-3);
  const last = parts.length - 1;
  if (last >= 0) parts[last] = parts[last]!.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  return parts.filter((p) => !GENERIC_DIRS.has(p.toLowerCase()));
}

/** Leading `self.` / `this.` / `cls.` is the caller's object, not part of the name. */
function withoutReceiver(parts: string[]): string[] {
  return parts.length > 2 && (parts[0] === 'self' || parts[0] === 'this' || parts[0] === 'cls') ? parts.slice(1) : parts;
}

const cache = new Map<string, TaskTerms>();
const CACHE_SIZE = 16;

/** The task value of `text`, computed once per text (a packet's stages and its search share it). */
export function taskTerms(text: string): TaskTerms {
  const hit = cache.get(text);
  if (hit) return hit;
  const value = isLongTask(text) ? longTask(text) : shortTask(text);
  cache.set(text, value);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return value;
}

export function isLongTask(text: string): boolean {
  return text.length > LONG_TASK_CHARS || (text.length > 120 && /\n\s*\S/.test(text.trim())) || text.includes('```') || /Traceback \(most recent call last\)|^\s+at \S+ \(/m.test(text);
}

/** A subject line: every term weighs 1, as before the task value existed (the commit-subject benchmarks hold). */
function shortTask(text: string): TaskTerms {
  const words = queryTerms(text);
  return {
    text,
    long: false,
    terms: codeWordTerms(text).map((term) => ({ term, weight: 1 })),
    phrases: identifierPhrases(text),
    paths: pathsIn(text),
    frames: [],
    symbols: symbolsIn(text),
    errors: [],
    codeTask: isCodeTask(text),
    aboutTests: queryIsAboutTests(words),
    words: new Set(words),
    lineTerms: [...new Set(codeWordTerms(text).map(stem).filter((t) => t.length >= 3))],
  };
}

type Kind = keyof typeof TASK_WEIGHTS;

/** A segment of the task with the weight class its words get. */
interface Segment {
  text: string;
  kind: 'prose' | 'code' | 'noise';
}

/**
 * Splits the task into prose, code (fenced or indented, `>>>` sessions) and noise (environment dumps, banners): the
 * task's lines as taskLines classes them, without the fences themselves.
 */
export function segmentTask(text: string): Segment[] {
  const out: Segment[] = [];
  for (const l of taskLines(text.normalize('NFKC'))) if (l.kind !== 'fence' && !(l.kind === 'noise' && FENCE.test(l.text))) out.push({ text: l.text, kind: l.kind });
  return out;
}

const FENCE = /^\s*(```+|~~~+)/;

function isNoiseLine(line: string): boolean {
  return VERSION_LINE.test(line) || ENV_LINE.test(line) || BANNER.test(line) || SHOW_VERSIONS.test(line);
}

/** A fenced block is noise when it is mostly an environment dump (or under an environment heading). */
function fencedIsNoise(body: string[], envSection: boolean): boolean {
  const nonEmpty = body.filter((l) => l.trim() !== '');
  const noisy = nonEmpty.filter(isNoiseLine).length;
  return envSection || (nonEmpty.length > 0 && noisy / nonEmpty.length >= 0.5);
}

/** One line of the task as written, with the class segmentTask gives it; `fence` for a code fence's own lines. */
export interface TaskLine {
  text: string;
  kind: 'prose' | 'code' | 'noise' | 'fence';
}

/**
 * The task line by line, every line kept (fences too) so a shortened task still reads as the Markdown it was; the
 * classes are segmentTask's, so what retrieval weighs as noise is what a shortened TASK leaves out first.
 */
export function taskLines(text: string): TaskLine[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: TaskLine[] = [];
  let envSection = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      let j = i + 1;
      while (j < lines.length && !lines[j]!.trimStart().startsWith(fence[1]!)) j++;
      const body = lines.slice(i + 1, j);
      const noise = fencedIsNoise(body, envSection);
      out.push({ text: line, kind: noise ? 'noise' : 'fence' });
      for (const l of body) out.push({ text: l, kind: noise || isNoiseLine(l) ? 'noise' : 'code' });
      if (j < lines.length) out.push({ text: lines[j]!, kind: noise ? 'noise' : 'fence' });
      i = j;
      continue;
    }
    if (ENV_HEADING.test(line) || /<summary>\s*(?:environment|versions?|installed versions|output of)/i.test(line)) {
      envSection = true;
      out.push({ text: line, kind: 'noise' });
      continue;
    }
    if (HEADING.test(line)) envSection = false;
    if (envSection || isNoiseLine(line)) out.push({ text: line, kind: 'noise' });
    else if (/^(?: {4}|\t)\S/.test(line) || /^\s*(?:>>>|\.\.\.|In \[\d+\]:|\$ )/.test(line)) out.push({ text: line, kind: 'code' });
    else out.push({ text: line, kind: 'prose' });
  }
  return out;
}

/** Frames of the task's tracebacks, in the order written. */
export function framesIn(text: string): TraceFrame[] {
  const out: TraceFrame[] = [];
  for (const line of text.split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = PY_FRAME.exec(line))) out.push(frame(m[1]!, m[2]!, m[3] ?? null));
    else if ((m = JAVA_FRAME.exec(line))) out.push(frame(`${m[1]!.split('.').slice(0, -1).join('/')}/${m[3]}`, m[4]!, m[2]!));
    else if ((m = JS_FRAME.exec(line))) out.push(frame(m[2]!, m[3]!, m[1]?.trim() || null));
    else if ((m = PATH_LINE.exec(line))) out.push(frame(m[1]!, m[2]!, null));
  }
  return out;
}

function frame(file: string, line: string, func: string | null): TraceFrame {
  const f = file.replace(/\\/g, '/');
  const fn = func && !/^<.*>$/.test(func) ? func.split('.').pop()! : null;
  const installed = INSTALLED.test(f);
  return { file: installed ? f.replace(INSTALLED, '') : f, line: Number(line) || null, func: fn, external: !installed && EXTERNAL_FRAME.test(f), installed };
}

/** Paths the text names (`src/a/b.py`, `setup.cfg`), forward slashes, without a leading `./`. */
export function pathsIn(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(PATH_TOKEN)) {
    const p = m[1]!.replace(/\\/g, '/').replace(/^\.\//, '');
    if (/^\d/.test(p) || /^https?:/.test(p) || /\.(?:com|org|io|net|html?)$/.test(p)) continue;
    out.add(p);
  }
  return [...out];
}

/** Names of functions, classes and methods the text names: calls, backticked names, dotted names' parts, CamelCase. */
export function symbolsIn(text: string): string[] {
  const out = new Set<string>();
  const add = (s: string) => {
    const n = s.replace(/\(\)$/, '');
    if (n.length >= 3 && /^[A-Za-z_][\w]*$/.test(n) && !CODE_WORDS.has(n.toLowerCase()) && !STOPWORDS.has(n.toLowerCase()) && n !== 'Traceback') out.add(n);
  };
  for (const m of text.matchAll(CALL)) add(m[1]!);
  // A backticked name, or the identifiers of a backticked expression (`a.merge(b, how="x")`: merge, not x).
  for (const m of text.matchAll(BACKTICK)) {
    const inner = m[1]!.trim();
    if (/^[A-Za-z_][\w.]*(?:\(\))?$/.test(inner)) add(inner.split('.').pop()!);
    else for (const c of inner.matchAll(CALL)) add(c[1]!);
  }
  for (const m of text.matchAll(SNAKE_OR_DOTTED)) {
    const parts = m[0].split('.');
    if (parts.every((p) => /^\d/.test(p))) continue;
    add(parts[parts.length - 1]!);
    // `Catalog.from_rows`: a class named by its use.
    if (parts.length > 1 && /^[A-Z][a-z]/.test(parts[0]!)) add(parts[0]!);
  }
  // Names a code sample imports: `from pkg.mod import Catalog, merge`, `import { Frame } from 'x'`.
  for (const m of text.matchAll(/\bfrom\s+[\w.]+\s+import\s+([\w, ]+)|\bimport\s*\{([^}]+)\}/g)) for (const n of (m[1] ?? m[2] ?? '').split(/[\s,]+/)) add(n);
  for (const m of text.matchAll(CAMEL)) add(m[0]);
  return [...out];
}

/**
 * Module paths a dotted name may be, for names of three parts or more: `pkg.core.merge` → pkg/core/merge, and
 * pkg/core (its last part may be a function or class of that module).
 */
function modulePaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/\b[a-z_][a-z0-9_]*(?:\.[a-z_][A-Za-z0-9_]*){2,}\b/g)) {
    const parts = m[0].split('.');
    out.add(parts.join('/'));
    out.add(parts.slice(0, -1).join('/'));
  }
  return [...out];
}

function longTask(text: string): TaskTerms {
  const segments = segmentTask(text);
  const weights = new Map<string, { max: number; count: number; first: number }>();
  let position = 0;
  const add = (word: string, kind: Kind) => {
    const w = word.toLowerCase();
    if (w.length < 2 || STOPWORDS.has(w) || /^\d+$/.test(w) || /^[\da-f]{7,}$/.test(w)) return;
    let weight = TASK_WEIGHTS[kind];
    if (CODE_WORDS.has(w)) weight = Math.min(weight, TASK_WEIGHTS.template);
    else if ((kind === 'prose' || kind === 'code') && TEMPLATE_WORDS.has(w)) weight = TASK_WEIGHTS.template;
    else if (kind !== 'noise' && titleWords.has(w)) weight = Math.max(weight, TASK_WEIGHTS.title);
    const e = weights.get(w);
    if (e) {
      e.max = Math.max(e.max, weight);
      e.count++;
    } else weights.set(w, { max: weight, count: 1, first: position++ });
  };
  const addText = (s: string, kind: Kind) => {
    for (const w of s.match(WORD) ?? []) add(w, kind);
  };
  /** An identifier: its FTS tokens (snake and dotted parts) and camelCase parts, at `kind`. */
  const addIdentifier = (id: string, kind: Kind) => {
    for (const w of id.match(WORD) ?? []) {
      add(w, kind);
      for (const p of splitIdentifier(w)) if (p !== w.toLowerCase()) add(p, kind === 'noise' ? 'noise' : 'code');
    }
  };

  // The title (the first line) says what the issue is about: its words weigh at least TASK_WEIGHTS.title.
  const titleWords = new Set((text.trim().split('\n', 1)[0] ?? '').toLowerCase().match(WORD) ?? []);
  const frames = framesIn(text);
  const errors = new Set<string>();
  const phraseSources: { text: string; kind: Kind }[] = [];
  const symbolSources: string[] = [];
  for (const seg of segments) {
    if (seg.kind === 'noise') {
      addText(seg.text, 'noise');
      continue;
    }
    const err = ERROR_LINE.exec(seg.text);
    if (err && (err[1] || err[3])) {
      if (err[1]) {
        errors.add(err[1]);
        addIdentifier(err[1], 'errorType');
      }
      const message = err[2] ?? err[4] ?? '';
      for (const m of message.matchAll(SNAKE_OR_DOTTED)) addIdentifier(m[0], 'identifier');
      for (const m of message.matchAll(CAMEL)) addIdentifier(m[0], 'identifier');
      addText(message, 'errorMessage');
      phraseSources.push({ text: message, kind: 'errorMessage' });
      symbolSources.push(message);
      continue;
    }
    const f = PY_FRAME.exec(seg.text) ?? JAVA_FRAME.exec(seg.text) ?? JS_FRAME.exec(seg.text);
    if (f) continue; // frames are weighed below, project or library
    const code = seg.kind === 'code';
    // Identifiers first, so their weight is the one a word gets when also said in passing.
    const idKind: Kind = code ? 'codeIdentifier' : 'identifier';
    for (const m of seg.text.matchAll(BACKTICK)) for (const part of m[1]!.match(/[A-Za-z_][\w.]*/g) ?? []) addIdentifier(part, 'identifier');
    for (const m of seg.text.matchAll(SNAKE_OR_DOTTED)) {
      if (/^\d/.test(m[0])) continue;
      // `loader.ts` is a file name: its words, not its extension.
      if (SOURCE_FILE.test(m[0])) for (const w of pathWords(m[0])) addIdentifier(w, 'path');
      else addIdentifier(m[0], idKind);
    }
    for (const m of seg.text.matchAll(CAMEL)) addIdentifier(m[0], idKind);
    for (const m of seg.text.matchAll(CALL)) addIdentifier(m[1]!, idKind);
    for (const m of seg.text.matchAll(PATH_TOKEN)) for (const w of pathWords(m[1]!)) addIdentifier(w, 'path');
    addText(seg.text, code ? 'code' : 'prose');
    phraseSources.push({ text: seg.text, kind: code ? 'codeIdentifier' : 'identifier' });
    symbolSources.push(seg.text);
  }
  for (const fr of frames) {
    const kind: Kind = fr.external ? 'noise' : fr.installed ? 'codeIdentifier' : 'frame';
    // The file as a word weighs less than the function: a report's own script (`repro.py`) is a frame too.
    const file = fr.file.split('/').pop() ?? fr.file;
    addIdentifier(file.replace(/\.[A-Za-z]+$/, ''), kind === 'frame' ? 'codeIdentifier' : kind);
    if (fr.func) addIdentifier(fr.func, kind);
  }

  const scored = [...weights].map(([term, e]) => ({ term, weight: e.max * (1 + 0.25 * Math.log(e.count)), first: e.first }));
  // Spelling variants of the strong words (writeable/writable, serialise/serialize) at the word's weight.
  for (const s of [...scored]) {
    if (s.weight < TASK_WEIGHTS.prose) continue;
    for (const v of spellingVariants(s.term)) if (!weights.has(v)) scored.push({ term: v, weight: s.weight * 0.5, first: s.first + 0.5 });
  }
  scored.sort((a, b) => b.weight - a.weight || a.first - b.first);
  const terms = scored.slice(0, MAX_TASK_TERMS).map(({ term, weight }) => ({ term, weight: Math.round(weight * 1000) / 1000 }));

  // Phrases: project frames' functions first, then identifiers in prose and error messages, then in code.
  const phrases = new Map<string, string[]>();
  const addPhrases = (s: string) => {
    for (const raw of identifierPhrases(s)) {
      const p = withoutReceiver(raw);
      if (SOURCE_FILE.test(`.${p[p.length - 1]}`)) continue;
      if (p.length >= 2 && !phrases.has(p.join(' ')) && !p.every((w) => CODE_WORDS.has(w))) phrases.set(p.join(' '), p);
    }
  };
  for (const fr of frames) if (!fr.external && fr.func) addPhrases(fr.func);
  for (const s of phraseSources.filter((p) => p.kind !== 'codeIdentifier')) addPhrases(s.text);
  for (const s of phraseSources.filter((p) => p.kind === 'codeIdentifier')) addPhrases(s.text);

  const paths = new Set<string>();
  for (const fr of frames) if (!fr.external) paths.add(fr.file);
  for (const seg of segments) if (seg.kind !== 'noise') for (const p of pathsIn(seg.text)) paths.add(p);
  for (const seg of segments) if (seg.kind !== 'noise') for (const p of modulePaths(seg.text)) paths.add(p);

  const symbols = new Set<string>();
  for (const fr of frames) if (!fr.external && fr.func) symbols.add(fr.func);
  for (const s of symbolsIn(symbolSources.join('\n'))) symbols.add(s);

  const words = new Set(queryTerms(segments.filter((s) => s.kind !== 'noise').map((s) => s.text).join('\n')));
  const strong = terms.filter((t) => t.weight >= TASK_WEIGHTS.prose);
  const lineTerms = [...new Set(strong.map((t) => stem(t.term)).filter((t) => t.length >= 3))].slice(0, MAX_LINE_TERMS);
  const prose = segments.filter((s) => s.kind === 'prose').map((s) => s.text).join('\n');
  return {
    text,
    long: true,
    terms,
    phrases: [...phrases.values()].slice(0, MAX_TASK_PHRASES),
    paths: [...paths],
    frames,
    symbols: [...symbols],
    errors: [...errors],
    codeTask: errors.size > 0 || frames.length > 0 || isCodeTask(prose.slice(0, 4000)) || segments.some((s) => s.kind === 'code'),
    // About tests only when its title says so: a report that mentions which tests cover the code is about the code.
    aboutTests: queryIsAboutTests(queryTerms(text.trim().split('\n', 1)[0] ?? '')),
    words,
    lineTerms,
  };
}
