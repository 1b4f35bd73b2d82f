// Every write gateway mode makes in Placement, against answers recorded from Placement 8.0.0
// (test/fixtures/upstream/record.py): sent through the GraphQL API, or through /placement for the
// operations only Placement's API has. For each: the request Placement received (method, path, body,
// microversion), the answer, the mirror afterwards (what Placement then lists, with no refresh in
// between) and what subscribers were told. Then the refusals: a stale generation answered as
// Placement's conflict, data another service owns, Placement unreachable; none changes anything.
import { afterEach, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { createNodeServer } from '../src/server/http.js';
import { Gateway } from '../src/mirror/gateway.js';
import { fixedTokenSession, withServiceUrls, type UpstreamSession } from '../src/upstream/session.js';
import type { ChangeTopics } from '../src/modules/changes/changes.feed.js';
import { expectedListing, listing, recording, startFakePlacement } from './fake-placement.js';
import { errorSelection, tempDbFile } from './helpers.js';

const rec = recording();
const CN1 = 'c0000000-0000-0000-0000-000000000001';
const CN3 = 'c0000000-0000-0000-0000-000000000003';
const E4 = 'e0000000-0000-0000-0000-000000000004';
const E5 = 'e0000000-0000-0000-0000-000000000005';
const P1 = '11111111-1111-1111-1111-111111111111';
const U1 = '22222222-2222-2222-2222-222222222222';
const AGG = 'a0000000-0000-0000-0000-000000000001';
const AGG2 = 'a0000000-0000-0000-0000-000000000002';
const CN3_PATH = `/resource_providers/${CN3}`;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const phase = (name: string) => {
  const found = rec.phases.find((p) => p.name === name);
  if (!found) throw new Error(`no recorded phase ${name}`);
  return found;
};
/** What Placement answered to GET path in a phase. */
const placementSays = (phaseName: string, path: string) => phase(phaseName).routes[`GET ${path}`].body as any;
/** The recorded writes that lead from one phase to another, in order. */
function recordedWrites(from: string, to: string) {
  const writes = [];
  for (let at = from; at !== to; ) {
    const write = phase(at).writes.find((w) => w.next !== null);
    if (!write) throw new Error(`no recorded write leads from ${from} to ${to}`);
    writes.push(write);
    at = write.next!;
  }
  return writes;
}

type Event = { [T in keyof ChangeTopics]: { topic: T; payload: ChangeTopics[T] } }[keyof ChangeTopics];

/** A gateway-mode server whose mirror holds Placement's state in a recorded phase, with a subscriber on every topic. */
async function setup(from: string, session?: (url: string) => UpstreamSession) {
  const fake = await startFakePlacement(rec);
  fake.setPhase(from);
  const db = openDatabase(tempDbFile());
  const gateway = new Gateway(db, session ? session(fake.url) : fixedTokenSession(fake.url, 'admin'), { interval: 3600, retryDelayMs: 1 });
  const yoga = createServer({ db, gateway, maskErrors: false });
  const node = createNodeServer(yoga);
  cleanups.push(() => fake.close(), () => gateway.stop(), () => node.stop(100, 0), () => db.close());
  if (!session) await gateway.refresh();
  fake.writes.length = 0;

  const events: Event[] = [];
  for (const topic of ['providerChanged', 'usageChanged', 'providerConfigApplied'] as const) {
    const subscription = yoga.feed.subscribe(topic)[Symbol.asyncIterator]();
    cleanups.push(() => subscription.return?.());
    void (async () => {
      for (let next = await subscription.next(); !next.done; next = await subscription.next()) events.push({ topic, payload: next.value } as Event);
    })();
  }
  /** The events published so far (each is delivered to its subscriber on the next turn). */
  const seen = async () => (await new Promise((resolve) => setImmediate(resolve)), events);

  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    return (await response.json()) as any;
  };
  const port = await new Promise<number>((resolve) => node.http.listen(0, '127.0.0.1', () => resolve((node.http.address() as AddressInfo).port)));
  /** A call to this server's Placement API, /placement. */
  const rest = (method: string, path: string, minor: number, body?: unknown) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { 'x-auth-token': 'admin', 'openstack-api-version': `placement 1.${minor}`, accept: 'application/json' };
    if (data) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(data.length) });
    return new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path: `/placement${path}`, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : null });
        });
      });
      req.on('error', reject);
      req.end(data);
    });
  };
  return { fake, gateway, gql, rest, seen };
}

