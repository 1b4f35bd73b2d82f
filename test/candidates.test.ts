// Allocation candidates beyond the golden answers: the amounts Placement 8.0.0 gets wrong (computed by
// hand), the structured request, limits and truncation, change detection, responsiveness, statements.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { harness, tempDbFile, type Harness } from './helpers.js';
import { CANDIDATES_SELECTION, canonical, normalize } from './candidates-support.js';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { setAllocations } from '../src/modules/allocations/allocations.service.js';
import { setProviderTraits } from '../src/modules/traits/traits.service.js';
import { parsePlacementQuery, searchCandidates, searchPlacementQuery } from '../src/modules/candidates/candidates.service.js';

const uuid = (prefix: string, n: number) => `${prefix}-0000-0000-0000-${String(n).padStart(12, '0')}`;
const CN = uuid('c0000000', 5);
const N0 = uuid('d0000000', 50);
const N1 = uuid('d0000000', 51);
const FLAT = uuid('c0000000', 4);

/** A NUMA host (memory on the root, VCPU on two nodes) and a flat host. */
const numaCloud = (vcpu = { [N0]: 4, [N1]: 4 }, flat: unknown = { total: 8 }) => ({
  providers: [
    { uuid: CN, name: 'cn5', parent: null },
    { uuid: N0, name: 'cn5_numa0', parent: CN },
    { uuid: N1, name: 'cn5_numa1', parent: CN },
    { uuid: FLAT, name: 'cn4', parent: null },
  ],
  inventories: { [CN]: { MEMORY_MB: 2048 }, [N0]: { VCPU: vcpu[N0] }, [N1]: { VCPU: vcpu[N1] }, [FLAT]: { VCPU: flat, MEMORY_MB: 4096 } },
  traits: { [CN]: ['HW_CPU_X86_AVX2'] },
});

const PLACEMENT = `query($query: String!, $microversion: String) { placementCandidates(query: $query, microversion: $microversion) { ${CANDIDATES_SELECTION} } }`;
const STRUCTURED = `query($request: CandidatesRequest!) { candidates(request: $request) { ${CANDIDATES_SELECTION} } }`;

async function placement(h: Harness, query: string, microversion = '1.39') {
  return (await h.gql(PLACEMENT, { query, microversion })).data.placementCandidates;
}

/** Allocation requests as { allocations, mappings }, in a fixed order. */
const requestsOf = (answer: any) => normalize(answer, 39).requests.map((r: string) => JSON.parse(r));
const sorted = (requests: unknown[]) => requests.map(canonical).sort().map((r) => JSON.parse(r));

describe('amounts of one class asked by the unsuffixed group and a numbered group (8.0.0 inflates them)', () => {
  it('adds 1 + 1 on one NUMA node, and gives each assignment its own request', async () => {
    const h = harness(numaCloud());
    const answer = await placement(h, `resources=VCPU:1&resources1=VCPU:1&in_tree=${CN}`);
    expect(requestsOf(answer)).toEqual(
      sorted([
        { allocations: { [N0]: { VCPU: 2 } }, mappings: { '': [N0], '1': [N0] } },
        { allocations: { [N0]: { VCPU: 1 }, [N1]: { VCPU: 1 } }, mappings: { '': [N0], '1': [N1] } },
        { allocations: { [N0]: { VCPU: 1 }, [N1]: { VCPU: 1 } }, mappings: { '': [N1], '1': [N0] } },
        { allocations: { [N1]: { VCPU: 2 } }, mappings: { '': [N1], '1': [N1] } },
      ]),
    );
    expect(answer.count).toBe(4);
  });

  it('drops the sums that exceed capacity (a node with room for one)', async () => {
    const h = harness(numaCloud({ [N0]: 1, [N1]: 4 }));
    const answer = await placement(h, `resources=VCPU:1&resources1=VCPU:1&in_tree=${CN}`);
    const allocations = requestsOf(answer).map((r: any) => r.allocations);
    expect(allocations).not.toContainEqual({ [N0]: { VCPU: 2 } });
    expect(allocations).toContainEqual({ [N1]: { VCPU: 2 } });
    expect(answer.count).toBe(3);
  });

  it('with isolate, puts the unsuffixed group and group 1 on the same root with 2, not 3', async () => {
    const h = harness(numaCloud());
    const answer = await placement(h, `resources=VCPU:1&resources1=VCPU:1&group_policy=isolate&in_tree=${FLAT}`);
    expect(requestsOf(answer)).toEqual([{ allocations: { [FLAT]: { VCPU: 2 } }, mappings: { '': [FLAT], '1': [FLAT] } }]);
  });

  it('refuses a sum above max_unit', async () => {
    const h = harness(numaCloud(undefined, { total: 8, max_unit: 1 }));
    const answer = await placement(h, `resources=VCPU:1&resources1=VCPU:1&group_policy=none&in_tree=${FLAT}`);
    expect(answer.count).toBe(0);
  });
});

