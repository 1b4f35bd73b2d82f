// Candidate answers written straight to JSON (src/server/answer-json.ts) must be byte for byte what
// ordinary GraphQL execution answers, and every operation the writer does not handle must still be
// answered (by execution) exactly as GraphQL specifies.
import { execute, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createContext } from '../src/context.js';
import { getSchema } from '../src/schema.js';
import { CANDIDATE_ANSWER_JSON } from '../src/modules/candidates/candidates.graphql.js';
import { searchPlacementQuery } from '../src/modules/candidates/index.js';
import { CandidateIndex } from '../src/modules/candidates/candidates.index.js';
import { planAnswer } from '../src/server/answer-json.js';
import { demoCloud, harness } from './helpers.js';

const h = harness(demoCloud());
const schema = getSchema();

/** What graphql-js answers, serialized as yoga serializes it. */
async function executed(query: string, variables: Record<string, unknown> = {}) {
  return JSON.stringify(await execute({ schema, document: parse(query), variableValues: variables, contextValue: createContext(h.db) }));
}

async function served(query: string, variables: Record<string, unknown> = {}) {
  const response = await h.yoga.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return response.text();
}

const writable = (query: string) => planAnswer(schema, parse(query), undefined, CANDIDATE_ANSWER_JSON) !== null;

const FULL = `query($query: String!) {
  placementCandidates(query: $query) {
    __typename
    ... on RequestError { status message }
    ... on Candidates {
      count truncated
      allocationRequests { allocations { provider { uuid name } resources { resourceClass amount } } mappings { suffix providers { uuid } } }
      providerSummaries { provider { uuid } parentProviderUuid rootProviderUuid resources { resourceClass capacity used } traits }
    }
  }
}`;

const cases: [string, string, Record<string, unknown>][] = [
  ['the full answer', FULL, { query: 'resources=VCPU:1,MEMORY_MB:512' }],
  ['an answer with sharing providers and granular groups', FULL, { query: 'resources=VCPU:1,DISK_GB:10&resources1=SRIOV_NET_VF:1&group_policy=isolate' }],
  ['a refused request', FULL, { query: 'resources=VCPU:0' }],
  ['an empty answer', FULL, { query: 'resources=VCPU:100000' }],
  [
    'aliases, named fragments, a repeated field and __typename at the root',
    `fragment Amount on ResourceAmount { rc: resourceClass amount }
     fragment Found on Candidates { n: count allocationRequests { allocations { resources { ...Amount } } } }
     query($query: String!) {
       __typename
       first: placementCandidates(query: $query) { ... on Candidates { ...Found count allocationRequests { allocations { provider { uuid } } } } }
       second: placementCandidates(query: "resources=DISK_GB:10") { ... on CandidatesResult { __typename } ... on Candidates { count } }
     }`,
    { query: 'resources=VCPU:2&limit=3' },
  ],
  [
    'the natural selection: a provider with its parent and root',
    `query($query: String!) { placementCandidates(query: $query) { ... on Candidates { count
      allocationRequests { allocations { provider { uuid name parent { uuid name } root { uuid name } } resources { resourceClass amount } } }
      providerSummaries { provider { uuid name generation parent { uuid name } root { uuid name } } resources { resourceClass capacity used } traits } } } }`,
    { query: 'resources=VCPU:1,DISK_GB:10&resources1=SRIOV_NET_VF:1' },
  ],
  [
    'the structured request',
    `query($request: CandidatesRequest!) { candidates(request: $request) { ... on Candidates { count allocationRequests { mappings { suffix providers { name } } } } } }`,
    { request: { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }], required: ['HW_CPU_X86_AVX2'] }], limit: 5 } },
  ],
];

