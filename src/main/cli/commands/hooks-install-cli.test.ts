// `contextpack hooks install|uninstall` against settings files that already hold other tools' hooks.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installHooks, lineDiff, uninstallHooks } from '../../core/hooks/index.ts';
import { tempDirs } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-hooks-install-');
afterAll(() => tmp.cleanup());

// Other tools' hooks on the same events and on others, a comment, a key we must not touch.
const EXISTING = `{
  // team settings
  "model": "sonnet",
  "permissions": { "allow": ["Bash(npm test:*)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./scripts/guard.sh" }] }
    ],
    "SessionStart": [
      { "matcher": "startup", "hooks": [{ "type": "command", "command": "git status --short" }] }
    ]
  }
}
`;

const project = (settings?: string) => {
  const dir = tmp.make();
  if (settings !== undefined) {
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.claude', 'settings.json'), settings);
  }
  return { dir, file: join(dir, '.claude', 'settings.json') };
};

const parseJsonc = (s: string) => JSON.parse(s.replace(/^\s*\/\/.*$/gm, ''));

describe('hooks settings merge', () => {
  it('adds our three entries beside the others, keeps comments and keys, and uninstall gives the same settings back', () => {
    const after = installHooks(EXISTING, 'settings.json', 'claude-code', 'contextpack');
    expect(after).toContain('// team settings');
    const v = parseJsonc(after);
    expect(v.model).toBe('sonnet');
    expect(v.permissions).toEqual({ allow: ['Bash(npm test:*)'] });
    expect(v.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/guard.sh' }] }]);
    expect(v.hooks.SessionStart).toEqual([
      { matcher: 'startup', hooks: [{ type: 'command', command: 'git status --short' }] },
      { hooks: [{ type: 'command', command: 'contextpack hook SessionStart', timeout: 30 }] },
    ]);
    expect(v.hooks.PreCompact).toEqual([{ hooks: [{ type: 'command', command: 'contextpack hook PreCompact', timeout: 30 }] }]);
    expect(v.hooks.SessionEnd).toEqual([{ hooks: [{ type: 'command', command: 'contextpack hook SessionEnd', timeout: 30 }] }]);
    // Installing again changes nothing.
    expect(installHooks(after, 'settings.json', 'claude-code', 'contextpack')).toBe(after);
    const removed = uninstallHooks(after, 'settings.json');
    expect(parseJsonc(removed)).toEqual(parseJsonc(EXISTING));
    expect(removed).toContain('// team settings');
    expect(uninstallHooks(removed, 'settings.json')).toBe(removed);
  });

  it('removes only its own handler from a group it shares, and leaves no empty hooks object behind', () => {
    const shared = JSON.stringify({ hooks: { PreCompact: [{ hooks: [{ type: 'command', command: 'backup.sh' }, { type: 'command', command: '/usr/local/bin/contextpack hook PreCompact --project shop' }] }] } }, null, 2);
    expect(parseJsonc(uninstallHooks(shared, 'f'))).toEqual({ hooks: { PreCompact: [{ hooks: [{ type: 'command', command: 'backup.sh' }] }] } });
    const onlyOurs = installHooks('', 'f', 'codex', 'node /opt/cp/src/main/cli/bin.mjs');
    expect(Object.keys(parseJsonc(onlyOurs).hooks).sort()).toEqual(['PreCompact', 'SessionStart', 'Stop']);
    expect(parseJsonc(onlyOurs).hooks.SessionStart[0].hooks[0].command).toBe('node /opt/cp/src/main/cli/bin.mjs hook SessionStart --format json');
    expect(parseJsonc(uninstallHooks(onlyOurs, 'f'))).toEqual({});
  });

  it('refuses a settings file it cannot read as JSON, naming the file and line, and a hooks key of the wrong shape', () => {
    expect(() => installHooks('{\n  "model": "x",\n  "hooks": {\n', 'a/settings.json', 'claude-code', 'contextpack')).toThrow(/^a\/settings\.json:\d+: not valid JSON .*nothing was changed$/);
    expect(() => installHooks('{"hooks": {"PreCompact": {"hooks": []}}}', 'b.json', 'claude-code', 'contextpack')).toThrow('b.json: "hooks.PreCompact" must be a list; nothing was changed');
  });

  it('the diff shows the added lines with context', () => {
    const d = lineDiff('{\n  "a": 1\n}\n', '{\n  "a": 1,\n  "b": 2\n}\n', 'x.json');
    expect(d).toBe('--- x.json\n+++ x.json\n {\n-  "a": 1\n+  "a": 1,\n+  "b": 2\n }\n');
  });
});

describe('contextpack hooks install|uninstall claude-code', () => {
  it('shows the diff, writes only with --yes (no terminal), and uninstall restores the file', async () => {
    const { dir, file } = project(EXISTING);
    const asked = await runCliCaptured(['hooks', 'install', 'claude-code', '--project-scope', '--dir', dir]);
    expect(asked.code).toBe(1);
    expect(asked.stdout).toContain('+            "command": "contextpack hook PreCompact",');
    expect(asked.stderr).toContain('not written: confirm with --yes');
    expect(readFileSync(file, 'utf8')).toBe(EXISTING);

    const declined = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir], { confirm: async () => false });
    expect(declined.code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(EXISTING);

    const yes = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir, '--yes']);
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain(`installed: ${file}`);
    expect(parseJsonc(readFileSync(file, 'utf8')).hooks.SessionEnd).toHaveLength(1);
    expect((await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir, '--yes'])).stdout).toContain('already installed; nothing changed');

    const un = await runCliCaptured(['hooks', 'uninstall', 'claude-code', '--dir', dir], { confirm: async () => true });
    expect(un.code).toBe(0);
    expect(parseJsonc(readFileSync(file, 'utf8'))).toEqual(parseJsonc(EXISTING));
  });

  it('--user-scope writes ~/.claude/settings.json, creating it; --dry-run writes nothing', async () => {
    const home = tmp.make();
    const dry = await runCliCaptured(['hooks', 'install', 'claude-code', '--user-scope', '--dry-run'], { env: { HOME: home } });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('--- /dev/null');
    expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false);
    const r = await runCliCaptured(['hooks', 'install', 'claude-code', '--user-scope', '--yes', '--command', 'node /opt/cp/bin.mjs', '--project', 'shop'], { env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(parseJsonc(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).hooks.PreCompact[0].hooks[0].command).toBe('node /opt/cp/bin.mjs hook PreCompact --project shop');
    const bad = await runCliCaptured(['hooks', 'install', 'claude-code', '--user-scope', '--project-scope']);
    expect(bad.code).toBe(2);
  });

  it('a settings file that is not JSON is left alone with an error naming it', async () => {
    const { dir, file } = project('{ "hooks": ');
    const r = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:1: not valid JSON`);
    expect(readFileSync(file, 'utf8')).toBe('{ "hooks": ');
  });
});
