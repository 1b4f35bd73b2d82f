// The candidate engine's face: what the rest of the project uses of it. Searches and explanations for
// the APIs and the command line; the stages of a search (index, facts, plan, enumeration, answer) for
// capacity's headroom, which runs them with a solver of its own. Nothing outside this folder imports
// another of its domain files (test/layers.test.ts).
export { DEFAULT_MAX_CANDIDATES, explainCandidates, parsePlacementQuery, searchCandidates, searchPlacementQuery } from './candidates.service.js';
export type { CandidateRequest, CandidatesFound, CandidatesOptions, CandidatesRequestInput, ProviderSummary, RequestGroupInput, SummaryResource } from './candidates.types.js';
export type { CandidatesExplanation } from './candidates.explain.types.js';
// For answers written straight to JSON: whether a request's bytes are worth keeping.
export { isReused } from './candidates.kept.js';

// The stages, for headroom.
export { CandidateIndex, type ClassInventories } from './candidates.index.js';
export { fromInput, type SearchRequest } from './candidates.request.js';
export { SearchFacts, type GroupPlan } from './candidates.facts.js';
export { planGroups } from './candidates.plan.js';
export { Enumerator, Layout, yieldToEventLoop, type Candidate } from './candidates.enumerate.js';
export { AnswerShape } from './candidates.answer.js';
export { providersById, SHARING_TRAIT, type CapacityRow } from './candidates.data.js';
