// The ADK plugin. ADK's docs: "You use Plugins for functionality that is applicable across your agent workflow" —
// request modification among their listed uses — and "while agent callbacks apply to a particular agent, plugins
// apply globally to all agents added in the runner" (BasePlugin reference). The Context Pack is such a concern: every
// model call of every agent (a SequentialAgent's sub-agents included) gets its pack, with one line in the Runner,
// and a plugin also has beforeToolSelection, ADK's own hook for cutting the tool list before tools touch the request.
// For the ADK web UI, which runs no plugins, `contextPackCallbacks` gives the same step as agent callbacks.
import { BasePlugin, type BaseTool, type Context, type LlmRequest, type LlmResponse } from '@google/adk';
import { packStep, stepTools, type PackRecord, type PackStepOptions, type RequestLike } from './pack-step.ts';
import { DEFAULT_STATE_KEYS, readPlan } from './plan.ts';
import { connect, type ContextPackSource } from './connection.ts';

export interface ContextPackPluginOptions extends PackStepOptions {
  /** The project: an open connection (`openContextPack`, shared with a memory service), or where to open one. */
  contextpack?: ContextPackSource;
  /** Called with every pack built (after it is stored). */
  onPack?: (record: PackRecord & { elapsed_ms: number }) => void;
  /** Plugin name in the Runner; default `contextpack`. */
  name?: string;
}

/** Session-state key holding the last model call's hash (each model event's stateDelta carries its own). */
export const STATE_HASH_KEY = 'contextpack:context_snapshot_hash';
/** Key of the model event's customMetadata that carries the pack's record. */
export const METADATA_KEY = 'contextpack';

function stateGetter(ctx: Context): (key: string) => unknown {
  const state = ctx.state;
  return (key) => state.get(key);
}

async function artifactsOf(ctx: Context): Promise<string[]> {
  if (!ctx.invocationContext.artifactService) return [];
  try {
    return await ctx.listArtifacts();
  } catch {
    return [];
  }
}

/** The shared step: builds the pack for this call and remembers its record for the model's response event. */
class PackStepRunner {
  private readonly records = new WeakMap<object, PackRecord>();
  private readonly options: ContextPackPluginOptions;
  private readonly project: ReturnType<typeof connect>;

  constructor(options: ContextPackPluginOptions) {
    this.options = options;
    this.project = connect(options.contextpack);
  }

  filterTools(ctx: Context, tools: Readonly<Record<string, BaseTool>>): Readonly<Record<string, BaseTool>> | undefined {
    const plan = readPlan(stateGetter(ctx), { ...DEFAULT_STATE_KEYS, ...this.options.stateKeys });
    const allowed = stepTools(plan.tools, Object.keys(tools)).names;
    if (allowed === null) return undefined;
    return Object.fromEntries(Object.entries(tools).filter(([name]) => allowed.has(name)));
  }

  async beforeModel(ctx: Context, llmRequest: LlmRequest): Promise<void> {
    const started = performance.now();
    const ic = ctx.invocationContext;
    const record = await packStep(
      llmRequest as unknown as RequestLike,
      {
        agentName: ctx.agentName,
        agentDescription: ic.agent?.description ?? '',
        invocationId: ctx.invocationId,
        appName: ic.appName,
        userId: ctx.userId,
        sessionId: ctx.sessionId,
        userContent: ctx.userContent,
        state: stateGetter(ctx),
        artifacts: await artifactsOf(ctx),
      },
      await this.project.get(),
      this.options,
    );
    // The model's response event is built on these actions: its stateDelta records this call's hash in the session.
    ctx.state.set(STATE_HASH_KEY, record.context_snapshot_hash);
    this.records.set(ctx.eventActions, record);
    this.options.onPack?.({ ...record, elapsed_ms: performance.now() - started });
  }

  afterModel(ctx: Context, llmResponse: LlmResponse): void {
    const record = this.records.get(ctx.eventActions);
    // Amended in place, not returned: a returned response would skip the app's own after-model callbacks.
    if (record) llmResponse.customMetadata = { ...(llmResponse.customMetadata ?? {}), [METADATA_KEY]: record };
  }

  close(): Promise<void> {
    return this.project.close();
  }
}

/** `new Runner({ agent, plugins: [new ContextPackPlugin({ window: 1_048_576 })], ... })` */
export class ContextPackPlugin extends BasePlugin {
  private readonly step: PackStepRunner;

  constructor(options: ContextPackPluginOptions) {
    super(options.name ?? 'contextpack');
    this.step = new PackStepRunner(options);
  }

  override async beforeToolSelection(params: { callbackContext: Context; tools: Readonly<Record<string, BaseTool>> }): Promise<Readonly<Record<string, BaseTool>> | undefined> {
    return this.step.filterTools(params.callbackContext, params.tools);
  }

  override async beforeModelCallback(params: { callbackContext: Context; llmRequest: LlmRequest }): Promise<LlmResponse | undefined> {
    await this.step.beforeModel(params.callbackContext, params.llmRequest);
    return undefined;
  }

  override async afterModelCallback(params: { callbackContext: Context; llmResponse: LlmResponse }): Promise<LlmResponse | undefined> {
    this.step.afterModel(params.callbackContext, params.llmResponse);
    return undefined;
  }

  /** Closes a project this plugin opened itself (one passed in is the caller's to close). */
  close(): Promise<void> {
    return this.step.close();
  }
}

/**
 * The same step as an agent's own callbacks, for where plugins do not run (the ADK web UI):
 * `new LlmAgent({ ..., ...contextPackCallbacks({ window }) })`. Tools are cut in beforeModelCallback, as this path has
 * no beforeToolSelection.
 */
export function contextPackCallbacks(options: ContextPackPluginOptions): {
  beforeModelCallback: (p: { context: Context; request: LlmRequest }) => Promise<undefined>;
  afterModelCallback: (p: { context: Context; response: LlmResponse }) => Promise<undefined>;
  close: () => Promise<void>;
} {
  const step = new PackStepRunner(options);
  return {
    beforeModelCallback: async ({ context, request }) => {
      await step.beforeModel(context, request);
      return undefined;
    },
    afterModelCallback: async ({ context, response }) => {
      step.afterModel(context, response);
      return undefined;
    },
    close: () => step.close(),
  };
}
