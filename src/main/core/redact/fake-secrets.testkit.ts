/*
 * Test-only generator of FAKE secrets: random, format-correct values (right
 * prefixes, lengths, alphabets; no checksums) built at run time from a seeded
 * PRNG, so no secret-shaped literal is ever committed and runs are repeatable.
 */

export interface Rng {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chars(alphabet: string, n: number): string;
}

/** mulberry32: tiny, seedable, good enough for test data. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)],
    chars: (alphabet, n) => {
      let s = '';
      for (let i = 0; i < n; i++) s += alphabet[int(0, alphabet.length - 1)];
      return s;
    },
  };
}

export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const DIGITS = '0123456789';
export const HEX = '0123456789abcdef';
export const B62 = UPPER + LOWER + DIGITS;
export const B64 = B62 + '+/';
export const B64URL = B62 + '_-';
const PASSWORD_CHARS = B62 + '!@#$%^&*-_+.?~()[]{}<>|/:';
const URL_SAFE_PASSWORD_CHARS = B62 + '-_.~!*';

const b62 = (r: Rng, n: number) => r.chars(B62, n);
const hex = (r: Rng, n: number) => r.chars(HEX, n);
const digits = (r: Rng, n: number) => r.chars('123456789', 1) + r.chars(DIGITS, n - 1);

/** Alphabet helpers bound to one Rng, for building format-correct fakes inline in tests. */
export function alphabets(r: Rng) {
  return {
    b62: (n: number) => r.chars(B62, n),
    hex: (n: number) => r.chars(HEX, n),
    b64: (n: number) => r.chars(B64, n),
    b64url: (n: number) => r.chars(B64URL, n),
    upnum: (n: number) => r.chars(UPPER + DIGITS, n),
    digits: (n: number) => digits(r, n),
  };
}

function base64url(bytes: string): string {
  return Buffer.from(bytes, 'utf8').toString('base64url');
}

export function fakePassword(r: Rng, urlSafe = false): string {
  const alphabet = urlSafe ? URL_SAFE_PASSWORD_CHARS : PASSWORD_CHARS;
  return r.chars(alphabet, r.int(10, 22));
}

export function fakeJwt(r: Rng): string {
  const header = base64url(JSON.stringify({ alg: r.pick(['HS256', 'RS256', 'ES256']), typ: 'JWT' }));
  const payload = base64url(
    JSON.stringify({ sub: digits(r, 8), name: 'Test User', iat: 1700000000 + r.int(0, 9999999), scope: 'read write' }),
  );
  return `${header}.${payload}.${r.chars(B64URL, 43)}`;
}

/**
 * One family of credential. `selfIdentifying` families have a shape that is
 * recognisable anywhere (prefixes like ghp_, AKIA); the others (a bare 40-char
 * AWS secret, a 32-hex Twilio token, a password) are only detectable next to
 * a key name, which is how every secret scanner works too.
 */
export interface SecretFamily {
  id: string;
  /** How the value is usually named (env style). Always contains a key word. */
  keyName: string;
  /** A phrase naming it in prose; contains a key word (key, token, secret, password). */
  human: string;
  selfIdentifying: boolean;
  make(r: Rng): string;
}

