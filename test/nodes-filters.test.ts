// The node filters (traits, notTraits, traitsAny, notTraitsAny, resourceClass, provisionState) against a
// brute-force filter over a generated set of nodes: seeded random nodes, many random filter combinations.
import { beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

/** mulberry32: a small seeded generator, so that every run sees the same nodes and filters. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TRAIT_POOL = [
  'HW_CPU_X86_AVX2',
  'HW_CPU_X86_SSE42',
  'STORAGE_DISK_SSD',
  'STORAGE_DISK_HDD',
  'COMPUTE_NODE',
  'HW_NIC_SRIOV',
  'CUSTOM_RAID0',
  'CUSTOM_RAID1',
  'CUSTOM_RAID5',
  'CUSTOM_GPU_A100',
  'CUSTOM_PROJECT_B',
  'CUSTOM_GENERAL_USE',
];
/** In filters only: well-formed, on no node. */
const ABSENT = ['CUSTOM_NOWHERE', 'HW_CPU_X86_AVX512F'];
const CLASSES = ['baremetal-gold', 'baremetal.silver', 'bm_bronze'];
const STATES = ['ENROLL', 'MANAGEABLE', 'AVAILABLE', 'ACTIVE'] as const;
const NODE_COUNT = 300;
const FILTER_COUNT = 400;

interface ModelNode {
  uuid: string;
  traits: Set<string>;
  resourceClass: string;
  provisionState: (typeof STATES)[number];
}

interface Filter {
  traits?: string[];
  notTraits?: string[];
  traitsAny?: string[];
  notTraitsAny?: string[];
  resourceClass?: string;
  provisionState?: string;
}

/** The API-WG tags semantics, one trait at a time. */
function matches(node: ModelNode, f: Filter): boolean {
  const has = (t: string) => node.traits.has(t);
  return (
    (f.traits === undefined || f.traits.every(has)) &&
    (f.notTraits === undefined || !f.notTraits.some(has)) &&
    (f.traitsAny === undefined || f.traitsAny.some(has)) &&
    (f.notTraitsAny === undefined || f.notTraitsAny.some((t) => !has(t))) &&
    (f.resourceClass === undefined || node.resourceClass === f.resourceClass) &&
    (f.provisionState === undefined || node.provisionState === f.provisionState)
  );
}

const QUERY = `query($filter: BaremetalNodeFilter, $first: Int, $after: String) {
  baremetalNodes(filter: $filter, first: $first, after: $after) { totalCount nodes { uuid } pageInfo { hasNextPage endCursor } } }`;

describe('node filters against brute force', () => {
  const rand = random(20240604);
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)];
  const sample = (items: readonly string[], max: number) => {
    const n = Math.floor(rand() * (max + 1));
    return Array.from({ length: n }, () => pick(items));
  };
  let h: Harness;
  const model: ModelNode[] = [];

  beforeAll(async () => {
    h = harness();
    for (let n = 0; n < NODE_COUNT; n++) {
      // Some traits common, some rare, so that every filter splits the nodes.
      const traits = TRAIT_POOL.filter((_, k) => rand() < 0.15 + (k % 4) * 0.15);
      const resourceClass = pick(CLASSES);
      const state = pick(STATES);
      const { data } = await h.gql(
        `mutation($input: CreateNodeInput!) { createNode(input: $input) { __typename ... on BaremetalNodePayload { node { uuid } } } }`,
        { input: { name: `node-${n}`, resourceClass, traits, provisionState: state === 'ACTIVE' ? 'AVAILABLE' : state } },
      );
      const uuid = data.createNode.node.uuid;
      if (state === 'ACTIVE') {
        const deployed = await h.gql(`mutation($input: DeployNodeInput!) { deployNode(input: $input) { __typename } }`, {
          input: { node: uuid, instanceTraits: traits.slice(0, 2), projectId: 'p', userId: 'u' },
        });
        expect(deployed.data.deployNode.__typename).toBe('BaremetalNodePayload');
      }
      model.push({ uuid, traits: new Set(traits), resourceClass, provisionState: state });
    }
  });

  const randomFilter = (): Filter => {
    const f: Filter = {};
    const pool = [...TRAIT_POOL, ...ABSENT];
    for (const key of ['traits', 'notTraits', 'traitsAny', 'notTraitsAny'] as const) if (rand() < 0.5) f[key] = sample(pool, 4);
    if (rand() < 0.2) f.resourceClass = pick(CLASSES);
    if (rand() < 0.2) f.provisionState = pick(STATES);
    return f;
  };

  it('the generated nodes are what the service holds, and their providers carry their traits', async () => {
    const { data } = await h.gql(`{ baremetalNodes(first: 1000) { totalCount nodes { uuid traits provisionState resourceClass provider { traits } } } }`);
    expect(data.baremetalNodes.totalCount).toBe(NODE_COUNT);
    expect(data.baremetalNodes.nodes).toEqual(
      model.map((m) => ({ uuid: m.uuid, traits: [...m.traits].sort(), provisionState: m.provisionState, resourceClass: m.resourceClass, provider: { traits: [...m.traits].sort() } })),
    );
  });

  it(`${FILTER_COUNT} random filter combinations give the brute-force answer, in creation order`, async () => {
    const sizes = new Set<number>();
    for (let n = 0; n < FILTER_COUNT; n++) {
      const filter = randomFilter();
      const expected = model.filter((node) => matches(node, filter)).map((node) => node.uuid);
      const { data } = await h.gql(QUERY, { filter, first: 1000 });
      expect({ filter, uuids: data.baremetalNodes.nodes.map((x: any) => x.uuid) }).toEqual({ filter, uuids: expected });
      expect(data.baremetalNodes.totalCount).toBe(expected.length);
      sizes.add(expected.length);
    }
    // The combinations were selective: empty, partial and large answers alike.
    expect(sizes.has(0)).toBe(true);
    expect([...sizes].filter((s) => s > 0 && s < NODE_COUNT / 2).length).toBeGreaterThan(20);
    expect([...sizes].some((s) => s >= NODE_COUNT / 2)).toBe(true);
  });

  it('each trait filter alone, on every trait, matches the brute force', async () => {
    for (const key of ['traits', 'notTraits', 'traitsAny', 'notTraitsAny'] as const) {
      for (const trait of [...TRAIT_POOL, ...ABSENT]) {
        const filter = { [key]: [trait] };
        const expected = model.filter((node) => matches(node, filter)).length;
        const { data } = await h.gql(QUERY, { filter, first: 0 });
        expect({ filter, count: data.baremetalNodes.totalCount }).toEqual({ filter, count: expected });
      }
    }
  });

  it('the two negative filters differ: notTraits = has none, notTraitsAny = lacks at least one', async () => {
    const pair = ['CUSTOM_RAID1', 'STORAGE_DISK_HDD'];
    const count = async (filter: Filter) => (await h.gql(QUERY, { filter, first: 0 })).data.baremetalNodes.totalCount;
    const hasNone = model.filter((m) => !pair.some((t) => m.traits.has(t))).length;
    const lacksOne = model.filter((m) => pair.some((t) => !m.traits.has(t))).length;
    expect(hasNone).toBeLessThan(lacksOne);
    expect(await count({ notTraits: pair })).toBe(hasNone);
    expect(await count({ notTraitsAny: pair })).toBe(lacksOne);
    // Complements: traits (has all) + notTraitsAny (lacks one) = every node; traitsAny + notTraits likewise.
    expect((await count({ traits: pair })) + lacksOne).toBe(NODE_COUNT);
    expect((await count({ traitsAny: pair })) + hasNone).toBe(NODE_COUNT);
  });

  it('empty lists are taken literally, and a contradiction is an empty answer, not an error', async () => {
    const count = async (filter: Filter) => (await h.gql(QUERY, { filter, first: 0 })).data.baremetalNodes.totalCount;
    expect(await count({ traits: [], notTraits: [] })).toBe(NODE_COUNT);
    expect(await count({ traitsAny: [] })).toBe(0);
    expect(await count({ notTraitsAny: [] })).toBe(0);
    expect(await count({ traits: ['CUSTOM_RAID5'], notTraits: ['CUSTOM_RAID5'] })).toBe(0);
  });

  it('paging through a filtered listing gives the brute-force answer page by page', async () => {
    for (let n = 0; n < 10; n++) {
      const filter = randomFilter();
      const expected = model.filter((node) => matches(node, filter)).map((node) => node.uuid);
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const { data }: { data: any } = await h.gql(QUERY, { filter, first: 7, after });
        expect(data.baremetalNodes.totalCount).toBe(expected.length);
        seen.push(...data.baremetalNodes.nodes.map((x: any) => x.uuid));
        if (!data.baremetalNodes.pageInfo.hasNextPage) break;
        after = data.baremetalNodes.pageInfo.endCursor;
      }
      expect(seen).toEqual(expected);
    }
  });

  it('one statement lists a filtered page, whatever the size of the lists or the page', async () => {
    const small = await h.countStatements(QUERY, { filter: { traits: ['CUSTOM_RAID0'] }, first: 3 });
    const large = await h.countStatements(QUERY, { filter: { traits: TRAIT_POOL.slice(0, 2), notTraits: TRAIT_POOL.slice(2, 6), traitsAny: TRAIT_POOL, notTraitsAny: ABSENT }, first: 300 });
    expect(small).toBe(1);
    expect(large).toBe(1);
  });
});
