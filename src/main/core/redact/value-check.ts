import { shannonEntropy } from './entropy.ts';
import { isPlaceholderToken, typedInOrder } from './placeholder-token.ts';
import { isWordy } from './wordy.ts';
export { isWordy, segments } from './wordy.ts';

/*
 * Does a value next to a key word look like a credential? Key-context rules
 * (`password: …`, `apiKey = …`, "the token is …") match far more code than
 * secrets: `someKey: { type: 'string' }`, `const token = tokens[i]`,
 * `messageKey: 'message'`. These checks run on the value a rule captured and
 * decide whether the match counts. Plain string work, linear in the value.
 *
 * Named checks (RedactionRule.valueCheck):
 * - `password`: the key is a password word. A quoted literal counts from 6
 *   characters unless it is a placeholder or prose; an unquoted one must also
 *   not be code (identifier, property access, call, index, type, number).
 * - `credential`: secret / token / key / auth names. As `password`, and the
 *   value must not read as words (`my-app-session`, `application/json`).
 * - `keyed`: `password` when the captured key name is a password word, else `credential`.
 * - `random`: generic high-entropy rules: ≥ 16 characters, entropy ≥ 3,
 *   not words, not a code path — the "needs a key word nearby" family.
 * - `userinfo`: the password of `scheme://user:password@` or a credential query parameter: anything but a
 *   placeholder (`:password@`, `:${PASS}@`, `:<password>@`), however short.
 * - `env`: spec 000's `NAME=value`: everything except obviously safe values
 *   (numbers, booleans, short words, paths, `$VAR` references) and names that say what the value is not
 *   (`…_VERSION`, `…_MODEL_NAME`, `…_HOST`).
 * - `email`: an address, unless it is an scp-style remote (`git@github.com:org/repo`) or an image (`logo@2x.png`).
 * - `token`: the body of a provider token shape, unless it is a name made of words (`hf_requiredCharacteristicTypes…`)
 *   or a body written by hand (`shape`).
 * - `shape`: a provider token shape, unless its body is written by hand (placeholder-token.ts: `ghp_xxxx…`,
 *   `glc_1111…`, a repeated unit).
 * - `cookie`: a Cookie / Set-Cookie value holding a session-like cookie (`session`, `sid`, `token`, `auth`…) that is
 *   not a placeholder, or any cookie whose value reads as random.
 */
export type ValueCheckName = 'password' | 'credential' | 'keyed' | 'random' | 'env' | 'userinfo' | 'prose' | 'flag' | 'email' | 'cookie' | 'token' | 'shape';

export interface ValueCheckInput {
  value: string;
  /** The key name the rule captured, when it has one (`keyGroup`). */
  key?: string;
  /** Whether the value was a quoted literal in the source. */
  quoted: boolean;
  /** The rest of the line after the match (`,` / `;` after an unquoted value marks code). */
  after?: string;
  /** Up to 24 characters of the match just before the value (`nonce="` says what the value is). */
  before?: string;
  /** Up to 48 characters of the line just before the match (what a token shape was assigned to). */
  lead?: string;
}

