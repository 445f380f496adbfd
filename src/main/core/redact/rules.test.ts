import { describe, expect, it } from 'vitest';
import { alphabets, createRng, fakeJwt, fakePem, SECRET_FAMILIES } from './fake-secrets.testkit.ts';
import { compileRe2 } from './re2-compile.ts';
import { createRedactor } from './redactor.ts';
import { BUILTIN_RULES } from './rules.ts';
import { GITLEAKS_RULES } from './rules-gitleaks.ts';
import type { RedactionRule, Redactor } from './types.ts';

/*
 * One suite, many implementations: every built-in rule runs, alone, against
 * its positives and near-miss negatives, under two gate implementations:
 * the RE2.Set prefilter (default) and plain per-rule RE2 (no prefilter).
 * A rule whose Set form and single form disagree fails here.
 */

const r = createRng(7);
const a = alphabets(r);
const family = (id: string) => {
  const f = SECRET_FAMILIES.find((x) => x.id === id);
  if (!f) throw new Error(`no family ${id}`);
  return f;
};
/** Three fresh values of a generated family. */
const gen = (id: string) => [0, 1, 2].map(() => family(id).make(r));

interface RuleCases {
  positives: string[];
  negatives: string[];
}

const CASES: Record<string, RuleCases> = {
  private_key_block: {
    positives: ['-----BEGIN RSA PRIVATE KEY-----', 'key: "-----BEGIN OPENSSH PRIVATE KEY-----', '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----', '-----BEGIN PGP PRIVATE KEY BLOCK-----'],
    negatives: ['-----BEGIN PUBLIC KEY-----', '-----BEGIN CERTIFICATE-----', 'ssh-rsa AAAAB3NzaC1yc2E user@host'],
  },
  putty_private_key: { positives: ['PuTTY-User-Key-File-3: ssh-ed25519'], negatives: ['see PuTTY-User-Key-File docs'] },
  private_key_header: {
    positives: ['"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE', 'BEGIN EC PRIVATE KEY'],
    negatives: ['BEGIN PUBLIC KEY', 'a private key is required'],
  },
  age_secret_key: { positives: ['AGE-SECRET-KEY-1' + r.chars('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58).toUpperCase()], negatives: ['AGE-SECRET-KEY-1SHORT'] },
  aws_access_key_id: { positives: gen('aws_access_key_id'), negatives: ['AKIA' + a.upnum(10), 'XAKIA' + a.upnum(16) + 'Z'] },
  aws_secret_access_key: {
    positives: gen('aws_secret_access_key').map((v) => `aws_secret_access_key = ${v}`),
    negatives: ['aws_secret_access_key = ${AWS_SECRET}', 'aws region = eu-west-1'],
  },
  aws_account_id: {
    positives: ['"AWS_ACCOUNT_ID"=>0000-0000-0000', `aws_account_id = "${a.digits(12)}"`, `awsAccountId: ${a.digits(4)}-${a.digits(4)}-${a.digits(4)}`],
    negatives: [`account_id = "${a.digits(12)}"`, 'aws_account_id = var.account_id', `AWS_ACCOUNT_ID=${a.digits(8)}`],
  },
  aws_mws_key: { positives: [`amzn.mws.${a.hex(8)}-${a.hex(4)}-${a.hex(4)}-${a.hex(4)}-${a.hex(12)}`], negatives: ['amzn.mws.example'] },
  google_api_key: {
    // Exactly 39 characters: inside a longer run (either side) it is not a key; an escape before it is a boundary.
    positives: [...gen('google_api_key'), 'AIzaSyNHxIf32IQ1a1yjl3ZJIqKZqzLAK1XhDk-', '{"t":"x\\nAIzaSyNHxIf32IQ1a1yjl3ZJIqKZqzLAK1XhDkQ"}', `url?key=AIza${a.b62(35)}&x=1`],
    // The last: a public Firebase SDK sample key, on gitleaks' allow-list (the rule takes upstream's list as is).
    negatives: ['AIza' + a.b62(10), `k = AIza${a.b62(35)}abcd123`, `k = ${a.b62(20)}AIza${a.b62(35)}`, 'apiKey: "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs"'],
  },
  google_oauth_client_secret: { positives: gen('google_oauth_client_secret'), negatives: ['GOCSPX-short'] },
  google_oauth_access_token: { positives: gen('google_oauth_access_token'), negatives: ['ya29.short'] },
  google_oauth_refresh_token: { positives: ['1//0' + a.b64url(60)], negatives: ['1//0abc', 'http://0host'] },
  gcp_private_key_id: { positives: [`  "private_key_id": "${a.hex(40)}",`], negatives: ['  "private_key_id": "",'] },
  azure_connection_string: {
    positives: [`DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${a.b64(86)}==`, `Endpoint=sb://x.servicebus.windows.net/;SharedAccessKey=${a.b64(44)}`],
    negatives: ['AccountName=demo;EndpointSuffix=core.windows.net'],
  },
  azure_tenant_id: {
    positives: ['ad_tenant_id: "dac6fb3d-713c-4555-8a97-4089aa3849be"', `AZURE_TENANT_ID=${a.hex(8)}-${a.hex(4)}-${a.hex(4)}-${a.hex(4)}-${a.hex(12)}`],
    negatives: [`tenant_id: "${a.hex(8)}-${a.hex(4)}-${a.hex(4)}-${a.hex(4)}-${a.hex(12)}"`, 'azure_tenant_id = var.tenant_id'],
  },
  azure_sas_signature: { positives: [`https://x.blob.core.windows.net/c?sv=2022&sig=${a.b62(30)}%3D`], negatives: ['?signature=abc', '?sig=short'] },
  azure_ad_client_secret: { positives: gen('azure_ad_client_secret'), negatives: ['abc1Q~short'] },
  digitalocean_token: { positives: gen('digitalocean_token'), negatives: ['dop_v1_' + a.hex(10)] },
  heroku_api_key: { positives: ['HRKU-' + a.b64url(60)], negatives: ['HRKU-short'] },
  hashicorp_vault_token: { positives: gen('hashicorp_vault_token'), negatives: ['hvs.short'] },
  terraform_cloud_token: { positives: [`${a.b62(14)}.atlasv1.${a.b64url(67)}`], negatives: ['x.atlasv1.y'] },
  doppler_token: { positives: ['dp.pt.' + a.b62(43)], negatives: ['dp.pt.short'] },
  pulumi_token: { positives: ['pul-' + a.hex(40)], negatives: ['pul-' + a.hex(10)] },
  cloudflare_origin_ca_key: { positives: [`v1.0-${a.hex(24)}-${a.hex(146)}`], negatives: ['v1.0-abc-def'] },
  supabase_token: { positives: ['sbp_' + a.hex(40), 'sb_secret_' + a.b64url(32)], negatives: ['sbp_' + a.hex(8)] },
  planetscale_token: { positives: ['pscale_tkn_' + a.b64url(43)], negatives: ['pscale_tkn_short'] },
  databricks_token: { positives: ['dapi' + a.hex(32)], negatives: ['dapi' + a.hex(8)] },
  // `ghp_xxxx…` is the format filled with the placeholder letter (placeholder-token.ts).
  github_token: { positives: gen('github_token'), negatives: ['ghp_' + a.b62(20), 'ghx_' + a.b62(36), 'ghp_' + 'x'.repeat(36), `GITHUB_TOKEN=gho_${'X'.repeat(36)}`] },
  github_fine_grained_pat: { positives: gen('github_fine_grained_pat'), negatives: ['github_pat_short'] },
  gitlab_token: { positives: gen('gitlab_token'), negatives: ['glpat-short'] },
  gitlab_runner_registration_token: { positives: ['GR1348941' + a.b64url(20)], negatives: ['GR1348941abc'] },
  bitbucket_app_password: { positives: gen('bitbucket_app_password'), negatives: ['ATBB' + a.b62(10)] },
  atlassian_api_token: { positives: ['ATATT3' + a.b64url(180)], negatives: ['ATATT3xFfGF0'] },
  npm_token: { positives: gen('npm_token'), negatives: ['npm_' + a.b62(20), 'npm_install_command'] },
  npmrc_auth: { positives: ['//registry.npmjs.org/:_authToken=' + a.b62(36), '_auth = ' + a.b64(24)], negatives: ['author = Jane'] },
  pypi_token: { positives: gen('pypi_token'), negatives: ['pypi-simple'] },
  rubygems_token: { positives: gen('rubygems_token'), negatives: ['rubygems_org'] },
  nuget_api_key: { positives: ['oy2' + r.chars('abcdefghijklmnopqrstuvwxyz0123456789', 43)], negatives: ['oy2short'] },
  dockerhub_pat: { positives: gen('dockerhub_pat'), negatives: ['dckr_pat_short'] },
  crates_io_token: { positives: ['cio' + a.b62(32)], negatives: ['cio' + a.b62(8)] },
  slack_token: {
    positives: [...gen('slack_token'), 'xoxa-23984754863-2348975623111'],
    negatives: ['xoxb-123', 'xoxz-' + a.b62(30), 'xoxb-xoxb-my-bot-token', 'https://indieweb.org/images/3/35/2018-250-xoxo-indieweb-1.jpg', 'xoxp-1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d'],
  },
  slack_app_token: { positives: [`xapp-1-A${a.upnum(10)}-${a.digits(13)}-${a.hex(64)}`], negatives: ['xapp-1-x'] },
  slack_webhook: { positives: gen('slack_webhook'), negatives: ['https://hooks.slack.com/'] },
  discord_webhook: { positives: gen('discord_webhook'), negatives: ['https://discord.com/api/'] },
  discord_bot_token: { positives: gen('discord_bot_token'), negatives: ['Mshort.abcdef.short'] },
  telegram_bot_token: { positives: gen('telegram_bot_token'), negatives: ['12345678:AB' + a.b64url(33)] },
  stripe_key: { positives: gen('stripe_key'), negatives: ['sk_live_', 'sk_prod_' + a.b62(24)] },
  stripe_webhook_secret: { positives: gen('stripe_webhook_secret'), negatives: ['whsec_short'] },
  square_token: { positives: [...gen('square_token'), 'sq0atp-' + a.b64url(22)], negatives: ['sq0atp-short'] },
  braintree_access_token: { positives: [`access_token$production$${r.chars('abcdefghijklmnopqrstuvwxyz0123456789', 16)}$${a.hex(32)}`], negatives: ['access_token$production$x$y'] },
  shopify_token: { positives: gen('shopify_token'), negatives: ['shpat_' + a.hex(8)] },
  twilio_api_key: { positives: [...gen('twilio_api_key'), 'AC' + a.hex(32)], negatives: ['SK' + a.hex(20), 'ASK' + a.hex(32)] },
  twilio_auth_token: { positives: gen('twilio_auth_token').map((v) => `twilio auth token: ${v}`), negatives: ['twilio auth token: redacted'] },
  sendgrid_api_key: { positives: gen('sendgrid_api_key'), negatives: ['SG.short.short'] },
  mailgun_key: { positives: gen('mailgun_key'), negatives: ['key-' + a.hex(10), 'monkey-' + a.hex(32)] },
  mailgun_private_key: { positives: gen('mailgun_private_key').map((v) => `MAILGUN_PRIVATE_KEY: ${v}`), negatives: ['mailgun domain: mg.example.com'] },
  mailchimp_api_key: { positives: gen('mailchimp_api_key'), negatives: [a.hex(32) + '-eu1'] },
  facebook_access_token: { positives: ['EAA' + a.b62(120)], negatives: ['EAA' + a.b62(20)] },
  firebase_fcm_server_key: { positives: [`AAAA${a.b64url(7)}:${a.b64url(140)}`], negatives: ['AAAAbbbb:short'] },
  grafana_token: { positives: ['glc_' + a.b64(40) + '=', `glsa_${a.b62(32)}_${a.hex(8)}`], negatives: ['glc_short'] },
  new_relic_key: { positives: ['NRAK-' + a.upnum(27)], negatives: ['NRAK-short'] },
  postman_api_key: { positives: [`PMAK-${a.hex(24)}-${a.hex(34)}`], negatives: ['PMAK-abc-def'] },
  sentry_token: { positives: gen('sentry_token'), negatives: ['sntrys_short'] },
  sentry_dsn: { positives: [`https://${a.hex(32)}@o123456.ingest.sentry.io/789`], negatives: ['https://sentry.io/welcome'] },
  linear_api_key: { positives: gen('linear_api_key'), negatives: ['lin_api_short'] },
  notion_token: { positives: ['secret_' + a.b62(43), 'ntn_' + a.b62(46)], negatives: ['secret_sauce'] },
  figma_token: { positives: ['figd_' + a.b64url(40)], negatives: ['figd_short'] },
  dropbox_token: { positives: ['sl.' + a.b64url(140)], negatives: ['sl.short'] },
  netlify_token: { positives: ['nfp_' + a.b62(36)], negatives: ['nfp_short'] },
  anthropic_api_key: { positives: gen('anthropic_api_key'), negatives: ['sk-ant-short'] },
  openai_api_key: { positives: gen('openai_api_key'), negatives: ['sk-short', 'desk-lamp-with-a-long-descriptive-name'] },
  huggingface_token: { positives: gen('huggingface_token'), negatives: ['hf_hub_download', 'hf_' + a.b62(10), '- (id)hf_requiredCharacteristicTypesForDisplayMetadata;'] },
  groq_api_key: { positives: gen('groq_api_key'), negatives: ['gsk_short'] },
  xai_api_key: { positives: gen('xai_api_key'), negatives: ['xai-sdk'] },
  perplexity_api_key: { positives: gen('perplexity_api_key'), negatives: ['pplx-7b-online'] },
  replicate_api_token: { positives: gen('replicate_api_token'), negatives: ['r8_short'] },
  langsmith_api_key: { positives: [`lsv2_pt_${a.hex(32)}_${a.hex(10)}`], negatives: ['lsv2_pt_short'] },
  fireworks_api_key: { positives: ['fw_' + a.b62(24)], negatives: ['fw_version'] },
  llm_provider_key_context: {
    positives: [...gen('cohere_api_key').map((v) => `COHERE_API_KEY: ${v}`), ...gen('mistral_api_key').map((v) => `mistral_key = "${v}"`)],
    negatives: ['mistral_model = "mistral-large-latest"', 'cohere: aaaaaaaaaaaaaaaaaaaaaaaa'],
  },
  cloudflare_api_token: { positives: ['cfat_' + a.b62(40) + a.hex(8), 'CLOUDFLARE_API_TOKEN=cfut_' + a.b62(40) + a.hex(8), 'cfk_' + a.b62(40) + a.hex(8)], negatives: ['cfat_short', 'the cfk_ prefix'] },
  shopify_token_any: { positives: ['shpss_' + a.hex(32), 'shpat_' + a.b62(32), 'shpca_' + a.hex(32), 'shppa_' + a.b62(40)], negatives: ['shpat_' + a.hex(8)] },
  tailscale_key: { positives: [`tskey-auth-k${a.b62(10)}CNTRL-${a.b62(33)}`, `tskey-api-k${a.b62(9)}CNTRL-${a.b62(30)}`], negatives: ['tskey-auth', 'see tskey- docs'] },
  vercel_token: { positives: ['vcp_' + a.b62(40), 'vci_' + a.b62(24), 'vca_' + a.b62(56), 'vcr_' + a.b62(30), 'vck_' + a.b62(48)], negatives: ['vcp_short', 'vcx_' + a.b62(30)] },
  sendgrid_api_key_any: { positives: [`SG.${a.b64url(22)}.${a.b64url(43)}`, `SG.${a.b62(12)}.${a.b62(20)}`], negatives: ['SG.x.y', 'SG.short.short'] },
  onepassword_service_account_token: { positives: ['ops_ey' + a.b64(200)], negatives: ['ops_eyes'] },
  databricks_token_any: { positives: ['dapi' + a.hex(32), 'dapi' + a.hex(32).toUpperCase() + '-2', 'dose' + a.hex(32)], negatives: ['dapi' + a.hex(8), 'dapiVersion'] },
  grafana_token_any: { positives: ['glc_' + a.b64(48) + '==', `glsa_${a.b62(32)}_${a.hex(8)}`], negatives: ['glc_short'] },
  openai_project_key: { positives: ['sk-proj-' + a.b64url(60), 'sk-svcacct-' + a.b64url(60), 'sk-admin-' + a.b64url(60)], negatives: ['sk-proj-x'] },
  npm_token_any: { positives: ['npm_' + a.b62(36)], negatives: ['npm_' + a.b62(12)] },
  github_oauth_basic: { positives: [`https://${a.hex(40)}:x-oauth-basic@github.com/org/repo.git`], negatives: ['https://github.com/org/repo.git'] },
  huggingface_token_any: { positives: ['hf_' + r.chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 34)], negatives: ['hf_hub_download'] },
  notion_integration_token: { positives: ['ntn_' + a.digits(11) + a.b62(35)], negatives: ['ntn_short'] },
  linear_api_key_any: { positives: ['lin_api_' + a.b62(40), 'lin_oauth_' + a.b62(64)], negatives: ['lin_api_short'] },
  figma_token_any: { positives: ['figd_' + a.b64url(43)], negatives: ['figd_short'] },
  docker_pat_any: { positives: ['dckr_pat_' + a.b64url(27), 'dckr_oat_' + a.b64url(32)], negatives: ['dckr_pat_x'] },
  hashicorp_vault_token_any: { positives: ['hvs.' + a.b64url(90), 'hvb.' + a.b64url(140)], negatives: ['hvs.short'] },
  groq_api_key_any: { positives: ['gsk_' + a.b62(52)], negatives: ['gsk_short'] },
  anthropic_api_key_any: { positives: ['sk-ant-api03-' + a.b64url(93) + 'AA', 'sk-ant-admin01-' + a.b64url(93) + 'AA'], negatives: ['sk-ant-api03-x'] },
  airtable_pat: { positives: [`pat${a.b62(14)}.${a.hex(64)}`], negatives: ['path.join(dir, file)', `pat${a.b62(14)}.short`] },
  pgpass_line: { positives: ['db.internal:5432:app:admin:S3cr3tPw9', '*:*:*:replicator:Xq81mZ7w'], negatives: ['localhost:5432:*:postgres:*', 'time 12:30:45:11:22 ok', 'a:1:b:c:password'] },
  gcp_service_account_private_key: {
    positives: [`  "private_key": "${a.b64(64)}\\n${a.b64(64)}",`, `"private_key":"MII${a.b64(40)}"`],
    negatives: ['  "private_key": "",', '"private_key_id_field": "x"'],
  },
  hex_private_key: {
    positives: ['PRIVATE_KEY=0x' + a.hex(64), 'wallet key: ' + a.hex(64), 'const signingKey = "' + a.hex(128) + '";'],
    negatives: ['commit ' + a.hex(40), 'sha256 ' + a.hex(64), 'private key: 0x1234'],
  },
  connection_string: {
    positives: ['postgres://app:pw9x@db:5432/x', 'mongodb+srv://app:Xq81mZ@cluster0.example.net/test', 'redis://h:6379/0?password=Zq8x1', 'amqp://u:Kp2x@mq'],
    negatives: ['use the postgres driver', 'https://example.com/', 'redis://localhost:6379', 'mongodb+srv://cluster0.example.net/test', 'mongodb://username:password@host:1234', 'postgres://${USER}:${PASS}@db/app'],
  },
  jdbc_connection_string: {
    positives: ['jdbc:postgresql://db:5432/app?user=a&password=Zr8qLm2W', 'jdbc:sqlserver://db:1433;databaseName=app;user=sa;password=Zr8q!Lm2W;', 'jdbc:oracle:thin:scott/Zr8qLm2W@db:1521:orcl', 'jdbc:mysql://app:Zr8qLm2W@db:3306/app'],
    negatives: ['the jdbc driver', 'jdbc:mysql://localhost:3306/mydb', 'jdbc:mysql://admin:pass@localhost:3306/mydb', 'jdbc:postgresql://db:5432/app?user=app&password=${DB_PASSWORD}'],
  },
  ado_connection_string: { positives: ['Server=tcp:db,1433;Database=app;User ID=app;Password=pw;'], negatives: ['Server=db;Database=app;Integrated Security=true;'] },
  url_credentials: {
    positives: ['https://user:pa55@git.example.com/repo.git', 'ftp://u:p4ss@files.example.com', 'redis://:s3cr3tPw@host:6379'],
    negatives: ['https://example.com:8080/path', 'mailto:user@example.com', 'https://user:<password>@host/x', 'https://${user}:${token}@github.com/x',
      'https://username:REPLACE_WITH_PASSWORD@example.org', 'https://user:abc@api.example.com/v1', 'amqp://guest2:guest2@localhost:5672',
      '<script type="application/ld+json">{"@context":"https://schema.org","url":"https://example.com","name":"Acme Docs","logo":{"@type":"ImageObject","url":"https://example.com/logo.png"}}</script>'],
  },
  jwt_token: { positives: [fakeJwt(r), `Authorization: ${fakeJwt(r)}`], negatives: ['eyJhbGci', 'eyJ.short.x'] },
  authorization_header: {
    positives: ['Authorization: Bearer ' + a.b64url(40), "headers['authorization'] = 'Basic " + a.b64(20) + "'", 'authorization: token ' + a.hex(40)],
    negatives: ['authorization: required', 'Authorization header missing'],
  },
  bearer_token: { positives: ['-H "Bearer ' + a.b64url(32) + '"'], negatives: ['bearer tokens are opaque'] },
  cli_user_password: { positives: ['curl -u admin:pw9x https://x', 'wget --user=me:s3cr3tpw http://x'], negatives: ['curl -u admin https://x', 'useradd -u 1001 bob', 'arjun -u {{https://example.com/page.php}}', 'curl -u {{user}}:{{password}} https://x'] },
  cli_password_flag: { positives: ['tool login --password=hunter2', 'gh auth --token ' + a.b62(20)], negatives: ['--password-file /run/secret', 'tool --passive', 'tool login --password {{password}}', 'mysqldump --user u --password --all-databases', 'gh auth --token $GH_TOKEN', 'x --api-key "<your-key>"'] },
  cli_short_password_flag: { positives: ['mysql -u root -pS3cr3t9 db', 'sshpass -p hunter2 ssh host', 'docker login -u me -p p4ssw0rd9 reg.io'], negatives: ['mkdir -p src/lib', 'mysql -u root -p db', 'sshpass -p {{password}} ssh {{user}}@{{host}}'] },
  password_hash: { positives: [`bob:$apr1$${a.b62(8)}$${a.b62(22)}`, `$2b$12$${a.b62(53)}`, `$6$${a.b62(8)}$${a.b62(86)}`], negatives: ['costs $5 and $6', '$2b$ is bcrypt'] },
  netrc_password: { positives: ['machine api.example.com login bot password hunter2'], negatives: ['machine learning login page'] },
  sql_password: {
    positives: ["CREATE USER 'app'@'%' IDENTIFIED BY 'Zr8qLm2Wx9';", "ALTER USER app WITH PASSWORD 'pdclsxHKifxiCvQU';", "CREATE ROLE web LOGIN ENCRYPTED PASSWORD 'k3yb0ard-Cat';", "SET PASSWORD FOR 'bob'@'localhost' = PASSWORD('s3cr3tpw');", "create user scott identified by tiger99;".replace('tiger99', "'tiger99'")],
    negatives: ["ALTER USER app WITH PASSWORD '%s';", "CREATE USER 'app'@'%' IDENTIFIED BY '<password>';", "ALTER USER app WITH PASSWORD ':password';", 'user password reset flow', 'USER = PASSWORD = "%!*\'();:@&=+$,/?#[] "', "CREATE USER app IDENTIFIED BY '${DB_PASSWORD}';"],
  },
  bip32_extended_private_key: {
    positives: ['xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi', 'tprv8ZgxMBicQKsPd9TeAdPADNnSyH9SSUUbTVeFszDE23Ki6TBB5nCefAdHkK8Fm3qMQR6sHwA56zqRmKmxnHk37JkiFzvncDqoKmPWubu7hDF'],
    negatives: ['xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8', 'xprv is the prefix of an extended private key'],
  },
  sql_password_unquoted: {
    positives: ['CREATE USER r IDENTIFIED BY Vn4Lk8Pz2Qm;', 'ALTER USER sys IDENTIFIED BY Oracle123Pw;', 'GRANT CONNECT, RESOURCE TO scott IDENTIFIED BY Tiger2024x;', 'create user app identified by s3cr3tPw default tablespace users', "CREATE DATABASE LINK l CONNECT TO u IDENTIFIED BY Pw9xLinkQ USING 'db';", 'SET ROLE admin IDENTIFIED BY r0leP4ss;'],
    negatives: ['Create a user identified by their email address.', 'The user is identified by name; see below', 'CREATE USER u IDENTIFIED BY :pw;', 'CREATE USER u IDENTIFIED BY &pw;', 'CREATE USER u IDENTIFIED BY password;', 'CREATE USER u IDENTIFIED EXTERNALLY;', 'GRANT ALL ON t TO u IDENTIFIED BY ?;', 'CREATE USER u IDENTIFIED BY ${ORACLE_PW};'],
  },
  cookie_header: {
    positives: ['Cookie: session=8f3kQm2ZxP0aLw9sYt7v', 'Set-Cookie: sessionid=38afes7a8; Path=/; HttpOnly', 'Cookie: theme=dark; connect.sid=s%3AaB3dE5fG7hI9', "curl -b 'auth_token=Zr8qLm2Wx9pT' https://x.io", `document.cookie = "remember_me=${a.b62(24)}"`],
    negatives: ['Cookie: theme=dark; lang=en-US', 'Set-Cookie: session=<value>; Path=/', 'const cookie = req.headers.cookie;', 'cookie = jar.get(key, domain=domain1)', 'Set-Cookie: sessionid=; Max-Age=0', 'git checkout -b feature/login'],
  },
  terraform_variable_default: {
    positives: ['variable "db_password" { default = "Zr8qLm2Wx9" }', `variable "api_token" { type = string, default = "${a.b62(32)}" }`],
    negatives: ['variable "db_password" { default = "" }', 'variable "db_password_length" { default = "16" }', 'variable "region" { default = "eu-west-1" }', 'variable "db_password" { default = "changeme" }'],
  },
  xml_secret_element: { positives: ['<password>hunter2</password>', `<ApiToken>${a.b62(24)}</ApiToken>`, '<db.pass>Xk9#qL2!</db.pass>'], negatives: ['<password/>', '<tokenizer>bpe</tokenizer>', '<passwordPolicy></passwordPolicy>', '<password>changeme</password>', '<apiKey>${API_KEY}</apiKey>'] },
  xml_key_value_secret: { positives: [`<add key="ApiToken" value="${a.b62(32)}" />`, "<add key='DbPassword' value='S3cr3t!pw'/>"], negatives: ['<add key="Theme" value="dark" />', '<add key="ApiToken" value="" />', '<add key="DbPassword" value="%DB_PASSWORD%" />'] },
  secret_key_value_pair: {
    positives: ['os.environ.get("DB_PASSWORD", "hunter2")', `headers.set('X-Api-Key', '${a.b62(32)}')`, `ENV.fetch("API_TOKEN", "${a.hex(40)}")`],
    negatives: ['os.environ.get("DB_PASSWORD", "${DB_PASSWORD}")', 'config.get("theme", "dark")', "headers.set('X-Api-Key', 'abc123')", 't("password", "Password")', "@pytest.mark.parametrize(('username', 'password', 'message'), ("],
  },
  secret_assignment_quoted: {
    positives: ['password: "hunter2"', `  apiKey: '${a.b62(32)}',`, 'const dbPassword = `Summer2024!`;', 'secret="x7Qz9p#Lm2"', '"client_secret": "s3cr3t-Vq81"', 'auth: "dXNlcjpwYXNz"', '| DB_PASSWORD | "Tr0ub4dor&3" |'],
    negatives: ['password: "${DB_PASSWORD}"', 'token: "<your-token>"', 'password: ""', 'author: "Jane"', 'monkey: "banana"', "  apiKey: 'abc',", "messageKey: 'message'", "storageKey: 'app-theme-preference'", "passwordLabel: 'Enter your password'", "tokenType: 'Bearer'", 'password: "Password is required."', "secretName: 'prod-db-credentials'", "apiKey: 'YOUR_API_KEY'", "token: 'sk-xxxxxxxxxxxxxxxx'"],
  },
  secret_assignment: {
    positives: ['password: hunter2', 'password: supersecret', '"content": "DB_PASSWORD: hunter2x\\nNEXT: 1"', 'password: pdclsxHKifxiCvQU', 'password: QwRtZxPlKmNbVc', 'DB_PASSWORD: P@ss!w0rd', 'smtp.pass = hunter22', `storageKey: ${a.b62(24)}`, `X-Api-Key: ${a.hex(32)}`, 'password: {abc123}x', '| password | Tr0ub4dor&3 |'],
    negatives: ['password: string;', 'token: process.env.TOKEN,', 'const token = getToken();', 'if (token === undefined)', 'key={item.id}', 'secret: config.secret', 'password: ${DB_PASSWORD}', 'author: Jane', 'token: null',
      'db_pass=Summer(2024)', 'storageKey: abc', 'password: DB_PASSWORD', 'credentials: GOOGLE_APPLICATION_CREDENTIALS', 'self._cv_token = _cv_app.set(self)', 'administrator_login_password = var.db_password', 'adminSecretNamespace: kube-system', '"rbd-with-secret": &api.Pod{},', 'export ETCD_DISCOVERY_TOKEN=$(python -c "import random")', '"content": "        self.client = Client(auth=api_key)\\n        self._db = None"', 'public_key = "' + a.b62(43) + '"', '**With 90% caching after first pass: ~$5-7/100 URLs**', 'password = pwdHash', 'someKey: { type: "string" }', 'const firstKey = getNextKey(0)', 'const token = tokens[current++];', 'password: userPassword,', 'Key extends $ZodRecordKey = $ZodRecordKey,',
      'const generateFastpass = (shape: any) => {', '| password | string | The user password |', 'passwordMinLength = 12', 'const specialTokenConfig = encodeOptions'],
  },
  env_var_assignment: { positives: ['DATABASE_URL=postgres://x', 'export FOO_SECRET=b4rQz91x', 'S3_BUCKET=acme-prod-7f3k2-uploads-91a'], negatives: ['x = FOO', 'A=1', 'foo_bar=baz', 'if (A == B)', 'NODE_ENV=production', 'DEBUG=1', 'CONTEXTPACK_DB=/tmp/x.db', 'HOME=$HOME', 'export FOO_SECRET=bar', 'OPENAI_MODEL_NAME="gpt-4o"', 'COMMUNICATION_API_VERSION=rc0.13.0_20230412_0712-SNAPSHOT', 'ANTHROPIC_API_KEY=your_anthropic_api_key_here', 'ENV PATH="/app/.venv/bin:$PATH"',
    'REDIS_URL=redis://localhost:6379/0', '      - REDIS_URL=redis://redis:6379', 'VTGATE_REPLICAS=$VTGATE_COUNT', 'MONGO_URL=mongodb://$MONGO_SERVICE_HOST:$MONGO_SERVICE_PORT', 'NODE="nodeSelector: { name: ${2} }"', 'KUBE_DNS_PORT_53_UDP_ADDR=10.0.0.10', ') ENGINE=InnoDB', 'CASSANDRA_ENDPOINT_SNITCH="GossipingPropertyFileSnitch"', '"text": "- Amazon Bedrock (`CLAUDE_CODE_USE_BEDROCK=1`)\\n- Vertex"'] },
  high_entropy_secret: {
    positives: ['the staging API key for CI is ' + a.b62(32), 'token: ' + a.hex(40), 'credential=' + a.b64(44), 'secret ' + a.b62(24)],
    negatives: ['token: aaaaaaaaaaaaaaaaaaaaaaaaa', 'the key point is characterization', 'key: short', "key: process.env.NODE_ENV !== 'production' && 'maybeNotify',",
      "* Returns tokens assuming the 'gpt-3.5-turbo-0301' / 'gpt-4-0314' format.", 'const keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);', 'isKeywordSpread = is(TOKEN_TYPES.ExponentiationBinaryOperator);', 'tokenizer files and `onnx/model_quantized.onnx` (q8, the default).',
      "jobCredentialsId: 'f4aeb6bc-2a25-458a-8111-9be9e502c0e7'", 'primaryKey=' + 'Zq9' + a.b62(24), 'key_down_event=' + a.b62(28), '<input type="hidden" name="authenticity_token" value="' + a.b64url(60) + '">'],
  },
  password_in_prose: { positives: ['the admin password is hunter2', 'Password: Tr0ub4dor&3', 'pwd -> abcd1234', 'the password to use is Zq81mX!k'], negatives: ['reset your password here', 'password policy applies', 'View a vault file by using a password file to decrypt:', '<dd><input type=password name=password>', 'password: z.string().min(12),'] },
  email_address: { positives: ['mail jane.doe@example.com', 'ops+alerts@corp.example.co.uk'], negatives: ['@types/node', 'react@19.0.0', 'user at example dot com', 'lets clone git@github.com:acme/widgets.git', 'git remote add origin git@gitlab.example.com:foo/bar.git', '![logo](https://x.io/_next/image?url=%2Fimages%2Flogo%402x.png&w=32)'] },
  private_ipv4: { positives: ['10.0.3.17', 'host 172.16.0.1', '192.168.1.42:8080', '169.254.169.254'], negatives: ['8.8.8.8', '172.32.0.1', '110.1.2.3', 'v1.10.2'] },
  private_ipv6: { positives: ['fd12:3456:789a:1::1', 'fe80::1ff:fe23:4567:890a', 'FC00::1'], negatives: ['2001:db8::1', 'fcfe', '#fd0a0a'] },
  base64_blob_line: { positives: [a.b64(64), '  ' + a.b64(40) + '==', `"${a.b64(48)}",`], negatives: ['a'.repeat(64), '  createAuthenticationMiddlewareFactory', '  someVeryLongIdentifierNameHere,', a.b64(20), a.hex(40), a.b64(39)] },
};

const GITLEAKS_IDS = new Set(GITLEAKS_RULES.map((rule) => rule.id));
/** The rules written for this gate (and the secretlint ports); gitleaks' are tested as a set in families.test.ts. */
const OWN = BUILTIN_RULES.filter((rule) => !GITLEAKS_IDS.has(rule.id));

const IMPLEMENTATIONS: Array<[string, (rule: RedactionRule) => Redactor]> = [
  ['RE2.Set prefilter', (rule) => createRedactor({ rules: [rule] })],
  ['per-rule RE2', (rule) => createRedactor({ rules: [rule], compile: compileRe2 })],
];

describe('rule cases', () => {
  it("exist for every built-in rule of the gate's own (gitleaks rules: families.test.ts), each with positives and negatives", () => {
    const missing = OWN.filter((rule) => !CASES[rule.id]?.positives.length || !CASES[rule.id]?.negatives.length);
    expect(missing.map((rule) => rule.id)).toEqual([]);
    expect(Object.keys(CASES).filter((id) => !BUILTIN_RULES.some((rule) => rule.id === id))).toEqual([]);
  });

  it('have unique ids and well-formed types', () => {
    expect(new Set(BUILTIN_RULES.map((rule) => rule.id)).size).toBe(BUILTIN_RULES.length);
    for (const rule of BUILTIN_RULES) expect(rule.type).toMatch(/^[a-z0-9_]+$/);
  });

  it('give every rule a keyword or a trigger for the prefilter, except a few whose own pattern is the trigger', () => {
    const unfiltered = BUILTIN_RULES.filter((rule) => !(rule.keywords?.length || rule.trigger));
    // These use their own pattern as trigger: anchored on a shape, no keyword to speak of.
    expect(unfiltered.map((rule) => rule.id).sort()).toEqual(['discord_bot_token', 'private_ipv6', 'twilio_api_key']);
  });
});

describe.each(IMPLEMENTATIONS)('built-in rules via %s', (_name, make) => {
  describe.each(OWN.map((rule) => [rule.id, rule] as const))('%s', (id, rule) => {
    const redactor = make(rule);
    const cases = CASES[id] ?? { positives: [], negatives: [] };

    it('redacts its positives', () => {
      for (const line of cases.positives) {
        const { text, redactions } = redactor.redactText(line, { source: 't', section: 'T' });
        expect({ line, pattern: redactions[0]?.pattern }).toEqual({ line, pattern: id });
        expect(text).toBe(`[REDACTED: ${rule.type}]`);
      }
    });

    it('leaves its negatives alone', () => {
      for (const line of cases.negatives) {
        const { text } = redactor.redactText(line, { source: 't', section: 'T' });
        expect(text).toBe(line);
      }
    });
  });
});

describe('block rules', () => {
  it('redact a whole generated PEM of each kind through END', () => {
    const redactor = createRedactor({ rules: BUILTIN_RULES.filter((rule) => rule.blockEnd) });
    for (const kind of ['RSA PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'PGP PRIVATE KEY BLOCK', 'SSH2 ENCRYPTED PRIVATE KEY']) {
      const pem = fakePem(r, kind);
      const { text } = redactor.redactText(['before', ...pem.lines, 'after'].join('\n'), { source: 't', section: 'T' });
      const lines = text.split('\n');
      expect(lines[0]).toBe('before');
      expect(lines.at(-1)).toBe('after');
      expect(lines.slice(1, -1).every((l) => l === '[REDACTED: private_key]')).toBe(true);
    }
  });
});
