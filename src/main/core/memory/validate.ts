import {
  ISSUE_SEVERITIES,
  MEMORY_TYPES,
  type FieldIssue,
  type MemoryContentByType,
  type MemoryInput,
  type MemoryType,
} from '../../../shared/memory.ts';
import { DECISION_FIELD_MAX, DECISION_ID_PATTERN, MEMORY_CONTENT_MAX, overCap, TAG_MAX, TITLE_MAX } from '../../../shared/limits.ts';

/** Bad input, one entry per field, so a CLI or a form can show each message next to its field. */
export class ValidationError extends Error {
  readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[], what = 'memory') {
    super(`invalid ${what}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

export { DECISION_ID_PATTERN, TAG_MAX, TITLE_MAX };

// A title is printed on terminals and rendered into packets: no character that drives a terminal or reorders text.
// eslint-disable-next-line no-control-regex
const CONTROL_CHAR = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
export const DEFAULT_PROJECT_ID = 'default';
export const DEFAULT_AGENT_ID = 'user';

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Normalizes an ISO 8601 timestamp to the one form stored (so text comparison orders by time), or null. */
export function normalizeTimestamp(value: string): string | null {
  if (!ISO.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

export type FieldSpec = { kind: 'text'; required: boolean } | { kind: 'list' } | { kind: 'int'; min: number; max: number } | { kind: 'enum'; values: readonly string[]; fallback?: string } | { kind: 'alternatives' };

// The seed's typed content per memory type; `required` text must be non-blank.
export const CONTENT_SPECS: { [T in MemoryType]: Record<keyof MemoryContentByType[T], FieldSpec> } = {
  decision: {
    decision: { kind: 'text', required: true },
    rationale: { kind: 'text', required: true },
    alternatives_considered: { kind: 'alternatives' },
    expected_impact: { kind: 'text', required: false },
    validation_criteria: { kind: 'text', required: false },
    context: { kind: 'text', required: false },
  },
  issue: {
    description: { kind: 'text', required: true },
    severity: { kind: 'enum', values: ISSUE_SEVERITIES },
    reproduction_steps: { kind: 'text', required: false },
    investigation_status: { kind: 'text', required: false },
    attempted_fixes: { kind: 'list' },
    next_actions: { kind: 'text', required: false },
    status: { kind: 'enum', values: ['open', 'resolved'], fallback: 'open' },
  },
  state: {
    task_description: { kind: 'text', required: true },
    completion_percentage: { kind: 'int', min: 0, max: 100 },
    substeps_completed: { kind: 'list' },
    substeps_remaining: { kind: 'list' },
    blockers: { kind: 'list' },
    next_actions: { kind: 'list' },
  },
  learning: {
    lesson: { kind: 'text', required: true },
    context: { kind: 'text', required: false },
    applicability: { kind: 'text', required: false },
    evidence: { kind: 'text', required: false },
  },
};

export interface NormalizedMemory<T extends MemoryType = MemoryType> {
  memory_type: T;
  title: string;
  content: MemoryContentByType[T];
  project_id: string;
  agent_id: string;
  tags: string[];
  importance: number;
  timestamp: string | null;
  expires_at: string | null;
  parent_memory_id: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks and normalizes input; throws ValidationError listing every bad field (never just the first). */
export function validateMemoryInput<T extends MemoryType>(input: MemoryInput<T>): NormalizedMemory<T> {
  const issues: FieldIssue[] = [];
  const add = (field: string, message: string) => issues.push({ field, message });
  const raw = input as unknown as Record<string, unknown>;

  const type = raw.memory_type;
  if (typeof type !== 'string' || !MEMORY_TYPES.includes(type as MemoryType)) {
    add('memory_type', `must be one of ${MEMORY_TYPES.join(', ')}`);
    throw new ValidationError(issues);
  }

  const title = typeof raw.title === 'string' ? raw.title.trim() : '';
  if (typeof raw.title !== 'string' || title === '') add('title', 'is required');
  else if (title.length > TITLE_MAX) add('title', `must be at most ${TITLE_MAX} characters (got ${title.length})`);
  else if (/[\r\n]/.test(title)) add('title', 'must be a single line');
  else if (CONTROL_CHAR.test(title)) add('title', 'must not contain control characters (escape sequences, bidi overrides)');

  const project_id = optionalId(raw.project_id, 'project_id', DEFAULT_PROJECT_ID, add);
  const agent_id = optionalId(raw.agent_id, 'agent_id', DEFAULT_AGENT_ID, add);

  let importance = 5;
  if (raw.importance !== undefined) {
    if (typeof raw.importance !== 'number' || !Number.isInteger(raw.importance) || raw.importance < 1 || raw.importance > 10) {
      add('importance', 'must be an integer from 1 to 10');
    } else importance = raw.importance;
  }

  const tags = normalizeTags(raw.tags, add);
  const timestamp = optionalTimestamp(raw.timestamp, 'timestamp', add);
  const expires_at = optionalTimestamp(raw.expires_at, 'expires_at', add);

  let parent_memory_id: string | null = null;
  if (raw.parent_memory_id !== undefined && raw.parent_memory_id !== null) {
    if (typeof raw.parent_memory_id !== 'string' || raw.parent_memory_id.trim() === '') add('parent_memory_id', 'must be a memory id');
    else parent_memory_id = raw.parent_memory_id.trim();
  }

  // The cap first: a 50 MB lesson is refused before anything walks it (and before every rehydrate would).
  const size = contentSize(raw.content);
  if (size > MEMORY_CONTENT_MAX) {
    add('content', overCap('content', MEMORY_CONTENT_MAX, size, 'characters of JSON'));
    throw new ValidationError(issues);
  }
  const content = normalizeContent(type as MemoryType, raw.content, add);
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    memory_type: type as T,
    title,
    content: content as unknown as MemoryContentByType[T],
    project_id,
    agent_id,
    tags,
    importance,
    timestamp,
    expires_at,
    parent_memory_id,
  };
}

function contentSize(v: unknown): number {
  try {
    return JSON.stringify(v)?.length ?? 0;
  } catch {
    return 0; // not JSON at all (a cycle): normalizeContent says what is wrong with it
  }
}

function optionalId(v: unknown, field: string, fallback: string, add: (f: string, m: string) => void): string {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' || v.trim() === '') {
    add(field, 'must be a non-empty string');
    return fallback;
  }
  if (/[\r\n]/.test(v)) add(field, 'must be a single line');
  return v.trim();
}

function optionalTimestamp(v: unknown, field: string, add: (f: string, m: string) => void): string | null {
  if (v === undefined || v === null) return null;
  const norm = typeof v === 'string' ? normalizeTimestamp(v.trim()) : null;
  if (norm === null) add(field, `must be an ISO 8601 timestamp, got ${JSON.stringify(v)}`);
  return norm;
}

export function normalizeTags(v: unknown, add: (f: string, m: string) => void): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    add('tags', 'must be a list of strings');
    return [];
  }
  const out: string[] = [];
  v.forEach((t, i) => {
    if (typeof t !== 'string' || t.trim() === '') add(`tags[${i}]`, 'must be a non-empty string');
    else if (t.trim().length > TAG_MAX) add(`tags[${i}]`, `must be at most ${TAG_MAX} characters`);
    else if (/[,\r\n]/.test(t)) add(`tags[${i}]`, 'must not contain commas or line breaks');
    else if (!out.includes(t.trim())) out.push(t.trim());
  });
  return out;
}

// Numbers that may be left out (the MCP tool says so): an agent saving "where I am" as plain text has no percentage;
// none is stored (null), not a made-up 0.
const OPTIONAL_INTS = new Set(['completion_percentage']);

/** Whether a content field must be given: a required text, an enum with no fallback, a number that may not be left out. */
export function isRequiredField(key: string, spec: FieldSpec): boolean {
  if (spec.kind === 'text') return spec.required;
  if (spec.kind === 'enum') return spec.fallback === undefined;
  if (spec.kind === 'int') return !OPTIONAL_INTS.has(key);
  return false;
}

function normalizeContent(type: MemoryType, v: unknown, add: (f: string, m: string) => void): Record<string, unknown> {
  const specs = CONTENT_SPECS[type] as Record<string, FieldSpec>;
  const out: Record<string, unknown> = {};
  if (!isRecord(v)) {
    add('content', `must be an object with fields ${Object.keys(specs).join(', ')}`);
    return out;
  }
  for (const key of Object.keys(v)) if (!(key in specs)) add(`content.${key}`, `is not a field of a ${type} memory`);
  for (const [key, spec] of Object.entries(specs)) {
    const field = `content.${key}`;
    const value = v[key];
    switch (spec.kind) {
      case 'text': {
        if (value !== undefined && value !== null && typeof value !== 'string') add(field, 'must be text');
        const text = typeof value === 'string' ? trimBlock(value) : '';
        if (spec.required && text === '') add(field, 'is required');
        if (type === 'decision' && text.length > DECISION_FIELD_MAX) add(field, overCap(field, DECISION_FIELD_MAX, text.length));
        out[key] = text;
        break;
      }
      case 'list': {
        if (value === undefined || value === null) out[key] = [];
        else if (!Array.isArray(value)) add(field, 'must be a list of strings');
        else {
          const items: string[] = [];
          value.forEach((item, i) => {
            if (typeof item !== 'string' || item.trim() === '') add(`${field}[${i}]`, 'must be a non-empty string');
            else items.push(item.trim());
          });
          out[key] = items;
        }
        break;
      }
      case 'int':
        if (OPTIONAL_INTS.has(key) && (value === undefined || value === null)) {
          out[key] = null;
          break;
        }
        if (typeof value !== 'number' || !Number.isInteger(value) || value < spec.min || value > spec.max) {
          add(field, `must be an integer from ${spec.min} to ${spec.max}`);
        }
        out[key] = value;
        break;
      case 'enum':
        if ((value === undefined || value === null) && spec.fallback !== undefined) out[key] = spec.fallback;
        else if (typeof value !== 'string' || !spec.values.includes(value)) add(field, `must be one of ${spec.values.join(', ')}`);
        else out[key] = value;
        break;
      case 'alternatives': {
        if (value === undefined || value === null) out[key] = [];
        else if (!Array.isArray(value)) add(field, 'must be a list of {name, reason}');
        else {
          out[key] = value.map((alt, i) => {
            const name = isRecord(alt) && typeof alt.name === 'string' ? alt.name.trim() : '';
            const reason = isRecord(alt) && typeof alt.reason === 'string' ? trimBlock(alt.reason) : '';
            if (name === '') add(`${field}[${i}].name`, 'is required');
            else if (/[\r\n]|\*\*/.test(name)) add(`${field}[${i}].name`, 'must be one line without "**"');
            if (reason === '') add(`${field}[${i}].reason`, 'is required: say why it was rejected');
            return { name, reason };
          });
        }
        break;
      }
    }
  }
  return out;
}

/** Trims the block and each line's trailing spaces: the same text must survive a markdown round trip. */
export function trimBlock(s: string): string {
  return s
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}
