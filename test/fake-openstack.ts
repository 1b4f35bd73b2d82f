// Stand-ins for a whole cloud in the tests, answering GETs as the API references say: a Placement
// built from a small model, Nova (flavors with extra_specs embedded from compute 2.61, servers
// with deleted ones under changes-since; limit/marker paging with `next` links; 403 where policy
// forbids), Glance v2 (images with custom properties at the top level, `next` relative to the
// versionless URL, updated_at=gt:) and Ironic (nodes with fields=, traits from 1.37, `next` as a
// full URL). Each is its own HTTP server.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Handler = (url: URL, req: IncomingMessage) => { status: number; body?: unknown; headers?: Record<string, string> };

async function serve(token: string, handler: Handler) {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    let answer: ReturnType<Handler>;
    if (req.headers['x-auth-token'] !== token) answer = { status: 401, body: { error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } } };
    else if (req.method !== 'GET') answer = { status: 405, body: { error: 'read-only fake' } };
    else answer = handler(new URL(req.url!, 'http://fake'), req);
    const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
    res.writeHead(answer.status, { ...(text ? { 'content-type': 'application/json' } : {}), ...answer.headers });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

/** limit/marker over a sorted list: the page after the marker, and whether more follow. */
function page<T>(items: readonly T[], id: (t: T) => string, url: URL, maxLimit: number): { items: T[]; more: boolean } | { status: number; body: unknown } {
  const limit = Math.min(Number(url.searchParams.get('limit') ?? maxLimit), maxLimit);
  const marker = url.searchParams.get('marker');
  let start = 0;
  if (marker !== null) {
    const at = items.findIndex((t) => id(t) === marker);
    if (at < 0) return { status: 400, body: { badRequest: { code: 400, message: `marker [${marker}] not found` } } };
    start = at + 1;
  }
  return { items: items.slice(start, start + limit), more: start + limit < items.length };
}

// ---- Placement ----------------------------------------------------------------------------------

export interface PlacementModel {
  providers: { uuid: string; name: string; parent?: string | null; inventories: Record<string, number>; traits: string[]; generation?: number }[];
  /** consumer -> its project, user and allocations (provider -> class -> amount). */
  consumers: Record<string, { project: string; user: string; allocations: Record<string, Record<string, number>> }>;
  customTraits?: string[];
  customClasses?: string[];
}

const STANDARD_CLASSES = ['VCPU', 'MEMORY_MB', 'DISK_GB', 'PCPU', 'VGPU'];

export async function fakePlacement(model: PlacementModel, token = 'admin') {
  const root = (uuid: string): string => {
    const p = model.providers.find((x) => x.uuid === uuid)!;
    return p.parent ? root(p.parent) : p.uuid;
  };
  const inventory = (total: number) => ({ total, reserved: 0, min_unit: 1, max_unit: total, step_size: 1, allocation_ratio: 1.0 });
  return serve(token, (url) => {
    const path = url.pathname;
    if (path === '/') return { status: 200, body: { versions: [{ id: 'v1.0', max_version: '1.39', min_version: '1.0', status: 'CURRENT' }] } };
    if (path === '/resource_providers')
      return {
        status: 200,
        body: {
          resource_providers: model.providers.map((p) => ({ uuid: p.uuid, name: p.name, generation: p.generation ?? 1, parent_provider_uuid: p.parent ?? null, root_provider_uuid: root(p.uuid) })),
        },
      };
    if (path === '/traits') {
      const all = new Set([...(model.customTraits ?? []), ...model.providers.flatMap((p) => p.traits)]);
      return { status: 200, body: { traits: [...all].sort() } };
    }
    if (path === '/resource_classes') {
      const all = new Set([...STANDARD_CLASSES, ...(model.customClasses ?? []), ...model.providers.flatMap((p) => Object.keys(p.inventories))]);
      return { status: 200, body: { resource_classes: [...all].map((name) => ({ name })) } };
    }
    if (path === '/usages') {
      const project = url.searchParams.get('project_id');
      const user = url.searchParams.get('user_id');
      const usages: Record<string, number> = {};
      for (const c of Object.values(model.consumers)) {
        if (c.project !== project || (user && c.user !== user)) continue;
        for (const byClass of Object.values(c.allocations)) for (const [rc, n] of Object.entries(byClass)) usages[rc] = (usages[rc] ?? 0) + n;
      }
      return { status: 200, body: { usages } };
    }
    let m = path.match(/^\/allocations\/([^/]+)$/);
    if (m) {
      const c = model.consumers[m[1]];
      if (!c) return { status: 200, body: { allocations: {} } };
      const allocations = Object.fromEntries(Object.entries(c.allocations).map(([rp, resources]) => [rp, { generation: 1, resources }]));
      return { status: 200, body: { allocations, project_id: c.project, user_id: c.user, consumer_generation: 1, consumer_type: 'INSTANCE' } };
    }
    m = path.match(/^\/resource_providers\/([^/]+)\/(inventories|traits|aggregates|allocations|usages)$/);
    const p = m && model.providers.find((x) => x.uuid === m![1]);
    if (m && p) {
      const generation = p.generation ?? 1;
      if (m[2] === 'inventories') return { status: 200, body: { resource_provider_generation: generation, inventories: Object.fromEntries(Object.entries(p.inventories).map(([rc, n]) => [rc, inventory(n)])) } };
      if (m[2] === 'traits') return { status: 200, body: { resource_provider_generation: generation, traits: p.traits } };
      if (m[2] === 'aggregates') return { status: 200, body: { resource_provider_generation: generation, aggregates: [] } };
      if (m[2] === 'allocations') {
        const allocations: Record<string, unknown> = {};
        for (const [uuid, c] of Object.entries(model.consumers)) if (c.allocations[p.uuid]) allocations[uuid] = { resources: c.allocations[p.uuid], consumer_generation: 1 };
        return { status: 200, body: { resource_provider_generation: generation, allocations } };
      }
    }
    return { status: 404, body: { errors: [{ status: 404, title: 'Not Found', detail: 'The resource could not be found.' }] } };
  });
}

