// The mirror judges what Placement answers, record by record, before anything is stored: answers
// recorded from Placement 8.0.0 at the edges of what it accepts (an inventory whose capacity is
// beyond GraphQL's Int, names of 200 emoji, 255-character project ids), and the recorded answers
// with records corrupted as a broken or hostile Placement would send them. A bad record is skipped
// with its reason, shown in `upstream` and /health, and every reader keeps getting answers.
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { Gateway } from '../src/mirror/gateway.js';
import { fixedTokenSession, withServiceUrls } from '../src/upstream/session.js';
import { recording, startFakePlacement, type Recording } from './fake-placement.js';
import { fakeGlance, fakeIronic, fakeNova, fakePlacement, type IronicNode, type NovaFlavor } from './fake-openstack.js';
import { fixture, tempDbFile } from './helpers.js';

const limits = (): Recording => fixture('./fixtures/upstream/placement-8.0.0-limits.json');
const NUMA = 'd0000000-0000-0000-0000-000000000002';
const BIG = 'd0000000-0000-0000-0000-0000000000b1';
const WIDE = 'd0000000-0000-0000-0000-0000000000e1';
const F1 = 'f0000000-0000-0000-0000-000000000001';
const CN2 = 'c0000000-0000-0000-0000-000000000002';
const E2 = 'e0000000-0000-0000-0000-000000000002';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function mirrorOf(rec: Recording) {
  const fake = await startFakePlacement(rec);
  const db = openDatabase(tempDbFile());
  const gateway = new Gateway(db, fixedTokenSession(fake.url, 'admin'), { interval: 15, retryDelayMs: 1 });
  const yoga = createServer({ db, gateway, maskErrors: false });
  cleanups.push(() => fake.close(), () => gateway.stop(), () => db.close());
  const gql = async (query: string) => {
    const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    return (await response.json()) as any;
  };
  const health = async () => (await (await yoga.fetch('http://test/health')).json()) as any;
  return { fake, db, gateway, gql, health };
}

/** What dashboards, scripts and GraphiQL read: every field of every provider, capacities and usage totals. */
const READERS = `{
  resourceProviders(first: 100) { totalCount nodes {
    uuid name generation parent { uuid } root { uuid } children { uuid }
    inventories { resourceClass total reserved minUnit maxUnit stepSize allocationRatio capacity used free }
    usages { resourceClass used } traits aggregates
    allocations { consumer { uuid projectId userId generation } resources { resourceClass amount } } } }
  capacity { resources { resourceClass total capacity used free } }
  traits(first: 100) { totalCount }
}`;

const SKIPPED = '{ upstream { lastError stale skipped { count reasons { kind reason count } records(first: 100) { kind record reason } } } }';

describe('records at the edges of what Placement 8.0.0 accepts', () => {
  it('mirrors names of 200 characters as Python counts them and 255-character project ids; skips an inventory whose capacity the API cannot answer, and the allocations on it', async () => {
    const { gateway, gql, health } = await mirrorOf(limits());
    await gateway.refresh();
    const read = await gql(READERS);
    expect(read.errors).toBeUndefined();
    const byUuid = new Map<string, any>(read.data.resourceProviders.nodes.map((p: any) => [p.uuid, p]));
    expect(byUuid.size).toBe(5);
    expect(byUuid.get(WIDE).name).toBe('\u{1F5A5}'.repeat(200));
    // total 2147483647 at allocation_ratio 2: within each field's range, and a capacity of 4294967294.
    expect(byUuid.get(BIG).inventories.map((i: any) => i.resourceClass)).toEqual(['MEMORY_MB']);
    expect(byUuid.get(BIG).allocations).toEqual([{ consumer: { uuid: F1, projectId: 'p'.repeat(255), userId: '44444444-4444-4444-4444-444444444444', generation: 1 }, resources: [{ resourceClass: 'MEMORY_MB', amount: 512 }] }]);
    const status = (await gql(SKIPPED)).data.upstream;
    expect(status.lastError).toBeNull();
    expect(status.skipped).toEqual({
      count: 2,
      reasons: [
        { kind: 'allocation', reason: 'the provider has no inventory of that class in the mirror', count: 1 },
        { kind: 'inventory', reason: 'its allocation_ratio gives a capacity floor((total - reserved) * allocation_ratio) of 4294967294, above 2147483647, the largest the API can answer: lower allocation_ratio or total', count: 1 },
      ],
      records: [
        {
          kind: 'inventory',
          record: `inventory "VCPU" of provider ${BIG} (total 2147483647, reserved 0, min_unit 1, max_unit 2147483647, step_size 1, allocation_ratio 2)`,
          reason: 'its allocation_ratio gives a capacity floor((total - reserved) * allocation_ratio) of 4294967294, above 2147483647, the largest the API can answer: lower allocation_ratio or total',
        },
        { kind: 'allocation', record: `VCPU 4 of consumer ${F1} on provider ${BIG}`, reason: 'the provider has no inventory of that class in the mirror' },
      ],
    });
    // /health answers without a token: counts and reasons, no record.
    expect((await health()).upstream.skipped).toEqual({
      records: 2,
      reasons: ['1 allocation: the provider has no inventory of that class in the mirror', '1 inventory: its allocation_ratio gives a capacity floor((total - reserved) * allocation_ratio) of 4294967294, above 2147483647, the largest the API can answer: lower allocation_ratio or total'],
    });
    // The next refresh reads nothing again (no generation moved) and keeps saying so.
    await gateway.refresh();
    expect((await gql(SKIPPED)).data.upstream.skipped.count).toBe(2);
  });

  it('refuses a refresh that would leave providers without a parent, and keeps the mirror as it was', async () => {
    const rec = limits();
    const { fake, gateway, gql } = await mirrorOf(rec);
    await gateway.refresh();
    const before = await gql(READERS);
    const listing = rec.phases[0].routes['GET /resource_providers'].body as any;
    listing.resource_providers.find((p: any) => p.uuid === NUMA).name = 'n'.repeat(300);
    fake.requests.length = 0;
    await expect(gateway.refresh()).rejects.toThrow(/refused/);
    const status = (await gql(SKIPPED)).data.upstream;
    expect(status.lastError).toBe(
      `The refresh was refused, and the mirror keeps its previous state: Placement's provider ${NUMA} named "${'n'.repeat(40)}"… (300 characters) cannot be mirrored ` +
        '(its name is longer than 200 characters), and 1 provider hangs from it, which would be left without a parent. Correct it in Placement.',
    );
    expect(await gql(READERS)).toEqual(before);
    // Nothing was read past the listings.
    expect(fake.requests.filter((r) => r.startsWith('GET /resource_providers/'))).toEqual([]);
  });
});

