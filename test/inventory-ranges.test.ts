// Every inventory stored can be answered: Placement 8.0.0 takes total 2147483647 with allocation_ratio 2
// and answers a capacity of 4294967294 (recorded with oracle/live_placement.py), which GraphQL's Int
// cannot carry. Such an inventory is refused on every way in, naming the field and the rule, and the
// pages that show the provider keep answering.
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { Gateway } from '../src/mirror/gateway.js';
import { fixedTokenSession } from '../src/upstream/session.js';
import { importSnapshot, SnapshotRejected } from '../src/modules/snapshot/snapshot.service.js';
import { checkDocuments } from '../src/modules/provider-config/provider-config.documents.js';
import { recording, startFakePlacement } from './fake-placement.js';
import { errorSelection, harness, tempDbFile } from './helpers.js';

const MAX_INT = 2147483647;
const RP = 'abcdef00-0000-4000-8000-000000000001';
const TOO_LARGE = `gives a capacity floor((total - reserved) * allocation_ratio) of 4294967294, above ${MAX_INT}, the largest the API can answer: lower allocation_ratio or total`;
const PAGE = `{ resourceProviders { nodes { name inventories { resourceClass total capacity used free } } } }`;

const cloud = () => ({ providers: [{ uuid: RP, name: 'cn1', parent: null }], inventories: { [RP]: { VCPU: 8 } } });

