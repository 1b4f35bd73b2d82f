// /health, and in gateway mode the mirror's freshness and the upstream's answers on /health and /metrics.
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import type { Gateway } from '../upstream/gateway.js';
import { reasonLine } from '../upstream/skipped.store.js';
import { Counter, Gauge } from 'prom-client';
import type { Metrics } from './metrics.js';

/**
 * /health answers 200 while reads are served: {"status": "ok"}, or in gateway mode "degraded" when
 * the mirror is stale (Placement unreachable or failing), so a load balancer keeps the gateway
 * and an operator sees why.
 */
export function useHealth(gateway: Gateway | null, metrics: Metrics): Plugin<Context> {
  if (gateway) registerUpstreamMetrics(gateway, metrics);
  return {
    onRequest({ url, endResponse }) {
      if (url.pathname !== '/health') return;
      if (!gateway) return endResponse(Response.json({ status: 'ok' }));
      const status = gateway.status();
      // Unauthenticated: the redacted URL, plain-worded errors, and skipped records counted by reason (none shown).
      const skipped = { records: status.skipped.count, reasons: status.skipped.reasons.slice(0, 10).map(reasonLine) };
      const body = { status: status.stale ? 'degraded' : 'ok', upstream: { url: status.url, stale: status.stale, lastSyncAt: status.lastSyncAt, lastError: status.lastError, skipped } };
      endResponse(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));
    },
  };
}

/** Sync duration, lag, staleness and upstream requests by status, read when /metrics is scraped. */
function registerUpstreamMetrics(gateway: Gateway, metrics: Metrics) {
  const registers = [metrics.registry];
  const gauge = (name: string, help: string, value: () => number | null) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(value() ?? Number.NaN);
      },
    });
  gauge('placement_gql_upstream_sync_seconds', 'Duration of the last successful refresh of the mirror.', () => gateway.status().lastSyncSeconds);
  gauge('placement_gql_upstream_lag_seconds', 'Seconds since the mirror was last refreshed.', () => gateway.lagSeconds());
  gauge('placement_gql_upstream_stale', '1 when no refresh succeeded for three intervals (or none yet).', () => (gateway.stale() ? 1 : 0));
  new Counter({
    name: 'placement_gql_upstream_requests_total',
    help: 'Requests sent to Placement, by status (0: no answer).',
    labelNames: ['status'] as const,
    registers,
    collect() {
      this.reset();
      for (const [status, n] of gateway.client.requests) this.inc({ status: String(status) }, n);
    },
  });
}
