// The Grafana dashboard and the Prometheus alert rules shipped in deploy/: every metric they name is on
// /metrics of real servers (the demo cloud standalone, and gateway mode over the recorded Placement
// with Nova), the rules parse and fire as they say (promtool, Debian's prometheus package), the
// dashboard is a Grafana 10/11 dashboard with a Prometheus data-source variable, and a real
// Prometheus scraping those servers evaluates every rule without error and every panel's query to data.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { createServer, type Server } from '../src/server.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { loadAccessConfig } from '../src/server/access.js';
import { Gateway } from '../src/upstream/gateway.js';
import { fixedTokenSession, withServiceUrls } from '../src/upstream/session.js';
import { fakeNova } from './fake-openstack.js';
import { recording, startFakePlacement } from './fake-placement.js';
import { demoCloud, tempDbFile } from './helpers.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RULES_FILE = join(root, 'deploy/prometheus/placement-gql.rules.yml');
const DASHBOARD_FILE = join(root, 'deploy/grafana/placement-gql.json');
const rules = YAML.parse(readFileSync(RULES_FILE, 'utf8'));
const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8'));
const PROMTOOL = '/usr/bin/promtool';
const PROMETHEUS = '/usr/bin/prometheus';
const TOKEN = 'monitoring-test-token-0123456789';

const alerts = (): any[] => rules.groups.flatMap((g: any) => g.rules);
const panelsOf = (): any[] => dashboard.panels.filter((p: any) => p.type !== 'row');
const dashboardExprs = (): string[] => panelsOf().flatMap((p: any) => p.targets.map((t: any) => t.expr));
const variableQueries = (): string[] => dashboard.templating.list.filter((v: any) => v.type === 'query').map((v: any) => v.query.query);

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads: what is left once strings, matchers, ranges, groupings, functions and keywords are taken out. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w.$])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    if (m[2] || PROMQL_WORDS.has(m[1].toLowerCase())) continue;
    names.add(m[1]);
  }
  return [...names];
}

/** label_values(METRIC{...}, LABEL) of a Grafana variable. */
const labelValuesQuery = (query: string) => {
  const m = query.match(/^label_values\((.+),\s*(\w+)\)$/);
  if (!m) throw new Error(`not a label_values query: ${query}`);
  return { selector: m[1], label: m[2] };
};

/** The sample names on a /metrics page (a histogram's _bucket, _sum and _count included). */
const sampleNames = (text: string) => new Set(text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.match(/^[a-zA-Z_:][\w:]*/)![0]));

interface Running {
  yoga: Server;
  node: NodeServer;
  port: number;
  close(): Promise<void>;
}

async function listen(yoga: Server): Promise<Running> {
  const node = createNodeServer(yoga);
  await new Promise<void>((done) => node.http.listen(0, '127.0.0.1', done));
  return { yoga, node, port: (node.http.address() as AddressInfo).port, close: async () => void (await node.stop(1_000)) };
}

const cleanups: (() => unknown)[] = [];
let standalone: Running;
let gateway: Running;
let scraped = new Set<string>();