describe('candidate answers written as JSON', () => {
  for (const [name, query, variables] of cases) {
    it(`${name}: written directly, the same bytes as execution`, async () => {
      expect(writable(query)).toBe(true);
      const body = await served(query, variables);
      expect(JSON.parse(body).errors).toBeUndefined();
      expect(body).toBe(await executed(query, variables));
      // Written by the plan itself, not by execution after the writer gave up.
      const plan = planAnswer(schema, parse(query), undefined, CANDIDATE_ANSWER_JSON)!;
      expect((await plan.run(variables, createContext(h.db))).toString('utf8')).toBe(body);
    });
  }

  const executedCases: [string, string, Record<string, unknown>][] = [
    ['a resolver field below the answer', `{ placementCandidates(query: "resources=VCPU:1") { ... on Candidates { providerSummaries { provider { uuid parent { name } traits } } } } }`, {}],
    ['a directive', `query($on: Boolean!) { placementCandidates(query: "resources=VCPU:1") { ... on Candidates { count @include(if: $on) truncated } } }`, { on: false }],
    ['another root field', `{ placementCandidates(query: "resources=VCPU:1") { ... on Candidates { count } } resourceProviders(first: 2) { totalCount } }`, {}],
  ];
  for (const [name, query, variables] of executedCases) {
    it(`${name}: executed, the same answer`, async () => {
      expect(writable(query)).toBe(false);
      expect(JSON.parse(await served(query, variables))).toEqual(JSON.parse(await executed(query, variables)));
    });
  }

  it('requests and summaries keep the JSON of a few places at most, and answers of more documents stay exact', async () => {
    const selections = ['provider { uuid }', 'provider { name }', 'provider { uuid name }', 'resources { amount }', 'resources { resourceClass }', 'provider { generation }'];
    const documents = selections.map(
      (selection) => `{ placementCandidates(query: "resources=VCPU:1,MEMORY_MB:512") { ... on Candidates {
        allocationRequests { allocations { ${selection} } } providerSummaries { ${selection.startsWith('provider') ? selection : 'resources { used }'} } } } }`,
    );
    // Every tree read once into the index (a large answer does it): requests are then kept from one answer to the next.
    CandidateIndex.of(h.db).trees();
    // Each document three times in turn: from the second round on, the requests are kept and write from what they hold.
    for (let round = 0; round < 3; round++) for (const query of documents) expect(await served(query)).toBe(await executed(query));
    const found = await searchPlacementQuery(h.db, 'resources=VCPU:1,MEMORY_MB:512');
    if (found.kind !== 'candidates') throw new Error(found.kind);
    // Places and bytes in turn: at most four places each.
    const places = (kept: unknown) => ((kept as { answerJson?: unknown[] }).answerJson?.length ?? 0) / 2;
    for (const kept of [...found.allocationRequests, ...found.providerSummaries]) expect(places(kept)).toBeLessThanOrEqual(4);
    expect(found.allocationRequests.some((r) => places(r) > 0)).toBe(true);
  });

  it('a bad variable is reported as execution reports it', async () => {
    const body = JSON.parse(await served(FULL, { query: 12 }));
    expect(body.data).toBeUndefined();
    expect(body.errors[0].message).toMatch(/Variable "\$query" got invalid value 12/);
  });

  it('shared pieces are written from the current data: a change shows in the next answer', async () => {
    const query = `{ placementCandidates(query: "resources=VCPU:1") { ... on Candidates { providerSummaries { provider { uuid } resources { resourceClass used } } } } }`;
    const usedOf = (body: string, uuid: string) =>
      JSON.parse(body).data.placementCandidates.providerSummaries.find((s: any) => s.provider.uuid === uuid).resources.find((r: any) => r.resourceClass === 'VCPU').used;
    const uuid = '6a8f40e8-5319-5d5e-8a89-ecb6de64c990';
    const before = usedOf(await served(query), uuid);
    const consumer = 'f0000000-0000-0000-0000-00000000abcd';
    const set = await h.gql(
      `mutation($input: SetAllocationsInput!) { setAllocations(input: $input) { __typename } }`,
      { input: { consumerUuid: consumer, projectId: 'p', userId: 'u', consumerGeneration: null, allocations: [{ providerUuid: uuid, resources: [{ resourceClass: 'VCPU', amount: 2 }] }] } },
    );
    expect(set.data.setAllocations.__typename).not.toMatch(/Invalid|Conflict|NotFound|Exceeded/);
    expect(usedOf(await served(query), uuid)).toBe(before + 2);
  });
});
