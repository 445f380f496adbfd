import { describe, expect, it } from 'vitest';
import { alphabets, createRng } from './fake-secrets.testkit.ts';
import { joinedStatements } from './joined-lines.ts';
import { createRedactor } from './redactor.ts';

/*
 * Issue #22 item 5: leak forms that were redacted nowhere. Each form holds a generated value and must leave no part
 * of it; the same shapes with a placeholder or a harmless value keep their lines (precision from context).
 */

const r = createRng(2222);
const a = alphabets(r);
const redactor = createRedactor();
const redact = (text: string) => redactor.redactText(text, { source: 'coverage.test', section: 'TEST' });

function expectGone(text: string, secrets: string[]): void {
  const out = redact(text).text;
  for (const s of secrets) {
    // No piece of 6 characters or more survives (a split value leaks in pieces).
    for (let i = 0; i + 6 <= s.length; i++) expect(out, `${s} in\n${out}`).not.toContain(s.slice(i, i + 6));
  }
}

const letters = () => r.chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 16);

describe('name/value pairs across lines', () => {
  it('Kubernetes / Compose env: - name: then value:', () => {
    const [t, p, k] = [a.b62(32), 'Tr0ub4dor&3x', a.hex(40)];
    expectGone(
      ['spec:', '  containers:', '    - name: api', '      env:', '        - name: API_TOKEN', `          value: "${t}"`, '        - name: DB_PASSWORD', `          value: ${p}`,
        '        - name: STRIPE_SECRET_KEY', `          value: '${k}'`, '        - name: LOG_LEVEL', '          value: debug'].join('\n'),
      [t, p, k],
    );
  });

  it('the same pairs pretty-printed in an ECS task definition, in either key order', () => {
    const [t, s] = [a.b62(28), a.b64(40)];
    const json = JSON.stringify({ containerDefinitions: [{ name: 'web', environment: [{ name: 'API_TOKEN', value: t }, { value: s, name: 'SESSION_SECRET' }] }] }, null, 2);
    expectGone(json, [t, s]);
  });

  it('Helm values: env lists and extraEnv', () => {
    const t = a.b62(30);
    expectGone(['extraEnv:', '  - name: GITHUB_TOKEN', `    value: ${t}`, 'image:', '  tag: "1.2.3"'].join('\n'), [t]);
  });

  it('Hadoop-style XML property pairs', () => {
    const k = a.b64(40);
    expectGone(['<property>', '  <name>fs.s3a.secret.key</name>', `  <value>${k}</value>`, '</property>'].join('\n'), [k]);
    expect(redact(['<property>', '  <name>fs.s3a.endpoint</name>', '  <value>s3.eu-west-1.amazonaws.com</value>', '</property>'].join('\n')).redactions).toEqual([]);
  });

  it('pairs on one line (ECS, flow-style YAML) and block scalars', () => {
    const [p, q, t] = ['Tr0ub4dor&3y', 'hunter2hunter', a.b62(24)];
    expectGone(`      "environment": [{ "name": "DB_PASSWORD", "value": "${p}" }],`, [p]);
    expectGone(`- {value: ${q}, name: SMTP_PASSWORD}`, [q]);
    expectGone(['env:', '  - name: SESSION_SECRET', '    value: >-', `      ${t}`, '  - name: LOG_LEVEL', '    value: info'].join('\n'), [t]);
    expect(redact('"secrets": [{ "name": "API_TOKEN", "valueFrom": "arn:aws:ssm:us-east-1:123456789012:parameter/api-token" }],').redactions).toEqual([]);
  });

  it('keeps pairs whose name is not a secret, or whose value is a placeholder or a reference', () => {
    const text = ['env:', '  - name: LOG_LEVEL', '    value: debug', '  - name: API_TOKEN', '    value: "${API_TOKEN}"', '  - name: DB_PASSWORD', '    valueFrom:', '      secretKeyRef:', '        name: db', '        key: password'].join('\n');
    expect(redact(text).redactions).toEqual([]);
  });
});

describe('Terraform defaults', () => {
  it('variable "db_password" { default = "…" }, on one line and as a block', () => {
    const [p, q] = [a.b62(18), a.b62(20)];
    expectGone(`variable "db_password" { default = "${p}" }`, [p]);
    expectGone(['variable "api_token" {', '  type      = string', `  default   = "${q}"`, '  sensitive = true', '}'].join('\n'), [q]);
  });

  it('keeps a default that is not a secret', () => {
    expect(redact(['variable "region" {', '  default = "eu-west-1"', '}', 'variable "db_password_length" {', '  default = 24', '}'].join('\n')).redactions).toEqual([]);
  });
});

describe('SQL user and password statements', () => {
  it('CREATE USER … IDENTIFIED BY, ALTER USER … WITH PASSWORD, SET PASSWORD', () => {
    const [p, q, s] = [a.b62(14), letters(), a.b62(12)];
    expectGone(`CREATE USER 'app'@'%' IDENTIFIED BY '${p}';`, [p]);
    expectGone(`ALTER USER app WITH PASSWORD '${q}';`, [q]);
    expectGone(`SET PASSWORD FOR 'bob'@'localhost' = PASSWORD('${s}');`, [s]);
  });

  it('keeps bind parameters and templates', () => {
    expect(redact("ALTER USER app WITH PASSWORD '%s';\nCREATE USER app IDENTIFIED BY ':password';").redactions).toEqual([]);
  });
});