/** Requests of every kind counted in /metrics: answered, failed, refused by a limit, a candidate search. */
async function traffic(server: Running, token?: string) {
  const post = (query: string) =>
    fetch(`http://127.0.0.1:${server.port}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify({ query }) });
  await post('query Providers { resourceProviders(first: 5) { nodes { name } } }');
  await post('query Broken { fullestTrees(first: -1) { fullness } }');
  await post('query Greedy { a: __typename b: __typename c: __typename }');
  await post('query Candidates { candidates(request: { groups: [{ resources: [{ resourceClass: "VCPU", amount: 1 }] }] }) { ... on Candidates { count } } }');
}

async function scrape(server: Running, token?: string) {
  const response = await fetch(`http://127.0.0.1:${server.port}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(response.status).toBe(200);
  return response.text();
}

beforeAll(async () => {
  // Standalone, with a token (as Prometheus scrapes a server that has tokens), the demo cloud loaded.
  const db = openDatabase(tempDbFile());
  importSnapshot(db, demoCloud());
  standalone = await listen(createServer({ db, access: loadAccessConfig(undefined, `reader:${TOKEN}`), processMetrics: true, limits: { maxAliases: 2 } }));
  cleanups.push(() => standalone.close(), () => db.close());

  // Gateway mode over the recorded Placement, with Nova mirrored beside it.
  const placement = await startFakePlacement(recording());
  const nova = await fakeNova({ flavors: [{ id: '1', name: 'm1.small', vcpus: 1, ram: 512, disk: 1, extraSpecs: {} }], servers: [] });
  const mirror = openDatabase(tempDbFile());
  const upstream = new Gateway(mirror, withServiceUrls(fixedTokenSession(placement.url, 'admin'), { compute: nova.endpoint }), { interval: 15, retryDelayMs: 1 });
  gateway = await listen(createServer({ db: mirror, gateway: upstream, processMetrics: true, limits: { maxAliases: 2 } }));
  cleanups.push(() => gateway.close(), () => upstream.stop(), () => mirror.close(), () => placement.close(), () => nova.close());
  await upstream.refresh();

  await traffic(standalone, TOKEN);
  await traffic(gateway);
  for (const text of [await scrape(standalone, TOKEN), await scrape(gateway)]) for (const name of sampleNames(text)) scraped.add(name);
});

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('the metrics the rules and the dashboard name', () => {
  it('finds the metric names of an expression, and only them', () => {
    expect(metricNames('sum by (job, instance) (rate(placement_gql_errors_total{reason!~"a|b"}[5m])) / on (job) group_left (x) sum(rate(placement_gql_requests_total[$__rate_interval])) > 0.05 and time() - foo_seconds offset 5m').sort()).toEqual(
      ['foo_seconds', 'placement_gql_errors_total', 'placement_gql_requests_total'].sort(),
    );
    expect(metricNames('histogram_quantile(0.99, sum by (le) (rate(x_bucket{a="{b}"}[1m]))) > 1')).toEqual(['x_bucket']);
  });

  it('each exists on /metrics of a standalone server and of a gateway', () => {
    const named = new Map<string, string>();
    for (const rule of alerts()) for (const name of metricNames(rule.expr)) named.set(name, `rule ${rule.alert}`);
    for (const panel of panelsOf()) for (const t of panel.targets) for (const name of metricNames(t.expr)) named.set(name, `panel "${panel.title}"`);
    for (const query of variableQueries()) for (const name of metricNames(labelValuesQuery(query).selector)) named.set(name, `variable ${query}`);
    // Enough to mean something: capacity, headroom, stranded, requests, latency, refusals, the mirror.
    expect(named.size).toBeGreaterThan(25);
    const missing = [...named].filter(([name]) => !scraped.has(name)).map(([name, where]) => `${name} (${where})`);
    expect(missing).toEqual([]);
  });
});

describe('the alert rules', () => {
  it('are groups of alerts, each with an expression, a duration, a severity, a summary and a description', () => {
    expect(rules.groups.length).toBeGreaterThan(0);
    const names = new Set<string>();
    for (const group of rules.groups) {
      expect(group.name).toMatch(/^placement-gql-/);
      for (const rule of group.rules) {
        expect(Object.keys(rule).sort()).toEqual(['alert', 'annotations', 'expr', 'for', 'labels']);
        expect(rule.alert).toMatch(/^PlacementGql[A-Z]\w+$/);
        expect(names.has(rule.alert)).toBe(false);
        names.add(rule.alert);
        expect(rule.for).toMatch(/^\d+[smh]$/);
        expect(['info', 'warning', 'critical']).toContain(rule.labels.severity);
        expect(rule.annotations.summary.length).toBeGreaterThan(10);
        expect(rule.annotations.description.length).toBeGreaterThan(60);
      }
    }
    expect([...names].sort()).toEqual(Object.keys(CASES).sort());
  });

  it.skipIf(!existsSync(PROMTOOL))('pass promtool check rules (skipped without /usr/bin/promtool: apt-get install prometheus)', () => {
    const result = spawnSync(PROMTOOL, ['check', 'rules', RULES_FILE], { encoding: 'utf8', timeout: 30_000 });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`SUCCESS: ${alerts().length} rules found`);
    expect(result.status).toBe(0);
  });

  it.skipIf(!existsSync(PROMTOOL))('fire when they should and not before, with their annotations (promtool test rules; skipped without /usr/bin/promtool)', () => {
    const dir = dirname(tempDbFile());
    const file = join(dir, 'rules.test.yml');
    writeFileSync(file, YAML.stringify(ruleTests(), { lineWidth: 0 }));
    const result = spawnSync(PROMTOOL, ['test', 'rules', file], { encoding: 'utf8', timeout: 60_000 });
    expect(result.stdout + result.stderr).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });
});

