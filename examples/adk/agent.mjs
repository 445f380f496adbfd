#!/usr/bin/env node
// A small ADK agent whose every model call gets a ContextPack: an LlmAgent with two tools (list_files, read_file),
// run by ADK's InMemoryRunner with the ContextPackPlugin; at the end the session is added to project memory through
// ContextPackMemoryService. Plain JavaScript: it runs with `node` from the installed package.
//
//   npm install contextpack @google/adk
//   node node_modules/contextpack/examples/adk/agent.mjs [folder] ["your question"]
//
// The folder (default: this example's own folder) is indexed into a throwaway project under the system's temp
// folder unless CONTEXTPACK_PROJECT or CONTEXTPACK_DB names yours. With GEMINI_API_KEY (or GOOGLE_API_KEY) set the
// agent talks to Gemini; without one an offline stand-in model answers, so the example runs anywhere.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseLlm, FunctionTool, InMemoryRunner, LLMRegistry, LlmAgent } from '@google/adk';
import { ContextPackMemoryService, ContextPackPlugin, METADATA_KEY, openContextPack } from 'contextpack/adk';

const folder = realpathSync(resolve(process.argv[2] ?? fileURLToPath(new URL('.', import.meta.url))));
const question = process.argv[3] ?? 'What does this project do, and which file should I read first?';

// The project: yours when named, else a throwaway one holding the folder.
const mine = process.env.CONTEXTPACK_PROJECT || process.env.CONTEXTPACK_DB;
const contextpack = await openContextPack(mine ? {} : { db: join(mkdtempSync(join(tmpdir(), 'contextpack-adk-')), 'example.db'), create: true });
if (!mine) {
  const r = await contextpack.call('library.ingest', { paths: [folder] });
  console.log(`indexed ${r.files} files (${r.chunks} chunks) from ${folder}`);
}

// Two tools, confined to the folder.
const inside = (p) => {
  const full = resolve(folder, p);
  if (full !== folder && !full.startsWith(folder + sep)) throw new Error(`${p}: outside ${folder}`);
  return full;
};
const listFiles = new FunctionTool({
  name: 'list_files',
  description: 'Lists the files under a folder of the project (relative path; "." for the top).',
  parameters: { type: 'OBJECT', properties: { path: { type: 'STRING', description: 'folder, relative to the project' } }, required: ['path'] },
  execute: ({ path }) => ({ files: readdirSync(inside(path)).slice(0, 200) }),
});
const readFile = new FunctionTool({
  name: 'read_file',
  description: 'Reads a text file of the project (relative path), at most 20,000 characters.',
  parameters: { type: 'OBJECT', properties: { path: { type: 'STRING', description: 'file, relative to the project' } }, required: ['path'] },
  execute: ({ path }) => {
    const full = inside(path);
    if (!statSync(full).isFile()) throw new Error(`${path}: not a file`);
    return { path, text: readFileSync(full, 'utf8').slice(0, 20_000) };
  },
});

// Offline stand-in: reads the pack it is sent, asks for the top evidence file once, then answers citing it.
class OfflineModel extends BaseLlm {
  static supportedModels = ['offline-example'];
  async *generateContentAsync(request) {
    const last = request.contents.at(-1);
    const pack = request.contents.flatMap((c) => c.parts ?? []).map((p) => p.text ?? '').find((t) => t.includes('# CONTEXT PACK')) ?? '';
    const top = /### Top Evidence\n- \[E\d+\] ([^#\s]+)#(\S+)/.exec(pack);
    const answered = last?.parts?.some((p) => p.functionResponse);
    const tools = Object.keys(request.toolsDict);
    if (top && !answered && tools.includes('read_file')) {
      yield { content: { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: top[1] } } }] } };
      return;
    }
    const cite = top ? `${top[1]}#${top[2]}` : 'no evidence in the pack';
    yield { content: { role: 'model', parts: [{ text: `(offline model) Start with ${cite}.\nDECISION: read ${top?.[1] ?? 'the README'} first because the pack ranked it first for this question.` }] } };
  }
  async connect() {
    throw new Error('offline model: no live connection');
  }
}
const online = process.env.GEMINI_API_KEY || process.env.GOOGLE_API_KEY;
if (!online) LLMRegistry.register(OfflineModel);

const agent = new LlmAgent({
  name: 'project_guide',
  description: 'Answers questions about a code project from its files.',
  model: online ? 'gemini-2.5-flash' : 'offline-example',
  instruction: 'You help a developer find their way around a project. Answer briefly and cite files as path#anchor:lines.',
  tools: [listFiles, readFile],
});

const packs = [];
const plugin = new ContextPackPlugin({
  contextpack,
  // The model's context window; the pack and everything sent beside it fit in it (less 10 % kept for the reply).
  window: online ? 1_048_576 : 16_000,
  keepTurns: 5,
  onPack: (r) => packs.push(r),
});
const runner = new InMemoryRunner({ agent, appName: 'contextpack-example', plugins: [plugin] });
const session = await runner.sessionService.createSession({
  appName: 'contextpack-example',
  userId: 'developer',
  // 003's state layout: the step and its acceptance checklist, and the step's tools (list_files is left out here).
  state: {
    plan: { goal: 'Orient a new developer in this project', step: { id: 'read', text: 'Point to the file to read first', acceptance: ['cite the file as path#anchor:lines'] } },
    tools: ['read_file'],
  },
});

for await (const event of runner.runAsync({ userId: 'developer', sessionId: session.id, newMessage: { role: 'user', parts: [{ text: question }] } })) {
  const meta = event.customMetadata?.[METADATA_KEY];
  for (const part of event.content?.parts ?? []) {
    if (part.text) console.log(`${event.author}: ${part.text}`);
    if (part.functionCall) console.log(`${event.author} → ${part.functionCall.name}(${JSON.stringify(part.functionCall.args)})`);
  }
  if (meta) console.log(`  [pack ${meta.pack_id}: ${meta.pack_tokens} tokens of a ${meta.pack_window}-token share; tools sent: ${meta.tools.join(', ')}]`);
  if (event.errorMessage) console.error(`error: ${event.errorMessage}`);
}

// The session's findings (decisions, issues, learnings) into project memory, citing its events.
const memory = new ContextPackMemoryService({ contextpack });
const done = await runner.sessionService.getSession({ appName: 'contextpack-example', userId: 'developer', sessionId: session.id });
const saved = await memory.addSession(done);
console.log(`memory: ${saved.saved.created.length} saved, ${saved.saved.duplicates.length} already known`);
for (const p of packs) console.log(`replay a pack: contextpack replay ${p.context_snapshot_hash} --db ${contextpack.dbPath}`);
await contextpack.close();
