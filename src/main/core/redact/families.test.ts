import { describe, expect, it } from 'vitest';
import { alphabets, createRng, LOWER, DIGITS } from './fake-secrets.testkit.ts';
import { compileRe2 } from './re2-compile.ts';
import { createRedactor } from './redactor.ts';
import { GITLEAKS_RULES } from './rules-gitleaks.ts';
import { BUILTIN_RULES } from './rules.ts';

/*
 * Issue #10 item 3: every rule family of gitleaks' default configuration and of secretlint's recommended preset is
 * in the rule data, and tokens of each family the issue names, and of a sample of gitleaks-only families, are
 * caught bare and in their usual contexts. All values are generated here (format-correct fakes, never committed).
 */

const r = createRng(3003);
const a = alphabets(r);
const lowerNum = (n: number) => r.chars(LOWER + DIGITS, n);
const redactor = createRedactor();
const ctx = { source: 'families.test', section: 'TEST' };

/** The secretlint recommended preset's rules (packages/@secretlint/secretlint-rule-preset-recommend). */
const SECRETLINT_PRESET = [
  'aws', 'gcp', 'privatekey', 'npm', 'basicauth', 'slack', 'sendgrid', 'shopify', 'stripe', 'github', 'gitlab', 'grafana',
  'openai', 'anthropic', 'groq', 'huggingface', 'linear', 'notion', '1password', 'database-connection-string',
  'hashicorp-vault', 'vercel', 'databricks', 'docker', 'figma', 'cloudflare', 'tailscale',
];