describe('the Grafana dashboard', () => {
  it('is a Grafana 10/11 dashboard with a Prometheus data-source variable that every panel and variable uses', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.uid).toBe('placement-gql');
    expect(dashboard.id).toBeNull();
    expect(dashboard.title).toBe('placement-gql');
    const [source, ...variables] = dashboard.templating.list;
    expect(source).toMatchObject({ type: 'datasource', name: 'datasource', query: 'prometheus' });
    const ds = { type: 'prometheus', uid: '${datasource}' };
    for (const v of variables) {
      expect(v.type).toBe('query');
      expect(v.datasource).toEqual(ds);
      expect(v.definition).toBe(v.query.query);
      labelValuesQuery(v.query.query);
    }
    expect(variables.map((v: any) => v.name)).toEqual(['job', 'instance', 'resource_class', 'flavor']);
    const ids = new Set<number>();
    for (const panel of dashboard.panels) {
      expect(ids.has(panel.id)).toBe(false);
      ids.add(panel.id);
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
      expect(panel.title.length).toBeGreaterThan(3);
    }
    for (const panel of panelsOf()) {
      expect(['timeseries', 'bargauge', 'stat', 'table']).toContain(panel.type);
      expect(panel.datasource).toEqual(ds);
      expect(panel.description.length).toBeGreaterThan(20);
      expect(panel.targets.length).toBeGreaterThan(0);
      expect(new Set(panel.targets.map((t: any) => t.refId)).size).toBe(panel.targets.length);
      for (const t of panel.targets) {
        expect(t.datasource).toEqual(ds);
        expect(t.expr).toMatch(/job=~"\$job", instance=~"\$instance"/);
      }
    }
    // No two panels overlap.
    const cells = new Set<string>();
    for (const { gridPos: g } of dashboard.panels)
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`)).toBe(false);
          cells.add(`${x},${y}`);
        }
    // What an operator needs is there.
    const all = dashboardExprs().join('\n');
    for (const needed of ['placement_gql_capacity_used', 'placement_gql_flavor_headroom', 'placement_gql_flavor_stranded', 'placement_gql_request_duration_seconds_bucket', 'placement_gql_errors_total', 'placement_gql_refused_total', 'placement_gql_upstream_lag_seconds', 'placement_gql_upstream_stale', 'placement_gql_upstream_refreshes_total'])
      expect(all).toContain(needed);
  });
});

describe.skipIf(!existsSync(PROMETHEUS))('a real Prometheus (skipped without /usr/bin/prometheus: apt-get install prometheus)', () => {
  let prometheus: ChildProcess;
  let api = '';

  beforeAll(async () => {
    const dir = dirname(tempDbFile());
    const port = await freePort();
    api = `http://127.0.0.1:${port}/api/v1`;
    const config = {
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [RULES_FILE],
      scrape_configs: [
        { job_name: 'placement-gql', authorization: { type: 'Bearer', credentials: TOKEN }, static_configs: [{ targets: [`127.0.0.1:${standalone.port}`] }] },
        { job_name: 'placement-gql-gateway', static_configs: [{ targets: [`127.0.0.1:${gateway.port}`] }] },
      ],
    };
    writeFileSync(join(dir, 'prometheus.yml'), YAML.stringify(config));
    mkdirSync(join(dir, 'data'));
    prometheus = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=error'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    prometheus.stderr!.on('data', (chunk) => (errors += chunk));
    // Up, both targets scraped a few times (rates need two samples), every rule evaluated.
    await waitFor(async () => {
      const targets = (await get('/targets')).activeTargets;
      return targets.length === 2 && targets.every((t: any) => t.health === 'up');
    }, () => `targets not up: ${errors}`);
    await traffic(standalone, TOKEN);
    await traffic(gateway);
    await new Promise((done) => setTimeout(done, 4_000));
  });

  afterAll(() => {
    prometheus?.kill('SIGTERM');
  });

  async function get(path: string) {
    const body = (await (await fetch(`${api}${path}`)).json()) as any;
    if (body.status !== 'success') throw new Error(`${path}: ${JSON.stringify(body)}`);
    return body.data;
  }

  it('evaluates every alert rule without error', async () => {
    await waitFor(async () => (await get('/rules')).groups.flatMap((g: any) => g.rules).every((r: any) => r.lastEvaluation && !r.lastEvaluation.startsWith('0001')), () => 'rules not evaluated');
    const evaluated = (await get('/rules')).groups.flatMap((g: any) => g.rules);
    expect(evaluated.map((r: any) => r.name).sort()).toEqual(alerts().map((r) => r.alert).sort());
    expect(evaluated.filter((r: any) => r.health !== 'ok').map((r: any) => `${r.name}: ${r.lastError}`)).toEqual([]);
  });

  it("answers every panel's query and every variable with data", async () => {
    const substitute = (expr: string) => expr.replaceAll('$__rate_interval', '5s').replaceAll('$job', '.*').replaceAll('$instance', '.*').replaceAll('$resource_class', '.*').replaceAll('$flavor', '.*');
    const empty: string[] = [];
    for (const panel of panelsOf()) {
      for (const t of panel.targets) {
        const data = await get(`/query?query=${encodeURIComponent(substitute(t.expr))}`);
        if (data.result.length === 0) empty.push(`${panel.title}: ${t.expr}`);
      }
    }
    expect(empty).toEqual([]);
    for (const query of variableQueries()) {
      const { selector, label } = labelValuesQuery(query);
      const values = await get(`/label/${label}/values?match[]=${encodeURIComponent(substitute(selector))}`);
      expect(values.length, query).toBeGreaterThan(0);
    }
  });
});

