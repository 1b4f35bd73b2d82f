// The generated scenarios' queries as query strings: the same text for GraphQL's placementCandidates,
// for /placement/allocation_candidates and for the real Placement.

export interface ScenarioQuery {
  id: string;
  kind?: string;
  tag?: string;
  microversion?: string;
  params?: Record<string, string | string[]> | [string, string][];
  raw_query?: string;
}

/** urllib.parse.quote as the oracle uses it, so both services get the same query string. */
const pyQuote = (s: string, safe: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => {
    const ch = String.fromCharCode(b);
    return /[A-Za-z0-9_.~-]/.test(ch) || safe.includes(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');

export function queryString(q: ScenarioQuery): string {
  if (q.raw_query !== undefined) return q.raw_query;
  const pairs: [string, string][] = Array.isArray(q.params)
    ? q.params
    : Object.entries(q.params ?? {}).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as [string, string]) : [[k, v] as [string, string]]));
  return pairs.map(([k, v]) => `${pyQuote(k, '')}=${pyQuote(String(v), ':,!')}`).join('&');
}

/** A scenario's allocation-candidate queries. */
export const candidateQueries = (scenario: { queries: ScenarioQuery[] }) => scenario.queries.filter((q) => (q.kind ?? 'allocation_candidates') === 'allocation_candidates');

/** A scenario's allocation-candidate queries as the REST bench sends them. */
export const scenarioQueries = (scenario: { queries: ScenarioQuery[] }) =>
  candidateQueries(scenario).map((q) => ({ id: q.id, tag: q.tag ?? 'untagged', query: queryString(q), microversion: q.microversion }));
