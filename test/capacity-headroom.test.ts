// Headroom checked three ways on generated clouds: its counts against a brute-force search over the
// candidates the search lists, every plan applied with setAllocations in order, and no candidate left
// after an exact plan.
import { describe, expect, it } from 'vitest';
import { demoCloud, fixture, harness, type Harness } from './helpers.js';

/** A small seeded generator (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T,>(xs: readonly T[]) => xs[int(0, xs.length - 1)];
  return { next, int, pick };
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const AGG = '10000000-0000-4000-8000-000000000001';

/** A cloud of 1-3 trees: roots with or without inventories, NUMA-like children, step sizes and max units, maybe a sharing pool. */
function smallCloud(seed: number) {
  const r = random(seed);
  const providers: any[] = [];
  const inventories: Record<string, any> = {};
  const traits: Record<string, string[]> = {};
  const aggregates: Record<string, string[]> = {};
  let n = 0;
  const inv = (classes: string[]) => {
    const out: any = {};
    for (const rc of classes) {
      const step = r.pick([1, 1, 2]);
      out[rc] = { total: r.int(3, 12) * step, reserved: r.pick([0, 0, 1]) * step, step_size: step, max_unit: r.pick([2, 4, 8, 16]) * step, min_unit: step, allocation_ratio: r.pick([1, 1, 1.5]) };
    }
    return out;
  };
  const trees = r.int(1, 3);
  for (let t = 0; t < trees; t++) {
    const root = uuid(++n);
    providers.push({ uuid: root, name: `cn${t}`, parent: null });
    if (r.next() < 0.8) inventories[root] = inv(r.pick([['VCPU', 'MEMORY_MB'], ['VCPU'], ['MEMORY_MB', 'DISK_GB'], ['VCPU', 'MEMORY_MB', 'DISK_GB']]));
    if (r.next() < 0.7) aggregates[root] = [AGG];
    const children = r.int(0, 2);
    for (let c = 0; c < children; c++) {
      const child = uuid(++n);
      providers.push({ uuid: child, name: `cn${t}_numa${c}`, parent: root });
      inventories[child] = inv(r.pick([['VCPU', 'MEMORY_MB'], ['VCPU'], ['MEMORY_MB'], ['CUSTOM_NIC'], ['VCPU', 'CUSTOM_NIC']]));
      if (r.next() < 0.5) traits[child] = ['HW_CPU_X86_AVX2'];
    }
  }
  if (r.next() < 0.6) {
    const pool = uuid(++n);
    providers.push({ uuid: pool, name: 'pool', parent: null });
    inventories[pool] = { DISK_GB: { total: r.int(3, 10), max_unit: 8 } };
    traits[pool] = ['MISC_SHARES_VIA_AGGREGATE'];
    aggregates[pool] = [AGG];
  }
  return { providers, inventories, traits, aggregates, resource_classes: ["CUSTOM_NIC"] };
}

function smallRequest(seed: number) {
  const r = random(seed * 7919 + 1);
  const amount = () => r.pick([1, 1, 2, 3, 4]);
  const shape = r.int(0, 5);
  const res = (classes: string[]) => classes.map((resourceClass) => ({ resourceClass, amount: amount() }));
  switch (shape) {
    case 0:
      return { groups: [{ resources: res(['VCPU', 'MEMORY_MB']) }] };
    case 1:
      return { groups: [{ resources: res(['VCPU', 'DISK_GB']) }] };
    case 2:
      return { groups: [{ resources: res(['VCPU']) }, { suffix: '1', resources: res(['VCPU']) }] };
    case 3:
      return { groups: [{ suffix: '1', resources: res(['VCPU']) }, { suffix: '2', resources: res(['VCPU']) }], groupPolicy: 'ISOLATE' };
    case 4:
      return { groups: [{ resources: res(['MEMORY_MB']) }, { suffix: '1', resources: res(['VCPU']), required: ['HW_CPU_X86_AVX2'] }] };
    default:
      return {
        groups: [
          { suffix: '_c', resources: res(['VCPU']) },
          { suffix: '_n', resources: res(['CUSTOM_NIC']) },
        ],
        sameSubtree: [['_c', '_n']],
        groupPolicy: 'NONE',
      };
  }
}