const PROVIDER = `provider { uuid name generation parent { uuid } inventories { resourceClass total reserved } traits aggregates }`;
const payload = (mutation: string, selection = `... on ResourceProviderPayload { ${PROVIDER} }`) => `${errorSelection(mutation)} ${selection}`;

/** The provider as the answer selects it, from what Placement lists in a phase. */
function providerIn(phaseName: string, uuid: string) {
  const p = expectedListing(phase(phaseName)).find((x: any) => x.uuid === uuid);
  return { uuid, name: p.name, generation: p.generation, parent: p.parent, traits: p.traits, aggregates: p.aggregates, inventories: p.inventories.map((i: any) => ({ resourceClass: i.resourceClass, total: i.total, reserved: i.reserved })) };
}
const sorted = (provider: any) => ({
  ...provider,
  traits: [...provider.traits].sort(),
  aggregates: [...provider.aggregates].sort(),
  inventories: [...provider.inventories].sort((a: any, b: any) => a.resourceClass.localeCompare(b.resourceClass)),
});
const providerChanged = (mutation: string, kind: ChangeTopics['providerChanged']['kind'], providerUuid = CN3): Event => ({ topic: 'providerChanged', payload: { mutation, providerUuid, kind } });

type Driven = Awaited<ReturnType<typeof setup>>;
interface WritePath {
  /** The operation of the write port. */
  operation: string;
  from: string;
  to: string;
  /** Sends it through this server; resolves to what the answer must be compared with. */
  send: (t: Driven) => Promise<{ answer: unknown; expected: unknown }>;
  events: Event[];
}

const generation = (phaseName: string, uuid = CN3) => placementSays(phaseName, `/resource_providers/${uuid}`).generation as number;

/** A GraphQL mutation whose answer is the provider as Placement lists it afterwards. */
const providerMutation = (mutation: string, input: (from: string) => string, to: string) => async ({ gql }: Driven) => {
  const answer = (await gql(`mutation { ${mutation}(input: { ${input(to)} }) { ${payload(mutation)} } }`)).data[mutation];
  return { answer: answer.provider ? { ...answer, provider: sorted(answer.provider) } : answer, expected: { __typename: 'ResourceProviderPayload', provider: providerIn(to, CN3) } };
};

/** A call to /placement whose answer must be Placement's own. */
const restCall = (method: string, path: string, minor: number, body: unknown, from: string, to: string) => async ({ rest }: Driven) => {
  const [recorded] = recordedWrites(from, to);
  const answer = await rest(method, path, minor, body);
  return { answer, expected: { status: recorded.status, json: recorded.answer } };
};

