// /health, and in gateway mode the mirror's freshness and the upstream's answers on /health and /metrics.
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import type { Gateway } from '../upstream/gateway.js';
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
      const body = { status: status.stale ? 'degraded' : 'ok', upstream: { url: status.url, stale: status.stale, lastSyncAt: status.lastSyncAt, lastError: status.lastError } };
      endResponse(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));
    },
  };
}

/** Sync duration, lag, staleness, refreshes by result, upstream requests by status and each mirrored service's reads, read when /metrics is scraped. */
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
  gauge('placement_gql_upstream_last_success_timestamp_seconds', 'When the mirror was last refreshed successfully, in seconds since the epoch (NaN before the first).', () => {
    const at = gateway.lastSuccessAt();
    return at === null ? null : at / 1000;
  });
  gauge('placement_gql_upstream_interval_seconds', 'Seconds between two refreshes of the mirror (--sync-interval).', () => gateway.interval);
  new Counter({
    name: 'placement_gql_upstream_refreshes_total',
    help: 'Refreshes of the mirror since the start, by result (success or failure).',
    labelNames: ['result'] as const,
    registers,
    collect() {
      this.reset();
      for (const [result, n] of Object.entries(gateway.refreshes)) this.inc({ result }, n);
    },
  });
  const perService = (name: string, help: string, value: (s: ReturnType<Gateway['serviceReads']>[number]) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames: ['service'] as const,
      registers,
      collect() {
        this.reset();
        for (const s of gateway.serviceReads()) this.set({ service: s.service }, value(s) ?? Number.NaN);
      },
    });
  perService('placement_gql_upstream_service_lag_seconds', 'Seconds since Nova (compute), Glance (image) or Ironic (baremetal) was last read into the mirror (NaN before the first read).', (s) =>
    s.lastSuccess === null ? null : (Date.now() - s.lastSuccess) / 1000,
  );
  perService('placement_gql_upstream_service_failing', '1 when the last read of Nova (compute), Glance (image) or Ironic (baremetal) failed (its previous state is kept).', (s) => (s.failing ? 1 : 0));
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
