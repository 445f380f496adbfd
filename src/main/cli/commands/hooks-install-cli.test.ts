// `contextpack hooks install|uninstall` and `contextpack setup` against settings files written by hand that already
// hold other tools' servers and hooks: only our entries change, every other byte stays (issue #33 item 4, #34).
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installHooks, installMcpServer, lineDiff, MCP_FORMATS, serverArgv, uninstallHooks, uninstallMcpServer } from '../../core/hooks/index.ts';
import { tempDirs } from '../../core/testing/tmp.ts';
import { BIN_SCRIPT, shellLine } from '../agent-setup.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-hooks-install-');
afterAll(() => tmp.cleanup());

// Hand-written settings: comments, one-line groups, trailing commas, tabs, CRLF, other tools' hooks on our events.
const HAND_WRITTEN: Record<string, string> = {
  commented: `{
  // team settings
  "model": "sonnet",
  "permissions": { "allow": ["Bash(npm test:*)"] }, // who may run what
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./scripts/guard.sh" }] }
    ],
    /* before every session */
    "SessionStart": [
      { "matcher": "startup", "hooks": [{ "type": "command", "command": "git status --short" }] },
    ],
  },
}
`,
  oneLine: '{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "backup.sh"}]}], "Stop": [{"hooks": [{"type":"command","command":"say done"}]}]}}',
  oneLineNoHooks: '{"model": "opus"}\n',
  tabsCrlf: '{\r\n\t"env": {\r\n\t\t"A": "1"\r\n\t},\r\n\t"hooks": {\r\n\t\t"SessionEnd": [\r\n\t\t\t{ "hooks": [ { "type": "command", "command": "log-end" } ] }\r\n\t\t]\r\n\t}\r\n}\r\n',
  // A foreign hook whose command merely contains ours: never ours.
  lookalike: '{\n  "hooks": {\n    "SessionEnd": [\n      { "hooks": [{ "type": "command", "command": "contextpack hook SessionEnd && notify-send done" }] },\n      { "hooks": [{ "type": "command", "command": "my-contextpack hook SessionEnd" }] }\n    ]\n  }\n}\n',
};