describe('the structured request', () => {
  const scenario = JSON.parse(readFileSync(new URL('./golden/generated/seed3_size100.scenario.json', import.meta.url), 'utf8'));
  const results = JSON.parse(readFileSync(new URL('./golden/generated/seed3_size100.results.json', import.meta.url), 'utf8')).results;
  const sample = results.filter((r: any) => r.kind === 'allocation_candidates' && r.microversion === '1.39' && r.status === 200);

  it('answers as the same query string does', async () => {
    const h = harness(scenario);
    expect(sample.length).toBeGreaterThan(15);
    for (const result of sample) {
      const request = parsePlacementQuery(result.query, '1.39');
      const structured = (await h.gql(STRUCTURED, { request })).data.candidates;
      const fromQuery = await placement(h, result.query);
      expect(structured.__typename).toBe('Candidates');
      const limited = request.limit != null;
      expect(normalize(structured, 39).count, result.id).toBe(normalize(fromQuery, 39).count);
      if (!limited) expect(normalize(structured, 39), result.id).toEqual(normalize(fromQuery, 39));
    }
  });

  it("refuses what Placement refuses, with Placement's messages", async () => {
    const h = harness(numaCloud());
    const ask = async (request: unknown) => (await h.gql(STRUCTURED, { request })).data.candidates;
    const vcpu = [{ resourceClass: 'VCPU', amount: 1 }];
    expect(await ask({ groups: [{ resources: [{ resourceClass: 'VCPU', amount: 0 }] }] })).toMatchObject({
      __typename: 'RequestError',
      status: 400,
      message: 'Requested resource VCPU requires amount >= 1. Got: 0.',
    });
    expect(await ask({ groups: [{ resources: vcpu, required: ['HW_CPU_X86_AVX2'], forbidden: ['HW_CPU_X86_AVX2'] }] })).toMatchObject({
      message: 'Conflicting required and forbidden traits found in the following traits keys: required: (HW_CPU_X86_AVX2)',
    });
    expect(await ask({ groups: [{ suffix: '1', resources: vcpu }, { suffix: '2', resources: vcpu }] })).toMatchObject({
      message: 'The "group_policy" parameter is required when specifying more than one "resources{N}" parameter.',
    });
    expect(await ask({ groups: [{ resources: vcpu, required: ['CUSTOM_NOPE'] }] })).toMatchObject({ message: 'No such trait(s): CUSTOM_NOPE.' });
    expect(await ask({ groups: [{ resources: [{ resourceClass: 'CUSTOM_NOPE', amount: 1 }] }] })).toMatchObject({
      message: 'Invalid resource class in resources parameter: No such resource class CUSTOM_NOPE.',
    });
    expect(await ask({ groups: [{ suffix: '1', resources: vcpu }, { suffix: '1', resources: vcpu }], groupPolicy: 'NONE' })).toMatchObject({ status: 400 });
    expect(await ask({ groups: [{ suffix: 'bad suffix', resources: vcpu }] })).toMatchObject({ status: 400 });
    expect(await ask({ groups: [{ suffix: '_X', required: ['HW_CPU_X86_AVX2'] }, { resources: vcpu }] })).toMatchObject({
      message: "Resourceless suffixed group request should be specified in `same_subtree` query param: bad group(s) - ['_X'].",
    });
  });
});

