// Gateway mode: Placement is the source of truth. Reads are answered from the mirror in the SQLite
// file, refreshed every interval; writes go to Placement first and, once it accepts them, the
// providers and consumers they touched are read back into the mirror.
import type { Db } from '../db/client.js';
import { get } from '../db/sql.js';
import { applyPlacementState, knownState, removeConsumer, removeProvider, type MirrorChanges } from './mirror.store.js';
import { PlacementClient, UpstreamError, type PlacementClientOptions } from './placement.client.js';
import { consumerMeta, readDetail, readPlacement, type PlacementState, type ReadProgress, type UpstreamProvider } from './placement.reader.js';
import type { ServiceType, UpstreamSession } from './session.js';
import { SERVICE_NAMES, ServiceClient } from './service.client.js';
import { baremetalHeaders, computeHeaders, readFlavors, readImages, readNodes, readServers, type MirroredFlavor, type MirroredImage, type MirroredNode, type MirroredServer } from './services.reader.js';
import { applyFlavors, applyImages, applyNodes, applyServers, markService, serviceMark, unmarkService, type ServiceChanges } from './services.store.js';

/** The services mirrored beside Placement, read-only. */
export type MirroredService = Exclude<ServiceType, 'placement'>;
export const MIRRORED_SERVICES: readonly MirroredService[] = ['compute', 'image', 'baremetal'];

/** Glance is listed whole every this many refreshes (and on demand); in between, only what was updated. */
export const GLANCE_FULL_EVERY = 10;

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
  flavors?: MirroredFlavor[];
  servers?: MirroredServer[] | null;
  serversError?: string;
  images?: MirroredImage[];
  imagesFull?: boolean;
  nodes?: MirroredNode[];
}

export interface UpstreamStatus {
  url: string;
  microversion: string;
  lastSyncAt: string | null;
  lastSyncSeconds: number | null;
  stale: boolean;
  providers: number;
  requests: number;
  lastError: string | null;
  /** Microversion features the upstream lacks (when negotiated below 1.39). */
  disabledFeatures: string[];
}

export interface GatewayOptions extends PlacementClientOptions {
  /** Seconds between refreshes (default 15). */
  interval?: number;
  onSync?: (result: { seconds: number; changes?: MirrorChanges; error?: Error }) => void;
}

export class Gateway {
  readonly client: PlacementClient;
  readonly interval: number;
  private lastSuccess: number | null = null;
  private lastSeconds: number | null = null;
  private lastError: string | null = null;
  /** Refreshes ended since the start, by how they ended (for /metrics). */
  readonly refreshes = { success: 0, failure: 0 };
  private running: Promise<MirrorChanges> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopLoop = () => {};
  private url = '';
  private negotiated = false;
  private disabled: string[] = [];
  private readonly serviceClients = new Map<MirroredService, ServiceClient | null>();
  private readonly serviceState = new Map<MirroredService, { lastSuccess: number | null; lastError: string | null; skipped: number; note: string | null }>();
  /** Glance is listed whole at the first refresh of the process too. */
  private fullImagesNext = true;

  constructor(
    readonly db: Db,
    readonly session: UpstreamSession,
    private readonly options: GatewayOptions = {},
  ) {
    this.client = new PlacementClient(session, options);
    this.interval = options.interval ?? 15;
  }

