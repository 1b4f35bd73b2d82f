// Allocation candidates: Placement's GET /allocation_candidates, as a structured request or as
// Placement's own query string. Searches are async: a large one yields to the event loop.
import type { Db } from '../../db/client.js';
import { RequestRefused } from '../common/errors.js';
import { UnknownProvider, explain } from './candidates.explain.js';
import type { CandidatesExplanation } from './candidates.explain.types.js';
import { parseMicroversion, readPlacementQuery } from './candidates.query-string.js';
import { RequestRejected } from '../common/query-string.js';
import { fromInput, type SearchRequest } from './candidates.request.js';
import { DEFAULT_MAX_CANDIDATES, search } from './candidates.search.js';
import type { CandidatesOptions, CandidatesOutcome, CandidatesRequestInput, RequestFailure } from './candidates.types.js';

export { DEFAULT_MAX_CANDIDATES };

const failure = (error: RequestRejected): RequestFailure => ({ kind: 'error', status: error.status, message: error.message });

async function run(db: Db, prepare: () => SearchRequest, options: CandidatesOptions): Promise<CandidatesOutcome> {
  try {
    return await search(db, prepare(), options.maxCandidates ?? DEFAULT_MAX_CANDIDATES);
  } catch (error) {
    if (error instanceof RequestRejected) return failure(error);
    throw error;
  }
}

/**
 * Finds allocation candidates for a structured request, checked with Placement 1.39's rules.
 * `microversion` only changes what older microversions change in the answer (nested providers before
 * 1.29, summary contents before 1.27).
 */
export function searchCandidates(db: Db, request: CandidatesRequestInput, options: CandidatesOptions = {}): Promise<CandidatesOutcome> {
  return run(db, () => ({ ...fromInput(request), minor: parseMicroversion(options.microversion) }), options);
}

/** Finds allocation candidates for Placement's query string at a microversion (default 1.39), exactly as Placement 8.0.0 answers it. */
export function searchPlacementQuery(db: Db, query: string, options: CandidatesOptions = {}): Promise<CandidatesOutcome> {
  return run(db, () => readPlacementQuery(query, options.microversion), options);
}

/** Placement's query string as a structured request (the query's own microversion rules applied), or Placement's error. */
export function parsePlacementQuery(query: string, microversion?: string | null): { kind: 'request'; request: CandidatesRequestInput } | RequestFailure {
  try {
    return { kind: 'request', request: toInput(readPlacementQuery(query, microversion)) };
  } catch (error) {
    if (error instanceof RequestRejected) return failure(error);
    throw error;
  }
}

function toInput(request: SearchRequest): CandidatesRequestInput {
  return {
    groups: request.groups.map((g) => ({
      suffix: g.suffix,
      resources: g.resources.map(([resourceClass, amount]) => ({ resourceClass, amount })),
      required: g.required.filter((set) => set.length === 1).map(([t]) => t),
      anyOf: g.required.filter((set) => set.length > 1),
      forbidden: g.forbidden,
      memberOf: g.memberOf,
      notMemberOf: g.forbiddenAggregates,
      inTree: g.inTree,
    })),
    groupPolicy: request.groupPolicy === 'isolate' ? 'ISOLATE' : request.groupPolicy === 'none' ? 'NONE' : null,
    sameSubtree: request.sameSubtree,
    rootRequired: request.rootRequired,
    rootForbidden: request.rootForbidden,
    limit: request.limit,
  };
}

/**
 * Why each provider tree (or the tree of one provider) is or is not a candidate for a structured
 * request, yielding to the event loop between slices of trees. Bad requests throw RequestRefused with
 * Placement's status and message.
 */
export async function explainCandidates(db: Db, request: CandidatesRequestInput, providerUuid: string | null = null): Promise<CandidatesExplanation> {
  try {
    return await explain(db, fromInput(request), providerUuid);
  } catch (error) {
    if (error instanceof RequestRejected) throw new RequestRefused(error.message, error.status);
    if (error instanceof UnknownProvider) throw new RequestRefused(error.message, 404);
    throw error;
  }
}