export const SECRET_FAMILIES: readonly SecretFamily[] = [
  { id: 'aws_access_key_id', keyName: 'AWS_ACCESS_KEY_ID', human: 'AWS access key', selfIdentifying: true,
    make: (r) => r.pick(['AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA']) + r.chars(UPPER + DIGITS, 16) },
  { id: 'aws_secret_access_key', keyName: 'AWS_SECRET_ACCESS_KEY', human: 'AWS secret access key', selfIdentifying: false,
    make: (r) => r.chars(B64, 40) },
  { id: 'aws_session_token', keyName: 'AWS_SESSION_TOKEN', human: 'AWS session token', selfIdentifying: false,
    make: (r) => 'IQoJb3JpZ2luX2Vj' + r.chars(B64, 300) },
  { id: 'google_api_key', keyName: 'GOOGLE_API_KEY', human: 'Gemini API key', selfIdentifying: true,
    make: (r) => 'AIza' + r.chars(B64URL, 35) },
  { id: 'google_oauth_client_secret', keyName: 'GOOGLE_CLIENT_SECRET', human: 'Google OAuth client secret', selfIdentifying: true,
    make: (r) => 'GOCSPX-' + r.chars(B64URL, 28) },
  { id: 'google_oauth_access_token', keyName: 'GOOGLE_ACCESS_TOKEN', human: 'Google access token', selfIdentifying: true,
    make: (r) => 'ya29.' + r.chars(B64URL, 120) },
  { id: 'azure_storage_key', keyName: 'AZURE_STORAGE_KEY', human: 'Azure storage account key', selfIdentifying: false,
    make: (r) => r.chars(B64, 86) + '==' },
  { id: 'azure_ad_client_secret', keyName: 'AZURE_CLIENT_SECRET', human: 'Azure client secret', selfIdentifying: true,
    make: (r) => r.chars(B62, 3) + r.chars(DIGITS, 1) + 'Q~' + r.chars(B62 + '_~.-', 34) },
  { id: 'github_token', keyName: 'GITHUB_TOKEN', human: 'GitHub token', selfIdentifying: true,
    make: (r) => r.pick(['ghp', 'gho', 'ghu', 'ghs', 'ghr']) + '_' + b62(r, 36) },
  { id: 'github_fine_grained_pat', keyName: 'GH_PAT_TOKEN', human: 'GitHub fine-grained token', selfIdentifying: true,
    make: (r) => 'github_pat_' + b62(r, 22) + '_' + b62(r, 59) },
  { id: 'gitlab_token', keyName: 'GITLAB_TOKEN', human: 'GitLab token', selfIdentifying: true,
    make: (r) => r.pick(['glpat', 'gldt', 'glrt', 'glptt']) + '-' + r.chars(B64URL, 20) },
  { id: 'bitbucket_app_password', keyName: 'BITBUCKET_APP_PASSWORD', human: 'Bitbucket app password', selfIdentifying: true,
    make: (r) => 'ATBB' + b62(r, 32) },
  { id: 'npm_token', keyName: 'NPM_TOKEN', human: 'npm token', selfIdentifying: true,
    make: (r) => 'npm_' + b62(r, 36) },
  { id: 'pypi_token', keyName: 'PYPI_TOKEN', human: 'PyPI token', selfIdentifying: true,
    make: (r) => 'pypi-AgEIcHlwaS5vcmc' + r.chars(B64URL, 70) },
  { id: 'rubygems_token', keyName: 'GEM_HOST_API_KEY', human: 'RubyGems API key', selfIdentifying: true,
    make: (r) => 'rubygems_' + hex(r, 48) },
  { id: 'dockerhub_pat', keyName: 'DOCKERHUB_TOKEN', human: 'Docker Hub token', selfIdentifying: true,
    make: (r) => 'dckr_pat_' + r.chars(B64URL, 27) },
  { id: 'slack_token', keyName: 'SLACK_BOT_TOKEN', human: 'Slack bot token', selfIdentifying: true,
    make: (r) => `xox${r.pick(['b', 'p', 'a', 'r', 's'])}-${digits(r, 11)}-${digits(r, 12)}-${b62(r, 24)}` },
  { id: 'slack_webhook', keyName: 'SLACK_WEBHOOK_SECRET', human: 'Slack webhook secret', selfIdentifying: true,
    make: (r) => `https://hooks.slack.com/services/T${r.chars(UPPER + DIGITS, 8)}/B${r.chars(UPPER + DIGITS, 8)}/${b62(r, 24)}` },
  { id: 'discord_bot_token', keyName: 'DISCORD_BOT_TOKEN', human: 'Discord bot token', selfIdentifying: true,
    make: (r) => r.pick(['M', 'N', 'O']) + r.chars(B62, 23) + '.' + r.chars(B64URL, 6) + '.' + r.chars(B64URL, 27) },
  { id: 'discord_webhook', keyName: 'DISCORD_WEBHOOK_TOKEN', human: 'Discord webhook token', selfIdentifying: true,
    make: (r) => `https://discord.com/api/webhooks/${digits(r, 18)}/${r.chars(B64URL, 68)}` },
  { id: 'telegram_bot_token', keyName: 'TELEGRAM_BOT_TOKEN', human: 'Telegram bot token', selfIdentifying: true,
    make: (r) => `${digits(r, 10)}:AA${r.chars(B64URL, 33)}` },
  { id: 'stripe_key', keyName: 'STRIPE_SECRET_KEY', human: 'Stripe secret key', selfIdentifying: true,
    make: (r) => r.pick(['sk_live_', 'rk_live_', 'sk_test_']) + b62(r, r.int(24, 99)) },
  { id: 'stripe_webhook_secret', keyName: 'STRIPE_WEBHOOK_SECRET', human: 'Stripe webhook secret', selfIdentifying: true,
    make: (r) => 'whsec_' + b62(r, 32) },
  { id: 'square_token', keyName: 'SQUARE_ACCESS_TOKEN', human: 'Square access token', selfIdentifying: true,
    make: (r) => 'EAAA' + r.chars(B64URL, 60) },
  { id: 'shopify_token', keyName: 'SHOPIFY_ACCESS_TOKEN', human: 'Shopify access token', selfIdentifying: true,
    make: (r) => r.pick(['shpat_', 'shpss_', 'shpca_']) + hex(r, 32) },
  { id: 'twilio_api_key', keyName: 'TWILIO_API_KEY', human: 'Twilio API key', selfIdentifying: true,
    make: (r) => 'SK' + hex(r, 32) },
  { id: 'twilio_auth_token', keyName: 'TWILIO_AUTH_TOKEN', human: 'Twilio auth token', selfIdentifying: false,
    make: (r) => hex(r, 32) },
  { id: 'sendgrid_api_key', keyName: 'SENDGRID_API_KEY', human: 'SendGrid API key', selfIdentifying: true,
    make: (r) => 'SG.' + r.chars(B64URL, 22) + '.' + r.chars(B64URL, 43) },
  { id: 'mailgun_key', keyName: 'MAILGUN_API_KEY', human: 'Mailgun API key', selfIdentifying: true,
    make: (r) => 'key-' + hex(r, 32) },
  { id: 'mailgun_private_key', keyName: 'MAILGUN_PRIVATE_KEY', human: 'Mailgun private key', selfIdentifying: false,
    make: (r) => `${hex(r, 32)}-${hex(r, 8)}-${hex(r, 8)}` },
  { id: 'mailchimp_api_key', keyName: 'MAILCHIMP_API_KEY', human: 'Mailchimp API key', selfIdentifying: true,
    make: (r) => `${hex(r, 32)}-us${r.int(1, 21)}` },
  { id: 'openai_api_key', keyName: 'OPENAI_API_KEY', human: 'OpenAI API key', selfIdentifying: true,
    make: (r) =>
      r.pick([
        () => 'sk-' + b62(r, 48),
        () => 'sk-proj-' + r.chars(B64URL, 156),
        () => 'sk-svcacct-' + r.chars(B64URL, 120),
        () => 'sk-' + b62(r, 20) + 'T3BlbkFJ' + b62(r, 20),
      ])() },
  { id: 'anthropic_api_key', keyName: 'ANTHROPIC_API_KEY', human: 'Anthropic API key', selfIdentifying: true,
    make: (r) => 'sk-ant-' + r.pick(['api03', 'admin01']) + '-' + r.chars(B64URL, 93) + 'AA' },
  { id: 'huggingface_token', keyName: 'HF_TOKEN', human: 'Hugging Face token', selfIdentifying: true,
    make: (r) => 'hf_' + b62(r, 34) },
  { id: 'groq_api_key', keyName: 'GROQ_API_KEY', human: 'Groq API key', selfIdentifying: true,
    make: (r) => 'gsk_' + b62(r, 52) },
  { id: 'xai_api_key', keyName: 'XAI_API_KEY', human: 'xAI API key', selfIdentifying: true,
    make: (r) => 'xai-' + b62(r, 80) },
  { id: 'perplexity_api_key', keyName: 'PPLX_API_KEY', human: 'Perplexity API key', selfIdentifying: true,
    make: (r) => 'pplx-' + b62(r, 48) },
  { id: 'replicate_api_token', keyName: 'REPLICATE_API_TOKEN', human: 'Replicate API token', selfIdentifying: true,
    make: (r) => 'r8_' + b62(r, 37) },
  { id: 'cohere_api_key', keyName: 'COHERE_API_KEY', human: 'Cohere API key', selfIdentifying: false,
    make: (r) => b62(r, 40) },
  { id: 'mistral_api_key', keyName: 'MISTRAL_API_KEY', human: 'Mistral API key', selfIdentifying: false,
    make: (r) => b62(r, 32) },
  { id: 'hashicorp_vault_token', keyName: 'VAULT_TOKEN', human: 'Vault token', selfIdentifying: true,
    make: (r) => 'hvs.' + r.chars(B64URL, 90) },
  { id: 'digitalocean_token', keyName: 'DIGITALOCEAN_TOKEN', human: 'DigitalOcean token', selfIdentifying: true,
    make: (r) => r.pick(['dop', 'doo', 'dor']) + '_v1_' + hex(r, 64) },
  { id: 'linear_api_key', keyName: 'LINEAR_API_KEY', human: 'Linear API key', selfIdentifying: true,
    make: (r) => 'lin_api_' + b62(r, 40) },
  { id: 'sentry_token', keyName: 'SENTRY_AUTH_TOKEN', human: 'Sentry auth token', selfIdentifying: true,
    make: (r) => 'sntrys_' + r.chars(B64, 60) },
  { id: 'jwt_token', keyName: 'SESSION_TOKEN', human: 'session token', selfIdentifying: true, make: fakeJwt },
  // Families issue #10 found missing (secretlint's recommended preset shapes).
  { id: 'cloudflare_token', keyName: 'CLOUDFLARE_API_TOKEN', human: 'Cloudflare API token', selfIdentifying: true,
    make: (r) => r.pick(['cfat_', 'cfut_', 'cfk_']) + b62(r, 40) + hex(r, 8) },
  { id: 'shopify_any_token', keyName: 'SHOPIFY_APP_SECRET', human: 'Shopify app secret', selfIdentifying: true,
    make: (r) => r.pick(['shpss_', 'shpat_', 'shpca_', 'shppa_']) + r.pick([() => hex(r, 32), () => b62(r, r.int(32, 64))])() },
  { id: 'tailscale_key', keyName: 'TS_AUTHKEY', human: 'Tailscale auth key', selfIdentifying: true,
    make: (r) => `tskey-${r.pick(['auth', 'api', 'client', 'scim', 'webhook'])}-k${b62(r, r.int(9, 12))}CNTRL-${b62(r, r.int(30, 40))}` },
  { id: 'vercel_token', keyName: 'VERCEL_TOKEN', human: 'Vercel token', selfIdentifying: true,
    make: (r) => r.pick(['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_']) + b62(r, r.int(24, 56)) },
  { id: 'sendgrid_any_key', keyName: 'SENDGRID_KEY', human: 'SendGrid key', selfIdentifying: true,
    make: (r) => `SG.${r.chars(B64URL, r.int(16, 22))}.${r.chars(B64URL, r.int(30, 43))}` },
  { id: 'onepassword_sa_token', keyName: 'OP_SERVICE_ACCOUNT_TOKEN', human: '1Password service account token', selfIdentifying: true,
    make: (r) => 'ops_' + base64url(JSON.stringify({ signInAddress: 'my.1password.com', userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 650000, salt: b62(r, 22) }, email: `${b62(r, 12).toLowerCase()}@1passwordserviceaccounts.com`, srpX: hex(r, 64), muk: { alg: 'A256GCM', ext: true, k: r.chars(B64URL, 43), key_ops: ['encrypt', 'decrypt'], kty: 'oct', kid: 'mp' }, secretKey: `A3-${b62(r, 6).toUpperCase()}-${b62(r, 6).toUpperCase()}`, throttleSecret: { seed: hex(r, 64), deviceUuid: b62(r, 26).toLowerCase() }, deviceUuid: b62(r, 26).toLowerCase() })) },
  { id: 'databricks_token', keyName: 'DATABRICKS_TOKEN', human: 'Databricks token', selfIdentifying: true,
    make: (r) => r.pick(['dapi', 'dapi', 'dose']) + r.pick([() => hex(r, 32), () => hex(r, 32).toUpperCase()])() + r.pick(['', '-2', '-3']) },
  { id: 'eth_private_key', keyName: 'DEPLOYER_PRIVATE_KEY', human: 'deployer private key', selfIdentifying: false,
    make: (r) => r.pick(['0x', '']) + hex(r, 64) },
  { id: 'generic_api_key', keyName: 'ACME_API_KEY', human: 'Acme API key', selfIdentifying: false,
    make: (r) => b62(r, r.int(24, 48)) },
  { id: 'hex_secret', keyName: 'WEBHOOK_SIGNING_SECRET', human: 'webhook signing secret', selfIdentifying: false,
    make: (r) => hex(r, r.pick([32, 40, 64])) },
  { id: 'password', keyName: 'DB_PASSWORD', human: 'database password', selfIdentifying: false,
    make: (r) => fakePassword(r) },
  { id: 'short_pass_key', keyName: 'SMTP_PASS', human: 'SMTP password', selfIdentifying: false,
    make: (r) => fakePassword(r) },
];

