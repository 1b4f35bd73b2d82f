// Nova, Glance and Ironic mirrored beside Placement, read-only: their clients (from the catalog or the
// flags), each refresh's reads of flavors, servers, images and nodes, their writing into the mirror
// inside the refresh's transaction, and what each service's mirror looks like now.
import type { Db } from '../db/client.js';
import { UpstreamError, type PlacementClientOptions } from '../upstream/placement.client.js';
import { explainFailure } from '../upstream/failure.js';
import { redactUrl, upstreamIdentity } from '../upstream/redact.js';
import type { ServiceType, UpstreamSession } from '../upstream/session.js';
import { SERVICE_NAMES, ServiceClient } from '../upstream/service.client.js';
import { recordComputeSkips, recordServiceSkips } from './skipped.store.js';
import { Skipped, type SkippedRecord } from './records.js';
import { baremetalHeaders, computeHeaders, readFlavors, readImages, readNodes, readServers, type MirroredFlavor, type MirroredImage, type MirroredNode, type ServersRead } from './services-api.source.js';
import { applyFlavors, applyImages, applyNodes, applyServers, markService, serviceMark, unmarkService, type ServiceChanges } from './services.store.js';

/** The services mirrored beside Placement, read-only. */
export type MirroredService = Exclude<ServiceType, 'placement'>;
export const MIRRORED_SERVICES: readonly MirroredService[] = ['compute', 'image', 'baremetal'];

/** Glance is listed whole every this many refreshes (and on demand); in between, only what was updated. */
export const GLANCE_FULL_EVERY = 10;
/**
 * Nova's servers are listed whole every this many refreshes (and on demand); in between, only those
 * changed since (changes-since). The whole listing catches what changes-since cannot show: deleted
 * servers archived out of Nova's tables (nova-manage db archive_deleted_rows) before they were read.
 */
export const SERVERS_FULL_EVERY = 40;

export interface ServiceStatus {
  /** compute, image or baremetal. */
  service: MirroredService;
  /** Nova, Glance or Ironic. */
  name: string;
  /** The endpoint mirrored; null when the cloud has none (the service is then not mirrored). */
  url: string | null;
  mirrored: boolean;
  /** Why it is not mirrored, or what of it is not. */
  note: string | null;
  lastSyncAt: string | null;
  /** Flavors, images or nodes in the mirror (compute: flavors; servers are counted apart). */
  items: number;
  servers: number | null;
  /** Ironic nodes not stored: their provider is not (yet) in Placement, or they have no resource class. */
  skipped: number;
  lastError: string | null;
}

interface ServiceRead {
  /** Records of its answers that break a rule. */
  skipped: SkippedRecord[];
  flavors?: MirroredFlavor[];
  servers?: ServersRead | null;
  images?: MirroredImage[];
  imagesFull?: boolean;
  nodes?: MirroredNode[];
}


/** What one refresh read of every service mirrored, to be written in the refresh's transaction. */
export type ServiceReads = Map<MirroredService, ServiceRead>;

export class ServicesMirror {
  private readonly serviceClients = new Map<MirroredService, ServiceClient | null>();
  private readonly serviceState = new Map<MirroredService, { lastSuccess: number | null; lastError: string | null; skipped: number; note: string | null }>();
  /** Glance is listed whole at the first refresh of the process too. */
  private fullImagesNext = true;
  /** Nova's servers likewise. */
  private wholeServersNext = true;

  constructor(
    private readonly db: Db,
    private readonly session: UpstreamSession,
    private readonly options: PlacementClientOptions = {},
  ) {}

  /** The next read lists Glance and Nova's servers whole (a refresh on demand: deletions show at once). */
  listWhole() {
    this.fullImagesNext = true;
    this.wholeServersNext = true;
  }

  close() {
    for (const c of this.serviceClients.values()) c?.close();
  }

  /** The endpoint of a service mirrored beside Placement, as it may be shown; null when the cloud has none (not mirrored). */
  async url(service: MirroredService): Promise<string | null> {
    const base = (await this.serviceClient(service))?.base;
    return base ? redactUrl(base) : null;
  }