describe('capacity beyond what the API answers', () => {
  it('setInventories refuses it, naming allocationRatio, and changes nothing; the listing still answers', async () => {
    const h = harness(cloud());
    const { data } = await h.gql(
      `mutation($input: SetInventoriesInput!) { setInventories(input: $input) { ${errorSelection('setInventories')} ... on ResourceProviderPayload { provider { generation } } } }`,
      { input: { providerUuid: RP, generation: 0, inventories: [{ resourceClass: 'VCPU', total: 8 }, { resourceClass: 'MEMORY_MB', total: MAX_INT, allocationRatio: 2 }] } },
    );
    expect(data.setInventories).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'inventories.1.allocationRatio', message: TOO_LARGE }] });
    const page = await h.gql(PAGE);
    expect(page.data.resourceProviders.nodes).toEqual([{ name: 'cn1', inventories: [{ resourceClass: 'VCPU', total: 8, capacity: 8, used: 0, free: 8 }] }]);
  });

  it('setInventory refuses it; a capacity of exactly 2147483647 is taken and answered', async () => {
    const h = harness(cloud());
    const set = (generation: number, total: number, allocationRatio: number) =>
      h.gql(`mutation($input: SetInventoryInput!) { setInventory(input: $input) { ${errorSelection('setInventory')} ... on ResourceProviderPayload { provider { generation } } } }`, {
        input: { providerUuid: RP, generation, resourceClass: 'DISK_GB', total, allocationRatio },
      });
    expect((await set(0, MAX_INT, 2)).data.setInventory).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'allocationRatio', message: TOO_LARGE }] });
    expect((await set(0, MAX_INT, 1)).data.setInventory).toEqual({ __typename: 'ResourceProviderPayload', provider: { generation: 1 } });
    expect((await set(1, 1_073_741_824, 1.9999999990686774)).data.setInventory).toMatchObject({ __typename: 'ResourceProviderPayload' });
    const page = await h.gql(PAGE);
    expect(page.data.resourceProviders.nodes[0].inventories).toContainEqual({ resourceClass: 'DISK_GB', total: 1_073_741_824, capacity: MAX_INT, used: 0, free: MAX_INT });
  });

  it('import refuses it, with the path as the file writes it, and nothing is stored', () => {
    const db = openDatabase(tempDbFile());
    const snapshot = { ...cloud(), inventories: { [RP]: { VCPU: { total: MAX_INT, allocation_ratio: 2 } } } };
    expect(() => importSnapshot(db, snapshot)).toThrow(SnapshotRejected);
    try {
      importSnapshot(db, snapshot);
    } catch (error) {
      expect((error as SnapshotRejected).problems).toEqual([{ path: `inventories.${RP}.VCPU.allocation_ratio`, message: TOO_LARGE }]);
    }
    expect(db.sqlite.prepare('SELECT count(*) AS n FROM resource_providers').get()).toEqual({ n: 0 });
  });

  it('import refuses allocations adding up past 2147483647 (reserved lets usage pass capacity)', () => {
    const db = openDatabase(tempDbFile());
    const C = (n: number) => `cccccccc-0000-4000-8000-00000000000${n}`;
    const snapshot = {
      providers: [{ uuid: RP, name: 'cn1', parent: null }],
      inventories: { [RP]: { VCPU: { total: MAX_INT, reserved: MAX_INT - 1, allocation_ratio: 2 } } },
      allocations: { [C(1)]: { [RP]: { VCPU: MAX_INT } }, [C(2)]: { [RP]: { VCPU: MAX_INT } } },
    };
    expect(() => importSnapshot(db, snapshot)).toThrow(
      expect.objectContaining({ problems: [{ path: 'allocations', message: `allocations of VCPU on provider ${RP} add up to 4294967294, above ${MAX_INT}, the largest usage the API can answer` }] }),
    );
  });

  it("a provider config keeps Nova's verdict (valid) with a warning, and applying it is refused", async () => {
    const h = harness({ providers: [{ uuid: RP, name: 'cn1', parent: null }] });
    const content = `meta:\n  schema_version: '1.0'\nproviders:\n  - identification: {uuid: ${RP}}\n    inventories:\n      additional:\n        - CUSTOM_BIG: {total: ${MAX_INT}, allocation_ratio: 2}\n`;
    const checked = checkDocuments([{ name: 'big.yaml', content }]);
    expect(checked.errors).toEqual([]);
    expect(checked.applyProblems).toEqual([
      {
        document: 'big.yaml',
        path: 'providers[0].inventories.additional[0].CUSTOM_BIG.allocation_ratio',
        key: RP,
        rule: 'capacity_out_of_range',
        message: `This inventory of CUSTOM_BIG is refused here (Nova and Placement take it): allocation_ratio ${TOO_LARGE}.`,
      },
    ]);
    const { data } = await h.gql('mutation($i: ApplyProviderConfigInput!) { applyProviderConfig(input: $i) { ... on ProviderConfigPlan { applied errors { rule } } } }', {
      i: { documents: [{ name: 'big.yaml', content }] },
    });
    expect(data.applyProviderConfig).toEqual({ applied: false, errors: [{ rule: 'capacity_out_of_range' }] });
    expect(h.db.sqlite.prepare('SELECT count(*) AS n FROM inventories').get()).toEqual({ n: 0 });
  });
});

describe('capacity beyond what the API answers, in gateway mode', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is refused before anything is sent to Placement (which would take it)', async () => {
    const fake = await startFakePlacement(recording());
    const db = openDatabase(tempDbFile());
    const gateway = new Gateway(db, fixedTokenSession(fake.url, 'admin'), { interval: 15, retryDelayMs: 1 });
    cleanups.push(() => fake.close(), () => gateway.stop(), () => db.close());
    const yoga = createServer({ db, gateway, maskErrors: false });
    const CN1 = 'c0000000-0000-0000-0000-000000000001';
    const response = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation($input: SetInventoriesInput!) { setInventories(input: $input) { ${errorSelection('setInventories')} } }`,
        variables: { input: { providerUuid: CN1, generation: 5, inventories: [{ resourceClass: 'VCPU', total: MAX_INT, allocationRatio: 2 }] } },
      }),
    });
    const body = (await response.json()) as any;
    expect(body.data.setInventories).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'inventories.0.allocationRatio', message: TOO_LARGE }] });
    expect(fake.requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
  });
});