// ---- Nova ---------------------------------------------------------------------------------------

export interface NovaFlavor {
  id: string;
  name: string;
  vcpus: number;
  ram: number;
  disk: number;
  ephemeral?: number;
  swap?: number;
  isPublic?: boolean;
  extraSpecs: Record<string, string>;
}

export interface NovaServer {
  id: string;
  name: string;
  status: string;
  flavor: string;
  host: string | null;
  tenantId: string;
  /** Nova's updated_at (default: the epoch); a deletion keeps the time of the last save (soft delete). */
  updated?: string;
  /** Soft-deleted: listed (status DELETED) only under changes-since, as Nova does. */
  deleted?: boolean;
}

export interface NovaModel {
  flavors: NovaFlavor[];
  servers: NovaServer[];
  /** Flavors whose extra specs the policy keeps out of the listing (os_compute_api:os-flavor-extra-specs:index). */
  hiddenSpecs?: Set<string>;
  /** all_tenants is forbidden (a non-admin token): 403. */
  serversForbidden?: boolean;
  /** Nova's [api] max_limit. */
  maxLimit?: number;
  /** The newest compute microversion served (default 2.96); a newer one asked is answered 406. */
  maxMicroversion?: number;
}

const versionOf = (req: IncomingMessage) => {
  const header = String(req.headers['openstack-api-version'] ?? '');
  const m = header.match(/^compute (\d+)\.(\d+)$/) ?? String(req.headers['x-openstack-nova-api-version'] ?? '').match(/^()(\d+)\.(\d+)$/);
  return m ? Number(m[m.length - 1]) : 1;
};

/** Nova's next link: the request's query with the marker of the last item. */
function nextQuery(url: URL, marker: string) {
  const params = new URLSearchParams(url.search);
  params.set('marker', marker);
  return params.toString();
}

