// Where embedding models may live. Nothing here reaches the network: a model is a folder <root>/<model id>/ that
// either ships with the app (resources/models), was dropped into the user-data models folder, or sits in the folder
// CONTEXTPACK_MODELS_DIR names.
import { fileURLToPath } from 'node:url';

export const MODELS_DIR_ENV = 'CONTEXTPACK_MODELS_DIR';

// resources/models of this checkout, for the CLI, scripts and bench. The packaged app passes its own.
export const REPO_RESOURCES_MODELS_DIR = fileURLToPath(new URL('../../../../resources/models/', import.meta.url));

export type ModelDirsInput = {
  resourcesModelsDir?: string;
  userDataModelsDir?: string;
  env?: Readonly<Record<string, string | undefined>>;
};

// The environment variable comes first: someone who sets it means "use this one", and a model bundled with the app
// must not silently win over it. Then what ships with the app, then what the user added.
export function modelSearchDirs(input: ModelDirsInput): string[] {
  const fromEnv = input.env?.[MODELS_DIR_ENV]?.trim();
  const ordered = [fromEnv, input.resourcesModelsDir, input.userDataModelsDir].filter(
    (d): d is string => typeof d === 'string' && d.length > 0,
  );
  return [...new Set(ordered)];
}
