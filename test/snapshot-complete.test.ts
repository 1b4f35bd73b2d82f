// Snapshots carry the whole database: generations, flavors with extra specs, images with
// properties, bare-metal nodes with traits and provision state, what provider config set; `import --replace` swaps the
// whole content in one transaction.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { exportSnapshot, importSnapshot, SnapshotRejected } from '../src/modules/snapshot/snapshot.service.js';
import { demoCloud, harness, tempDbFile } from './helpers.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function mutate(h: ReturnType<typeof harness>, name: string, input: unknown) {
  const type = name[0].toUpperCase() + name.slice(1);
  const { data } = await h.gql(`mutation($input: ${type}Input!) { ${name}(input: $input) { __typename ... on DomainError { message } } }`, { input });
  expect(data[name].__typename, JSON.stringify(data[name])).not.toMatch(/Invalid|NotFound|Conflict|Duplicate|InUse|Exceeded|Refused|Missing/);
}

/** A database holding every kind of data, made through the API (generations bumped by real writes). */
async function everyKind() {
  const h = harness(demoCloud());
  const cn = '6a8f40e8-5319-5d5e-8a89-ecb6de64c990';
  await mutate(h, 'setInventory', { providerUuid: cn, generation: 0, resourceClass: 'VCPU', total: 48, allocationRatio: 2 });
  await mutate(h, 'setInventory', { providerUuid: cn, generation: 1, resourceClass: 'VCPU', total: 64, allocationRatio: 2 });
  await mutate(h, 'setAllocations', { consumerUuid: U(50), consumerGeneration: null, projectId: 'p1', userId: 'u1', consumerType: 'MIGRATION', allocations: [{ providerUuid: cn, resources: [{ resourceClass: 'VCPU', amount: 2 }] }] });
  await mutate(h, 'setAllocations', { consumerUuid: U(50), consumerGeneration: 1, projectId: 'p1', userId: 'u1', consumerType: 'MIGRATION', allocations: [{ providerUuid: cn, resources: [{ resourceClass: 'VCPU', amount: 4 }] }] });
  await mutate(h, 'createFlavor', { name: 'm1.gold', vcpus: 4, memoryMb: 8192, rootGb: 40, ephemeralGb: 10, swapMb: 512, isPublic: false, extraSpecs: [{ key: 'hw:cpu_policy', value: 'dedicated' }, { key: 'trait:CUSTOM_LICENSED_WINDOWS', value: 'required' }, { key: 'hw:mem_page_size', value: 'large' }] });
  await mutate(h, 'createFlavor', { name: 'm1.small', vcpus: 1, memoryMb: 2048, rootGb: 20 });
  await mutate(h, 'createImage', { name: 'win2022', uuid: U(60), properties: [{ key: 'trait:CUSTOM_LICENSED_WINDOWS', value: 'required' }, { key: 'os_type', value: 'windows' }] });
  await mutate(h, 'createNode', { uuid: U(70), name: 'bm-1', resourceClass: 'baremetal-gold', traits: ['CUSTOM_RAID5', 'HW_CPU_X86_AVX2'] });
  await mutate(h, 'createNode', { uuid: U(71), resourceClass: 'baremetal-gold', provisionState: 'MANAGEABLE' });
  const config = "meta:\n  schema_version: '1.0'\nproviders:\n  - identification:\n      name: compute-02\n    inventories:\n      additional:\n        - CUSTOM_LLC: {total: 8, reserved: 1}\n    traits:\n      additional: [CUSTOM_GPU_READY]\n";
  const plan = (await h.gql(`mutation($input: ApplyProviderConfigInput!) { applyProviderConfig(input: $input) { __typename ... on ProviderConfigPlan { applied } } }`, { input: { documents: [{ name: '10-gpu.yaml', content: config }] } })).data.applyProviderConfig;
  expect(plan).toEqual({ __typename: 'ProviderConfigPlan', applied: true });
  await mutate(h, 'deployNode', { node: 'bm-1', instanceUuid: U(80), instanceTraits: ['CUSTOM_RAID5'], projectId: 'p2', userId: 'u2' });
  return h;
}

