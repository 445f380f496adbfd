import type { ConversationTurnInput, PacketToolInput } from '../../../shared/packet.ts';
import { detectTranscript, normalizeTranscript } from '../transcripts/index.ts';

// The files `pack --tools-file` and `--conversation-file` read: checked here so a mistake names the file, the
// entry (or line) and the field. The engine's resolveRequest checks the same fields again for API callers.

export class InputFileError extends Error {
  readonly file: string;
  readonly field: string;
  constructor(file: string, where: string, field: string, message: string) {
    super(`${file}${where}: ${field}: ${message}`);
    this.name = 'InputFileError';
    this.file = file;
    this.field = field;
  }
}

const TOOL_FIELDS = ['name', 'description', 'purpose', 'input_schema', 'inputSchema', 'capability_class', 'risk_level', 'approval_mode'];
const CAPABILITY = ['observe', 'recall', 'think_support', 'verify', 'act'];
const RISK = ['read_safe', 'read_sensitive', 'write_reversible', 'write_external', 'write_irreversible'];
const APPROVAL = ['read_only', 'local_write', 'network', 'delegated', 'destructive'];

/**
 * A JSON list of tools (or `{ "tools": [...] }`, as an MCP tools/list result has it): name, description,
 * input_schema (MCP's `inputSchema` too), capability_class, risk_level, approval_mode.
 */
export function parseToolsFile(text: string, file: string): PacketToolInput[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InputFileError(file, '', 'json', `not valid JSON (${(err as Error).message})`);
  }
  const list = Array.isArray(doc) ? doc : doc && typeof doc === 'object' && Array.isArray((doc as { tools?: unknown }).tools) ? (doc as { tools: unknown[] }).tools : null;
  if (!list) throw new InputFileError(file, '', 'tools', 'must be a JSON array of tools (or an object with a "tools" array)');
  const names = new Set<string>();
  return list.map((raw, i) => {
    const at = `: [${i}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new InputFileError(file, at, 'tool', 'must be an object');
    const t = raw as Record<string, unknown>;
    for (const k of Object.keys(t)) if (!TOOL_FIELDS.includes(k)) throw new InputFileError(file, at, k, `unknown field (known: name, description, input_schema, capability_class, risk_level, approval_mode)`);
    if (typeof t.name !== 'string' || t.name.trim() === '' || /[\r\n]/.test(t.name)) throw new InputFileError(file, at, 'name', 'must be a non-empty single-line string');
    if (names.has(t.name)) throw new InputFileError(file, at, 'name', `duplicate tool ${JSON.stringify(t.name)}`);
    names.add(t.name);
    const description = t.description ?? t.purpose;
    if (typeof description !== 'string') throw new InputFileError(file, at, 'description', 'must be a string');
    const schema = t.input_schema ?? t.inputSchema;
    if (schema !== undefined && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) throw new InputFileError(file, at, 'input_schema', 'must be a JSON Schema object');
    const enumField = (k: string, allowed: string[]) => {
      if (t[k] === undefined) return undefined;
      if (typeof t[k] !== 'string' || !allowed.includes(t[k] as string)) throw new InputFileError(file, at, k, `must be one of ${allowed.join(', ')}`);
      return t[k] as string;
    };
    const capability_class = enumField('capability_class', CAPABILITY);
    const risk_level = enumField('risk_level', RISK);
    const approval_mode = enumField('approval_mode', APPROVAL);
    return {
      name: t.name,
      description,
      ...(schema !== undefined ? { input_schema: schema as Record<string, unknown> } : {}),
      ...(capability_class ? { capability_class } : {}),
      ...(risk_level ? { risk_level } : {}),
      ...(approval_mode ? { approval_mode } : {}),
    } as PacketToolInput;
  });
}

const TS_SHAPE = /^[0-9][0-9T:.+\- Z]{3,39}$/;

/**
 * JSONL, one turn per line: `{"role": "user"|"assistant", "content": "…", "ts"?: "ISO 8601"}`; blank lines skipped.
 * An agent transcript (any format core/transcripts reads) is read as its user and assistant text turns without what
 * the harness injected, a tool call as one assistant line naming the tool; tool output is left to the evidence.
 */
export function parseConversationFile(text: string, file: string): ConversationTurnInput[] {
  const transcript = detectTranscript(text);
  if (transcript) {
    // What the harness injected (AGENTS.md preambles, reminders, hook output) is not the conversation.
    return normalizeTranscript(transcript.parse(text, file))
      .turns.filter((t) => t.origin !== 'injected')
      .filter((t) => (t.kind === 'text' && (t.role === 'user' || t.role === 'assistant')) || t.kind === 'tool_use')
      .filter((t) => t.text.trim() !== '')
      .map((t) => ({
        role: t.role === 'user' ? 'user' : 'assistant',
        content: t.kind === 'tool_use' ? `→ ${t.tool_name ?? 'tool'}: ${t.text.length > 300 ? `${t.text.slice(0, 299)}…` : t.text}` : t.text,
        ...(t.ts ? { ts: t.ts } : {}),
      }));
  }
  const out: ConversationTurnInput[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const at = `:${i + 1}`;
    let t: unknown;
    try {
      t = JSON.parse(line);
    } catch (err) {
      throw new InputFileError(file, at, 'json', `not valid JSON (${(err as Error).message})`);
    }
    if (!t || typeof t !== 'object' || Array.isArray(t)) throw new InputFileError(file, at, 'turn', 'must be a JSON object');
    const o = t as Record<string, unknown>;
    if (o.role !== 'user' && o.role !== 'assistant') throw new InputFileError(file, at, 'role', 'must be "user" or "assistant"');
    const content = o.content ?? o.text;
    if (typeof content !== 'string') throw new InputFileError(file, at, 'content', 'must be a string');
    if (o.ts !== undefined && (typeof o.ts !== 'string' || !TS_SHAPE.test(o.ts) || Number.isNaN(Date.parse(o.ts)))) throw new InputFileError(file, at, 'ts', 'must be an ISO 8601 timestamp');
    out.push({ role: o.role, content, ...(o.ts !== undefined ? { ts: o.ts as string } : {}) });
  });
  return out;
}
