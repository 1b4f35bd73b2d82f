// Capacity rollups compared with sums computed straight from the snapshot's data.
import { describe, expect, it } from 'vitest';
import { demoCloud, fixture, harness } from './helpers.js';

interface Figures { total: number; reserved: number; capacity: number; used: number; free: number; providerCount: number }

/** Per key and resource class, the figures summed from a snapshot (Placement's defaults for omitted fields). */
function expected(snapshot: any, keysOf: (uuid: string) => (string | null)[]): Map<string, Map<string, Figures>> {
  const used = new Map<string, number>();
  for (const byProvider of Object.values<any>(snapshot.allocations ?? {}))
    for (const [rp, amounts] of Object.entries<any>(byProvider)) for (const [rc, n] of Object.entries<number>(amounts)) used.set(`${rp}/${rc}`, (used.get(`${rp}/${rc}`) ?? 0) + n);
  const result = new Map<string, Map<string, Figures>>();
  for (const [rp, classes] of Object.entries<any>(snapshot.inventories ?? {})) {
    for (const [rc, raw] of Object.entries<any>(classes)) {
      const inv = typeof raw === 'number' ? { total: raw } : raw;
      const reserved = inv.reserved ?? 0;
      const capacity = Math.floor((inv.total - reserved) * (inv.allocation_ratio ?? 1));
      const u = used.get(`${rp}/${rc}`) ?? 0;
      for (const key of keysOf(rp)) {
        const k = String(key);
        if (!result.has(k)) result.set(k, new Map());
        const f = result.get(k)!.get(rc) ?? { total: 0, reserved: 0, capacity: 0, used: 0, free: 0, providerCount: 0 };
        f.total += inv.total;
        f.reserved += reserved;
        f.capacity += capacity;
        f.used += u;
        f.free += capacity - u;
        f.providerCount++;
        result.get(k)!.set(rc, f);
      }
    }
  }
  return result;
}

const RESOURCES = 'resources { resourceClass total reserved capacity used free providerCount }';
const asMap = (resources: any[]) => new Map(resources.map(({ resourceClass, ...f }) => [resourceClass, f]));

for (const [name, load] of [
  ['the demo cloud', demoCloud],
  ['a generated cloud', () => fixture('./golden/generated/seed2_size50.scenario.json')],
] as const) {
  describe(`capacity rollups on ${name}`, () => {
    const snapshot = load();
    const { gql } = harness(snapshot);
    const parentOf = new Map<string, string | null>(snapshot.providers.map((p: any) => [p.uuid, p.parent]));
    const rootOf = (uuid: string): string => (parentOf.get(uuid) ? rootOf(parentOf.get(uuid)!) : uuid);

    it('sums the whole cloud in one group', async () => {
      const { data } = await gql(`{ capacity { providerCount ${RESOURCES} } }`);
      expect(data.capacity).toHaveLength(1);
      expect(data.capacity[0].providerCount).toBe(snapshot.providers.length);
      expect(asMap(data.capacity[0].resources)).toEqual(expected(snapshot, () => [null]).get('null'));
    });

    it('sums per aggregate, per root and per trait', async () => {
      for (const [by, field, keysOf] of [
        ['AGGREGATE', 'aggregate', (rp: string) => snapshot.aggregates?.[rp] ?? [null]],
        ['ROOT', 'root { uuid }', (rp: string) => [rootOf(rp)]],
        ['TRAIT', 'trait', (rp: string) => (snapshot.traits?.[rp]?.length ? snapshot.traits[rp] : [null])],
      ] as const) {
        const { data } = await gql(`{ capacity(groupBy: [${by}]) { key { ${field} } ${RESOURCES} } }`);
        const want = expected(snapshot, keysOf);
        const got = new Map<string, Map<string, any>>(data.capacity.filter((g: any) => g.resources.length).map((g: any) => [String(by === 'ROOT' ? g.key.root.uuid : g.key[field]), asMap(g.resources)]));
        expect(got).toEqual(want);
      }
    });

    it('splits by resource class and filters as resourceProviders does', async () => {
      const { data } = await gql(`{ capacity(groupBy: [RESOURCE_CLASS]) { key { resourceClass } ${RESOURCES} } }`);
      const whole = expected(snapshot, () => [null]).get('null')!;
      expect(data.capacity.map((g: any) => g.key.resourceClass)).toEqual([...whole.keys()].sort());
      for (const g of data.capacity) expect(asMap(g.resources)).toEqual(new Map([[g.key.resourceClass, whole.get(g.key.resourceClass)]]));
      const root = snapshot.providers.find((p: any) => !p.parent && snapshot.providers.some((c: any) => c.parent === p.uuid)).uuid;
      const tree = await gql(`query($u: UUID!) { capacity(filter: { inTree: $u }) { providerCount ${RESOURCES} } }`, { u: root });
      expect(asMap(tree.data.capacity[0].resources)).toEqual(expected(snapshot, (rp) => (rootOf(rp) === root ? ['t'] : [])).get('t'));
    });
  });
}

