// bootCandidates: the flavor and image request run through the candidates search, and why nothing fits.
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.js';

const CN1 = '11111111-1111-4111-8111-111111111111';
const CN2 = '22222222-2222-4222-8222-222222222222';
const CN3 = '33333333-3333-4333-8333-333333333333';
const GPU = '44444444-4444-4444-8444-444444444444';

const CLOUD = {
  providers: [
    { uuid: CN1, name: 'cn1', parent: null },
    { uuid: CN2, name: 'cn2', parent: null },
    { uuid: CN3, name: 'cn3', parent: null },
    { uuid: GPU, name: 'cn3-gpu', parent: CN3 },
  ],
  inventories: {
    [CN1]: { VCPU: 8, MEMORY_MB: 8192, DISK_GB: 100 },
    [CN2]: { VCPU: 16, MEMORY_MB: 16384, DISK_GB: 200 },
    [CN3]: { VCPU: 4, MEMORY_MB: 4096, DISK_GB: 50 },
    [GPU]: { VGPU: 2 },
  },
  traits: {
    [CN1]: ['COMPUTE_NODE', 'HW_CPU_X86_AVX2'],
    [CN2]: ['COMPUTE_NODE', 'COMPUTE_STATUS_DISABLED', 'CUSTOM_GOLD'],
    [CN3]: ['COMPUTE_NODE'],
    [GPU]: ['CUSTOM_GPU_T4'],
  },
  custom_traits: ['CUSTOM_NOBODY'],
};

const QUERY = `query ($flavor: String!, $image: String, $limit: Int) { bootCandidates(flavor: $flavor, image: $image, limit: $limit) {
  request { query } usedFallback reasons
  result { __typename ... on Candidates { count allocationRequests { allocations { provider { name } resources { resourceClass amount } } } }
           ... on RequestError { status message } } } }`;

async function cloud(flavors: Record<string, { vcpus?: number; memoryMb?: number; extraSpecs?: Record<string, string> }>, images: Record<string, Record<string, string>> = {}) {
  const h = harness(CLOUD);
  for (const [name, f] of Object.entries(flavors)) {
    const input = { name, vcpus: f.vcpus ?? 2, memoryMb: f.memoryMb ?? 2048, rootGb: 20, validation: 'OFF', extraSpecs: Object.entries(f.extraSpecs ?? {}).map(([key, value]) => ({ key, value })) };
    const { data } = await h.gql(`mutation ($input: CreateFlavorInput!) { createFlavor(input: $input) { __typename } }`, { input });
    expect(data.createFlavor.__typename).toBe('FlavorPayload');
  }
  for (const [name, p] of Object.entries(images)) {
    await h.gql(`mutation ($input: CreateImageInput!) { createImage(input: $input) { __typename } }`, { input: { name, properties: Object.entries(p).map(([key, value]) => ({ key, value })) } });
  }
  return async (flavor: string, image?: string, limit?: number) => (await h.gql(QUERY, { flavor, image, limit })).data.bootCandidates;
}

const hosts = (answer: any) => answer.result.allocationRequests.map((r: any) => r.allocations.map((a: any) => a.provider.name).join('+')).sort();

