// Gateway mode: Placement is the source of truth. Reads are answered from the mirror in the SQLite
// file, refreshed every interval; writes go to Placement first and, once it accepts them, the
// providers and consumers they touched are read back into the mirror. Nova, Glance and Ironic are
// mirrored beside Placement by the ServicesMirror each refresh runs (services.mirror.ts).
import type { Db } from '../db/client.js';
import { get } from '../db/sql.js';
import { applyPlacementState, knownState, removeConsumer, removeProvider, type MirrorChanges } from './mirror.store.js';
import { PlacementClient, UpstreamUnreachable, type PlacementClientOptions } from '../upstream/placement.client.js';
import { apiSource, readBack } from './placement-api.source.js';
import type { ReadProgress } from './source.js';
import type { PlacementSource } from './source.js';
import { explainFailure } from '../upstream/failure.js';
import { claimDatabase } from './mirror-target.js';
import { redactUrl, upstreamIdentity } from '../upstream/redact.js';
import { recordPlacementSkips, skippedRecords, skippedSummary, type SkippedReason } from './skipped.store.js';
import type { UpstreamSession } from '../upstream/session.js';
import { markService } from './services.store.js';
import { ServicesMirror } from './services.mirror.js';

export interface UpstreamStatus {
  /** Placement's endpoint (redacted), or the session's description before it is known. */
  url: string;
  /** Placement's database when the mirror reads it (--placement-db), shown without credentials; null when it reads the API. */
  database: string | null;
  /** SQL statements sent to Placement's database since the start; null when the mirror reads the API. */
  statements: number | null;
  microversion: string;
  lastSyncAt: string | null;
  lastSyncSeconds: number | null;
  stale: boolean;
  providers: number;
  requests: number;
  lastError: string | null;
  /** Microversion features the upstream lacks (when negotiated below 1.39). */
  disabledFeatures: string[];
  /** Records of the upstream answers (Placement's, Nova's, Glance's, Ironic's) not mirrored because they break a rule, and why. */
  skipped: { count: number; reasons: SkippedReason[] };
}

export interface GatewayOptions extends PlacementClientOptions {
  /** Seconds between refreshes (default 15). */
  interval?: number;
  /** The mirror may replace a database that holds other data, or another upstream's mirror (--replace-db). */
  replaceDb?: boolean;
  /** Where refreshes read Placement from; its API (through the client) when absent. */
  source?: PlacementSource;
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
  /** The upstream this database mirrors (upstreamIdentity of Placement's endpoint), once claimed. */
  private identity: string | null = null;
  private negotiated = false;
  private disabled: string[] = [];
  /** Nova, Glance and Ironic, mirrored beside Placement where the cloud has them. */
  readonly services: ServicesMirror;
  /** Where refreshes read Placement from (its API unless another source is given); writes always go to the API. */
  readonly source: PlacementSource;

  constructor(
    readonly db: Db,
    readonly session: UpstreamSession,
    private readonly options: GatewayOptions = {},
  ) {
    this.client = new PlacementClient(session, options);
    this.services = new ServicesMirror(db, session, options);
    this.source = options.source ?? apiSource(this.client);
    this.interval = options.interval ?? 15;
  }

  /** One full refresh; concurrent callers share it. Throws when it fails (the mirror keeps its last state). */
  refresh(onProgress?: (p: ReadProgress) => void, options: { full?: boolean } = {}): Promise<MirrorChanges> {
    if (options.full) {
      // A refresh on demand lists Glance whole, so deletions show at once.
      this.services.listImagesWhole();
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
    this.services.close();
    this.source.close();
  }

  /**
   * Makes the database this upstream's mirror (mirror-target.ts), before anything is read into it:
   * throws DatabaseRefused when it holds other data or another upstream's mirror. A database with
   * data and no record is refused before the upstream is even asked where Placement is.
   */
  async claim(): Promise<void> {
    if (this.identity) return;
    claimDatabase(this.db, null, this.options.replaceDb);
    if (this.source.identity) {
      // A mirror of Placement's database records which database: the API need not even be configured.
      claimDatabase(this.db, this.source.identity, this.options.replaceDb);
      this.identity = this.source.identity;
      return;
    }
    const endpoint = await this.session.endpoint('placement');
    if (!endpoint) throw new UpstreamUnreachable((await this.session.missingEndpoint?.('placement')) ?? 'the service catalog has no placement endpoint');
    const identity = upstreamIdentity(endpoint);
    claimDatabase(this.db, identity, this.options.replaceDb);
    this.identity = identity;
    this.url = redactUrl(endpoint);
  }

  status(): UpstreamStatus {
    return {
      url: this.url || this.session.describe(),
      database: this.source.describe ?? null,
      statements: this.source.statementCount?.() ?? null,
      microversion: this.client.microversion,
      lastSyncAt: this.lastSuccess === null ? null : new Date(this.lastSuccess).toISOString(),
      lastSyncSeconds: this.lastSeconds,
      stale: this.stale(),
      providers: get<{ n: number }>(this.db, 'SELECT COUNT(*) AS n FROM resource_providers')!.n,
      requests: this.client.requestCount,
      lastError: this.lastError,
      disabledFeatures: this.disabled,
      skipped: skippedSummary(this.db),
    };
  }

  /** The first records of the upstream answers that were not mirrored, with why. */
  skippedRecords(limit: number) {
    return skippedRecords(this.db, limit);
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

  /** Sends one write to Placement (at an older microversion when given); its errors come back as UpstreamError. */
  async write<T = any>(method: string, path: string, body?: unknown, microversion?: string): Promise<T> {
    await this.ensureNegotiated();
    return this.client.call<T>(method, path, body, microversion);
  }

  /** Reads back what a write touched: these providers (gone ones are removed) and consumers. */
  async readBack(providerUuids: Iterable<string>, consumerUuids: Iterable<string> = []): Promise<void> {
    await this.ensureNegotiated();
    const { state, gone, emptied } = await readBack(this.client, knownState(this.db, { allocations: false }), providerUuids, consumerUuids);
    this.db.transaction(() => {
      for (const uuid of emptied) removeConsumer(this.db, uuid);
      for (const uuid of gone) removeProvider(this.db, uuid);
      applyPlacementState(this.db, state, true);
      recordPlacementSkips(this.db, state, true);
    });
  }

  private async ensureNegotiated() {
    if (this.negotiated) return;
    await this.claim();
    const { microversion } = await this.client.negotiate();
    this.disabled = featuresOff(microversion);
    this.negotiated = true;
  }

  private async runRefresh(onProgress?: (p: ReadProgress) => void): Promise<MirrorChanges> {
    const started = Date.now();
    try {
      // Another source than the API reads without it: the API is asked only when a write goes through.
      if (this.source.identity) await this.claim();
      else await this.ensureNegotiated();
      const state = await this.source.read(knownState(this.db, { allocations: this.source.needsKnownAllocations }), onProgress);
      const reads = await this.services.read();
      const changes = this.db.transaction(() => {
        const placement = applyPlacementState(this.db, state);
        recordPlacementSkips(this.db, state, false);
        markService(this.db, 'placement', this.identity!);
        return { ...placement, services: this.services.apply(reads) };
      });
      this.lastSuccess = Date.now();
      this.lastSeconds = (this.lastSuccess - started) / 1000;
      this.lastError = null;
      this.refreshes.success++;
      this.options.onSync?.({ seconds: this.lastSeconds, changes });
      return changes;
    } catch (error) {
      this.lastError = explainFailure(error);
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
