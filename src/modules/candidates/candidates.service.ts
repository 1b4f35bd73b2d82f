// Allocation candidates: Placement's GET /allocation_candidates, as a structured request or as
// Placement's own query string. Searches are async: a large one yields to the event loop.
import type { Db } from '../../db/client.js';
import { RequestRefused } from '../common/errors.js';
import { UnknownProvider, explain } from './candidates.explain.js';
import type { CandidatesExplanation } from './candidates.explain.types.js';
import { parseMicroversion, readPlacementQuery } from './candidates.query-string.js';
import { fromInput, type SearchRequest } from './candidates.request.js';
import { DEFAULT_MAX_CANDIDATES, search } from './candidates.search.js';
import type { CandidatesFound, CandidatesOptions, CandidatesRequestInput } from './candidates.types.js';

export { DEFAULT_MAX_CANDIDATES };

/** A search; a request Placement refuses rejects with RequestRefused (its status and message). */
async function run(db: Db, prepare: () => SearchRequest, options: CandidatesOptions): Promise<CandidatesFound> {
  return search(db, prepare(), options.maxCandidates ?? DEFAULT_MAX_CANDIDATES);
}

/**
 * Finds allocation candidates for a structured request, checked with Placement 1.39's rules.
 * `microversion` only changes what older microversions change in the answer (nested providers before
 * 1.29, summary contents before 1.27).
 */
export function searchCandidates(db: Db, request: CandidatesRequestInput, options: CandidatesOptions = {}): Promise<CandidatesFound> {
  return run(db, () => ({ ...fromInput(request), minor: parseMicroversion(options.microversion) }), options);
}

/** Finds allocation candidates for Placement's query string at a microversion (default 1.39), exactly as Placement 8.0.0 answers it. */
export function searchPlacementQuery(db: Db, query: string, options: CandidatesOptions = {}): Promise<CandidatesFound> {
  return run(db, () => readPlacementQuery(query, options.microversion), options);
}

/** Placement's query string as a structured request (the query's own microversion rules applied); RequestRefused when Placement refuses it. */
export function parsePlacementQuery(query: string, microversion?: string | null): CandidatesRequestInput {
  return toInput(readPlacementQuery(query, microversion));
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
    if (error instanceof UnknownProvider) throw new RequestRefused(error.message, 404);
    throw error;
  }
}
