// The allocation-candidate search: Placement 8.0.0's semantics (objects/allocation_candidate.py and
// research_context.py) over the candidate index, with candidates built lazily in memory, in its
// stages: facts (candidates.facts.ts), plan (candidates.plan.ts), enumeration
// (candidates.enumerate.ts) and answer (candidates.answer.ts).
import type { Db } from '../../db/client.js';
import { CandidateIndex } from './candidates.index.js';
import type { SearchRequest } from './candidates.request.js';
import type { CandidatesFound } from './candidates.types.js';
import { SearchFacts } from './candidates.facts.js';
import { planSearch } from './candidates.plan.js';
import { STEPS_PER_SLICE, enumerate, yieldToEventLoop } from './candidates.enumerate.js';
import { answer } from './candidates.answer.js';

/** The most allocation requests one search builds before answering truncated (server limits may lower it). */
export const DEFAULT_MAX_CANDIDATES = 100_000;

/** Runs a search: plan the groups, enumerate, then answer with the summaries of the trees used. */
export async function search(db: Db, request: SearchRequest, maxCandidates: number): Promise<CandidatesFound> {
  const index = CandidateIndex.of(db);
  const facts = new SearchFacts(index, request);
  const plans = planSearch(facts);
  if (!plans) return { kind: 'candidates', count: 0, truncated: false, allocationRequests: [], providerSummaries: [], traitIds: index.traitIds };
  const nestedUnaware = request.minor < 29 && index.hasTrees();
  const limit = request.limit ?? Infinity;
  // Before 1.29 (with trees) the summaries keep only providers some candidate uses: that needs all of them.
  // A negative limit (int() of the first of repeated `limit` parameters) drops that many from the
  // end, as Python's list[:limit] does: it needs every candidate, up to the maximum.
  const wanted = nestedUnaware || limit < 0 ? maxCandidates : Math.min(limit, maxCandidates);
  const { found, more, layout } = await enumerate(facts, plans, wanted, nestedUnaware);
  if (found.length > STEPS_PER_SLICE) await yieldToEventLoop();
  const truncated = more && (limit > maxCandidates || limit < 0);
  return answer(facts, layout, found.slice(0, Math.min(limit, maxCandidates)), nestedUnaware ? found : null, truncated);
}
