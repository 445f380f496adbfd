import { describe, expect, it } from 'vitest';
import { alphabets, createRng } from './fake-secrets.testkit.ts';
import { createRedactor } from './redactor.ts';

/*
 * False positives found on real repositories (kubernetes/examples, terraform-aws-rds, requests, fd) for #22, each
 * with the credentials in the same place that must still be redacted.
 */
const r = createRng(2223);
const a = alphabets(r);
const redactor = createRedactor();
/** Whether a rule fired (the gate's answer depends on the line alone, never on the machine's load). */
function redacted(line: string): boolean {
  return redactor.redactText(line, { source: 't', section: 'T' }).redactions.length > 0;
}
const b64 = (s: string) => Buffer.from(s).toString('base64');

function expectLines(lines: string[], want: boolean): void {
  for (const line of lines) expect({ line, redacted: redacted(line) }).toEqual({ line, redacted: want });
}

describe('precision from context on real code', () => {
  it('a token flag given lower-case names (a user and its groups) is not a token; a password flag keeps words', () => {
    expectLines(['$ kubectl --server=https://127.0.0.1:6443 --token=foo/system:masters create -f policies.yaml', 'kubectl --token=foo/restricted-psp-users get pods'], false);
    expectLines([`kubectl --token=${a.hex(32)} get pods`, 'mysql --password=swordfish/fish', `curl --token=abc/${a.b62(12)}`], true);
  });

  it('Basic credentials are judged as the user:password they encode', () => {
    expectLines([`assert headers == {"Proxy-Authorization": "Basic ${b64('user:pass')}"}`, `{"Proxy-Authorization": "Basic ${b64('user:')}"}`], false);
    expectLines([`{"Proxy-Authorization": "Basic ${b64('alice:' + a.b62(12))}"}`, `Authorization: Basic ${b64('deploy:hunter22x')}`], true);
  });

  it('a participle after "password is" is prose; a value is not', () => {
    expectLines(['description = "Set to true to allow RDS to manage the master user password. Cannot be set if password is provided"', 'the password is required'], false);
    expectLines(['the password is swordfish', 'the admin password is hunter2', `the password is ${a.b62(12)}`], true);
  });

  it('command-line options under a non-credential name are configuration', () => {
    expectLines(['export FZF_DEFAULT_OPTS="--ansi"', 'GREP_OPTIONS=--color=auto'], false);
    expectLines([`export FZF_TOKEN="--${a.b62(20)}"`, `DEPLOY_SECRET=--${a.b62(20)}`], true);
  });

  it('a connection-string key left as a template holds no secret', () => {
    expectLines(['kubectl create secret generic azure-secret --from-literal=azurestorageaccountkey=<...>', 'AccountKey=${STORAGE_KEY}'], false);
    expectLines([`DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${a.b64(64)}==;EndpointSuffix=core.windows.net`], true);
  });

  it('ciphertext meant to be committed under a credential name is not the credential', () => {
    expectLines(['    db-password: ENC[AES256_GCM,data:O+5l4g==,iv:c/dS4BCBMbnKsXYuzBuCuVQt8RV9bOv5HgdpL+iwmns=,tag:KkQfh6OymvCt4uC13p318g==,type:str]', `DB_PASSWORD=encrypted:${a.b64(48)}`], false);
    expectLines([`db-password: ENC${a.b62(16)}`, `DB_PASSWORD=encrypted${a.b62(12)}`, `api_token: "${a.b62(32)}"`], true);
  });
});
