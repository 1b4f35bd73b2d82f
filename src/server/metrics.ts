// Prometheus metrics through prom-client, one registry per server: requests and latency per operation,
// errors, refusals per limit, SQL statements, candidate searches (and, when asked, the process's own).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CapacitySamples } from '../modules/capacity/capacity.metrics.js';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Metrics {
  readonly registry = new Registry();
  private readonly registers = [this.registry];
  private readonly requests = new Counter({ name: 'placement_gql_requests_total', help: 'GraphQL operations executed, by operation name and type.', labelNames: ['operation', 'type'] as const, registers: this.registers });
  private readonly errors = new Counter({ name: 'placement_gql_errors_total', help: 'GraphQL operations that answered with errors.', labelNames: ['operation', 'type'] as const, registers: this.registers });
  private readonly refused = new Counter({ name: 'placement_gql_refused_total', help: 'Requests refused before execution, by reason (the limit).', labelNames: ['reason'] as const, registers: this.registers });
  private readonly latency = new Histogram({ name: 'placement_gql_request_duration_seconds', help: 'Time to execute a GraphQL operation.', labelNames: ['operation', 'type'] as const, buckets: BUCKETS, registers: this.registers });
  private readonly candidateSearches = new Counter({ name: 'placement_gql_candidate_searches_total', help: 'Allocation-candidate searches run.', registers: this.registers });

  /** Operation names are chosen by clients: past this many distinct names, or past 64 characters, a name is counted as "other" (memory stays bounded). */
  static readonly MAX_OPERATION_LABELS = 100;
  private readonly operations = new Set<string>();

  /**
   * `sqlStatements` reads the database's running count of statements at each scrape; `processMetrics`
   * adds prom-client's process and Node metrics (memory, CPU, event-loop lag, open handles).
   */
  constructor(sqlStatements: () => number = () => 0, options: { processMetrics?: boolean; capacity?: () => Promise<CapacitySamples> } = {}) {
    // Before the statement counter: a scrape's own statements are counted in that scrape.
    if (options.capacity) this.capacityGauges(options.capacity);
    let counted = 0;
    new Counter({
      name: 'placement_gql_sql_statements_total',
      help: 'SQL statements executed.',
      registers: this.registers,
      collect() {
        const now = sqlStatements();
        this.inc(Math.max(0, now - counted));
        counted = Math.max(counted, now);
      },
    });
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Capacity, usage and flavor headroom, read from the capacity module at each scrape (it caches until the data changes). */
  private capacityGauges(source: () => Promise<CapacitySamples>) {
    const registers = this.registers;
    // One read per scrape: every gauge's collect is called in the same tick.
    let current: Promise<CapacitySamples> | null = null;
    const once = () => (current ??= source().finally(() => (current = null)));
    const FIELDS = ['total', 'reserved', 'capacity', 'used', 'free'] as const;
    const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge, samples: CapacitySamples) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        // Every worker reads the same database: summed over workers, it would count it N times.
        aggregator: 'first',
        async collect() {
          const samples = await once();
          this.reset();
          fill(this, samples);
        },
      });
    for (const field of FIELDS) {
      gauge(`placement_gql_capacity_${field}`, `Sum of the inventories' ${field === 'capacity' ? 'capacity, floor((total - reserved) * allocation_ratio)' : field === 'free' ? 'capacity - used' : field}, per resource class.`, ['resource_class'], (g, s) => {
        for (const r of s.classes) g.set({ resource_class: r.resourceClass }, r[field]);
      });
    }
    for (const field of ['capacity', 'used', 'free'] as const) {
      gauge(`placement_gql_aggregate_capacity_${field}`, `Like placement_gql_capacity_${field}, over the providers that are members of each aggregate.`, ['aggregate', 'resource_class'], (g, s) => {
        for (const a of s.aggregates) for (const r of a.resources) g.set({ aggregate: a.aggregate, resource_class: r.resourceClass }, r[field]);
      });
    }
    gauge('placement_gql_flavor_headroom', 'More servers of each stored flavor that fit together now (an image without properties).', ['flavor'], (g, s) => {
      for (const f of s.flavors) g.set({ flavor: f.flavor }, f.fits);
    });
    gauge('placement_gql_flavor_headroom_at_most', 'A proven upper bound of placement_gql_flavor_headroom.', ['flavor'], (g, s) => {
      for (const f of s.flavors) g.set({ flavor: f.flavor }, f.atMost);
    });
    gauge('placement_gql_flavor_stranded', 'Free capacity of each class a stored flavor asks that no further server of it can use once its headroom is placed, by reason.', ['flavor', 'resource_class', 'reason'], (g, s) => {
      for (const f of s.flavors) for (const part of f.stranded()) g.set({ flavor: f.flavor, resource_class: part.resourceClass, reason: part.reason }, part.amount);
    });
    gauge('placement_gql_flavor_headroom_exact', '1 when placement_gql_flavor_headroom is proven exact, else 0.', ['flavor'], (g, s) => {
      for (const f of s.flavors) g.set({ flavor: f.flavor }, f.exact ? 1 : 0);
    });
  }

  private operationLabel(operation: string): string {
    if (this.operations.has(operation)) return operation;
    if (operation.length > 64 || this.operations.size >= Metrics.MAX_OPERATION_LABELS) return 'other';
    this.operations.add(operation);
    return operation;
  }

  observe(operation: string, type: string, seconds: number, failed: boolean) {
    const labels = { operation: this.operationLabel(operation), type };
    this.requests.inc(labels);
    if (failed) this.errors.inc(labels);
    this.latency.observe(labels, seconds);
  }

  refuse(reason: string) {
    this.refused.inc({ reason });
  }

  candidateSearch() {
    this.candidateSearches.inc();
  }

  private renderer = () => this.registry.metrics();

  /** Under serve --workers: /metrics shows every worker's figures summed (capacity gauges once), whichever worker answers. */
  acrossWorkers(sum: () => Promise<string>) {
    this.renderer = sum;
  }

  /** The text exposition format. */
  render(): Promise<string> {
    return this.renderer();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
