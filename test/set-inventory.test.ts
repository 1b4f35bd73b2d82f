// setInventory replayed against what the real Placement 8.0.0 answered to the same
// PUT /resource_providers/{uuid}/inventories/{rc} requests (test/golden/set-inventory): the
// inventories after every step, the generation bump, and the error for every refusal.
import { describe, expect, it } from 'vitest';
import { errorSelection, fixture, harness } from './helpers.js';

const golden = fixture('golden/set-inventory/placement.json');

const SET = `mutation($input: SetInventoryInput!) { setInventory(input: $input) { ${errorSelection('setInventory')}
  ... on ResourceProviderPayload { provider { generation } } } }`;
const READ = `query($uuid: UUID!) { resourceProvider(uuid: $uuid) { generation inventories { resourceClass total reserved minUnit maxUnit stepSize allocationRatio } } }`;

/** Placement's GET .../inventories body in our field names, by class. */
const placementInventories = (answer: any) =>
  Object.fromEntries(
    Object.entries(answer.inventories).map(([rc, i]: [string, any]) => [rc, { total: i.total, reserved: i.reserved, minUnit: i.min_unit, maxUnit: i.max_unit, stepSize: i.step_size, allocationRatio: i.allocation_ratio }]),
  );

describe('setInventory, step by step as Placement answered', () => {
  const h = harness(golden.scenario);
  const read = async () => (await h.gql(READ, { uuid: golden.provider })).data.resourceProvider;

  for (const [n, step] of (golden.steps as any[]).entries()) {
    it(`${n + 1}. ${step.resource_class} ${JSON.stringify(step.body)}${step.generation_offset ? ' (stale generation)' : ''}: Placement ${step.status}`, async () => {
      const before = await read();
      const input = { providerUuid: golden.provider, generation: before.generation + step.generation_offset, resourceClass: step.resource_class, ...step.body };
      for (const [from, to] of [['min_unit', 'minUnit'], ['max_unit', 'maxUnit'], ['step_size', 'stepSize'], ['allocation_ratio', 'allocationRatio']]) {
        if (from in input) [input[to], input[from]] = [input[from], undefined];
      }
      const result = (await h.gql(SET, { input })).data.setInventory;
      const after = await read();
      const ours = Object.fromEntries(after.inventories.map(({ resourceClass, ...fields }: any) => [resourceClass, fields]));

      if (step.answer.detail?.startsWith('No inventory record with resource class')) {
        // Placement's PUT refuses a class the provider has no inventory of; here it is added (osc-placement's --amend).
        expect(result).toMatchObject({ __typename: 'ResourceProviderPayload', provider: { generation: before.generation + 1 } });
        expect(ours).toEqual({ ...placementInventories(step.inventories_after), [step.resource_class]: { total: step.body.total, reserved: 0, minUnit: 1, maxUnit: 2147483647, stepSize: 1, allocationRatio: 1 } });
        return;
      }
      expect(ours).toEqual(placementInventories(step.inventories_after));
      if (step.status === 200) {
        expect(result).toEqual({ __typename: 'ResourceProviderPayload', provider: { generation: before.generation + 1 } });
        return;
      }
      expect(after.generation).toBe(before.generation);
      if (step.status === 409) expect(result).toMatchObject({ __typename: 'GenerationConflict', code: step.answer.code, message: expect.stringMatching(/^resource provider generation conflict/) });
      else if (step.status === 404) expect(result).toMatchObject({ __typename: 'NotFound', message: step.answer.detail });
      else {
        expect(result.__typename).toBe('InvalidInput');
        const field = step.body.total < 1 ? 'total' : 'reserved';
        expect(result.issues).toEqual([{ path: field, message: expect.stringMatching(field === 'total' ? /^must be an integer from 1/ : /reserved value \(5\) is greater than total \(4\)/) }]);
      }
    });
  }

  it('an unknown provider is NotFound with Placement\'s words', async () => {
    const result = (await h.gql(SET, { input: { providerUuid: '00000000-0000-0000-0000-000000000000', generation: 0, resourceClass: 'VCPU', total: 1 } })).data.setInventory;
    expect(result).toMatchObject({ __typename: 'NotFound', message: expect.stringMatching(/^No resource provider with uuid 00000000-0000-0000-0000-000000000000 found/) });
  });
});
