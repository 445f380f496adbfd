import type { RedactionRule } from './types.ts';

/*
 * Built-in redaction rules, in match order (first match names the line).
 * Order: multi-line private keys, then provider-specific token shapes (so the
 * log says *what* leaked), then the spec-000 denylist and other generic
 * catch-alls. Shapes follow the families gitleaks covers; where a provider
 * token has no recognisable shape, the generic keyword rules catch it.
 * All patterns are RE2 syntax: no lookaround, no backreferences.
 */

// Key names that mark the value next to them as a credential in config-like text.
// Matched case-insensitively; the `(?-i:...)` parts keep camelCase humps meaningful,
// so `storageKey` and `tokenSecret` count but `monkey`, `tokenizer`, `tokens` do not.
const SECRET_KEY_NAME =
  '\\b(?:[A-Za-z0-9_.-]*(?:password|passwd|passphrase|passcode|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key|' +
  'private[_.-]?key|credentials?|session[_.-]?key|signing[_.-]?key|encryption[_.-]?key|master[_.-]?key|' +
  'conn(?:ection)?[_.-]?str(?:ing)?)(?:[_.-][A-Za-z0-9_.-]*|(?-i:[A-Z0-9])[A-Za-z0-9_.-]*)?|' +
  '[A-Za-z0-9_.-]*(?:pass|pw|pswd|creds)|(?:[A-Za-z0-9_.-]*[_.-])?auth|' +
  '[A-Za-z0-9_.-]*(?:[_.-]key|[a-z0-9](?-i:K)ey))';

// `=`, `:`, `:=`, `=>`, `||=`, `??=` but not `==` / `===` (comparison, not assignment).
const ASSIGN = '["\'\\]]?\\s*(?:=>|:=|\\|\\|=|\\?\\?=|=|:)\\s*';

// Quoted values that only stand in for a secret.
const PLACEHOLDER_VALUE =
  '^(?:string|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}|\\{\\{[^}]*\\}\\}|<[^>]*>|\\*+|x+|\\.\\.\\.)$';

// Unquoted values that are code or templating, not secrets: type names, env
// lookups, reads from well-known objects, argument-less calls, JSX expressions.
// Calls with arguments are not excused: `Summer(2024)` is a plausible password.
const NOT_A_SECRET_VALUE =
  '^(?:string|number|boolean|bigint|symbol|object|any|unknown|never|void|null|nil|none|undefined|true|false|' +
  'yes|no|on|off|required|optional|\\*+|x+|\\.\\.\\.|' +
  '(?:process\\.env|import\\.meta\\.env|os\\.environ|os\\.getenv|env|ENV|System\\.getenv|config|cfg|conf|options|opts|' +
  'props|this|self|ctx|context|req|request|settings|params|args|input|data|state|vars|secrets)(?:\\.|\\?\\.|\\[|->|::|\\().*|' +
  '\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}|\\$(?-i:[A-Z_][A-Z0-9_]*)|%[A-Za-z_][A-Za-z0-9_]*%|\\{\\{.*|' +
  'new|await|typeof|function|async|require|import|yield|[A-Za-z_$][A-Za-z0-9_$.]*\\(\\)|\\{[A-Za-z_$][A-Za-z0-9_$.]*\\})$';