const ALLOC = 'allocations { provider { uuid } resources { resourceClass amount } }';
const HEADROOM = `query($r: CandidatesRequest!) { headroom(request: $r) { fits atMost exact sharing plan { ${ALLOC} } } }`;
const CANDIDATES = `query($r: CandidatesRequest!) { candidates(request: $r) { ... on Candidates { count allocationRequests { ${ALLOC} } } ... on RequestError { message } } }`;

/** Free capacity per provider/class from the snapshot, with PUT's unit rules. */
function inventoryOf(snapshot: any) {
  const used = new Map<string, number>();
  for (const byRp of Object.values<any>(snapshot.allocations ?? {})) for (const [rp, a] of Object.entries<any>(byRp)) for (const [rc, n] of Object.entries<number>(a)) used.set(`${rp}/${rc}`, (used.get(`${rp}/${rc}`) ?? 0) + n);
  const out = new Map<string, { free: number; min: number; max: number; step: number }>();
  for (const [rp, classes] of Object.entries<any>(snapshot.inventories)) {
    for (const [rc, raw] of Object.entries<any>(classes)) {
      const i = typeof raw === 'number' ? { total: raw } : raw;
      const cap = Math.trunc((i.total - (i.reserved ?? 0)) * (i.allocation_ratio ?? 1));
      out.set(`${rp}/${rc}`, { free: cap - (used.get(`${rp}/${rc}`) ?? 0), min: i.min_unit ?? 1, max: i.max_unit ?? 2147483647, step: i.step_size ?? 1 });
    }
  }
  return out;
}

/** The most candidates (with repetition) that fit together: exhaustive, memoized on what is left. */
function bruteForce(snapshot: any, requests: any[]): number {
  const inv = inventoryOf(snapshot);
  const demands = requests
    .map((req) => {
      const d = new Map<string, number>();
      for (const a of req.allocations) for (const r of a.resources) d.set(`${a.provider.uuid}/${r.resourceClass}`, (d.get(`${a.provider.uuid}/${r.resourceClass}`) ?? 0) + r.amount);
      return d;
    })
    .filter((d) => [...d].every(([k, n]) => n >= inv.get(k)!.min && n <= inv.get(k)!.max && n % inv.get(k)!.step === 0));
  const keys = [...new Set(demands.flatMap((d) => [...d.keys()]))];
  const start = keys.map((k) => inv.get(k)!.free);
  const vecs = [...new Map(demands.map((d) => [keys.map((k) => d.get(k) ?? 0).join(','), keys.map((k) => d.get(k) ?? 0)])).values()];
  const memo = new Map<string, number>();
  const best = (i: number, free: number[]): number => {
    if (i === vecs.length) return 0;
    const id = `${i}|${free.join(',')}`;
    if (memo.has(id)) return memo.get(id)!;
    let result = best(i + 1, free);
    const f = free.slice();
    for (let copies = 1; ; copies++) {
      if (!vecs[i].every((n, k) => f[k] >= n)) break;
      vecs[i].forEach((n, k) => (f[k] -= n));
      result = Math.max(result, copies + best(i + 1, f));
    }
    memo.set(id, result);
    return result;
  };
  return best(0, start);
}

async function applyPlan(h: Harness, plan: any[]) {
  for (const [n, req] of plan.entries()) {
    const input = {
      consumerUuid: `c0000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}`,
      projectId: 'p',
      userId: 'u',
      allocations: req.allocations.map((a: any) => ({ providerUuid: a.provider.uuid, resources: a.resources })),
    };
    const { data } = await h.gql(`mutation($i: SetAllocationsInput!) { setAllocations(input: $i) { __typename ... on DomainError { message } } }`, { i: input });
    expect(data.setAllocations, `plan step ${n}`).toEqual({ __typename: 'ConsumerPayload' });
  }
}