describe('placementCandidates microversions', () => {
  it('answers 404 below 1.10, 406 above 1.39 and 400 for a malformed version, as Placement', async () => {
    const h = harness(numaCloud());
    expect(await placement(h, 'resources=VCPU:1', '1.8')).toMatchObject({ status: 404, message: 'The resource could not be found.' });
    expect(await placement(h, 'resources=VCPU:1', '1.40')).toMatchObject({ status: 406, message: expect.stringContaining('Unacceptable version header: 1.40') });
    expect(await placement(h, 'resources=VCPU:1', 'one')).toMatchObject({ status: 400 });
    expect(await placement(h, 'resources=VCPU:1', 'latest')).toMatchObject({ __typename: 'Candidates', count: 3 });
  });

  it('is blind to nested providers before 1.29 (no request takes from two providers of one tree)', async () => {
    const h = harness(numaCloud());
    // VCPU from a NUMA node and memory from its root: two providers of one tree.
    expect((await placement(h, 'resources=VCPU:1,MEMORY_MB:1', '1.29')).count).toBe(3);
    const old = await placement(h, 'resources=VCPU:1,MEMORY_MB:1', '1.28');
    expect(normalize(old, 28).requests).toEqual([canonical({ [FLAT]: { MEMORY_MB: 1, VCPU: 1 } })]);
    expect(old.providerSummaries.map((s: any) => s.provider.uuid)).toEqual([FLAT]);
    expect((await placement(h, 'resources=VCPU:1', '1.28')).count).toBe(3);
  });
});

describe('limit and the maximum number of candidates', () => {
  it('returns min(limit, all) real candidates and the summaries of their trees only', async () => {
    const h = harness(numaCloud());
    const all = await placement(h, 'resources=VCPU:1');
    const limited = await placement(h, 'resources=VCPU:1&limit=1');
    expect(limited.count).toBe(1);
    expect(requestsOf(all)).toContainEqual(requestsOf(limited)[0]);
    const roots = new Set(limited.allocationRequests[0].allocations.map((a: any) => a.provider.uuid === FLAT ? FLAT : CN));
    expect(new Set(limited.providerSummaries.map((s: any) => s.rootProviderUuid))).toEqual(roots);
  });

  it('answers truncated when the search reaches the configured maximum', async () => {
    const db = openDatabase(tempDbFile());
    importSnapshot(db, numaCloud());
    const found = await searchPlacementQuery(db, 'resources=VCPU:1', { maxCandidates: 2 });
    expect(found).toMatchObject({ kind: 'candidates', count: 2, truncated: true });
    expect(await searchPlacementQuery(db, 'resources=VCPU:1&limit=2', { maxCandidates: 2 })).toMatchObject({ count: 2, truncated: false });
    expect(await searchPlacementQuery(db, 'resources=VCPU:1', { maxCandidates: 3 })).toMatchObject({ count: 3, truncated: false });
    const yoga = createServer({ db, maskErrors: false, limits: { maxCandidates: 1 } });
    const response = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ placementCandidates(query: "resources=VCPU:1") { ... on Candidates { count truncated } } }' }),
    });
    expect(((await response.json()) as any).data.placementCandidates).toEqual({ count: 1, truncated: true });
  });
});

