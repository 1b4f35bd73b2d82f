// Reads of Nova (flavors, servers), Glance (images) and Ironic (nodes) for the mirror: read-only,
// paged as each API pages; every record judged before it is kept (services.records.ts).
import { UnexpectedAnswer, UpstreamError } from '../upstream/placement.client.js';
import { isObject, shown, type Skipped } from './records.js';
import { acceptEach, flavorProblem, flavorRecord, imageProblem, nodeProblem, serverProblem } from './services.records.js';
import type { ServiceClient } from '../upstream/service.client.js';
import type { FlavorRow } from '../modules/flavors/flavors.service.js';
import type { ServerRow } from '../modules/servers/servers.service.js';

/** Nova's compute microversion: extra_specs embedded in flavor listings since 2.61. */
export const COMPUTE_MICROVERSION = '2.61';
/** Ironic's microversion: node traits since 1.37. */
export const BAREMETAL_MICROVERSION = '1.37';
export const PAGE_LIMIT = 1000;

export const computeHeaders = { 'openstack-api-version': `compute ${COMPUTE_MICROVERSION}`, 'x-openstack-nova-api-version': COMPUTE_MICROVERSION };
const LEGACY_COMPUTE_HEADERS = { 'openstack-api-version': 'compute 2.1', 'x-openstack-nova-api-version': '2.1' };
export const baremetalHeaders = { 'x-openstack-ironic-api-version': BAREMETAL_MICROVERSION };

/** A flavor as Nova lists it: the fields of the flavor row, with Nova's own id and the extra specs in Nova's order. */
export type MirroredFlavor = Omit<FlavorRow, 'id' | 'novaId' | 'createdAt'> & { id: string; extraSpecs: [string, string][] };

/** A server as Nova lists it: the row the mirror keeps. */
export type MirroredServer = ServerRow;

export interface MirroredImage {
  uuid: string;
  name: string | null;
  updatedAt: string | null;
  properties: [string, string][];
}

export interface MirroredNode {
  uuid: string;
  name: string | null;
  provisionState: string;
  resourceClass: string | null;
  traits: string[];
  instanceUuid: string | null;
}

const nextOf = (links: unknown): boolean => Array.isArray(links) && links.some((l: any) => l?.rel === 'next');

/**
 * Every item of a Nova listing, paged with limit and marker while its links say there is a next page
 * (and stopping at a page that brings nothing new). A Nova older than 2.61 (Queens and before) refuses
 * the microversion with 406: it is then asked at the base microversion.
 */
async function novaPages(nova: ServiceClient, listing: string, key: 'flavors' | 'servers'): Promise<{ items: any[]; headers: Record<string, string> }> {
  const items: any[] = [];
  let marker: string | null = null;
  let headers: Record<string, string> = {};
  for (;;) {
    const path = `${listing}&limit=${PAGE_LIMIT}${marker ? `&marker=${encodeURIComponent(marker)}` : ''}`;
    let page: any;
    try {
      page = await nova.get(path, headers);
    } catch (error) {
      if (!(error instanceof UpstreamError && error.status === 406 && marker === null)) throw error;
      headers = LEGACY_COMPUTE_HEADERS;
      page = await nova.get(path, headers);
    }
    const got = page?.[key] ?? [];
    if (!Array.isArray(got)) throw new UnexpectedAnswer('Nova', 'GET', listing.split('?')[0], `has no ${key} list`);
    items.push(...got);
    const last = got[got.length - 1];
    const next = isObject(last) && (typeof last.id === 'string' || typeof last.id === 'number') ? String(last.id) : null;
    if (next === null || !nextOf(page[`${key}_links`]) || next === marker) return { items, headers };
    marker = next;
  }
}

