// `contextpack/adk`: ContextPack as the context layer of an agent built with Google's Agent Development Kit
// (@google/adk, an optional peer dependency). See docs/adk.md.
export { ContextPackPlugin, contextPackCallbacks, STATE_HASH_KEY, METADATA_KEY, type ContextPackPluginOptions } from './plugin.ts';
export { ContextPackMemoryService, sessionTranscript, type ContextPackMemoryServiceOptions } from './memory-service.ts';
export { openContextPack, type ContextPackSource } from './connection.ts';
export { ContextPackAdkError, type Project as ContextPackProject, type ProjectOptions as ContextPackProjectOptions } from './project.ts';
export type { PackRecord, PackStepOptions } from './pack-step.ts';
export { DEFAULT_STATE_KEYS, type StateKeys } from './plan.ts';
