// Headroom checked three ways on generated clouds: its counts against a brute-force search over the
// candidates the search lists, every plan applied with setAllocations in order, and no candidate left
// after an exact plan.
import { describe, expect, it } from 'vitest';
import { demoCloud, fixture, harness, type Harness } from './helpers.js';
import { smallCloud, smallRequest } from './capacity-support.js';

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
