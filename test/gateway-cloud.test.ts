// Gateway mode over a whole cloud: Placement, Nova, Glance and Ironic stand-ins over HTTP. The
// mirror of flavors, servers, images and nodes equals what the services list (across pages), it
// follows deletions (Nova's servers by changes-since, as Nova 26 answers it), bootCandidates asks what Nova would ask, the audit finds the planted typos,
// drift and orphaned allocation and nothing else, and the services' mutations are refused.
import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { Gateway } from '../src/mirror/gateway.js';
import { SERVERS_CURSOR_MARGIN_MS } from '../src/mirror/services-api.source.js';
import { fixedTokenSession, withServiceUrls } from '../src/upstream/session.js';
import { keystoneSession } from '../src/upstream/keystone.js';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeGlance, fakeIronic, fakeNova, fakePlacement, type GlanceImage, type IronicNode, type NovaFlavor, type NovaServer, type PlacementModel } from './fake-openstack.js';
import { fixture, tempDbFile } from './helpers.js';

const CN1 = 'c0000000-0000-4000-8000-000000000001';
const CN2 = 'c0000000-0000-4000-8000-000000000002';
const BM1 = 'b0000000-0000-4000-8000-000000000001';
const BM2 = 'b0000000-0000-4000-8000-000000000002';
const BM3 = 'b0000000-0000-4000-8000-000000000003';
const VM1 = 'a0000000-0000-4000-8000-000000000001';
const VM2 = 'a0000000-0000-4000-8000-000000000002';
const BMI = 'a0000000-0000-4000-8000-0000000000b1';

const placementModel = (): PlacementModel => ({
  providers: [
    { uuid: CN1, name: 'cn1', inventories: { VCPU: 8, MEMORY_MB: 16384, DISK_GB: 200 }, traits: ['COMPUTE_NODE', 'HW_CPU_X86_AVX2'] },
    { uuid: CN2, name: 'cn2', inventories: { VCPU: 16, MEMORY_MB: 32768, DISK_GB: 400 }, traits: ['COMPUTE_NODE', 'CUSTOM_GOLD'] },
    // Nova's ironic driver: one unit of the node's class, the node's traits (and Nova's own COMPUTE_ ones).
    { uuid: BM1, name: BM1, inventories: { CUSTOM_BAREMETAL_GOLD: 1 }, traits: ['COMPUTE_NODE', 'CUSTOM_RAID5'] },
    // Drift: someone set CUSTOM_GPU on the provider behind Ironic's back, and the node has CUSTOM_RAID5.
    { uuid: BM2, name: BM2, inventories: { CUSTOM_BAREMETAL_GOLD: 1 }, traits: ['COMPUTE_NODE', 'CUSTOM_GPU'] },
  ],
  consumers: {
    [VM1]: { project: 'p1', user: 'u1', allocations: { [CN1]: { VCPU: 2, MEMORY_MB: 2048, DISK_GB: 20 } } },
    // An instance deleted while Placement was unreachable: its allocation stayed.
    [VM2]: { project: 'p1', user: 'u1', allocations: { [CN2]: { VCPU: 4, MEMORY_MB: 4096, DISK_GB: 40 } } },
    [BMI]: { project: 'p2', user: 'u1', allocations: { [BM1]: { CUSTOM_BAREMETAL_GOLD: 1 } } },
  },
});

const flavors = (): NovaFlavor[] => [
  { id: '1', name: 'm1.small', vcpus: 2, ram: 2048, disk: 20, extraSpecs: { 'hw:cpu_policy': 'shared' } },
  { id: '2', name: 'm1.gold', vcpus: 2, ram: 2048, disk: 20, extraSpecs: { 'trait:CUSTOM_GOLD': 'required' } },
  { id: '3', name: 'm1.typo', vcpus: 1, ram: 512, disk: 1, swap: 512, extraSpecs: { 'hw:cpu_polcy': 'dedicated' } },
  { id: '4', name: 'private', vcpus: 4, ram: 4096, disk: 40, ephemeral: 10, isPublic: false, extraSpecs: { 'hw:mem_page_size': 'large' } },
  { id: 'bm', name: 'bm.gold', vcpus: 8, ram: 8192, disk: 100, extraSpecs: { 'resources:CUSTOM_BAREMETAL_GOLD': '1', 'resources:VCPU': '0', 'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0' } },
];