describe('answers follow the data', () => {
  it('sees allocations, inventories and traits written after an earlier search', async () => {
    const h = harness(numaCloud());
    expect((await placement(h, 'resources=VCPU:8')).count).toBe(1);
    setAllocations(h.db, {
      consumerUuid: uuid('e0000000', 1),
      consumerGeneration: null,
      projectId: 'p',
      userId: 'u',
      allocations: [{ providerUuid: FLAT, resources: [{ resourceClass: 'VCPU', amount: 1 }] }],
    });
    expect((await placement(h, 'resources=VCPU:8')).count).toBe(0);
    const summary = (await placement(h, 'resources=VCPU:1')).providerSummaries.find((s: any) => s.provider.uuid === FLAT);
    expect(summary.resources).toContainEqual({ resourceClass: 'VCPU', capacity: 8, used: 1 });

    // Another connection writes: the search sees it too.
    const other = openDatabase(h.db.file);
    importSnapshot(other, { providers: [{ uuid: uuid('c0000000', 9), name: 'big', parent: null }], inventories: { [uuid('c0000000', 9)]: { VCPU: 64 } } });
    other.close();
    expect((await placement(h, 'resources=VCPU:8')).count).toBe(1);
  });

  it('keeps traits and trees across allocation writes, and sees the next change of traits', async () => {
    const h = harness(numaCloud());
    const avx = 'resources=VCPU:1,MEMORY_MB:1&required=HW_CPU_X86_AVX2';
    const trees = async (query: string) => [...new Set((await placement(h, query)).providerSummaries.map((s: any) => s.rootProviderUuid))].sort();
    expect(await trees(avx)).toEqual([CN]);
    const claim = (n: number, generation: number | null) =>
      setAllocations(h.db, {
        consumerUuid: uuid('e0000000', 2),
        consumerGeneration: generation,
        projectId: 'p',
        userId: 'u',
        allocations: [{ providerUuid: N0, resources: [{ resourceClass: 'VCPU', amount: n }] }],
      });
    const fourOn = async () => (await placement(h, 'resources=VCPU:4')).allocationRequests.map((r: any) => r.allocations[0].provider.uuid).sort();
    expect(await fourOn()).toEqual([N0, N1, FLAT].sort());
    claim(1, null);
    expect(await fourOn()).toEqual([N1, FLAT].sort());
    const summaries = `{ placementCandidates(query: "${avx}") { ... on Candidates { providerSummaries { provider { uuid generation } resources { resourceClass capacity used } } } } }`;
    const after = (await h.gql(summaries)).data.placementCandidates.providerSummaries.find((s: any) => s.provider.uuid === N0);
    expect(after.resources).toContainEqual({ resourceClass: 'VCPU', capacity: 4, used: 1 });
    expect(after.provider.generation).toBe(1);
    // A change of traits after an allocation-only change is seen, in this connection and from another.
    const flat = (await h.gql(`{ resourceProvider(uuid: "${FLAT}") { generation } }`)).data.resourceProvider;
    setProviderTraits(h.db, { providerUuid: FLAT, generation: flat.generation, traits: ['HW_CPU_X86_AVX2'] });
    expect(await trees(avx)).toEqual([CN, FLAT].sort());
    claim(2, 1);
    const other = openDatabase(h.db.file);
    setProviderTraits(other, { providerUuid: FLAT, generation: flat.generation + 1, traits: [] });
    other.close();
    expect(await trees(avx)).toEqual([CN]);
  });
});

describe('a large search does not stall the server', () => {
  it('answers a small request while a large search runs', async () => {
    // One host with 80 NUMA nodes: 6,400 ways to take VCPU and MEMORY_MB from two of them.
    const root = uuid('c0000000', 1);
    const nodes = Array.from({ length: 80 }, (_, i) => uuid('d0000000', i));
    const h = harness({
      providers: [{ uuid: root, name: 'wide', parent: null }, ...nodes.map((u, i) => ({ uuid: u, name: `wide_${i}`, parent: root }))],
      inventories: Object.fromEntries(nodes.map((u) => [u, { VCPU: 8, MEMORY_MB: 1024 }])),
    });
    const finished: string[] = [];
    const big = placement(h, 'resources=VCPU:1,MEMORY_MB:1').then((a) => (finished.push('big'), a));
    await new Promise((resolve) => setImmediate(resolve));
    const small = h.gql('{ __typename }').then(() => finished.push('small'));
    const [answer] = await Promise.all([big, small]);
    expect(answer.count).toBe(6400);
    expect(finished).toEqual(['small', 'big']);
  });
});

