// Provider, inventory, trait, resource class and aggregate mutations: success and every error path.
import { beforeEach, describe, expect, it } from 'vitest';
import { errorSelection, harness, type Harness } from './helpers.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const AGG = (n: number) => `a0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;


async function create(h: Harness, name: string, uuid: string, parentUuid?: string) {
  const { data } = await h.gql(
    `mutation($input: CreateResourceProviderInput!) { createResourceProvider(input: $input) { ${errorSelection('createResourceProvider')} ... on ResourceProviderPayload { provider { uuid name generation root { uuid } parent { uuid } } } } }`,
    { input: { name, uuid, parentUuid } },
  );
  return data.createResourceProvider;
}

const provider = async (h: Harness, uuid: string) =>
  (await h.gql(`query($uuid: UUID!) { resourceProvider(uuid: $uuid) { uuid name generation parent { uuid } root { uuid } children { uuid } descendants { uuid }
    inventories { resourceClass total reserved minUnit maxUnit stepSize allocationRatio capacity used free } traits aggregates } }`, { uuid })).data.resourceProvider;

async function setInventories(h: Harness, uuid: string, generation: number, inventories: unknown[]) {
  const { data } = await h.gql(
    `mutation($input: SetInventoriesInput!) { setInventories(input: $input) { ${errorSelection('setInventories')} ... on ResourceProviderPayload { provider { generation inventories { resourceClass capacity } } } } }`,
    { input: { providerUuid: uuid, generation, inventories } },
  );
  return data.setInventories;
}

describe('providers', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  it('creates roots and children; root and parent follow', async () => {
    const root = await create(h, 'cn1', U(1));
    expect(root).toMatchObject({ __typename: 'ResourceProviderPayload', provider: { uuid: U(1), generation: 0, root: { uuid: U(1) }, parent: null } });
    const child = await create(h, 'cn1_numa0', U(2), U(1));
    expect(child.provider).toMatchObject({ root: { uuid: U(1) }, parent: { uuid: U(1) } });
    await create(h, 'cn1_numa0_pf0', U(3), U(2));
    const p = await provider(h, U(1));
    expect(p.children.map((c: any) => c.uuid)).toEqual([U(2)]);
    expect(p.descendants.map((c: any) => c.uuid)).toEqual([U(2), U(3)]);
  });

  it('generates a uuid when none is given', async () => {
    const { provider: p } = await create(h, 'anonymous', undefined as any);
    expect(p.uuid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a duplicate name or uuid, a too long name, and an unknown parent', async () => {
    await create(h, 'cn1', U(1));
    expect(await create(h, 'cn1', U(2))).toMatchObject({ __typename: 'DuplicateName', field: 'name', value: 'cn1', code: 'placement.duplicate_name' });
    expect(await create(h, 'other', U(1))).toMatchObject({ __typename: 'DuplicateName', field: 'uuid' });
    const long = await create(h, 'x'.repeat(201), U(3));
    expect(long).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'name' }] });
    expect(long.issues[0].message).toContain('200');
    const orphan = await create(h, 'orphan', U(4), U(99));
    expect(orphan).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'parentUuid' }] });
    expect((await h.gql('{ resourceProviders { totalCount } }')).data.resourceProviders.totalCount).toBe(1);
  });

  it('refuses a malformed uuid with a message naming the rule', async () => {
    const body = await h.gql(`mutation { createResourceProvider(input: {name: "x", uuid: "nope"}) { __typename } }`, undefined, { allowErrors: true });
    expect(body.errors![0].message).toContain('UUID must be');
  });

  it('renames, re-parents and un-parents, refusing loops', async () => {
    await create(h, 'a', U(1));
    await create(h, 'b', U(2), U(1));
    await create(h, 'c', U(3), U(2));
    await create(h, 'd', U(4));
    const update = async (input: object) =>
      (await h.gql(`mutation($input: UpdateResourceProviderInput!) { updateResourceProvider(input: $input) { ${errorSelection('updateResourceProvider')} ... on ResourceProviderPayload { provider { name generation parent { uuid } root { uuid } } } } }`, { input })).data
        .updateResourceProvider;
    // As Placement's PUT /resource_providers/{uuid}: a rename or a move leaves the generation as it was.
    expect(await update({ uuid: U(2), name: 'b2' })).toMatchObject({ provider: { name: 'b2', parent: { uuid: U(1) }, generation: 0 } });
    expect(await update({ uuid: U(2), name: 'a' })).toMatchObject({ __typename: 'DuplicateName' });
    expect(await update({ uuid: U(1), parentUuid: U(3) })).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'parentUuid' }] });
    expect(await update({ uuid: U(1), parentUuid: U(1) })).toMatchObject({ __typename: 'InvalidInput' });
    expect(await update({ uuid: U(2), parentUuid: U(77) })).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'parentUuid' }] });
    // Move b (with its child c) under d: the whole subtree changes root.
    expect(await update({ uuid: U(2), parentUuid: U(4) })).toMatchObject({ provider: { parent: { uuid: U(4) }, root: { uuid: U(4) } } });
    expect((await provider(h, U(3))).root.uuid).toBe(U(4));
    // Un-parent: b becomes a root, c follows.
    expect(await update({ uuid: U(2), parentUuid: null })).toMatchObject({ provider: { parent: null, root: { uuid: U(2) } } });
    expect((await provider(h, U(3))).root.uuid).toBe(U(2));
    expect(await update({ uuid: U(9), name: 'x' })).toMatchObject({ __typename: 'NotFound' });
  });

  it('deletes a provider, refusing while it has children or allocations', async () => {
    await create(h, 'a', U(1));
    await create(h, 'b', U(2), U(1));
    const del = async (uuid: string) => (await h.gql(`mutation($uuid: UUID!) { deleteResourceProvider(input: {uuid: $uuid}) { ${errorSelection('deleteResourceProvider')} ... on DeleteResourceProviderPayload { uuid name } } }`, { uuid })).data.deleteResourceProvider;
    expect(await del(U(1))).toMatchObject({ __typename: 'InUse', code: 'placement.resource_provider.cannot_delete_parent' });
    await setInventories(h, U(2), 0, [{ resourceClass: 'VCPU', total: 4 }]);
    await h.gql(`mutation { setAllocations(input: {consumerUuid: "${U(50)}", projectId: "p", userId: "u", allocations: [{providerUuid: "${U(2)}", resources: [{resourceClass: "VCPU", amount: 1}]}]}) { __typename } }`);
    expect(await del(U(2))).toMatchObject({ __typename: 'InUse', code: 'placement.resource_provider.inuse' });
    await h.gql(`mutation { deleteAllocations(input: {consumerUuid: "${U(50)}"}) { __typename } }`);
    expect(await del(U(2))).toMatchObject({ __typename: 'DeleteResourceProviderPayload', name: 'b' });
    expect(await del(U(1))).toMatchObject({ __typename: 'DeleteResourceProviderPayload' });
    expect(await del(U(1))).toMatchObject({ __typename: 'NotFound' });
  });
});

