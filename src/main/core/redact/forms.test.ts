import { describe, expect, it } from 'vitest';
import { alphabets, createRng } from './fake-secrets.testkit.ts';
import { createRedactor } from './redactor.ts';

/*
 * Issue #35 item 2: secret forms that passed the gate. Unquoted SQL passwords (Oracle's syntax) and passphrases of
 * capitalised words under a password key. Each is caught through its context (the statement, the key word and its
 * assignment), so the same words in prose or code keep their lines.
 */

const r = createRng(3535);
const a = alphabets(r);
const redactor = createRedactor();
const redact = (text: string) => redactor.redactText(text, { source: 'forms.test', section: 'TEST' });

function expectGone(text: string, secret: string): void {
  const out = redact(text).text;
  expect(out, `${secret} in\n${out}`).not.toContain(secret);
}

const WORDS = ['Zebra', 'Mango', 'Kiwi', 'Orange', 'Tiger', 'Cloud', 'River', 'Falcon', 'Maple', 'Copper', 'Violet', 'Harbor', 'Lantern', 'Pebble', 'Summit', 'Walnut'];
const phrase = (n: number) => Array.from({ length: n }, () => r.pick(WORDS)).join('');

describe('unquoted SQL passwords', () => {
  it('CREATE / ALTER USER, GRANT, database links and SET ROLE, as the issue gives them and generated', () => {
    expectGone('CREATE USER r IDENTIFIED BY Vn4Lk8Pz2Qm;', 'Vn4Lk8Pz2Qm');
    expectGone('ALTER USER sys IDENTIFIED BY Oracle123Pw;', 'Oracle123Pw');
    expectGone('GRANT CONNECT, RESOURCE TO scott IDENTIFIED BY Tiger2024x;', 'Tiger2024x');
    for (let i = 0; i < 30; i++) {
      const pw = a.b62(r.int(8, 19));
      const user = ['app', 'sys', 'scott', 'reporting_ro', 'c##admin'][i % 5];
      const forms = [
        `CREATE USER ${user} IDENTIFIED BY ${pw};`,
        `alter user ${user} identified by ${pw} account unlock;`,
        `  CREATE USER ${user} IDENTIFIED BY ${pw}`,
        `GRANT CREATE SESSION TO ${user} IDENTIFIED BY ${pw};`,
        `CREATE DATABASE LINK remote CONNECT TO ${user} IDENTIFIED BY ${pw} USING 'orcl';`,
        `CREATE USER ${user} IDENTIFIED BY ${pw} DEFAULT TABLESPACE users QUOTA 10M ON users;`,
        `sqlplus / as sysdba <<< "ALTER USER ${user} IDENTIFIED BY ${pw};"`,
      ];
      for (const f of forms) expectGone(f, pw);
    }
  });

  it('keeps binds, substitutions, keywords and prose', () => {
    const text = [
      'CREATE USER u IDENTIFIED BY :pw;',
      'CREATE USER u IDENTIFIED BY &new_password;',
      'GRANT ALL ON t TO u IDENTIFIED BY ?;',
      'CREATE USER u IDENTIFIED BY ${ORACLE_PASSWORD};',
      'CREATE USER u IDENTIFIED BY password;',
      'CREATE USER u IDENTIFIED EXTERNALLY;',
      'CREATE USER u IDENTIFIED GLOBALLY AS \'CN=u\';',
      'Create a user identified by their email address and grant it a role.',
      'Each user is identified by name; the role is identified by its id.',
      'When you alter the user, it is identified by the new key from now on.',
    ].join('\n');
    expect(redact(text).redactions).toEqual([]);
  });
});

describe('capitalised-word passwords under a key word', () => {
  it('YAML, INI, .env and properties, under password / db_pass / passwd / pass and more', () => {
    for (const key of ['password', 'db_pass', 'passwd', 'pass', 'PASSWORD', 'mysql_root_password', 'pwd', 'db.password', 'admin-pass']) {
      for (let i = 0; i < 8; i++) {
        const p = phrase(r.int(2, 4));
        const v = i % 3 === 0 ? p + ['1', '!', '2024', '#'][r.int(0, 3)] : p;
        expectGone(`${key}: ${v}`, v);
        expectGone(`  ${key}: ${v}  # production`, v);
        expectGone(`- ${key}: ${v}`, v);
        expectGone(`${key} = ${v}`, v);
        expectGone(`${key}=${v}`, v);
        expectGone(`${key}:\n  ${v}`, v);
      }
    }
    expectGone('password: ZebraMangoKiwi', 'ZebraMangoKiwi');
  });

  it('keeps types, classes and names of code, and prose', () => {
    const text = [
      'interface Login {',
      '  password: PasswordInput',
      '  secret: SecretStr',
      '  pwd: HashedBuffer',
      '}',
      'class Settings(BaseSettings):',
      '    password: SecretStr',
      '    db_pass: Optional[SecretStr] = None',
      'const form = {',
      '  password: PasswordField,',
      '  password: DefaultPasswordHasher',
      '}',
      '    password: LoginForm',
      'val password: CharArray',
      'First pass: ReadTheDocs builds the pages.',
      'The password field uses ZebraMangoKiwi as its example.',
      'password: ZebraMangoKiwi, username: admin',
    ].join('\n');
    expect(redact(text).redactions.map((e) => e.line)).toEqual([]);
  });
});
