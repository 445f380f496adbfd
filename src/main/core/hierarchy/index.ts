// The four-level hierarchy: L1 executive summary, L2 section summaries, L3 details (the user's text, under stable
// § markers) and L4, the ingested files. Plain functions over the store's `db`, returning plain JSON.
export {
  setExecutiveSummary,
  getExecutiveSummary,
  renderExecutiveSummary,
  addSection,
  updateSection,
  deleteSection,
  getSection,
  listSections,
  type SectionInput,
  type SectionPatch,
  type HierarchyDeps,
} from './sections.ts';
export { hierarchyTree, listL4, navigationIndex } from './tree.ts';
export { checkConsistency, propagationHints, PROPAGATION_MATRIX, type ConsistencyOptions } from './consistency.ts';
export { draftSection, centrality, type DraftOptions } from './draft.ts';
export { checkLevelLimits, LEVEL_LIMITS, type LevelLimitFinding } from './limits.ts';
export { parseSectionMarker, anchorFor, compareMarkers, decisionRefs, l4Refs, resolveL4Ref, dottedForm } from './markers.ts';
export {
  acquireOwnership,
  releaseOwnership,
  transferOwnership,
  assertCanWrite,
  getOwnership,
  listOwnership,
  ownershipAudit,
  sectionsOwnedBy,
  sectionId,
  OwnershipError,
  OWNERSHIP_TYPES,
  type ContextOwnership,
  type OwnershipAuditEntry,
  type OwnershipType,
} from './ownership.ts';
