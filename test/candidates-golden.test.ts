// placementCandidates compared with the real Placement 8.0.0's GET /allocation_candidates on the
// golden answers in test/golden (fixtures, generated clouds, listing scenarios' edge cases).
import { describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';
import { CANDIDATES_SELECTION, canonical, goldenPairs, minorOf, normalize, readGolden as read } from './candidates-support.js';

const PLACEMENT_QUERY = `query($query: String!, $microversion: String) {
  placementCandidates(query: $query, microversion: $microversion) { ${CANDIDATES_SELECTION} }
}`;

interface GoldenResult {
  id: string;
  kind: string;
  microversion: string;
  query: string;
  status: number;
  count?: number;
  allocation_requests?: unknown[];
  allocation_requests_with_mappings?: unknown[];
  provider_summaries?: Record<string, any>;
  unlimited_count?: number;
  unlimited_allocation_requests?: unknown[];
  unlimited_allocation_requests_with_mappings?: unknown[];
  error?: { message: string };
}

const goldenRequests = (result: GoldenResult, minor: number, unlimited = false) =>
  ((minor >= 34
    ? unlimited
      ? result.unlimited_allocation_requests_with_mappings
      : result.allocation_requests_with_mappings
    : unlimited
      ? result.unlimited_allocation_requests
      : result.allocation_requests) ?? []
  )
    .map(canonical)
    .sort();

/**
 * Placement's messages, except that jsonschema's rendering of the schema (after "Failed validating") is not
 * ours to copy. The oracle already collapsed whitespace the Python way (U+FEFF is no whitespace there).
 */
const expectedMessage = (message: string) => message.split(' Failed validating')[0];

const withoutLimit = (query: string) =>
  query
    .split('&')
    .filter((p) => !p.startsWith('limit='))
    .join('&');

/** Trees of a scenario: provider uuid -> root uuid. */
function rootsOf(scenario: any): Map<string, string> {
  const parent = new Map<string, string | null>(scenario.providers.map((p: any) => [p.uuid, p.parent ?? null]));
  const root = (uuid: string): string => (parent.get(uuid) ? root(parent.get(uuid)!) : uuid);
  return new Map([...parent.keys()].map((u) => [u, root(u)]));
}

async function ask(h: Harness, query: string, microversion: string) {
  const { data } = await h.gql(PLACEMENT_QUERY, { query, microversion });
  return data.placementCandidates;
}

async function check(h: Harness, scenario: any, result: GoldenResult, microversion: string) {
  const answer = await ask(h, result.query, microversion);
  if (result.status !== 200) {
    expect({ typename: answer.__typename, status: answer.status }).toEqual({ typename: 'RequestError', status: result.status });
    expect(answer.message).toBe(expectedMessage(result.error!.message));
    return;
  }
  expect(answer.__typename, JSON.stringify(answer)).toBe('Candidates');
  const minor = minorOf(result.microversion);
  const ours = normalize(answer, minor);
  expect(answer.truncated).toBe(false);
  if (result.unlimited_count === undefined) {
    expect(ours.count).toBe(result.count);
    expect(ours.requests).toEqual(goldenRequests(result, minor));
    expect(ours.summaries).toEqual(result.provider_summaries);
    return;
  }
  // limit=N: Placement returns N of an undefined order. Each must be a real candidate, and the
  // summaries must be exactly those of the returned trees.
  // Placement's own count: min(limit, all) for a plain limit; with repeated limits it used int() of the
  // first one (0: no limit, -N: all but N).
  expect(ours.count).toBe(result.count);
  const everyCandidate = goldenRequests(result, minor, true);
  const remaining = [...everyCandidate];
  for (const request of ours.requests) {
    const at = remaining.indexOf(request);
    expect(at, `${request} is not a candidate`).toBeGreaterThanOrEqual(0);
    remaining.splice(at, 1);
  }
  const full = normalize(await ask(h, withoutLimit(result.query), microversion), minor);
  expect(full.requests).toEqual(everyCandidate);
  const roots = rootsOf(scenario);
  const usedRoots = new Set(answer.allocationRequests.flatMap((r: any) => r.allocations.map((a: any) => roots.get(a.provider.uuid))));
  const restricted = Object.fromEntries(Object.entries(full.summaries).filter(([uuid]) => usedRoots.has(roots.get(uuid))));
  expect(ours.summaries).toEqual(restricted);
}

for (const folder of ['fixtures', 'generated', 'listing', 'edge']) {
  describe(`placementCandidates = Placement 8.0.0 (${folder})`, () => {
    for (const pair of goldenPairs(folder)) {
      const golden = read(pair.results);
      if (!golden.results.some((r: GoldenResult) => r.kind === 'allocation_candidates')) continue;
      it(pair.name, async () => {
        const scenario = read(pair.scenario);
        const h = harness(scenario);
        const microversions = new Map<string, string>(scenario.queries.map((q: any) => [q.id, q.microversion ?? 'latest']));
        let compared = 0;
        for (const result of golden.results as GoldenResult[]) {
          if (result.kind !== 'allocation_candidates') continue;
          await check(h, scenario, result, microversions.get(result.id)!).catch((error) => {
            throw new Error(`${result.id} (${result.microversion}) ${result.query}\n${error.message}`);
          });
          compared++;
        }
        expect(compared).toBeGreaterThan(0);
        h.db.close();
      });
    }
  });
}
