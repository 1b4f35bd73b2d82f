// Allocation candidates over Placement's REST API: GET /placement/allocation_candidates on
// placement-gql next to GET /allocation_candidates on the real Placement, the same query strings as
// the GraphQL tags, interleaved query by query, from a Node keep-alive client and from a Python one
// (http.client, as osc-placement, Nova and most exporters are: bench/rest_candidates_client.py).
// /health is timed by each client too, next to each of our requests, first and second in turn (the
// first request after Placement's finds a cold CPU, however small it is): the small requests (a
// refused query, an empty answer, ac_ironic, ac_in_tree) should cost about what it costs.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpClient, inTurn, type Service } from './services.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface RestQuery {
  id: string;
  tag: string;
  /** Placement's query string, as the GraphQL tags send it. */
  query: string;
  microversion?: string;
}

export interface RestTagRow {
  tag: string;
  queries: number;
  maxCount: number;
  /** Ours, /health timed next to each of ours, and Placement's, per client. */
  node: { ours: number[]; health: number[]; placement: number[] };
  python: { ours: number[]; health: number[]; placement: number[] };
}

export interface RestCandidatesFigures {
  rows: RestTagRow[];
  /** Queries whose status or number of allocation requests differ (ours, Placement). */
  disagree: string[];
}

const headersOf = (q: RestQuery) => ({ 'x-auth-token': 'admin', accept: 'application/json', 'openstack-api-version': `placement ${q.microversion ?? 'latest'}` });
const says = (status: number, body: Buffer) => (status === 200 ? `200 ${JSON.parse(body.toString('utf8')).allocation_requests.length}` : `${status}`);

const WARMUP_RUNS = 3;
const WARMUP_SECONDS = 0.5;
const PLACEMENT_BUDGET_SECONDS = 30;

