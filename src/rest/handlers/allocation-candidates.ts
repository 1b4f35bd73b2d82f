// GET /allocation_candidates (handlers/allocation_candidate.py, from 1.10): the candidate search on
// Placement's own query string at the request's microversion, its refusals as Placement words them,
// and the answer written straight to JSON.
import { DEFAULT_MAX_CANDIDATES, searchPlacementQuery, type CandidatesFound } from '../../modules/candidates/index.js';
import { allocationCandidatesQuerySchema } from '../allocation-schemas.js';
import { candidatesJson } from '../candidates-json.js';
import { placementRefusal, readPolicy, type Answer, type RestRequest } from '../request.js';

const LIST = readPolicy('placement:allocation_candidates:list');

export async function list(request: RestRequest): Promise<Answer> {
  request.versions(10);
  request.acceptJson();
  request.can(LIST);
  request.validateQuery(allocationCandidatesQuerySchema(request.minor));
  let found: CandidatesFound;
  try {
    found = await searchPlacementQuery(request.db, request.queryString, { microversion: `1.${request.minor}`, maxCandidates: request.maxCandidates ?? DEFAULT_MAX_CANDIDATES });
  } catch (error) {
    throw placementRefusal(error);
  }
  // The candidates are "now": Placement answers with the time of the request.
  return { status: 200, body: candidatesJson(found, request.minor), lastModified: new Date() };
}