const WRITE_PATHS: WritePath[] = [
  {
    operation: 'createProvider',
    from: 'config: nfs written',
    to: 'cn3 created',
    send: providerMutation('createResourceProvider', () => `name: "cn3", uuid: "${CN3}"`, 'cn3 created'),
    events: [providerChanged('createResourceProvider', 'PROVIDER')],
  },
  {
    operation: 'updateProvider (rename)',
    from: 'cn3 created',
    to: 'cn3 renamed',
    send: providerMutation('updateResourceProvider', () => `uuid: "${CN3}", name: "cn3-renamed"`, 'cn3 renamed'),
    events: [providerChanged('updateResourceProvider', 'PROVIDER')],
  },
  {
    operation: 'updateProvider (reparent)',
    from: 'cn3 renamed',
    to: 'cn3 moved under cn1',
    send: providerMutation('updateResourceProvider', () => `uuid: "${CN3}", parentUuid: "${CN1}"`, 'cn3 moved under cn1'),
    events: [providerChanged('updateResourceProvider', 'PROVIDER')],
  },
  {
    operation: 'setInventories',
    from: 'cn3 moved under cn1',
    to: 'cn3 inventories set',
    send: providerMutation('setInventories', () => `providerUuid: "${CN3}", generation: ${generation('cn3 moved under cn1')}, inventories: [{ resourceClass: "VCPU", total: 16 }]`, 'cn3 inventories set'),
    events: [providerChanged('setInventories', 'INVENTORIES')],
  },
  {
    operation: 'setInventory (a class the provider lacks: the whole set, amended)',
    from: 'cn3 inventories set',
    to: 'cn3 memory added by setInventory',
    send: providerMutation('setInventory', () => `providerUuid: "${CN3}", generation: ${generation('cn3 inventories set')}, resourceClass: "MEMORY_MB", total: 4096`, 'cn3 memory added by setInventory'),
    events: [providerChanged('setInventory', 'INVENTORIES')],
  },
  {
    operation: 'setInventory (a class the provider has: that inventory)',
    from: 'cn3 memory added by setInventory',
    to: 'cn3 vcpu updated by setInventory',
    send: providerMutation('setInventory', () => `providerUuid: "${CN3}", generation: ${generation('cn3 memory added by setInventory')}, resourceClass: "VCPU", total: 32`, 'cn3 vcpu updated by setInventory'),
    events: [providerChanged('setInventory', 'INVENTORIES')],
  },
  {
    operation: 'addInventory',
    from: 'cn3 vcpu updated by setInventory',
    to: 'cn3 disk added',
    send: restCall('POST', `${CN3_PATH}/inventories`, 39, { resource_class: 'DISK_GB', total: 200 }, 'cn3 vcpu updated by setInventory', 'cn3 disk added'),
    events: [providerChanged('addInventory', 'INVENTORIES')],
  },
  {
    operation: "updateInventory (at the client's microversion)",
    from: 'cn3 disk added',
    to: 'cn3 disk updated',
    send: restCall('PUT', `${CN3_PATH}/inventories/DISK_GB`, 26, { resource_provider_generation: generation('cn3 disk added'), total: 300, reserved: 10 }, 'cn3 disk added', 'cn3 disk updated'),
    events: [providerChanged('updateInventory', 'INVENTORIES')],
  },
  {
    operation: 'deleteInventory',
    from: 'cn3 disk updated',
    to: 'cn3 disk deleted',
    send: restCall('DELETE', `${CN3_PATH}/inventories/DISK_GB`, 39, undefined, 'cn3 disk updated', 'cn3 disk deleted'),
    events: [providerChanged('deleteInventory', 'INVENTORIES')],
  },
  {
    operation: 'setProviderTraits',
    from: 'cn3 disk deleted',
    to: 'cn3 traits set',
    send: providerMutation('setProviderTraits', () => `providerUuid: "${CN3}", generation: ${generation('cn3 disk deleted')}, traits: ["HW_CPU_X86_AVX2", "CUSTOM_GOLD"]`, 'cn3 traits set'),
    events: [providerChanged('setProviderTraits', 'TRAITS')],
  },
  {
    operation: 'deleteProviderTraits',
    from: 'cn3 traits set',
    to: 'cn3 traits deleted',
    send: restCall('DELETE', `${CN3_PATH}/traits`, 39, undefined, 'cn3 traits set', 'cn3 traits deleted'),
    events: [providerChanged('deleteProviderTraits', 'TRAITS')],
  },
  {
    operation: 'setProviderAggregates (with a generation)',
    from: 'cn3 traits deleted',
    to: 'cn3 aggregates set',
    send: providerMutation('setProviderAggregates', () => `providerUuid: "${CN3}", generation: ${generation('cn3 traits deleted')}, aggregates: ["${AGG2}"]`, 'cn3 aggregates set'),
    events: [providerChanged('setProviderAggregates', 'AGGREGATES')],
  },
  {
    operation: 'setProviderAggregates (the older form, without one)',
    from: 'cn3 aggregates set',
    to: 'cn3 aggregates set at 1.18',
    send: restCall('PUT', `${CN3_PATH}/aggregates`, 18, [AGG, AGG2], 'cn3 aggregates set', 'cn3 aggregates set at 1.18'),
    events: [providerChanged('setProviderAggregates', 'AGGREGATES')],
  },
  {
    operation: 'setAllocations',
    from: 'cn3 aggregates set at 1.18',
    to: 'e4 allocated on cn3',
    send: async ({ gql }) => {
      const answer = (
        await gql(`mutation { setAllocations(input: { consumerUuid: "${E4}", consumerGeneration: null, projectId: "${P1}", userId: "${U1}",
          allocations: [{ providerUuid: "${CN3}", resources: [{ resourceClass: "VCPU", amount: 2 }, { resourceClass: "MEMORY_MB", amount: 1024 }] }] }) {
          ${payload('setAllocations', '... on ConsumerPayload { consumer { uuid generation projectId userId } providerUuids }')} } }`)
      ).data.setAllocations;
      const consumer = placementSays('e4 allocated on cn3', `/allocations/${E4}`);
      return {
        answer,
        expected: { __typename: 'ConsumerPayload', consumer: { uuid: E4, generation: consumer.consumer_generation, projectId: consumer.project_id, userId: consumer.user_id }, providerUuids: [CN3] },
      };
    },
    events: [{ topic: 'usageChanged', payload: { mutation: 'setAllocations', consumerUuid: E4, providerUuids: [CN3] } }],
  },
  {
    operation: 'deleteAllocations',
    from: 'e4 allocated on cn3',
    to: 'e4 deleted',
    send: async ({ gql }) => ({
      answer: (await gql(`mutation { deleteAllocations(input: { consumerUuid: "${E4}" }) { ${payload('deleteAllocations', '... on ConsumerPayload { consumer { uuid } providerUuids }')} } }`)).data.deleteAllocations,
      expected: { __typename: 'ConsumerPayload', consumer: null, providerUuids: [CN3] },
    }),
    events: [{ topic: 'usageChanged', payload: { mutation: 'deleteAllocations', consumerUuid: E4, providerUuids: [CN3] } }],
  },
  {
    operation: 'deleteInventories',
    from: 'e4 deleted',
    to: 'cn3 inventories deleted',
    send: restCall('DELETE', `${CN3_PATH}/inventories`, 39, undefined, 'e4 deleted', 'cn3 inventories deleted'),
    events: [providerChanged('deleteInventories', 'INVENTORIES')],
  },
  {
    operation: 'createTrait',
    from: 'cn3 inventories deleted',
    to: 'silver created',
    send: async ({ gql }) => ({
      answer: (await gql(`mutation { createTrait(input: { name: "CUSTOM_SILVER" }) { ${payload('createTrait', '... on TraitPayload { created trait { name } }')} } }`)).data.createTrait,
      expected: { __typename: 'TraitPayload', created: true, trait: { name: 'CUSTOM_SILVER' } },
    }),
    events: [],
  },
  {
    operation: 'deleteTrait',
    from: 'silver created',
    to: 'silver deleted',
    send: async ({ gql }) => ({
      answer: (await gql(`mutation { deleteTrait(input: { name: "CUSTOM_SILVER" }) { ${payload('deleteTrait', '... on DeleteTraitPayload { name }')} } }`)).data.deleteTrait,
      expected: { __typename: 'DeleteTraitPayload', name: 'CUSTOM_SILVER' },
    }),
    events: [],
  },
  {
    operation: 'createResourceClass',
    from: 'silver deleted',
    to: 'fpga created',
    send: async ({ gql }) => ({
      answer: (await gql(`mutation { createResourceClass(input: { name: "CUSTOM_FPGA" }) { ${payload('createResourceClass', '... on ResourceClassPayload { created resourceClass { name } }')} } }`))
        .data.createResourceClass,
      expected: { __typename: 'ResourceClassPayload', created: true, resourceClass: { name: 'CUSTOM_FPGA' } },
    }),
    events: [],
  },
  {
    operation: 'renameResourceClass',
    from: 'fpga created',
    to: 'fpga renamed',
    send: restCall('PUT', '/resource_classes/CUSTOM_FPGA', 6, { name: 'CUSTOM_FPGA_XILINX' }, 'fpga created', 'fpga renamed'),
    events: [],
  },
  {
    operation: 'deleteResourceClass',
    from: 'fpga renamed',
    to: 'fpga deleted',
    send: async ({ gql }) => ({
      answer: (await gql(`mutation { deleteResourceClass(input: { name: "CUSTOM_FPGA_XILINX" }) { ${payload('deleteResourceClass', '... on DeleteResourceClassPayload { name }')} } }`))
        .data.deleteResourceClass,
      expected: { __typename: 'DeleteResourceClassPayload', name: 'CUSTOM_FPGA_XILINX' },
    }),
    events: [],
  },
  {
    operation: 'applyProviderConfig (a new class, inventories and traits)',
    from: 'fpga deleted',
    to: 'config: cn3 written',
    send: async ({ gql }) => {
      const document = ["meta:", "  schema_version: '1.0'", 'providers:', '  - identification:', `      uuid: ${CN3}`, '    inventories:', '      additional:', '        - CUSTOM_FPGA:', '            total: 2',
        '    traits:', '      additional:', '        - CUSTOM_GOLD'].join('\n');
      const answer = (
        await gql(`mutation($d: [ProviderConfigDocument!]!) { applyProviderConfig(input: { documents: $d }) {
          ${payload('applyProviderConfig', `... on ProviderConfigPlan { applied errors { message } warnings { message } providers { ${PROVIDER} } }`)} } }`, { d: [{ name: 'cn3.yaml', content: document }] })
      ).data.applyProviderConfig;
      return {
        answer: { ...answer, providers: answer.providers?.map((p: any) => ({ provider: sorted(p.provider) })) },
        expected: { __typename: 'ProviderConfigPlan', applied: true, errors: [], warnings: [], providers: [{ provider: providerIn('config: cn3 written', CN3) }] },
      };
    },
    events: [{ topic: 'providerConfigApplied', payload: { documents: ['cn3.yaml'], providerUuids: [CN3] } }],
  },
  {
    operation: 'writeAllocations (several consumers, POST /allocations)',
    from: 'config: cn3 written',
    to: 'e4 and e5 allocated by POST /allocations',
    send: restCall('POST', '/allocations', 39, recordedWrites('config: cn3 written', 'e4 and e5 allocated by POST /allocations')[0].request, 'config: cn3 written', 'e4 and e5 allocated by POST /allocations'),
    events: [
      { topic: 'usageChanged', payload: { mutation: 'writeAllocations', consumerUuid: E4, providerUuids: [CN3] } },
      { topic: 'usageChanged', payload: { mutation: 'writeAllocations', consumerUuid: E5, providerUuids: [CN1] } },
    ],
  },
  {
    operation: 'reshape',
    from: 'e4 and e5 allocated by POST /allocations',
    to: 'cn3 reshaped',
    send: restCall('POST', '/reshaper', 39, {
      inventories: { [CN3]: { resource_provider_generation: generation('e4 and e5 allocated by POST /allocations'), inventories: { CUSTOM_FPGA: { total: 4 } } } },
      allocations: { [E4]: { allocations: { [CN3]: { resources: { CUSTOM_FPGA: 2 } } }, project_id: P1, user_id: U1, consumer_generation: 1, consumer_type: 'INSTANCE' } },
    }, 'e4 and e5 allocated by POST /allocations', 'cn3 reshaped'),
    events: [
      providerChanged('reshape', 'INVENTORIES'),
      { topic: 'usageChanged', payload: { mutation: 'reshape', consumerUuid: E4, providerUuids: [CN3] } },
    ],
  },
  {
    operation: 'deleteAllocations (after a reshape)',
    from: 'cn3 reshaped',
    to: 'e4 freed',
    send: async ({ gql }) => ({
      answer: (await gql(`mutation { deleteAllocations(input: { consumerUuid: "${E4}" }) { ${payload('deleteAllocations', '... on ConsumerPayload { consumer { uuid } providerUuids }')} } }`)).data.deleteAllocations,
      expected: { __typename: 'ConsumerPayload', consumer: null, providerUuids: [CN3] },
    }),
    events: [{ topic: 'usageChanged', payload: { mutation: 'deleteAllocations', consumerUuid: E4, providerUuids: [CN3] } }],
  },
  {
    operation: 'deleteProvider',
    from: 'e4 freed',
    to: 'cn3 deleted',
    send: async ({ gql }) => ({
      answer: (await gql(`mutation { deleteResourceProvider(input: { uuid: "${CN3}" }) { ${payload('deleteResourceProvider', '... on DeleteResourceProviderPayload { uuid name }')} } }`)).data.deleteResourceProvider,
      expected: { __typename: 'DeleteResourceProviderPayload', uuid: CN3, name: 'cn3-renamed' },
    }),
    events: [providerChanged('deleteResourceProvider', 'DELETED')],
  },
];