describe('inventories', () => {
  let h: Harness;
  beforeEach(async () => {
    h = harness();
    await create(h, 'cn1', U(1));
  });

  it("replaces all inventories with Placement's defaults and capacity", async () => {
    const result = await setInventories(h, U(1), 0, [
      { resourceClass: 'VCPU', total: 8, reserved: 1, allocationRatio: 16.0 },
      { resourceClass: 'MEMORY_MB', total: 1000, reserved: 1, allocationRatio: 1.1 },
    ]);
    expect(result.provider).toEqual({ generation: 1, inventories: [{ resourceClass: 'VCPU', capacity: 112 }, { resourceClass: 'MEMORY_MB', capacity: 1098 }] });
    const p = await provider(h, U(1));
    expect(p.inventories[0]).toEqual({ resourceClass: 'VCPU', total: 8, reserved: 1, minUnit: 1, maxUnit: 2147483647, stepSize: 1, allocationRatio: 16, capacity: 112, used: 0, free: 112 });
    const replaced = await setInventories(h, U(1), 1, [{ resourceClass: 'DISK_GB', total: 100 }]);
    expect(replaced.provider.inventories).toEqual([{ resourceClass: 'DISK_GB', capacity: 100 }]);
  });

  it('refuses a stale generation, changing nothing', async () => {
    const result = await setInventories(h, U(1), 5, [{ resourceClass: 'VCPU', total: 8 }]);
    expect(result).toMatchObject({ __typename: 'GenerationConflict', field: 'generation', expected: 5, actual: 0, code: 'placement.concurrent_update' });
    expect((await provider(h, U(1))).inventories).toEqual([]);
  });

  it('lists every invalid field and changes nothing', async () => {
    const result = await setInventories(h, U(1), 0, [
      { resourceClass: 'VCPU', total: 0 },
      { resourceClass: 'CUSTOM_NOPE', total: 1 },
      { resourceClass: 'DISK_GB', total: 10, reserved: 11 },
      { resourceClass: 'MEMORY_MB', total: 10, minUnit: 5, maxUnit: 4 },
      { resourceClass: 'PCPU', total: 10, stepSize: 0, allocationRatio: 0 },
      { resourceClass: 'VCPU', total: 1 },
    ]);
    expect(result.__typename).toBe('InvalidInput');
    expect(result.issues.map((i: any) => i.path)).toEqual([
      'inventories.0.total',
      'inventories.1.resourceClass',
      'inventories.2.reserved',
      'inventories.3.minUnit',
      'inventories.4.stepSize',
      'inventories.4.allocationRatio',
      'inventories.5.resourceClass',
    ]);
    expect(result.issues[2].message).toContain('greater than total');
    const p = await provider(h, U(1));
    expect(p).toMatchObject({ generation: 0, inventories: [] });
  });

  it('refuses to remove a class that has allocations', async () => {
    await setInventories(h, U(1), 0, [{ resourceClass: 'VCPU', total: 8 }, { resourceClass: 'DISK_GB', total: 8 }]);
    await h.gql(`mutation { setAllocations(input: {consumerUuid: "${U(50)}", projectId: "p", userId: "u", allocations: [{providerUuid: "${U(1)}", resources: [{resourceClass: "VCPU", amount: 2}]}]}) { __typename } }`);
    const result = await setInventories(h, U(1), 2, [{ resourceClass: 'DISK_GB', total: 8 }]);
    expect(result).toMatchObject({ __typename: 'InUse', code: 'placement.inventory.inuse' });
    expect(result.message).toContain("'VCPU'");
    expect((await provider(h, U(1))).inventories).toHaveLength(2);
    expect(await setInventories(h, U(1), 2, [{ resourceClass: 'VCPU', total: 4 }])).toMatchObject({ provider: { generation: 3 } });
  });

  it('refuses an unknown provider', async () => {
    expect(await setInventories(h, U(9), 0, [])).toMatchObject({ __typename: 'NotFound' });
  });
});