/** Nova: every flavor, public or not, with extra specs (embedded at 2.61; os-extra_specs where policy hides them). */
export async function readFlavors(nova: ServiceClient, skipped: Skipped): Promise<{ flavors: MirroredFlavor[]; hiddenSpecs: number }> {
  // The extra specs asked apart go at the microversion the listing was answered at.
  const { items: raw, headers } = await novaPages(nova, '/flavors/detail?is_public=None', 'flavors');
  let hiddenSpecs = 0;
  const withSpecs = await Promise.all(
    raw.map(async (f) => {
      if (!isObject(f)) return f;
      let specs: unknown = f.extra_specs;
      if (specs === undefined) {
        try {
          specs = (await nova.get(`/flavors/${encodeURIComponent(String(f.id))}/os-extra_specs`, headers))?.extra_specs ?? {};
        } catch (error) {
          if (!(error instanceof UpstreamError && (error.status === 403 || error.status === 404))) throw error;
          hiddenSpecs++;
          specs = {};
        }
      }
      return { ...f, extra_specs: specs };
    }),
  );
  const flavors = acceptEach(withSpecs, 'flavor', skipped, (f) => flavorProblem(f, f.extra_specs), flavorRecord, [(f) => f.name]).map(
    (f: any): MirroredFlavor => {
      const specs = (f.extra_specs ?? {}) as Record<string, unknown>;
      return {
        id: String(f.id),
        name: String(f.name),
        vcpus: Number(f.vcpus),
        memoryMb: Number(f.ram),
        rootGb: Number(f.disk ?? 0),
        ephemeralGb: Number(f['OS-FLV-EXT-DATA:ephemeral'] ?? 0),
        // '' when 0 before microversion 2.75.
        swapMb: f.swap === '' || f.swap == null ? 0 : Number(f.swap),
        isPublic: f['os-flavor-access:is_public'] !== false,
        extraSpecs: Object.entries(specs).map(([k, v]) => [k, String(v)]),
      };
    },
  );
  return { flavors, hiddenSpecs };
}

/**
 * A read of changes starts this much before the previous read started: the clocks of Nova's hosts
 * (which stamp updated_at) may be behind ours, and a save may commit after the time it stamped.
 * What is listed again is applied again, unchanged.
 */
export const SERVERS_CURSOR_MARGIN_MS = 5 * 60_000;

export interface ServersRead {
  servers: MirroredServer[];
  /** Every server (else only those changed since the cursor). */
  whole: boolean;
  /** Listed changed but not to be kept: deleted (status DELETED) or skipped; their rows go. */
  gone: string[];
  /** The skipped records this listing judged again (a listing of changes replaces only those). */
  judged: string[];
  /** Where the next read of changes starts (changes-since). */
  cursor: string;
}

const serverRecord = (s: Record<string, unknown>) => `server ${shown(s.id)}`;

/**
 * Nova: the servers of every project (the instances behind the allocations): every one, or with
 * `since` only those updated at or after it, deleted ones included (Nova lists soft-deleted
 * servers, status DELETED, under changes-since only).
 */
export async function readServers(nova: ServiceClient, skipped: Skipped, since: string | null = null): Promise<ServersRead> {
  const cursor = new Date(Date.now() - SERVERS_CURSOR_MARGIN_MS).toISOString().replace(/\.\d+Z$/, 'Z');
  const { items } = await novaPages(nova, `/servers/detail?all_tenants=True${since ? `&changes-since=${encodeURIComponent(since)}` : ''}`, 'servers');
  const deleted = items.filter((s) => isObject(s) && s.status === 'DELETED');
  const listed = items.filter((s) => !deleted.includes(s));
  const servers = acceptEach(listed, 'server', skipped, serverProblem, serverRecord).map((s: any) => ({
    uuid: String(s.id),
    name: String(s.name ?? ''),
    status: String(s.status ?? 'UNKNOWN'),
    flavor: s.flavor && (s.flavor.original_name ?? s.flavor.id) != null ? String(s.flavor.original_name ?? s.flavor.id) : null,
    host: s['OS-EXT-SRV-ATTR:host'] ?? null,
    projectId: String(s.tenant_id ?? s.project_id ?? ''),
  }));
  const kept = new Set(servers.map((s) => s.uuid));
  const ids = items.filter(isObject).map((s) => s.id).filter((id): id is string => typeof id === 'string');
  return { servers, whole: since === null, gone: ids.filter((id) => !kept.has(id)), judged: items.filter(isObject).map(serverRecord), cursor };
}

/**
 * Glance's own fields of an image (its schema's properties); every other top-level key is a custom
 * property, but for Glance's reserved os_glance_* ones (import state, set by Glance itself).
 */
export const GLANCE_FIELDS = new Set([
  'id', 'name', 'status', 'visibility', 'protected', 'os_hidden', 'checksum', 'os_hash_algo', 'os_hash_value', 'owner', 'size',
  'virtual_size', 'min_ram', 'min_disk', 'container_format', 'disk_format', 'created_at', 'updated_at', 'tags', 'direct_url',
  'locations', 'self', 'file', 'schema', 'stores',
]);

