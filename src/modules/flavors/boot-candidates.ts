// bootCandidates: the request Nova builds for a flavor and an image, run through the candidates search
// as Nova's scheduler runs it (the VCPU fallback query when pinned CPUs find nothing), and why nothing fits.
import type { Db } from '../../db/client.js';
import { type CandidatesFound, type CandidatesOptions, type CandidatesRequestInput, explainCandidates, type RequestGroupInput, searchCandidates } from '../candidates/index.js';
import { RequestRefused } from '../common/errors.js';
import { BootRequestError, buildBootRequest, type BootRequest, type BootRequestOptions, type FlavorSpec, type ImageSpec } from './boot-request.js';

export interface BootCandidates {
  /** The request Nova builds; null when it cannot build one. */
  request: BootRequest | null;
  /** What the search answered (Placement's refusal of the request included); null when Nova stops before asking Placement. */
  result: CandidatesFound | RequestRefused | null;
  /** Whether the answer is that of the VCPU fallback query (the pinned query found nothing). */
  usedFallback: boolean;
  /** Why no server could be booted: empty when candidates were found. */
  reasons: string[];
}

const groupName = (g: RequestGroupInput) => (g.suffix ? `group ${g.suffix}` : 'the unsuffixed group');
const found = (outcome: CandidatesFound) => outcome.count > 0;

/** The request without one of its constraints, with a description of what was dropped. */
function relaxations(request: CandidatesRequestInput): { without: string; request: CandidatesRequestInput }[] {
  const out: { without: string; request: CandidatesRequestInput }[] = [];
  const withGroup = (n: number, group: RequestGroupInput) => ({ ...request, groups: request.groups.map((g, k) => (k === n ? group : g)) });
  request.groups.forEach((g, n) => {
    for (const t of g.required ?? []) out.push({ without: `the required trait ${t} (${groupName(g)})`, request: withGroup(n, { ...g, required: g.required!.filter((x) => x !== t) }) });
    for (const t of g.forbidden ?? []) out.push({ without: `the forbidden trait ${t} (${groupName(g)})`, request: withGroup(n, { ...g, forbidden: g.forbidden!.filter((x) => x !== t) }) });
  });
  for (const t of request.rootRequired ?? []) out.push({ without: `the root trait ${t}`, request: { ...request, rootRequired: request.rootRequired!.filter((x) => x !== t) } });
  for (const t of request.rootForbidden ?? []) out.push({ without: `the forbidden root trait ${t}`, request: { ...request, rootForbidden: request.rootForbidden!.filter((x) => x !== t) } });
  if (request.groupPolicy === 'ISOLATE') out.push({ without: 'group_policy=isolate (with none)', request: { ...request, groupPolicy: 'NONE' } });
  return out;
}

/**
 * Why a request finds no candidates: the reasons the candidates module's explanation counts over the
 * provider trees, then each constraint that alone rules every tree out.
 */
export async function explainNoCandidates(db: Db, request: CandidatesRequestInput, options: CandidatesOptions): Promise<string[]> {
  const explanation = await explainCandidates(db, request);
  const trees = explanation.trees.length;
  if (trees === 0) return ['There is no resource provider.'];
  const reasons = explanation.reasons.map((r) => `${r.trees} of ${trees} provider trees: ${r.description}. For example: ${r.example}`);
  for (const { without, request: relaxed } of relaxations(request)) {
    const outcome = await searchCandidates(db, { ...relaxed, limit: 3 }, options).catch((error) => {
      if (error instanceof RequestRefused) return null;
      throw error;
    });
    if (outcome && found(outcome)) {
      const hosts = [...new Set(outcome.allocationRequests.map((r) => r.allocations[0].provider.name))];
      reasons.push(`Without ${without}, the request would find candidates, e.g. on ${hosts.join(', ')}.`);
    }
  }
  return reasons;
}

/** Runs the boot request as Nova's scheduler does, and explains an empty answer. */
export async function bootCandidates(
  db: Db,
  flavor: FlavorSpec,
  image: ImageSpec | null,
  options: BootRequestOptions & CandidatesOptions & { limit?: number | null } = {},
): Promise<BootCandidates> {
  let request: BootRequest;
  try {
    request = buildBootRequest(flavor, image, options);
  } catch (error) {
    if (error instanceof BootRequestError) return { request: null, result: null, usedFallback: false, reasons: [`Nova cannot build the request: ${error.message}`] };
    throw error;
  }
  if (request.apiError) return { request, result: null, usedFallback: false, reasons: [`Nova refuses the server create (400): ${request.apiError}`] };
  const search = (r: CandidatesRequestInput) => searchCandidates(db, { ...r, limit: options.limit ?? r.limit }, options);
  let result: CandidatesFound;
  try {
    result = await search(request.candidatesRequest);
  } catch (error) {
    if (!(error instanceof RequestRefused)) throw error;
    return { request, result: error, usedFallback: false, reasons: [`Placement refuses the request (${error.status}): ${error.message}`] };
  }
  if (found(result)) return { request, result, usedFallback: false, reasons: [] };
  if (request.fallback) {
    const fallback = await search(request.fallback.candidatesRequest);
    if (found(fallback)) return { request, result: fallback, usedFallback: true, reasons: [] };
  }
  const reasons = await explainNoCandidates(db, request.candidatesRequest, options);
  if (request.fallback) reasons.unshift('Neither the PCPU query nor its VCPU fallback finds candidates; the reasons below are those of the PCPU query.');
  return { request, result, usedFallback: false, reasons };
}
