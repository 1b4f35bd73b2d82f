// Prometheus metrics through prom-client, one registry per server: requests and latency per operation,
// errors, refusals per limit, SQL statements, candidate searches (and, when asked, the process's own).
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

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
  constructor(sqlStatements: () => number = () => 0, options: { processMetrics?: boolean } = {}) {
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

  /** The text exposition format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
