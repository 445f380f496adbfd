import { GITLEAKS_RULES } from './rules-gitleaks.ts';
import { SECRET_KEY_NAME } from './key-names.ts';
import type { RedactionRule } from './types.ts';

/*
 * Built-in redaction rules, in match order (first match names the line).
 * Order: multi-line private keys, then provider-specific token shapes (so the
 * log says *what* leaked), then the spec-000 denylist and other generic
 * catch-alls. Shapes follow the families gitleaks covers; where a provider
 * token has no recognisable shape, the generic keyword rules catch it.
 * All patterns are RE2 syntax: no lookaround, no backreferences.
 * One file over 600 lines on purpose: the rules are one ordered list whose order is
 * their meaning (the first match names the line); split, the order would be hidden.
 */

/*
 * Key-context rules would make every line holding `key` or `token` worth judging; their triggers (prefilter.ts)
 * ask for the key word *and* what must follow it — an assignment, a `<tag`, a `"key",` argument — so
 * `Object.keys(x)` or `getItemKey(i)` is skipped. Every match of these rules holds one of the key words followed
 * (after the rest of the name) by that.
 */
const KEY_WORD = '(?i:pass|pwd|pw|pswd|secret|token|key|cred|auth|conn)';

// `=`, `:`, `:=`, `=>`, `||=`, `??=`, and a markdown table's `|`, but not `==` / `===` (comparison, not assignment).
// A table cell's `|` needs a space before it: `a|b` is an alternative, not an assignment.
// Also Make's `::=` / `:::=` / `?=`, PHP's `.=` and `+=`.
const ASSIGN = '["\'\\]]?(?:\\s*(?:=>|:{1,3}\\s*=|\\|\\|=|\\?\\??=|[.+]=|=|:)|\\s+\\|)\\s*';