describe('database reads', () => {
  const scenario = (size: number) => JSON.parse(readFileSync(new URL(`./golden/generated/seed${size === 50 ? 2 : 3}_size${size}.scenario.json`, import.meta.url), 'utf8'));
  const query = 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10&required=!COMPUTE_STATUS_DISABLED&member_of=in:' + '00000000-0000-0000-0000-000000000000,00000000-0000-0000-0000-000000000001';

  it('are bounded by the request, not by the number of providers or trees', async () => {
    for (const size of [50, 100]) {
      const h = harness(scenario(size));
      const before = h.db.statements.count;
      const answer = await placement(h, 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10&required=!COMPUTE_STATUS_DISABLED');
      expect(answer.count).toBeGreaterThan(size);
      // The first search reads what it needs whole (names, each class, trait, aggregate, the trees); later ones reuse it.
      expect(h.db.statements.count - before).toBeLessThanOrEqual(16);
      const again = h.db.statements.count;
      await placement(h, query);
      expect(h.db.statements.count - again).toBeLessThanOrEqual(3);
    }
  });
});

describe('searchCandidates (the service)', () => {
  it('takes the structured request and answers with providers and amounts', async () => {
    const db = openDatabase(tempDbFile());
    importSnapshot(db, numaCloud());
    const found = await searchCandidates(db, { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 2 }, { resourceClass: 'MEMORY_MB', amount: 3000 }] }] });
    expect(found.count).toBe(1);
    const [request] = found.allocationRequests;
    expect(request.allocations.map((a) => [a.provider.uuid, a.resources])).toEqual([
      [FLAT, [{ resourceClass: 'VCPU', amount: 2 }, { resourceClass: 'MEMORY_MB', amount: 3000 }]],
    ]);
    expect(request.mappings.map((m) => [m.suffix, m.providers.map((p) => p.uuid)])).toEqual([['', [FLAT]]]);
    expect(found.providerSummaries.map((s) => s.provider.uuid)).toEqual([FLAT]);
    expect(JSON.parse(JSON.stringify(request)).allocations[0].provider.uuid).toBe(FLAT);
  });
});