// A value named by one of these right before it is a digest or an identifier, not a credential.
const NOT_SECRET_LABEL = /(?:nonce|realm|opaque|etag|integrity|checksum|sha\d*|md5|hash|commit|revision|rev|uuid|guid)["'\s:=]{0,3}$/i;

// Values that stand in for a secret in docs, templates and code.
const PLACEHOLDER_WORDS = new Set([
  'string', 'number', 'boolean', 'bool', 'int', 'integer', 'str', 'bytes', 'object', 'any', 'unknown', 'never', 'void',
  'null', 'nil', 'none', 'undefined', 'true', 'false', 'yes', 'no', 'on', 'off', 'empty', 'blank', 'default',
  'required', 'optional', 'secret', 'secrets', 'password', 'passwd', 'passphrase', 'pass', 'pwd', 'token', 'tokens',
  'key', 'apikey', 'api_key', 'api-key', 'changeme', 'change_me', 'change-me', 'changeit', 'example', 'sample', 'dummy',
  'test', 'testing', 'fake', 'foo', 'bar', 'baz', 'qux', 'redacted', 'hidden', 'removed', 'masked', 'todo', 'tbd',
  'fixme', 'n/a', 'na', 'xxx', 'value', 'values', 'placeholder', 'notasecret', 'not-a-secret', 'mysecret', 'my-secret',
  'secretkey', 'secret_key', 'secret-key', 'mypassword', 'my-password', 'yourpassword', 'password123', 'letmein',
  'hunter', 'admin', 'root', 'guest', 'user', 'username', 'bearer', 'basic', 'oauth', 'jwt', 'hmac', 'sha256', 'sha1',
  'md5', 'base64', 'hex', 'utf8', 'utf-8', 'ascii', 'auto', 'env', 'environment', 'prompt', 'stdin', 'file', 'inline',
  // Fixtures in tests and docs: wrong, fake and demo passwords.
  'foobar', 'foobarbaz', 'nogood', 'wrong', 'wrongpass', 'wrongpassword', 'badpass', 'badpassword', 'invalidpassword',
  'incorrect', 'notsecret', 'testpass', 'testpassword', 'mysecretpassword', 'secretpassword', 'pass123', 'secret123',
  'abc',
]);

const PLACEHOLDER_SHAPES: RegExp[] = [
  /^<[^<>]*>$/, // <your-key>
  /^\[[^[\]]*\]$/, // [token]
  /^\{\{.*\}\}$/, // {{ .Values.token }}
  /^\$\{\{?[^}]*\}\}?$/, // ${VAR}, ${{ secrets.X }}
  /^\$\([^)]*\)$/, // $(cat file)
  /^\{[\w.]*\}$/, // {}, {0}, {password} (format fields)
  /^%(?:\([\w.]+\))?[sdrif]$/, // %s, %(password)s
  /^\$[A-Z_][A-Z0-9_]*$/, // $VAR
  /^%[A-Za-z_][A-Za-z0-9_]*%$/, // %VAR%
  /^@[A-Za-z_][A-Za-z0-9_]*@$/, // @VAR@
  /^#\{[^}]*\}$/, // #{var}
  /^:[a-z_]+$/, // :symbol
  /^([*xX.#_-])\1*$/, // ****, xxxx, ....
  /^(.)\1+$/, // one character repeated
  /^(?:0123456789|1234567890|abcdefgh|qwerty)/i,
];

// Inside a value: reads like a placeholder even with more around it (`sk-xxxx…`, `your_api_key_here`).
const PLACEHOLDER_INSIDE =
  /x{4,}|X{4,}|\*{3,}|#{4,}|^\.{3}|\.{3}$|…|\$\{[A-Za-z_][\w.]*\}|\{\{[^{}]*\}\}|\byour[_ -]?(?:[a-z0-9]+[_ -]){0,4}(?:key|token|secret|pass(?:word)?|pwd|id)|[_-](?:goes[_-])?here$|(?:^|[^a-z])(?:change[_-]?me|replace[_-]?(?:me|with)|insert[_-]?here|placeholder|redacted|example|dummy|fake|sample)(?:[^a-z]|$)|not[_-]?a[_-]?real/i;

export function isPlaceholder(value: string): boolean {
  const v = value.trim();
  if (v.length === 0) return true;
  if (PLACEHOLDER_WORDS.has(v.toLowerCase())) return true;
  for (const re of PLACEHOLDER_SHAPES) if (re.test(v)) return true;
  if (PLACEHOLDER_INSIDE.test(v)) return true;
  // `$password`, `$dbPass`: a (PHP / shell) variable named by words.
  if (/^\$[A-Za-z_][A-Za-z0-9_]*$/.test(v) && isWordy(v.slice(1))) return true;
  // `sk-<your key>`, `Bearer <TOKEN>`: a bracketed name, not random characters between brackets.
  for (const m of v.matchAll(/<([A-Za-z][\w .-]{1,38}[A-Za-z])>/g)) {
    if (isWordy(m[1]!) && (m[1]!.length >= 5 || /[a-z]{3}/.test(m[1]!))) return true;
  }
  return false;
}

const IDENT = '[A-Za-z_$][\\w$]*';
const PATH = `${IDENT}(?:(?:\\?\\.|\\.|::|->|!\\.)${IDENT})*`;
const ARGS = '[\\w$.\\s,\'"`:{}\\[\\]-]*';
const CODE_SHAPES: RegExp[] = [
  new RegExp(`^(?:new\\s+|await\\s+|typeof\\s+|yield\\s+|!+|\\.\\.\\.|&|\\*)?${PATH}[!?]?$`), // identifier / property access
  // call, arguments of names and literals (may run on to the next line), optionally chained
  // (a call left open must end at `(` or `,`: `Math.max(`, `foo(a,`)
  new RegExp(`^(?:new\\s+|await\\s+)?${PATH}(?:<[\\w$.,\\s]*>)?\\((?:${ARGS}\\)(?:\\.${PATH}\\(${ARGS}\\))*|(?:${ARGS},)?)[;,)]*$`),
  new RegExp(`^${PATH}(?:\\[[\\w$.'"+\\-]*\\])+(?:\\.${PATH})*[;,)]*$`), // index
  new RegExp(`^${PATH}(?:\\[[\\w$.'"+\\-]*\\])*\\[$`), // an index whose quoted key the match stopped at: `request.form[`
  /^[[{(]$|^[[{(][\s\])}]*$|^\(\)\s*=>|^=>/, // structure opening on this line, arrow
  new RegExp(`^&?${PATH}\\{[\\w\\s,:.&"']*\\}?[;,)]*$`), // a Go composite literal: `&api.Pod{}`
  /^-?(?:\d+(?:\.\d+)?|0x[0-9a-f]{1,8})(?:ms|s|m|h|d|kb|mb|gb|px|em|%)?[;,]?$/i, // numbers, durations, sizes
  /^(?:https?|file|wss?):\/\/[^@\s]*$/i, // a URL without credentials
];

// A file path whose parts read as names (`/etc/secrets/db.txt`, `./node_modules/x`), not base64 that starts with `/`.
// A relative path (`foobar/__init__.py`, `path\to\settings.cfg`) must end in a file name with an extension: a bare
// `v1/a8f3k2m9x0q1` is as likely a token with a slash in it.
const PATH_SHAPE = /^\.{0,2}\/[\w./@-]*$|^~\/[\w./@-]*$|^[A-Za-z]:\\[\w\\. -]*$|^[\w.@-]+(?:[\\/][\w.@-]+)*[\\/][\w@-]+\.[A-Za-z][A-Za-z0-9]{0,7}$/;
function isFilePath(v: string): boolean {
  if (!PATH_SHAPE.test(v)) return false;
  return v.split(/[\\/]/).every((p) => p.length <= 3 || /^[a-z0-9._@-]+$/.test(p) || isWordy(p));
}

/** `db_password`, `max_retry_count`: snake_case with a real word in it (`abc_def` is not). */
function snakeName(p: string): boolean {
  return /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(p) && p.split('_').some((w) => w.length >= 4 && isWordy(w));
}

/** `Math.max`, `this.options.getItemKey`, `TOKEN_TYPES.Identifier`: each part a word, a short name or CONSTANT_CASE. */
function isIdentifierPath(path: string): boolean {
  if (path.replace(/[^A-Za-z]/g, '').length < 3) return false; // `QM(`, `Ab[`: too short to read as a name
  // `str`, `len`, `MyAuth`, `getItemKey`: lower-case names and camel/Pascal words (random case does not look so).
  if (/^[_$]*(?:[a-z][a-z0-9_$]{2,15}|[a-z]{2,}(?:[A-Z][a-z]*)*[0-9]{0,2}|(?:[A-Z][a-z]+){2,}[0-9]{0,2})$/.test(path)) return true;
  const parts = path.split(/\?\.|\.|::|->|!\./);
  if (parts.length === 1) return isWordy(path);
  return parts.every((p) => isWordy(p) || /^\$?(?:[a-z]{1,12}|[A-Z][a-z]{1,12}|[A-Z][A-Z0-9_]{0,30}|_+[a-z][a-z0-9_]*)$/.test(p) || snakeName(p));
}

/** An unquoted value that is code, a type, a number, a URL or a path, not a literal secret. */
export function isCode(value: string): boolean {
  // Keep the comma of a call left open (`fn(a,`): it is what says the arguments go on.
  const open = value.split('(').length > value.split(')').length;
  const v = open ? value : value.replace(/[;,]+$/, '');
  if (isFilePath(v)) return true;
  for (const re of CODE_SHAPES) {
    if (!re.test(v)) continue;
    // A random identifier-shaped string (`Xk9qLmZ2pW`) is still a possible password.
    const head = v.match(new RegExp(`^(?:new\\s+|await\\s+|typeof\\s+|yield\\s+|!+|\\.\\.\\.|&|\\*)?(${PATH})`));
    if (!head || isIdentifierPath(head[1]!)) return true;
  }
  return false;
}

// A key name that describes a credential without holding one: `passwordLength`, `tokenType`, `secretName`, `keyPath`.
const META_KEY_SUFFIX =
  /(?:^|[_.\-\s]|[a-z0-9](?=[A-Z]))(?:length|len|limit|count|size|max|min|type|types|kind|name|names|label|field|fields|path|paths|file|files|dir|folder|prefix|suffix|url|uri|urls|endpoint|header|headers|param|params|expiry|expires|expiration|expiresin|ttl|timeout|index|idx|regex|regexp|re|pattern|format|mode|policy|policies|version|hint|placeholder|text|message|msg|error|errors|description|desc|title|ref|refs|id|ids|env|var|variable|column|col|attr|attribute|prop|property|option|options|schema|validator|provider|manager|service|handler|callback|fn|func|event|events|status|store|storage|cache|map|set|list|array|enabled|required|visible|valid|strength|rules|rule|at|by|algorithm|alg|mask|masked|location|source|sources|target|namespace|expression|schedule|rotation|ref)$/i;

// Keys that are not credentials though named like one: database and DynamoDB keys (`primaryKey`, `sort_key`),
// public halves (`public_key`, `publicToken`), keyboard and animation keys (`key_down_event`, `keyframe`), and
// anti-forgery tokens (`csrf-token`, `authenticity_token`), which a page prints into every form it serves.
/** Words that make an environment variable's name a credential's (its value is then never read as configuration). */
const CREDENTIAL_NAME = /pass|pwd|secret|token|key|auth|cred|salt|sig|cert|priv|session|cookie/i;

const NOT_A_CREDENTIAL_KEY =
  /(?:^|[_.\-])(?:public|pub|primary|foreign|schema|sequence|bucket|idx|natural|sort|partition|range|hash|cache|row|map|dict|lookup|csrf|xsrf|authenticity)[_.\-]?(?:key|token)s?(?:$|[_.\-])|(?:^|[_.\-])key[_.\-]?(?:alias|board|code|frame|pair|press(?:ed)?|ring|selector|stone|word|up|down|left|right|event|mesh)(?:$|[_.\-])/;
/**
 * Key names are matched in snake form (`bitbucketToken` → `bitbucket_token`): a hump is a boundary, and only a hump —
 * `bitbucketToken` names a Bitbucket token, not an S3 bucket's key.
 */
const snakeKey = (k: string) => k.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

// A name that says its value is not the real one: `fakeToken`, `dummy_password`, `exampleKey`, `invalidSecret`,
// `nonMatchingToken`, `wrong_pass`. Test suites and docs name their stand-ins so; a real credential is not named so.
const NOT_REAL_KEY = /(?:^|[_.\-])(?:fake|dummy|mock|mocked|example|sample|placeholder|invalid|bogus|wrong|incorrect|non[_.\-]?matching|not[_.\-]?real)(?:$|[_.\-])/;

export function keyIsMeta(key: string | undefined): boolean {
  if (!key) return false;
  const k = key.replace(/^["'`[]+|["'`\]]+$/g, '');
  if (NOT_A_CREDENTIAL_KEY.test(snakeKey(k)) || NOT_REAL_KEY.test(snakeKey(k))) return true;
  // `api_key`, `secret_key`, `private_key`: the trailing word is the credential itself.
  if (/(?:api|access|secret|private|signing|encryption|master|session|client|app|auth|account|storage|license|service|server|host|deploy|ssh|gpg|pgp|webhook|shared|consumer)[_.\-]?key$/i.test(k)) return false;
  if (/(?:^|[_.\-])(?:pass(?:word)?|pwd|secret|token)$/i.test(k)) return false;
  return META_KEY_SUFFIX.test(k);
}

const PROSE_WORDS = /\b(?:the|your|is|are|to|of|for|and|or|please|enter|must|be|not|invalid|required|a|an|with|this|that|you|was|were|will|can|cannot|should|here|from|in|on|at|if|de|la|le|el|und|der|die)\b/i;

function isProse(v: string): boolean {
  if (!/\s/.test(v)) return false;
  const words = v.trim().split(/\s+/);
  return words.length > 6 || PROSE_WORDS.test(v) || /[.!?:]$/.test(v.trim()) || /^[A-Z][a-z]/.test(v);
}

/**
 * An unquoted value read on a line of escaped text (a JSON string holding code: `Client(auth=api_key)\n    self…`)
 * ends at the first escape sequence; the decoded view judges what follows as the next line.
 */
function cutAtEscape(v: string): string {
  const k = v.search(/\\[nrt"'\\]/);
  return k > 0 ? v.slice(0, k) : v;
}

/** Trailing `,` `;` and unbalanced `)` of an unquoted value (`password=password,`, `bytes)`). */
function trimTrail(v: string): string {
  let t = v.replace(/[,;]+$/, '');
  const count = (c: string) => t.split(c).length - 1;
  while (t.endsWith(')') && count(')') > count('(')) t = t.slice(0, -1).replace(/[,;]+$/, '');
  return t;
}

/**
 * A variable named for what it holds, closing the dict or list it sits in (`{'password': password}`): a name, not
 * a literal. Only such names: `hunter22]` keeps its bracket and is judged as a value.
 */
function closesStructureWithName(v: string): boolean {
  const m = /^([A-Za-z_$][\w$]*)[}\]]+[,;)]*$/.exec(v);
  if (!m) return false;
  const open = (c: string) => v.split(c).length - 1;
  return (open('{') < open('}') || open('[') < open(']')) && isPlaceholder(m[1]!);
}

/** An unquoted value cut at `,` inside a call (`compat.quote(PASSWORD, "")`): judge it as the open call it is. */
function withOpenCall(v: string, after: string): string {
  const opens = v.split('(').length - v.split(')').length;
  return opens > 0 && /^\s*,/.test(after) ? `${v},` : v;
}

/**
 * `GOOGLE_APPLICATION_CREDENTIALS`, `DB_PASSWORD`: an environment variable's name given where its value would go
 * (`password: DB_PASSWORD`, a table of required variables). Upper-case parts joined by `_`, one of them a word.
 */
export function isEnvName(v: string): boolean {
  if (!/^[A-Z][A-Z]*[0-9]*(?:_[A-Z]+[0-9]*)+$/.test(v)) return false;
  return v.split('_').some((p) => /^(?:KEY|TOKEN|SECRET|PASS|PASSWORD|PWD|AUTH|CREDS?|API|URL|ID)$/.test(p) || (p.length >= 4 && isWordy(p)));
}

/**
 * A name as people write them in code: camelCase / snake_case parts, each a word or a short abbreviation
 * (`pwdHash`, `userPassword`, `db_pass`). Random letters (`pdclsxHKifxiCvQU`) break into single capitals and long
 * parts that are not words.
 */
function readsAsName(v: string): boolean {
  // A one-letter hump between capitals (`…uKlF…`) or a lone capital at the end (`…piQ`) is random case, not a name
  // (`userId`, `getIoTDevice`: the usual two-letter words are allowed).
  if (/(?!Id|Io|Ui|Db|Os|Js|Ts|Go|Ok|Ai|Ip|Op|Up|Of|On|To|In|At|By|Is|Or|No)[A-Z][a-z][A-Z]|[a-z]{2}[A-Z]$/.test(v)) return false;
  if (isWordy(v)) return true;
  const parts = v.split('_').flatMap((p) => p.match(/[A-Z]{2,}(?=[A-Z][a-z]|[^A-Za-z]|$)|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g) ?? []);
  if (parts.length === 0 || !parts.every((p) => /^[0-9]{1,2}$/.test(p) || (p.length >= 2 && (p.length <= 4 || isWordy(p))))) return false;
  // Abbreviations lean on a word (`pwdHash`, `dbPass`); a run of two-letter humps (`QwRtZxPlKm`) is not a name.
  return parts.length <= 2 || parts.some((p) => p.length >= 4 && /[a-z]{3}/.test(p) && isWordy(p));
}

/** Letters and digits that do not read as a name (`password: pdclsxHKifxiCvQU`): a literal, whatever its case. */
function literalLetters(v: string, after: string): boolean {
  return /^[A-Za-z0-9]+$/.test(v) && !/^\s*[,;)]/.test(after) && !readsAsName(v);
}

// A shell command substitution (`$(python -c …)`, `` `openssl rand` ``): the value is computed, not written here.
const COMMAND_SUBSTITUTION = /^(?:\$\(|`)/;

/*
 * Words that make a PascalCase value a type or a class (`password: PasswordInput`, `secret: SecretStr`,
 * `pwd: HashedBuffer`): code vocabulary, and the credential words themselves. A value made only of other capitalised
 * words (`password: ZebraMangoKiwi`) is a passphrase.
 */
const CODE_WORDS = new Set(
  (
    'string str text char chars type types field fields input output hash hashed hasher options option opts config ' +
    'settings schema password passwords passwd pass pwd secret secrets token tokens credential credentials cred creds key ' +
    'keys value values props prop params param data model models dto entity interface buffer bytes byte array list ' +
    'set map dict record object obj form widget validator validation encoder decoder provider manager service handler ' +
    'column policy rule rules strength meter component view state store class enum util utils helper request response ' +
    'payload body result error errors exception mixin base abstract generic optional nullable readonly partial int ' +
    'integer number num boolean bool union literal any unknown void null none default required reset change confirm ' +
    'confirmation update create new old current user users account login auth action event message label placeholder ' +
    'visibility toggle icon button box area prompt dialog modal context hook factory builder resolver reader writer ' +
    'stream file path uri url id name secure sensitive masked hidden plain encrypted crypto cipher salt digest env ' +
    'environment variable var const static final public private protected internal vault ref reference binding ' +
    'annotation attribute attr decorator guard filter spec test mock fake stub example sample demo'
  ).split(' '),
);

/**
 * `ZebraMangoKiwi`: two or more capitalised words (a digit or symbol may end it), none of them code vocabulary.
 * Only as the whole value of a statement (judged by the caller): in code such a name is a class or a constant.
 */
export function capitalisedWords(v: string): boolean {
  const m = /^((?:[A-Z][a-z]{2,}){2,6})[0-9!?.#@$%&*+=_-]{0,4}$/.exec(v);
  if (!m) return false;
  const words = m[1]!.match(/[A-Z][a-z]+/g) ?? [];
  return words.every((w) => !CODE_WORDS.has(w.toLowerCase()));
}

/**
 * The key starts its line (after indentation or a YAML list dash) and the value ends it (a comment may follow):
 * `password: …` in YAML, INI, .env, properties — a statement of its own, not a property inside code.
 */
function ownStatement(lead: string | undefined, after: string): boolean {
  return lead !== undefined && /^\s*(?:-\s+)?$/.test(lead) && /^\s*(?:[#;].*)?$/.test(after);
}

function passwordLike(v: string, quoted: boolean, after: string, lead?: string): boolean {
  if (!quoted && (closesStructureWithName(v) || COMMAND_SUBSTITUTION.test(v))) return false;
  if (!quoted) v = withOpenCall(trimTrail(cutAtEscape(v)), after);
  if (v.length < 6 || isPlaceholder(v) || isProse(v) || isEnvName(v)) return false;
  if (quoted) return true;
  if (/\s/.test(v)) return false;
  // `credentials: neither can be re-created …`: a word followed by more words is prose.
  if (/^\s+[A-Za-z]/.test(after) && isWordy(v) && /^[A-Za-z]+$/.test(v)) return false;
  if (!isCode(v)) return true;
  if (literalLetters(v, after)) return true;
  if (capitalisedWords(v) && ownStatement(lead, after)) return true;
  // `password: hunter2` in YAML / INI is a literal; `password: userPassword,` or `pwd: opts.pwd` in code is not.
  // A camelCase identifier, a path or call, or one followed by `,` / `;` / `)` reads as code.
  return !(/^\s*[,;)]/.test(after) || /[.([$:<>]/.test(v) || /[a-z][A-Z]/.test(v));
}

function credentialLike(v: string, quoted: boolean, after = ''): boolean {
  if (!quoted && (closesStructureWithName(v) || COMMAND_SUBSTITUTION.test(v))) return false;
  if (!quoted) v = withOpenCall(trimTrail(cutAtEscape(v)), after);
  // Tokens hold no spaces and no commas (`192.168.0.0/24,127.0.0.1,localhost` is a list).
  if (v.length < 8 || /[\s]|,./.test(v) || isPlaceholder(v) || isEnvName(v)) return false;
  if (!quoted && isCode(v) && !literalLetters(v, after)) return false;
  if (isWordy(v)) return false;
  // `jjwt-jackson-0.11.2`, `lodash@4.17.21`: a package and its version, not a credential.
  const artifact = /^([a-z][a-z0-9.-]*)[-@:]v?\d+(?:\.\d+){1,3}(?:-[a-z0-9.]+)?$/.exec(v);
  if (artifact && artifact[1]!.split(/[.-]/).some((p) => p.length >= 4 && isWordy(p))) return false;
  // (Not `typedInOrder` here: gitleaks' own positives put `12345678-ABCD-ABCD-ABCD-1234567890AB` under a token name.)
  // `pkcs12-file`, `x-api-key`, `sha256_digest`: a lower-case name of short parts, half of them words.
  if (/^[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+$/.test(v)) {
    const parts = v.split(/[-_.]/);
    if (parts.every((p) => p.length <= 12) && parts.filter((p) => isWordy(p)).length * 2 >= parts.length) return false;
  }
  return shannonEntropy(v) >= 2.5;
}

const COOKIE_ATTRIBUTE = /^(?:path|domain|expires|max-age|samesite|secure|httponly|priority|partitioned|version|comment)$/i;
const SESSION_COOKIE = /sess|sid|token|auth|jwt|remember|login|secret|key|cred|uid|^id$|[_.-]id$/i;

/** A Cookie / Set-Cookie header value: some `name=value` pair is a session-like cookie, or its value reads as random. */
function cookieLike(header: string): boolean {
  for (const pair of header.split(/;\s*/)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim().replace(/^["'`]+/, '');
    const value = pair.slice(eq + 1).trim().replace(/["'`,)]+$/, '');
    // A cookie name is a token: no spaces, parentheses or commas (`jar.get(key, domain=…)` is code).
    if (!/^[\w.!#$%&'*+^`|~-]+$/.test(name) || COOKIE_ATTRIBUTE.test(name) || value.length < 6 || isPlaceholder(value)) continue;
    if (SESSION_COOKIE.test(name) || credentialLike(value, true)) return true;
  }
  return false;
}

function longestRun(v: string): number {
  let best = 0;
  for (const run of v.match(/[A-Za-z0-9+/=]+/g) ?? []) if (run.length > best) best = run.length;
  return best;
}

function caseSwitches(v: string): number {
  let n = 0;
  for (let i = 1; i < v.length; i++) {
    const a = v[i - 1]!;
    const b = v[i]!;
    if ((a >= 'a' && a <= 'z' && b >= 'A' && b <= 'Z') || (a >= 'A' && a <= 'Z' && b >= 'a' && b <= 'z')) n++;
  }
  return n;
}

function randomLike(v: string, before = '', after = ''): boolean {
  if (NOT_SECRET_LABEL.test(before)) return false;
  // The value stopped at filler (`xoxp-5723…-####################`): the body was never filled in.
  if (/^(?:#{4}|\*{4})/.test(after)) return false;
  if (v.length < 16 || isPlaceholder(v) || isWordy(v) || isCode(v) || typedInOrder(v)) return false;
  // Letters and separators only (gitleaks drops these outright): random only if the case flips all the time.
  if (/^[A-Za-z_.-]+$/.test(v) && caseSwitches(v) < v.length / 4) return false;
  // Tokens are long unbroken runs; `gpt-3.5-turbo-0301`, dates and versions are short pieces between separators.
  if (longestRun(v) < 12) return false;
  return shannonEntropy(v) >= 3;
}

// Environment names that say what their value is, and it is not a credential: `OPENAI_MODEL_NAME=gpt-4o`,
// `COMMUNICATION_API_VERSION=rc0.13.0`, `CHROMA_HOST=…`, `PATH=…`. A credential in such a value is still caught
// by its own shape (URL userinfo, provider tokens) before this rule.
const ENV_META_NAME =
  /(?:^|_)(?:VERSION|VER|NAME|MODEL|HOST|HOSTNAME|PORT|DIR|PATH|HOME|REGION|ZONE|LEVEL|MODE|ENV|TYPE|FORMAT|TIMEOUT|SIZE|COUNT|LIMIT|LANG|LOCALE|TZ|BRANCH|TAG|IMAGE|USER|USERNAME|EMAIL|CHARSET|ENCODING|PROFILE|STAGE|THEME|PREFIX|SUFFIX|PUBLIC_KEY|PUBKEY|ADDR|ADDRESS|REPLICAS|SNITCH|ENGINE)$/;

function envValueLike(v: string): boolean {
  const t = trimTrail(cutAtEscape(v.replace(/^\\["'`]/, ''))).replace(/^[$\\"'`]+|[\\"'`}\]]+$/g, '');
  // Shell arrays and substitutions, short values: `COMPREPLY=()`, `IFS=$'\n'`, `X=$(cmd)`; code: `{FS=":";printf`.
  if (t.length < 6 || /^[($:]/.test(t) || /[;{}]/.test(t) || isPlaceholder(t)) return false;
  // Ciphertext that is meant to be committed: dotenvx `encrypted:…`, sops `ENC[…]`.
  if (/^(?:encrypted:|ENC\[)/.test(t)) return false;
  // A YAML key cut out of a quoted value (`NODE="nodeSelector: { … }"`).
  if (/^[A-Za-z_][\w.-]*:$/.test(t)) return false;
  // One word: `Release`, `production`, `distcc`.
  if (/^[A-Za-z][a-z]{0,11}$/.test(t)) return false;
  const url = /^[a-z][a-z0-9+.-]*:\/\/(?:([^\s/@:]*):([^\s/@]*)@)?/i.exec(t);
  if (url) {
    // A database / queue URL in the environment (spec 000's own example, DATABASE_URL=postgres://…) counts as is.
    // A local development address without credentials (`redis://localhost:6379/0`, a compose service `redis://redis:6379`)
    // names no secret.
    const local = /^[a-z+]+:\/\/(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|[a-z][a-z0-9-]*:\d{2,5}|\$\{?[A-Za-z_]\w*\}?)(?::(?:\d{2,5}|\$\{?[A-Za-z_]\w*\}?))?(?:\/[\w.-]*)?$/i.test(t);
    if (/^(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|oracle)/i.test(t)) return !local;
    return url[2] !== undefined && !isPlaceholder(url[2]) && url[2].length > 2;
  }
  if (/^-?\d+(?:\.\d+)?$/.test(t)) return false;
  if (/^(?:[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*)$/.test(t) && t.length <= 24 && isWordy(t)) return false; // production, en_US, info
  if (isFilePath(t)) return false; // paths
  // Code and addresses: a call (`os.path.join(app.instance_path,`), an entry point called (`app.main:create_app('dev')`;
  // not a bare `a:b`, which may be user:password), a host and port (`localhost:80`).
  const call = new RegExp(`^(${PATH})(?::(${PATH}))?\\(`).exec(t);
  if (call && [call[1], call[2]].every((n) => n === undefined || isIdentifierPath(n))) return false;
  if (/^(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+):\d{1,5}$/i.test(t)) return false;
  if (/^(?:https?:\/\/(?:localhost|127\.0\.0\.1)(?::\d+)?[\w./-]*)$/.test(t)) return false;
  return true;
}

const PASSWORD_KEY = /pass|pwd|pw(?:$|[^a-z])|pswd|cred/i;

/**
 * The token shape opens a quoted literal assigned to a credential name (`hf_token = 'hf_…`): two pieces of evidence,
 * the name and the provider's format, outweigh filler in the body (secretlint counts `hf_token = 'hf_xxxx…'` as a
 * secret). Bare or unquoted filler tokens in docs (`ghp_xxxx…`, `KEY=pplx-xxxx…`) stay placeholders.
 */
function namedLiteral(lead: string | undefined): boolean {
  return lead !== undefined && /(?:pass|pwd|secret|token|key|auth|cred)[A-Za-z0-9_.-]*["'`]?\s*(?:=>|:=|[:=])\s*["'`]$/i.test(lead);
}

/** `dXNlcjpwYXNz` → user `user`, password `pass`; null unless it is base64 of printable `user:password`. */
function decodeBasic(v: string): { user: string; password: string } | null {
  if (!/^[A-Za-z0-9+/]{4,}={0,2}$/.test(v) || v.length % 4 !== 0) return null;
  const text = Buffer.from(v, 'base64').toString('latin1');
  const colon = text.indexOf(':');
  if (colon < 0 || !/^[\x20-\x7e]+$/.test(text)) return null;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

export function checkValue(name: ValueCheckName, input: ValueCheckInput): boolean {
  let v = input.value.trim();
  const after = input.after ?? '';
  // (The key of `userinfo` is the user name of a URL, not a key name.)
  if (name !== 'env' && name !== 'userinfo' && keyIsMeta(input.key)) return false;
  // Ciphertext meant to be committed (sops `ENC[AES256_GCM,…]`, dotenvx `encrypted:…`), as for env values.
  if (name !== 'userinfo' && /^["'`]?(?:ENC\[[A-Z0-9_]+(?:,|$)|encrypted:[A-Za-z0-9+/=]{16})/.test(v)) return false;
  switch (name) {
    case 'keyed': {
      const key = (input.key ?? '').replace(/^["'`]+|["'`]+$/g, '');
      // A bare `pass` / `pw` is as often English ("First pass: ~$5-7/100 URLs") as a key: it needs a random-looking
      // value with a long unbroken run.
      if (/^(?:pass|pw)$/i.test(key)) {
        return (credentialLike(v, input.quoted, after) && longestRun(v) >= 8) || (!input.quoted && capitalisedWords(trimTrail(v)) && ownStatement(input.lead, after));
      }
      return PASSWORD_KEY.test(key) ? passwordLike(v, input.quoted, after, input.lead) : credentialLike(v, input.quoted, after);
    }
    case 'prose': {
      // "the admin password is hunter2"; but "a password file to decrypt:" (after `to`, a lower-case word is a verb).
      // `<input type=password name=password>`: the tag's end is not part of the value.
      const w = v.replace(/\/?>+$/, '').replace(/[:.;!?]+$/, '');
      if (/^to$/i.test(input.key ?? '') && /^[a-z]+$/.test(w)) return false;
      // "… if password is provided", "the password is required": a participle after the verb is prose.
      if (/^(?:is|was|are)$/i.test(input.key ?? '') && /^[a-z]{3,}ed$/.test(w) && isWordy(w)) return false;
      return passwordLike(w, false, after);
    }
    case 'flag':
      // `--password --all-databases`: the flag prompts, the next word is another flag.
      if (v.replace(/^["'`@]+/, '').startsWith('-')) return false;
      // `--token=foo/system:masters`: a token flag given lower-case names joined by `/` or `:` (a user and its
      // groups), not a token. A password flag keeps any value: people pick words.
      if (input.key !== undefined && !PASSWORD_KEY.test(input.key) && /^[a-z][a-z-]{0,23}(?:[/:][a-z][a-z-]{0,23})+$/.test(v)) return false;
      return checkValue('userinfo', { ...input, key: undefined });
    case 'userinfo': {
      // `u:p@`, `:x@` are fixtures; `{}`/`%s`/`${VAR}`/`{{password}}` are templates (quotes around them too).
      const q = v.replace(/^["'`@]+|["'`]+$/g, '');
      if (q.length <= 2 || isPlaceholder(q)) return false;
      // `mongodb://mongodb:mongodb@`, `admin:admin@`: a password equal to the user name is a fixture.
      if (input.key !== undefined && input.key.toLowerCase() === q.toLowerCase()) return false;
      v = q;
      // `user:pass%20pass@`: every word of the (percent-decoded) password a placeholder word.
      const words = v.replace(/%[0-9A-Fa-f]{2}/g, ' ').split(/[^A-Za-z0-9]+/).filter(Boolean);
      return !(words.length > 0 && words.every((w) => PLACEHOLDER_WORDS.has(w.toLowerCase())));
    }
    case 'password':
      return passwordLike(v, input.quoted, after, input.lead);
    case 'credential': {
      // `Basic dXNlcjpwYXNz` is `user:pass`: judged as the user:password it encodes.
      const basic = /basic\s+$/i.test(input.before ?? '') ? decodeBasic(v) : null;
      if (basic) return checkValue('userinfo', { value: basic.password, key: basic.user, quoted: true });
      return credentialLike(v, input.quoted, after);
    }
    case 'random':
      return randomLike(v, input.before, after);
    case 'env': {
      const key = input.key ?? '';
      if (ENV_META_NAME.test(key)) return false;
      // `SHARDS=$SHARDS`, `X=${OTHER}`: a reference to another variable.
      if (/^["']?\$\{?[A-Za-z_][A-Za-z0-9_]*\}?["']?$/.test(v)) return false;
      // Under a name that is not a credential's, a value that reads as a name (`ENGINE=InnoDB`) is configuration.
      const bare = v.replace(/^["']|["']$/g, '');
      const credentialName = CREDENTIAL_NAME.test(key);
      if (!credentialName && /^[A-Za-z]{2,32}$/.test(bare) && readsAsName(bare)) return false;
      // `DATABRICKS_TOKEN=dapi1234567890…`: typed in alphabet order, a stand-in (a password name keeps its value).
      if (!PASSWORD_KEY.test(key) && bare.length >= 16 && typedInOrder(bare)) return false;
      // `FZF_DEFAULT_OPTS="--ansi"`: command-line options under a name that is not a credential's.
      if (!credentialName && /^--?[a-z][a-z-]*(?:[= ]|$)/.test(bare)) return false;
      // `CONTEXTPACK_MODEL_DTYPE=q4|int8|fp32`: the choices a setting takes, as docs list them.
      if (!credentialName && /^[a-z0-9_.-]{1,12}(?:\|[a-z0-9_.-]{1,12})+[`"']?[,;.)]*$/.test(bare)) return false;
      return envValueLike(v);
    }
    case 'email':
      // `git@github.com:org/repo.git` is an scp-style remote; `logo@2x.png` an image name.
      return !/^:[^\s]/.test(after) && !/\.(?:png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?)$/i.test(v);
    case 'cookie':
      return cookieLike(v);
    case 'token':
      return !isWordy(v) && !(isPlaceholderToken(v) && !namedLiteral(input.lead));
    case 'shape':
      // Filler right after the match belongs to the body the shape stopped at (`xoxp-…-####################`).
      // A template where the secret goes (`AccountKey=<...>`, `${KEY}`, `{{ .Values.key }}`) holds none.
      if (/^(?:<[^<>]*>|\$\{[^}]*\}|\{\{.*\}\}|%[A-Z_]+%)$/.test(v)) return false;
      return !(isPlaceholderToken(v + after) && !namedLiteral(input.lead));
  }
}
