// The benchmark's cloud generator: realistic clouds plus allocation-candidate and listing queries, in the
// scenario format `import` reads (placement-oracle-scenario/1). SIZE is the number of root providers:
// compute nodes (flat, NUMA, NUMA with PFs under the NUMA nodes), ironic nodes and shared storage.
//
//   npx tsx bench/generate.ts SEED SIZE [-o FILE]
//
// The same SEED and SIZE always give the same file, byte for byte the one OpenStack Placement's oracle
// generator (gen_scenario.py) writes: it draws from Python's Mersenne Twister (bench/python-random.ts)
// in the same order, so both services can be timed on the same cloud.
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { PythonRandom } from './python-random.js';

export const SCENARIO_FORMAT = 'placement-oracle-scenario/1';

const FLAVORS: [number, number, number][] = [
  [1, 512, 10], [2, 2048, 20], [2, 4096, 40], [4, 8192, 80], [8, 16384, 160], [16, 32768, 320],
];
const CPU_GENERATIONS = [
  ['HW_CPU_X86_SSE42', 'HW_CPU_X86_AVX'],
  ['HW_CPU_X86_SSE42', 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2'],
  ['HW_CPU_X86_SSE42', 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_AVX512F', 'HW_CPU_X86_AVX512CD', 'HW_CPU_X86_AVX512VL'],
];
const PHYSNETS = ['CUSTOM_PHYSNET_PHYSNET0', 'CUSTOM_PHYSNET_PHYSNET1', 'CUSTOM_PHYSNET_PHYSNET2', 'CUSTOM_PHYSNET_PHYSNET3'];
const NIC_FEATURES = ['HW_NIC_OFFLOAD_VXLAN', 'HW_NIC_OFFLOAD_TSO', 'HW_NIC_OFFLOAD_GRO', 'HW_NIC_DCB_PFC', 'HW_NIC_ACCEL_IPSEC'];
const CUSTOM_TRAIT_VOCABULARY = [
  ...PHYSNETS, 'CUSTOM_LICENSED_WINDOWS', 'CUSTOM_RACK_A', 'CUSTOM_RACK_B', 'CUSTOM_NUMA_HUGEPAGES',
  'CUSTOM_RAID_0', 'CUSTOM_RAID_1', 'CUSTOM_RAID_5', 'CUSTOM_BIOS_UEFI', 'CUSTOM_STORAGE_CEPH', 'CUSTOM_STORAGE_NFS',
];
const BAREMETAL_CLASSES: [string, number][] = [
  ['CUSTOM_BAREMETAL_GOLD', 3], ['CUSTOM_BAREMETAL_SILVER', 4], ['CUSTOM_BAREMETAL_BRONZE', 2], ['CUSTOM_BAREMETAL_GPU', 1],
];

interface Inventory { total: number; reserved: number; min_unit: number; max_unit: number; step_size: number; allocation_ratio: number }
type Params = [string, string][];
export interface GeneratedQuery { id: string; tag: string; kind: string; params: Params; microversion?: string; expect_error?: boolean }

/** Python's round(): halves go to the even neighbour. */
const pyRound = (x: number) => {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : r;
};
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const sortedSet = (xs: string[]) => [...new Set(xs)].sort();

class Gen {
  readonly rng: PythonRandom;
  providers: { uuid: string; name: string; parent: string | null }[] = [];
  inventories: Record<string, Record<string, Inventory>> = {};
  traits: Record<string, string[]> = {};
  aggregates: Record<string, string[]> = {};
  allocations: Record<string, Record<string, Record<string, number>>> = {};
  consumers: Record<string, { project_id: string; user_id: string; consumer_type: string }> = {};
  used = new Map<string, number>();
  kind = new Map<string, string>();
  children = new Map<string, string[]>();
  names = new Map<string, string>();
  projects: string[];
  users: string[];
  azAggs: string[] = [];
  specialAggs: { gpu_hosts: string; pinned_hosts: string } = { gpu_hosts: '', pinned_hosts: '' };
  storageAggs: string[] = [];
  sharing: string[] = [];
  computes: string[] = [];
  ironic: string[] = [];

  constructor(readonly seed: number, readonly size: number) {
    this.rng = new PythonRandom(`placement-oracle:${seed}:${size}`);
    this.projects = Array.from({ length: 8 }, () => this.uuid());
    this.users = Array.from({ length: 16 }, () => this.uuid());
  }

  /** uuid.UUID(int=getrandbits(128), version=4). */
  uuid(): string {
    let n = this.rng.bigBits(128);
    n = (n & ~(0xc000n << 48n)) | (0x8000n << 48n);
    n = (n & ~(0xf000n << 64n)) | (4n << 76n);
    const hex = n.toString(16).padStart(32, '0');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  chance(p: number) {
    return this.rng.random() < p;
  }

  addRp(name: string, parent: string | null = null) {
    const u = this.uuid();
    this.providers.push({ uuid: u, name, parent });
    this.names.set(u, name);
    this.children.set(u, []);
    if (parent) this.children.get(parent)!.push(u);
    return u;
  }

  inv(rp: string, rc: string, total: number, reserved = 0, ratio = 1.0, maxUnit: number | null = null, minUnit = 1, step = 1) {
    (this.inventories[rp] ??= {})[rc] = {
      total, reserved, min_unit: minUnit, max_unit: maxUnit === null ? total : maxUnit, step_size: step, allocation_ratio: ratio,
    };
  }

  capacity(rp: string, rc: string) {
    const i = this.inventories[rp]?.[rc];
    return i ? Math.trunc((i.total - i.reserved) * i.allocation_ratio) : 0;
  }

  free(rp: string, rc: string) {
    return this.capacity(rp, rc) - (this.used.get(`${rp} ${rc}`) ?? 0);
  }

  fits(rp: string, rc: string, amount: number) {
    const i = this.inventories[rp]?.[rc];
    return i !== undefined && amount <= this.free(rp, rc) && i.min_unit <= amount && amount <= i.max_unit && amount % i.step_size === 0;
  }

  allocate(parts: [string, string, number][], consumerType = 'INSTANCE') {
    const c = this.uuid();
    const alloc: Record<string, Record<string, number>> = {};
    for (const [rp, rc, amount] of parts) {
      alloc[rp] ??= {};
      alloc[rp][rc] = (alloc[rp][rc] ?? 0) + amount;
      this.used.set(`${rp} ${rc}`, (this.used.get(`${rp} ${rc}`) ?? 0) + amount);
    }
    this.allocations[c] = alloc;
    this.consumers[c] = { project_id: this.rng.choice(this.projects), user_id: this.rng.choice(this.users), consumer_type: consumerType };
    return c;
  }

  build() {
    const { rng, size } = this;
    const nShare = size >= 2 ? Math.max(1, pyRound(size * 0.02)) : 0;
    const nIronic = size >= 4 ? pyRound(size * 0.15) : 0;
    const nCompute = size - nShare - nIronic;
    this.azAggs = Array.from({ length: 3 }, () => this.uuid());
    this.specialAggs = { gpu_hosts: this.uuid(), pinned_hosts: this.uuid() };
    for (let i = 0; i < nShare; i++) {
      const ss = this.addRp(`shared-storage-${pad(i, 4)}`);
      let agg = this.uuid();
      // a few storage aggregates hold two sharing providers
      if (this.storageAggs.length && i % 4 === 3) agg = this.storageAggs[this.storageAggs.length - 1];
      else this.storageAggs.push(agg);
      this.sharing.push(ss);
      this.kind.set(ss, 'sharing');
      const total = rng.choice([100000, 200000, 500000]);
      this.inv(ss, 'DISK_GB', total, 0, rng.choice([1.0, 1.0, 1.5]), 4096);
      this.traits[ss] = [
        'MISC_SHARES_VIA_AGGREGATE',
        rng.choice(['STORAGE_DISK_SSD', 'STORAGE_DISK_HDD']),
        rng.choice(['CUSTOM_STORAGE_CEPH', 'CUSTOM_STORAGE_NFS']),
      ];
      this.aggregates[ss] = [agg];
    }
    for (let i = 0; i < nCompute; i++) this.buildCompute(i);
    for (let i = 0; i < nIronic; i++) this.buildIronic(i);
    this.makeAllocations();
  }

  buildCompute(i: number) {
    const rng = this.rng;
    const name = `cn-${pad(i, 5)}`;
    const root = this.addRp(name);
    this.computes.push(root);
    const r = rng.random();
    const kind = r < 0.55 ? 'flat' : r < 0.85 ? 'numa' : 'numa_pf';
    this.kind.set(root, kind);
    const aggs = [rng.choice(this.azAggs)];
    let diskless = false;
    if (this.storageAggs.length && this.chance(0.4)) {
      aggs.push(rng.choice(this.storageAggs));
      diskless = this.chance(0.5);
      if (this.chance(0.05) && this.storageAggs.length > 1) aggs.push(rng.choice(this.storageAggs));
    }
    for (const [key, p] of [['gpu_hosts', 0.08], ['pinned_hosts', 0.12]] as const) {
      if (this.chance(p)) aggs.push(this.specialAggs[key]);
    }
    this.aggregates[root] = sortedSet(aggs);
    const gen = rng.choice([0, 1, 1, 2, 2]);
    const tr = [...CPU_GENERATIONS[gen]];
    tr.push(this.chance(0.3) ? 'HW_CPU_X86_SVM' : 'HW_CPU_X86_VMX');
    tr.push('HW_ARCH_X86_64');
    if (this.chance(0.6)) tr.push('HW_CPU_HYPERTHREADING');
    for (const [t, p] of [
      ['COMPUTE_VOLUME_MULTI_ATTACH', 0.9],
      ['COMPUTE_NET_ATTACH_INTERFACE', 0.9],
      ['COMPUTE_IMAGE_TYPE_QCOW2', 0.85],
      ['COMPUTE_STATUS_DISABLED', 0.04],
      ['CUSTOM_LICENSED_WINDOWS', 0.1],
      [i % 2 ? 'CUSTOM_RACK_A' : 'CUSTOM_RACK_B', 0.5],
    ] as const) {
      if (this.chance(p)) tr.push(t);
    }
    this.traits[root] = sortedSet(tr);
    const cores = rng.choice([16, 24, 32, 48, 64, 96, 128]);
    const vcpuReserved = rng.choice([0, 0, 2]);
    const vcpuRatio = rng.choice([16.0, 4.0, 4.0, 1.0]);
    const mem = rng.choice([65536, 131072, 262144, 524288, 786432]);
    const memReserved = rng.choice([512, 2048, 4096]);
    const memRatio = rng.choice([1.0, 1.0, 1.5]);
    if (!diskless) {
      const disk = rng.choice([480, 960, 1920, 3840, 7680]);
      this.inv(root, 'DISK_GB', disk, rng.choice([0, 10, 50]));
    }
    const numaNodes: string[] = [];
    if (kind === 'flat') {
      this.inv(root, 'VCPU', cores, vcpuReserved, vcpuRatio);
      this.inv(root, 'MEMORY_MB', mem, memReserved, memRatio);
    } else {
      const nNuma = cores >= 96 && this.chance(0.5) ? 4 : 2;
      for (let n = 0; n < nNuma; n++) {
        const nn = this.addRp(`${name}_numa${n}`, root);
        numaNodes.push(nn);
        this.inv(nn, 'VCPU', Math.floor(cores / nNuma), n === 0 ? vcpuReserved : 0, vcpuRatio);
        this.inv(nn, 'MEMORY_MB', Math.floor(mem / nNuma), n === 0 ? memReserved : 0, memRatio);
        const t = ['HW_NUMA_ROOT'];
        if (this.chance(0.2)) t.push('CUSTOM_NUMA_HUGEPAGES');
        this.traits[nn] = t;
      }
    }
    // SR-IOV physical functions
    let pfParents: string[] = [];
    if (kind === 'numa_pf') pfParents = [...numaNodes];
    else if (this.chance(kind === 'flat' ? 0.25 : 0.3)) pfParents = Array(rng.choice([1, 2])).fill(root);
    pfParents.forEach((parent, n) => {
      const pf = this.addRp(`${name}_pf${n}`, parent);
      this.inv(pf, 'SRIOV_NET_VF', rng.choice([8, 16, 32, 64]));
      const t = ['HW_NIC_SRIOV', rng.choice(PHYSNETS)];
      for (const f of NIC_FEATURES) if (this.chance(0.3)) t.push(f);
      this.traits[pf] = sortedSet(t);
    });
  }

  buildIronic(i: number) {
    const rng = this.rng;
    const root = this.addRp(`ironic-${pad(i, 5)}`);
    this.ironic.push(root);
    this.kind.set(root, 'ironic');
    const rc = rng.weighted(BAREMETAL_CLASSES.map(([c]) => c), BAREMETAL_CLASSES.map(([, w]) => w));
    this.inv(root, rc, 1, this.chance(0.05) ? 1 : 0, 1.0, 1);
    const t = ['HW_ARCH_X86_64', rng.choice(CPU_GENERATIONS).at(-1)!];
    if (this.chance(0.8)) t.push(rng.choice(['CUSTOM_RAID_0', 'CUSTOM_RAID_1', 'CUSTOM_RAID_5']));
    if (this.chance(0.5)) t.push('CUSTOM_BIOS_UEFI');
    if (this.chance(0.03)) t.push('COMPUTE_STATUS_DISABLED');
    this.traits[root] = sortedSet(t);
    this.aggregates[root] = [this.azAggs[i % this.azAggs.length]];
  }

  sharingFor(root: string) {
    const aggs = new Set(this.aggregates[root] ?? []);
    return this.sharing.filter((s) => this.aggregates[s].some((a) => aggs.has(a)));
  }

  descendants(rp: string): string[] {
    return this.children.get(rp)!.flatMap((c) => [c, ...this.descendants(c)]);
  }

  makeAllocations() {
    const rng = this.rng;
    for (const root of this.computes) {
      const nodes = this.children.get(root)!.filter((c) => 'VCPU' in (this.inventories[c] ?? {}));
      const cpuRps = nodes.length ? nodes : [root];
      const pfs = this.descendants(root).filter((p) => 'SRIOV_NET_VF' in (this.inventories[p] ?? {}));
      const shares = this.sharingFor(root);
      for (let k = rng.choice([0, 1, 1, 2, 2, 3]); k > 0; k--) {
        const [v, m, d] = rng.choice(FLAVORS);
        const rp = rng.choice(cpuRps);
        if (!(this.fits(rp, 'VCPU', v) && this.fits(rp, 'MEMORY_MB', m))) continue;
        const parts: [string, string, number][] = [[rp, 'VCPU', v], [rp, 'MEMORY_MB', m]];
        if ('DISK_GB' in (this.inventories[root] ?? {})) {
          if (!this.fits(root, 'DISK_GB', d)) continue;
          parts.push([root, 'DISK_GB', d]);
        } else if (shares.length) {
          const ss = rng.choice(shares);
          if (!this.fits(ss, 'DISK_GB', d)) continue;
          parts.push([ss, 'DISK_GB', d]);
        }
        if (pfs.length && this.chance(0.3)) {
          const pf = rng.choice(pfs);
          if (this.fits(pf, 'SRIOV_NET_VF', 1)) parts.push([pf, 'SRIOV_NET_VF', 1]);
        }
        this.allocate(parts);
      }
      // make some providers completely full
      if (this.chance(0.05)) this.fill(rng.choice(cpuRps), 'VCPU');
      if (this.chance(0.03)) this.fill(rng.choice(cpuRps), 'MEMORY_MB');
      if (pfs.length && this.chance(0.1)) this.fill(rng.choice(pfs), 'SRIOV_NET_VF');
    }
    for (const root of this.ironic) {
      const rc = Object.keys(this.inventories[root])[0];
      if (this.free(root, rc) >= 1 && this.chance(0.4)) this.allocate([[root, rc, 1]]);
    }
  }

  fill(rp: string, rc: string) {
    const inv = this.inventories[rp][rc];
    while (this.free(rp, rc) > 0) {
      let amount = Math.min(this.free(rp, rc), inv.max_unit);
      amount -= amount % inv.step_size;
      if (amount < inv.min_unit) break;
      this.allocate([[rp, rc, amount]]);
    }
  }

  buildQueries(): GeneratedQuery[] {
    const rng = this.rng;
    const qs: GeneratedQuery[] = [];
    const q = (tag: string, params: Params, kind = 'allocation_candidates', mv?: string, error = false) => {
      const e: GeneratedQuery = { id: `${tag}_${pad(qs.filter((x) => x.tag === tag).length, 2)}`, tag, kind, params };
      if (mv) e.microversion = mv;
      if (error) e.expect_error = true;
      qs.push(e);
    };
    const az = this.azAggs;
    const numaRoots = this.computes.filter((r) => ['numa', 'numa_pf'].includes(this.kind.get(r)!));
    const anyRoot = rng.choice(numaRoots.length ? numaRoots : this.computes);
    const kids = this.children.get(anyRoot)!;
    const anyChild = rng.choice(kids.length ? kids : [anyRoot]);
    const storage = this.storageAggs.length ? this.storageAggs[0] : az[0];
    const pinned = this.specialAggs.pinned_hosts;
    const gpu = this.specialAggs.gpu_hosts;

    q('ac_basic', [['resources', 'VCPU:1,MEMORY_MB:512']]);
    q('ac_basic', [['resources', 'VCPU:4,MEMORY_MB:8192']]);
    q('ac_basic', [['resources', 'VCPU:16,MEMORY_MB:32768']]);
    q('ac_disk', [['resources', 'VCPU:2,MEMORY_MB:4096,DISK_GB:40']]);
    q('ac_disk', [['resources', 'VCPU:8,MEMORY_MB:16384,DISK_GB:160'], ['member_of', storage]]);
    q('ac_disk', [['resources', 'DISK_GB:1000']]);
    q('ac_required', [['resources', 'VCPU:2,MEMORY_MB:2048'], ['required', 'HW_CPU_X86_AVX2']]);
    q('ac_required', [['resources', 'VCPU:4,MEMORY_MB:4096,DISK_GB:20'], ['required', 'HW_CPU_X86_AVX512F,HW_CPU_HYPERTHREADING']]);
    q('ac_forbidden', [['resources', 'VCPU:1,MEMORY_MB:1024'], ['required', '!COMPUTE_STATUS_DISABLED']]);
    q('ac_forbidden', [['resources', 'VCPU:2,MEMORY_MB:2048,DISK_GB:20'], ['required', 'HW_CPU_X86_AVX2,!CUSTOM_LICENSED_WINDOWS,!COMPUTE_STATUS_DISABLED']]);
    q('ac_anyof', [['resources', 'VCPU:2,MEMORY_MB:2048'], ['required', 'in:HW_CPU_X86_AVX512F,HW_CPU_X86_SVM']]);
    q('ac_anyof', [
      ['resources', 'VCPU:1,MEMORY_MB:1024'],
      ['required', 'in:CUSTOM_RACK_A,CUSTOM_LICENSED_WINDOWS'],
      ['required', 'HW_CPU_X86_AVX2,!COMPUTE_STATUS_DISABLED'],
    ]);
    q('ac_root_required', [['resources', 'VCPU:2,MEMORY_MB:2048'], ['root_required', 'HW_CPU_X86_AVX2,!COMPUTE_STATUS_DISABLED']]);
    q('ac_member_of', [['resources', 'VCPU:1,MEMORY_MB:512'], ['member_of', az[0]]]);
    q('ac_member_of', [['resources', 'VCPU:2,MEMORY_MB:2048'], ['member_of', `in:${az[1]},${az[2]}`], ['member_of', `!${pinned}`]]);
    q('ac_member_of', [['resources', 'VCPU:4,MEMORY_MB:4096'], ['member_of', gpu]]);
    q('ac_in_tree', [['resources', 'VCPU:1,MEMORY_MB:512'], ['in_tree', anyRoot]]);
    q('ac_in_tree', [['resources', 'VCPU:1'], ['in_tree', anyChild]]);
    q('ac_granular', [['resources', 'VCPU:2,MEMORY_MB:2048'], ['resources1', 'SRIOV_NET_VF:1'], ['required1', PHYSNETS[0]]]);
    q('ac_granular', [
      ['resources', 'VCPU:2,MEMORY_MB:2048'],
      ['resources1', 'SRIOV_NET_VF:1'],
      ['resources2', 'SRIOV_NET_VF:1'],
      ['group_policy', 'isolate'],
    ]);
    q('ac_granular', [
      ['resources_NET1', 'SRIOV_NET_VF:2'],
      ['required_NET1', 'HW_NIC_SRIOV,!HW_NIC_ACCEL_IPSEC'],
      ['resources_NET2', 'SRIOV_NET_VF:2'],
      ['required_NET2', `in:${PHYSNETS[1]},${PHYSNETS[2]}`],
      ['group_policy', 'none'],
    ]);
    q('ac_same_subtree', [
      ['resources_CPU', 'VCPU:2,MEMORY_MB:2048'],
      ['resources_NIC', 'SRIOV_NET_VF:1'],
      ['required_NUMA', 'HW_NUMA_ROOT'],
      ['same_subtree', '_NUMA,_CPU,_NIC'],
      ['group_policy', 'none'],
    ]);
    q('ac_ironic', [['resources', 'CUSTOM_BAREMETAL_GOLD:1']]);
    q('ac_ironic', [['resources', 'CUSTOM_BAREMETAL_SILVER:1'], ['required', 'CUSTOM_BIOS_UEFI,!CUSTOM_RAID_0,!COMPUTE_STATUS_DISABLED']]);
    q('ac_limit', [['resources', 'VCPU:1,MEMORY_MB:512'], ['limit', '10']]);
    q('ac_limit', [['resources', 'VCPU:2,MEMORY_MB:2048,DISK_GB:20'], ['required', '!COMPUTE_STATUS_DISABLED'], ['limit', '1000']]);
    q('ac_empty', [['resources', 'VCPU:100000']]);
    q('ac_old_microversion', [['resources', 'VCPU:1,MEMORY_MB:512']], undefined, '1.28');
    q('ac_old_microversion', [['resources', 'VCPU:2,MEMORY_MB:2048'], ['required', 'HW_CPU_X86_AVX2'], ['member_of', `in:${az[0]},${az[1]}`]], undefined, '1.21');

    const rpq = 'resource_providers';
    q('rp_list', [['resources', 'VCPU:8,MEMORY_MB:8192']], rpq);
    q('rp_list', [['required', 'HW_CPU_X86_AVX2,!COMPUTE_STATUS_DISABLED']], rpq);
    q('rp_list', [['required', `in:${PHYSNETS[0]},${PHYSNETS[3]}`], ['resources', 'SRIOV_NET_VF:4']], rpq);
    q('rp_list', [['member_of', `in:${az[0]},${storage}`], ['required', '!HW_CPU_X86_SVM']], rpq);
    q('rp_list', [['in_tree', anyChild]], rpq);
    q('rp_list', [['name', this.names.get(anyChild)!]], rpq);
    q('rp_list', [['uuid', anyRoot]], rpq);

    q('invalid', [['resources', 'VCPU:1'], ['required', 'CUSTOM_NO_SUCH']], undefined, undefined, true);
    q('invalid', [['resources', 'VCPU:1'], ['required', 'HW_CPU_X86_AVX2,!HW_CPU_X86_AVX2']], undefined, undefined, true);
    q('invalid', [['resources', 'VCPU:1'], ['member_of', 'not-a-uuid']], undefined, undefined, true);
    q('invalid', [['resources1', 'VCPU:1'], ['resources2', 'VCPU:1']], undefined, undefined, true);
    q('invalid', [['resources', 'VCPU:0']], undefined, undefined, true);
    q('invalid', [['resources', 'VCPU:1'], ['required', 'in:A,!B']], undefined, undefined, true);
    q('invalid', [['resources', 'VCPU:1'], ['required', '!X']], undefined, '1.21', true);
    q('invalid', [['required', 'HW_CPU_X86_AVX2']], rpq, '1.17', true);
    return qs;
  }

  scenario() {
    this.build();
    // Every CUSTOM_ trait or class the queries may name exists even if no provider got it (small sizes).
    const customTraits = sortedSet([
      ...Object.values(this.traits).flatMap((ts) => ts.filter((t) => t.startsWith('CUSTOM_'))),
      ...CUSTOM_TRAIT_VOCABULARY,
    ]);
    const usedRcs = new Set(Object.values(this.inventories).flatMap((inv) => Object.keys(inv)));
    const extraRcs = BAREMETAL_CLASSES.map(([rc]) => rc).filter((rc) => !usedRcs.has(rc)).sort();
    const traits: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(this.traits)) traits[k] = [...v].sort();
    const out: Record<string, unknown> = {
      format: SCENARIO_FORMAT,
      name: 'generated',
      seed: this.seed,
      size: this.size,
      providers: this.providers,
      inventories: this.inventories,
      traits,
      aggregates: this.aggregates,
      allocations: this.allocations,
      consumers: this.consumers,
      custom_traits: customTraits,
      queries: this.buildQueries(),
    };
    if (extraRcs.length) out.resource_classes = extraRcs;
    return out;
  }
}

/** The scenario for SEED and SIZE roots, as an object. */
export function generateScenario(seed: number, size: number) {
  if (!Number.isInteger(size) || size < 1) throw new Error('SIZE must be an integer >= 1');
  return new Gen(seed, size).scenario();
}

/** The scenario as the file text: compact JSON as Python writes it (allocation ratios as floats, `1.0`), newline-terminated. */
export function scenarioText(seed: number, size: number): string {
  const text = JSON.stringify(generateScenario(seed, size));
  return text.replace(/"allocation_ratio":(-?\d+)(?=[,}])/g, '"allocation_ratio":$1.0') + '\n';
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const o = args.indexOf('-o');
  const output = o >= 0 ? args.splice(o, 2)[1] : undefined;
  const [seed, size] = args.map(Number);
  if (args.length !== 2 || !Number.isInteger(seed) || !Number.isInteger(size) || size < 1) {
    console.error('usage: tsx bench/generate.ts SEED SIZE [-o FILE]   (SIZE = number of root providers, >= 1)');
    process.exit(1);
  }
  const text = scenarioText(seed, size);
  if (output) writeFileSync(output, text);
  else process.stdout.write(text);
  const scn = JSON.parse(text);
  console.error(
    `seed=${seed} size=${size}: ${scn.providers.length} providers (${scn.providers.filter((p: any) => p.parent === null).length} roots), ` +
      `${Object.keys(scn.allocations).length} consumers, ${scn.queries.length} queries`,
  );
}
