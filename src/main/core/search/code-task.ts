import { pathRole, queryIsAboutTests, type PathRole } from './code-paths.ts';
import { queryTerms } from './fts-query.ts';

// Issue #23: a task about code (an identifier, a behaviour, an error) wants the source that a fix would change, not
// the changelog entry, the lock file or the docs page that mention the same words.

/** Identifier shapes: camelCase, snake_case, dotted names (not version numbers), calls, `--flags`, `::` paths, backticks. */
const IDENTIFIER = /[a-z][a-z0-9]*[A-Z]\w*|\b[A-Za-z]+_\w+|\b[A-Za-z_]\w*\.[A-Za-z_]\w*|\w\(\)|(?:^|\s)--?[a-z][\w-]*|::|`[^`]+`/;

/** Words that describe program behaviour or failure: a task using them is about code even without an identifier. */
const BEHAVIOUR = new Set([
  'error', 'errors', 'exception', 'exceptions', 'crash', 'crashes', 'panic', 'panics', 'bug', 'fix', 'fixes', 'fail', 'fails', 'failing', 'failure',
  'broken', 'regression', 'raise', 'raises', 'throw', 'throws', 'thrown', 'return', 'returns', 'returned', 'null', 'nil', 'undefined', 'none',
  'handle', 'handles', 'handling', 'deprecated', 'deprecation', 'warning', 'warnings', 'traceback', 'stack', 'header', 'headers', 'flag', 'flags',
  'argument', 'arguments', 'args', 'option', 'options', 'parameter', 'parameters', 'method', 'function', 'class', 'callback', 'async', 'await',
  'encoding', 'parse', 'parsing', 'timeout', 'leak', 'memory', 'infinite', 'loop', 'recursion', 'overflow', 'type', 'types', 'typing', 'import',
  'variable', 'call', 'calls', 'called', 'value', 'values', 'default', 'when', 'instead', 'missing', 'wrong', 'incorrect', 'invalid', 'empty',
  'unicode', 'path', 'paths', 'windows', 'file', 'files', 'command', 'request', 'response', 'route', 'router', 'config', 'support', 'check',
]);

/** Words that ask for prose: docs, guides, wording. Then docs are what the task is about. */
const DOC_WORDS = new Set(['doc', 'docs', 'documentation', 'readme', 'typo', 'typos', 'tutorial', 'guide', 'spelling', 'wording', 'docstring', 'docstrings', 'changelog', 'manual', 'faq']);

export function isCodeTask(query: string): boolean {
  const terms = queryTerms(query);
  if (terms.some((t) => DOC_WORDS.has(t))) return false;
  return IDENTIFIER.test(query) || terms.some((t) => BEHAVIOUR.has(t));
}

/** Words that name a role's files, so a query asking for them gets them back. */
const ROLE_WORDS: Record<'changelog' | 'lock' | 'generated' | 'image', string[]> = {
  changelog: ['changelog', 'changes', 'history', 'news', 'release', 'releases', 'upgrading'],
  lock: ['lock', 'lockfile', 'shrinkwrap', 'sum'],
  generated: ['minified', 'generated', 'bundle', 'dist', 'min', 'vendor', 'vendored', 'snapshot', 'snap'],
  image: ['image', 'images', 'logo', 'icon', 'svg', 'png', 'favicon'],
};

/**
 * How much a file's chunks count for this query, by the file's role: changelogs, lock files, generated files and
 * images are `excluded` (factor 0) unless the query names them; for a code task docs are multiplied by `docFactor`;
 * tests by `testFactor` unless the query is about tests. Source and anything else: 1.
 */
export interface RoleWeights {
  docFactor: number;
  testFactor: number;
}

/** What role weighing reads of a query: task-terms.ts's TaskTerms is one (structurally; no import, no circle). */
export interface RoleQuery {
  readonly codeTask: boolean;
  readonly aboutTests: boolean;
  readonly words: ReadonlySet<string>;
  /** An issue rather than a subject line (task-terms.ts): build files, CI and config rank as docs do unless named. */
  readonly long?: boolean;
}

/**
 * Role signals of long tasks (issue #32), measured on the issue benchmark's development set (docs/packets.md); a
 * benchmark may switch them. For a code task, docs weigh `docFactor` (an issue's prose matches prose best) and
 * build files, CI and config (`otherAsDoc`) weigh as docs do, unless the task names them.
 */
export const LONG_TASK_SIGNALS = { otherAsDoc: true, docFactor: 0.25 };

export function roleWeigher(query: string | RoleQuery, w: RoleWeights): (relPath: string) => { role: PathRole; factor: number } {
  const set = typeof query === 'string' ? new Set(queryTerms(query)) : query.words;
  const code = typeof query === 'string' ? isCodeTask(query) : query.codeTask;
  const aboutTests = typeof query === 'string' ? queryIsAboutTests([...set]) : query.aboutTests;
  // An issue's version lists and build commands match manifests, CI files and formulae word for word.
  const long = typeof query !== 'string' && query.long === true;
  const otherFactor = long && code && LONG_TASK_SIGNALS.otherAsDoc ? w.docFactor : 1;
  const named = (role: keyof typeof ROLE_WORDS) => ROLE_WORDS[role].some((t) => set.has(t));
  return (relPath) => {
    const role = pathRole(relPath);
    const base = (relPath.split(/[\\/]/).pop() ?? '').toLowerCase().split('.')[0] ?? '';
    switch (role) {
      case 'changelog':
      case 'lock':
      case 'generated':
      case 'image':
        return { role, factor: named(role) || set.has(base) ? 1 : 0 };
      case 'doc':
        return { role, factor: code ? (long ? Math.min(w.docFactor, LONG_TASK_SIGNALS.docFactor) : w.docFactor) : 1 };
      case 'test':
        return { role, factor: aboutTests ? 1 : w.testFactor };
      case 'other':
        return { role, factor: otherFactor < 1 && !set.has(base) ? otherFactor : 1 };
      default:
        return { role, factor: 1 };
    }
  };
}
