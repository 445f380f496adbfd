import { isPlaceholder } from './value-check.ts';

/*
 * Kubernetes Secret manifests: under `kind: Secret`, every value of `data:` (base64) and `stringData:` is a secret,
 * whatever its key is called (`extra: YWRtaW46cGFzc3dvcmQ=`), and `data:` may come before `kind:`. The document is
 * the context (gitleaks' kubernetes-secret-yaml reads it whole), so this is a pass over the text's lines, as
 * joined-lines.ts is: YAML documents split at `---`, JSON objects by indentation. One scan, linear in the text.
 */

const KIND_SECRET = /^\s*["']?kind["']?\s*:\s*["']?secret["']?\s*,?\s*$/i;
const DATA_KEY = /^(\s*)(?:-\s+)?["']?(?:data|stringData)["']?\s*:\s*(.*)$/;
const PAIR = /^\s*(?:-\s+)?["']?[\w.\-/]+["']?\s*:\s*(.*?)\s*,?\s*$/;

function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i;
}

/** A value worth redacting: not empty, not a nested block opener, not a placeholder or template. */
function holdsValue(raw: string): boolean {
  const v = raw.replace(/^["']|["']$/g, '').trim();
  if (v.length === 0 || v === '{' || v === '|' || v === '>' || /^[|>][-+]?$/.test(v)) return false;
  if (isPlaceholder(v)) return false;
  // Base64 of a fixture (`YmFyCg==` is `bar`, `YWRtaW4=` is `admin`): judged as the word it encodes.
  if (/^[A-Za-z0-9+/]{4,}={0,2}$/.test(v) && v.length % 4 === 0) {
    const decoded = Buffer.from(v, 'base64').toString('latin1').trim();
    if (/^[\x20-\x7e]*$/.test(decoded) && (decoded.length < 4 || isPlaceholder(decoded))) return false;
  }
  return true;
}

/** 0-based indexes of the lines holding a Secret's data values. */
export function kubernetesSecretLines(lines: readonly string[], text: string): number[] {
  if (!/kind["']?\s*:\s*["']?secret/i.test(text)) return [];
  const out: number[] = [];
  let start = 0;
  for (let i = 0; i <= lines.length; i++) {
    if (i < lines.length && !/^---/.test(lines[i]!)) continue;
    secretDocument(lines, start, i, out);
    start = i + 1;
  }
  return out;
}

function secretDocument(lines: readonly string[], from: number, to: number, out: number[]): void {
  let secret = false;
  for (let i = from; i < to && !secret; i++) secret = KIND_SECRET.test(lines[i]!);
  if (!secret) return;
  for (let i = from; i < to; i++) {
    const m = DATA_KEY.exec(lines[i]!);
    if (!m) continue;
    const indent = m[1]!.length;
    const rest = m[2]!.trim();
    // Flow style on one line: `data: {password: abc}` / `"data": {"k": "v"}`.
    if (rest.startsWith('{') && rest.length > 1 && /:\s*["']?[^\s"'{}]/.test(rest)) {
      out.push(i);
      if (rest.includes('}')) continue;
    }
    if (rest.length > 0 && !rest.startsWith('{')) continue;
    // Block: every deeper-indented line until one at the key's indentation or less (a closing `}` ends it too).
    let j = i + 1;
    for (; j < to; j++) {
      const line = lines[j]!;
      if (line.trim().length === 0) continue;
      if (indentOf(line) <= indent) break;
      const pair = PAIR.exec(line);
      if (pair ? holdsValue(pair[1]!) : line.trim() !== '}' && line.trim() !== '},') out.push(j);
    }
    i = j - 1;
  }
}
