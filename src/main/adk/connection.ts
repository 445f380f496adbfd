// One project connection shared by the plugin and the memory service, or each opening its own on first use.
import { openProject, type Project, type ProjectOptions } from './project.ts';

/** An open project (`openContextPack`), or where to open one. */
export type ContextPackSource = Project | ProjectOptions;

const isProject = (s: ContextPackSource): s is Project => typeof (s as Project).call === 'function';

/** Opens `contextpack/adk`'s project: share it between a ContextPackPlugin and a ContextPackMemoryService. */
export function openContextPack(options: ProjectOptions = {}): Promise<Project> {
  return openProject(options);
}

/** Lazily opened (the first model call pays for it, never an import); closed only when this opened it. */
export function connect(source: ContextPackSource | undefined): { get(): Promise<Project>; close(): Promise<void> } {
  if (source !== undefined && isProject(source)) return { get: async () => source, close: async () => {} };
  let opening: Promise<Project> | null = null;
  return {
    // A failed open is not kept: the next model call tries again (the project may have been indexed meanwhile).
    get: () =>
      (opening ??= openProject(source ?? {}).catch((err: unknown) => {
        opening = null;
        throw err;
      })),
    close: async () => {
      const was = opening;
      opening = null;
      // A project that failed to open has nothing to close (its error went to the call that needed it).
      const project = await was?.catch(() => null);
      await project?.close();
    },
  };
}