/** Rules adapted from secretlint's recommended preset: JS lookarounds become RE2 boundary classes. */
const SECRETLINT_FAMILIES: readonly RedactionRule[] = [
  { id: 'cloudflare_api_token', type: 'cloudflare_token', pattern: '\\b(?:cfk|cfut|cfat)_[A-Za-z0-9]{32,}', keywords: ['cfk_', 'cfut_', 'cfat_'], description: 'secretlint-rule-cloudflare: account / user API tokens and global keys (cfat_, cfut_, cfk_).' },
  { id: 'shopify_token_any', type: 'shopify_token', pattern: '\\bshp(?:ss|at|ca|pa)_[a-zA-Z0-9]{32,64}', keywords: ['shpss_', 'shpat_', 'shpca_', 'shppa_'], description: 'secretlint-rule-shopify: shared secret, access, custom-app and private-app tokens.' },
  { id: 'tailscale_key', type: 'tailscale_key', pattern: '(?:^|[^A-Za-z])tskey-[A-Za-z0-9_-]{20,}', keywords: ['tskey-'], description: 'secretlint-rule-tailscale: tskey-<type>-<id>-<secret> (auth, api, client, scim, webhook).' },
  { id: 'vercel_token', type: 'vercel_token', pattern: '\\b(?:vcp|vci|vca|vcr|vck)_[A-Za-z0-9]{20,}', keywords: ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'], description: 'secretlint-rule-vercel: personal, integration, app-access, app-refresh and API-key tokens.' },
  { id: 'sendgrid_api_key_any', type: 'sendgrid_key', pattern: '\\bSG\\.[A-Za-z0-9_-]{10,128}\\.[A-Za-z0-9_-]{10,128}|SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}', keywords: ['sg.'], description: 'secretlint-rule-sendgrid: SG.<id>.<secret>.' },
  { id: 'onepassword_service_account_token', type: 'onepassword_token', pattern: '\\bops_ey[A-Za-z0-9+/=_-]{60,}', keywords: ['ops_ey'], description: 'secretlint-rule-1password: service-account tokens (ops_ + base64 JSON).' },
  { id: 'databricks_token_any', type: 'databricks_token', pattern: '\\b(?:dapi|dkea|dose|dsapi)[A-Fa-f0-9]{32}(?:-\\d+)?', keywords: ['dapi', 'dkea', 'dose', 'dsapi'], description: 'secretlint-rule-databricks: dapi… personal access tokens (any case, with -N suffix), and the dose/dkea/dsapi OAuth-secret forms.' },
  { id: 'grafana_token_any', type: 'grafana_token', pattern: '\\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})', keywords: ['glc_', 'glsa_'], description: 'secretlint-rule-grafana.' },
  { id: 'openai_project_key', type: 'openai_key', pattern: '\\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}', keywords: ['sk-'], description: 'secretlint-rule-openai: project / service-account / admin keys.' },
  { id: 'npm_token_any', type: 'npm_token', pattern: '\\bnpm_[A-Za-z0-9_]{36}', keywords: ['npm_'], description: 'secretlint-rule-npm.' },
  { id: 'github_oauth_basic', type: 'github_token', pattern: 'https?://[^\\s:@/]{1,256}:x-oauth-basic@github\\.com', flags: 'i', keywords: ['x-oauth-basic'], description: 'secretlint-rule-npm: token:x-oauth-basic@github.com URLs.' },
  { id: 'huggingface_token_any', type: 'huggingface_token', pattern: '\\bhf_([A-Za-z]{34})', keywords: ['hf_'], valueCheck: 'token', description: 'secretlint-rule-huggingface.' },
  { id: 'notion_integration_token', type: 'notion_token', pattern: '\\bntn_[0-9]{11}[A-Za-z0-9]{32,}', keywords: ['ntn_'], description: 'secretlint-rule-notion.' },
  { id: 'linear_api_key_any', type: 'linear_token', pattern: '\\blin_(?:api|oauth)_[A-Za-z0-9_]{32,128}', keywords: ['lin_api_', 'lin_oauth_'], description: 'secretlint-rule-linear.' },
  { id: 'figma_token_any', type: 'figma_token', pattern: '\\bfig[dhu]_[A-Za-z0-9_-]{40,200}', keywords: ['figd_', 'figh_', 'figu_'], description: 'secretlint-rule-figma.' },
  { id: 'docker_pat_any', type: 'docker_token', pattern: '\\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}', keywords: ['dckr_pat_', 'dckr_oat_'], description: 'secretlint-rule-docker.' },
  { id: 'hashicorp_vault_token_any', type: 'vault_token', pattern: '\\bhv[sbr]\\.[A-Za-z0-9_-]{24,300}', keywords: ['hvs.', 'hvb.', 'hvr.'], description: 'secretlint-rule-hashicorp-vault.' },
  { id: 'groq_api_key_any', type: 'llm_api_key', pattern: '\\bgsk_[A-Za-z0-9]{40,}', keywords: ['gsk_'], description: 'secretlint-rule-groq.' },
  { id: 'anthropic_api_key_any', type: 'anthropic_key', pattern: '\\bsk-ant-(?:api|admin|sid)\\d\\d-[A-Za-z0-9_-]{20,}', keywords: ['sk-ant-'], description: 'secretlint-rule-anthropic.' },
];

/** Shapes the issue names that neither upstream set covers well. */
const EXTRA_FAMILIES: readonly RedactionRule[] = [
  {
    id: 'airtable_pat',
    type: 'airtable_token',
    pattern: '\\bpat[A-Za-z0-9]{14}\\.[a-f0-9]{64}\\b',
    trigger: 'pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}',
    description: "Airtable personal access tokens without the word 'airtable' next to them (gitleaks asks for it).",
  },
  {
    id: 'pgpass_line',
    type: 'password',
    // host:port:database:user:password — the .pgpass / PGPASSFILE format.
    // Exactly five fields; `\\:` escapes a colon inside one.
    pattern: '^\\s*[A-Za-z0-9.*_-]+:(?:\\d{1,5}|\\*):[A-Za-z0-9_.*$-]+:[A-Za-z0-9_.*$@-]+:((?:[^:\\s\\\\]|\\\\.)+)\\s*$',
    trigger: '[A-Za-z0-9.*_-]+:(?:\\d{1,5}|\\*):[A-Za-z0-9_.*$-]+:[A-Za-z0-9_.*$@-]+:[^:\\s]',
    valueCheck: 'userinfo',
    description: 'A PostgreSQL password-file line (host:port:db:user:password).',
  },
  {
    id: 'gcp_service_account_private_key',
    type: 'gcp_service_account',
    pattern: '"private_key"\\s*:\\s*"([^"]{20,})',
    keywords: ['private_key'],
    description: 'A GCP service-account JSON "private_key" value, escaped PEM or not.',
  },
  {
    id: 'hex_private_key',
    type: 'private_key',
    // A 64/66/128-hex value (an Ethereum / secp256k1 / ed25519 private key) with a key word shortly before it.
    pattern:
      '(?:priv|secret|signing|signer|wallet|mnemonic|seed|private|account|deployer|eth|key|secp256k1|(?:^|[^A-Za-z])[ps]k)[A-Za-z0-9_ .-]{0,30}' +
      '[\\s"\'`:=,(>|-]{1,8}(?:0x)?([0-9a-fA-F]{64}|[0-9a-fA-F]{128})\\b',
    flags: 'i',
    // The hex run is the rare part (`eth` is in every "method").
    trigger: '[0-9a-fA-F]{64}',
    minEntropy: 3,
    description: 'Hex private keys next to key words (PRIVATE_KEY=0x…, "wallet key: …").',
  },
];

const OWN_RULES: readonly RedactionRule[] = [
  // ── Private keys: the whole body, BEGIN through END ──────────────────────
  {
    id: 'private_key_block',
    type: 'private_key',
    pattern: '-{4,5} ?BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)? ?-{4,5}',
    blockEnd: '-{4,5} ?END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)? ?-{4,5}',
    description: 'PEM / OpenSSH / PGP / SSH2 private keys, including every body line until END (to end of text if unterminated).',
    keywords: ['private key'],
  },
  {
    id: 'putty_private_key',
    type: 'private_key',
    pattern: '^PuTTY-User-Key-File-\\d+:',
    blockEnd: '^Private-MAC:',
    description: 'PuTTY .ppk files: header through Private-MAC.',
    keywords: ['putty-user-key-file'],
  },
  {
    id: 'private_key_header',
    type: 'private_key',
    pattern: 'BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY',
    description: 'A private-key header without the dashes (mangled or escaped on one line, e.g. GCP JSON).',
    keywords: ['private key'],
  },
  {
    id: 'age_secret_key',
    type: 'private_key',
    pattern: 'AGE-SECRET-KEY-1[0-9A-Z]{58}',
    keywords: ['age-secret-key-'],
  },

  // ── Cloud providers ──────────────────────────────────────────────────────
  {
    id: 'aws_access_key_id',
    type: 'aws_key',
    pattern: '\\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\\b',
    keywords: ['a3t', 'akia', 'asia', 'abia', 'acca', 'agpa', 'aida', 'aroa', 'aipa', 'anpa', 'anva', 'apka'],
  },
  {
    id: 'aws_secret_access_key',
    type: 'aws_key',
    pattern: '(?:aws|amazon)[A-Za-z0-9_.-]{0,30}(?:secret|sk|session)[A-Za-z0-9_.-]{0,30}' + ASSIGN + '["\']?[A-Za-z0-9/+=]{16,}',
    flags: 'i',
    keywords: ['aws', 'amazon'],
  },
  {
    id: 'aws_account_id',
    type: 'aws_account',
    // Named only: a bare 12-digit number is anything. Not a credential by itself, but it names the account an
    // attacker targets and peer scanners (secretlint) report it; the name is the evidence, so any digits count.
    flags: 'i',
    pattern: 'aws[_.-]?account[_.-]?id["\']?\\s*(?:=>|:=|[:=])\\s*["\']?(\\d{4}-?\\d{4}-?\\d{4})\\b',
    keywords: ['account'],
    description: 'An AWS account ID under its name (AWS_ACCOUNT_ID=123456789012, "aws_account_id": "1234-5678-9012").',
  },
  { id: 'aws_mws_key', type: 'aws_key', pattern: 'amzn\\.mws\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', keywords: ['amzn.mws.'] },
  {
    id: 'google_api_key',
    type: 'google_api_key',
    // Exactly 39 characters, as gitleaks: `…JAIza…` inside a longer run or `AIza…abcd123` running on is not a key. An
    // escape before it (`\\nAIza…` in a JSON string) is a boundary.
    pattern: '(?:^|[^0-9A-Za-z_]|\\\\[nrt])(AIza[0-9A-Za-z_-]{35})(?:$|[^0-9A-Za-z_-])',
    keywords: ['aiza'],
    // The keys Google publishes in its own SDK samples (firebase-android-sdk) are public by design; gitleaks'
    // gcp-api-key allow-list keeps them, and this rule uses that list as generated, never edited here.
    allowValue: GITLEAKS_RULES.find((g) => g.id === 'gcp-api-key')?.allowValue,
  },
  { id: 'google_oauth_client_secret', type: 'google_oauth', pattern: 'GOCSPX-[0-9A-Za-z_-]{24,}', keywords: ['gocspx-'] },
  { id: 'google_oauth_access_token', type: 'google_oauth', pattern: '\\bya29\\.[0-9A-Za-z_-]{20,}', keywords: ['ya29.'] },
  { id: 'google_oauth_refresh_token', type: 'google_oauth', pattern: '\\b1//0[0-9A-Za-z_-]{30,}', keywords: ['1//0'] },
  {
    id: 'gcp_private_key_id',
    type: 'gcp_service_account',
    // JSON, YAML, a Python dict or TOML: the key's id is 40 hex characters, quoted or not.
    pattern: '["\']?private_key_id["\']?\\s*[:=]\\s*["\']?[0-9a-f]{20,}\\b',
    keywords: ['private_key_id'],
  },
  {
    id: 'bip32_extended_private_key',
    type: 'private_key',
    // BIP-32 extended private keys (Bitcoin / secp256k1 HD wallets): xprv / tprv / yprv / zprv + base58.
    pattern: '\\b[xtyzuvUV]prv[1-9A-HJ-NP-Za-km-z]{100,108}\\b',
    keywords: ['prv'],
  },
  {
    id: 'azure_connection_string',
    type: 'azure_key',
    pattern: '(?:AccountKey|SharedAccessKey|SharedAccessSignature|DefaultEndpointsProtocol)\\s*=\\s*([^;\\s]+)',
    flags: 'i',
    keywords: ['accountkey', 'sharedaccesskey', 'sharedaccesssignature', 'defaultendpointsprotocol'],
  },
  {
    id: 'azure_tenant_id',
    type: 'azure_tenant',
    flags: 'i',
    pattern: '(?:azure|ad)[_.-]?tenant[_.-]?id["\']?\\s*(?:=>|:=|[:=])\\s*["\']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})',
    keywords: ['tenant'],
    description: 'An Azure AD tenant GUID under its name (AZURE_TENANT_ID, ad_tenant_id), as secretlint reports it.',
  },
  { id: 'azure_sas_signature', type: 'azure_key', pattern: '[?&]\\s*sig\\s*=\\s*[A-Za-z0-9%+/=]{20,}', flags: 'i', keywords: ['sig'] },
  { id: 'azure_ad_client_secret', type: 'azure_key', pattern: '(?:^|[^A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}', keywords: ['q~'] },
  { id: 'digitalocean_token', type: 'cloud_token', pattern: '\\bdo[opr]_v1_[a-f0-9]{64}', keywords: ['dop_v1_', 'doo_v1_', 'dor_v1_'] },
  { id: 'heroku_api_key', type: 'cloud_token', pattern: '\\bHRKU-[A-Za-z0-9_-]{30,}', keywords: ['hrku-'] },
  { id: 'hashicorp_vault_token', type: 'cloud_token', pattern: '\\bhv[sbr]\\.[A-Za-z0-9_-]{24,}', keywords: ['hvs.', 'hvb.', 'hvr.'] },
  { id: 'terraform_cloud_token', type: 'cloud_token', pattern: '\\b[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,}', keywords: ['.atlasv1.'] },
  { id: 'doppler_token', type: 'cloud_token', pattern: '\\bdp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,}', keywords: ['dp.'] },
  { id: 'pulumi_token', type: 'cloud_token', pattern: '\\bpul-[a-f0-9]{40}', keywords: ['pul-'] },
  { id: 'cloudflare_origin_ca_key', type: 'cloud_token', pattern: '\\bv1\\.0-[a-f0-9]{24}-[a-f0-9]{146}', keywords: ['v1.0-'] },
  { id: 'supabase_token', type: 'cloud_token', pattern: '\\b(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})', keywords: ['sbp_', 'sb_secret_'] },
  // gitleaks' body alphabet ([\\w=.-]{32,64}), and no terminator: a token in brackets, a query or a list still counts.
  { id: 'planetscale_token', type: 'cloud_token', pattern: '\\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,}', keywords: ['pscale_'] },
  { id: 'databricks_token', type: 'cloud_token', pattern: '\\bdapi[a-f0-9]{32}(?:-\\d)?', keywords: ['dapi'] },

  // ── Version control, CI and package registries ───────────────────────────
  { id: 'github_token', type: 'github_token', pattern: '\\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}', keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'] },
  { id: 'github_fine_grained_pat', type: 'github_token', pattern: '\\bgithub_pat_[A-Za-z0-9_]{22,255}', keywords: ['github_pat_'] },
  {
    id: 'gitlab_token',
    type: 'gitlab_token',
    pattern: '\\b(?:glpat|gldt|glptt|glrt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct)-[A-Za-z0-9_-]{20,}',
    keywords: ['glpat-', 'gldt-', 'glptt-', 'glrt-', 'glcbt-', 'glft-', 'glimt-', 'glagent-', 'gloas-', 'glsoat-', 'glffct-'],
  },
  { id: 'gitlab_runner_registration_token', type: 'gitlab_token', pattern: '\\bGR1348941[A-Za-z0-9_-]{20,}', keywords: ['gr1348941'] },
  { id: 'bitbucket_app_password', type: 'vcs_token', pattern: '\\bATBB[A-Za-z0-9_=.-]{28,}', keywords: ['atbb'] },
  { id: 'atlassian_api_token', type: 'vcs_token', pattern: '\\bATATT3[A-Za-z0-9_=.-]{50,}', keywords: ['atatt3'] },
  { id: 'npm_token', type: 'npm_token', pattern: '\\bnpm_[A-Za-z0-9]{36}', keywords: ['npm_'] },
  { id: 'npmrc_auth', type: 'npm_token', pattern: '(?:^|[\\s/:])(?:_authToken|_auth|_password)\\s*=\\s*(\\S+)', flags: 'i', keywords: ['_auth', '_password'], valueCheck: 'password', valueQuoted: true },
  { id: 'pypi_token', type: 'pypi_token', pattern: '\\bpypi-[A-Za-z0-9_-]{50,}', keywords: ['pypi-'] },
  { id: 'rubygems_token', type: 'registry_token', pattern: '\\brubygems_[a-f0-9]{48}', keywords: ['rubygems_'] },
  { id: 'nuget_api_key', type: 'registry_token', pattern: '\\boy2[a-z0-9]{43}', keywords: ['oy2'] },
  { id: 'dockerhub_pat', type: 'registry_token', pattern: '\\bdckr_pat_[A-Za-z0-9_-]{27,}', keywords: ['dckr_pat_'] },
  { id: 'crates_io_token', type: 'registry_token', pattern: '\\bcio[A-Za-z0-9]{32}\\b', keywords: ['cio'] },

  // ── Chat, payment, email, SaaS ───────────────────────────────────────────
  {
    id: 'slack_token',
    type: 'slack_token',
    // Every Slack token carries a workspace / user number of 8+ digits as one of its dash-separated parts
    // (`xoxb-23984754863-…`); `xoxb-my-bot-token`, `xoxo-indieweb-1.jpg` and `xoxp-1234-1234` do not.
    pattern: '\\bxox[abposre]-(?:[0-9A-Za-z]+-)*[0-9]{8,}(?:-[0-9A-Za-z-]*)?',
    keywords: ['xox'],
  },
  { id: 'slack_app_token', type: 'slack_token', pattern: '\\bxapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+', keywords: ['xapp-'] },
  {
    id: 'slack_webhook',
    type: 'slack_webhook',
    pattern: 'hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{10,}',
    flags: 'i',
    keywords: ['hooks.slack.com'],
  },
  {
    id: 'discord_webhook',
    type: 'discord_webhook',
    pattern: 'discord(?:app)?\\.com/api/webhooks/\\d+/[A-Za-z0-9_-]+',
    flags: 'i',
    keywords: ['discord'],
  },
  {
    id: 'discord_bot_token',
    type: 'discord_token',
    pattern: '\\b[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6,7}\\.[A-Za-z0-9_-]{27,40}',
  },
  { id: 'telegram_bot_token', type: 'telegram_token', pattern: '\\b\\d{8,10}:AA[0-9A-Za-z_-]{33}', keywords: [':aa'] },
  { id: 'stripe_key', type: 'stripe_key', pattern: '\\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{10,}', keywords: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'pk_live_', 'pk_test_'] },
  { id: 'stripe_webhook_secret', type: 'stripe_key', pattern: '\\bwhsec_[A-Za-z0-9+/=]{24,}', keywords: ['whsec_'] },
  { id: 'square_token', type: 'payment_key', pattern: '\\b(?:sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}|EAAA[A-Za-z0-9_-]{60,})', keywords: ['sq0atp-', 'sq0csp-', 'eaaa'] },
  {
    id: 'braintree_access_token',
    type: 'payment_key',
    pattern: 'access_token\\$(?:production|sandbox)\\$[0-9a-z]{16}\\$[0-9a-f]{32}',
    keywords: ['access_token$'],
  },
  { id: 'shopify_token', type: 'payment_key', pattern: '\\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}', keywords: ['shpat_', 'shpss_', 'shpca_', 'shppa_'] },
  { id: 'twilio_api_key', type: 'twilio_key', pattern: '\\b(?:SK|AC)[0-9a-fA-F]{32}\\b' },
  {
    id: 'twilio_auth_token',
    type: 'twilio_key',
    pattern: 'twilio[A-Za-z0-9_ .-]{0,40}["\':= ]\\s*["\']?[0-9a-f]{32}\\b',
    flags: 'i',
    keywords: ['twilio'],
  },
  { id: 'sendgrid_api_key', type: 'sendgrid_key', pattern: '\\bSG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{16,64}', keywords: ['sg.'] },
  { id: 'mailgun_key', type: 'mailgun_key', pattern: '\\b(?:key|pubkey)-[0-9a-f]{32}\\b', keywords: ['key-'] },
  {
    id: 'mailgun_private_key',
    type: 'mailgun_key',
    pattern: 'mailgun[A-Za-z0-9_ .-]{0,40}["\':= ]\\s*["\']?[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}',
    flags: 'i',
    keywords: ['mailgun'],
  },
  { id: 'mailchimp_api_key', type: 'mailchimp_key', pattern: '\\b[0-9a-f]{32}-us\\d{1,2}\\b', keywords: ['-us'] },
  { id: 'facebook_access_token', type: 'saas_token', pattern: '\\bEAA[A-Za-z0-9]{90,}', keywords: ['eaa'] },
  { id: 'firebase_fcm_server_key', type: 'saas_token', pattern: '\\bAAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{140}', keywords: ['aaaa'] },
  { id: 'grafana_token', type: 'saas_token', pattern: '\\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})', keywords: ['glc_', 'glsa_'] },
  { id: 'new_relic_key', type: 'saas_token', pattern: '\\bNR(?:AK|II|JS)-[A-Za-z0-9]{19,32}', keywords: ['nrak-', 'nrii-', 'nrjs-'] },
  { id: 'postman_api_key', type: 'saas_token', pattern: '\\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}', keywords: ['pmak-'] },
  { id: 'sentry_token', type: 'saas_token', pattern: '\\bsntry[su]_[A-Za-z0-9+/=_]{40,}', keywords: ['sntrys_', 'sntryu_'] },
  { id: 'sentry_dsn', type: 'saas_token', pattern: 'https?://[0-9a-f]{32}@[A-Za-z0-9.-]*sentry\\.io', flags: 'i', keywords: ['sentry.io'] },
  { id: 'linear_api_key', type: 'saas_token', pattern: '\\blin_api_[A-Za-z0-9]{40}', keywords: ['lin_api_'] },
  { id: 'notion_token', type: 'saas_token', pattern: '\\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})', keywords: ['secret_', 'ntn_'] },
  { id: 'figma_token', type: 'saas_token', pattern: '\\bfigd_[A-Za-z0-9_-]{40,}', keywords: ['figd_'] },
  { id: 'dropbox_token', type: 'saas_token', pattern: '\\bsl\\.[A-Za-z0-9_-]{130,}', keywords: ['sl.'] },
  { id: 'netlify_token', type: 'saas_token', pattern: '\\bnfp_[A-Za-z0-9]{36}', keywords: ['nfp_'] },

  // ── LLM providers ────────────────────────────────────────────────────────
  { id: 'anthropic_api_key', type: 'anthropic_key', pattern: '\\bsk-ant-[A-Za-z0-9_-]{20,}', keywords: ['sk-ant-'] },
  { id: 'openai_api_key', type: 'openai_key', pattern: '\\bsk-[A-Za-z0-9_-]{20,}', keywords: ['sk-'] },
  {
    id: 'huggingface_token',
    type: 'huggingface_token',
    pattern: '\\b(?:hf_([A-Za-z0-9]{30,})|api_org_([A-Za-z0-9]{30,}))',
    keywords: ['hf_', 'api_org_'],
    // `hf_requiredCharacteristicTypesForDisplayMetadata` is an Objective-C selector, not a token.
    valueCheck: 'token',
  },
  { id: 'groq_api_key', type: 'llm_api_key', pattern: '\\bgsk_[A-Za-z0-9]{40,}', keywords: ['gsk_'] },
  { id: 'xai_api_key', type: 'llm_api_key', pattern: '\\bxai-[A-Za-z0-9]{50,}', keywords: ['xai-'] },
  { id: 'perplexity_api_key', type: 'llm_api_key', pattern: '\\bpplx-[A-Za-z0-9]{40,}', keywords: ['pplx-'] },
  { id: 'replicate_api_token', type: 'llm_api_key', pattern: '\\br8_[A-Za-z0-9]{30,}', keywords: ['r8_'] },
  { id: 'langsmith_api_key', type: 'llm_api_key', pattern: '\\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}', keywords: ['lsv2_'] },
  { id: 'fireworks_api_key', type: 'llm_api_key', pattern: '\\bfw_[A-Za-z0-9]{24,}', keywords: ['fw_'] },
  {
    id: 'llm_provider_key_context',
    type: 'llm_api_key',
    pattern:
      '(?:cohere|mistral|together|voyage|anyscale|deepinfra|fireworks|deepseek|openrouter|pinecone|gemini|jina|' +
      'cerebras|ai21|nvidia|nim)[A-Za-z0-9_.-]{0,20}(?:key|token|secret)[A-Za-z0-9_.-]{0,10}' + ASSIGN + '["\']?([A-Za-z0-9_.-]{20,})',
    flags: 'i',
    minEntropy: 3,
    keywords: ['cohere', 'mistral', 'together', 'voyage', 'anyscale', 'deepinfra', 'fireworks', 'deepseek', 'openrouter', 'pinecone', 'gemini', 'jina', 'cerebras', 'ai21', 'nvidia', 'nim'],
  },

  // ── Spec 000 denylist and generic credential shapes ──────────────────────
  {
    id: 'connection_string',
    type: 'connection_string',
    pattern:
      '\\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle|' +
      'cockroachdb|clickhouse|neo4j(?:\\+s)?|bolt|couchbase|cassandra|nats|kafka|ldaps?|snowflake)://' +
      '(?:([^\\s/@"\'`<>{}]*):([^\\s/@"\'`<>{}]+)@|\\S*[?&;](?:password|pwd|pass|secret|token|auth|authtoken|api[_-]?key|access[_-]?key|sig)=([^\\s&;]+))',
    flags: 'i',
    keyGroup: 1,
    valueCheck: 'userinfo',
    description:
      "Spec 000's (postgres|mysql|mongodb|redis)://…, widened to other database/queue schemes, when it carries a credential " +
      '(user:password@ or a password/token query parameter that is not a placeholder); a bare host is not a secret.',
    keywords: ['://'],
  },
  {
    id: 'jdbc_connection_string',
    type: 'connection_string',
    // A JDBC URL with a password in it: `//user:password@`, Oracle's `thin:user/password@`, or a `password=` property.
    pattern:
      '\\bjdbc:[a-z0-9]+:(?://([^\\s/@"\'`:]*):([^\\s/@"\'`]+)@|(?:thin:)?([^\\s/@"\'`:]+)/([^\\s@"\'`]+)@|\\S*?[?&;:](?:password|pwd|pass)=([^\\s&;"\'`]+))',
    flags: 'i',
    keyGroup: 1,
    valueCheck: 'userinfo',
    keywords: ['jdbc:'],
    description: 'A JDBC URL carrying a password that is not a placeholder (a bare JDBC URL names a host, not a secret).',
  },
  {
    id: 'ado_connection_string',
    type: 'connection_string',
    pattern: '(?:server|data source|host|address|addr)\\s*=[^;]*;.*\\b(?:password|pwd|user id|uid)\\s*=',
    flags: 'i',
    keywords: ['server', 'data source', 'host', 'address', 'addr'],
  },
  {
    id: 'url_credentials',
    type: 'url_credentials',
    // The userinfo of a URL never holds quotes or JSON / HTML structure (they are percent-encoded there): a match that
    // runs over `","logo":{"@type"` has left the URL (JSON-LD in HTML).
    pattern: '\\b[a-z][a-z0-9+.-]{1,30}://([^\\s/?#@:"\'`<>{}\\[\\]]*):([^\\s/?#@"\'`<>{}\\[\\]]+)@',
    keyGroup: 1,
    flags: 'i',
    valueCheck: 'userinfo',
    description: 'user:password@ in any URL, unless the password is a placeholder (`:password@`, `:${PASS}@`).',
    keywords: ['://'],
  },
  {
    id: 'jwt_token',
    type: 'jwt',
    pattern: 'eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}',
    description: 'Spec 000 JWT pattern, verbatim.',
    keywords: ['eyj'],
  },
  {
    id: 'authorization_header',
    type: 'auth_header',
    pattern:
      'authorization["\'\\]]{0,2}\\s*[:=]\\s*["\']?' +
      '(?:(?:basic|bearer|token|digest|negotiate|ntlm|apikey|sso-key)\\s+([A-Za-z0-9._~+/=:-]{6,})|([A-Za-z0-9._~+/=:-]{16,}))',
    flags: 'i',
    valueCheck: 'credential',
    valueQuoted: true,
    keywords: ['authorization'],
  },
  { id: 'bearer_token', type: 'auth_header', pattern: '\\bbearer\\s+[A-Za-z0-9._~+/-]{16,}', flags: 'i', keywords: ['bearer'] },
  {
    id: 'cli_user_password',
    type: 'password',
    // user:password after -u / --user; a user holding `{`, `<`, `$` or `/` is a template or a URL, not a login.
    pattern: '(?:^|\\s)(?:-u|--user)[\\s=]+["\']?[^\\s:"\'/{}<>$]+:([^\\s"\'/][^\\s"\']*)',
    keywords: ['curl', 'wget', 'http'],
    valueCheck: 'userinfo',
  },
  {
    id: 'cli_password_flag',
    type: 'password',
    pattern: '--(password|passwd|pass|token|secret|api-key|apikey|auth-token|access-token|client-secret)(?:=|\\s+)(\\S+)',
    flags: 'i',
    keywords: ['--'],
    keyGroup: 1,
    valueCheck: 'flag',
  },
  {
    id: 'cli_short_password_flag',
    type: 'password',
    // mysql takes the password glued to -p (a bare -p prompts); sshpass / docker login take the next word.
    pattern: '\\b(?:mysql|mysqldump|mysqladmin|mariadb)\\b.*\\s-p(\\S+)|\\b(?:sshpass|login)\\b.*\\s-p\\s*(\\S+)',
    flags: 'i',
    valueCheck: 'userinfo',
    keywords: ['mysql', 'mariadb', 'sshpass', 'login'],
  },
  {
    id: 'password_hash',
    type: 'password',
    pattern: '\\$(?:apr1|2[abxy]|5|6|y|argon2(?:id|i|d))\\$[^\\s:$]*\\$[A-Za-z0-9./+=$,-]{16,}',
    keywords: ['$apr1$', '$2a$', '$2b$', '$2x$', '$2y$', '$5$', '$6$', '$y$', '$argon2'],
  },
  {
    id: 'netrc_password',
    type: 'password',
    pattern: '\\bmachine\\s+\\S+\\s+login\\s+\\S+\\s+password\\s+([^\\s"\'\\\\]+)',
    flags: 'i',
    keywords: ['machine'],
    valueCheck: 'userinfo',
  },
  {
    id: 'sql_password',
    type: 'password',
    // CREATE USER … IDENTIFIED BY '…' (MySQL, Oracle), CREATE / ALTER USER | ROLE … WITH [ENCRYPTED] PASSWORD '…'
    // (PostgreSQL), SET PASSWORD [FOR …] = [PASSWORD(]'…', sp_addlogin / CREATE LOGIN … WITH PASSWORD = '…'.
    pattern:
      '\\b(?:identified\\s+(?:with\\s+[\\w\'"`]+\\s+)?by(?:\\s+password)?|(?:create|alter)\\s+(?:user|role|login)\\b[^;\'"]{0,120}?\\bpassword(?:\\s*=)?|' +
      'set\\s+password\\b[^;=]{0,120}=\\s*(?:password\\s*\\()?)\\s*[\'"`]([^\'"`]+)[\'"`]',
    flags: 'i',
    keywords: ['identified', 'password'],
    valueCheck: 'userinfo',
    description: 'A password set by SQL: IDENTIFIED BY, WITH PASSWORD, SET PASSWORD; anything but a placeholder (a bind `?`, `%s`, `:pw`).',
  },
  {
    id: 'sql_password_unquoted',
    type: 'password',
    // Oracle takes the password unquoted: CREATE / ALTER USER u IDENTIFIED BY pw, GRANT … TO u IDENTIFIED BY pw,
    // CREATE DATABASE LINK … CONNECT TO u IDENTIFIED BY pw, SET ROLE r IDENTIFIED BY pw. The statement around it is
    // the context ("a user identified by their email" is prose): the value must end the statement or be followed by
    // another clause of it. Binds and substitutions (`:pw`, `&pw`, `?`, `${PW}`) are not passwords.
    pattern:
      '\\b(?:(?:create|alter)\\s+(?:user|role)\\b[^;\'"]{0,160}?|grant\\b[^;]{0,200}?\\bto\\b[^;]{0,120}?|connect\\s+to\\s+\\S+\\s+|set\\s+role\\s+\\S+\\s+)' +
      '\\bidentified\\s+by\\s+([^\\s;\'"`:&?$%<{(]{3,128})' +
      '(?:\\s*;|\\s*$|\\s*--|\\s+(?:default|temporary|quota|profile|password|account|container|replace|require|with|using|identified)\\b)',
    flags: 'i',
    keywords: ['identified'],
    valueCheck: 'userinfo',
    description: 'An unquoted password in an Oracle CREATE / ALTER USER, GRANT, database link or SET ROLE statement.',
  },
  {
    id: 'cookie_header',
    type: 'session_cookie',
    // The whole header value: the check reads its `name=value` pairs (a session or auth cookie, or a random value).
    // A header (`Cookie:`) or a string assigned to a cookie (`document.cookie = "…"`), not code (`cookie = jar.get(…)`).
    pattern: '\\b(?:set-)?cookie["\']?\\s*(?::\\s*["\']?|=\\s*["\'`])([^\\r\\n]*=[^\\r\\n]*)|(?:^|\\s)(?:-b|--cookie)\\s+["\']?([^"\'\\s]*=[^"\'\\s]*)',
    flags: 'i',
    keywords: ['cookie', '-b'],
    valueCheck: 'cookie',
    description: 'Cookie / Set-Cookie headers and curl -b / --cookie: a session-like cookie (session, sid, token, auth…) or a random value.',
  },
  {
    id: 'terraform_variable_default',
    type: 'password',
    pattern: '\\bvariable\\s+"(' + SECRET_KEY_NAME + ')"\\s*\\{[^}]*?\\bdefault\\s*=\\s*"([^"]+)"',
    flags: 'i',
    keywords: ['variable'],
    keyGroup: 1,
    valueCheck: 'keyed',
    valueQuoted: true,
    description: 'A Terraform variable named for a secret with its default on the same line (the block form is joined-lines.ts).',
  },
  {
    id: 'xml_secret_element',
    type: 'password',
    pattern: '<(' + SECRET_KEY_NAME + ')(?:\\s[^>]*)?>([^<\\s]+)',
    flags: 'i',
    trigger: '(?:<[A-Za-z0-9_.-]*' + KEY_WORD + ')',
    keyGroup: 1,
    valueCheck: 'keyed',
    valueQuoted: true,
  },
  {
    id: 'xml_key_value_secret',
    type: 'password',
    pattern: 'key\\s*=\\s*["\'](' + SECRET_KEY_NAME + ')["\']\\s+value\\s*=\\s*["\']([^"\']+)',
    flags: 'i',
    trigger: 'key\\s*=\\s*["\']',
    keyGroup: 1,
    valueCheck: 'keyed',
    valueQuoted: true,
    description: '.NET appSettings: <add key="ApiToken" value="..."/>.',
  },
  {
    id: 'secret_key_value_pair',
    type: 'password',
    // The key opens the argument list: `("username", "password", "message")` is a tuple of names, not a call.
    pattern: '\\(\\s*["\'`](' + SECRET_KEY_NAME + ')["\'`]\\s*,\\s*["\'`]([^"\'`]+)["\'`]',
    flags: 'i',
    trigger: KEY_WORD + '[A-Za-z0-9_.-]*["\'`]\\s*,',
    keyGroup: 1,
    valueCheck: 'keyed',
    valueQuoted: true,
    description: 'A key name and a literal value as call arguments: os.environ.get("DB_PASSWORD", "..."), headers.set("X-Api-Key", "...").',
  },
  {
    id: 'secret_assignment_quoted',
    type: 'password',
    pattern:
      '(' + SECRET_KEY_NAME + ')' + ASSIGN + '(?:"([^"]*[^"\\s][^"]*)"|\'([^\']*[^\'\\s][^\']*)\'|`([^`]*[^`\\s][^`]*)`)',
    flags: 'i',
    trigger: KEY_WORD + '[A-Za-z0-9_.-]*["\'\\]]?\\s*[.+]?[=:|?]',
    keyGroup: 1,
    valueCheck: 'keyed',
    valueQuoted: true,
    description: 'A quoted literal under a password / token / key name in YAML, JSON, TOML, INI, XML attributes, code, tables.',
  },
  {
    id: 'secret_assignment',
    type: 'password',
    pattern: '(' + SECRET_KEY_NAME + ')' + ASSIGN + '((?:[^\\s"\'`,;=|]|\\|[^\\s|"\'`,;=])[^\\s"\',;]*)',
    flags: 'i',
    trigger: KEY_WORD + '[A-Za-z0-9_.-]*["\'\\]]?\\s*[.+]?[=:|?]',
    keyGroup: 1,
    valueCheck: 'keyed',
    description: 'An unquoted value under a password / token / key name (.env, YAML, INI, properties, tables); code is not a value.',
  },
  {
    id: 'env_var_assignment',
    type: 'env_assignment',
    pattern: '\\b([A-Z_][A-Z0-9_]*[A-Z_])=([^\\s=]\\S*)',
    trigger: '\\b[A-Z_][A-Z0-9_]*[A-Z_]=\\S',
    keyGroup: 1,
    valueCheck: 'env',
    description: 'Spec 000: [A-Z_]{2,}=\\S+ (digits allowed after the first character), except obviously safe values (numbers, short words, paths, $VAR).',
  },
  {
    id: 'high_entropy_secret',
    type: 'high_entropy_secret',
    // Up to three short filler words between the key word and the value, so prose
    // ("the staging API key for CI is 9fK2...") is covered as well as code.
    // The whole name around the key word is captured: `credentialsId`, `primaryKey`, `public_key` name no secret.
    pattern:
      '([A-Za-z0-9_.-]{0,30}(?:key|token|secret|passw(?:or)?d|pwd|credential|auth)[A-Za-z0-9_.-]{0,25})' +
      '(?:[\\s"\'`:=,(>|-]{1,6}[A-Za-z]{1,8}){0,3}?[\\s"\'`:=,(>|-]{1,6}([A-Za-z0-9+/=_.~-]{16,})',
    keyGroup: 1,
    flags: 'i',
    // The key word, the rest of its name, then the separator every match has next (a cheap superset for the scan).
    trigger: '(?:key|token|secret|passw|pwd|credential|auth)[A-Za-z0-9_.-]*[\\s"\'`:=,(>|-]',
    valueCheck: 'random',
    description: 'Spec 000: [A-Za-z0-9+/=]{20,} preceded by key-like context; the value must read as random (entropy, not words, not code).',
  },
  {
    id: 'password_in_prose',
    type: 'password',
    pattern:
      '\\b(?:password|passwd|passphrase|passcode|pwd)\\b(?:\\s+[A-Za-z]{1,12}){0,3}?(?:\\s+(is|was|are|to)\\b|\\s*(=|:|->))\\s*["\'`]?([^\\s"\'`]{4,})',
    flags: 'i',
    keywords: ['password', 'passwd', 'passphrase', 'passcode', 'pwd'],
    // The connector is the "key": after `to` a lower-case word is a verb ("a password file to decrypt:").
    keyGroup: 1,
    secretGroup: 3,
    valueCheck: 'prose',
    description: '"the admin password is hunter2" in notes and chat logs.',
  },
  {
    id: 'email_address',
    type: 'email',
    pattern: '[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}',
    valueCheck: 'email',
    // A domain after the @, so JSDoc's `@param` does not make a line worth judging.
    trigger: '@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2}',
    description: 'Spec 000 PII: email addresses, verbatim.',
  },
  {
    id: 'private_ipv4',
    type: 'private_ip',
    pattern:
      '\\b(?:10\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}|172\\.(?:1[6-9]|2\\d|3[01])\\.\\d{1,3}\\.\\d{1,3}|192\\.168\\.\\d{1,3}\\.\\d{1,3}|169\\.254\\.\\d{1,3}\\.\\d{1,3})\\b(?:$|[^/.\\d])',
    keywords: ['10.', '172.', '192.168.', '169.254.'],
    description: 'Spec 000 PII: 10/8, 172.16/12, 192.168/16, plus link-local 169.254/16 (a host, not a CIDR range such as 10.0.0.0/8).',
  },
  {
    id: 'private_ipv6',
    type: 'private_ip',
    pattern: '\\b(?:f[cd][0-9a-f]{2}|fe[89ab][0-9a-f]):(?:[0-9a-f]{0,4}:){1,6}[0-9a-f]{0,4}(?:$|[^/0-9a-f:])',
    flags: 'i',
    description: 'IPv6 unique-local fc00::/7 and link-local fe80::/10.',
  },
  {
    id: 'base64_blob_line',
    type: 'high_entropy_secret',
    pattern: '^\\s*"?([A-Za-z0-9+/]{40,}={0,2})"?,?\\s*$',
    trigger: '[A-Za-z0-9+/]{40}',
    minEntropy: 4.2,
    // 40+: the base64 of 30 bytes, the least a key body line carries; a shorter run alone on a line is a token
    // (a 39-character Google key, a 32-character id), judged by its own shape or its key name.
    description: 'A line that is only a long base64 run: a key body seen without its BEGIN line (e.g. a chunk boundary).',
  },
];

/*
 * The whole rule set, in match order (first match names the line): private keys; the gate's own provider shapes;
 * secretlint's recommended families and the issue's extra shapes; gitleaks' default rules (minus the ones listed in
 * rules-gitleaks.ts); then the spec-000 denylist and key-context rules, PII last.
 */
/*
 * gitleaks keywords so short that nearly every line holds one (`ey` for jwt, `s.` for old Vault tokens, `sk` for
 * Twilio): those rules run on their pattern as trigger instead (prefilter.ts), which is just as sound.
 */
const TOO_COMMON_KEYWORDS = new Set(['ey', 's.', 'sk']);
/*
 * gitleaks ends most token shapes with `(?:[\x60'"\s;]|\\[nr]|$)`: a quote, a space, `;` or the line's end. A token
 * also ends at a comma, a closing bracket, `&` in a query, `|` in a table or `<` of a tag (`[token]`, `?key=…&`,
 * `<key>…</key>`), which held-out sets use and gitleaks' own tests do not: those characters are terminators too.
 */
const GITLEAKS_END = "(?:[\\x60'\"\\s;]|\\\\[nr]|$)";
const WIDER_END = "(?:[\\x60'\"\\s;,)\\]}&|<>]|\\\\[nr]|$)";
const widenEnd = (r: RedactionRule): RedactionRule => (r.pattern.includes(GITLEAKS_END) ? { ...r, pattern: r.pattern.split(GITLEAKS_END).join(WIDER_END) } : r);
const GITLEAKS_ADAPTED: readonly RedactionRule[] = GITLEAKS_RULES.map(widenEnd).map((r) =>
  r.keywords?.some((k) => TOO_COMMON_KEYWORDS.has(k)) ? { ...r, keywords: undefined, trigger: r.trigger ?? r.pattern } : r,
);

/*
 * A rule that proves a format and nothing else (no key name to read, no value check of its own) still needs a body
 * a generator could have made: `ghp_xxxx…`, `AKIAXXXXXXXXXXXXXXXX`, `glc_1111…` fill the format by hand
 * (placeholder-token.ts). Blocks are left alone: a private-key body is judged by its BEGIN line.
 */
const withShapeCheck = (r: RedactionRule): RedactionRule => (r.valueCheck || r.blockEnd ? r : { ...r, valueCheck: 'shape' });

const GENERIC_START = 'connection_string';
const own = OWN_RULES.findIndex((r) => r.id === GENERIC_START);
export const BUILTIN_RULES: readonly RedactionRule[] = [
  ...OWN_RULES.slice(0, own),
  ...SECRETLINT_FAMILIES,
  ...EXTRA_FAMILIES,
  ...GITLEAKS_ADAPTED,
  ...OWN_RULES.slice(own),
].map(withShapeCheck);
