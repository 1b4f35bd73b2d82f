// Allocation candidates: the structured `candidates` query, Placement's query string in
// `placementCandidates`, and the result types shared with other modules (CandidatesResultRef).
// Fields are exposed, not resolved: compiled execution then reads them directly, which matters for
// answers of tens of thousands of requests.
import { Kind, type DocumentNode } from 'graphql';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { ResourceAmount } from '../common/common.graphql.js';
import { ResourceProviderRef } from '../providers/providers.graphql.js';
import { DEFAULT_MAX_CANDIDATES, searchCandidates, searchPlacementQuery } from './candidates.service.js';
import type * as T from './candidates.types.js';
import { isReused } from './candidates.kept.js';
import { CandidatesRequestInputRef } from './candidates.inputs.graphql.js';
import { RequestErrorRef, isRefusal, orRefusal, type RequestErrorData } from '../common/refusal.graphql.js';
import './candidates.explain.graphql.js';

const ProviderAllocationRef = builder.objectRef<T.CandidateAllocation>('ProviderAllocation').implement({
  description: 'What one allocation request takes from one provider.',
  fields: (t) => ({
    provider: t.expose('provider', { type: ResourceProviderRef, description: 'The provider.' }),
    resources: t.expose('resources', { type: [ResourceAmount], description: 'The amounts taken from it, per resource class.' }),
  }),
});

const GroupMappingRef = builder.objectRef<T.CandidateMapping>('GroupMapping').implement({
  description: 'Which providers satisfy one request group in an allocation request (Placement\'s `mappings`, microversion 1.34).',
  fields: (t) => ({
    suffix: t.exposeString('suffix', { description: 'The group suffix; "" for the unsuffixed group.' }),
    providers: t.expose('providers', { type: [ResourceProviderRef], description: 'The providers satisfying the group (one for a suffixed group).' }),
  }),
});

export const AllocationRequestRef = builder.objectRef<T.CandidateRequest>('AllocationRequest').implement({
  description: 'One way to place the request: the allocations to claim (the body of PUT /allocations/{consumer}).',
  fields: (t) => ({
    allocations: t.expose('allocations', { type: [ProviderAllocationRef], description: 'What to take from each provider.' }),
    mappings: t.expose('mappings', { type: [GroupMappingRef], description: 'Which providers satisfy each request group.' }),
  }),
});

const SummaryResourceRef = builder.objectRef<T.SummaryResource>('SummaryResource').implement({
  description: 'Capacity and usage of one inventory of a provider.',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class.' }),
    capacity: t.exposeInt('capacity', { description: 'floor((total - reserved) * allocation_ratio).' }),
    used: t.exposeInt('used', { description: 'Sum of the allocations against it.' }),
  }),
});

const ProviderSummaryRef = builder.objectRef<T.ProviderSummary>('ProviderSummary').implement({
  description: 'A provider of a tree used by some allocation request (every provider of such a tree, also those giving nothing).',
  fields: (t) => ({
    provider: t.expose('provider', { type: ResourceProviderRef, description: 'The provider (its parent and root as well).' }),
    parentProviderUuid: t.exposeString('parentUuid', {
      nullable: true,
      description: "Uuid of the provider's parent, null for a root (Placement's parent_provider_uuid; cheaper than provider { parent { uuid } } on large answers).",
    }),
    rootProviderUuid: t.exposeString('rootUuid', { description: "Uuid of the root of the provider's tree (Placement's root_provider_uuid)." }),
    resources: t.expose('resources', {
      type: [SummaryResourceRef],
      description: 'Capacity and usage of each of its inventories (only the requested classes before microversion 1.27).',
    }),
    traits: t.exposeStringList('traits', { description: 'Its trait names, sorted.' }),
  }),
});

const CandidatesRef = builder.objectRef<T.CandidatesFound>('Candidates').implement({
  description: "Allocation candidates: Placement's GET /allocation_candidates answer.",
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'How many allocation requests are returned: min(limit, all) with a limit.' }),
    truncated: t.exposeBoolean('truncated', { description: 'true when the search stopped at the server\'s maximum number of candidates (maxCandidates) before finding them all.' }),
    allocationRequests: t.expose('allocationRequests', { type: [AllocationRequestRef], description: 'The allocation requests.' }),
    providerSummaries: t.expose('providerSummaries', { type: [ProviderSummaryRef], description: 'Every provider of every tree the returned allocation requests use.' }),
  }),
});

export const CandidatesResultRef = builder.unionType('CandidatesResult', {
  description: 'The candidates, or why Placement would refuse the request.',
  types: [CandidatesRef, RequestErrorRef],
  resolveType: (value: T.CandidatesFound | RequestErrorData) => (isRefusal(value) ? 'RequestError' : 'Candidates'),
});

const maxCandidates = (ctx: Context) => ctx.limits?.maxCandidates ?? DEFAULT_MAX_CANDIDATES;

builder.queryFields((t) => ({
  candidates: t.field({
    type: CandidatesResultRef,
    description: 'Allocation candidates for a structured request (Placement 1.39 semantics).',
    args: { request: t.arg({ type: CandidatesRequestInputRef, required: true, description: 'The request.' }) },
    resolve: (_root, { request }, ctx) => orRefusal(searchCandidates(ctx.db, request as T.CandidatesRequestInput, { maxCandidates: maxCandidates(ctx) })),
  }),
  placementCandidates: t.field({
    type: CandidatesResultRef,
    description: "Allocation candidates for Placement's own GET /allocation_candidates query string, answered as Placement 8.0.0 answers it.",
    args: {
      query: t.arg.string({ required: true, description: 'The query string, e.g. resources=VCPU:1,MEMORY_MB:512&required=HW_CPU_X86_AVX2 (a leading ? is ignored).' }),
      microversion: t.arg.string({ required: false, description: 'The Placement microversion, 1.10 to 1.39 or "latest" (default 1.39).' }),
    },
    resolve: (_root, { query, microversion }, ctx) => orRefusal(searchPlacementQuery(ctx.db, query, { microversion: microversion ?? undefined, maxCandidates: maxCandidates(ctx) })),
  }),
}));

/** Candidate answers written straight to JSON (server/answer-json.ts): the root fields, and the types shared across an answer. */
export const CANDIDATE_ANSWER_JSON = {
  rootFields: new Set(['candidates', 'placementCandidates']),
  sharedTypes: new Set(['AllocationRequest', 'ResourceProvider', 'ProviderSummary', 'ResourceAmount', 'SummaryResource']),
  // A request's JSON is kept from its second answer on (candidates.kept.ts).
  keptWhen: { AllocationRequest: (request: unknown) => isReused(request as T.CandidateRequest) },
  // Kept requests and summaries carry their JSON (candidates.kept.ts, candidates.answer.ts).
  ownJson: new Set(['AllocationRequest', 'ProviderSummary']),
};

/** The root fields that search for candidates (compiled, and counted as searches in /metrics). */
export const CANDIDATE_FIELDS: ReadonlySet<string> = new Set(['candidates', 'placementCandidates', 'explainCandidates', 'bootCandidates']);

/** Whether a document asks for candidates at its top level (such answers are worth compiling the query for). */
export function selectsCandidates(document: DocumentNode): boolean {
  return document.definitions.some(
    (d) => d.kind === Kind.OPERATION_DEFINITION && d.selectionSet.selections.some((s) => s.kind === Kind.FIELD && CANDIDATE_FIELDS.has(s.name.value)),
  );
}
