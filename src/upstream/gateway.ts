// Gateway mode: Placement is the source of truth. Reads are answered from the mirror in the SQLite
// file, refreshed every interval; writes go to Placement first and, once it accepts them, the
// providers and consumers they touched are read back into the mirror.
import type { Db } from '../db/client.js';
import { get } from '../db/sql.js';
import { applyPlacementState, knownState, removeConsumer, removeProvider, type MirrorChanges } from './mirror.store.js';
import { PlacementClient, UpstreamError, type PlacementClientOptions } from './placement.client.js';
import { consumerMeta, readDetail, readPlacement, type PlacementState, type ReadProgress, type UpstreamProvider } from './placement.reader.js';
import type { UpstreamSession } from './session.js';

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
  private running: Promise<MirrorChanges> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopLoop = () => {};
  private url = '';
  private negotiated = false;
  private disabled: string[] = [];

  constructor(
    readonly db: Db,
    readonly session: UpstreamSession,
    private readonly options: GatewayOptions = {},
  ) {
    this.client = new PlacementClient(session, options);
    this.interval = options.interval ?? 15;
  }

  /** One full refresh; concurrent callers share it. Throws when it fails (the mirror keeps its last state). */
  refresh(onProgress?: (p: ReadProgress) => void): Promise<MirrorChanges> {
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

  /** Sends one write to Placement; its errors come back as UpstreamError. */
  async write<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    await this.ensureNegotiated();
    return this.client.call<T>(method, path, body);
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
      const changes = applyPlacementState(this.db, state);
      this.lastSuccess = Date.now();
      this.lastSeconds = (this.lastSuccess - started) / 1000;
      this.lastError = null;
      this.options.onSync?.({ seconds: this.lastSeconds, changes });
      return changes;
    } catch (error) {
      this.lastError = (error as Error).message;
      this.options.onSync?.({ seconds: (Date.now() - started) / 1000, error: error as Error });
      throw error;
    }
  }
}

/** What a Placement older than 1.39 cannot do for the gateway (the mirror answers reads at 1.39 itself). */
export function featuresOff(microversion: string): string[] {
  const minor = Number(microversion.split('.')[1]);
  const off: string[] = [];
  if (minor < 38) off.push('consumer types (1.38): every consumer is mirrored as INSTANCE and setAllocations cannot set another type');
  if (minor < 37) off.push('moving a provider to another parent (1.37)');
  return off;
}