describe('capacity metrics', () => {
  it('exports capacity per class and aggregate, and headroom and stranded capacity per stored flavor, as the API answers them', async () => {
    const snapshot = demoCloud();
    const { gql, yoga } = harness(snapshot);
    const created = await gql(`mutation { createFlavor(input: { name: "m1.medium", vcpus: 2, memoryMb: 4096, rootGb: 20 }) { __typename } }`);
    expect(created.data.createFlavor.__typename).toBe('FlavorPayload');
    const scrape = async () => {
      const text = await (await yoga.fetch('http://test/metrics')).text();
      const samples = new Map<string, number>();
      for (const line of text.split('\n')) if (line.startsWith('placement_gql_') && !line.startsWith('#')) samples.set(line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1)));
      return samples;
    };
    let samples = await scrape();
    const whole = expected(snapshot, () => [null]).get('null')!;
    for (const [rc, f] of whole) {
      expect(samples.get(`placement_gql_capacity_capacity{resource_class="${rc}"}`)).toBe(f.capacity);
      expect(samples.get(`placement_gql_capacity_used{resource_class="${rc}"}`)).toBe(f.used);
      expect(samples.get(`placement_gql_capacity_free{resource_class="${rc}"}`)).toBe(f.free);
    }
    const perAggregate = expected(snapshot, (rp) => snapshot.aggregates?.[rp] ?? []);
    for (const [agg, classes] of perAggregate) for (const [rc, f] of classes) expect(samples.get(`placement_gql_aggregate_capacity_used{aggregate="${agg}",resource_class="${rc}"}`)).toBe(f.used);
    const { data } = await gql(`{ flavor(name: "m1.medium") { headroom { fits atMost exact stranded { resourceClass reasons { reason amount } } } } }`);
    expect(data.flavor.headroom.fits).toBeGreaterThan(0);
    expect(samples.get('placement_gql_flavor_headroom{flavor="m1.medium"}')).toBe(data.flavor.headroom.fits);
    expect(samples.get('placement_gql_flavor_headroom_at_most{flavor="m1.medium"}')).toBe(data.flavor.headroom.atMost);
    // Stranded capacity per class and reason, as the API answers it, and nothing else for the flavor.
    const stranded = new Map<string, number>();
    for (const c of data.flavor.headroom.stranded) for (const r of c.reasons) stranded.set(`placement_gql_flavor_stranded{flavor="m1.medium",resource_class="${c.resourceClass}",reason="${r.reason}"}`, r.amount);
    expect(stranded.size).toBeGreaterThan(0);
    expect(new Map([...samples].filter(([k]) => k.startsWith('placement_gql_flavor_stranded{flavor="m1.medium"')))).toEqual(stranded);
    // A change is seen at the next scrape.
    await gql(`mutation { deleteFlavor(input: { name: "m1.medium" }) { __typename } }`);
    samples = await scrape();
    expect(samples.has('placement_gql_flavor_headroom{flavor="m1.medium"}')).toBe(false);
  });
});

describe('aggregate members', () => {
  it('names some providers of each aggregate, sharing providers first, then by name, in a fixed number of statements', async () => {
    const snapshot = demoCloud();
    const { gql, countStatements } = harness(snapshot);
    const name = new Map<string, string>(snapshot.providers.map((p: any) => [p.uuid, p.name]));
    const sharing = (uuid: string) => (snapshot.traits?.[uuid] ?? []).includes('MISC_SHARES_VIA_AGGREGATE');
    const members = new Map<string, string[]>();
    for (const [rp, aggs] of Object.entries<string[]>(snapshot.aggregates)) for (const a of aggs) members.set(a, [...(members.get(a) ?? []), rp]);
    const expected = (agg: string, first: number) =>
      members.get(agg)!
        .sort((a, b) => Number(sharing(b)) - Number(sharing(a)) || (name.get(a)! < name.get(b)! ? -1 : 1))
        .slice(0, first)
        .map((uuid) => ({ uuid, name: name.get(uuid) }));
    expect([...members.keys()].some((a) => members.get(a)!.some(sharing))).toBe(true);
    for (const first of [1, 3, 20]) {
      const { data } = await gql(`{ capacity(groupBy: [AGGREGATE]) { key { aggregate aggregateMembers(first: ${first}) { uuid name } } } }`);
      const got = new Map(data.capacity.filter((g: any) => g.key.aggregate).map((g: any) => [g.key.aggregate, g.key.aggregateMembers]));
      expect(got).toEqual(new Map([...members.keys()].map((a) => [a, expected(a, first)])));
      // Not keyed by aggregate: none.
      expect(data.capacity.find((g: any) => !g.key.aggregate).key.aggregateMembers).toEqual([]);
    }
    // One statement for the members of every aggregate (and one for the rollup).
    expect(await countStatements('{ capacity(groupBy: [AGGREGATE]) { key { aggregateMembers { name } } } }')).toBe((await countStatements('{ capacity(groupBy: [AGGREGATE]) { key { aggregate } } }')) + 1);
    const refused = await gql('{ capacity(groupBy: [AGGREGATE]) { key { aggregateMembers(first: 21) { name } } } }', undefined, { allowErrors: true });
    expect(refused.errors![0].message).toBe('first must be between 0 and 20 (got 21).');
  });
});