/** Every query from both clients; Placement's runs interleaved with ours (at least 3, then as many as fit its budget). */
export async function timeRestCandidates(ours: Service, placement: Service | null, queries: RestQuery[], repeat: number, placementRepeat: number): Promise<RestCandidatesFigures> {
  const rows = new Map<string, RestTagRow>();
  const row = (tag: string) => {
    let r = rows.get(tag);
    if (!r) rows.set(tag, (r = { tag, queries: 0, maxCount: 0, node: { ours: [], health: [], placement: [] }, python: { ours: [], health: [], placement: [] } }));
    return r;
  };
  const disagree: string[] = [];
  const client = new HttpClient(ours.url);
  const pclient = placement ? new HttpClient(placement.url) : null;
  for (const q of queries) {
    const path = `/allocation_candidates?${q.query}`;
    const headers = headersOf(q);
    const first = await client.get(`/placement${path}`, headers);
    const r = row(q.tag);
    r.queries++;
    r.maxCount = Math.max(r.maxCount, first.status === 200 ? JSON.parse(first.body.toString('utf8')).allocation_requests.length : 0);
    const started = performance.now();
    for (let i = 1; i < WARMUP_RUNS || (performance.now() - started < WARMUP_SECONDS * 1000 && i < 1000); i++) {
      await client.get(`/placement${path}`, headers);
      await client.get('/health');
    }
    if (pclient) {
      const theirs = await pclient.get(path, headers);
      if (says(theirs.status, theirs.body) !== says(first.status, first.body)) disagree.push(`${q.id} (ours ${says(first.status, first.body)}, Placement ${says(theirs.status, theirs.body)})`);
    }
    let spent = 0;
    for (let i = 0; i < Math.max(repeat, pclient ? placementRepeat : 0); i++) {
      if (i < repeat) {
        await inTurn(
          i,
          () => client.get(`/placement${path}`, headers).then((t) => r.node.ours.push(t.ms)),
          () => client.get('/health').then((t) => r.node.health.push(t.ms)),
        );
      }
      if (pclient && i < placementRepeat && (i < 3 || spent < PLACEMENT_BUDGET_SECONDS * 1000)) {
        const t = await pclient.get(path, headers);
        spent += t.ms;
        r.node.placement.push(t.ms);
      }
    }
  }
  client.close();
  pclient?.close();

  const plan = {
    ours: `${ours.url}/placement`,
    placement: placement?.url ?? null,
    repeat,
    placementRepeat,
    placementBudgetS: PLACEMENT_BUDGET_SECONDS,
    warmupRuns: WARMUP_RUNS,
    warmupS: WARMUP_SECONDS,
    queries: queries.map((q) => ({ id: q.id, path: `/allocation_candidates?${q.query}`, headers: headersOf(q) })),
  };
  const py = spawnSync('/usr/bin/python3', [join(ROOT, 'bench/rest_candidates_client.py')], { input: JSON.stringify(plan), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (py.status !== 0) throw new Error(`bench/rest_candidates_client.py failed: ${py.stderr.slice(-2000)}`);
  const python = JSON.parse(py.stdout) as { queries: Record<string, { ours: number[]; health: number[]; placement: number[] }> };
  for (const q of queries) {
    const r = row(q.tag);
    r.python.ours.push(...python.queries[q.id].ours);
    r.python.health.push(...python.queries[q.id].health);
    r.python.placement.push(...python.queries[q.id].placement);
  }
  return { rows: [...rows.values()], disagree };
}

const median = (xs: number[]) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms: number) => (Number.isNaN(ms) ? '-' : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const times = (r: number) => (Number.isNaN(r) ? '-' : r >= 100 ? `${r.toFixed(0)}×` : `${r.toFixed(1)}×`);

/** The tags whose requests are small: they should cost about what /health costs. */
export const SMALL_TAGS = new Set(['invalid', 'ac_empty', 'ac_ironic', 'ac_in_tree']);

/** A markdown table: per tag, each client's median for ours and Placement's, their ratio, and the small tags against the /health timed next to them. */
export function restCandidatesTable(figures: RestCandidatesFigures): string {
  const health = { node: median(figures.rows.flatMap((r) => r.node.health)), python: median(figures.rows.flatMap((r) => r.python.health)) };
  const lines = [
    '| tag | queries | max results | Node: ours ms | Node: Placement ms | Node: ratio | Python: ours ms | Python: Placement ms | Python: ratio | × /health (Node, Python) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of figures.rows) {
    const node = { ours: median(r.node.ours), placement: median(r.node.placement) };
    const python = { ours: median(r.python.ours), placement: median(r.python.placement) };
    const small = SMALL_TAGS.has(r.tag) ? `${(node.ours / median(r.node.health)).toFixed(2)}×, ${(python.ours / median(r.python.health)).toFixed(2)}× (${fmt(median(r.node.health))}, ${fmt(median(r.python.health))})` : '';
    lines.push(
      `| ${r.tag} | ${r.queries} | ${r.maxCount} | ${fmt(node.ours)} | ${fmt(node.placement)} | ${times(node.placement / node.ours)} | ${fmt(python.ours)} | ${fmt(python.placement)} | ${times(python.placement / python.ours)} | ${small} |`,
    );
  }
  lines.push(`| /health (every tag) | | | ${fmt(health.node)} | | | ${fmt(health.python)} | | | 1× |`);
  if (figures.disagree.length) lines.push('', `Answers differ (status and number of allocation requests) on ${figures.disagree.join(', ')}.`);
  return lines.join('\n');
}

/**
 * Run alone: `node --import tsx bench/rest-candidates.ts [SIZE ...]` (default 1000), on the clouds
 * and Placement databases `npm run bench` keeps in bench/.cache (made there when missing).
 */
async function main(sizes: number[]) {
  const { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { openDatabase } = await import('../src/db/client.js');
  const { importSnapshot } = await import('../src/modules/snapshot/snapshot.service.js');
  const { scenarioText } = await import('./generate.js');
  const { placementInstalled, startOurs, startPlacement } = await import('./services.js');
  const { scenarioQueries } = await import('./queries.js');
  const cache = join(ROOT, 'bench/.cache');
  const seed = Number(process.env.BENCH_SEED ?? 1);
  mkdirSync(cache, { recursive: true });
  for (const size of sizes) {
    const file = join(cache, `seed${seed}_size${size}.json`);
    if (!existsSync(file)) writeFileSync(file, scenarioText(seed, size));
    const scenario = JSON.parse(readFileSync(file, 'utf8'));
    const dir = mkdtempSync(join(tmpdir(), 'placement-gql-rest-candidates-'));
    const db = openDatabase(join(dir, 'bench.db'));
    importSnapshot(db, scenario);
    db.close();
    const placement = placementInstalled() && process.env.BENCH_PLACEMENT !== '0' ? await startPlacement(join(dir), file, join(cache, `placement-seed${seed}_size${size}.sqlite`)) : null;
    const ours = await startOurs(join(dir, 'bench.db'));
    const figures = await timeRestCandidates(ours, placement, scenarioQueries(scenario), Number(process.env.BENCH_REPEAT ?? 20), Number(process.env.BENCH_PLACEMENT_REPEAT ?? 5));
    await ours.stop();
    await placement?.stop();
    console.log(`\n### ${size} roots (seed ${seed}): GET /allocation_candidates over HTTP\n\n${restCandidatesTable(figures)}`);
  }
}

if (import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1] ?? '').href) {
  const sizes = process.argv.slice(2).map(Number);
  await main(sizes.length ? sizes : [1000]);
}