async function waitFor(check: () => Promise<boolean>, why: () => string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // Not up yet.
    }
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((done) => setTimeout(done, 250));
  }
}

const freePort = () =>
  new Promise<number>((done) => {
    const probe = createNetServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });

// ---- promtool test rules: each alert on series that make it fire, and on series that must not ----

const L = 'job="placement-gql", instance="gw:4000"';
const AGG = '1d0f032c-9b2b-5296-aaf3-794d077c7983';
type Case = { series: Record<string, string>; quietAt: string; firesAt: string; fired: { labels: Record<string, string>; summary: string }[] };
const base = { job: 'placement-gql', instance: 'gw:4000' };

const CASES: Record<string, Case> = {
  PlacementGqlClassCapacityHigh: {
    series: {
      [`placement_gql_capacity_used{${L}, resource_class="VCPU"}`]: '90x60',
      [`placement_gql_capacity_capacity{${L}, resource_class="VCPU"}`]: '100x60',
      [`placement_gql_capacity_used{${L}, resource_class="MEMORY_MB"}`]: '50x60',
      [`placement_gql_capacity_capacity{${L}, resource_class="MEMORY_MB"}`]: '100x60',
      // No capacity at all: no division by zero, no alert.
      [`placement_gql_capacity_used{${L}, resource_class="VGPU"}`]: '0x60',
      [`placement_gql_capacity_capacity{${L}, resource_class="VGPU"}`]: '0x60',
    },
    quietAt: '29m',
    firesAt: '31m',
    fired: [{ labels: { ...base, resource_class: 'VCPU', severity: 'warning' }, summary: 'VCPU is 90% used (gw:4000)' }],
  },
  PlacementGqlClassCapacityCritical: {
    series: {
      [`placement_gql_capacity_used{${L}, resource_class="VCPU"}`]: '96x60',
      [`placement_gql_capacity_capacity{${L}, resource_class="VCPU"}`]: '100x60',
      [`placement_gql_capacity_used{${L}, resource_class="MEMORY_MB"}`]: '90x60',
      [`placement_gql_capacity_capacity{${L}, resource_class="MEMORY_MB"}`]: '100x60',
    },
    quietAt: '14m',
    firesAt: '16m',
    fired: [{ labels: { ...base, resource_class: 'VCPU', severity: 'critical' }, summary: 'VCPU is 96% used (gw:4000)' }],
  },
  PlacementGqlAggregateCapacityHigh: {
    series: {
      [`placement_gql_aggregate_capacity_used{${L}, aggregate="${AGG}", resource_class="VCPU"}`]: '95x60',
      [`placement_gql_aggregate_capacity_capacity{${L}, aggregate="${AGG}", resource_class="VCPU"}`]: '100x60',
      [`placement_gql_aggregate_capacity_used{${L}, aggregate="${AGG}", resource_class="DISK_GB"}`]: '10x60',
      [`placement_gql_aggregate_capacity_capacity{${L}, aggregate="${AGG}", resource_class="DISK_GB"}`]: '100x60',
    },
    quietAt: '29m',
    firesAt: '31m',
    fired: [{ labels: { ...base, aggregate: AGG, resource_class: 'VCPU', severity: 'warning' }, summary: `Aggregate ${AGG}: VCPU is 95% used (gw:4000)` }],
  },
  PlacementGqlFlavorHeadroomLow: {
    series: { [`placement_gql_flavor_headroom{${L}, flavor="m1.small"}`]: '5x60', [`placement_gql_flavor_headroom{${L}, flavor="m1.large"}`]: '50x60' },
    quietAt: '29m',
    firesAt: '31m',
    fired: [{ labels: { ...base, flavor: 'm1.small', severity: 'warning' }, summary: 'Only 5 more servers of flavor m1.small fit (gw:4000)' }],
  },
  PlacementGqlFlavorExhausted: {
    series: { [`placement_gql_flavor_headroom{${L}, flavor="m1.small"}`]: '0x60', [`placement_gql_flavor_headroom{${L}, flavor="m1.large"}`]: '1x60' },
    quietAt: '9m',
    firesAt: '11m',
    fired: [{ labels: { ...base, flavor: 'm1.small', severity: 'critical' }, summary: 'No server of flavor m1.small fits any more (gw:4000)' }],
  },
  PlacementGqlHighErrorRate: {
    series: {
      // 1 operation a second, 10% of them failing.
      [`placement_gql_requests_total{${L}, operation="Dashboard", type="query"}`]: '0+60x60',
      [`placement_gql_errors_total{${L}, operation="Dashboard", type="query"}`]: '0+6x60',
      // Another server with all of its rare operations failing: too few to alert on.
      [`placement_gql_requests_total{job="placement-gql", instance="quiet:4000", operation="Nightly", type="query"}`]: '0+1x60',
      [`placement_gql_errors_total{job="placement-gql", instance="quiet:4000", operation="Nightly", type="query"}`]: '0+1x60',
    },
    quietAt: '9m',
    firesAt: '16m',
    fired: [{ labels: { ...base, severity: 'warning' }, summary: '10% of GraphQL operations answer with errors (gw:4000)' }],
  },
  PlacementGqlHighLatency: {
    series: {
      // Every operation between 1 and 2.5 s.
      [`placement_gql_request_duration_seconds_bucket{${L}, operation="Q", type="query", le="0.5"}`]: '0x60',
      [`placement_gql_request_duration_seconds_bucket{${L}, operation="Q", type="query", le="1"}`]: '0x60',
      [`placement_gql_request_duration_seconds_bucket{${L}, operation="Q", type="query", le="2.5"}`]: '0+10x60',
      [`placement_gql_request_duration_seconds_bucket{${L}, operation="Q", type="query", le="+Inf"}`]: '0+10x60',
    },
    quietAt: '9m',
    firesAt: '16m',
    fired: [{ labels: { ...base, severity: 'warning' }, summary: 'GraphQL p99 latency is 2.485s (gw:4000)' }],
  },
  PlacementGqlSaturated: {
    series: { [`placement_gql_refused_total{${L}, reason="maxConnections"}`]: '0+5x60', [`placement_gql_refused_total{${L}, reason="maxDepth"}`]: '0+100x60' },
    quietAt: '5m',
    firesAt: '11m',
    fired: [{ labels: { ...base, reason: 'maxConnections', severity: 'warning' }, summary: 'Requests are refused by the limit maxConnections (gw:4000)' }],
  },
  PlacementGqlLimitRefusals: {
    series: {
      [`placement_gql_refused_total{${L}, reason="maxDepth"}`]: '0+100x60',
      [`placement_gql_refused_total{${L}, reason="maxConnections"}`]: '0+100x60',
      // Less than one a minute: a mistake now and then, not worth an alert.
      [`placement_gql_refused_total{${L}, reason="maxAliases"}`]: '0+0.5x60',
    },
    quietAt: '14m',
    firesAt: '26m',
    fired: [{ labels: { ...base, reason: 'maxDepth', severity: 'info' }, summary: '100 requests a minute refused by the limit maxDepth (gw:4000)' }],
  },
  PlacementGqlMirrorStale: {
    series: { [`placement_gql_upstream_stale{${L}}`]: '0 0 0 1x30', [`placement_gql_upstream_stale{job="placement-gql", instance="fresh:4000"}`]: '0x33' },
    quietAt: '4m',
    firesAt: '6m',
    fired: [{ labels: { ...base, severity: 'warning' }, summary: 'The mirror of Placement is stale (gw:4000)' }],
  },
  PlacementGqlMirrorStaleLong: {
    series: { [`placement_gql_upstream_stale{${L}}`]: '0 0 0 1x30' },
    quietAt: '17m',
    firesAt: '19m',
    fired: [{ labels: { ...base, severity: 'critical' }, summary: 'The mirror of Placement has been stale for 15 minutes (gw:4000)' }],
  },
  PlacementGqlUpstreamRefreshFailing: {
    series: {
      // Four refreshes a minute succeed, two fail: one in three.
      [`placement_gql_upstream_refreshes_total{${L}, result="success"}`]: '0+4x60',
      [`placement_gql_upstream_refreshes_total{${L}, result="failure"}`]: '0+2x60',
      // One in ten failing: not alerted.
      [`placement_gql_upstream_refreshes_total{job="placement-gql", instance="ok:4000", result="success"}`]: '0+9x60',
      [`placement_gql_upstream_refreshes_total{job="placement-gql", instance="ok:4000", result="failure"}`]: '0+1x60',
    },
    quietAt: '14m',
    firesAt: '31m',
    fired: [{ labels: { ...base, severity: 'warning' }, summary: '33.33% of the mirror\'s refreshes fail (gw:4000)' }],
  },
  PlacementGqlUpstreamErrors: {
    series: {
      [`placement_gql_upstream_requests_total{${L}, status="200"}`]: '0+80x60',
      [`placement_gql_upstream_requests_total{${L}, status="503"}`]: '0+10x60',
      [`placement_gql_upstream_requests_total{${L}, status="0"}`]: '0+10x60',
      [`placement_gql_upstream_requests_total{${L}, status="404"}`]: '0+100x60',
    },
    quietAt: '9m',
    firesAt: '21m',
    fired: [{ labels: { ...base, severity: 'warning' }, summary: '10% of requests to Placement fail (gw:4000)' }],
  },
  PlacementGqlServiceReadFailing: {
    series: { [`placement_gql_upstream_service_failing{${L}, service="image"}`]: '1x30', [`placement_gql_upstream_service_failing{${L}, service="compute"}`]: '0x30' },
    quietAt: '14m',
    firesAt: '16m',
    fired: [{ labels: { ...base, service: 'image', severity: 'warning' }, summary: 'Reading image into the mirror fails (gw:4000)' }],
  },
};

/** The rule's description with its labels filled in, as Prometheus renders it. */
function description(alert: string, labels: Record<string, string>) {
  const rule = alerts().find((r) => r.alert === alert);
  return rule.annotations.description.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_: string, name: string) => labels[name]);
}

function ruleTests() {
  return {
    rule_files: [RULES_FILE],
    evaluation_interval: '1m',
    tests: Object.entries(CASES).map(([alert, c]) => ({
      interval: '1m',
      input_series: Object.entries(c.series).map(([series, values]) => ({ series, values })),
      alert_rule_test: [
        { eval_time: c.quietAt, alertname: alert, exp_alerts: [] },
        {
          eval_time: c.firesAt,
          alertname: alert,
          exp_alerts: c.fired.map((f) => ({ exp_labels: f.labels, exp_annotations: { summary: f.summary, description: description(alert, f.labels) } })),
        },
      ],
    })),
  };
}