describe('complete snapshots', () => {
  it('export, import into an empty database, export: the same snapshot, every kind of data', async () => {
    const h = await everyKind();
    const exported = exportSnapshot(h.db);
    expect(exported.providers.find((p) => p.uuid === '6a8f40e8-5319-5d5e-8a89-ecb6de64c990')!.generation).toBe(4);
    expect(exported.consumers[U(50)]).toEqual({ project_id: 'p1', user_id: 'u1', consumer_type: 'MIGRATION', generation: 2 });
    expect(exported.flavors.find((f) => f.name === 'm1.gold')).toEqual({
      name: 'm1.gold', vcpus: 4, memory_mb: 8192, root_gb: 40, ephemeral_gb: 10, swap_mb: 512, is_public: false,
      extra_specs: { 'hw:cpu_policy': 'dedicated', 'trait:CUSTOM_LICENSED_WINDOWS': 'required', 'hw:mem_page_size': 'large' },
    });
    expect(exported.images).toEqual([{ uuid: U(60), name: 'win2022', properties: { 'trait:CUSTOM_LICENSED_WINDOWS': 'required', os_type: 'windows' } }]);
    expect(exported.baremetal_nodes).toEqual([
      { uuid: U(70), name: 'bm-1', resource_class: 'baremetal-gold', provision_state: 'active', instance_uuid: U(80), instance_traits: ['CUSTOM_RAID5'], traits: ['CUSTOM_RAID5', 'HW_CPU_X86_AVX2'] },
      { uuid: U(71), name: null, resource_class: 'baremetal-gold', provision_state: 'manageable', instance_uuid: null, instance_traits: [], traits: [] },
    ]);

    expect(exported.provider_config).toEqual({
      inventories: { 'b09a25b0-5032-55a7-918e-615ebe1af07d': { CUSTOM_LLC: { document: '10-gpu.yaml', total: 8, reserved: 1, min_unit: 1, max_unit: 2147483647, step_size: 1, allocation_ratio: 1 } } },
      traits: { 'b09a25b0-5032-55a7-918e-615ebe1af07d': { CUSTOM_GPU_READY: '10-gpu.yaml' } },
    });

    const copy = openDatabase(tempDbFile());
    importSnapshot(copy, JSON.parse(JSON.stringify(exported)));
    expect(exportSnapshot(copy)).toEqual(exported);
  });

  it('the copy answers as the original: a node, a flavor request, boot candidates', async () => {
    const h = await everyKind();
    const copy = harness(exportSnapshot(h.db));
    const query = `{ baremetalNode(node: "bm-1") { provisionState traits instanceUuid }
      flavor(name: "m1.gold") { isPublic extraSpecs { key value } request(image: "win2022") { query } }
      resourceProvider(uuid: "${U(70)}") { generation traits inventories { resourceClass reserved used } }
      configured: resourceProvider(uuid: "b09a25b0-5032-55a7-918e-615ebe1af07d") { configSources { document kind name } } }`;
    expect((await copy.gql(query)).data).toEqual((await h.gql(query)).data);
  });

  it('import --replace swaps the whole content in one transaction', async () => {
    const h = await everyKind();
    const snapshot = exportSnapshot(h.db);
    const target = openDatabase(tempDbFile());
    importSnapshot(target, { providers: [{ uuid: U(1), name: 'old' }], flavors: [{ name: 'old-flavor', vcpus: 1, memory_mb: 1, root_gb: 1 }], custom_traits: ['CUSTOM_OLD'] });
    importSnapshot(target, snapshot, { replace: true });
    expect(exportSnapshot(target)).toEqual(snapshot);
  });

  it('a rejected --replace leaves the old content whole', async () => {
    const target = openDatabase(tempDbFile());
    importSnapshot(target, demoCloud());
    const before = exportSnapshot(target);
    const bad = { ...demoCloud(), flavors: [{ name: 'x', vcpus: 0, memory_mb: 1, root_gb: 1 }], baremetal_nodes: [{ uuid: U(9), resource_class: 'gold', provision_state: 'flying' }] };
    let error: SnapshotRejected | undefined;
    try {
      importSnapshot(target, bad, { replace: true });
    } catch (e) {
      error = e as SnapshotRejected;
    }
    expect(error).toBeInstanceOf(SnapshotRejected);
    expect(error!.problems).toContainEqual({ path: 'baremetal_nodes.0.uuid', message: `a node's provider (same uuid) must be in providers: ${U(9)} is not` });
    expect(exportSnapshot(target)).toEqual(before);
    // Flavor sizes out of range, and the rules of the flavor module once the shapes are right: listed, named
    // as the file writes them, nothing written.
    const late = { ...demoCloud(), flavors: [{ name: 'x', vcpus: 0, memory_mb: 1, root_gb: 1 }, { name: 'y', vcpus: 1, memory_mb: 1, root_gb: -1 }, { name: ' z', vcpus: 1, memory_mb: 1 }] };
    expect(() => importSnapshot(target, late, { replace: true })).toThrow(SnapshotRejected);
    try {
      importSnapshot(target, late, { replace: true });
    } catch (e) {
      expect((e as SnapshotRejected).problems.map((p) => p.path)).toEqual(['flavors.0.vcpus', 'flavors.1.root_gb']);
    }
    const named = { ...demoCloud(), flavors: [{ name: ' z', vcpus: 1, memory_mb: 1 }] };
    expect(() => importSnapshot(target, named, { replace: true })).toThrow(expect.objectContaining({ problems: [{ path: 'flavors.0.name', message: 'must not start or end with whitespace' }] }));
    expect(exportSnapshot(target)).toEqual(before);
  });

  it('without --replace an import still only adds: a flavor that exists already is refused', () => {
    const db = openDatabase(tempDbFile());
    importSnapshot(db, { flavors: [{ name: 'a', vcpus: 1, memory_mb: 1, root_gb: 1 }] });
    expect(() => importSnapshot(db, { flavors: [{ name: 'a', vcpus: 1, memory_mb: 1, root_gb: 1 }] })).toThrow(/Flavor with name a already exists/);
  });

  it('placement-gql import FILE --replace from the command line', async () => {
    const h = await everyKind();
    const file = tempDbFile('snapshot.json');
    writeFileSync(file, JSON.stringify(exportSnapshot(h.db)));
    const dbFile = tempDbFile();
    const first = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'import', file, '--db', dbFile], { encoding: 'utf8' });
    expect(first.status, first.stderr).toBe(0);
    const again = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'import', file, '--db', dbFile], { encoding: 'utf8' });
    expect(again.status).toBe(2);
    const replaced = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'import', file, '--db', dbFile, '--replace'], { encoding: 'utf8' });
    expect(replaced.status, replaced.stderr).toBe(0);
    expect(replaced.stdout).toMatch(/^Replaced the content of .*"flavors":9,"images":1,"baremetalNodes":2\}/);
    const db = openDatabase(dbFile);
    expect(exportSnapshot(db)).toEqual(exportSnapshot(h.db));
  });
});
