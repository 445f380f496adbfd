// ADK's LlmRequest.contents read as a conversation: where the user's request is, which earlier messages form a turn,
// a turn as the one line the pack's summary keeps, and every message through the redaction gate before it leaves.
// Plain data over @google/genai's Content shape; nothing here loads ADK.
import type { Content, Part } from '@google/genai';
import type { ConversationTurnInput } from '../../shared/packet.ts';
import { gateDeep, gateString } from '../core/redact/index.ts';

/** The text a message shows (thoughts left out), its parts joined by newlines. */
export function textOf(c: Content | undefined): string {
  if (!c?.parts) return '';
  return c.parts
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text!)
    .join('\n');
}

const hasResponse = (c: Content) => (c.parts ?? []).some((p) => p.functionResponse !== undefined);

/** A message the user wrote (not a tool's answer, which ADK also sends with role `user`). */
export function isUserMessage(c: Content): boolean {
  return c.role === 'user' && !hasResponse(c) && (c.parts ?? []).some((p) => typeof p.text === 'string' || p.inlineData !== undefined || p.fileData !== undefined);
}

/**
 * Where this invocation's user message sits in contents: the last user message with the invocation's text. After a
 * tool call it is no longer the last content (the call and its answer follow it), and in a sequential agent another
 * agent's words ("For context: …", role user) may follow it too. -1 when ADK left it out (includeContents 'none').
 */
export function requestIndex(contents: Content[], userContent: Content | undefined): number {
  const want = textOf(userContent);
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (isUserMessage(c) && (want === '' || textOf(c) === want)) return i;
  }
  return -1;
}

/**
 * Messages grouped into turns: each message is a turn, except that a tool's answer belongs to the call before it (a
 * model needs both or neither, so the verbatim tail never starts between a call and its answer).
 */
export function groupTurns(contents: Content[]): Content[][] {
  const turns: Content[][] = [];
  for (const c of contents) {
    if (hasResponse(c) && turns.length > 0) turns[turns.length - 1].push(c);
    else turns.push([c]);
  }
  return turns;
}

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

function partLine(p: Part): string | null {
  if (p.thought) return null;
  if (typeof p.text === 'string') return p.text;
  if (p.functionCall) return `[called ${p.functionCall.name ?? 'a tool'}(${clip(JSON.stringify(p.functionCall.args ?? {}), 200)})]`;
  if (p.functionResponse) return `[${p.functionResponse.name ?? 'a tool'} answered ${clip(JSON.stringify(p.functionResponse.response ?? {}), 200)}]`;
  if (p.fileData) return `[file ${p.fileData.fileUri ?? ''}]`;
  if (p.inlineData) return `[inline ${p.inlineData.mimeType ?? 'data'}]`;
  return null;
}

/** A turn as the pack's conversation gets it (the engine gates it and keeps its first sentence in the summary). */
export function turnInput(turn: Content[]): ConversationTurnInput {
  const text = turn.flatMap((c) => (c.parts ?? []).map(partLine)).filter((x): x is string => x !== null && x.trim() !== '').join('\n');
  return { role: turn[0].role === 'user' && !hasResponse(turn[0]) ? 'user' : 'assistant', content: text === '' ? '(no text)' : text };
}

/**
 * A message as it may leave: every text line, call argument and tool answer through the gate. The result is a copy;
 * ADK's session events keep what was said (the gate decides what the model is sent, not what happened).
 */
export function gateContent(c: Content, source: string): { content: Content; redacted: number } {
  let redacted = 0;
  const parts = (c.parts ?? []).map((p): Part => {
    if (typeof p.text === 'string') {
      const g = gateString(p.text, { source, section: 'ADK' });
      redacted += g.redacted;
      return { ...p, text: g.text };
    }
    if (p.functionCall) {
      const g = gateDeep(p.functionCall.args ?? {}, { source, section: 'ADK' });
      redacted += g.redacted;
      return { ...p, functionCall: { ...p.functionCall, args: g.value } };
    }
    if (p.functionResponse) {
      const g = gateDeep(p.functionResponse.response ?? {}, { source, section: 'ADK' });
      redacted += g.redacted;
      return { ...p, functionResponse: { ...p.functionResponse, response: g.value } };
    }
    return p;
  });
  return { content: { ...c, parts }, redacted };
}

/** What a message costs in the window: its text, and calls and answers as the JSON a provider sends. */
export function contentText(c: Content): string {
  return (c.parts ?? [])
    .map((p) => (typeof p.text === 'string' ? p.text : p.functionCall ? JSON.stringify(p.functionCall) : p.functionResponse ? JSON.stringify(p.functionResponse) : ''))
    .join('\n');
}