const NAMES = `{ traits(first: 1000) { nodes { name } } resourceClasses(first: 1000) { nodes { name } } }`;

describe('every write gateway mode makes in Placement', () => {
  for (const path of WRITE_PATHS) {
    it(`${path.operation}: the request Placement recorded, its answer, the mirror and subscribers after it`, async () => {
      const t = await setup(path.from);
      const { answer, expected } = await path.send(t);
      // Placement received the write recorded from the real one (the fake refuses any other) and moved on.
      const recorded = recordedWrites(path.from, path.to).map((w) => ({ method: w.method, path: w.path, body: w.request, microversion: w.microversion ?? '1.39' }));
      expect(t.fake.writes).toEqual(recorded);
      expect(t.fake.phase).toBe(path.to);
      expect(answer).toEqual(expected);
      // The mirror lists what Placement lists, with no refresh in between.
      expect(await listing(t.gql)).toEqual(expectedListing(phase(path.to)));
      const names = (await t.gql(NAMES)).data;
      expect(names.traits.nodes.map((n: any) => n.name).sort()).toEqual([...placementSays(path.to, '/traits').traits].sort());
      expect(names.resourceClasses.nodes.map((n: any) => n.name).sort()).toEqual(placementSays(path.to, '/resource_classes').resource_classes.map((c: any) => c.name).sort());
      expect(await t.seen()).toEqual(path.events);
    });
  }
});