const servers = (): NovaServer[] => [
  { id: VM1, name: 'web-1', status: 'ACTIVE', flavor: '1', host: 'cn1', tenantId: 'p1' },
  { id: BMI, name: 'metal-1', status: 'ACTIVE', flavor: 'bm', host: 'ironic-1', tenantId: 'p2' },
];

const images = (): GlanceImage[] => [
  { id: 'f0000000-0000-4000-8000-000000000001', name: 'cirros', updatedAt: '2026-01-01T00:00:01Z', properties: { hw_disk_bus: 'virtio', os_distro: 'cirros' } },
  { id: 'f0000000-0000-4000-8000-000000000002', name: 'avx', updatedAt: '2026-01-01T00:00:02Z', properties: { 'trait:HW_CPU_X86_AVX2': 'required' } },
  { id: 'f0000000-0000-4000-8000-000000000003', name: 'gold-typo', updatedAt: '2026-01-01T00:00:03Z', properties: { 'trait:CUSTOM_GOLDD': 'required' } },
  { id: 'f0000000-0000-4000-8000-000000000004', name: null, updatedAt: '2026-01-01T00:00:04Z', properties: {} },
];

const nodes = (): IronicNode[] => [
  { uuid: BM1, name: 'metal-a', provisionState: 'active', resourceClass: 'baremetal.gold', traits: ['CUSTOM_RAID5'], instanceUuid: BMI },
  { uuid: BM2, name: 'metal-b', provisionState: 'available', resourceClass: 'baremetal.gold', traits: ['CUSTOM_RAID5'], instanceUuid: null },
  // Enrolled in Ironic, not yet reported to Placement by Nova: not mirrored, counted.
  { uuid: BM3, name: 'metal-c', provisionState: 'enroll', resourceClass: 'baremetal.gold', traits: [], instanceUuid: null },
];

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function cloud(token = 'admin') {
  const nova = { flavors: flavors(), servers: servers(), hiddenSpecs: new Set(['4']), maxLimit: 2 } as Parameters<typeof fakeNova>[0];
  const glance = { images: images(), maxLimit: 2 };
  const ironic = { nodes: nodes(), maxLimit: 2 };
  const [placement, novaServer, glanceServer, ironicServer] = await Promise.all([fakePlacement(placementModel(), token), fakeNova(nova, token), fakeGlance(glance, token), fakeIronic(ironic, token)]);
  cleanups.push(() => placement.close(), () => novaServer.close(), () => glanceServer.close(), () => ironicServer.close());
  return { nova, glance, ironic, placement, novaServer, glanceServer, ironicServer };
}

async function gatewayOver(c: Awaited<ReturnType<typeof cloud>>) {
  const db = openDatabase(tempDbFile());
  const session = withServiceUrls(fixedTokenSession(c.placement.url, 'admin'), { compute: c.novaServer.endpoint, image: c.glanceServer.url, baremetal: c.ironicServer.url });
  const gateway = new Gateway(db, session, { interval: 15, retryDelayMs: 1 });
  const yoga = createServer({ db, gateway, maskErrors: false });
  cleanups.push(() => gateway.stop(), () => db.close());
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    return (await response.json()) as any;
  };
  return { db, gateway, gql, yoga };
}

const FLAVORS = '{ flavors(first: 100) { nodes { name novaId vcpus memoryMb rootGb ephemeralGb swapMb isPublic extraSpecs { key value } } } }';
const IMAGES = '{ images(first: 100) { nodes { name uuid properties { key value } } } }';
const NODES = '{ baremetalNodes(first: 100) { nodes { uuid name provisionState resourceClass traits instanceUuid } } }';
const AUDIT = '{ audit { findings { kind subject image key message } notes } }';

