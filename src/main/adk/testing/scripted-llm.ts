// A model stand-in for tests and the bench: a real BaseLlm registered with ADK's LLMRegistry, so agents resolve it by
// name as they would Gemini. It records every LlmRequest as it arrives (a deep copy of what the model would be sent)
// and answers from a script; no network, no account.
import { BaseLlm, LLMRegistry, type BaseLlmConnection, type LlmRequest, type LlmResponse } from '@google/adk';
import type { Content, FunctionDeclaration, Tool } from '@google/genai';

export interface RecordedRequest {
  model: string;
  systemInstruction: unknown;
  contents: Content[];
  /** Function declarations sent, by name, in order. */
  declarations: string[];
  /** Names in the request's toolsDict (what ADK would let the model call). */
  toolsDict: string[];
}

/** One scripted answer: text, or a tool call (args), decided from the request. */
export type Script = (req: LlmRequest, n: number) => LlmResponse;

const recorded: RecordedRequest[] = [];
let script: Script = () => ({ content: { role: 'model', parts: [{ text: 'ok' }] } });

export class ScriptedLlm extends BaseLlm {
  static override readonly supportedModels = [/^scripted-.*/];

  async *generateContentAsync(llmRequest: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const decls = ((llmRequest.config?.tools ?? []) as Tool[]).flatMap((t) => t.functionDeclarations ?? []) as FunctionDeclaration[];
    recorded.push({
      model: this.model,
      systemInstruction: structuredClone(llmRequest.config?.systemInstruction),
      contents: structuredClone(llmRequest.contents),
      declarations: decls.map((d) => d.name ?? ''),
      toolsDict: Object.keys(llmRequest.toolsDict),
    });
    yield script(llmRequest, recorded.length);
  }

  async connect(): Promise<BaseLlmConnection> {
    throw new Error('ScriptedLlm: live connections are not scripted');
  }
}

let registered = false;
/** Registers the stand-in once and resets the record and script. */
export function scriptedModel(next: Script): { requests: RecordedRequest[] } {
  if (!registered) {
    LLMRegistry.register(ScriptedLlm);
    registered = true;
  }
  recorded.length = 0;
  script = next;
  return { requests: recorded };
}

export const text = (t: string): LlmResponse => ({ content: { role: 'model', parts: [{ text: t }] } });
export const call = (name: string, args: Record<string, unknown>): LlmResponse => ({ content: { role: 'model', parts: [{ functionCall: { name, args } }] } });