/** The recorded cloud (phase "initial") with some answers edited as a broken or hostile Placement would send them. */
function hostile(edit: (routes: Record<string, { status: number; body: any }>) => void): Recording {
  const rec = recording();
  const initial = rec.phases.find((p) => p.name === 'initial')!;
  rec.phases = [initial];
  edit(initial.routes);
  return rec;
}

describe('a hostile or broken Placement', () => {
  it('poisons no read: bad providers, names, generations, parents, inventories, traits, aggregates and consumers are skipped with their reasons', async () => {
    const good = 'f1000000-0000-0000-0000-00000000000';
    const rec = hostile((routes) => {
      const listing = routes['GET /resource_providers'].body.resource_providers;
      const provider = (uuid: string, extra: Record<string, unknown>) => ({ uuid, name: `p-${uuid.slice(-1)}`, generation: 1, parent_provider_uuid: null, root_provider_uuid: uuid, ...extra });
      listing.push(
        provider('not-a-uuid; DROP TABLE', { root_provider_uuid: 'not-a-uuid; DROP TABLE' }),
        provider(`${good}1`, { name: 'n'.repeat(100_000) }),
        provider(`${good}2`, { generation: 'abc' }),
        provider(`${good}3`, { parent_provider_uuid: 'f2000000-0000-0000-0000-000000000000', root_provider_uuid: 'f2000000-0000-0000-0000-000000000000' }),
        provider(`${good}4`, { name: 'cn1' }), // cn1's name again
        provider(`${good}5`, { name: 'bad \ud800 text' }),
        'not an object',
      );
      routes['GET /traits'].body.traits.push('lower_case', 'X'.repeat(300));
      routes[`GET /resource_providers/${CN2}/inventories`].body.inventories.DISK_GB.allocation_ratio = '2';
      routes[`GET /resource_providers/${CN2}/inventories`].body.inventories['bad class'] = { total: 1, reserved: 0, min_unit: 1, max_unit: 1, step_size: 1, allocation_ratio: 1 };
      routes[`GET /resource_providers/${CN2}/traits`].body.traits.push('not a trait');
      routes[`GET /resource_providers/${CN2}/aggregates`].body.aggregates.push('../../etc/passwd');
      routes[`GET /allocations/${E2}`].body.user_id = 'u'.repeat(256);
    });
    const { gateway, gql, health } = await mirrorOf(rec);
    await gateway.refresh();
    const read = await gql(READERS);
    expect(read.errors).toBeUndefined();
    // cn1 and nfs keep the name and generation Placement gave them; the hostile records are not there.
    const names = read.data.resourceProviders.nodes.map((p: any) => p.name).sort();
    expect(names).toEqual(['cn1', 'cn1_pf0', 'cn2', 'nfs']);
    const cn2 = read.data.resourceProviders.nodes.find((p: any) => p.uuid === CN2);
    expect(cn2.inventories.map((i: any) => i.resourceClass)).toEqual(['VCPU', 'MEMORY_MB']);
    expect(cn2.traits).toEqual(['HW_CPU_X86_AVX2']);
    expect(cn2.aggregates).toEqual([]);
    // The consumer with a 256-character user id is left out, with its allocations.
    expect(read.data.resourceProviders.nodes.flatMap((p: any) => p.allocations.map((a: any) => a.consumer.uuid))).not.toContain(E2);

    const status = (await gql(SKIPPED)).data.upstream;
    expect(status.lastError).toBeNull();
    expect([...status.skipped.records].sort(byRecord)).toEqual([
      { kind: 'provider', record: 'entry 11 of the listing', reason: 'it is not an object' },
      { kind: 'trait', record: 'trait "lower_case"', reason: 'its name is not upper-case letters, digits and _ (at most 255)' },
      { kind: 'trait', record: `trait "${'X'.repeat(40)}"… (300 characters)`, reason: 'its name is not upper-case letters, digits and _ (at most 255)' },
      { kind: 'provider', record: 'provider "not-a-uuid; DROP TABLE"', reason: 'its uuid is not a uuid in canonical form (8-4-4-4-12 lower-case hex digits)' },
      { kind: 'provider', record: `provider ${good}1 named "${'n'.repeat(40)}"… (100000 characters)`, reason: 'its name is longer than 200 characters' },
      { kind: 'provider', record: `provider ${good}2 with generation "abc"`, reason: 'its generation is not a whole number from 0 to 2147483647' },
      { kind: 'provider', record: `provider ${good}3 with parent f2000000-0000-0000-0000-000000000000`, reason: 'its parent is not among the providers read' },
      { kind: 'provider', record: `provider ${good}4 named "cn1"`, reason: "its name is also another provider's (names are unique)" },
      { kind: 'provider', record: `provider ${good}5 named "bad \\ud800 text"`, reason: 'its name is not valid Unicode text' },
      { kind: 'inventory', record: `inventory "DISK_GB" of provider ${CN2} (total 100, reserved 10, min_unit 1, max_unit 2147483647, step_size 1, allocation_ratio "2")`, reason: 'its allocation_ratio is missing or not a number' },
      { kind: 'inventory', record: `inventory "bad class" of provider ${CN2}`, reason: 'its resource class is not upper-case letters, digits and _ (at most 255)' },
      { kind: 'trait', record: `trait "not a trait" of provider ${CN2}`, reason: 'its name is not upper-case letters, digits and _ (at most 255)' },
      { kind: 'aggregate', record: `aggregate "../../etc/passwd" of provider ${CN2}`, reason: 'it is not a uuid in canonical form (8-4-4-4-12 lower-case hex digits)' },
      { kind: 'consumer', record: `consumer ${E2}`, reason: 'its user_id is longer than 255 characters' },
    ].sort(byRecord));
    expect((await health()).upstream.skipped.records).toBe(14);
  });
});