export const BUILTIN_RULES: readonly RedactionRule[] = [
  // ── Private keys: the whole body, BEGIN through END ──────────────────────
  {
    id: 'private_key_block',
    type: 'private_key',
    pattern: '-{4,5} ?BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)? ?-{4,5}',
    blockEnd: '-{4,5} ?END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)? ?-{4,5}',
    description: 'PEM / OpenSSH / PGP / SSH2 private keys, including every body line until END (to end of text if unterminated).',
  },
  {
    id: 'putty_private_key',
    type: 'private_key',
    pattern: '^PuTTY-User-Key-File-\\d+:',
    blockEnd: '^Private-MAC:',
    description: 'PuTTY .ppk files: header through Private-MAC.',
  },
  {
    id: 'private_key_header',
    type: 'private_key',
    pattern: 'BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY',
    description: 'A private-key header without the dashes (mangled or escaped on one line, e.g. GCP JSON).',
  },
  {
    id: 'age_secret_key',
    type: 'private_key',
    pattern: 'AGE-SECRET-KEY-1[0-9A-Z]{58}',
  },

  // ── Cloud providers ──────────────────────────────────────────────────────
  {
    id: 'aws_access_key_id',
    type: 'aws_key',
    pattern: '\\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\\b',
  },
  {
    id: 'aws_secret_access_key',
    type: 'aws_key',
    pattern: '(?:aws|amazon)[A-Za-z0-9_.-]{0,30}(?:secret|sk|session)[A-Za-z0-9_.-]{0,30}' + ASSIGN + '["\']?[A-Za-z0-9/+=]{16,}',
    flags: 'i',
  },
  { id: 'aws_mws_key', type: 'aws_key', pattern: 'amzn\\.mws\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' },
  { id: 'google_api_key', type: 'google_api_key', pattern: 'AIza[0-9A-Za-z_-]{35}' },
  { id: 'google_oauth_client_secret', type: 'google_oauth', pattern: 'GOCSPX-[0-9A-Za-z_-]{24,}' },
  { id: 'google_oauth_access_token', type: 'google_oauth', pattern: '\\bya29\\.[0-9A-Za-z_-]{20,}' },
  { id: 'google_oauth_refresh_token', type: 'google_oauth', pattern: '\\b1//0[0-9A-Za-z_-]{30,}' },
  {
    id: 'gcp_private_key_id',
    type: 'gcp_service_account',
    pattern: '"private_key_id"\\s*:\\s*"[0-9a-f]{20,}"',
  },
  {
    id: 'azure_connection_string',
    type: 'azure_key',
    pattern: '(?:AccountKey|SharedAccessKey|SharedAccessSignature|DefaultEndpointsProtocol)\\s*=\\s*[^;\\s]+',
    flags: 'i',
  },
  { id: 'azure_sas_signature', type: 'azure_key', pattern: '[?&]sig=[A-Za-z0-9%+/=]{20,}', flags: 'i' },
  { id: 'azure_ad_client_secret', type: 'azure_key', pattern: '(?:^|[^A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}' },
  { id: 'digitalocean_token', type: 'cloud_token', pattern: '\\bdo[opr]_v1_[a-f0-9]{64}' },
  { id: 'heroku_api_key', type: 'cloud_token', pattern: '\\bHRKU-[A-Za-z0-9_-]{30,}' },
  { id: 'hashicorp_vault_token', type: 'cloud_token', pattern: '\\bhv[sbr]\\.[A-Za-z0-9_-]{24,}' },
  { id: 'terraform_cloud_token', type: 'cloud_token', pattern: '\\b[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,}' },
  { id: 'doppler_token', type: 'cloud_token', pattern: '\\bdp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,}' },
  { id: 'pulumi_token', type: 'cloud_token', pattern: '\\bpul-[a-f0-9]{40}' },
  { id: 'cloudflare_origin_ca_key', type: 'cloud_token', pattern: '\\bv1\\.0-[a-f0-9]{24}-[a-f0-9]{146}' },
  { id: 'supabase_token', type: 'cloud_token', pattern: '\\b(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})' },
  { id: 'planetscale_token', type: 'cloud_token', pattern: '\\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}' },
  { id: 'databricks_token', type: 'cloud_token', pattern: '\\bdapi[a-f0-9]{32}(?:-\\d)?' },

  // ── Version control, CI and package registries ───────────────────────────
  { id: 'github_token', type: 'github_token', pattern: '\\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}' },
  { id: 'github_fine_grained_pat', type: 'github_token', pattern: '\\bgithub_pat_[A-Za-z0-9_]{22,255}' },
  {
    id: 'gitlab_token',
    type: 'gitlab_token',
    pattern: '\\b(?:glpat|gldt|glptt|glrt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct)-[A-Za-z0-9_-]{20,}',
  },
  { id: 'gitlab_runner_registration_token', type: 'gitlab_token', pattern: '\\bGR1348941[A-Za-z0-9_-]{20,}' },
  { id: 'bitbucket_app_password', type: 'vcs_token', pattern: '\\bATBB[A-Za-z0-9_=.-]{28,}' },
  { id: 'atlassian_api_token', type: 'vcs_token', pattern: '\\bATATT3[A-Za-z0-9_=.-]{50,}' },
  { id: 'npm_token', type: 'npm_token', pattern: '\\bnpm_[A-Za-z0-9]{36}' },
  { id: 'npmrc_auth', type: 'npm_token', pattern: '(?:_authToken|_auth|_password)\\s*=\\s*\\S+', flags: 'i' },
  { id: 'pypi_token', type: 'pypi_token', pattern: '\\bpypi-[A-Za-z0-9_-]{50,}' },
  { id: 'rubygems_token', type: 'registry_token', pattern: '\\brubygems_[a-f0-9]{48}' },
  { id: 'nuget_api_key', type: 'registry_token', pattern: '\\boy2[a-z0-9]{43}' },
  { id: 'dockerhub_pat', type: 'registry_token', pattern: '\\bdckr_pat_[A-Za-z0-9_-]{27,}' },
  { id: 'crates_io_token', type: 'registry_token', pattern: '\\bcio[A-Za-z0-9]{32}\\b' },

  // ── Chat, payment, email, SaaS ───────────────────────────────────────────
  { id: 'slack_token', type: 'slack_token', pattern: '\\bxox[abposre]-[0-9A-Za-z-]{10,}' },
  { id: 'slack_app_token', type: 'slack_token', pattern: '\\bxapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+' },
  {
    id: 'slack_webhook',
    type: 'slack_webhook',
    pattern: 'hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{10,}',
    flags: 'i',
  },
  {
    id: 'discord_webhook',
    type: 'discord_webhook',
    pattern: 'discord(?:app)?\\.com/api/webhooks/\\d+/[A-Za-z0-9_-]+',
    flags: 'i',
  },
  {
    id: 'discord_bot_token',
    type: 'discord_token',
    pattern: '\\b[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6,7}\\.[A-Za-z0-9_-]{27,40}',
  },
  { id: 'telegram_bot_token', type: 'telegram_token', pattern: '\\b\\d{8,10}:AA[0-9A-Za-z_-]{33}' },
  { id: 'stripe_key', type: 'stripe_key', pattern: '\\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{10,}' },
  { id: 'stripe_webhook_secret', type: 'stripe_key', pattern: '\\bwhsec_[A-Za-z0-9+/=]{24,}' },
  { id: 'square_token', type: 'payment_key', pattern: '\\b(?:sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}|EAAA[A-Za-z0-9_-]{60,})' },
  {
    id: 'braintree_access_token',
    type: 'payment_key',
    pattern: 'access_token\\$(?:production|sandbox)\\$[0-9a-z]{16}\\$[0-9a-f]{32}',
  },
  { id: 'shopify_token', type: 'payment_key', pattern: '\\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}' },
  { id: 'twilio_api_key', type: 'twilio_key', pattern: '\\b(?:SK|AC)[0-9a-fA-F]{32}\\b' },
  {
    id: 'twilio_auth_token',
    type: 'twilio_key',
    pattern: 'twilio[A-Za-z0-9_ .-]{0,40}["\':= ]\\s*["\']?[0-9a-f]{32}\\b',
    flags: 'i',
  },
  { id: 'sendgrid_api_key', type: 'sendgrid_key', pattern: '\\bSG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{16,64}' },
  { id: 'mailgun_key', type: 'mailgun_key', pattern: '\\b(?:key|pubkey)-[0-9a-f]{32}\\b' },
  {
    id: 'mailgun_private_key',
    type: 'mailgun_key',
    pattern: 'mailgun[A-Za-z0-9_ .-]{0,40}["\':= ]\\s*["\']?[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}',
    flags: 'i',
  },
  { id: 'mailchimp_api_key', type: 'mailchimp_key', pattern: '\\b[0-9a-f]{32}-us\\d{1,2}\\b' },
  { id: 'facebook_access_token', type: 'saas_token', pattern: '\\bEAA[A-Za-z0-9]{90,}' },
  { id: 'firebase_fcm_server_key', type: 'saas_token', pattern: '\\bAAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{140}' },
  { id: 'grafana_token', type: 'saas_token', pattern: '\\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})' },
  { id: 'new_relic_key', type: 'saas_token', pattern: '\\bNR(?:AK|II|JS)-[A-Za-z0-9]{19,32}' },
  { id: 'postman_api_key', type: 'saas_token', pattern: '\\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}' },
  { id: 'sentry_token', type: 'saas_token', pattern: '\\bsntry[su]_[A-Za-z0-9+/=_]{40,}' },
  { id: 'sentry_dsn', type: 'saas_token', pattern: 'https?://[0-9a-f]{32}@[A-Za-z0-9.-]*sentry\\.io', flags: 'i' },
  { id: 'linear_api_key', type: 'saas_token', pattern: '\\blin_api_[A-Za-z0-9]{40}' },
  { id: 'notion_token', type: 'saas_token', pattern: '\\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})' },
  { id: 'figma_token', type: 'saas_token', pattern: '\\bfigd_[A-Za-z0-9_-]{40,}' },
  { id: 'dropbox_token', type: 'saas_token', pattern: '\\bsl\\.[A-Za-z0-9_-]{130,}' },
  { id: 'netlify_token', type: 'saas_token', pattern: '\\bnfp_[A-Za-z0-9]{36}' },

  // ── LLM providers ────────────────────────────────────────────────────────
  { id: 'anthropic_api_key', type: 'anthropic_key', pattern: '\\bsk-ant-[A-Za-z0-9_-]{20,}' },
  { id: 'openai_api_key', type: 'openai_key', pattern: '\\bsk-[A-Za-z0-9_-]{20,}' },
  { id: 'huggingface_token', type: 'huggingface_token', pattern: '\\b(?:hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,})' },
  { id: 'groq_api_key', type: 'llm_api_key', pattern: '\\bgsk_[A-Za-z0-9]{40,}' },
  { id: 'xai_api_key', type: 'llm_api_key', pattern: '\\bxai-[A-Za-z0-9]{50,}' },
  { id: 'perplexity_api_key', type: 'llm_api_key', pattern: '\\bpplx-[A-Za-z0-9]{40,}' },
  { id: 'replicate_api_token', type: 'llm_api_key', pattern: '\\br8_[A-Za-z0-9]{30,}' },
  { id: 'langsmith_api_key', type: 'llm_api_key', pattern: '\\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}' },
  { id: 'fireworks_api_key', type: 'llm_api_key', pattern: '\\bfw_[A-Za-z0-9]{24,}' },
  {
    id: 'llm_provider_key_context',
    type: 'llm_api_key',
    pattern:
      '(?:cohere|mistral|together|voyage|anyscale|deepinfra|fireworks|deepseek|openrouter|pinecone|gemini|jina|' +
      'cerebras|ai21|nvidia|nim)[A-Za-z0-9_.-]{0,20}(?:key|token|secret)[A-Za-z0-9_.-]{0,10}' + ASSIGN + '["\']?([A-Za-z0-9_.-]{20,})',
    flags: 'i',
    minEntropy: 3,
  },

  // ── Spec 000 denylist and generic credential shapes ──────────────────────
  {
    id: 'connection_string',
    type: 'connection_string',
    pattern:
      '\\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle|' +
      'cockroachdb|clickhouse|neo4j(?:\\+s)?|bolt|couchbase|cassandra|nats|kafka|ldaps?|snowflake)://\\S+',
    flags: 'i',
    description: "Spec 000: (postgres|mysql|mongodb|redis)://..., widened to other database/queue schemes.",
  },
  { id: 'jdbc_connection_string', type: 'connection_string', pattern: '\\bjdbc:[a-z0-9]+:\\S+', flags: 'i' },
  {
    id: 'ado_connection_string',
    type: 'connection_string',
    pattern: '(?:server|data source|host|address|addr)\\s*=[^;]*;.*\\b(?:password|pwd|user id|uid)\\s*=',
    flags: 'i',
  },
  {
    id: 'url_credentials',
    type: 'url_credentials',
    pattern: '\\b[a-z][a-z0-9+.-]{1,30}://[^\\s/?#@:]*:[^\\s/?#@]+@',
    flags: 'i',
  },
  {
    id: 'jwt_token',
    type: 'jwt',
    pattern: 'eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}',
    description: 'Spec 000 JWT pattern, verbatim.',
  },
  {
    id: 'authorization_header',
    type: 'auth_header',
    pattern:
      'authorization["\'\\]]{0,2}\\s*[:=]\\s*["\']?' +
      '(?:(?:basic|bearer|token|digest|negotiate|ntlm|apikey|sso-key)\\s+[A-Za-z0-9._~+/=:-]{6,}|[A-Za-z0-9._~+/=:-]{16,})',
    flags: 'i',
  },
  { id: 'bearer_token', type: 'auth_header', pattern: '\\bbearer\\s+[A-Za-z0-9._~+/-]{16,}', flags: 'i' },
  {
    id: 'cli_user_password',
    type: 'password',
    pattern: '(?:^|\\s)(?:-u|--user)[\\s=]+["\']?[^\\s:"\']+:[^\\s"\']+',
    keywords: ['curl', 'wget', 'http'],
  },
  {
    id: 'cli_password_flag',
    type: 'password',
    pattern: '--(?:password|passwd|pass|token|secret|api-key|apikey|auth-token|access-token|client-secret)(?:=|\\s+)\\S+',
    flags: 'i',
  },
  {
    id: 'cli_short_password_flag',
    type: 'password',
    // mysql takes the password glued to -p (a bare -p prompts); sshpass / docker login take the next word.
    pattern: '\\b(?:mysql|mysqldump|mysqladmin|mariadb)\\b.*\\s-p\\S+|\\b(?:sshpass|login)\\b.*\\s-p\\s*\\S+',
    flags: 'i',
  },
  {
    id: 'password_hash',
    type: 'password',
    pattern: '\\$(?:apr1|2[abxy]|5|6|y|argon2(?:id|i|d))\\$[^\\s:$]*\\$[A-Za-z0-9./+=$,-]{16,}',
  },
  {
    id: 'netrc_password',
    type: 'password',
    pattern: '\\bmachine\\s+\\S+\\s+login\\s+\\S+\\s+password\\s+\\S+',
    flags: 'i',
  },
  {
    id: 'xml_secret_element',
    type: 'password',
    pattern: '<' + SECRET_KEY_NAME + '(?:\\s[^>]*)?>[^<\\s]+',
    flags: 'i',
  },
  {
    id: 'xml_key_value_secret',
    type: 'password',
    pattern: 'key\\s*=\\s*["\']' + SECRET_KEY_NAME + '["\']\\s+value\\s*=\\s*["\'][^"\']+',
    flags: 'i',
    description: '.NET appSettings: <add key="ApiToken" value="..."/>.',
  },
  {
    id: 'secret_key_value_pair',
    type: 'password',
    pattern: '["\'`]' + SECRET_KEY_NAME + '["\'`]\\s*,\\s*["\'`]([^"\'`]+)["\'`]',
    flags: 'i',
    allowValue: PLACEHOLDER_VALUE,
    description: 'A key name and a literal value as call arguments: os.environ.get("DB_PASSWORD", "..."), headers.set("X-Api-Key", "...").',
  },
  {
    id: 'secret_assignment_quoted',
    type: 'password',
    pattern:
      SECRET_KEY_NAME + ASSIGN + '(?:"([^"]*[^"\\s][^"]*)"|\'([^\']*[^\'\\s][^\']*)\'|`([^`]*[^`\\s][^`]*)`)',
    flags: 'i',
    allowValue: PLACEHOLDER_VALUE,
    description: 'A quoted value under a password / token / key name in YAML, JSON, TOML, INI, XML attributes, code.',
  },
  {
    id: 'secret_assignment',
    type: 'password',
    pattern: SECRET_KEY_NAME + ASSIGN + '([^\\s"\'`,;=][^\\s"\',;]*)',
    flags: 'i',
    allowValue: NOT_A_SECRET_VALUE,
    description: 'An unquoted value under a password / token / key name (.env, YAML, INI, properties, code).',
  },
  {
    id: 'env_var_assignment',
    type: 'env_assignment',
    pattern: '[A-Z_][A-Z0-9_]*[A-Z_]=\\S',
    description: 'Spec 000: [A-Z_]{2,}=\\S+ (digits allowed after the first character).',
  },
  {
    id: 'high_entropy_secret',
    type: 'high_entropy_secret',
    // Up to three short filler words between the key word and the value, so prose
    // ("the staging API key for CI is 9fK2...") is covered as well as code.
    pattern:
      '(?:key|token|secret|passw(?:or)?d|pwd|credential|auth)[A-Za-z0-9_.-]{0,25}' +
      '(?:[\\s"\'`:=,(>-]{1,6}[A-Za-z]{1,8}){0,3}[\\s"\'`:=,(>-]{1,6}([A-Za-z0-9+/=_.~-]{20,})',
    flags: 'i',
    minEntropy: 3,
    description: 'Spec 000: [A-Za-z0-9+/=]{20,} preceded by key-like context, gated on entropy.',
  },
  {
    id: 'password_in_prose',
    type: 'password',
    pattern: '\\b(?:password|passwd|passphrase|passcode|pwd)\\b(?:\\s+[A-Za-z]{1,12}){0,3}(?:\\s+(?:is|was|are|to)\\b|\\s*(?:=|:|->))\\s*["\'`]?[^\\s"\'`]{4,}',
    flags: 'i',
    description: '"the admin password is hunter2" in notes and chat logs.',
  },
  {
    id: 'email_address',
    type: 'email',
    pattern: '[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}',
    description: 'Spec 000 PII: email addresses, verbatim.',
  },
  {
    id: 'private_ipv4',
    type: 'private_ip',
    pattern:
      '\\b(?:10\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}|172\\.(?:1[6-9]|2\\d|3[01])\\.\\d{1,3}\\.\\d{1,3}|192\\.168\\.\\d{1,3}\\.\\d{1,3}|169\\.254\\.\\d{1,3}\\.\\d{1,3})\\b',
    description: 'Spec 000 PII: 10/8, 172.16/12, 192.168/16, plus link-local 169.254/16.',
  },
  {
    id: 'private_ipv6',
    type: 'private_ip',
    pattern: '\\b(?:f[cd][0-9a-f]{2}|fe[89ab][0-9a-f]):(?:[0-9a-f]{0,4}:){1,6}[0-9a-f]{0,4}',
    flags: 'i',
    description: 'IPv6 unique-local fc00::/7 and link-local fe80::/10.',
  },
  {
    id: 'base64_blob_line',
    type: 'high_entropy_secret',
    pattern: '^\\s*"?([A-Za-z0-9+/]{32,}={0,2})"?,?\\s*$',
    minEntropy: 4.2,
    description: 'A line that is only a long base64 run: a key body seen without its BEGIN line (e.g. a chunk boundary).',
  },
];
