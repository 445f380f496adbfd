// Where embedding models may live, in one order every door uses (CLI, MCP, serve, the app): the folder
// CONTEXTPACK_MODELS_DIR names, the user-data models folder (where `contextpack models fetch`, `npm run models:real`
// and the app's Models panel put them), then what ships with the app or the checkout (resources/models). Nothing
// here reaches the network: a model is a folder <root>/<model id>/.
import { fileURLToPath } from 'node:url';

export const MODELS_DIR_ENV = 'CONTEXTPACK_MODELS_DIR';

// resources/models of this checkout, for the CLI, scripts and bench. The packaged app passes its own.
export const REPO_RESOURCES_MODELS_DIR = fileURLToPath(new URL('../../../../resources/models/', import.meta.url));

export type ModelDirsInput = {
  resourcesModelsDir?: string;
  userDataModelsDir?: string;
  env?: Readonly<Record<string, string | undefined>>;
};

// The environment variable comes first: someone who sets it means "use this one". Then what the user fetched or
// added (the first place with no variable set, so a fetch lands where the next lookup starts), then what ships.
export function modelSearchDirs(input: ModelDirsInput): string[] {
  const fromEnv = input.env?.[MODELS_DIR_ENV]?.trim();
  const ordered = [fromEnv, input.userDataModelsDir, input.resourcesModelsDir].filter(
    (d): d is string => typeof d === 'string' && d.length > 0,
  );
  return [...new Set(ordered)];
}