  private async serviceClient(service: MirroredService): Promise<ServiceClient | null> {
    if (this.serviceClients.has(service)) return this.serviceClients.get(service)!;
    let url: string | null = null;
    try {
      url = await this.session.endpoint(service);
    } catch {
      return null;
    }
    if (url) {
      url = url.replace(/\/+$/, '');
      // Glance and Ironic are addressed versionless (Glance's next links are relative to that).
      if (service === 'image') url = url.replace(/\/v2(\.\d+)?$/, '');
      if (service === 'baremetal') url = url.replace(/\/v1$/, '');
    }
    const headers = service === 'compute' ? computeHeaders : service === 'baremetal' ? baremetalHeaders : {};
    const client = url ? new ServiceClient(this.session, service, url, headers, this.options) : null;
    this.serviceClients.set(service, client);
    return client;
  }

  /** Nova, Glance and Ironic as mirrored: which are, from where, how much. */
  status(): ServiceStatus[] {
    const count = (sql: string) => (this.db.sqlite.prepare(sql).get() as { n: number }).n;
    return MIRRORED_SERVICES.map((service) => {
      const client = this.serviceClients.get(service) ?? null;
      const state = this.serviceState.get(service);
      const known = this.serviceClients.has(service);
      return {
        service,
        name: SERVICE_NAMES[service],
        url: client ? redactUrl(client.base) : null,
        mirrored: !!client,
        note: !known ? 'not looked up yet' : !client ? `not mirrored: the service catalog has no ${service} endpoint (--${service === 'compute' ? 'nova' : service === 'image' ? 'glance' : 'ironic'}-url gives one)` : (state?.note ?? null),
        lastSyncAt: state?.lastSuccess ? new Date(state.lastSuccess).toISOString() : null,
        items: client ? count(service === 'compute' ? 'SELECT COUNT(*) AS n FROM flavors' : service === 'image' ? 'SELECT COUNT(*) AS n FROM images' : 'SELECT COUNT(*) AS n FROM baremetal_nodes') : 0,
        servers: service === 'compute' && client && serviceMark(this.db, 'servers') ? count('SELECT COUNT(*) AS n FROM servers') : null,
        skipped: state?.skipped ?? 0,
        lastError: state?.lastError ?? null,
      };
    });
  }

  /** Reads each mirrored service; a service whose read fails keeps its previous state (its error is kept). */
  async read(): Promise<ServiceReads> {
    const reads = new Map<MirroredService, ServiceRead>();
    const fullImages = this.fullImagesNext;
    this.fullImagesNext = false;
    const wholeServers = this.wholeServersNext;
    this.wholeServersNext = false;
    await Promise.all(
      MIRRORED_SERVICES.map(async (service) => {
        const client = await this.serviceClient(service);
        if (!client) return;
        const state = this.serviceState.get(service) ?? { lastSuccess: null, lastError: null, skipped: 0, note: null };
        this.serviceState.set(service, state);
        const skipped = new Skipped();
        try {
          if (service === 'compute') {
            const mark = serviceMark(this.db, 'servers');
            const whole = wholeServers || !mark || mark.url !== upstreamIdentity(client.base) || !mark.cursor || mark.refreshes % SERVERS_FULL_EVERY === 0;
            const [{ flavors, hiddenSpecs }, servers] = await Promise.all([
              readFlavors(client, skipped),
              readServers(client, skipped, whole ? null : mark!.cursor).catch((error) => {
                if (error instanceof UpstreamError && error.status === 403) return error;
                throw error;
              }),
            ]);
            const notes = [
              hiddenSpecs ? `the extra specs of ${hiddenSpecs} flavors are hidden by policy` : null,
              servers instanceof Error ? 'servers are not mirrored (Nova refuses to list the servers of every project, 403: that needs the admin role): orphaned allocations cannot be audited' : null,
            ].filter(Boolean);
            state.note = notes.length ? notes.join('; ') : null;
            reads.set(service, { skipped: skipped.records, flavors, servers: servers instanceof Error ? null : servers });
          } else if (service === 'image') {
            const mark = serviceMark(this.db, 'image');
            const full = fullImages || !mark || mark.url !== upstreamIdentity(client.base) || !mark.cursor || mark.refreshes % GLANCE_FULL_EVERY === 0;
            reads.set(service, { skipped: skipped.records, images: await readImages(client, skipped, full ? null : mark!.cursor), imagesFull: full });
          } else {
            reads.set(service, { skipped: skipped.records, nodes: await readNodes(client, skipped) });
          }
        } catch (error) {
          state.lastError = explainFailure(error);
          // A whole listing asked for is still owed.
          if (service === 'image' && fullImages) this.fullImagesNext = true;
          if (service === 'compute' && wholeServers) this.wholeServersNext = true;
        }
      }),
    );
    return reads;
  }