const parseJsonc = (s: string) => JSON.parse(s.replace(/\/\*.*?\*\//gs, '').replace(/\/\/[^\n"]*$/gm, '').replace(/,(\s*[}\]])/g, '$1'));

describe('hooks settings edits', () => {
  for (const [name, text] of Object.entries(HAND_WRITTEN)) {
    for (const agent of ['claude-code', 'codex'] as const) {
      it(`${name} (${agent}): install adds our entries, install again changes nothing, uninstall gives the file back byte for byte`, () => {
        const after = installHooks(text, 'f.json', agent, '/opt/bin/contextpack', name === 'oneLine' ? 'shop' : undefined);
        expect(after).not.toBe(text);
        expect(installHooks(after, 'f.json', agent, '/opt/bin/contextpack', name === 'oneLine' ? 'shop' : undefined)).toBe(after);
        const v = parseJsonc(after);
        const events = agent === 'codex' ? ['PreCompact', 'SessionStart', 'Stop'] : ['PreCompact', 'SessionStart', 'SessionEnd'];
        for (const e of events) expect(JSON.stringify(v.hooks[e])).toContain(`/opt/bin/contextpack hook ${e}`);
        expect(uninstallHooks(after, 'f.json', ['/opt/bin/contextpack'])).toBe(text);
      });
    }
  }

  it('keeps the style it finds: a one-line file stays one line, a tabbed CRLF file gets tabs and CRLF', () => {
    expect(installHooks(HAND_WRITTEN.oneLine!, 'f', 'claude-code', 'contextpack').split('\n')).toHaveLength(1);
    const tabbed = installHooks(HAND_WRITTEN.tabsCrlf!, 'f', 'claude-code', 'contextpack');
    expect(tabbed.replace(/\r\n/g, '')).not.toContain('\n');
    expect(tabbed).toContain('\r\n\t\t\t{\r\n\t\t\t\t"hooks": [');
  });

  it('removes exactly our commands: a foreign command containing ours, another program, or a handler in a shared group stay', () => {
    const installed = installHooks(HAND_WRITTEN.lookalike!, 'f', 'claude-code', 'contextpack');
    const removed = uninstallHooks(installed, 'f', ['contextpack']);
    expect(removed).toBe(HAND_WRITTEN.lookalike);
    expect(uninstallHooks(HAND_WRITTEN.lookalike!, 'f', ['contextpack'])).toBe(HAND_WRITTEN.lookalike);
    const shared = '{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "backup.sh"}, {"type": "command", "command": "/usr/local/bin/contextpack hook PreCompact --project shop"}]}]}}';
    expect(uninstallHooks(shared, 'f', ['contextpack'])).toBe(shared);
    expect(uninstallHooks(shared, 'f', ['/usr/local/bin/contextpack'])).toBe('{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "backup.sh"}]}]}}');
  });

  it('a file it created from nothing is empty again after uninstall (the command removes it)', () => {
    const created = installHooks('', 'f', 'codex', 'node /opt/cp/bin.mjs');
    expect(parseJsonc(created).hooks.SessionStart[0].hooks[0].command).toBe('node /opt/cp/bin.mjs hook SessionStart --format json');
    expect(uninstallHooks(created, 'f', ['node /opt/cp/bin.mjs'])).toBe('');
  });

  it('refuses, changing nothing: invalid JSON (file and line), duplicate keys, and shapes it does not expect', () => {
    expect(() => installHooks('{\n  "model": "x",\n  "hooks": {\n', 'a/settings.json', 'claude-code', 'contextpack')).toThrow(/^a\/settings\.json:\d+: not valid JSON .*nothing was changed$/);
    expect(() => installHooks('{"hooks": {"PreCompact": {"hooks": []}}}', 'b.json', 'claude-code', 'contextpack')).toThrow('b.json: "hooks.PreCompact" must be a list; nothing was changed');
    expect(() => installHooks('{\n  "hooks": {},\n  "hooks": {"Stop": []}\n}', 'c.json', 'claude-code', 'contextpack')).toThrow('c.json:3: the key "hooks" appears twice');
    expect(() => uninstallHooks('{"hooks": {"Stop": [], "Stop": []}}', 'd.json')).toThrow('the key "hooks.Stop" appears twice');
    expect(() => installHooks('[1, 2]', 'e.json', 'claude-code', 'contextpack')).toThrow('e.json: expected a JSON object at the top');
    expect(() => installHooks('{"hooks": {"PreCompact": ["run.sh"]}}', 'g.json', 'claude-code', 'contextpack')).toThrow('"hooks.PreCompact[0]" must be an object');
    expect(() => installHooks('{"hooks": {"PreCompact": [{"hooks": "run.sh"}]}}', 'h.json', 'claude-code', 'contextpack')).toThrow('"hooks.PreCompact[0].hooks" must be a list');
  });

  it('the diff shows the added lines with context', () => {
    const d = lineDiff('{\n  "a": 1\n}\n', '{\n  "a": 1,\n  "b": 2\n}\n', 'x.json');
    expect(d).toBe('--- x.json\n+++ x.json\n {\n-  "a": 1\n+  "a": 1,\n+  "b": 2\n }\n');
  });
});

describe('MCP server entries', () => {
  const MCP = '{\n  // servers\n  "mcpServers": {\n    "github": { "command": "gh-mcp", "args": [] },\n  }\n}\n';
  const ours = [['/opt/bin/contextpack'], ['contextpack']];
  it('adds, re-adds nothing, replaces an older entry of ours, and removes byte-exactly (JSON and Codex TOML)', () => {
    const after = installMcpServer(MCP, 'f', MCP_FORMATS.claude, serverArgv(['/opt/bin/contextpack']), ours);
    expect(parseJsonc(after).mcpServers.contextpack).toEqual({ command: '/opt/bin/contextpack', args: ['mcp'] });
    expect(installMcpServer(after, 'f', MCP_FORMATS.claude, serverArgv(['/opt/bin/contextpack']), ours)).toBe(after);
    expect(uninstallMcpServer(after, 'f', MCP_FORMATS.claude, ours)).toBe(MCP);
    const moved = installMcpServer(after, 'f', MCP_FORMATS.claude, serverArgv(['/opt/bin/contextpack'], 'shop'), ours);
    expect(parseJsonc(moved).mcpServers.contextpack.args).toEqual(['mcp', '--project', 'shop']);
    expect(uninstallMcpServer(moved, 'f', MCP_FORMATS.claude, ours)).toBe(MCP);
    const vs = installMcpServer('', 'f', MCP_FORMATS.vscode, serverArgv(['/opt/bin/contextpack']), ours);
    expect(JSON.parse(vs)).toEqual({ servers: { contextpack: { type: 'stdio', command: '/opt/bin/contextpack', args: ['mcp'] } } });
    expect(uninstallMcpServer(vs, 'f', MCP_FORMATS.vscode, ours)).toBe('');
    const toml = '# my codex\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n';
    const t = installMcpServer(toml, 'config.toml', MCP_FORMATS.codex, serverArgv(['/opt/bin/contextpack']), ours);
    expect(t).toBe(`${toml}\n[mcp_servers.contextpack]\ncommand = "/opt/bin/contextpack"\nargs = ["mcp"]\n`);
    expect(uninstallMcpServer(t, 'config.toml', MCP_FORMATS.codex, ours)).toBe(toml);
  });

  it("refuses to replace somebody else's server of that name", () => {
    const theirs = '{"mcpServers": {"contextpack": {"command": "npx", "args": ["contextpack", "mcp"]}}}';
    expect(() => installMcpServer(theirs, 'f', MCP_FORMATS.claude, serverArgv(['/opt/bin/contextpack']), ours)).toThrow('is already there and runs `npx contextpack mcp`, which is not ours');
    expect(uninstallMcpServer(theirs, 'f', MCP_FORMATS.claude, ours)).toBe(theirs);
    expect(() => installMcpServer('[mcp_servers.contextpack]\ncommand = "x"\n', 'c.toml', MCP_FORMATS.codex, ['/a', 'mcp'], ours)).toThrow('not by us');
  });
});

const project = (files: Record<string, string> = {}) => {
  const dir = tmp.make();
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
};
// The command a checkout's setup picks: this Node by absolute path running the entry script (no `contextpack` on PATH).
const CHECKOUT_COMMAND = shellLine([process.execPath, realpathSync(BIN_SCRIPT)]);

describe('contextpack hooks install|uninstall claude-code', () => {
  it('checks the command, shows the diff, writes only with --yes (no terminal), and uninstall restores the file', async () => {
    const text = HAND_WRITTEN.commented!;
    const dir = project({ '.claude/settings.json': text });
    const file = join(dir, '.claude', 'settings.json');
    const env = { HOME: tmp.make(), PATH: '/usr/bin:/bin' };
    const asked = await runCliCaptured(['hooks', 'install', 'claude-code', '--project-scope', '--dir', dir], { env });
    expect(asked.code).toBe(1);
    expect(asked.stdout).toContain(`command: ${CHECKOUT_COMMAND} (checked: contextpack `);
    expect(asked.stdout).toContain(`+            "command": "${CHECKOUT_COMMAND} hook PreCompact",`);
    expect(asked.stderr).toContain('not written: confirm with --yes');
    expect(readFileSync(file, 'utf8')).toBe(text);

    const declined = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir], { env, confirm: async () => false });
    expect(declined.code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(text);

    const yes = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir, '--yes'], { env });
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain(`written: ${file}`);
    expect(parseJsonc(readFileSync(file, 'utf8')).hooks.SessionEnd).toHaveLength(1);
    expect((await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir, '--yes'], { env })).stdout).toContain('nothing to change');

    const un = await runCliCaptured(['hooks', 'uninstall', 'claude-code', '--dir', dir], { env, confirm: async () => true });
    expect(un.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses a --command that does not start ContextPack through sh -c, and writes nothing', async () => {
    const dir = project();
    const r = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir, '--yes', '--command', 'contextpack-not-installed'], { env: { HOME: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('does not start ContextPack the way an agent runs it');
    expect(r.stderr).toContain('exit 127');
    expect(existsSync(join(dir, '.claude'))).toBe(false);
  });

  it('--user-scope writes ~/.claude/settings.json, creating it; --dry-run writes nothing; uninstall removes the file it made', async () => {
    const home = tmp.make();
    const env = { HOME: home, CONTEXTPACK_HOME: join(home, 'contextpack') };
    const dry = await runCliCaptured(['hooks', 'install', 'claude-code', '--user-scope', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('--- /dev/null');
    expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false);
    // A project named must exist (a typo would leave every hook writing into an empty one).
    expect((await runCliCaptured(['hooks', 'install', 'claude-code', '--user-scope', '--yes', '--project', 'shop'], { env })).stderr).toContain('no project named "shop"');
    expect((await runCliCaptured(['projects', 'new', 'shop'], { env })).code).toBe(0);
    const r = await runCliCaptured(['hooks', 'install', 'claude-code', '--user-scope', '--yes', '--command', CHECKOUT_COMMAND, '--project', 'shop'], { env });
    expect(r.code).toBe(0);
    const file = join(home, '.claude', 'settings.json');
    expect(parseJsonc(readFileSync(file, 'utf8')).hooks.PreCompact[0].hooks[0].command).toBe(`${CHECKOUT_COMMAND} hook PreCompact --project shop`);
    expect((await runCliCaptured(['hooks', 'uninstall', 'claude-code', '--user-scope', '--yes'], { env })).code).toBe(0);
    expect(existsSync(file)).toBe(false);
    const bad = await runCliCaptured(['hooks', 'install', 'claude-code', '--user-scope', '--project-scope']);
    expect(bad.code).toBe(2);
  });

  it('a symlinked settings file is edited at its target and stays a link; a dangling link is refused', async () => {
    const dotfiles = tmp.make();
    const target = join(dotfiles, 'claude-settings.json');
    writeFileSync(target, HAND_WRITTEN.oneLineNoHooks!);
    const dir = project();
    mkdirSync(join(dir, '.claude'));
    symlinkSync(target, join(dir, '.claude', 'settings.json'));
    const r = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir, '--yes'], { env: { HOME: dir } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`is a link: editing its target ${realpathSync(target)}`);
    expect(readFileSync(target, 'utf8')).toContain('hook SessionEnd');
    expect(realpathSync(join(dir, '.claude', 'settings.json'))).toBe(realpathSync(target));
    expect((await runCliCaptured(['hooks', 'uninstall', 'claude-code', '--dir', dir, '--yes'], { env: { HOME: dir } })).code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe(HAND_WRITTEN.oneLineNoHooks);

    const dangling = project();
    mkdirSync(join(dangling, '.claude'));
    symlinkSync(join(dangling, 'nowhere.json'), join(dangling, '.claude', 'settings.json'));
    const d = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dangling, '--yes'], { env: { HOME: dangling } });
    expect(d.code).toBe(2);
    expect(d.stderr).toContain('is a symbolic link to a file that does not exist');
    expect(existsSync(join(dangling, 'nowhere.json'))).toBe(false);
  });

  it('a settings file that is not JSON, or has duplicate keys, is left alone with an error naming it', async () => {
    const dir = project({ '.claude/settings.json': '{ "hooks": ' });
    const file = join(dir, '.claude', 'settings.json');
    const r = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir, '--yes'], { env: { HOME: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:1: not valid JSON`);
    expect(readFileSync(file, 'utf8')).toBe('{ "hooks": ');
    const dup = '{"hooks": {}, "model": "x", "hooks": {"Stop": []}}';
    writeFileSync(file, dup);
    const d = await runCliCaptured(['hooks', 'install', 'claude-code', '--dir', dir, '--yes'], { env: { HOME: dir } });
    expect(d.code).toBe(2);
    expect(d.stderr).toContain('the key "hooks" appears twice');
    expect(readFileSync(file, 'utf8')).toBe(dup);
  });
});

describe('contextpack setup', () => {
  it('claude-code: registers the MCP server in .mcp.json and installs the hooks in one step; --remove restores both files byte for byte', async () => {
    const mcp = '{"mcpServers": {"github": {"command": "gh-mcp", "args": []}}}\n';
    const settings = HAND_WRITTEN.commented!;
    const dir = project({ '.mcp.json': mcp, '.claude/settings.json': settings });
    const env = { HOME: tmp.make(), PATH: '/usr/bin:/bin' };
    const dry = await runCliCaptured(['setup', 'claude-code', '--dir', dir, '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('dry run: nothing was written');
    expect(readFileSync(join(dir, '.mcp.json'), 'utf8')).toBe(mcp);
    const r = await runCliCaptured(['setup', 'claude-code', '--dir', dir, '--yes'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("checked: sh -c '");
    const server = JSON.parse(readFileSync(join(dir, '.mcp.json'), 'utf8')).mcpServers;
    expect(server.github).toEqual({ command: 'gh-mcp', args: [] });
    expect(server.contextpack).toEqual({ command: process.execPath, args: [realpathSync(BIN_SCRIPT), 'mcp'] });
    expect(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8')).toContain(`${CHECKOUT_COMMAND} hook SessionStart`);
    const again = await runCliCaptured(['setup', 'claude-code', '--dir', dir, '--yes'], { env });
    expect(again.stdout).toMatch(/\.mcp\.json: MCP server "contextpack": nothing to change/);
    const removed = await runCliCaptured(['setup', 'claude-code', '--dir', dir, '--remove', '--yes'], { env });
    expect(removed.code).toBe(0);
    expect(readFileSync(join(dir, '.mcp.json'), 'utf8')).toBe(mcp);
    expect(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8')).toBe(settings);
  });

  it('vscode and cursor: the MCP server only; codex: the user config.toml and the hooks', async () => {
    const dir = project();
    const home = tmp.make();
    expect((await runCliCaptured(['setup', 'vscode', '--dir', dir, '--yes'], { env: { HOME: home } })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, '.vscode', 'mcp.json'), 'utf8')).servers.contextpack.type).toBe('stdio');
    expect((await runCliCaptured(['setup', 'cursor', '--dir', dir, '--yes'], { env: { HOME: home } })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, '.cursor', 'mcp.json'), 'utf8')).mcpServers.contextpack.args.at(-1)).toBe('mcp');
    const withProject = { HOME: home, CONTEXTPACK_HOME: join(home, 'contextpack') };
    expect((await runCliCaptured(['projects', 'new', 'shop'], { env: withProject })).code).toBe(0);
    expect((await runCliCaptured(['setup', 'codex', '--dir', dir, '--yes', '--project', 'shop'], { env: withProject })).code).toBe(0);
    expect(readFileSync(join(home, '.codex', 'config.toml'), 'utf8')).toContain('args = [');
    expect(readFileSync(join(home, '.codex', 'config.toml'), 'utf8')).toContain('"mcp", "--project", "shop"]');
    expect(readFileSync(join(dir, '.codex', 'hooks.json'), 'utf8')).toContain('hook SessionStart --project shop --format json');
    const vsUser = await runCliCaptured(['setup', 'vscode', '--user-scope', '--yes'], { env: { HOME: home } });
    expect(vsUser.code).toBe(2);
    expect(vsUser.stderr).toContain('--user-scope is not supported');
  });
});
