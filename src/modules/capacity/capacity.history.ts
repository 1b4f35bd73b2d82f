// A short history of capacity, kept in memory by a serving process: every interval, used and capacity
// per resource class and the headroom of every stored flavor, for the last hour. The figures come from
// the same source as /metrics (computed once per change of the data), so a sample of unchanged data
// costs nothing. A restart starts the history afresh: for longer ones, Prometheus scrapes /metrics.
import type { CapacitySamples } from './capacity.metrics.js';

export interface HistorySample {
  /** When it was taken (milliseconds since the epoch). */
  at: number;
  classes: { resourceClass: string; capacity: number; used: number }[];
  flavors: { flavor: string; fits: number }[];
}

export interface HistoryOptions {
  /** Between two samples (default 30 s). */
  intervalMs?: number;
  /** How far back samples are kept (default one hour). */
  keepMs?: number;
}

export class CapacityHistory {
  readonly intervalMs: number;
  readonly keepMs: number;
  private readonly kept: HistorySample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private taking: Promise<void> | null = null;

  constructor(
    private readonly source: () => Promise<CapacitySamples>,
    options: HistoryOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 30_000;
    this.keepMs = options.keepMs ?? 3_600_000;
  }

  /** Samples now, then every interval until stop(). */
  start() {
    if (this.timer) return;
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Takes one sample (one at a time: a sample still being computed is not started again). */
  sample(now = Date.now()): Promise<void> {
    this.taking ??= this.source()
      .then((s) => {
        this.kept.push({
          at: now,
          classes: s.classes.map((r) => ({ resourceClass: r.resourceClass, capacity: r.capacity, used: r.used })),
          flavors: s.flavors.map((f) => ({ flavor: f.flavor, fits: f.fits })),
        });
        // One hour of samples at most: the oldest go first.
        while (this.kept.length && this.kept[0].at < now - this.keepMs) this.kept.shift();
      })
      // A sample that cannot be taken (the database closing under it) is a gap in the lines, nothing more.
      .catch(() => {})
      .finally(() => (this.taking = null));
    return this.taking;
  }

  /** The samples kept, oldest first. */
  samples(): readonly HistorySample[] {
    return this.kept;
  }
}
