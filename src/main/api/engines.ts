import type { Capability, CapabilityName, ApiParsedInput, ApiOutput } from '../../shared/api/index.ts';
import type { SearchFilters, SearchHit, SearchMode } from '../../shared/types.ts';
import type { OpenSemanticSearch } from '../core/search/index.ts';

/**
 * The engine parts that land separately (#3 vectors, #4 memory/hierarchy, #5 packets), each behind the narrow
 * shape the API needs. An engine that is absent makes its methods answer `unavailable` with the reason, and
 * the renderer shows that reason instead of an imitation of the feature.
 */
export interface VectorSearch {
  /** Asked on each app.info: vectors and the model can appear or go away while the app runs. */
  status(): Promise<Capability>;
  search(req: { text: string; k: number; mode: Exclude<SearchMode, 'bm25'>; mmrLambda?: number; filters?: SearchFilters }): Promise<SearchHit[]>;
  /** The open semantic engine (opened on first use, kept), for the retriever factory; or why it cannot open. */
  semantic(): Promise<OpenSemanticSearch>;
  /** Releases the query model (its worker thread); later searches answer `unavailable`. */
  close(): Promise<void>;
}

export interface DecisionsEngine {
  list(input: ApiParsedInput<'decisions.list'>): ApiOutput<'decisions.list'>;
  create(input: ApiParsedInput<'decisions.create'>): ApiOutput<'decisions.create'>;
  supersede(input: ApiParsedInput<'decisions.supersede'>): ApiOutput<'decisions.supersede'>;
  exportMarkdown(input: ApiParsedInput<'decisions.exportMarkdown'>): ApiOutput<'decisions.exportMarkdown'>;
}

export interface HierarchyEngine {
  tree(): ApiOutput<'hierarchy.tree'>;
  setSummary(input: ApiParsedInput<'hierarchy.summary'>): ApiOutput<'hierarchy.summary'>;
  show(marker: string | undefined): ApiOutput<'hierarchy.show'>;
}

export interface PacketsEngine {
  build(input: ApiParsedInput<'packets.build'>): Promise<ApiOutput<'packets.build'>>;
  list(input: ApiParsedInput<'packets.list'>): ApiOutput<'packets.list'>;
  get(hash: string, view?: { format?: 'md' | 'json' | 'contextos'; raw?: boolean }): ApiOutput<'packets.get'>;
  replay(hash: string): Promise<ApiOutput<'packets.replay'>>;
}

export interface Engines {
  vector: VectorSearch | string;
  decisions: DecisionsEngine | string;
  hierarchy: HierarchyEngine | string;
  packets: PacketsEngine | string;
}

/** A string in place of an engine is the reason it is off. */
export function capabilityOf(engine: object | string): Capability {
  return typeof engine === 'string' ? { available: false, reason: engine } : { available: true };
}

/** Releases what the engines hold open (the query embedder's worker); engines given as a reason hold nothing. */
export async function closeEngines(engines: Engines): Promise<void> {
  if (typeof engines.vector !== 'string') await engines.vector.close();
}

export async function capabilities(engines: Engines): Promise<Record<CapabilityName, Capability>> {
  return {
    vector: typeof engines.vector === 'string' ? capabilityOf(engines.vector) : await engines.vector.status(),
    decisions: capabilityOf(engines.decisions),
    hierarchy: capabilityOf(engines.hierarchy),
    packets: capabilityOf(engines.packets),
  };
}
