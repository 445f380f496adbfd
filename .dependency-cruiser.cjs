// Layering rules, checked by `npm run layers` in `npm test`. The engine's order is read from docs/layout.md so the
// page a reader trusts and the check that enforces it cannot drift apart.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

function engineLevels() {
  const page = readFileSync(join(__dirname, 'docs/layout.md'), 'utf8');
  const block = page.split('<!-- layers:begin')[1]?.split('<!-- layers:end')[0];
  if (!block) throw new Error('docs/layout.md: the layers table (between layers:begin and layers:end) is missing');
  const levels = [];
  for (const line of block.split('\n')) {
    const m = /^\|\s*(\d+)\s*\|\s*([a-z, -]+?)\s*\|/.exec(line);
    if (m) levels.push(m[2].split(',').map((s) => s.trim()).filter(Boolean));
  }
  if (levels.length === 0) throw new Error('docs/layout.md: the layers table has no rows');
  return levels;
}

const core = 'src/main/core';
const notTests = '(\\.test\\.tsx?|\\.testkit\\.ts)$|/testing/';
const levels = engineLevels();
const engineRules = levels.map((caps, i) => {
  const allowed = levels.slice(0, i).flat();
  return {
    name: `core-order-level-${i + 1}`,
    comment: `${caps.join(', ')} (level ${i + 1} in docs/layout.md) may import only ${allowed.length ? allowed.join(', ') : 'no other capability'}`,
    severity: 'error',
    from: { path: `^${core}/(${caps.join('|')})/`, pathNot: notTests },
    to: {
      path: `^${core}/([^/]+)/`,
      pathNot: [`^${core}/(${caps.join('|')})/`, ...(allowed.length ? [`^${core}/(${allowed.join('|')})/`] : []), `^${core}/testing/`],
    },
  };
});

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'an import circle (type-only imports count)', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'core-not-upward',
      comment: 'the engine never imports the API, a door, Electron or the renderer',
      severity: 'error',
      from: { path: `^${core}/`, pathNot: notTests },
      to: { path: ['^src/main/(adk|api|cli|mcp|serve|electron)/', '^src/main/index\\.ts$', '^src/(renderer|preload)/', '^electron$'] },
    },
    {
      name: 'api-not-doors',
      comment: 'the handler map never imports a door',
      severity: 'error',
      from: { path: '^src/main/api/', pathNot: notTests },
      to: { path: ['^src/main/(adk|cli|mcp|serve|electron)/', '^src/main/index\\.ts$', '^src/(renderer|preload)/', '^electron$'] },
    },
    {
      name: 'renderer-not-main',
      comment: 'the renderer runs in the browser: it never imports main-process code',
      severity: 'error',
      from: { path: '^src/renderer/' },
      to: { path: '^src/(main|preload)/' },
    },
    {
      name: 'shared-is-shared',
      comment: 'shared code imports nothing of main, preload or the renderer',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/(main|preload|renderer)/' },
    },
    {
      name: 'no-orphans',
      comment: 'a source file nothing imports and that imports nothing: dead, or an entry point this rule should name',
      severity: 'error',
      from: { orphan: true, pathNot: ['\\.test\\.tsx?$', '\\.d\\.ts$', '^(bench|e2e)/'] },
      to: {},
    },
    ...engineRules,
  ],
  options: {
    // TypeScript 7 has no JS compiler API; swc parses our .ts/.tsx for dependency-cruiser.
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|out|dist)/' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