  /** One full refresh; concurrent callers share it. Throws when it fails (the mirror keeps its last state). */
  refresh(onProgress?: (p: ReadProgress) => void, options: { full?: boolean } = {}): Promise<MirrorChanges> {
    if (options.full) {
      // A refresh on demand lists Glance whole, so deletions show at once.
      this.fullImagesNext = true;
      if (this.running) return this.running.catch(() => {}).then(() => this.refresh(onProgress));
    }
    if (!this.running) {
      this.running = this.runRefresh(onProgress).finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  /** Refreshes now and then every interval, until stop(); failures are kept in the status. */
  start() {
    let stopped = false;
    const loop = async () => {
      await this.refresh().catch(() => {});
      if (stopped) return;
      this.timer = setTimeout(loop, this.interval * 1000);
      this.timer.unref();
    };
    this.stopLoop = () => {
      stopped = true;
      if (this.timer) clearTimeout(this.timer);
    };
    void loop();
  }

  stop() {
    this.stopLoop();
    this.client.close();
    for (const c of this.serviceClients.values()) c?.close();
  }

  /** The endpoint of a service mirrored beside Placement; null when the cloud has none (not mirrored). */
  async serviceUrl(service: MirroredService): Promise<string | null> {
    return (await this.serviceClient(service))?.base ?? null;
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
  services(): ServiceStatus[] {
    const count = (sql: string) => (this.db.sqlite.prepare(sql).get() as { n: number }).n;
    return MIRRORED_SERVICES.map((service) => {
      const client = this.serviceClients.get(service) ?? null;
      const state = this.serviceState.get(service);
      const known = this.serviceClients.has(service);
      return {
        service,
        name: SERVICE_NAMES[service],
        url: client?.base ?? null,
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
  private async readServices(): Promise<Map<MirroredService, ServiceRead>> {
    const reads = new Map<MirroredService, ServiceRead>();
    const fullImages = this.fullImagesNext;
    this.fullImagesNext = false;
    await Promise.all(
      MIRRORED_SERVICES.map(async (service) => {
        const client = await this.serviceClient(service);
        if (!client) return;
        const state = this.serviceState.get(service) ?? { lastSuccess: null, lastError: null, skipped: 0, note: null };
        this.serviceState.set(service, state);
        try {
          if (service === 'compute') {
            const [{ flavors, hiddenSpecs }, servers] = await Promise.all([
              readFlavors(client),
              readServers(client).catch((error) => {
                if (error instanceof UpstreamError && error.status === 403) return error;
                throw error;
              }),
            ]);
            const notes = [
              hiddenSpecs ? `the extra specs of ${hiddenSpecs} flavors are hidden by policy` : null,
              servers instanceof Error ? `servers are not mirrored (${servers.detail}): orphaned allocations cannot be audited` : null,
            ].filter(Boolean);
            state.note = notes.length ? notes.join('; ') : null;
            reads.set(service, { flavors, servers: servers instanceof Error ? null : servers });
          } else if (service === 'image') {
            const mark = serviceMark(this.db, 'image');
            const full = fullImages || !mark || mark.url !== client.base || !mark.cursor || mark.refreshes % GLANCE_FULL_EVERY === 0;
            reads.set(service, { images: await readImages(client, full ? null : mark!.cursor), imagesFull: full });
          } else {
            reads.set(service, { nodes: await readNodes(client) });
          }
        } catch (error) {
          state.lastError = (error as Error).message;
          // A whole listing asked for is still owed.
          if (service === 'image' && fullImages) this.fullImagesNext = true;
        }
      }),
    );
    return reads;
  }

  /** Writes what readServices read, inside the refresh's transaction. */
  private applyServices(reads: Map<MirroredService, ServiceRead>): Partial<Record<MirroredService | 'servers', ServiceChanges>> {
    const out: Partial<Record<MirroredService | 'servers', ServiceChanges>> = {};
    // A service no longer mirrored (its endpoint gone from the catalog or the flags): what it left stays as local data.
    for (const service of MIRRORED_SERVICES) {
      if (this.serviceClients.get(service)) continue;
      unmarkService(this.db, service);
      if (service === 'compute') unmarkService(this.db, 'servers');
    }
    for (const [service, read] of reads) {
      const url = this.serviceClients.get(service)!.base;
      if (read.flavors) {
        out.compute = applyFlavors(this.db, read.flavors);
        markService(this.db, 'compute', url);
        if (read.servers) {
          out.servers = applyServers(this.db, read.servers);
          markService(this.db, 'servers', url);
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
      const state = this.serviceState.get(service)!;
      state.lastSuccess = Date.now();
      state.lastError = null;
    }
    return out;
  }

  status(): UpstreamStatus {
    return {
      url: this.url || this.session.describe(),
      microversion: this.client.microversion,
      lastSyncAt: this.lastSuccess === null ? null : new Date(this.lastSuccess).toISOString(),
      lastSyncSeconds: this.lastSeconds,
      stale: this.stale(),
      providers: get<{ n: number }>(this.db, 'SELECT COUNT(*) AS n FROM resource_providers')!.n,
      requests: this.client.requestCount,
      lastError: this.lastError,
      disabledFeatures: this.disabled,
    };
  }

  /** No successful refresh in the last three intervals (or none yet since start). */
  stale(now = Date.now()): boolean {
    return this.lastSuccess === null || now - this.lastSuccess > 3 * this.interval * 1000;
  }

  /** Seconds since the last successful refresh; null before the first. */
  lagSeconds(now = Date.now()): number | null {
    return this.lastSuccess === null ? null : (now - this.lastSuccess) / 1000;
  }

  /** When the last refresh succeeded (milliseconds since the epoch); null before the first. */
  lastSuccessAt(): number | null {
    return this.lastSuccess;
  }

  /** Each service mirrored beside Placement, once read at least once: when its read last succeeded, and whether the last one failed. */
  serviceReads(): { service: MirroredService; lastSuccess: number | null; failing: boolean }[] {
    return MIRRORED_SERVICES.filter((service) => this.serviceClients.get(service) && this.serviceState.has(service)).map((service) => {
      const state = this.serviceState.get(service)!;
      return { service, lastSuccess: state.lastSuccess, failing: state.lastError !== null };
    });
  }

  /** Sends one write to Placement (at an older microversion when given); its errors come back as UpstreamError. */
  async write<T = any>(method: string, path: string, body?: unknown, microversion?: string): Promise<T> {
    await this.ensureNegotiated();
    return this.client.call<T>(method, path, body, microversion);
  }

  /** Reads back what a write touched: these providers (gone ones are removed) and consumers. */
  async readBack(providerUuids: Iterable<string>, consumerUuids: Iterable<string> = []): Promise<void> {
    const known = knownState(this.db);
    const state: PlacementState = {
      providers: [],
      traits: [],
      resourceClasses: [],
      details: new Map(),
      allocations: new Map(),
      consumers: new Map(),
      seenConsumers: new Map(),
    };
    const gone: string[] = [];
    await Promise.all(
      [...new Set(providerUuids)].map(async (uuid) => {
        try {
          const p = await this.client.call<any>('GET', `/resource_providers/${uuid}`);
          const provider: UpstreamProvider = { uuid, name: p.name, generation: p.generation, parent: p.parent_provider_uuid ?? null, root: p.root_provider_uuid ?? uuid };
          const detail = await readDetail(this.client, uuid);
          const held = await this.client.call<any>('GET', `/resource_providers/${uuid}/allocations`);
          state.providers.push(provider);
          state.details.set(uuid, detail);
          const byConsumer = new Map<string, Record<string, number>>();
          for (const [consumer, a] of Object.entries<any>(held.allocations)) {
            byConsumer.set(consumer, a.resources);
            state.seenConsumers.set(consumer, a.consumer_generation ?? 0);
          }
          state.allocations.set(uuid, byConsumer);
        } catch (error) {
          if (!(error instanceof UpstreamError && error.status === 404)) throw error;
          gone.push(uuid);
        }
      }),
    );
    const emptied: string[] = [];
    const wanted = new Set([...consumerUuids, ...[...state.seenConsumers].filter(([c, g]) => known.consumers.get(c)?.generation !== g).map(([c]) => c)]);
    await Promise.all(
      [...wanted].map(async (uuid) => {
        const c = await this.client.call<any>('GET', `/allocations/${uuid}`);
        if (!c.project_id || Object.keys(c.allocations ?? {}).length === 0) emptied.push(uuid);
        else state.consumers.set(uuid, consumerMeta(c));
      }),
    );
    for (const uuid of emptied) removeConsumer(this.db, uuid);
    for (const uuid of gone) removeProvider(this.db, uuid);
    applyPlacementState(this.db, state, true);
  }

  private async ensureNegotiated() {
    if (this.negotiated) return;
    const { microversion } = await this.client.negotiate();
    this.url = (await this.session.endpoint('placement')) ?? '';
    this.disabled = featuresOff(microversion);
    this.negotiated = true;
  }

  private async runRefresh(onProgress?: (p: ReadProgress) => void): Promise<MirrorChanges> {
    const started = Date.now();
    try {
      await this.ensureNegotiated();
      const state = await readPlacement(this.client, knownState(this.db), onProgress);
      const reads = await this.readServices();
      const changes = this.db.transaction(() => {
        const placement = applyPlacementState(this.db, state);
        return { ...placement, services: this.applyServices(reads) };
      });
      this.lastSuccess = Date.now();
      this.lastSeconds = (this.lastSuccess - started) / 1000;
      this.lastError = null;
      this.refreshes.success++;
      this.options.onSync?.({ seconds: this.lastSeconds, changes });
      return changes;
    } catch (error) {
      this.lastError = (error as Error).message;
      this.refreshes.failure++;
      this.options.onSync?.({ seconds: (Date.now() - started) / 1000, error: error as Error });
      throw error;
    }
  }
}

/** What a Placement older than 1.39 cannot do for the gateway (the mirror answers reads at 1.39 itself). */
export function featuresOff(microversion: string): string[] {
  const minor = Number(microversion.split('.')[1]);
  const off: string[] = [];
  if (minor < 38) off.push('consumer types (1.38): consumers are mirrored without a type (shown as unknown) and setAllocations cannot set one');
  if (minor < 37) off.push('moving a provider to another parent (1.37)');
  return off;
}