/** Nova's compute API at URL/v2.1. */
export async function fakeNova(model: NovaModel, token = 'admin') {
  let base = '';
  const server = await serve(token, (url, req) => {
    const minor = versionOf(req);
    if (minor > (model.maxMicroversion ?? 96)) return { status: 406, body: { computeFault: { code: 406, message: `Version 2.${minor} is not supported by the API. Minimum is 2.1 and maximum is 2.${model.maxMicroversion}.` } } };
    const path = url.pathname.replace(/^\/v2\.1/, '');
    const maxLimit = model.maxLimit ?? 1000;
    if (path === '/flavors/detail') {
      if (url.searchParams.get('is_public') !== 'None') return { status: 400, body: { badRequest: { code: 400, message: 'the test expects is_public=None' } } };
      const sorted = [...model.flavors].sort((a, b) => (a.id < b.id ? -1 : 1));
      const got = page(sorted, (f) => f.id, url, maxLimit);
      if ('status' in got) return got;
      const flavors = got.items.map((f) => ({
        id: f.id,
        name: f.name,
        vcpus: f.vcpus,
        ram: f.ram,
        disk: f.disk,
        'OS-FLV-EXT-DATA:ephemeral': f.ephemeral ?? 0,
        'OS-FLV-DISABLED:disabled': false,
        swap: minor >= 75 ? (f.swap ?? 0) : f.swap ? f.swap : '',
        rxtx_factor: 1.0,
        'os-flavor-access:is_public': f.isPublic ?? true,
        description: null,
        links: [{ rel: 'self', href: `${base}/v2.1/flavors/${f.id}` }],
        ...(minor >= 61 && !model.hiddenSpecs?.has(f.id) ? { extra_specs: f.extraSpecs } : {}),
      }));
      const last = got.items[got.items.length - 1];
      return { status: 200, body: { flavors, ...(got.more ? { flavors_links: [{ rel: 'next', href: `${base}/v2.1/flavors/detail?is_public=None&limit=${url.searchParams.get('limit')}&marker=${last.id}` }] } : {}) } };
    }
    let m = path.match(/^\/flavors\/([^/]+)\/os-extra_specs$/);
    if (m) {
      const f = model.flavors.find((x) => x.id === decodeURIComponent(m![1]));
      if (!f) return { status: 404, body: { itemNotFound: { code: 404, message: `Flavor ${m[1]} could not be found.` } } };
      return { status: 200, body: { extra_specs: f.extraSpecs } };
    }
    if (path === '/servers/detail') {
      if (url.searchParams.get('all_tenants') !== 'True') return { status: 400, body: { badRequest: { code: 400, message: 'the test expects all_tenants=True' } } };
      if (model.serversForbidden) return { status: 403, body: { forbidden: { code: 403, message: 'Policy doesn\'t allow os_compute_api:servers:detail:get_all_tenants to be performed.' } } };
      // Nova: without changes-since only servers not deleted; with it, those updated at or after it
      // (updated_at >= changes-since), deleted ones included, their status DELETED.
      const since = url.searchParams.get('changes-since');
      if (since !== null && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(since)) {
        return { status: 400, body: { badRequest: { code: 400, message: `Invalid input for query parameters changes-since. Value: ${since}. '${since}' is not a 'date-time'` } } };
      }
      const updated = (s: NovaServer) => Date.parse(s.updated ?? '1970-01-01T00:00:00Z');
      const listed = model.servers.filter((s) => (since === null ? !s.deleted : updated(s) >= Date.parse(since)));
      const got = page(listed, (s) => s.id, url, maxLimit);
      if ('status' in got) return got;
      const servers = got.items.map((s) => {
        const f = model.flavors.find((x) => x.id === s.flavor)!;
        return {
          id: s.id,
          name: s.name,
          status: s.deleted ? 'DELETED' : s.status,
          updated: new Date(updated(s)).toISOString().replace(/\.\d+Z$/, 'Z'),
          tenant_id: s.tenantId,
          user_id: 'u1',
          'OS-EXT-SRV-ATTR:host': s.host,
          'OS-EXT-SRV-ATTR:hypervisor_hostname': s.host,
          // Since 2.47 the flavor is embedded.
          flavor: minor >= 47 ? { original_name: f.name, vcpus: f.vcpus, ram: f.ram, disk: f.disk, ephemeral: f.ephemeral ?? 0, swap: f.swap ?? 0, extra_specs: f.extraSpecs } : { id: f.id, links: [] },
        };
      });
      const last = got.items[got.items.length - 1];
      return { status: 200, body: { servers, ...(got.more ? { servers_links: [{ rel: 'next', href: `${base}/v2.1/servers/detail?${nextQuery(url, last.id)}` }] } : {}) } };
    }
    return { status: 404, body: { itemNotFound: { code: 404, message: 'The resource could not be found.' } } };
  });
  base = server.url;
  return { ...server, endpoint: `${server.url}/v2.1` };
}

// ---- Glance -------------------------------------------------------------------------------------

export interface GlanceImage {
  id: string;
  name: string | null;
  updatedAt: string;
  /** Custom properties (top-level keys). */
  properties: Record<string, string>;
}

