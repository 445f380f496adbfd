// A decision's fields from the block that states it: rationale, alternatives, impact, validation, agent, importance.
import { oneLine } from './requests.ts';
import { joinLines } from './one-line.ts';
import type { ExtractedDecision } from './extraction.ts';
import { DECISION, LABEL_RE } from './extract-patterns.ts';

/** "A (rejected: x), B (rejected: y)" or "A: x; B: y" → [{name, reason}]. */
export function parseAlternatives(s: string): { name: string; reason: string }[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if ((ch === ',' || ch === ';') && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts
    .map((p) => p.trim().replace(/^[-*]\s*/, ''))
    .filter((p) => p !== '')
    .map((p) => {
      const paren = /^(.+?)\s*\((?:rejected|not chosen|not selected)?\s*:?\s*(.+)\)$/i.exec(p);
      if (paren) return { name: paren[1]!.trim(), reason: paren[2]!.trim() };
      const colon = /^([^:]{1,80}):\s*(.+)$/.exec(p);
      if (colon) return { name: colon[1]!.trim(), reason: colon[2]!.trim() };
      const dash = /^(.+?)\s+[—–-]\s+(.+)$/.exec(p);
      if (dash) return { name: dash[1]!.trim(), reason: dash[2]!.trim() };
      return { name: p, reason: 'not chosen (no reason given)' };
    });
}

export function decisionFields(block: string): Pick<ExtractedDecision, 'title' | 'decision' | 'rationale' | 'alternatives' | 'impact' | 'validation' | 'agent' | 'importance'> {
  const flat = joinLines(block);
  const m = DECISION.exec(block.split('\n')[0]!);
  const start = m ? flat.indexOf(m[2]!.slice(0, 20)) : 0;
  const body = flat.slice(Math.max(0, start));
  const marks = [...body.matchAll(LABEL_RE)];
  const head = (marks.length > 0 ? body.slice(0, marks[0]!.index) : body).replace(/\*\*/g, '').trim();
  const field: Record<string, string> = {};
  marks.forEach((mk, i) => {
    const key = mk[1]!.toLowerCase().replace(/\s+/g, ' ');
    const end = i + 1 < marks.length ? marks[i + 1]!.index : body.length;
    field[key] = body.slice(mk.index! + mk[0].length, end).replace(/\*\*/g, '').trim();
  });
  const alts = field['alternatives considered'] ?? field.alternatives ?? '';
  const imp = Number.parseInt(field.importance ?? '', 10);
  return {
    title: oneLine(head.replace(/[.。]$/, ''), 100),
    decision: head,
    rationale: field.rationale ?? '',
    alternatives: alts ? parseAlternatives(alts) : [],
    impact: field['expected impact'] ?? field.impact ?? '',
    validation: field['validation criteria'] ?? field.validated ?? field.validation ?? '',
    agent: field.agent ?? '',
    importance: Number.isInteger(imp) && imp >= 1 && imp <= 10 ? imp : 8,
  };
}