const expectedFlavors = (list: NovaFlavor[]) =>
  list
    .map((f) => ({
      name: f.name,
      novaId: f.id,
      vcpus: f.vcpus,
      memoryMb: f.ram,
      rootGb: f.disk,
      ephemeralGb: f.ephemeral ?? 0,
      swapMb: f.swap ?? 0,
      isPublic: f.isPublic ?? true,
      extraSpecs: Object.entries(f.extraSpecs).map(([key, value]) => ({ key, value })),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));

describe('gateway mode over Nova, Glance and Ironic', () => {
  it('mirrors flavors, images, servers and nodes across pages, with the microversions, and says what it mirrors', async () => {
    const c = await cloud();
    const { db, gateway, gql } = await gatewayOver(c);
    const changes = await gateway.refresh();
    expect(changes.services).toMatchObject({ compute: { added: 5 }, servers: { added: 2 }, image: { added: 4 }, baremetal: { added: 2, skipped: 1 } });

    expect((await gql(FLAVORS)).data.flavors.nodes).toEqual(expectedFlavors(c.nova.flavors));
    const imageList = (await gql(IMAGES)).data.images.nodes;
    expect(imageList).toEqual(
      c.glance.images
        .map((i) => ({ name: i.name ?? i.id, uuid: i.id, properties: Object.entries(i.properties).map(([key, value]) => ({ key, value })) }))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
    expect((await gql(NODES)).data.baremetalNodes.nodes).toEqual([
      { uuid: BM1, name: 'metal-a', provisionState: 'ACTIVE', resourceClass: 'baremetal.gold', traits: ['CUSTOM_RAID5'], instanceUuid: BMI },
      { uuid: BM2, name: 'metal-b', provisionState: 'AVAILABLE', resourceClass: 'baremetal.gold', traits: ['CUSTOM_RAID5'], instanceUuid: null },
    ]);
    expect(db.sqlite.prepare('SELECT uuid, name, status, flavor, host, project_id AS projectId FROM servers ORDER BY uuid').all()).toEqual([
      { uuid: VM1, name: 'web-1', status: 'ACTIVE', flavor: 'm1.small', host: 'cn1', projectId: 'p1' },
      { uuid: BMI, name: 'metal-1', status: 'ACTIVE', flavor: 'bm.gold', host: 'ironic-1', projectId: 'p2' },
    ]);

    const consumer = async (uuid: string) => (await gql(`{ consumer(uuid: "${uuid}") { server { uuid name status flavor host projectId } } }`)).data.consumer.server;
    expect(await consumer(VM1)).toEqual({ uuid: VM1, name: 'web-1', status: 'ACTIVE', flavor: 'm1.small', host: 'cn1', projectId: 'p1' });
    expect(await consumer(VM2)).toBeNull();

    // Paged with limit and marker; extra specs fetched apart only for the flavor whose listing hides them.
    expect(c.novaServer.requests.filter((r) => r.startsWith('GET /v2.1/flavors/detail'))).toEqual([
      'GET /v2.1/flavors/detail?is_public=None&limit=1000',
      'GET /v2.1/flavors/detail?is_public=None&limit=1000&marker=2',
      'GET /v2.1/flavors/detail?is_public=None&limit=1000&marker=4',
    ]);
    expect(c.novaServer.requests.filter((r) => r.includes('os-extra_specs'))).toEqual(['GET /v2.1/flavors/4/os-extra_specs']);
    expect(c.glanceServer.requests.length).toBe(2);
    expect(c.ironicServer.requests).toEqual([
      'GET /v1/nodes?fields=uuid,name,provision_state,resource_class,traits,instance_uuid&limit=1000',
      `GET /v1/nodes?fields=uuid%2Cname%2Cprovision_state%2Cresource_class%2Ctraits%2Cinstance_uuid&limit=1000&marker=${BM2}`,
    ]);

    const { data } = await gql('{ upstream { services { service name url mirrored note items servers skipped lastError } } }');
    expect(data.upstream.services).toEqual([
      { service: 'compute', name: 'Nova', url: c.novaServer.endpoint, mirrored: true, note: null, items: 5, servers: 2, skipped: 0, lastError: null },
      { service: 'image', name: 'Glance', url: c.glanceServer.url, mirrored: true, note: null, items: 4, servers: null, skipped: 0, lastError: null },
      { service: 'baremetal', name: 'Ironic', url: c.ironicServer.url, mirrored: true, note: expect.stringContaining('1 node is not mirrored'), items: 2, servers: null, skipped: 1, lastError: null },
    ]);
  });

  it('answers bootCandidates for a mirrored flavor and image as Nova would ask Placement, and audits the cloud', async () => {
    const c = await cloud();
    const { gateway, gql } = await gatewayOver(c);
    await gateway.refresh();
    const boot = await gql(`{ bootCandidates(flavor: "m1.gold", image: "cirros") { request { query } reasons
      result { ... on Candidates { allocationRequests { allocations { provider { name } resources { resourceClass amount } } } } } } }`);
    expect(boot.data.bootCandidates.request.query).toBe('limit=1000&required=CUSTOM_GOLD&resources=DISK_GB%3A20%2CMEMORY_MB%3A2048%2CVCPU%3A2&root_required=%21COMPUTE_STATUS_DISABLED');
    expect(boot.data.bootCandidates.result.allocationRequests.map((r: any) => r.allocations[0].provider.name)).toEqual(['cn2']);
    const metal = await gql(`{ bootCandidates(flavor: "bm.gold") { request { query } result { ... on Candidates { allocationRequests { allocations { provider { uuid } } } } } } }`);
    expect(metal.data.bootCandidates.request.query).toBe('limit=1000&resources=CUSTOM_BAREMETAL_GOLD%3A1&root_required=%21COMPUTE_STATUS_DISABLED');
    expect(metal.data.bootCandidates.result.allocationRequests.map((r: any) => r.allocations[0].provider.uuid)).toEqual([BM2]);

    const { data } = await gql(AUDIT);
    expect(data.audit.findings.map((f: any) => [f.kind, f.subject, f.image, f.key])).toEqual([
      ['FLAVOR_EXTRA_SPEC', 'm1.typo', null, 'hw:cpu_polcy'],
      ['IMAGE_PROPERTY', 'gold-typo', null, 'trait:CUSTOM_GOLDD'],
      // No bare-metal node has AVX2, and the gold hosts have not either.
      ['UNSCHEDULABLE', 'bm.gold', 'avx', null],
      ['UNSCHEDULABLE', 'm1.gold', 'avx', null],
      ['NODE_TRAIT_DRIFT', BM2, null, null],
      ['ORPHANED_ALLOCATION', VM2, null, null],
    ]);
    expect(data.audit.notes).toEqual([]);
  });

  it('follows what was deleted upstream, reads Glance incrementally between full listings, and keeps a service whose read fails, which /metrics shows', async () => {
    const c = await cloud();
    const { gateway, gql, yoga } = await gatewayOver(c);
    await gateway.refresh();
    c.nova.flavors = c.nova.flavors.filter((f) => f.name !== 'private');
    c.glance.images = c.glance.images.filter((i) => i.name !== 'cirros');
    c.glance.images.push({ id: 'f0000000-0000-4000-8000-000000000005', name: 'new', updatedAt: '2026-01-02T00:00:00Z', properties: { hw_vif_model: 'virtio' } });
    c.ironic.nodes = c.ironic.nodes.filter((n) => n.uuid !== BM2);
    c.glanceServer.requests.length = 0;
    await gateway.refresh();
    // An incremental read: the new image comes, the deleted one stays until the next full listing.
    expect(c.glanceServer.requests).toEqual([`GET /v2/images?visibility=all&limit=1000&updated_at=gt%3A2026-01-01T00%3A00%3A04Z`]);
    const names = async () => (await gql(IMAGES)).data.images.nodes.map((i: any) => i.name);
    expect(await names()).toContain('new');
    expect(await names()).toContain('cirros');
    expect((await gql(FLAVORS)).data.flavors.nodes.map((f: any) => f.name)).not.toContain('private');
    expect((await gql(NODES)).data.baremetalNodes.nodes.map((n: any) => n.uuid)).toEqual([BM1]);
    // syncUpstream lists Glance whole.
    const sync = await gql('mutation { syncUpstream { services { service lastError } } }');
    expect(sync.errors).toBeUndefined();
    expect(await names()).not.toContain('cirros');

    // Glance down: the rest is refreshed, the images stay as they were, the error is shown.
    await c.glanceServer.close();
    c.nova.flavors = c.nova.flavors.filter((f) => f.name !== 'm1.typo');
    await gateway.refresh();
    expect((await gql(FLAVORS)).data.flavors.nodes.map((f: any) => f.name)).not.toContain('m1.typo');
    expect(await names()).toContain('new');
    const { data } = await gql('{ upstream { services { service lastError } } }');
    expect(data.upstream.services[1].lastError).toMatch(/Glance at .* is unreachable/);
    // /metrics says which service's read fails, and how old each one's mirror is.
    const metrics = await (await yoga.fetch('http://test/metrics')).text();
    expect(metrics).toContain('placement_gql_upstream_service_failing{service="image"} 1\n');
    expect(metrics).toContain('placement_gql_upstream_service_failing{service="compute"} 0\n');
    expect(metrics).toContain('placement_gql_upstream_service_failing{service="baremetal"} 0\n');
    const lag = (service: string) => Number(metrics.match(new RegExp(`^placement_gql_upstream_service_lag_seconds\\{service="${service}"\\} (\\S+)$`, 'm'))?.[1]);
    expect(lag('compute')).toBeLessThan(lag('image'));
    expect(lag('compute')).toBeGreaterThanOrEqual(0);
  });

  it('lists servers as Nova 26 does, whole and by changes-since (deleted ones DELETED), and refuses a changes-since that is not a time (recorded)', async () => {
    const rec = fixture('./fixtures/upstream/nova-26-servers.json');
    const recorded = (name: 'whole' | 'changes') => rec[name].body.servers as any[];
    const [kept] = recorded('whole');
    const [deleted] = recorded('changes');
    const server = (s: any, more: Partial<NovaServer>): NovaServer => ({ id: s.id, name: s.name, status: 'ACTIVE', flavor: '1', host: s['OS-EXT-SRV-ATTR:host'], tenantId: s.tenant_id, updated: s.updated, ...more });
    const nova = await fakeNova({
      flavors: [{ id: '1', name: kept.flavor.original_name, vcpus: kept.flavor.vcpus, ram: kept.flavor.ram, disk: kept.flavor.disk, extraSpecs: kept.flavor.extra_specs }],
      servers: [server(kept, {}), server(deleted, { deleted: true })],
    });
    cleanups.push(() => nova.close());
    const ask = async (path: string) => {
      const response = await fetch(`${nova.endpoint}${path}`, { headers: { 'x-auth-token': 'admin', 'openstack-api-version': 'compute 2.61' } });
      return { status: response.status, body: (await response.json()) as any };
    };
    const fields = ({ id, name, status, tenant_id, updated, flavor, 'OS-EXT-SRV-ATTR:host': host }: any) => ({ id, name, status, tenant_id, updated, flavor, host });
    for (const name of ['whole', 'changes'] as const) {
      const { status, body } = await ask(rec[name].request);
      expect(status).toBe(200);
      expect(Object.keys(body)).toEqual(Object.keys(rec[name].body));
      expect(body.servers.map(fields)).toEqual(recorded(name).map(fields));
    }
    expect(await ask(rec.invalid.request)).toEqual({ status: rec.invalid.status, body: rec.invalid.body });
  });

  it("reads Nova's servers by changes-since after the first listing: added, changed and deleted ones applied, listed again unchanged; whole again without a cursor", async () => {
    const c = await cloud();
    const { db, gateway } = await gatewayOver(c);
    const started = Date.now();
    await gateway.refresh();
    const mark = () => db.sqlite.prepare("SELECT cursor FROM mirrored_services WHERE service = 'servers'").get() as { cursor: string | null };
    const cursor = mark().cursor!;
    // The next read starts a margin before this one started (Nova's clocks may be behind ours), to the second.
    expect(cursor).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(cursor)).toBeGreaterThan(started - SERVERS_CURSOR_MARGIN_MS - 1000);
    expect(Date.parse(cursor)).toBeLessThanOrEqual(Date.now() - SERVERS_CURSOR_MARGIN_MS);

    const now = new Date().toISOString();
    const VM3 = 'a0000000-0000-4000-8000-000000000003';
    const VM4 = 'a0000000-0000-4000-8000-000000000004';
    const web1 = c.nova.servers.find((s) => s.id === VM1)!;
    Object.assign(web1, { status: 'SHUTOFF', host: 'cn2', updated: now });
    Object.assign(c.nova.servers.find((s) => s.id === BMI)!, { deleted: true, updated: now });
    c.nova.servers.push(
      { id: VM3, name: 'web-3', status: 'ACTIVE', flavor: '2', host: 'cn2', tenantId: 'p3', updated: now },
      // Created and deleted between two reads: listed DELETED, never stored.
      { id: VM4, name: 'gone', status: 'ACTIVE', flavor: '1', host: 'cn1', tenantId: 'p3', updated: now, deleted: true },
    );
    c.novaServer.requests.length = 0;
    const changes = await gateway.refresh();
    const serverRequests = () => c.novaServer.requests.filter((r) => r.startsWith('GET /v2.1/servers/'));
    // Four changes, two to a page (max_limit 2), each page asking for changes since the cursor.
    const since = `changes-since=${encodeURIComponent(cursor)}`;
    expect(serverRequests()).toEqual([
      `GET /v2.1/servers/detail?all_tenants=True&${since}&limit=1000`,
      `GET /v2.1/servers/detail?all_tenants=True&${since}&limit=1000&marker=${BMI}`,
    ]);
    expect(changes.services?.servers).toEqual({ added: 1, updated: 1, removed: 1, skipped: 0 });
    const rows = () => db.sqlite.prepare('SELECT uuid, name, status, flavor, host, project_id AS projectId FROM servers ORDER BY uuid').all();
    const expected = [
      { uuid: VM1, name: 'web-1', status: 'SHUTOFF', flavor: 'm1.small', host: 'cn2', projectId: 'p1' },
      { uuid: VM3, name: 'web-3', status: 'ACTIVE', flavor: 'm1.gold', host: 'cn2', projectId: 'p3' },
    ];
    expect(rows()).toEqual(expected);

    // The same changes listed again (the cursor is a margin earlier): nothing moves.
    c.novaServer.requests.length = 0;
    expect((await gateway.refresh()).services?.servers).toEqual({ added: 0, updated: 0, removed: 0, skipped: 0 });
    expect(serverRequests()[0]).toContain('changes-since=');
    expect(rows()).toEqual(expected);

    // A change that breaks a rule: the server is skipped (and leaves the mirror) until a change mends it.
    const skips = () => db.sqlite.prepare("SELECT record, reason FROM mirror_skipped WHERE source = 'compute' AND kind = 'server'").all();
    Object.assign(web1, { name: 'x'.repeat(256), updated: new Date().toISOString() });
    expect((await gateway.refresh()).services?.servers).toMatchObject({ removed: 1 });
    expect(rows()).toEqual(expected.slice(1));
    expect(skips()).toEqual([{ record: `server "${VM1}"`, reason: expect.stringContaining('name') }]);
    Object.assign(web1, { name: 'web-1', updated: new Date().toISOString() });
    expect((await gateway.refresh()).services?.servers).toMatchObject({ added: 1 });
    expect(rows()).toEqual(expected);
    expect(skips()).toEqual([]);

    // Without a cursor (a mirror written before it was kept), the servers are listed whole again.
    db.sqlite.prepare("UPDATE mirrored_services SET cursor = NULL WHERE service = 'servers'").run();
    c.nova.servers = c.nova.servers.filter((s) => s.id !== VM3);
    c.novaServer.requests.length = 0;
    expect((await gateway.refresh()).services?.servers).toEqual({ added: 0, updated: 0, removed: 1, skipped: 0 });
    expect(serverRequests()).toEqual(['GET /v2.1/servers/detail?all_tenants=True&limit=1000']);
    expect(rows()).toEqual(expected.slice(0, 1));
    expect(mark().cursor).not.toBeNull();
  });

  it('refuses the mutations of mirrored services, naming them; without the servers, audit says so', async () => {
    const c = await cloud();
    c.nova.serversForbidden = true;
    const { gateway, gql } = await gatewayOver(c);
    await gateway.refresh();
    const created = await gql('mutation { createFlavor(input: { name: "x", vcpus: 1, memoryMb: 1, rootGb: 1 }) { __typename } }');
    expect(created.errors[0].message).toBe(`createFlavor is not available in gateway mode: flavors are mirrored from Nova at ${c.novaServer.endpoint}; create it with \`openstack flavor create\``);
    expect(created.errors[0].extensions.code).toBe('NOT_AVAILABLE_IN_GATEWAY_MODE');
    const image = await gql('mutation { setImageProperties(input: { name: "avx", remove: ["x"] }) { __typename } }');
    expect(image.errors[0].message).toContain(`images are mirrored from Glance at ${c.glanceServer.url}`);
    const node = await gql(`mutation { addNodeTraits(input: { node: "${BM1}", traits: ["CUSTOM_X"] }) { __typename } }`);
    expect(node.errors[0].message).toContain('openstack baremetal node add trait');
    const { data } = await gql(AUDIT);
    expect(data.audit.findings.some((f: any) => f.kind === 'ORPHANED_ALLOCATION')).toBe(false);
    expect(data.audit.notes[0]).toContain('no Nova servers are mirrored');
    const status = await gql('{ upstream { services { note servers } } }');
    expect(status.data.upstream.services[0]).toEqual({ note: expect.stringContaining('servers are not mirrored'), servers: null });
  });

  it('reads a Nova older than 2.61 (extra specs asked apart) and an Ironic that ignores fields= (details asked)', async () => {
    const c = await cloud();
    c.nova.maxMicroversion = 60;
    c.nova.hiddenSpecs = new Set();
    (c.ironic as any).ignoresFields = true;
    const { gateway, gql } = await gatewayOver(c);
    await gateway.refresh();
    expect((await gql(FLAVORS)).data.flavors.nodes).toEqual(expectedFlavors(c.nova.flavors));
    expect(c.novaServer.requests.filter((r) => r.includes('os-extra_specs'))).toHaveLength(5);
    expect((await gql(NODES)).data.baremetalNodes.nodes.map((n: any) => [n.uuid, n.traits])).toEqual([
      [BM1, ['CUSTOM_RAID5']],
      [BM2, ['CUSTOM_RAID5']],
    ]);
    expect(c.ironicServer.requests[1]).toBe('GET /v1/nodes?detail=True&limit=1000');
  });

  it('forgets a service no longer mirrored: what it left stays, local, and the audit no longer trusts old servers', async () => {
    const c = await cloud();
    const { db, gateway } = await gatewayOver(c);
    await gateway.refresh();
    const again = new Gateway(db, fixedTokenSession(c.placement.url, 'admin'), { interval: 15, retryDelayMs: 1 });
    cleanups.push(() => again.stop());
    await again.refresh();
    // Only the record of which Placement the database mirrors stays.
    expect(db.sqlite.prepare('SELECT service FROM mirrored_services').all()).toEqual([{ service: 'placement' }]);
    expect((db.sqlite.prepare('SELECT COUNT(*) AS n FROM flavors').get() as any).n).toBe(5);
  });

  it('keeps flavor and image mutations local when Nova and Glance are not mirrored', async () => {
    const c = await cloud();
    const db = openDatabase(tempDbFile());
    const gateway = new Gateway(db, fixedTokenSession(c.placement.url, 'admin'), { interval: 15, retryDelayMs: 1 });
    const yoga = createServer({ db, gateway, maskErrors: false });
    cleanups.push(() => gateway.stop(), () => db.close());
    await gateway.refresh();
    const response = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { createFlavor(input: { name: "x", vcpus: 1, memoryMb: 1, rootGb: 1 }) { __typename } }' }),
    });
    expect(((await response.json()) as any).data.createFlavor.__typename).toBe('FlavorPayload');
    expect(gateway.services.status().map((s) => s.mirrored)).toEqual([false, false, false]);
  });
});

