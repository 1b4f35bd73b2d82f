// npm run bench: allocation-candidate latency per query tag through yoga.fetch, on generated clouds of
// 1,000 and 10,000 roots, side by side with the real Placement 8.0.0 when it is installed.
//
// Clouds come from the project's generator (bench/generate.ts, seed 1) and are cached in bench/.cache/.
// Knobs: BENCH_SIZES=1000,10000  BENCH_REPEAT=20  BENCH_PLACEMENT=0 (skip Placement)
//        BENCH_PLACEMENT_REPEAT=5  BENCH_ORACLE=../shared/oracle
// Medians and p95 (nearest rank) are over all runs of a tag's queries, as the oracle computes them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/client.js';
import { createServer, type Server } from '../src/server.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { httpBench } from './http.js';
import { runLoad } from './load.js';
import { scenarioText } from './generate.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'bench/.cache');
const ORACLE = resolve(ROOT, process.env.BENCH_ORACLE ?? '../shared/oracle');
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 20);
const PLACEMENT_REPEAT = Number(process.env.BENCH_PLACEMENT_REPEAT ?? 5);
const WARMUP = 3;
const WARMUP_SECONDS = 0.5;
const MAX_WARMUP_RUNS = 1000;
const SEED = 1;

/** The same content as Placement's answer: requests with mappings, summaries with parent, root, resources and traits. */
const QUERY = `query($query: String!, $microversion: String) {
  placementCandidates(query: $query, microversion: $microversion) {
    __typename
    ... on RequestError { status message }
    ... on Candidates {
      count truncated
      allocationRequests {
        allocations { provider { uuid } resources { resourceClass amount } }
        mappings { suffix providers { uuid } }
      }
      providerSummaries { provider { uuid } parentProviderUuid rootProviderUuid resources { resourceClass capacity used } traits }
    }
  }
}`;

interface ScenarioQuery {
  id: string;
  kind?: string;
  tag?: string;
  microversion?: string;
  params?: Record<string, string | string[]> | [string, string][];
  raw_query?: string;
}

/** urllib.parse.quote as the oracle uses it, so both services get the same query string. */
const pyQuote = (s: string, safe: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => {
    const ch = String.fromCharCode(b);
    return /[A-Za-z0-9_.~-]/.test(ch) || safe.includes(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');

function queryString(q: ScenarioQuery): string {
  if (q.raw_query !== undefined) return q.raw_query;
  const pairs: [string, string][] = Array.isArray(q.params)
    ? q.params
    : Object.entries(q.params ?? {}).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as [string, string]) : [[k, v] as [string, string]]));
  return pairs.map(([k, v]) => `${pyQuote(k, '')}=${pyQuote(String(v), ':,!')}`).join('&');
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** Nearest-rank percentile, as the oracle computes it. */
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(Math.max(1, Math.ceil((p * s.length) / 100)), s.length) - 1];
};

function placementInstalled(): boolean {
  return spawnSync('/usr/bin/python3', ['-c', 'import placement.direct, wsgi_intercept'], { stdio: 'ignore' }).status === 0;
}

function scenarioFile(size: number): string {
  const file = join(CACHE, `seed${SEED}_size${size}.json`);
  if (existsSync(file)) return file;
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(file, scenarioText(SEED, size));
  return file;
}

