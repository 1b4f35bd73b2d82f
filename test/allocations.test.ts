// Allocations, consumers and usage totals: success and every error path.
import { beforeEach, describe, expect, it } from 'vitest';
import { errorSelection, harness, type Harness } from './helpers.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const C = (n: number) => `c0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const SET = `mutation($input: SetAllocationsInput!) { setAllocations(input: $input) { ${errorSelection('setAllocations')}
  ... on ConsumerPayload { consumerUuid consumer { uuid generation projectId userId consumerType allocations { provider { uuid } resources { resourceClass amount } } } } } }`;

describe('allocations', () => {
  let h: Harness;
  const set = async (input: object) => (await h.gql(SET, { input: { projectId: 'p1', userId: 'u1', ...input } })).data.setAllocations;
  const used = async (uuid: string) =>
    (await h.gql(`{ resourceProvider(uuid: "${uuid}") { generation inventories { resourceClass used } } }`)).data.resourceProvider;

  beforeEach(() => {
    h = harness({
      providers: [
        { uuid: U(1), name: 'cn1', parent: null },
        { uuid: U(2), name: 'ss1', parent: null },
      ],
      inventories: {
        [U(1)]: { VCPU: { total: 4, allocation_ratio: 2.0 }, MEMORY_MB: { total: 4096, min_unit: 256, max_unit: 2048, step_size: 256 } },
        [U(2)]: { DISK_GB: 100 },
      },
    });
  });

  it('creates a consumer with allocations on several providers, bumping provider generations', async () => {
    const result = await set({
      consumerUuid: C(1),
      consumerGeneration: null,
      consumerType: 'INSTANCE',
      allocations: [
        { providerUuid: U(1), resources: [{ resourceClass: 'VCPU', amount: 2 }, { resourceClass: 'MEMORY_MB', amount: 512 }] },
        { providerUuid: U(2), resources: [{ resourceClass: 'DISK_GB', amount: 10 }] },
      ],
    });
    expect(result.consumer).toMatchObject({ uuid: C(1), generation: 1, projectId: 'p1', userId: 'u1', consumerType: 'INSTANCE' });
    expect(result.consumer.allocations).toHaveLength(2);
    expect(await used(U(1))).toEqual({ generation: 1, inventories: [{ resourceClass: 'VCPU', used: 2 }, { resourceClass: 'MEMORY_MB', used: 512 }] });
    const consumer = (await h.gql(`{ consumer(uuid: "${C(1)}") { generation allocations { provider { uuid } resources { resourceClass amount } } } }`)).data.consumer;
    expect(consumer.allocations[1]).toEqual({ provider: { uuid: U(2) }, resources: [{ resourceClass: 'DISK_GB', amount: 10 }] });
  });

  it('replaces allocations with the consumer generation; its old amounts do not count as used', async () => {
    await set({ consumerUuid: C(1), allocations: [{ providerUuid: U(1), resources: [{ resourceClass: 'VCPU', amount: 8 }] }] });
    const moved = await set({ consumerUuid: C(1), consumerGeneration: 1, projectId: 'p2', allocations: [{ providerUuid: U(1), resources: [{ resourceClass: 'VCPU', amount: 8 }] }] });
    expect(moved.consumer).toMatchObject({ generation: 2, projectId: 'p2' });
    expect(await set({ consumerUuid: C(1), consumerGeneration: 1, allocations: [] })).toMatchObject({
      __typename: 'GenerationConflict',
      field: 'consumerGeneration',
      expected: 1,
      actual: 2,
      code: 'placement.concurrent_update',
    });
    expect(await set({ consumerUuid: C(1), consumerGeneration: null, allocations: [] })).toMatchObject({ __typename: 'GenerationConflict', expected: null, actual: 2 });
    expect(await set({ consumerUuid: C(9), consumerGeneration: 3, allocations: [] })).toMatchObject({ __typename: 'GenerationConflict', expected: 3, actual: null });
    // An empty set removes the allocations and the consumer.
    expect(await set({ consumerUuid: C(1), consumerGeneration: 2, allocations: [] })).toMatchObject({ consumerUuid: C(1), consumer: null });
    expect((await h.gql(`{ consumer(uuid: "${C(1)}") { uuid } }`)).data.consumer).toBeNull();
  });

  it('checks capacity, min_unit, max_unit and step_size, changing nothing on failure', async () => {
    await set({ consumerUuid: C(1), allocations: [{ providerUuid: U(1), resources: [{ resourceClass: 'VCPU', amount: 6 }] }] });
    const cases: [object, string][] = [
      [{ resourceClass: 'VCPU', amount: 3 }, 'exceed the capacity (used 6 + 3 > capacity 8)'],
      [{ resourceClass: 'MEMORY_MB', amount: 128 }, 'below min_unit 256'],
      [{ resourceClass: 'MEMORY_MB', amount: 2304 }, 'above max_unit 2048'],
      [{ resourceClass: 'MEMORY_MB', amount: 300 }, 'not a multiple of step_size 256'],
    ];
    for (const [resource, rule] of cases) {
      const result = await set({
        consumerUuid: C(2),
        allocations: [
          { providerUuid: U(2), resources: [{ resourceClass: 'DISK_GB', amount: 1 }] },
          { providerUuid: U(1), resources: [resource] },
        ],
      });
      expect(result.__typename).toBe('CapacityExceeded');
      expect(result.field).toBe('allocations.1.resources.0.amount');
      expect(result.message).toContain(rule);
    }
    expect(await set({ consumerUuid: C(2), allocations: [{ providerUuid: U(1), resources: [{ resourceClass: 'VCPU', amount: 3 }] }] })).toMatchObject({ providerUuid: U(1), requested: 3, used: 6, capacity: 8 });
    expect(await used(U(2))).toEqual({ generation: 0, inventories: [{ resourceClass: 'DISK_GB', used: 0 }] });
  });

  it('lists every invalid field', async () => {
    const result = await set({
      consumerUuid: C(1),
      projectId: '',
      consumerType: 'instance',
      allocations: [
        { providerUuid: U(7), resources: [{ resourceClass: 'VCPU', amount: 1 }] },
        { providerUuid: U(1), resources: [{ resourceClass: 'VCPU', amount: 0 }, { resourceClass: 'VCPU', amount: 1 }] },
        { providerUuid: U(2), resources: [] },
      ],
    });
    expect(result.issues.map((i: any) => i.path)).toEqual([
      'projectId',
      'consumerType',
      'allocations.0.providerUuid',
      'allocations.1.resources.0.amount',
      'allocations.1.resources.1.resourceClass',
      'allocations.2.resources',
    ]);
    const noInventory = await set({ consumerUuid: C(1), allocations: [{ providerUuid: U(2), resources: [{ resourceClass: 'VCPU', amount: 1 }] }] });
    expect(noInventory).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'allocations.0.resources.0.resourceClass' }] });
  });

  it('deletes allocations without changing provider generations (as Placement), and NotFound for a consumer without any', async () => {
    await set({ consumerUuid: C(1), allocations: [{ providerUuid: U(2), resources: [{ resourceClass: 'DISK_GB', amount: 5 }] }] });
    const del = async () => (await h.gql(`mutation { deleteAllocations(input: {consumerUuid: "${C(1)}"}) { ${errorSelection('deleteAllocations')} ... on ConsumerPayload { consumerUuid consumer { uuid } } } }`)).data.deleteAllocations;
    expect(await del()).toEqual({ __typename: 'ConsumerPayload', consumerUuid: C(1), consumer: null });
    expect(await used(U(2))).toEqual({ generation: 1, inventories: [{ resourceClass: 'DISK_GB', used: 0 }] });
    expect(await del()).toMatchObject({ __typename: 'NotFound', kind: 'consumer' });
  });

  it('totals usage by project, user and consumer type', async () => {
    await set({ consumerUuid: C(1), projectId: 'p1', userId: 'u1', allocations: [{ providerUuid: U(1), resources: [{ resourceClass: 'VCPU', amount: 1 }] }] });
    await set({ consumerUuid: C(2), projectId: 'p1', userId: 'u2', consumerType: 'MIGRATION', allocations: [{ providerUuid: U(1), resources: [{ resourceClass: 'VCPU', amount: 2 }] }, { providerUuid: U(2), resources: [{ resourceClass: 'DISK_GB', amount: 7 }] }] });
    await set({ consumerUuid: C(3), projectId: 'p2', userId: 'u2', allocations: [{ providerUuid: U(2), resources: [{ resourceClass: 'DISK_GB', amount: 3 }] }] });
    const totals = async (args: string) => (await h.gql(`{ usageTotals(${args}) { key consumerCount resources { resourceClass amount } } }`)).data.usageTotals;
    expect(await totals('groupBy: PROJECT')).toEqual([
      { key: 'p1', consumerCount: 2, resources: [{ resourceClass: 'VCPU', amount: 3 }, { resourceClass: 'DISK_GB', amount: 7 }] },
      { key: 'p2', consumerCount: 1, resources: [{ resourceClass: 'DISK_GB', amount: 3 }] },
    ]);
    expect(await totals('groupBy: CONSUMER_TYPE, projectId: "p1"')).toEqual([
      { key: 'INSTANCE', consumerCount: 1, resources: [{ resourceClass: 'VCPU', amount: 1 }] },
      { key: 'MIGRATION', consumerCount: 1, resources: [{ resourceClass: 'VCPU', amount: 2 }, { resourceClass: 'DISK_GB', amount: 7 }] },
    ]);
    expect(await totals('groupBy: USER, userId: "u2"')).toEqual([{ key: 'u2', consumerCount: 2, resources: [{ resourceClass: 'VCPU', amount: 2 }, { resourceClass: 'DISK_GB', amount: 10 }] }]);
  });

  it('shows what each consumer holds on a provider', async () => {
    await set({ consumerUuid: C(1), allocations: [{ providerUuid: U(1), resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'MEMORY_MB', amount: 256 }] }] });
    const p = (await h.gql(`{ resourceProvider(uuid: "${U(1)}") { usages { resourceClass used } allocations { consumer { uuid } resources { resourceClass amount } } } }`)).data.resourceProvider;
    expect(p.usages).toEqual([{ resourceClass: 'VCPU', used: 1 }, { resourceClass: 'MEMORY_MB', used: 256 }]);
    expect(p.allocations).toEqual([{ consumer: { uuid: C(1) }, resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'MEMORY_MB', amount: 256 }] }]);
  });
});