  /** Writes what readServices read, inside the refresh's transaction. */
  apply(reads: ServiceReads): Partial<Record<MirroredService | 'servers', ServiceChanges>> {
    const out: Partial<Record<MirroredService | 'servers', ServiceChanges>> = {};
    // A service no longer mirrored (its endpoint gone from the catalog or the flags): what it left stays as local data.
    for (const service of MIRRORED_SERVICES) {
      if (this.serviceClients.get(service)) continue;
      unmarkService(this.db, service);
      recordServiceSkips(this.db, service, [], true);
      if (service === 'compute') unmarkService(this.db, 'servers');
    }
    for (const [service, read] of reads) {
      const url = upstreamIdentity(this.serviceClients.get(service)!.base);
      if (read.flavors) {
        out.compute = applyFlavors(this.db, read.flavors);
        markService(this.db, 'compute', url);
        if (read.servers) {
          out.servers = applyServers(this.db, read.servers.servers, read.servers.whole ? null : read.servers.gone);
          markService(this.db, 'servers', url, read.servers.cursor);
          if (read.servers.whole) this.db.sqlite.prepare("UPDATE mirrored_services SET refreshes = 1 WHERE service = 'servers'").run();
        } else unmarkService(this.db, 'servers');
      }
      if (read.images) {
        out.image = applyImages(this.db, read.images, !!read.imagesFull);
        const previous = serviceMark(this.db, 'image');
        const newest = read.images.reduce<string | null>((m, i) => (i.updatedAt && (!m || i.updatedAt > m) ? i.updatedAt : m), read.imagesFull ? null : (previous?.cursor ?? null));
        markService(this.db, 'image', url, newest ?? previous?.cursor ?? null);
        if (read.imagesFull) this.db.sqlite.prepare("UPDATE mirrored_services SET refreshes = 1 WHERE service = 'image'").run();
      }
      if (read.nodes) {
        out.baremetal = applyNodes(this.db, read.nodes);
        markService(this.db, 'baremetal', url);
        const state = this.serviceState.get('baremetal')!;
        state.skipped = out.baremetal.skipped;
        const n = out.baremetal.skipped;
        state.note = n ? `${n} node${n === 1 ? ' is' : 's are'} not mirrored: no provider of the same uuid in Placement (yet), or no resource class` : null;
      }
      // A partial listing (Glance's, Nova's servers') judges only what it lists: the others keep their records.
      if (read.servers && !read.servers.whole) recordComputeSkips(this.db, read.skipped, read.servers.judged);
      else recordServiceSkips(this.db, service, read.skipped, !read.images || !!read.imagesFull);
      const state = this.serviceState.get(service)!;
      state.lastSuccess = Date.now();
      state.lastError = null;
    }
    return out;
  }

  /** Each service mirrored beside Placement, once read at least once: when its read last succeeded, and whether the last one failed. */
  reads(): { service: MirroredService; lastSuccess: number | null; failing: boolean }[] {
    return MIRRORED_SERVICES.filter((service) => this.serviceClients.get(service) && this.serviceState.has(service)).map((service) => {
      const state = this.serviceState.get(service)!;
      return { service, lastSuccess: state.lastSuccess, failing: state.lastError !== null };
    });
  }

}