/** `nextLink` (Glance, Ironic): builds the `next` link from the next page's query instead, e.g. one to another host. */
export async function fakeGlance(model: { images: GlanceImage[]; maxLimit?: number; nextLink?: (query: string) => string }, token = 'admin') {
  return serve(token, (url) => {
    if (url.pathname !== '/v2/images') return { status: 404, body: undefined };
    if (url.searchParams.get('visibility') !== 'all') return { status: 400, body: undefined };
    const filter = url.searchParams.get('updated_at');
    let images = [...model.images].sort((a, b) => (a.updatedAt > b.updatedAt ? -1 : a.updatedAt < b.updatedAt ? 1 : a.id < b.id ? -1 : 1));
    if (filter) {
      const m = filter.match(/^(gt|gte):(.+)$/);
      if (!m) return { status: 400, body: undefined };
      images = images.filter((i) => (m[1] === 'gt' ? i.updatedAt > m[2] : i.updatedAt >= m[2]));
    }
    const got = page(images, (i) => i.id, url, model.maxLimit ?? 25);
    if ('status' in got) return got;
    const body: any = {
      images: got.items.map((i) => ({
        id: i.id,
        name: i.name,
        status: 'active',
        visibility: 'public',
        protected: false,
        os_hidden: false,
        checksum: 'ee1eca47dc88f4879d8a229cc70a07c6',
        os_hash_algo: 'sha512',
        os_hash_value: 'abc',
        owner: 'p1',
        size: 13287936,
        virtual_size: null,
        min_ram: 0,
        min_disk: 0,
        container_format: 'bare',
        disk_format: 'qcow2',
        created_at: '2026-01-01T00:00:00Z',
        updated_at: i.updatedAt,
        tags: [],
        self: `/v2/images/${i.id}`,
        file: `/v2/images/${i.id}/file`,
        schema: '/v2/schemas/image',
        ...i.properties,
      })),
      first: '/v2/images',
      schema: '/v2/schemas/images',
    };
    if (got.more) {
      const next = new URLSearchParams(url.searchParams);
      next.set('marker', got.items[got.items.length - 1].id);
      body.next = model.nextLink?.(next.toString()) ?? `/v2/images?${next.toString()}`;
    }
    return { status: 200, body };
  });
}

// ---- Ironic -------------------------------------------------------------------------------------

export interface IronicNode {
  uuid: string;
  name: string | null;
  provisionState: string;
  resourceClass: string | null;
  traits: string[];
  instanceUuid: string | null;
}

export async function fakeIronic(model: { nodes: IronicNode[]; maxLimit?: number; ignoresFields?: boolean; nextLink?: (query: string) => string }, token = 'admin') {
  let base = '';
  const server = await serve(token, (url, req) => {
    if (url.pathname !== '/v1/nodes') return { status: 404, body: { error_message: JSON.stringify({ faultstring: 'Not found', debuginfo: null }) } };
    const version = String(req.headers['x-openstack-ironic-api-version'] ?? '1.1');
    const minor = Number(version.split('.')[1]);
    const fields = model.ignoresFields ? null : url.searchParams.get('fields');
    const bad = (text: string) => ({ status: 400, body: { error_message: JSON.stringify({ faultstring: text, debuginfo: null }) } });
    if (fields && url.searchParams.get('detail')) return bad("Can not specify ?detail=True and fields in the same request.");
    if (fields?.split(',').includes('traits') && minor < 37) return { status: 406, body: { error_message: JSON.stringify({ faultstring: 'Field(s) "traits" are not supported', debuginfo: null }) } };
    const sorted = [...model.nodes].sort((a, b) => (a.uuid < b.uuid ? -1 : 1));
    const got = page(sorted, (n) => n.uuid, url, model.maxLimit ?? 1000);
    if ('status' in got) return got;
    const full = (n: IronicNode): Record<string, unknown> => ({
      uuid: n.uuid,
      name: n.name,
      provision_state: n.provisionState,
      resource_class: n.resourceClass,
      instance_uuid: n.instanceUuid,
      power_state: 'power off',
      maintenance: false,
      driver: 'ipmi',
      ...(minor >= 37 ? { traits: n.traits } : {}),
      links: [{ href: `${base}/v1/nodes/${n.uuid}`, rel: 'self' }],
    });
    const short = (n: IronicNode) => ({ uuid: n.uuid, name: n.name, instance_uuid: n.instanceUuid, power_state: 'power off', provision_state: n.provisionState, maintenance: false, links: [] });
    const nodes = got.items.map((n) => {
      const all = full(n);
      if (fields) return Object.fromEntries(fields.split(',').map((f) => [f, all[f] ?? null]));
      return url.searchParams.get('detail') === 'True' ? all : short(n);
    });
    const body: any = { nodes };
    if (got.more) {
      const next = new URLSearchParams(url.searchParams);
      next.set('marker', got.items[got.items.length - 1].uuid);
      body.next = model.nextLink?.(next.toString()) ?? `${base}/v1/nodes?${next.toString()}`;
    }
    return { status: 200, body };
  });
  base = server.url;
  return server;
}