describe('explainCandidates', () => {
  const CN1 = uuid('c0000000', 1);
  const CN2 = uuid('c0000000', 2);
  const CN3 = uuid('c0000000', 3);
  const NUMA = uuid('d0000000', 30);
  const AGG_A = uuid('a0000000', 10);
  const AGG_B = uuid('a0000000', 11);
  const cloud = {
    providers: [
      { uuid: CN1, name: 'cn1', parent: null },
      { uuid: CN2, name: 'cn2', parent: null },
      { uuid: CN3, name: 'cn3', parent: null },
      { uuid: NUMA, name: 'cn3_numa0', parent: CN3 },
    ],
    inventories: {
      [CN1]: { VCPU: 8, MEMORY_MB: 4096 },
      [CN2]: { VCPU: 16, MEMORY_MB: 8192 },
      [NUMA]: { VCPU: { total: 8, max_unit: 2 }, MEMORY_MB: 2048 },
    },
    traits: { [CN1]: ['HW_CPU_X86_AVX2'], [CN2]: ['HW_CPU_X86_AVX2', 'COMPUTE_STATUS_DISABLED'], [CN3]: ['HW_CPU_X86_AVX2'] },
    aggregates: { [CN1]: [AGG_A], [CN2]: [AGG_B], [CN3]: [AGG_A] },
    allocations: { [uuid('e0000000', 1)]: { [CN1]: { VCPU: 6 } } },
  };
  // Literal page sizes: the server's cost limit counts a variable `first` as the largest page.
  const EXPLAIN = (page = 'first: 3') => `query($request: CandidatesRequest!, $provider: UUID, $after: String) {
    explainCandidates(request: $request, provider: $provider, ${page}, after: $after) { ... on CandidatesExplanation {
      totalCount candidateTrees reasons { kind group trees example }
      pageInfo { hasNextPage endCursor }
      nodes {
        root { name } candidate allocationRequests
        problems { kind message group provider { name } resourceClass amount capacity used traits aggregates }
        groups { suffix satisfied choices problems { kind } providers { provider { name } usable resources { resourceClass amount capacity used fits } } }
      }
    } }
  }`;
  const vm = (amount: number) => ({
    groups: [{ resources: [{ resourceClass: 'VCPU', amount }, { resourceClass: 'MEMORY_MB', amount: 1024 }], required: ['HW_CPU_X86_AVX2'], memberOf: [[AGG_A]] }],
    rootForbidden: ['COMPUTE_STATUS_DISABLED'],
  });

  it('tells, for a request that finds nothing, why each tree is out, with the numbers', async () => {
    const h = harness(cloud);
    expect((await h.gql(STRUCTURED, { request: vm(4) })).data.candidates.count).toBe(0);
    const { explainCandidates: e } = (await h.gql(EXPLAIN(), { request: vm(4) })).data;
    expect(e).toMatchObject({ totalCount: 3, candidateTrees: 0 });
    const [cn1, cn2, cn3] = e.nodes;
    expect(cn1.problems).toEqual([
      expect.objectContaining({ kind: 'CAPACITY_EXCEEDED', group: '', provider: { name: 'cn1' }, resourceClass: 'VCPU', amount: 4, capacity: 8, used: 6, message: 'cn1: VCPU used 6 + requested 4 > capacity 8 (2 free).' }),
    ]);
    expect(cn2.problems.map((p: any) => p.kind).sort()).toEqual(['NOT_IN_AGGREGATE', 'ROOT_FORBIDDEN_PRESENT']);
    expect(cn2.problems.find((p: any) => p.kind === 'NOT_IN_AGGREGATE')).toMatchObject({ aggregates: [AGG_A], provider: { name: 'cn2' } });
    expect(cn2.problems.find((p: any) => p.kind === 'ROOT_FORBIDDEN_PRESENT')).toMatchObject({ traits: ['COMPUTE_STATUS_DISABLED'] });
    expect(cn3.problems.map((p: any) => p.kind)).toEqual(['ABOVE_MAX_UNIT', 'REQUIRED_TRAIT_MISSING']);
    expect(cn3.problems[0].message).toBe('cn3_numa0: VCPU amount 4 is above max_unit 2.');
    expect(cn3.problems[1].message).toContain('the root cn3 has HW_CPU_X86_AVX2 but gives none of the resources');
    expect(cn3.groups[0].providers).toEqual([
      {
        provider: { name: 'cn3_numa0' },
        usable: true,
        resources: [
          { resourceClass: 'VCPU', amount: 4, capacity: 8, used: 0, fits: false },
          { resourceClass: 'MEMORY_MB', amount: 1024, capacity: 2048, used: 0, fits: true },
        ],
      },
    ]);
    expect(e.reasons.map((r: any) => [r.kind, r.trees]).sort()).toEqual(
      [['ABOVE_MAX_UNIT', 1], ['CAPACITY_EXCEEDED', 1], ['NOT_IN_AGGREGATE', 1], ['REQUIRED_TRAIT_MISSING', 1], ['ROOT_FORBIDDEN_PRESENT', 1]].sort(),
    );
  });

  it('counts the candidates of a tree that is one, and pages through trees', async () => {
    const h = harness(cloud);
    const { explainCandidates: e } = (await h.gql(EXPLAIN('first: 1'), { request: vm(2) })).data;
    expect(e).toMatchObject({ totalCount: 3, candidateTrees: 1, pageInfo: { hasNextPage: true } });
    expect(e.nodes).toMatchObject([{ root: { name: 'cn1' }, candidate: true, allocationRequests: 1, problems: [] }]);
    const next = (await h.gql(EXPLAIN('first: 3'), { request: vm(2), after: e.pageInfo.endCursor })).data.explainCandidates;
    expect(next.nodes.map((n: any) => n.root.name)).toEqual(['cn2', 'cn3']);
    expect(next.nodes[1].problems.map((p: any) => p.kind)).toEqual(['REQUIRED_TRAIT_MISSING']);
  });

  it('explains the tree of one provider, and what combining groups rules out', async () => {
    const h = harness(cloud);
    const request = {
      groups: [
        { suffix: '1', resources: [{ resourceClass: 'VCPU', amount: 1 }] },
        { suffix: '2', resources: [{ resourceClass: 'VCPU', amount: 1 }] },
      ],
      groupPolicy: 'ISOLATE',
    };
    const { explainCandidates: e } = (await h.gql(EXPLAIN(), { request, provider: NUMA })).data;
    expect(e.totalCount).toBe(1);
    expect(e.nodes[0]).toMatchObject({ root: { name: 'cn3' }, candidate: false, groups: [{ satisfied: true, choices: 1 }, { satisfied: true, choices: 1 }] });
    expect(e.nodes[0].problems.map((p: any) => p.kind)).toEqual(['ISOLATE']);
  });

  it("answers a request Placement refuses as RequestError, as candidates does, and an unknown provider as its 404", async () => {
    const h = harness(cloud);
    const REFUSED = `query($request: CandidatesRequest!, $provider: UUID) {
      explainCandidates(request: $request, provider: $provider) { __typename ... on RequestError { status message } } }`;
    const bad = { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }], required: ['CUSTOM_NOPE'] }] };
    expect((await h.gql(REFUSED, { request: bad })).data.explainCandidates).toEqual({ __typename: 'RequestError', status: 400, message: 'No such trait(s): CUSTOM_NOPE.' });
    expect((await h.gql(STRUCTURED, { request: bad })).data.candidates).toMatchObject({ __typename: 'RequestError', status: 400, message: 'No such trait(s): CUSTOM_NOPE.' });
    const unknown = (await h.gql(REFUSED, { request: vm(1), provider: uuid('c0000000', 99) })).data.explainCandidates;
    expect(unknown).toMatchObject({ __typename: 'RequestError', status: 404 });
  });
});