export interface LeakCase {
  /** What the case exercises, e.g. `github_token/yaml`. */
  name: string;
  text: string;
  /** Every string that must not survive redaction. */
  secrets: string[];
}

const snake = (key: string) => key.toLowerCase();
const camel = (key: string) => key.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const kebab = (key: string) => key.toLowerCase().replace(/_/g, '-');

const FILLER_BEFORE = ['# Deploy notes', '', 'The service boots in under a second on a cold cache.'];
const FILLER_AFTER = ['', 'Nothing else changed in this release.', '- [ ] rotate credentials after the demo'];

function framed(lines: string[]): string {
  return [...FILLER_BEFORE, ...lines, ...FILLER_AFTER].join('\n');
}

function xmlEscape(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** How the value is spelled inside a context, which is what must not survive. */
const ENCODING: Record<string, (v: string) => string> = { xml_attr: xmlEscape, xml_element: xmlEscape };

/** Where a credential sits in real files: each returns the lines around one value. */
const CONTEXTS: Record<string, (f: SecretFamily, v: string) => string[]> = {
  env: (f, v) => [`${f.keyName}=${v}`],
  env_quoted: (f, v) => [`${f.keyName}="${v}"`],
  shell_export: (f, v) => [`$ export ${f.keyName}='${v}'`, '$ npm run deploy'],
  yaml: (f, v) => ['production:', '  database:', `    ${snake(f.keyName)}: ${v}`, '    pool: 5'],
  yaml_quoted: (f, v) => ['env:', `  - name: ${f.keyName}`, `    ${snake(f.keyName)}: "${v}"`],
  json: (f, v) => ['{', '  "name": "billing",', `  "${camel(f.keyName)}": "${v}",`, '  "retries": 3', '}'],
  ini: (f, v) => ['[service]', `${snake(f.keyName)} = ${v}`, 'timeout = 30'],
  toml: (f, v) => ['[auth]', `${snake(f.keyName)} = '${v}'`],
  properties: (f, v) => [`app.${snake(f.keyName).replace(/_/g, '.')}=${v}`],
  xml_attr: (f, v) => [`<add key="${camel(f.keyName)}" value="${xmlEscape(v)}" />`],
  xml_element: (f, v) => [`  <${camel(f.keyName)}>${xmlEscape(v)}</${camel(f.keyName)}>`],
  ts_code: (f, v) => ['export const config = {', `  ${camel(f.keyName)}: '${v}',`, '};'],
  ts_const: (f, v) => [`const ${camel(f.keyName)} = "${v}"; // TODO move to vault`],
  python: (f, v) => [`${f.keyName} = os.environ.get("${f.keyName}", "${v}")`],
  go: (f, v) => [`\t${camel(f.keyName)} := "${v}"`],
  http_header: (f, v) => [`curl -s -H "X-${kebab(f.keyName)}: ${v}" https://api.example.com/v1/items`],
  cli_flag: (f, v) => [`deploy-tool push --${kebab(f.keyName)}=${v} --region eu-west-1`],
  prose_named: (f, v) => [`The ${f.human} for staging is ${v} (rotate after the demo).`],
  chat_log: (f, v) => [`[10:42] alice: here's the ${f.human}: ${v}`],
};

/** Only for self-identifying shapes: no key name anywhere near the value. */
const BARE_CONTEXTS: Record<string, (v: string) => string[]> = {
  prose_bare: (v) => [`I pasted ${v} into the form and it worked.`],
  markdown_code: (v) => ['```', v, '```'],
  bearer: (v) => [`curl -H "Authorization: Bearer ${v}" https://api.example.com/v1/models`],
  url_query: (v) => [`Callback registered at https://example.com/hook?sig=${encodeURIComponent(v)}&page=2`],
  table: (v) => ['| env | value |', '|-----|-------|', `| prod | ${v} |`],
};

function pemBody(r: Rng, lines: number, width: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(r.chars(B64, width));
  out.push(r.chars(B64, r.int(8, width - 4)) + r.pick(['', '=', '==']));
  return out;
}

export interface FakePem {
  kind: string;
  lines: string[];
  /** Body lines: base64 (and PGP armor headers / checksum), every one secret. */
  body: string[];
}

export function fakePem(r: Rng, kind: string): FakePem {
  if (kind === 'PGP PRIVATE KEY BLOCK') {
    const body = ['Version: GnuPG v2', ...pemBody(r, r.int(6, 14), 64), '=' + r.chars(B64, 4)];
    return {
      kind,
      lines: ['-----BEGIN PGP PRIVATE KEY BLOCK-----', body[0], '', ...body.slice(1), '-----END PGP PRIVATE KEY BLOCK-----'],
      body,
    };
  }
  if (kind === 'SSH2 ENCRYPTED PRIVATE KEY') {
    const body = ['Comment: "rsa-key-20240101"', ...pemBody(r, r.int(6, 14), 70)];
    return { kind, lines: ['---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----', ...body, '---- END SSH2 ENCRYPTED PRIVATE KEY ----'], body };
  }
  const width = kind === 'OPENSSH PRIVATE KEY' ? 70 : 64;
  const body = kind === 'RSA PRIVATE KEY' && r.next() < 0.5
    ? ['Proc-Type: 4,ENCRYPTED', `DEK-Info: AES-128-CBC,${hex(r, 32).toUpperCase()}`, ...pemBody(r, r.int(8, 25), width)]
    : pemBody(r, r.int(8, 25), width);
  return { kind, lines: [`-----BEGIN ${kind}-----`, ...body, `-----END ${kind}-----`], body };
}

export const PEM_KINDS = [
  'RSA PRIVATE KEY',
  'EC PRIVATE KEY',
  'DSA PRIVATE KEY',
  'PRIVATE KEY',
  'ENCRYPTED PRIVATE KEY',
  'OPENSSH PRIVATE KEY',
  'PGP PRIVATE KEY BLOCK',
  'SSH2 ENCRYPTED PRIVATE KEY',
] as const;

function pemCases(r: Rng): LeakCase[] {
  const cases: LeakCase[] = [];
  for (const kind of PEM_KINDS) {
    const pem = fakePem(r, kind);
    const secrets = pem.body.filter((l) => l.trim().length > 0);
    cases.push({ name: `pem/${kind}/file`, text: pem.lines.join('\n') + '\n', secrets });
    cases.push({ name: `pem/${kind}/markdown`, text: framed(['```', ...pem.lines, '```']), secrets });
    // BEGIN glued to prose on the same line, END followed by more text.
    cases.push({
      name: `pem/${kind}/inline`,
      text: framed([`Here is the deploy key: ${pem.lines[0]}`, ...pem.lines.slice(1, -1), `${pem.lines.at(-1)} and that's it.`]),
      secrets,
    });
    cases.push({
      name: `pem/${kind}/yaml_block`,
      text: framed(['tls:', '  key: |', ...pem.lines.map((l) => `    ${l}`), '  cert_path: /etc/tls/cert.pem']),
      secrets,
    });
    // Unterminated: everything after BEGIN is key material as far as the gate knows.
    cases.push({ name: `pem/${kind}/unterminated`, text: framed(pem.lines.slice(0, -1)), secrets });
    cases.push({ name: `pem/${kind}/crlf`, text: framed(pem.lines).replace(/\n/g, '\r\n'), secrets });
  }
  // Two keys back to back, END and BEGIN on one line.
  const a = fakePem(r, 'RSA PRIVATE KEY');
  const b = fakePem(r, 'EC PRIVATE KEY');
  cases.push({
    name: 'pem/two_keys_one_line',
    text: framed([...a.lines.slice(0, -1), `${a.lines.at(-1)}${b.lines[0]}`, ...b.lines.slice(1)]),
    secrets: [...a.body, ...b.body],
  });
  // GCP service-account JSON: the key is one escaped line.
  const sa = fakePem(r, 'PRIVATE KEY');
  const escapedKey = sa.lines.join('\\n') + '\\n';
  const keyId = hex(r, 40);
  cases.push({
    name: 'gcp/service_account_json',
    text: [
      '{',
      '  "type": "service_account",',
      '  "project_id": "demo-project-123",',
      `  "private_key_id": "${keyId}",`,
      `  "private_key": "${escapedKey}",`,
      '  "client_id": "109876543210987654321",',
      '  "token_uri": "https://oauth2.googleapis.com/token"',
      '}',
    ].join('\n'),
    secrets: [keyId, ...sa.body],
  });
  // PuTTY .ppk
  const ppkPublic = pemBody(r, 5, 64);
  const ppkPrivate = pemBody(r, 13, 64);
  cases.push({
    name: 'putty/ppk',
    text: [
      'PuTTY-User-Key-File-3: ssh-rsa',
      'Encryption: none',
      'Comment: rsa-key-20240101',
      `Public-Lines: ${ppkPublic.length}`,
      ...ppkPublic,
      `Private-Lines: ${ppkPrivate.length}`,
      ...ppkPrivate,
      `Private-MAC: ${hex(r, 64)}`,
    ].join('\n'),
    secrets: ppkPrivate,
  });
  return cases;
}

function connectionCases(r: Rng): LeakCase[] {
  const cases: LeakCase[] = [];
  const host = () => r.pick(['db.internal.example.com', 'prod-db-1.example.net', 'cluster0.ab12c.mongodb.net']);
  const user = () => r.pick(['app', 'admin', 'svc_billing', 'root']);
  const templates: Array<[string, (p: string) => string]> = [
    ['postgres', (p) => `postgres://${user()}:${p}@${host()}:5432/app?sslmode=require`],
    ['postgresql', (p) => `postgresql://${user()}:${p}@${host()}/app`],
    ['mysql', (p) => `mysql://${user()}:${p}@${host()}:3306/shop`],
    ['mongodb_srv', (p) => `mongodb+srv://${user()}:${p}@${host()}/test?retryWrites=true&w=majority`],
    ['redis', (p) => `redis://:${p}@${host()}:6379/0`],
    ['rediss', (p) => `rediss://default:${p}@${host()}:6380`],
    ['amqp', (p) => `amqp://${user()}:${p}@${host()}:5672/vhost`],
    ['jdbc', (p) => `jdbc:postgresql://${host()}:5432/app?user=${user()}&password=${p}`],
    ['jdbc_sqlserver', (p) => `jdbc:sqlserver://${host()}:1433;databaseName=app;user=${user()};password=${p};`],
    ['ado_net', (p) => `Server=tcp:${host()},1433;Database=app;User ID=${user()};Password=${p};Encrypt=true;`],
    ['https_basic', (p) => `git clone https://${user()}:${p}@git.example.com/team/repo.git`],
    ['ftp', (p) => `ftp://${user()}:${p}@files.example.com/upload`],
    ['smtp', (p) => `SMTP relay: smtp://${user()}:${p}@mail.example.com:587`],
  ];
  for (const [name, make] of templates) {
    const password = fakePassword(r, true);
    const url = make(password);
    cases.push({ name: `conn/${name}/bare`, text: framed([url]), secrets: [password] });
    cases.push({ name: `conn/${name}/env`, text: framed([`DATABASE_URL=${url}`]), secrets: [password] });
    cases.push({ name: `conn/${name}/yaml`, text: framed(['datasource:', `  url: "${url}"`]), secrets: [password] });
    cases.push({ name: `conn/${name}/prose`, text: framed([`Connect with ${url} from the bastion.`]), secrets: [password] });
  }
  const accountKey = r.chars(B64, 86) + '==';
  cases.push({
    name: 'azure/storage_connection_string',
    text: framed([
      `"AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=demoacct;AccountKey=${accountKey};EndpointSuffix=core.windows.net"`,
    ]),
    secrets: [accountKey],
  });
  const sasSig = r.chars(B64, 43) + '=';
  cases.push({
    name: 'azure/sas_url',
    text: framed([`https://demoacct.blob.core.windows.net/c/file.txt?sv=2022-11-02&ss=b&srt=o&sp=r&sig=${encodeURIComponent(sasSig)}`]),
    secrets: [encodeURIComponent(sasSig)],
  });
  return cases;
}

function passwordCases(r: Rng): LeakCase[] {
  const cases: LeakCase[] = [];
  const shapes: Array<[string, (p: string) => string[]]> = [
    ['yaml', (p) => ['db:', '  username: app', `  password: ${p}`]],
    ['yaml_quoted', (p) => ['db:', `  password: '${p.replace(/'/g, "''")}'`]],
    ['json', (p) => [`{"user": "app", "password": ${JSON.stringify(p)}}`]],
    ['env', (p) => [`POSTGRES_PASSWORD=${p}`]],
    ['ini', (p) => ['[mysql]', `passwd = ${p}`]],
    ['xml_attr', (p) => [`<connection user="app" password="${xmlEscape(p)}" />`]],
    ['xml_element', (p) => [`<password>${xmlEscape(p)}</password>`]],
    ['properties', (p) => [`spring.datasource.password=${p}`]],
    ['netrc', (p) => [`machine api.example.com login deploy password ${p}`]],
    ['mysql_cli', (p) => [`mysql -u root -p${p} shop < dump.sql`]],
    ['docker_login', (p) => [`docker login -u deploy -p ${p} registry.example.com`]],
    ['curl_user', (p) => [`curl -u deploy:${p} https://api.example.com/v1/status`]],
    ['prose', (p) => [`FYI the admin password is ${p} until Friday.`]],
    ['php', (p) => [`$db_pass = '${p.replace(/'/g, '')}';`]],
    ['htpasswd', () => [`deploy:$apr1$${r.chars(B62, 8)}$${r.chars(B62 + './', 22)}`]],
  ];
  for (const [name, make] of shapes) {
    const p = fakePassword(r);
    const lines = make(p);
    const secret = name === 'htpasswd' ? lines[0].split(':')[1] : name.startsWith('xml') ? xmlEscape(p) : name === 'php' ? p.replace(/'/g, '') : p;
    cases.push({ name: `password/${name}`, text: framed(lines), secrets: [secret] });
  }
  return cases;
}

function piiCases(r: Rng): LeakCase[] {
  const octet = () => r.int(0, 255);
  const emails = [
    `${r.pick(['jane.doe', 'ops+alerts', 'j_smith99'])}@${r.pick(['example.com', 'corp.example.co.uk', 'mail.test.org'])}`,
  ];
  const ips = [
    `10.${octet()}.${octet()}.${octet()}`,
    `172.${r.int(16, 31)}.${octet()}.${octet()}`,
    `192.168.${octet()}.${octet()}`,
    `fd${hex(r, 2)}:${hex(r, 4)}:${hex(r, 4)}::${hex(r, 3)}`,
    `fe80::${hex(r, 3)}:${hex(r, 4)}:${hex(r, 4)}:${hex(r, 4)}`,
  ];
  const cases: LeakCase[] = [];
  for (const e of emails) {
    cases.push({ name: 'pii/email/prose', text: framed([`Contact ${e} for access.`]), secrets: [e] });
    cases.push({ name: 'pii/email/git', text: framed([`Author: Jane Doe <${e}>`]), secrets: [e] });
  }
  for (const ip of ips) {
    cases.push({ name: 'pii/ip/ssh', text: framed([`ssh deploy@${ip} -p 2222`]), secrets: [ip] });
    cases.push({ name: 'pii/ip/yaml', text: framed([`  host: ${ip}`]), secrets: [ip] });
    cases.push({ name: 'pii/ip/log', text: framed([`2024-05-01T10:00:00Z GET /health from ${ip} 200`]), secrets: [ip] });
  }
  return cases;
}

/** The whole corpus: every family in every context that makes sense for it. */
export function buildLeakCorpus(seed: number): LeakCase[] {
  const r = createRng(seed);
  const cases: LeakCase[] = [];
  for (const family of SECRET_FAMILIES) {
    for (const [ctxName, ctx] of Object.entries(CONTEXTS)) {
      const v = family.make(r);
      const spelled = ENCODING[ctxName]?.(v) ?? v;
      cases.push({ name: `${family.id}/${ctxName}`, text: framed(ctx(family, v)), secrets: [spelled] });
    }
    if (!family.selfIdentifying) continue;
    for (const [ctxName, ctx] of Object.entries(BARE_CONTEXTS)) {
      const v = family.make(r);
      const lines = ctx(v);
      const secret = ctxName === 'url_query' ? encodeURIComponent(v) : v;
      cases.push({ name: `${family.id}/${ctxName}`, text: framed(lines), secrets: [secret] });
    }
  }
  cases.push(...pemCases(r), ...connectionCases(r), ...passwordCases(r), ...piiCases(r));
  return cases;
}