/** One real-format fake per family: [family, token]. */
const ISSUE_FAMILIES: Array<[string, () => string]> = [
  ['cloudflare cfat_', () => 'cfat_' + a.b62(40) + a.hex(8)],
  ['cloudflare cfut_', () => 'cfut_' + a.b62(40) + a.hex(8)],
  ['cloudflare cfk_', () => 'cfk_' + a.b62(40) + a.hex(8)],
  ['shopify shpss_', () => 'shpss_' + a.hex(32)],
  ['shopify shpat_', () => 'shpat_' + a.hex(32)],
  ['shopify shpca_', () => 'shpca_' + a.hex(32)],
  ['shopify shppa_', () => 'shppa_' + a.hex(32)],
  ['tailscale auth key', () => `tskey-auth-k${a.b62(11)}CNTRL-${a.b62(34)}`],
  ['tailscale api key', () => `tskey-api-k${a.b62(11)}CNTRL-${a.b62(34)}`],
  ['vercel vcp_', () => 'vcp_' + a.b62(24)],
  ['vercel vci_', () => 'vci_' + a.b62(24)],
  ['vercel vca_', () => 'vca_' + a.b62(56)],
  ['vercel vcr_', () => 'vcr_' + a.b62(56)],
  ['vercel vck_', () => 'vck_' + a.b62(24)],
  ['sendgrid SG.x.y', () => `SG.${a.b64url(22)}.${a.b64url(43)}`],
  ['1password ops_', () => 'ops_ey' + a.b64(300) + '=='],
  ['databricks dapi', () => 'dapi' + a.hex(32)],
  ['databricks dapi-N', () => 'dapi' + a.hex(32) + '-2'],
  ['databricks DAPI upper hex', () => 'dapi' + a.hex(32).toUpperCase()],
  ['databricks dose (OAuth secret)', () => 'dose' + a.hex(32)],
  // gitleaks-only families (a sample; the rest is exercised by compile and prefilter checks below)
  ['alibaba LTAI', () => 'LTAI' + lowerNum(20)],
  ['clojars', () => 'CLOJARS_' + lowerNum(60)],
  ['dynatrace', () => `dt0c01.${lowerNum(24).toUpperCase()}.${lowerNum(64).toUpperCase()}`],
  ['easypost', () => 'EZAK' + lowerNum(54)],
  ['flutterwave', () => `FLWSECK_TEST-${r.chars('abcdefgh0123456789', 32)}-X`],
  ['frameio', () => 'fio-u-' + a.b64url(64)],
  ['infracost', () => 'ico-' + a.b62(32)],
  ['prefect', () => 'pnu_' + a.b62(36)],
  ['readme', () => 'rdme_' + lowerNum(70)],
  ['scalingo', () => 'tk-us-' + a.b64url(48)],
  ['sendinblue', () => `xkeysib-${a.hex(64)}-${lowerNum(16)}`],
  ['shippo', () => 'shippo_live_' + a.hex(40)],
  ['openshift', () => 'sha256~' + a.b64url(43)],
  ['duffel', () => 'duffel_live_' + a.b64url(43)],
  ['artifactory', () => 'AKCp' + a.b62(69)],
  ['aws bedrock', () => 'ABSK' + a.b64(120)],
  ['anthropic admin', () => 'sk-ant-admin01-' + a.b64url(93) + 'AA'],
  ['age secret key', () => 'AGE-SECRET-KEY-1' + r.chars('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)],
];

const CONTEXTS: Array<[string, (v: string) => string]> = [
  ['bare', (v) => v],
  ['env', (v) => `SERVICE_CREDENTIAL=${v}`],
  ['yaml', (v) => `  value: ${v}`],
  ['json', (v) => `{"value": "${v}"}`],
  ['prose', (v) => `Use ${v} for the nightly job.`],
  ['full-width', (v) => [...v].map((c) => (c > ' ' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('')],
  ['json-escaped', (v) => `{"v": "${[...v].map((c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')).join('')}"}`],
];

describe('rule families as data (item 3)', () => {
  it("holds every gitleaks default rule but the three replaced ones, each with gitleaks' id, pattern and keywords", () => {
    const ids = new Set(BUILTIN_RULES.map((rule) => rule.id));
    for (const rule of GITLEAKS_RULES) expect(ids.has(rule.id)).toBe(true);
    expect(GITLEAKS_RULES.length).toBeGreaterThanOrEqual(215);
    for (const id of ['generic-api-key', 'pkcs12-file', 'kubernetes-secret-yaml']) expect(ids.has(id)).toBe(false);
    for (const rule of GITLEAKS_RULES) expect(rule.keywords?.length).toBeGreaterThan(0);
  });

  it('compiles every rule with RE2 (no lookaround, no backreferences), patterns, allow-lists and block ends', () => {
    for (const rule of BUILTIN_RULES) {
      expect(() => compileRe2(rule.pattern, rule.flags ?? '')).not.toThrow();
      if (rule.allowValue) expect(() => compileRe2(rule.allowValue!, 'i')).not.toThrow();
      if (rule.trigger) expect(() => compileRe2(rule.trigger!, rule.flags ?? '')).not.toThrow();
    }
  });

  it("covers every rule of secretlint's recommended preset", () => {
    // Where each preset rule lives in the rule data (a rule id, or the gitleaks id that covers it).
    const covered: Record<string, string> = {
      aws: 'aws_access_key_id', gcp: 'gcp_service_account_private_key', privatekey: 'private_key_block', npm: 'npm_token_any',
      basicauth: 'url_credentials', slack: 'slack_token', sendgrid: 'sendgrid_api_key_any', shopify: 'shopify_token_any',
      stripe: 'stripe_key', github: 'github_token', gitlab: 'gitlab_token', grafana: 'grafana_token_any', openai: 'openai_project_key',
      anthropic: 'anthropic_api_key_any', groq: 'groq_api_key_any', huggingface: 'huggingface_token_any', linear: 'linear_api_key_any',
      notion: 'notion_integration_token', '1password': 'onepassword_service_account_token', 'database-connection-string': 'connection_string',
      'hashicorp-vault': 'hashicorp_vault_token_any', vercel: 'vercel_token', databricks: 'databricks_token_any', docker: 'docker_pat_any',
      figma: 'figma_token_any', cloudflare: 'cloudflare_api_token', tailscale: 'tailscale_key',
    };
    const ids = new Set(BUILTIN_RULES.map((rule) => rule.id));
    for (const name of SECRETLINT_PRESET) expect({ name, present: ids.has(covered[name] ?? '') }).toEqual({ name, present: true });
  });

  describe.each(ISSUE_FAMILIES)('%s', (_family, make) => {
    it.each(CONTEXTS)('is caught %s', (_c, wrap) => {
      for (let i = 0; i < 3; i++) {
        const v = make();
        const line = wrap(v);
        const out = redactor.redactText(`header line\n${line}\nfooter line`, ctx);
        expect(out.text.split('\n')).toEqual(['header line', expect.stringMatching(/^\[REDACTED: [a-z0-9_]+\]$/), 'footer line']);
      }
    });
  });

  it('catches a GCP service-account JSON and hex private keys next to key words', () => {
    const pemBody = Array.from({ length: 8 }, () => a.b64(64)).join('\\n');
    const sa = ['{', '  "type": "service_account",', `  "private_key_id": "${a.hex(40)}",`, `  "private_key": "-----BEGIN PRIVATE KEY-----\\n${pemBody}\\n-----END PRIVATE KEY-----\\n",`, `  "client_email": "svc@demo-123.iam.gserviceaccount.com"`, '}'];
    const out = redactor.redactText(sa.join('\n'), ctx).text.split('\n');
    expect(out[1]).toBe('  "type": "service_account",');
    for (const i of [2, 3, 4]) expect(out[i]).toMatch(/^\[REDACTED/);
    for (const line of [`PRIVATE_KEY=0x${a.hex(64)}`, `deployer key: ${a.hex(64)}`, `const walletSecret = '${a.hex(64)}';`, `ETH_PRIVATE_KEY="${a.hex(64)}"`]) {
      expect(redactor.redactText(line, ctx).text).toMatch(/^\[REDACTED/);
    }
  });
});
