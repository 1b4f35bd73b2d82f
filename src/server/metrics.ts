// Prometheus metrics kept in memory: requests and latency per operation, errors, SQL statements, candidate searches.

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  buckets: number[];
  sum: number;
  count: number;
}

const label = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export class Metrics {
  readonly requests = new Map<string, number>();
  readonly errors = new Map<string, number>();
  readonly latency = new Map<string, Histogram>();
  candidateSearches = 0;
  refused = new Map<string, number>();

  /** Operation names are chosen by clients: past this many distinct names, or past 64 characters, a name is counted as "other" (memory stays bounded). */
  static readonly MAX_OPERATION_LABELS = 100;
  private readonly operations = new Set<string>();

  private operationLabel(operation: string): string {
    if (this.operations.has(operation)) return operation;
    if (operation.length > 64 || this.operations.size >= Metrics.MAX_OPERATION_LABELS) return 'other';
    this.operations.add(operation);
    return operation;
  }

  observe(operation: string, type: string, seconds: number, failed: boolean) {
    const key = `operation="${label(this.operationLabel(operation))}",type="${type}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    if (failed) this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
    let h = this.latency.get(key);
    if (!h) this.latency.set(key, (h = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    BUCKETS.forEach((le, i) => seconds <= le && h!.buckets[i]++);
    h.sum += seconds;
    h.count++;
  }

  refuse(reason: string) {
    this.refused.set(reason, (this.refused.get(reason) ?? 0) + 1);
  }

  /** The text exposition format, with the database's statement count. */
  render(sqlStatements: number): string {
    const lines: string[] = [];
    const counter = (name: string, help: string, values: Map<string, number>) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const [key, value] of values) lines.push(`${name}{${key}} ${value}`);
    };
    counter('placement_gql_requests_total', 'GraphQL operations executed, by operation name and type.', this.requests);
    counter('placement_gql_errors_total', 'GraphQL operations that answered with errors.', this.errors);
    counter('placement_gql_refused_total', 'Requests refused before execution, by reason.', new Map([...this.refused].map(([k, v]) => [`reason="${label(k)}"`, v])));
    lines.push('# HELP placement_gql_request_duration_seconds Time to execute a GraphQL operation.', '# TYPE placement_gql_request_duration_seconds histogram');
    for (const [key, h] of this.latency) {
      BUCKETS.forEach((le, i) => lines.push(`placement_gql_request_duration_seconds_bucket{${key},le="${le}"} ${h.buckets[i]}`));
      lines.push(`placement_gql_request_duration_seconds_bucket{${key},le="+Inf"} ${h.count}`);
      lines.push(`placement_gql_request_duration_seconds_sum{${key}} ${h.sum}`, `placement_gql_request_duration_seconds_count{${key}} ${h.count}`);
    }
    lines.push('# HELP placement_gql_sql_statements_total SQL statements executed.', '# TYPE placement_gql_sql_statements_total counter', `placement_gql_sql_statements_total ${sqlStatements}`);
    lines.push('# HELP placement_gql_candidate_searches_total Allocation-candidate searches run.', '# TYPE placement_gql_candidate_searches_total counter', `placement_gql_candidate_searches_total ${this.candidateSearches}`);
    return lines.join('\n') + '\n';
  }
}