describe('headroom on small generated clouds', () => {
  for (let seed = 1; seed <= 150; seed++) {
    it(`seed ${seed}: count as brute force finds it, plan accepted in order, nothing left when exact`, async () => {
      const snapshot = smallCloud(seed);
      const request = smallRequest(seed);
      const h = harness(snapshot);
      const { data } = await h.gql(HEADROOM, { r: request });
      const { fits, atMost, exact, plan } = data.headroom;
      const cands = (await h.gql(CANDIDATES, { r: request })).data.candidates;
      const brute = cands.allocationRequests ? bruteForce(snapshot, cands.allocationRequests) : 0;
      expect(atMost).toBeGreaterThanOrEqual(fits);
      expect(brute).toBeGreaterThanOrEqual(fits);
      expect(atMost).toBeGreaterThanOrEqual(brute);
      if (!data.headroom.sharing) expect(exact).toBe(true);
      if (exact) expect(fits).toBe(brute);
      expect(plan).toHaveLength(fits);
      await applyPlan(h, plan);
      if (exact) expect((await h.gql(CANDIDATES, { r: request })).data.candidates.count).toBe(0);
    });
  }
});

describe('headroom on larger clouds', () => {
  it('the demo cloud: a flavor-sized request, exact, plan accepted, nothing left', async () => {
    const h = harness(demoCloud());
    const request = { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 4 }, { resourceClass: 'MEMORY_MB', amount: 8192 }, { resourceClass: 'DISK_GB', amount: 40 }] }] };
    const { data } = await h.gql(HEADROOM, { r: request });
    expect(data.headroom.fits).toBeGreaterThan(0);
    expect(data.headroom.exact).toBe(true);
    await applyPlan(h, data.headroom.plan);
    expect((await h.gql(CANDIDATES, { r: request })).data.candidates.count).toBe(0);
  });

  it('a generated cloud with NUMA trees and sharing pools: plans accepted, nothing left when exact', async () => {
    const scenario = fixture('./golden/generated/seed1_size20.scenario.json');
    for (const query of ['resources=VCPU:2,MEMORY_MB:4096', 'resources=VCPU:1,DISK_GB:100', 'resources1=VCPU:2&resources2=VCPU:2&group_policy=isolate']) {
      const h = harness(scenario);
      const parsed = await h.gql(`query($q: String!) { headroom: placementCandidates(query: $q) { __typename } }`, { q: query });
      expect(parsed.data.headroom.__typename).toBe('Candidates');
      const request = requestOf(query);
      const { data } = await h.gql(HEADROOM, { r: request });
      expect(data.headroom.atMost).toBeGreaterThanOrEqual(data.headroom.fits);
      await applyPlan(h, data.headroom.plan);
      const left = (await h.gql(CANDIDATES, { r: request })).data.candidates.count;
      if (data.headroom.exact) expect(left, query).toBe(0);
    }
  });

  it('refuses a bad request with Placement\'s message', async () => {
    const h = harness(demoCloud());
    const { errors } = await h.gql(`{ headroom(request: { groups: [{ resources: [{ resourceClass: "NOPE", amount: 1 }] }] }) { fits } }`, undefined, { allowErrors: true });
    expect(errors![0].message).toBe('Invalid resource class in resources parameter: No such resource class NOPE.');
  });
});

/** A few Placement query strings as structured requests. */
function requestOf(query: string) {
  const params = new URLSearchParams(query);
  const groups = new Map<string, any>();
  for (const [key, value] of params) {
    const m = /^resources(.*)$/.exec(key);
    if (m) groups.set(m[1], { suffix: m[1] || null, resources: value.split(',').map((p) => ({ resourceClass: p.split(':')[0], amount: Number(p.split(':')[1]) })) });
  }
  const policy = params.get('group_policy');
  return { groups: [...groups.values()], ...(policy ? { groupPolicy: policy.toUpperCase() } : {}) };
}
