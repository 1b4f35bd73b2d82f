// createServer(options): graphql-yoga over the schema with access control, limits and observability. No domain logic.
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { useGraphQlJit } from '@envelop/graphql-jit';
import type { Db } from './db/client.js';
import { createContext, type Context } from './context.js';
import { getSchema } from './schema.js';
import { OPEN_ACCESS, roleOf, type AccessConfig } from './server/access.js';
import { createChangeFeed } from './server/events.js';
import { DEFAULT_LIMITS, type Limits } from './modules/common/limits.js';
import { Metrics } from './server/metrics.js';
import { capacitySamples } from './modules/capacity/capacity.metrics.js';
import { CapacityHistory, type HistoryOptions } from './modules/capacity/capacity.history.js';
import { useAccessControl, useDomainErrors, useLimits, useNoInternals, useObservability, useStreamsStop, type Logger } from './server/plugins.js';
import { CANDIDATE_ANSWER_JSON, selectsCandidates } from './modules/candidates/candidates.graphql.js';
import { useAnswerJson } from './server/answer-json.js';
import { renderGraphiqlPage, useGraphiqlAssets } from './server/graphiql.js';
import { useDashboard } from './server/dashboard.js';
import { useHealth } from './server/health.js';
import type { Gateway } from './upstream/gateway.js';
import { localWrites } from './writes/local.js';
import { gatewayWrites } from './mirror/gateway.writes.js';
import { createPlacementApi, type PlacementApi } from './rest/api.js';
import { corsPolicy } from './rest/cors.js';

export interface ServerOptions {
  db: Db;
  /** Bearer tokens; open access when absent. */
  access?: AccessConfig;
  limits?: Partial<Limits>;
  /** Where structured logs go; none when absent. */
  log?: Logger | null;
  /** Hide internal error details (default true; tests turn it off). */
  maskErrors?: boolean;
  /** Serve /metrics without a token even when tokens are configured. */
  metricsOpen?: boolean;
  /** Add the process's own metrics (memory, CPU, event-loop lag) to /metrics. */
  processMetrics?: boolean;
  /** The query GraphiQL opens with. */
  graphiqlQuery?: string;
  /** Gateway mode: the live Placement mirrored into the database and written through to. */
  gateway?: Gateway | null;
  /** Origins of other sites whose pages may call Placement's API under /placement (scheme://host[:port]). */
  corsOrigins?: readonly string[];
  /** Keep the capacity of the last hour in memory (capacityHistory; the dashboard's lines), sampled every interval. */
  history?: HistoryOptions;
}

export type Server = YogaServerInstance<{}, Context> & {
  metrics: Metrics;
  limits: Limits;
  /** The capacity history this server keeps, sampling from its creation; null without options.history. */
  history: CapacityHistory | null;
  /** Ends every open subscription stream with a last SERVER_STOPPING result (for a graceful stop). */
  stopStreams(): void;
  /** Placement's REST API, answered under /placement before GraphQL. */
  placementApi: PlacementApi;
};

export function createServer(options: ServerOptions): Server {
  const access = options.access ?? OPEN_ACCESS;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const feed = createChangeFeed();
  // Chosen once: resolvers call writes.* whatever the mode.
  const writes = options.gateway ? gatewayWrites(options.gateway, feed) : localWrites(options.db, feed);
  const stopping = new AbortController();
  const metrics = new Metrics(() => options.db.statements.count, { processMetrics: options.processMetrics, capacity: () => capacitySamples(options.db) });
  const history = options.history ? new CapacityHistory(() => capacitySamples(options.db), options.history) : null;
  history?.start();
  const yoga = createYoga<{}, Context>({
    schema: getSchema(),
    context: ({ request }) => createContext(options.db, { role: roleOf(access, request.headers.get('authorization')), feed, limits, writes, gateway: options.gateway, history }),
    maskedErrors: options.maskErrors ?? true,
    graphiql: true,
    renderGraphiQL: () =>
      renderGraphiqlPage({
        title: 'placement-gql',
        query: options.graphiqlQuery,
        headers: access.tokens.size > 0 ? JSON.stringify({ Authorization: 'Bearer <your token>' }) : undefined,
      }),
    landingPage: false,
    // /health is answered by useHealth (yoga's own check matches any path ending in its endpoint, and cannot say degraded).
    healthCheckEndpoint: ' ',
    plugins: [
      useDomainErrors(),
      useGraphiqlAssets(),
      useDashboard(),
      useHealth(options.gateway ?? null, metrics),
      useNoInternals(),
      useObservability(options.db, metrics, options.log ?? null, (request) => options.metricsOpen === true || roleOf(access, request.headers.get('authorization')) !== null),
      useLimits(limits, metrics),
      useAccessControl(),
      useStreamsStop(stopping.signal),
      // Candidate answers run to tens of thousands of objects: compiled execution shapes them several times faster.
      useGraphQlJit({}, { enableIf: (args) => selectsCandidates(args.document) }),
      // Most candidate answers need no execution at all: their JSON is written from the search's objects.
      useAnswerJson({ ...CANDIDATE_ANSWER_JSON, enableIf: selectsCandidates }),
    ],
  });
  const log = options.log ?? null;
  const placementApi = createPlacementApi({
    db: options.db,
    writes,
    tokens: access.tokens,
    cors: corsPolicy(options.corsOrigins ?? []),
    maxBodyBytes: limits.maxBodyBytes,
    maxCandidates: limits.maxCandidates,
    observe: (route, status, seconds) => {
      metrics.observe(`REST ${route}`, 'rest', seconds, status >= 500);
      log?.({ level: status >= 500 ? 'error' : 'info', operation: `REST ${route}`, type: 'rest', status, durationMs: Math.round(seconds * 1e4) / 10 });
    },
  });
  return Object.assign(yoga, { metrics, limits, history, stopStreams: () => stopping.abort(), placementApi });
}