/** A Keystone that issues one token for any credentials, with this catalog (public, RegionOne). */
async function fakeKeystone(token: string, catalog: Record<string, string>) {
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const now = Date.now();
      const body = {
        token: {
          issued_at: new Date(now).toISOString(),
          expires_at: new Date(now + 3600_000).toISOString(),
          catalog: Object.entries(catalog).map(([type, url]) => ({ type, name: type, endpoints: [{ interface: 'public', region_id: 'RegionOne', region: 'RegionOne', url }] })),
        },
      };
      res.writeHead(201, { 'content-type': 'application/json', 'x-subject-token': token }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('endpoints from the service catalog', () => {
  it('mirrors the services the catalog has, Glance addressed versionless, and says which it has not', async () => {
    const c = await cloud('gAAAAAB-cloud');
    const auth = await fakeKeystone('gAAAAAB-cloud', { placement: c.placement.url, compute: c.novaServer.endpoint, image: `${c.glanceServer.url}/v2` });
    const session = keystoneSession({ authUrl: auth, auth: { method: 'password', user: { name: 'admin', domain: { name: 'Default' } }, password: 'pw', scope: { project: { name: 'admin', domain: { name: 'Default' } } } }, tls: { rejectUnauthorized: true }, region: 'RegionOne' });
    const db = openDatabase(tempDbFile());
    const gateway = new Gateway(db, session, { interval: 15, retryDelayMs: 1 });
    cleanups.push(() => gateway.stop(), () => session.close(), () => db.close());
    await gateway.refresh();
    expect(gateway.services.status().map((s) => [s.service, s.url, s.mirrored, s.items])).toEqual([
      ['compute', c.novaServer.endpoint, true, 5],
      ['image', c.glanceServer.url, true, 4],
      ['baremetal', null, false, 0],
    ]);
    expect(gateway.services.status()[2].note).toBe('not mirrored: the service catalog has no baremetal endpoint (--ironic-url gives one)');
    expect(c.ironicServer.requests).toEqual([]);
  });
});

describe('placement-gql sync and audit over a whole cloud', () => {
  it('mirrors Nova, Glance and Ironic with --nova-url, --glance-url, --ironic-url and the token, then audits the file', async () => {
    const c = await cloud();
    const file = tempDbFile();
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { env: { ...process.env, OS_CLOUD: '', OS_AUTH_URL: '' } }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
      );
    const sync = await run(['sync', '--db', file, '--upstream', c.placement.url, '--upstream-token', 'admin', '--nova-url', c.novaServer.endpoint, '--glance-url', c.glanceServer.url, '--ironic-url', c.ironicServer.url]);
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain(`Mirrored Nova at ${c.novaServer.endpoint}: 5 flavors, 2 servers`);
    expect(sync.stdout).toContain(`Mirrored Glance at ${c.glanceServer.url}: 4 images.`);
    expect(sync.stdout).toContain(`Mirrored Ironic at ${c.ironicServer.url}: 2 nodes (1 node is not mirrored`);
    const audit = await run(['audit', '--db', file]);
    expect(audit.code).toBe(1);
    expect(audit.stdout).toContain(`ORPHANED_ALLOCATION (1)\n  ${VM2}: `);
    expect(audit.stdout).toContain('6 findings.');
  }, 60_000);
});

describe("Ironic's next links", () => {
  it('are followed as given on the same origin, and on ours when Ironic names its public URL', async () => {
    const { sameOrigin } = await import('../src/mirror/services-api.source.js');
    expect(sameOrigin('http://10.0.0.1:6385', 'http://10.0.0.1:6385/v1/nodes?marker=x')).toBe('http://10.0.0.1:6385/v1/nodes?marker=x');
    expect(sameOrigin('http://10.0.0.1:6385', 'https://bm.example/v1/nodes?marker=x')).toBe('http://10.0.0.1:6385/v1/nodes?marker=x');
    expect(sameOrigin('http://10.0.0.1/baremetal', 'https://bm.example/baremetal/v1/nodes?marker=x')).toBe('http://10.0.0.1/baremetal/v1/nodes?marker=x');
  });
});

describe('the flags and clouds.yaml settings of the other services', () => {
  it('--nova-url, --glance-url, --ironic-url beside a fixed token; <service>_endpoint_override in clouds.yaml; refused without an upstream', async () => {
    const { resolveUpstreamOptions, UpstreamConfigError } = await import('../src/upstream/clouds.js');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'clouds-'));
    const where = { cwd: dir, home: dir, siteDir: dir };
    const fixed = resolveUpstreamOptions(
      { upstream: 'http://ctl:8778', 'upstream-token': 'admin', 'nova-url': 'http://ctl:8774/v2.1/', 'glance-url': 'http://ctl:9292', 'ironic-url': 'http://ctl:6385' },
      {},
      where,
    )!;
    expect(await Promise.all((['placement', 'compute', 'image', 'baremetal'] as const).map((s) => fixed.endpoint(s)))).toEqual(['http://ctl:8778', 'http://ctl:8774/v2.1', 'http://ctl:9292', 'http://ctl:6385']);
    expect(await fixed.token()).toBe('admin');
    expect(() => resolveUpstreamOptions({ 'nova-url': 'http://ctl:8774/v2.1' }, {}, where)).toThrow(UpstreamConfigError);
    expect(() => resolveUpstreamOptions({ upstream: 'http://ctl:8778', 'upstream-token': 'admin', 'glance-url': 'ftp://x' }, {}, where)).toThrow('--glance-url must be an http:// or https:// URL');
    writeFileSync(
      join(dir, 'clouds.yaml'),
      'clouds:\n  prod:\n    auth: {auth_url: "http://ks:5000", username: u, password: p, project_name: p}\n    compute_endpoint_override: http://nova:8774/v2.1\n    image_endpoint_override: http://glance:9292\n',
    );
    const cloud = resolveUpstreamOptions({ 'os-cloud': 'prod' }, {}, where)!;
    expect(await cloud.endpoint('compute')).toBe('http://nova:8774/v2.1');
    expect(await cloud.endpoint('image')).toBe('http://glance:9292');
    (cloud as any).close?.();
  });
});