describe('bootCandidates', () => {
  it("finds the hosts Nova's request fits, leaving out disabled computes", async () => {
    const boot = await cloud({ small: {}, gpu: { extraSpecs: { 'resources1:VGPU': '1', 'trait1:CUSTOM_GPU_T4': 'required', group_policy: 'isolate' } } }, { avx: { 'trait:HW_CPU_X86_AVX2': 'required' } });
    const small = await boot('small');
    expect(small.request.query).toBe('limit=1000&resources=DISK_GB%3A20%2CMEMORY_MB%3A2048%2CVCPU%3A2&root_required=%21COMPUTE_STATUS_DISABLED');
    expect(hosts(small)).toEqual(['cn1', 'cn3']);
    expect(small.reasons).toEqual([]);
    expect(hosts(await boot('small', 'avx'))).toEqual(['cn1']);
    expect((await boot('small', undefined, 1)).result.count).toBe(1);
    const gpu = await boot('gpu');
    expect(gpu.result.allocationRequests[0].allocations.map((a: any) => a.provider.name)).toEqual(['cn3', 'cn3-gpu']);
  });

  it('says which resource no provider can give, and which trait nobody has, counting the trees each reason keeps out', async () => {
    const boot = await cloud({ huge: { memoryMb: 100000 }, small: {} }, { nobody: { 'trait:CUSTOM_NOBODY': 'required' } });
    const huge = await boot('huge');
    expect(huge.result.count).toBe(0);
    expect(huge.reasons).toEqual([
      '3 of 3 provider trees: not 100000 MEMORY_MB free on one provider, 16384 at most. For example: cn1: MEMORY_MB used 0 + requested 100000 > capacity 8192 (8192 free).',
      '1 of 3 provider trees: the root has COMPUTE_STATUS_DISABLED, which root_required forbids. For example: The root cn2 has trait COMPUTE_STATUS_DISABLED, forbidden by root_required (!COMPUTE_STATUS_DISABLED).',
    ]);
    const nobody = await boot('small', 'nobody');
    expect(nobody.reasons).toEqual([
      '3 of 3 provider trees: no provider with the resources has CUSTOM_NOBODY. For example: In the tree of cn1, no provider with DISK_GB, MEMORY_MB or VCPU (cn1) has trait CUSTOM_NOBODY.',
      '1 of 3 provider trees: the root has COMPUTE_STATUS_DISABLED, which root_required forbids. For example: The root cn2 has trait COMPUTE_STATUS_DISABLED, forbidden by root_required (!COMPUTE_STATUS_DISABLED).',
      'Without the required trait CUSTOM_NOBODY (the unsuffixed group), the request would find candidates, e.g. on cn1, cn3.',
    ]);
  });

  it('names the constraint that alone rules every host out', async () => {
    const boot = await cloud({ gold: { extraSpecs: { 'trait:CUSTOM_GOLD': 'required' } } });
    expect((await boot('gold')).reasons).toEqual([
      '2 of 3 provider trees: no provider with the resources has CUSTOM_GOLD. For example: In the tree of cn1, no provider with DISK_GB, MEMORY_MB or VCPU (cn1) has trait CUSTOM_GOLD.',
      '1 of 3 provider trees: the root has COMPUTE_STATUS_DISABLED, which root_required forbids. For example: The root cn2 has trait COMPUTE_STATUS_DISABLED, forbidden by root_required (!COMPUTE_STATUS_DISABLED).',
      'Without the required trait CUSTOM_GOLD (the unsuffixed group), the request would find candidates, e.g. on cn1, cn3.',
      'Without the forbidden root trait COMPUTE_STATUS_DISABLED, the request would find candidates, e.g. on cn2.',
    ]);
  });

  it('retries pinned CPUs with the VCPU fallback query, as the scheduler does', async () => {
    const boot = await cloud({ pinned: { extraSpecs: { 'hw:cpu_policy': 'dedicated' } }, pinnedHuge: { memoryMb: 100000, extraSpecs: { 'hw:cpu_policy': 'dedicated' } } });
    const pinned = await boot('pinned');
    expect(pinned.request.query).toContain('PCPU%3A2');
    expect(pinned.usedFallback).toBe(true);
    expect(hosts(pinned)).toEqual(['cn1', 'cn3']);
    const huge = await boot('pinnedHuge');
    expect([huge.usedFallback, huge.result.count]).toEqual([false, 0]);
    expect(huge.reasons[0]).toMatch(/^Neither the PCPU query nor its VCPU fallback/);
  });

  it('reports what Nova or Placement refuses, without searching', async () => {
    const boot = await cloud(
      {
        threads: { extraSpecs: { 'hw:cpu_thread_policy': 'isolate' } },
        sev: { extraSpecs: { 'hw:mem_encryption': 'true' } },
        groups: { extraSpecs: { 'resources1:VGPU': '1', 'resources2:VGPU': '1' } },
        small: {},
      },
      { unknown: { 'trait:CUSTOM_NEVER_CREATED': 'required' } },
    );
    expect(await boot('threads')).toMatchObject({
      result: null,
      reasons: ["Nova refuses the server create (400): Cannot set cpu thread pinning policy in a non dedicated cpu pinning policy"],
    });
    const sev = await boot('sev');
    expect(sev.request).toBeNull();
    expect(sev.reasons[0]).toMatch(/^Nova cannot build the request: Memory encryption requested by hw:mem_encryption extra spec in sev flavor/);
    const groups = await boot('groups');
    expect(groups.result.__typename).toBe('RequestError');
    expect(groups.reasons[0]).toMatch(/^Placement refuses the request \(400\): .*group_policy/);
    const unknown = await boot('small', 'unknown');
    expect(unknown.result).toEqual({ __typename: 'RequestError', status: 400, message: expect.stringContaining('CUSTOM_NEVER_CREATED') });
    expect(unknown.reasons[0]).toMatch(/^Placement refuses the request \(400\): /);
  });
});
