// Shared by the capacity tests and the recording of headroom plans against Placement: small seeded
// clouds and requests, and a structured request as Placement's query string.

/** A small seeded generator (mulberry32). */
export function random(seed: number) {
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
export function smallCloud(seed: number) {
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

export function smallRequest(seed: number) {
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


/** A structured request as Placement's GET /allocation_candidates query string (1.39). */
export function placementQuery(request: any): string {
  const params: string[] = [];
  for (const g of request.groups) {
    const s = g.suffix ?? '';
    if (g.resources?.length) params.push(`resources${s}=${g.resources.map((r: any) => `${r.resourceClass}:${r.amount}`).join(',')}`);
    const required = [...(g.required ?? []), ...(g.forbidden ?? []).map((t: string) => `!${t}`)];
    if (required.length) params.push(`required${s}=${required.join(',')}`);
  }
  if (request.groupPolicy) params.push(`group_policy=${request.groupPolicy.toLowerCase()}`);
  for (const set of request.sameSubtree ?? []) params.push(`same_subtree=${set.join(',')}`);
  return params.join('&');
}
