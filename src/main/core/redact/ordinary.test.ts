import { describe, expect, it } from 'vitest';
import { createRedactor } from './redactor.ts';

/*
 * Issue #10 item 4: ordinary code, config and prose that names passwords, tokens and keys without holding one
 * must come through the gate byte for byte. Each line is a shape that an earlier gate (or a plain key-word rule)
 * redacted; the first ones are the issue's own examples, the last ones from Flask (its tutorial and docs) and
 * base64 of a plain sentence.
 */

const ORDINARY = String.raw`someKey: { type: 'string' },
const httpCodes = Object.keys(STATUS_CODES);
messageKey: 'message',
const key = instance.options.getItemKey(index)
key: process.env.NODE_ENV !== 'production' && 'maybeNotify',
const keyResult = def.keyType._zod.run({ value: key, issues: [] }, ctx);
Key extends $ZodRecordKey = $ZodRecordKey,
const outKey = keyResult.value as PropertyKey;
payload.value[outKey] = result.value;
getPreviousKey: (index: number) => Key,
const token = tokens[current++];
operator = new Token("not in", TOKEN_TYPES.Identifier);
case TOKEN_TYPES.NumericLiteral: {
private allSpecialTokenRegex: RegExp
this.specialTokensEncoder = specialTokensEncoder
const maxTokenValue = Math.max(
const tokenLimit = 10
const withinTokenLimit = isWithinTokenLimit(text, tokenLimit)
const generateFastpass = (shape: any) => {
var warningKey = publicInstance + "." + callerName;
password: z.string().min(12),
password?: string;
passwordHash: string;
const password = await prompt('Password: ');
if (!password) throw new Error('password is required');
token: req.headers.authorization?.split(' ')[1],
const secret = process.env.JWT_SECRET;
secret: config.get('session.secret'),
apiKey: process.env.OPENAI_API_KEY ?? '',
headers: { Authorization: \`Bearer \${token}\` },
const { accessToken, refreshToken } = await auth.login(user);
export const SECRET_NAME = 'prod/db/credentials';
export const TOKEN_HEADER = 'x-api-token';
autocomplete="current-password"
<input type="password" name="password" placeholder="Enter your password">
const passwordInput = screen.getByLabelText('Password');
expect(screen.getByRole('textbox', { name: /api key/i })).toBeVisible();
    password: ${'${'}DB_PASSWORD}
    token: "{{ .Values.api.token }}"
  secretKeyRef:
    name: db-credentials
    key: password
DB_PASSWORD=changeme
API_TOKEN=<your-token-here>
AWS_SECRET_ACCESS_KEY=your_secret_access_key
OPENAI_API_KEY=sk-...
NODE_ENV=production
LOG_LEVEL=debug
| Option | Type | Description |
| password | string | The user's password |
| token | string | A GitHub token with repo scope |
The access token expires after one hour; refresh it with the refresh token.
Set the \`apiKey\` option to your project's key (see Settings → API).
Tokens are counted with the model's tokenizer before the packet is assembled.
We hash passwords with argon2id and never store them in plain text.
password policy: at least 12 characters, one digit
The secret sauce is the ranking step.
Keyboard shortcuts: press Ctrl+K to search.
private key rotation happens every 90 days.
def get_token(self) -> str:
    return self._token
fn verify_password(hash: &str, password: &str) -> bool {
func (c *Client) SetToken(token string) {
token_type = "bearer"
session_key_prefix = "sess:"
cache_key = f"user:{user_id}:profile"
PASSWORD_MIN_LENGTH = 12
secret_name = "prod-db-credentials"
monkey = banana
author: Jane Doe
    password = request.form['password']
data={'username': username, 'password': password}
"/auth/login", data={"username": username, "password": password}
DATABASE=os.path.join(app.instance_path, 'flaskr.sqlite'),
needed, for example \`\`FLASK_APP=myproject.app:create_app('dev')\`\`.
-   Fixed a bug that prevented \`\`FLASK_APP=foobar/__init__.py\`\` from
app.config.update(SERVER_NAME="localhost:80")
> set YOURAPPLICATION_SETTINGS=\path\to\settings.cfg
const greeting = "SGVsbG8gdGhlcmUsIHRoaXMgaXMgYW4gb3JkaW5hcnkgc2VudGVuY2Uu";
`;

describe('ordinary code, config and prose', () => {
  it('comes through the gate unchanged, line for line', () => {
    const redactor = createRedactor();
    const { text, redactions } = redactor.redactText(ORDINARY, { source: 'ordinary', section: 'TEST' });
    const original = ORDINARY.split('\n');
    const mangled = redactions.map((e) => `${e.pattern}: ${original[e.line - 1]}`);
    expect(mangled).toEqual([]);
    expect(text).toBe(ORDINARY);
  });

  it('still redacts credentials that look a little like code (the shapes the lines above were kept by)', () => {
    const redactor = createRedactor();
    const secrets = [
      'BASIC_AUTH=admin:hunter2',
      'UPSTREAM=svc_user:s3cr3t_pw',
      'SOME_VAR=xK9mP2qL:7vB3nR8w',
      'REDIS_PASSWORD=admin:hunter2',
      'token: abc_def.ghi_jkl',
      'db_password: hunter2_prod',
      'PASSWORD=Xk9.mP2q',
      // Found by review: a slash, a port-like number, a bracket or parentheses do not make a value code.
      'token=v1/a8f3k2m9x0q1w2e3r7t6y5u4i3o2p1',
      'client_secret: 9f86d081884c7d65/9a2feaa0c55ad015',
      'api_key = sk_live_abcd/efgh1234',
      'MONGO_LOGIN=admin:12345',
      'DB_PASS=Xk9q2]',
      'passwd=hunter22]',
      'PASSWORD=hunter22}}',
      'MY_SIGNING_SEED=Xk9qLmZ2pWv8(x)',
      'JWT_SECRET=abc_def.ghi_jkl(x)',
    ];
    for (const line of secrets) expect(redactor.redactText(line, { source: 'ordinary', section: 'TEST' }).redactions, line).toHaveLength(1);
  });
});