describe('traits, resource classes and aggregates', () => {
  let h: Harness;
  beforeEach(async () => {
    h = harness();
    await create(h, 'cn1', U(1));
  });

  const mutate = async (name: string, input: object, payload = '') =>
    (await h.gql(`mutation($input: ${name[0].toUpperCase()}${name.slice(1)}Input!) { ${name}(input: $input) { ${errorSelection(name)} ${payload} } }`, { input })).data[name];

  it('creates custom traits idempotently and refuses bad names', async () => {
    expect(await mutate('createTrait', { name: 'CUSTOM_GOLD' }, '... on TraitPayload { created trait { name standard } }')).toMatchObject({ created: true, trait: { name: 'CUSTOM_GOLD', standard: false } });
    expect(await mutate('createTrait', { name: 'CUSTOM_GOLD' }, '... on TraitPayload { created }')).toMatchObject({ created: false });
    expect(await mutate('createTrait', { name: 'HW_CPU_X86_AVX2' }, '... on TraitPayload { created trait { standard } }')).toMatchObject({ created: false, trait: { standard: true } });
    for (const bad of ['GOLD', 'CUSTOM_gold', 'CUSTOM_A-B', 'CUSTOM_' + 'X'.repeat(250)]) {
      expect(await mutate('createTrait', { name: bad })).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'name' }] });
    }
  });

  it('lists traits with filters', async () => {
    await mutate('createTrait', { name: 'CUSTOM_GOLD' });
    await mutate('createTrait', { name: 'CUSTOM_SILVER' });
    await mutate('setProviderTraits', { providerUuid: U(1), generation: 0, traits: ['CUSTOM_GOLD', 'HW_CPU_X86_AVX2'] });
    const names = async (filter: object) => (await h.gql('query($f: TraitFilter) { traits(filter: $f, first: 1000) { totalCount nodes { name } } }', { f: filter })).data.traits.nodes.map((t: any) => t.name);
    expect(await names({ custom: true })).toEqual(['CUSTOM_GOLD', 'CUSTOM_SILVER']);
    expect(await names({ associated: true })).toEqual(['CUSTOM_GOLD', 'HW_CPU_X86_AVX2']);
    expect(await names({ custom: true, associated: false })).toEqual(['CUSTOM_SILVER']);
    expect(await names({ prefix: 'HW_CPU_X86_AVX5' })).toHaveLength(16);
    expect(await names({ names: ['CUSTOM_GOLD', 'MISC_SHARES_VIA_AGGREGATE', 'NOPE'] })).toEqual(['CUSTOM_GOLD', 'MISC_SHARES_VIA_AGGREGATE']);
    expect(await names({ custom: false })).toHaveLength(345);
  });

  it('deletes custom traits only when unused', async () => {
    await mutate('createTrait', { name: 'CUSTOM_GOLD' });
    await mutate('setProviderTraits', { providerUuid: U(1), generation: 0, traits: ['CUSTOM_GOLD'] });
    expect(await mutate('deleteTrait', { name: 'CUSTOM_GOLD' })).toMatchObject({ __typename: 'InUse' });
    expect(await mutate('deleteTrait', { name: 'HW_CPU_X86_AVX2' })).toMatchObject({ __typename: 'InvalidInput', issues: [{ message: 'Cannot delete standard trait HW_CPU_X86_AVX2.' }] });
    expect(await mutate('deleteTrait', { name: 'CUSTOM_NONE' })).toMatchObject({ __typename: 'NotFound' });
    await mutate('setProviderTraits', { providerUuid: U(1), generation: 1, traits: [] });
    expect(await mutate('deleteTrait', { name: 'CUSTOM_GOLD' }, '... on DeleteTraitPayload { name }')).toMatchObject({ name: 'CUSTOM_GOLD' });
  });

  it('sets provider traits with generations, refusing unknown traits whole', async () => {
    const set = (generation: number, traits: string[]) => mutate('setProviderTraits', { providerUuid: U(1), generation, traits }, '... on ResourceProviderPayload { provider { generation traits } }');
    expect(await set(0, ['HW_CPU_X86_AVX2', 'COMPUTE_NODE'])).toMatchObject({ provider: { generation: 1, traits: ['COMPUTE_NODE', 'HW_CPU_X86_AVX2'] } });
    expect(await set(0, ['HW_CPU_X86_AVX'])).toMatchObject({ __typename: 'GenerationConflict', expected: 0, actual: 1 });
    const bad = await set(1, ['HW_CPU_X86_AVX', 'CUSTOM_NOPE', 'hw_cpu_x86_avx']);
    expect(bad).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'traits.1' }, { path: 'traits.2' }] });
    expect((await provider(h, U(1))).traits).toEqual(['COMPUTE_NODE', 'HW_CPU_X86_AVX2']);
    expect(await set(1, [])).toMatchObject({ provider: { generation: 2, traits: [] } });
  });

  it('creates and deletes custom resource classes', async () => {
    const payload = '... on ResourceClassPayload { created resourceClass { name standard } }';
    expect(await mutate('createResourceClass', { name: 'CUSTOM_BAREMETAL_GOLD' }, payload)).toMatchObject({ created: true, resourceClass: { standard: false } });
    expect(await mutate('createResourceClass', { name: 'CUSTOM_BAREMETAL_GOLD' }, payload)).toMatchObject({ created: false });
    expect(await mutate('createResourceClass', { name: 'BAREMETAL' })).toMatchObject({ __typename: 'InvalidInput' });
    const classes = (await h.gql('{ resourceClasses(first: 100) { nodes { name } } }')).data.resourceClasses.nodes.map((c: any) => c.name);
    expect(classes.slice(0, 3)).toEqual(['VCPU', 'MEMORY_MB', 'DISK_GB']);
    expect(classes.at(-1)).toBe('CUSTOM_BAREMETAL_GOLD');
    expect(classes).toHaveLength(22);
    await setInventories(h, U(1), 0, [{ resourceClass: 'CUSTOM_BAREMETAL_GOLD', total: 1 }]);
    expect(await mutate('deleteResourceClass', { name: 'CUSTOM_BAREMETAL_GOLD' })).toMatchObject({ __typename: 'InUse' });
    expect(await mutate('deleteResourceClass', { name: 'VCPU' })).toMatchObject({ __typename: 'InvalidInput' });
    expect(await mutate('deleteResourceClass', { name: 'CUSTOM_NONE' })).toMatchObject({ __typename: 'NotFound' });
    await setInventories(h, U(1), 1, []);
    expect(await mutate('deleteResourceClass', { name: 'CUSTOM_BAREMETAL_GOLD' }, '... on DeleteResourceClassPayload { name }')).toMatchObject({ name: 'CUSTOM_BAREMETAL_GOLD' });
  });

  it('sets provider aggregates with generations', async () => {
    const set = (generation: number, aggregates: string[]) => mutate('setProviderAggregates', { providerUuid: U(1), generation, aggregates }, '... on ResourceProviderPayload { provider { generation aggregates } }');
    expect(await set(0, [AGG(2), AGG(1)])).toMatchObject({ provider: { generation: 1, aggregates: [AGG(1), AGG(2)] } });
    expect(await set(0, [])).toMatchObject({ __typename: 'GenerationConflict' });
    expect(await set(1, [AGG(3)])).toMatchObject({ provider: { generation: 2, aggregates: [AGG(3)] } });
    const listed = await h.gql(`{ resourceProviders(filter: {memberOf: [["${AGG(3)}"]]}) { totalCount } }`);
    expect(listed.data.resourceProviders.totalCount).toBe(1);
  });
});