/** One request, timed until the whole body is read as bytes (as the oracle times Placement: its `r.content`, not decoded). */
async function call(yoga: Server, body: string) {
  const started = performance.now();
  const response = await yoga.fetch('http://bench/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const bytes = await response.arrayBuffer();
  return { ms: performance.now() - started, text: () => Buffer.from(bytes).toString('utf8') };
}

interface TagFigures {
  queries: number;
  samples: number[];
  maxCount: number;
}

async function timeOurs(yoga: Server, queries: ScenarioQuery[]) {
  const byTag = new Map<string, TagFigures>();
  const counts = new Map<string, number>();
  for (const q of queries) {
    const body = JSON.stringify({ query: QUERY, variables: { query: queryString(q), microversion: q.microversion ?? null } });
    const first = await call(yoga, body);
    const answer = JSON.parse(first.text());
    if (answer.errors) throw new Error(`${q.id}: ${JSON.stringify(answer.errors)}`);
    // Warm up as a running server is: at least WARMUP runs, and quick queries for up to WARMUP_SECONDS.
    const started = performance.now();
    for (let i = 1; i < WARMUP || (performance.now() - started < WARMUP_SECONDS * 1000 && i < MAX_WARMUP_RUNS); i++) await call(yoga, body);
    const samples: number[] = [];
    for (let i = 0; i < REPEAT; i++) samples.push((await call(yoga, body)).ms);
    const tag = q.tag ?? 'untagged';
    const figures = byTag.get(tag) ?? { queries: 0, samples: [], maxCount: 0 };
    figures.queries++;
    figures.samples.push(...samples);
    figures.maxCount = Math.max(figures.maxCount, answer.data.placementCandidates.count ?? 0);
    byTag.set(tag, figures);
    counts.set(q.id, answer.data.placementCandidates.count ?? 0);
  }
  return { byTag, counts };
}

/** While the largest search runs, small requests keep being sent: how many are answered before it ends, and how fast. */
async function responsiveness(yoga: Server, big: ScenarioQuery, small: ScenarioQuery) {
  const bigBody = JSON.stringify({ query: QUERY, variables: { query: queryString(big), microversion: big.microversion ?? null } });
  const smallBody = JSON.stringify({ query: QUERY, variables: { query: queryString(small), microversion: small.microversion ?? null } });
  let done = false;
  const bigCall = call(yoga, bigBody).then((r) => ((done = true), r));
  const latencies: number[] = [];
  while (!done) {
    // A new small request every 2 ms, as if from the network (a timer, not a chain of promises).
    await new Promise((resolve) => setTimeout(resolve, 2));
    if (done) break;
    const r = await call(yoga, smallBody);
    if (!done) latencies.push(r.ms);
  }
  const { ms } = await bigCall;
  return { bigMs: ms, answered: latencies.length, maxMs: latencies.length ? Math.max(...latencies) : 0, medianMs: latencies.length ? median(latencies) : 0 };
}

function timePlacement(size: number, scenario: string, ids: string[]): Map<string, { median: number; p95: number }> | null {
  const snapshot = join(CACHE, `seed${SEED}_size${size}.sqlite`);
  if (!existsSync(snapshot)) console.log(`  Placement: loading ${size} roots through its API once (10,000 roots take about 27 min); kept in ${snapshot}`);
  const out = join(CACHE, `placement-time-size${size}.json`);
  const run = spawnSync(
    '/usr/bin/python3',
    [join(ORACLE, 'placement_oracle.py'), '--time', '--snapshot', snapshot, '--repeat', String(PLACEMENT_REPEAT), '--query-budget', '30', '--only', ids.join(','), '-o', out, scenario],
    { stdio: ['ignore', 'inherit', 'pipe'], maxBuffer: 1 << 26 },
  );
  if (run.status !== 0) {
    console.log(`  Placement timing failed: ${run.stderr.toString().slice(-2000)}`);
    return null;
  }
  const timing = JSON.parse(readFileSync(out, 'utf8')).timing;
  return new Map(timing.by_tag.map((t: any) => [t.tag, { median: t.median_ms, p95: t.p95_ms }]));
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

async function benchSize(size: number, withPlacement: boolean) {
  const file = scenarioFile(size);
  const scenario = JSON.parse(readFileSync(file, 'utf8'));
  const queries = (scenario.queries as ScenarioQuery[]).filter((q) => (q.kind ?? 'allocation_candidates') === 'allocation_candidates');
  const dir = mkdtempSync(join(tmpdir(), 'placement-gql-bench-'));
  const db = openDatabase(join(dir, 'bench.db'));
  const importStarted = performance.now();
  importSnapshot(db, scenario);
  const importMs = performance.now() - importStarted;
  const yoga = createServer({ db, maskErrors: false });
  console.log(`\n## ${size} roots (seed ${SEED}): ${scenario.providers.length} providers, ${Object.keys(scenario.allocations).length} consumers, imported in ${(importMs / 1000).toFixed(1)} s`);

  const { byTag: ours, counts } = await timeOurs(yoga, queries);
  const big = [...queries].sort((a, b) => counts.get(b.id)! - counts.get(a.id)!)[0];
  const small = queries.find((q) => q.tag === 'ac_in_tree') ?? queries[queries.length - 1];
  const busy = await responsiveness(yoga, big, small);
  db.close();
  rmSync(dir, { recursive: true, force: true });

  const placement = withPlacement ? timePlacement(size, file, queries.map((q) => q.id)) : null;
  console.log(`\n| tag | queries | max results | median ms | p95 ms |${placement ? ' Placement median ms | Placement p95 ms | ratio (median) |' : ''}`);
  console.log(`|---|---:|---:|---:|---:|${placement ? '---:|---:|---:|' : ''}`);
  const rows: Record<string, unknown>[] = [];
  for (const [tag, f] of ours) {
    const med = median(f.samples);
    const p95 = percentile(f.samples, 95);
    const theirs = placement?.get(tag);
    const ratio = theirs ? theirs.median / med : null;
    rows.push({ tag, queries: f.queries, maxCount: f.maxCount, medianMs: med, p95Ms: p95, placementMedianMs: theirs?.median, placementP95Ms: theirs?.p95, ratio });
    console.log(
      `| ${tag} | ${f.queries} | ${f.maxCount} | ${fmt(med)} | ${fmt(p95)} |` +
        (placement ? ` ${theirs ? fmt(theirs.median) : '-'} | ${theirs ? fmt(theirs.p95) : '-'} | ${ratio ? ratio.toFixed(1) + '×' : '-'} |` : ''),
    );
  }
  console.log(
    `\nDuring one ${big.id} search (${fmt(busy.bigMs)} ms), ${busy.answered} ${small.id} requests were answered ` +
      `(median ${fmt(busy.medianMs)} ms, max ${fmt(busy.maxMs)} ms).`,
  );
  writeFileSync(join(CACHE, `results-size${size}.json`), JSON.stringify({ size, seed: SEED, repeat: REPEAT, importMs, tags: rows, responsiveness: busy }, null, 1));
}

const withPlacement = process.env.BENCH_PLACEMENT !== '0' && placementInstalled();
console.log(
  `# Allocation candidates: placement-gql${withPlacement ? ' vs Placement 8.0.0' : ''}\n` +
    `placement-gql: per query ${WARMUP} warm-up runs (quick queries: ${WARMUP_SECONDS} s of them, at most ${MAX_WARMUP_RUNS}), then ${REPEAT} timed runs.` +
    (withPlacement ? `\nPlacement: 1 warm-up run, then ${PLACEMENT_REPEAT} runs per query (at least 3 when a query takes over 30 s).` : ''),
);
if (!withPlacement) console.log('Placement is not timed (BENCH_PLACEMENT=0, or /usr/bin/python3 cannot import placement).');
for (const size of SIZES) await benchSize(size, withPlacement);

// HTTP: a dashboard page next to a bare graphql-yoga, and a bounded load of readers and writers, on the smallest cloud.
{
  const size = Math.min(...SIZES);
  const file = scenarioFile(size);
  {
    const dir = mkdtempSync(join(tmpdir(), 'placement-gql-http-'));
    const dbFile = join(dir, 'bench.db');
    const db = openDatabase(dbFile);
    importSnapshot(db, JSON.parse(readFileSync(file, 'utf8')));
    const http = await httpBench(dbFile);
    console.log(`\n# HTTP on loopback (${size} roots, 16 concurrent clients)`);
    console.log(`dashboard page (20 providers with relations): ${http.dashboardPerSecond.toFixed(0)} requests/s`);
    console.log(`bare graphql-yoga, one trivial field: ${http.bareYogaPerSecond.toFixed(0)} requests/s`);
    console.log(`ratio: ${http.ratio.toFixed(2)}`);
    const providers = db.sqlite.prepare('SELECT uuid FROM resource_providers ORDER BY id LIMIT 20').all().map((r: any) => r.uuid as string);
    const load = await runLoad(db, { readers: 8, writers: 8, seconds: 10, providers });
    console.log(`\n# Load: 8 readers, 8 writers on 20 shared providers, ${load.seconds.toFixed(1)} s over HTTP`);
    console.log(`reads ${load.reads} (failed ${load.failedReads}), p50 ${fmt(load.readP50Ms)} ms, p99 ${fmt(load.readP99Ms)} ms`);
    console.log(`writes applied ${load.writes}, conflicts returned as data ${load.conflicts}, failed ${load.failedWrites}, lost updates ${load.lostUpdates}; p50 ${fmt(load.writeP50Ms)} ms, p99 ${fmt(load.writeP99Ms)} ms`);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