describe('cookies and session headers', () => {
  it('Cookie: session=… and Set-Cookie: sessionid=…', () => {
    const [s, t] = [a.b62(32), a.hex(32)];
    expectGone(`Cookie: theme=dark; session=${s}`, [s]);
    expectGone(`Set-Cookie: sessionid=${t}; Path=/; HttpOnly; Secure`, [t]);
  });

  it('keeps cookies that hold no credential', () => {
    expect(redact('Cookie: theme=dark; lang=en-US\nSet-Cookie: sessionid=; Max-Age=0').redactions).toEqual([]);
  });
});

describe('letters-only passwords next to a key word', () => {
  it('redacts random letters under a password key, as YAML, .env or INI', () => {
    for (let i = 0; i < 40; i++) {
      const p = letters();
      expectGone(`password: ${p}`, [p]);
      expectGone(`DB_PASSWORD=${p}`, [p]);
    }
  });

  it('keeps names in code and environment variable names', () => {
    const text = ['password: userPassword,', 'const password = pwdHash', 'password: DB_PASSWORD', 'credentials: GOOGLE_APPLICATION_CREDENTIALS', '| GOOGLE_APPLICATION_CREDENTIALS | path to the key file |'].join('\n');
    expect(redact(text).redactions).toEqual([]);
  });
});

describe('tokens split across literals', () => {
  it('Python adjacent literals inside KEY = (', () => {
    const t = 'ghp_' + a.b62(36);
    expectGone(['API_KEY = (', `    "${t.slice(0, 14)}"`, `    "${t.slice(14, 28)}"`, `    "${t.slice(28)}"`, ')'].join('\n'), [t]);
    expectGone(`TOKEN = ("${t.slice(0, 20)}" "${t.slice(20)}")`, [t]);
    // Two literals on one line inside the parentheses, short pieces (the key word alone does not name a secret).
    expectGone(['GITHUB = (', `    "${t.slice(0, 4)}" "${t.slice(4, 20)}"`, `    "${t.slice(20, 30)}" "${t.slice(30)}"`, ')'].join('\n'), [t.slice(4)]);
  });

  it('JavaScript + concatenation, on one line and over lines', () => {
    const t = 'sk_live_' + a.b62(24);
    expectGone(`const stripe = "${t.slice(0, 12)}" + "${t.slice(12)}";`, [t]);
    expectGone([`const stripe =`, `  "${t.slice(0, 12)}" +`, `  "${t.slice(12)}";`].join('\n'), [t]);
  });

  it('literals joined inside a call', () => {
    const t = 'sk-proj-' + a.b62(40);
    expectGone(`client = OpenAI(api_key="${t.slice(0, 12)}" "${t.slice(12)}")`, [t.slice(8)]);
    expectGone(`const c = new Client({ token: '${t.slice(0, 10)}' + '${t.slice(10)}' });`, [t.slice(8)]);
  });

  it("''.join and [].join('')", () => {
    const t = 'xoxb-' + a.digits(12) + '-' + a.b62(24);
    expectGone(`SLACK = ''.join(["${t.slice(0, 10)}", "${t.slice(10)}"])`, [t]);
    expectGone(`const slack = ["${t.slice(0, 10)}", "${t.slice(10)}"].join('');`, [t]);
  });

  it('keeps ordinary concatenation', () => {
    expect(redact('const msg = "Hello, " + "world";\nname = ("first" "second")\nconst url = "https://" + "example.com/" + "path";').redactions).toEqual([]);
  });

  it('rebuilds the joined line from the parts', () => {
    expect(joinedStatements(['KEY = (', '  "ab"', '  "cd"', ')']).map((j) => j.text)).toEqual(['KEY = "abcd"']);
    expect(joinedStatements(['  - name: API_TOKEN', '    value: "x"'])).toEqual([{ text: 'API_TOKEN: "x"', lines: [1] }]);
  });
});

describe('other assignment forms and continued commands', () => {
  it("Make's ::= / :::= / ?=, PHP's .=", () => {
    const t = a.b62(32);
    for (const op of ['::=', ':::=', '?=']) expectGone(`API_TOKEN ${op} "${t}"`, [t]);
    expectGone(`$apiToken .= "${t}";`, [t]);
  });

  it('curl continued with a backslash, the credential flag on a later line', () => {
    const p = a.b62(16);
    expectGone(['curl -k -X POST https://api.example.com/v1/items \\', "  -H 'Content-type: text/plain' \\", `  -u deploy:${p}`].join('\n'), [p]);
  });

  it('keeps a continued command without credentials', () => {
    expect(redact(['curl -X POST https://api.example.com/v1/items \\', "  -H 'Content-type: application/json' \\", "  -d '{\"a\":1}'"].join('\n')).redactions).toEqual([]);
  });
});

describe('false positives seen on real transcripts (#26)', () => {
  it('keeps git remotes, env var names and JSON-LD', () => {
    const text = [
      'lets clone git@github.com:acme/widgets.git and push',
      'export GOOGLE_APPLICATION_CREDENTIALS=',
      'echo $GOOGLE_APPLICATION_CREDENTIALS',
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"WebSite","url":"https://docs.example.com/","name":"Example Docs","publisher":{"@type":"Organization","name":"Example","logo":{"@type":"ImageObject","url":"https://docs.example.com/logo.png"}}}</script>',
    ].join('\n');
    expect(redact(text).redactions).toEqual([]);
  });

  it('still redacts a real email and real URL credentials', () => {
    expect(redact('mail jane.doe@example.com').redactions).toHaveLength(1);
    expect(redact(`https://deploy:${a.b62(16)}@git.example.com/x.git`).redactions).toHaveLength(1);
  });
});
