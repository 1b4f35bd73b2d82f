// The structured allocation-candidate request, shared by the candidates search and its callers,
// and what a search answers.
import type { ResourceAmount } from '../common/names.js';
import type { ProviderRow } from '../providers/providers.service.js';

export interface RequestGroupInput {
  /** null or "" = the unsuffixed group. */
  suffix?: string | null;
  resources?: ResourceAmount[] | null;
  required?: string[] | null;
  forbidden?: string[] | null;
  anyOf?: string[][] | null;
  memberOf?: string[][] | null;
  notMemberOf?: string[] | null;
  inTree?: string | null;
}

export type GroupPolicy = 'NONE' | 'ISOLATE';

export interface CandidatesRequestInput {
  groups: RequestGroupInput[];
  groupPolicy?: GroupPolicy | null;
  /** Lists of suffixes (each written with its leading underscore or digits, as in Placement). */
  sameSubtree?: string[][] | null;
  rootRequired?: string[] | null;
  rootForbidden?: string[] | null;
  limit?: number | null;
}

export interface CandidatesOptions {
  /** Placement microversion whose semantics apply (default 1.39). */
  microversion?: string;
  /** Most allocation requests built before answering truncated (default DEFAULT_MAX_CANDIDATES). */
  maxCandidates?: number;
}

/** One provider's share of an allocation request. */
export interface CandidateAllocation {
  provider: ProviderRow;
  resources: ResourceAmount[];
}

/** Which providers satisfied one request group ("" = the unsuffixed group). */
export interface CandidateMapping {
  suffix: string;
  providers: ProviderRow[];
}

export interface CandidateRequest {
  allocations: CandidateAllocation[];
  mappings: CandidateMapping[];
}

export interface SummaryResource {
  resourceClass: string;
  capacity: number;
  used: number;
}

export interface ProviderSummary {
  provider: ProviderRow;
  /** Placement's parent_provider_uuid and root_provider_uuid. */
  parentUuid: string | null;
  rootUuid: string;
  resources: SummaryResource[];
  /** Trait names, sorted. */
  traits: string[];
  /** Its JSON in Placement's REST answer, per shape (kept by rest/candidates-json.ts while the summary is). */
  readonly placementJson: Uint8Array[];
  /** Its JSON in GraphQL answers: places in the compiled answers and their bytes in turn (kept by server/answer-json.ts). */
  answerJson: (number | Uint8Array)[] | undefined;
}

export interface CandidatesFound {
  kind: 'candidates';
  /** How many allocation requests are returned. */
  count: number;
  /** true when the search stopped at the maximum number of candidates (not at the request's limit). */
  truncated: boolean;
  allocationRequests: CandidateRequest[];
  providerSummaries: ProviderSummary[];
  /** Every trait's id by name in the data the search read (Placement lists a provider's traits in id order). */
  traitIds: ReadonlyMap<string, number>;
}