describe('wide trees with many suffixed groups', () => {
  // One host with 30 NICs: four isolated VF groups have 30 × 29 × 28 × 27 = 657,720 assignments.
  const host = uuid('c0000000', 1);
  const nics = Array.from({ length: 30 }, (_, i) => uuid('0f000000', i));
  const cloud = {
    providers: [{ uuid: host, name: 'host', parent: null }, ...nics.map((u, i) => ({ uuid: u, name: `nic${i}`, parent: host }))],
    inventories: { [host]: { VCPU: 8 }, ...Object.fromEntries(nics.map((u) => [u, { SRIOV_NET_VF: 8 }])) },
  };
  const query = 'resources=VCPU:1&resources1=SRIOV_NET_VF:1&resources2=SRIOV_NET_VF:1&resources3=SRIOV_NET_VF:1&resources4=SRIOV_NET_VF:1&group_policy=isolate';

  it('stops at the limit, and at the maximum with truncated', async () => {
    const db = openDatabase(tempDbFile());
    importSnapshot(db, cloud);
    const limited = await searchPlacementQuery(db, `${query}&limit=3`);
    expect(limited).toMatchObject({ count: 3, truncated: false });
    for (const request of limited.allocationRequests) {
      const vfs = request.mappings.filter((m) => m.suffix !== '').map((m) => m.providers[0].uuid);
      expect(new Set(vfs).size).toBe(4);
    }
    expect(await searchPlacementQuery(db, query, { maxCandidates: 1000 })).toMatchObject({ count: 1000, truncated: true });
  });
});