const byRecord = (a: { record: string }, b: { record: string }) => (a.record < b.record ? -1 : 1);

describe('answers read back after a write', () => {
  it('are judged as a refresh judges them: a trait listing with a bad name after createTrait stores only the valid names', async () => {
    const rec = recording();
    const { fake, db, gateway, gql } = await mirrorOf(rec);
    fake.setPhase('nfs changed by another client');
    await gateway.refresh();
    fake.intercept = (key, res) => {
      if (key !== 'GET /traits') return false;
      const traits = (rec.phases.find((p) => p.name === 'config: trait created')!.routes['GET /traits'].body as any).traits;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ traits: [...traits, 'bad name; DROP TABLE traits'] }));
      return true;
    };
    const created = await gql('mutation { createTrait(input: { name: "CUSTOM_GOLD" }) { __typename } }');
    expect(created.data.createTrait.__typename).toBe('TraitPayload');
    const names = (db.sqlite.prepare("SELECT name FROM traits WHERE standard = 0 OR name LIKE '% %' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(['CUSTOM_GOLD', 'CUSTOM_PHYSNET_NET0']);
  });
});

describe("Nova's, Glance's and Ironic's records", () => {
  it('a flavor, server, image or node that breaks a rule is skipped with its reason; the others are mirrored and every reader answers', async () => {
    const cn = 'c0000000-0000-4000-8000-000000000001';
    const bm = (n: number) => `b0000000-0000-4000-8000-00000000000${n}`;
    const placement = await fakePlacement({
      providers: [
        { uuid: cn, name: 'cn1', inventories: { VCPU: 8 }, traits: [] },
        ...[1, 2, 3].map((n) => ({ uuid: bm(n), name: bm(n), inventories: { CUSTOM_BAREMETAL: 1 }, traits: [] })),
      ],
      consumers: {},
    });
    const flavor = (id: string, name: string, extra: Record<string, unknown> = {}) => ({ id, name, vcpus: 2, ram: 2048, disk: 20, extraSpecs: {}, ...extra }) as NovaFlavor;
    const nova = await fakeNova({
      flavors: [flavor('1', 'm1.small'), flavor('2', 'm1.bad', { vcpus: 'abc' }), flavor('3', 'm1.huge', { ram: 2 ** 40 }), flavor('4', 'm1.small'), flavor('5', 'm1.spec', { extraSpecs: { 'hw:cpu_policy': 'x'.repeat(300) } })],
      servers: [
        { id: 'a0000000-0000-4000-8000-000000000001', name: 'web', status: 'ACTIVE', flavor: '1', host: 'cn1', tenantId: 'p1' },
        { id: 'not-a-server-id', name: 'web', status: 'ACTIVE', flavor: '1', host: 'cn1', tenantId: 'p1' },
      ],
    });
    const glance = await fakeGlance({
      images: [
        { id: 'f0000000-0000-4000-8000-000000000001', name: 'cirros', updatedAt: '2026-01-01T00:00:01Z', properties: {} },
        { id: 'x; DROP TABLE images', name: 'evil', updatedAt: '2026-01-01T00:00:02Z', properties: {} },
        { id: 'f0000000-0000-4000-8000-000000000003', name: 'i'.repeat(300), updatedAt: '2026-01-01T00:00:03Z', properties: {} },
      ],
    });
    const node = (n: number, extra: Partial<IronicNode> = {}): IronicNode => ({ uuid: bm(n), name: `metal-${n}`, provisionState: 'available', resourceClass: 'baremetal', traits: [], instanceUuid: null, ...extra });
    const ironic = await fakeIronic({ nodes: [node(1), node(2, { name: 'metal-1' }), node(3, { traits: ['not a trait'] })] });
    cleanups.push(() => placement.close(), () => nova.close(), () => glance.close(), () => ironic.close());
    const db = openDatabase(tempDbFile());
    const gateway = new Gateway(db, withServiceUrls(fixedTokenSession(placement.url, 'admin'), { compute: nova.endpoint, image: glance.url, baremetal: ironic.url }), { interval: 15, retryDelayMs: 1 });
    const yoga = createServer({ db, gateway, maskErrors: false });
    cleanups.push(() => gateway.stop(), () => db.close());
    await gateway.refresh();
    expect(gateway.services.status().map((s) => s.lastError)).toEqual([null, null, null]);
    const response = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `{ flavors(first: 100) { nodes { name vcpus memoryMb extraSpecs { key value } } } images(first: 100) { nodes { uuid name } }
          baremetalNodes(first: 100) { nodes { uuid name traits } } ${SKIPPED.slice(1, -1)} }`,
      }),
    });
    const { data, errors } = (await response.json()) as any;
    expect(errors).toBeUndefined();
    expect(data.flavors.nodes).toEqual([{ name: 'm1.small', vcpus: 2, memoryMb: 2048, extraSpecs: [] }]);
    expect(data.images.nodes).toEqual([{ uuid: 'f0000000-0000-4000-8000-000000000001', name: 'cirros' }]);
    expect(data.baremetalNodes.nodes).toEqual([{ uuid: bm(1), name: 'metal-1', traits: [] }]);
    expect([...data.upstream.skipped.records].sort(byRecord)).toEqual(
      [
        { kind: 'flavor', record: 'flavor "2" named "m1.bad"', reason: 'its vcpus is not a whole number from 1 to 2147483647' },
        { kind: 'flavor', record: 'flavor "3" named "m1.huge"', reason: 'its ram is not a whole number from 1 to 2147483647' },
        { kind: 'flavor', record: 'flavor "4" named "m1.small"', reason: 'it has the same name as another flavor listed before it' },
        { kind: 'flavor', record: 'flavor "5" named "m1.spec"', reason: 'its extra spec hw:cpu_policy is longer than 255 characters' },
        { kind: 'server', record: 'server "not-a-server-id"', reason: 'its id is not a uuid in canonical form (8-4-4-4-12 lower-case hex digits)' },
        { kind: 'image', record: 'image "x; DROP TABLE images" named "evil"', reason: 'its id is not a uuid in canonical form (8-4-4-4-12 lower-case hex digits)' },
        { kind: 'image', record: `image "f0000000-0000-4000-8000-000000000003" named "${'i'.repeat(40)}"… (300 characters)`, reason: 'its name is longer than 255 characters' },
        { kind: 'node', record: `node "${bm(2)}" named "metal-1"`, reason: 'it has the same name as another node listed before it' },
        { kind: 'node', record: `node "${bm(3)}" named "metal-3"`, reason: 'its traits are not all upper-case letters, digits and _ (at most 255)' },
      ].sort(byRecord),
    );
  });
});
