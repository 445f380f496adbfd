export {
  activateSpace, activeSpace, dropSpace, ensureSpace, findSpace, getSpace, listSpaces, spaceCoverage, spaceTables,
  type SpaceKey, type SpaceTables, type VectorSpace,
} from './spaces.ts';
export {
  DEFAULT_MIN_SHORTLIST, DEFAULT_SHORTLIST_FACTOR, fromBlob, openVectorIndex, signBits, toBlob,
  type KnnOptions, type ScoredChunk, type VectorIndex, type VectorIndexOptions,
} from './vector-index.ts';
export {
  backfillVectors, DEFAULT_BACKFILL_BATCH, passageText,
  type BackfillOptions, type BackfillProgress, type BackfillReport, type PassageEmbedder,
} from './backfill.ts';
export {
  configuredModelId, MODEL_SETTING_KEY, openQueryModel, semanticStatus, setConfiguredModelId,
  type QueryModel, type SemanticStatus, type SpaceStatus,
} from './semantic.ts';
