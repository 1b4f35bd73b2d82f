// createServer(options): graphql-yoga over the schema with access control, limits and observability. No domain logic.
import { setMaxListeners } from 'node:events';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { useGraphQlJit } from '@envelop/graphql-jit';
import type { Db } from './db/client.js';
import { createContext, type Context } from './context.js';
import { getSchema } from './schema.js';
import { OPEN_ACCESS, roleOf, type AccessConfig } from './server/access.js';
import { browserRefusal, useBrowserRules, type BrowserRules, type HeaderOf } from './server/browsers.js';
import { DocumentCache } from './server/document-cache.js';
import { createChangeFeed, type ServerFeed } from './server/events.js';
import { DEFAULT_LIMITS, type Limits } from './modules/common/limits.js';
import { Metrics } from './server/metrics.js';
import { capacitySamples } from './modules/capacity/capacity.metrics.js';
import { CapacityHistory, type HistoryOptions } from './modules/capacity/capacity.history.js';
import { useAccessControl, useDomainErrors, useLimits, useNoInternals, useObservability, useQueryStringJson, useStreams, type Logger } from './server/plugins.js';
import { CANDIDATE_ANSWER_JSON, selectsCandidates } from './modules/candidates/candidates.graphql.js';
import { useAnswerJson } from './server/answer-json.js';
import { useGraphiql } from './server/graphiql.js';
import { useDashboard } from './server/dashboard.js';
import { useHealth } from './server/health.js';
import type { Gateway } from './mirror/gateway.js';
import { localWrites } from './writes/local.js';
import { gatewayWrites } from './mirror/gateway.writes.js';
import { createPlacementApi, type PlacementApi } from './rest/api.js';
import { corsPolicy } from './rest/cors.js';

export interface ServerOptions {
  db: Db;
  /** Bearer tokens; open access when absent. */
  access?: AccessConfig;
  /** Host names answered and other sites' origins allowed (serve --allowed-host, --cors-origin); see browsers.ts. */
  browsers?: BrowserRules;
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
  /** Keep the capacity of the last hour in memory (capacityHistory; the dashboard's lines), sampled every interval. */
  history?: HistoryOptions;
}

export type Server = YogaServerInstance<{}, Context> & {
  metrics: Metrics;
  limits: Limits;
  /** The capacity history this server keeps, sampling from its creation; null without options.history. */
  history: CapacityHistory | null;
  /** The parsed documents kept for reuse (bounded by limits.documentCacheBytes). */
  documentCache: DocumentCache;
  /** The change feed subscriptions read. */
  feed: ServerFeed;
  /**
   * Whether a request passes every check made before anything of it is read (Host, Origin, media type,
   * token): the HTTP fast lane takes only such requests, and yoga refuses the others.
   */
  admits(method: string, header: HeaderOf): boolean;
  /** Ends every open subscription stream with a last SERVER_STOPPING result (for a graceful stop). */
  stopStreams(): void;
  /** Placement's REST API, answered under /placement before GraphQL. */
  placementApi: PlacementApi;
};

export function createServer(options: ServerOptions): Server {
  const access = options.access ?? OPEN_ACCESS;
  const browsers = options.browsers ?? {};
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const feed = createChangeFeed();
  // Chosen once: resolvers call writes.* whatever the mode.
  const writes = options.gateway ? gatewayWrites(options.gateway, feed) : localWrites(options.db, feed);
  const stopping = new AbortController();
  // Each open stream listens for the stop: as many as maxStreams.
  setMaxListeners(0, stopping.signal);
  const documentCache = new DocumentCache(limits.documentCacheBytes);
  const metrics = new Metrics(() => options.db.statements.count, { processMetrics: options.processMetrics, capacity: () => capacitySamples(options.db) });
  const history = options.history ? new CapacityHistory(() => capacitySamples(options.db), options.history) : null;
  history?.start();
  const yoga = createYoga<{}, Context>({
    schema: getSchema(),
    context: ({ request }) => createContext(options.db, { role: roleOf(access, request.headers.get('authorization')), feed, limits, writes, gateway: options.gateway, history }),
    maskedErrors: options.maskErrors ?? true,
    // CORS and GraphiQL are this server's own (useBrowserRules, useGraphiql), placed after the checks.
    cors: false,
    graphiql: false,
    // A POST takes JSON only (browsers.ts): no form bodies.
    multipart: false,
    parserAndValidationCache: documentCache.forYoga(),
    landingPage: false,
    // /health is answered by useHealth (yoga's own check matches any path ending in its endpoint, and cannot say degraded).
    healthCheckEndpoint: ' ',
    // In this order: what is checked before anything of a request is read, then what is served without a
    // token, then the token (everything past it needs one when tokens are configured).
    plugins: [
      useBrowserRules(browsers),
      useDomainErrors(),
      useHealth(options.gateway ?? null, metrics),
      useGraphiql({ title: 'placement-gql', query: options.graphiqlQuery, tokenRequired: access.tokens.size > 0 }),
      useDashboard(),
      useQueryStringJson(),
      useObservability(options.db, metrics, options.log ?? null, (request) => options.metricsOpen === true || roleOf(access, request.headers.get('authorization')) !== null),
      useAccessControl(access),
      useNoInternals(),
      useLimits(limits, metrics),
      useStreams(stopping.signal, limits.maxStreamBufferBytes, metrics),
      // Candidate answers run to tens of thousands of objects: compiled execution shapes them several times faster.
      useGraphQlJit({}, { enableIf: (args) => selectsCandidates(args.document) }),
      // Most candidate answers need no execution at all: their JSON is written from the search's objects.
      useAnswerJson({ ...CANDIDATE_ANSWER_JSON, enableIf: selectsCandidates }),
    ],
  });
  const admits = (method: string, header: HeaderOf) => browserRefusal(browsers, method, header) === null && roleOf(access, header('authorization')) !== null;
  const log = options.log ?? null;
  const placementApi = createPlacementApi({
    db: options.db,
    writes,
    tokens: access.tokens,
    // The server's Host rule holds for Placement's API too (against DNS rebinding). Pages of other sites
    // get Placement's CORS answers: named origins are let in, others get no CORS headers, so no page of
    // another site can read an answer or pass a preflight (every request that reads or writes carries
    // X-Auth-Token, which needs one).
    refusedHost: (header) => browserRefusal({ allowedHosts: browsers.allowedHosts }, 'GET', (name) => (name === 'origin' ? null : header(name)))?.message ?? null,
    cors: corsPolicy(browsers.corsOrigins ?? []),
    maxBodyBytes: limits.maxBodyBytes,
    maxCandidates: limits.maxCandidates,
    observe: (route, status, seconds) => {
      metrics.observe(`REST ${route}`, 'rest', seconds, status >= 500);
      log?.({ level: status >= 500 ? 'error' : 'info', operation: `REST ${route}`, type: 'rest', status, durationMs: Math.round(seconds * 1e4) / 10 });
    },
    // As an unexpected error of GraphQL: in the log, never in the answer.
    failed: (route, error) => (log ? log({ level: 'error', operation: `REST ${route}`, type: 'rest', error: String(error) }) : console.error(`REST ${route}:`, error)),
  });
  return Object.assign(yoga, { metrics, limits, history, documentCache, feed, admits, stopStreams: () => stopping.abort(), placementApi });
}