/** Glance v2: every image (visibility=all), or those updated after `since`; `next` is relative to the versionless URL. */
export async function readImages(glance: ServiceClient, skipped: Skipped, since: string | null = null): Promise<MirroredImage[]> {
  const out: MirroredImage[] = [];
  let path: string | null = `/v2/images?visibility=all&limit=${PAGE_LIMIT}${since ? `&updated_at=${encodeURIComponent(`gt:${since}`)}` : ''}`;
  const seen = new Set<string>();
  while (path) {
    const page: any = await glance.get(path);
    const images = page?.images ?? [];
    if (!Array.isArray(images)) throw new UnexpectedAnswer('Glance', 'GET', '/v2/images', 'has no images list');
    const before = seen.size;
    for (const image of images) {
      if (!isObject(image)) {
        skipped.add('image', `entry of the listing ${shown(image)}`, 'it is not an object');
        continue;
      }
      if (seen.has(String(image.id))) continue;
      seen.add(String(image.id));
      const properties = Object.entries(image)
        .filter(([k, v]) => !GLANCE_FIELDS.has(k) && !k.startsWith('os_glance_') && v !== null && v !== undefined)
        .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]);
      const problem = imageProblem(image, properties);
      if (problem) skipped.add('image', `image ${shown(image.id)} named ${shown(image.name)}`, problem);
      else out.push({ uuid: image.id as string, name: (image.name as string | null) ?? null, updatedAt: (image.updated_at as string | null) ?? null, properties });
    }
    // A page that brings nothing new ends the listing (a next link that goes round in circles).
    path = typeof page?.next === 'string' && page.next && seen.size > before ? page.next : null;
  }
  return out;
}

const NODE_FIELDS = 'uuid,name,provision_state,resource_class,traits,instance_uuid';

/** Ironic: every node with the fields the mirror keeps, following `next` (a full URL). */
export async function readNodes(ironic: ServiceClient, skipped: Skipped): Promise<MirroredNode[]> {
  const listed: unknown[] = [];
  const seen = new Set<string>();
  let url: string | null = `/v1/nodes?fields=${NODE_FIELDS}&limit=${PAGE_LIMIT}`;
  const detailed = `/v1/nodes?detail=True&limit=${PAGE_LIMIT}`;
  let first = true;
  while (url) {
    let page: any;
    try {
      page = await ironic.get(url);
    } catch (error) {
      // An Ironic that refuses fields= is asked for the details instead.
      if (!(first && error instanceof UpstreamError && error.status === 400)) throw error;
      page = await ironic.get((url = detailed));
    }
    // One that ignores fields= answers the short form (no resource_class): the details, then.
    if (first && url !== detailed && (page?.nodes ?? []).length > 0 && !(page.nodes as any[]).some((n) => 'resource_class' in n)) page = await ironic.get((url = detailed));
    first = false;
    if (!Array.isArray(page?.nodes ?? [])) throw new UnexpectedAnswer('Ironic', 'GET', '/v1/nodes', 'has no nodes list');
    const nodes = ((page?.nodes ?? []) as unknown[]).filter((n) => !seen.has(isObject(n) ? String(n.uuid) : JSON.stringify(n)));
    for (const n of nodes) {
      seen.add(isObject(n) ? String(n.uuid) : JSON.stringify(n));
      listed.push(n);
    }
    url = typeof page?.next === 'string' && page.next && nodes.length > 0 ? keepQuery(sameOrigin(ironic.base, page.next), url === detailed || url.includes('detail=True')) : null;
  }
  return acceptEach(listed, 'node', skipped, nodeProblem, (n) => `node ${shown(n.uuid)} named ${shown(n.name)}`, [(n) => n.name, (n) => n.instance_uuid]).map((n: any) => ({
    uuid: n.uuid,
    name: n.name ?? null,
    provisionState: n.provision_state ?? 'enroll',
    resourceClass: n.resource_class ?? null,
    traits: n.traits ?? [],
    instanceUuid: n.instance_uuid ?? null,
  }));
}

/** A next link keeps asking for the same form of node (fields= or detail=True) even if Ironic left the parameter out. */
function keepQuery(next: string, detail: boolean): string {
  const [path, query = ''] = next.split('?');
  const params = new URLSearchParams(query);
  if (detail) {
    if (params.get('detail') === null) params.set('detail', 'True');
  } else if (params.get('fields') === null) params.set('fields', NODE_FIELDS);
  return `${path}?${params.toString()}`;
}

/**
 * Ironic builds `next` from the URL it is reached at, or its configured public endpoint: a link to
 * another origin (a public URL while the gateway uses the internal one) is followed on ours.
 */
export function sameOrigin(base: string, next: string): string {
  // (Not a URL: left as it is, the request refuses it.)
  if (!/^https?:\/\//.test(next) || !URL.canParse(next)) return next;
  if (new URL(next).origin === new URL(base).origin) return next;
  const at = next.indexOf('/v1/');
  return at < 0 ? next : base + next.slice(at);
}