describe('a write that changes nothing', () => {
  it('createTrait of a trait Placement has: sent, answered created: false, nothing told', async () => {
    const t = await setup('silver created');
    const before = await listing(t.gql);
    const answer = (await t.gql(`mutation { createTrait(input: { name: "CUSTOM_SILVER" }) { ${payload('createTrait', '... on TraitPayload { created trait { name } }')} } }`)).data.createTrait;
    expect(t.fake.writes).toEqual([{ method: 'PUT', path: '/traits/CUSTOM_SILVER', body: null, microversion: '1.39' }]);
    expect(answer).toEqual({ __typename: 'TraitPayload', created: false, trait: { name: 'CUSTOM_SILVER' } });
    expect(t.fake.phase).toBe('silver created');
    expect(await listing(t.gql)).toEqual(before);
    expect(await t.seen()).toEqual([]);
  });
});

describe('refusals change nothing', () => {
  const from = 'cn3 inventories set';
  const stale = generation(from) - 1;

  it("a stale generation: Placement's conflict, answered as a GenerationConflict with Placement's code and words", async () => {
    const t = await setup(from);
    const before = await listing(t.gql);
    const answer = (
      await t.gql(`mutation { setInventories(input: { providerUuid: "${CN3}", generation: ${stale}, inventories: [{ resourceClass: "VCPU", total: 64 }] }) { ${payload('setInventories')} } }`)
    ).data.setInventories;
    const refused = phase(from).writes.filter((w) => w.status === 409)[0];
    expect(t.fake.writes).toEqual([{ method: 'PUT', path: `${CN3_PATH}/inventories`, body: refused.request, microversion: '1.39' }]);
    expect(answer).toMatchObject({ __typename: 'GenerationConflict', code: 'placement.concurrent_update', field: 'generation', expected: stale, actual: generation(from) });
    expect(answer.message).toContain((refused.answer as any).errors[0].detail.split('\n\n ')[1].trim());
    expect(t.fake.phase).toBe(from);
    expect(await listing(t.gql)).toEqual(before);
    expect(await t.seen()).toEqual([]);
  });

  it("a stale generation through /placement: Placement's own answer", async () => {
    const t = await setup(from);
    const before = await listing(t.gql);
    const refused = phase(from).writes.filter((w) => w.status === 409)[1];
    const answer = await t.rest('PUT', `${CN3_PATH}/inventories`, 39, { resource_provider_generation: stale, inventories: { VCPU: { total: 64 } } });
    expect(t.fake.writes).toEqual([{ method: 'PUT', path: `${CN3_PATH}/inventories`, body: refused.request, microversion: '1.39' }]);
    // Each service names its own request.
    const withoutId = (body: any) => ({ errors: body.errors.map(({ request_id, ...e }: any) => e) });
    expect(answer.status).toBe(409);
    expect(withoutId(answer.json)).toEqual(withoutId(refused.answer));
    expect(await listing(t.gql)).toEqual(before);
    expect(await t.seen()).toEqual([]);
  });

  it("data another service owns, or a node's provider: NotAvailableHere, and nothing sent to Placement", async () => {
    const NOVA = 'http://127.0.0.1:9/compute/v2.1';
    const t = await setup(from, (url) => withServiceUrls(fixedTokenSession(url, 'admin'), { compute: NOVA }));
    const flavor = await t.gql('mutation { createFlavor(input: { name: "m1.tiny", vcpus: 1, memoryMb: 512, rootGb: 1 }) { __typename } }');
    expect(flavor.errors[0].extensions.code).toBe('NOT_AVAILABLE_IN_GATEWAY_MODE');
    expect(flavor.errors[0].message).toBe(`createFlavor is not available in gateway mode: flavors are mirrored from Nova at ${NOVA}; create it with \`openstack flavor create\``);
    const node = await t.gql('mutation { createNode(input: { name: "n1", resourceClass: "BAREMETAL_GOLD" }) { __typename } }');
    expect(node.errors?.[0]?.extensions.code).toBe('NOT_AVAILABLE_IN_GATEWAY_MODE');
    expect(node.errors[0].message).toMatch(/^createNode is not available in gateway mode: this server mirrors Placement at http:\/\/127\.0\.0\.1:\d+ \(fixed token\), and the change would be lost/);
    expect((await t.gql('{ flavor(name: "m1.tiny") { name } }')).data.flavor).toBeNull();
    expect(t.fake.writes).toEqual([]);
    expect(await t.seen()).toEqual([]);
  });

  it('Placement unavailable: the write is refused as UPSTREAM_UNAVAILABLE, saying nothing was changed', async () => {
    const t = await setup(from);
    const before = await listing(t.gql);
    t.fake.failNext(20, 503);
    const answer = await t.gql(`mutation { setProviderTraits(input: { providerUuid: "${CN3}", generation: ${generation(from)}, traits: ["CUSTOM_GOLD"] }) { ${payload('setProviderTraits')} } }`);
    expect(answer.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(answer.errors[0].message).toMatch(/^setProviderTraits: nothing was changed\. .*503/);
    expect(t.fake.requests).toContain(`PUT ${CN3_PATH}/traits`);
    expect(t.fake.phase).toBe(from);
    expect(await listing(t.gql)).toEqual(before);
    expect(await t.seen()).toEqual([]);
  });
});
