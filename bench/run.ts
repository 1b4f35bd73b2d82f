// npm run bench: allocation-candidate latency per query tag over HTTP, `placement-gql serve` on a real
// socket next to the real Placement 8.0.0 (Debian's placement-api) when it is installed, on the same
// generated clouds of 1,000 and 10,000 roots, interleaved query by query, from one keep-alive client;
// then the same queries in-process through yoga.fetch, throughput per worker count, and a bounded load.
//
// Clouds come from the project's generator (bench/generate.ts, seed 1 or BENCH_SEED) and are cached in bench/.cache/,
// with Placement's database once loaded through its API.
// Knobs: BENCH_SIZES=1000,10000  BENCH_SEED=1  BENCH_REPEAT=20  BENCH_PLACEMENT=0 (skip Placement)  BENCH_PLACEMENT_REPEAT=5
//        BENCH_GATEWAY=0 (skip the gateway sync)  BENCH_INPROCESS=0 (skip the in-process table)  BENCH_THROUGHPUT=0  BENCH_LOAD=0
//        BENCH_CANDIDATES=0 (skip the candidate tags, e.g. to time capacity alone)  BENCH_CAPACITY=0  BENCH_REST=0 (skip the REST API's small requests)
//        BENCH_REFRESH=0 (skip capacity right after refreshes by another connection)
//        BENCH_GATEWAY_DB=0 (skip the gateway reading Placement's database on MariaDB)
//        BENCH_ONLY=gateway-db,... (run only these parts: candidates, throughput, load, capacity, refresh, gateway, gateway-db)
// Medians and p95 (nearest rank) are over all runs of a tag's queries.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/client.js';
import { createServer, type Server } from '../src/server.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { HttpClient, inTurn, placementInstalled, startOurs, startPlacement, type Service } from './services.js';
import { throughputTable } from './http.js';
import { capacityBench, refreshBench } from './capacity.js';
import { runLoad } from './load.js';
import { scenarioText } from './generate.js';
import { gatewayBench } from './gateway.js';
import { placementDbBench } from './placement-db.js';
import { restTable, timeSmallRequests } from './rest.js';
import { restCandidatesTable, SMALL_TAGS, timeRestCandidates } from './rest-candidates.js';
import { candidateQueries, queryString, scenarioQueries, type ScenarioQuery } from './queries.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'bench/.cache');
/** Whether a part runs: each is on unless its knob is 0; BENCH_ONLY names the only parts to run. */
const part = (name: string, knob: string) => (process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').includes(name) : process.env[knob] !== '0');
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 20);
const PLACEMENT_REPEAT = Number(process.env.BENCH_PLACEMENT_REPEAT ?? 5);
const WARMUP = 3;
const WARMUP_SECONDS = 0.5;
const MAX_WARMUP_RUNS = 1000;
/** Another seed gives another cloud of the same shapes (each cached apart, Placement's database too). */
const SEED = Number(process.env.BENCH_SEED ?? 1);

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

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const ratioText = (r: number | null) => (r === null ? '-' : r >= 100 ? `${r.toFixed(0)}×` : `${r.toFixed(1)}×`);

const placementHeaders = (microversion?: string) => ({ 'x-auth-token': 'admin', accept: 'application/json', 'openstack-api-version': `placement ${microversion ?? 'latest'}` });

/** What both answers say, to check they agree: the status, and the number of allocation requests. */
function oursSays(body: Buffer) {
  const r = JSON.parse(body.toString('utf8')).data.placementCandidates;
  return r.__typename === 'RequestError' ? `${r.status}` : `200 ${r.allocationRequests.length}`;
}
function placementSays(status: number, body: Buffer) {
  return status === 200 ? `200 ${JSON.parse(body.toString('utf8')).allocation_requests.length}` : `${status}`;
}

interface Row {
  tag: string;
  queries: number;
  maxCount: number;
  ours: number[];
  theirs: number[];
  /** /health, timed next to each of ours (first and second in turn, as the first after Placement's finds a cold CPU). */
  health: number[];
}

/** Every query of the scenario over HTTP, ours and Placement's interleaved run by run. */
async function timeHttp(ours: Service, placement: Service | null, queries: ScenarioQuery[]) {
  const client = new HttpClient(ours.url);
  const pclient = placement ? new HttpClient(placement.url) : null;
  const rows = new Map<string, Row>();
  const disagree: string[] = [];
  const counts = new Map<string, number>();
  for (const q of queries) {
    const body = JSON.stringify({ query: QUERY, variables: { query: queryString(q), microversion: q.microversion ?? null } });
    const path = `/allocation_candidates?${queryString(q)}`;
    const first = await client.post('/graphql', body);
    const answer = JSON.parse(first.body.toString('utf8'));
    if (answer.errors) throw new Error(`${q.id}: ${JSON.stringify(answer.errors)}`);
    counts.set(q.id, answer.data.placementCandidates.count ?? 0);
    const started = performance.now();
    for (let i = 1; i < WARMUP || (performance.now() - started < WARMUP_SECONDS * 1000 && i < MAX_WARMUP_RUNS); i++) await client.post('/graphql', body);
    if (pclient) {
      const theirs = await pclient.get(path, placementHeaders(q.microversion));
      if (placementSays(theirs.status, theirs.body) !== oursSays(first.body)) disagree.push(`${q.id} (ours ${oursSays(first.body)}, Placement ${placementSays(theirs.status, theirs.body)})`);
    }
    const row = rows.get(q.tag ?? 'untagged') ?? { tag: q.tag ?? 'untagged', queries: 0, maxCount: 0, ours: [], theirs: [], health: [] };
    row.queries++;
    row.maxCount = Math.max(row.maxCount, answer.data.placementCandidates.count ?? 0);
    const placementRuns = pclient ? PLACEMENT_REPEAT : 0;
    let placementSpent = 0;
    for (let i = 0; i < Math.max(REPEAT, placementRuns); i++) {
      if (i < REPEAT) {
        await inTurn(
          i,
          () => client.post('/graphql', body).then((t) => row.ours.push(t.ms)),
          () => client.get('/health').then((t) => row.health.push(t.ms)),
        );
      }
      // Placement's slowest queries take seconds: at least 3 runs, then as many as fit in 30 s.
      if (pclient && i < placementRuns && (i < 3 || placementSpent < 30_000)) {
        const t = await pclient.get(path, placementHeaders(q.microversion));
        placementSpent += t.ms;
        row.theirs.push(t.ms);
      }
    }
    rows.set(row.tag, row);
  }
  client.close();
  pclient?.close();
  return { rows, disagree, counts };
}

/** Small requests: the GraphQL pipeline alone, the health check, and one provider looked up. */
async function timeSmall(ours: Service, placement: Service | null, uuid: string) {
  const client = new HttpClient(ours.url);
  const pclient = placement ? new HttpClient(placement.url) : null;
  const lookup = JSON.stringify({ query: `{ resourceProvider(uuid: "${uuid}") { uuid name generation parent { uuid } root { uuid } } }` });
  const typename = JSON.stringify({ query: '{ __typename }' });
  const samples = { typename: [] as number[], health: [] as number[], lookup: [] as number[], placementLookup: [] as number[] };
  for (let i = 0; i < 300; i++) {
    await client.post('/graphql', typename);
    await client.get('/health');
    await client.post('/graphql', lookup);
  }
  for (let i = 0; i < 500; i++) {
    samples.typename.push((await client.post('/graphql', typename)).ms);
    samples.health.push((await client.get('/health')).ms);
    samples.lookup.push((await client.post('/graphql', lookup)).ms);
    if (pclient && i < 50) samples.placementLookup.push((await pclient.get(`/resource_providers/${uuid}`, placementHeaders())).ms);
  }
  client.close();
  pclient?.close();
  return samples;
}

async function benchSize(size: number, withPlacement: boolean) {
  const file = scenarioFile(size);
  const scenario = JSON.parse(readFileSync(file, 'utf8'));
  const queries = candidateQueries(scenario);
  const dir = mkdtempSync(join(tmpdir(), 'placement-gql-bench-'));
  const dbFile = join(dir, 'bench.db');
  const db = openDatabase(dbFile);
  const importStarted = performance.now();
  importSnapshot(db, scenario);
  const importMs = performance.now() - importStarted;
  db.close();
  console.log(`\n## ${size} roots (seed ${SEED}): ${scenario.providers.length} providers, ${Object.keys(scenario.allocations).length} consumers, imported in ${(importMs / 1000).toFixed(1)} s`);

  let placement: Service | null = null;
  if (withPlacement) {
    const snapshot = join(CACHE, `placement-seed${SEED}_size${size}.sqlite`);
    if (!existsSync(snapshot)) console.log(`Placement: loading ${size} roots through its API once (10,000 roots take about half an hour); kept in ${snapshot}`);
    mkdirSync(join(dir, 'placement'));
    placement = await startPlacement(join(dir, 'placement'), file, snapshot);
  }
  const ours = await startOurs(dbFile);
  const http = await timeHttp(ours, placement, queries);
  const one = scenario.providers.find((p: { parent: string | null }) => p.parent !== null) ?? scenario.providers[0];
  const small = await timeSmall(ours, placement, one.uuid);
  const rest = process.env.BENCH_REST === '0' ? null : await timeSmallRequests(ours.url, one.uuid);
  const restCandidates = process.env.BENCH_REST === '0' ? null : await timeRestCandidates(ours, placement, scenarioQueries(scenario), REPEAT, PLACEMENT_REPEAT);
  await ours.stop();
  await placement?.stop();

  console.log(`\n### Over HTTP (one keep-alive client, interleaved query by query, whole body read)\n`);
  console.log(`| tag | queries | max results | median ms | p95 ms |${placement ? ' Placement median ms | Placement p95 ms | ratio (median) |' : ''} × /health |`);
  console.log(`|---|---:|---:|---:|---:|${placement ? '---:|---:|---:|' : ''}---:|`);
  const rows: Record<string, unknown>[] = [];
  for (const r of http.rows.values()) {
    const med = median(r.ours);
    const theirs = r.theirs.length ? median(r.theirs) : null;
    const ratio = theirs !== null ? theirs / med : null;
    const healthMs = median(r.health);
    rows.push({ tag: r.tag, queries: r.queries, maxCount: r.maxCount, medianMs: med, p95Ms: percentile(r.ours, 95), placementMedianMs: theirs, placementP95Ms: r.theirs.length ? percentile(r.theirs, 95) : null, ratio, healthMs });
    console.log(
      `| ${r.tag} | ${r.queries} | ${r.maxCount} | ${fmt(med)} | ${fmt(percentile(r.ours, 95))} |` +
        (placement ? ` ${theirs !== null ? fmt(theirs) : '-'} | ${r.theirs.length ? fmt(percentile(r.theirs, 95)) : '-'} | ${ratioText(ratio)} |` : '') +
        ` ${SMALL_TAGS.has(r.tag) ? `${(med / healthMs).toFixed(2)}× (${fmt(healthMs)})` : ''} |`,
    );
  }
  const lookupRatio = small.placementLookup.length ? median(small.placementLookup) / median(small.lookup) : null;
  console.log(
    `| one provider (\`resourceProvider(uuid)\`${placement ? ' / GET /resource_providers/{uuid}' : ''}) | 1 | 1 | ${fmt(median(small.lookup))} | ${fmt(percentile(small.lookup, 95))} |` +
      (placement ? ` ${fmt(median(small.placementLookup))} | ${fmt(percentile(small.placementLookup, 95))} | ${ratioText(lookupRatio)} |` : '') +
      ` ${(median(small.lookup) / median(small.health)).toFixed(2)}× (${fmt(median(small.health))}) |`,
  );
  console.log(`\n\`{ __typename }\`: median ${fmt(median(small.typename))} ms; \`/health\`: median ${fmt(median(small.health))} ms.`);
  if (rest) console.log(`\n### Placement's REST API: small requests next to /health (one keep-alive client each)\n\n${restTable(rest)}`);
  if (restCandidates) {
    console.log(`\n### Placement's REST API: GET /allocation_candidates, the same queries${placement ? ' next to Placement' : ''} (a Node and a Python keep-alive client, interleaved query by query)\n`);
    console.log(restCandidatesTable(restCandidates));
  }
  if (placement) {
    const worst = Math.min(...rows.map((r) => r.ratio as number).filter((x) => x !== null), ...(lookupRatio ? [lookupRatio] : []));
    console.log(`Worst ratio: ${ratioText(worst)}. Answers (status and number of allocation requests) ${http.disagree.length ? `differ on ${http.disagree.join(', ')}` : `agree on all ${queries.length} queries`}.`);
  } else {
    console.log('Placement not timed: BENCH_PLACEMENT=0, or Debian\'s placement-api is not installed (apt-get install python3-placement).');
  }

  let inProcess: Record<string, unknown>[] = [];
  let busy: Awaited<ReturnType<typeof responsiveness>> | null = null;
  if (process.env.BENCH_INPROCESS !== '0') {
    const db2 = openDatabase(dbFile);
    const yoga = createServer({ db: db2, maskErrors: false });
    const { byTag, counts } = await timeOurs(yoga, queries);
    const big = [...queries].sort((a, b) => counts.get(b.id)! - counts.get(a.id)!)[0];
    const smallQuery = queries.find((q) => q.tag === 'ac_in_tree') ?? queries[queries.length - 1];
    busy = await responsiveness(yoga, big, smallQuery);
    db2.close();
    console.log(`\n### In-process (yoga.fetch, no socket)\n`);
    console.log(`| tag | median ms | p95 ms | HTTP median ms |`);
    console.log(`|---|---:|---:|---:|`);
    for (const [tag, f] of byTag) {
      const overHttp = http.rows.get(tag);
      inProcess.push({ tag, medianMs: median(f.samples), p95Ms: percentile(f.samples, 95) });
      console.log(`| ${tag} | ${fmt(median(f.samples))} | ${fmt(percentile(f.samples, 95))} | ${overHttp ? fmt(median(overHttp.ours)) : '-'} |`);
    }
    console.log(
      `\nDuring one ${big.id} search (${fmt(busy.bigMs)} ms), ${busy.answered} ${smallQuery.id} requests were answered ` +
        `(median ${fmt(busy.medianMs)} ms, max ${fmt(busy.maxMs)} ms).`,
    );
  }
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(
    join(CACHE, `results-size${size}.json`),
    JSON.stringify({ size, seed: SEED, repeat: REPEAT, importMs, http: rows, small: { typenameMs: median(small.typename), healthMs: median(small.health), lookupMs: median(small.lookup), placementLookupMs: small.placementLookup.length ? median(small.placementLookup) : null }, disagree: http.disagree, inProcess, responsiveness: busy, restCandidates }, null, 1),
  );
  rmSync(dir, { recursive: true, force: true });
}

const withPlacement = process.env.BENCH_PLACEMENT !== '0' && placementInstalled();
if (part('candidates', 'BENCH_CANDIDATES')) console.log(
  `# Allocation candidates: placement-gql${withPlacement ? ' vs Placement 8.0.0' : ''}, over HTTP on loopback\n` +
    `placement-gql (\`placement-gql serve --quiet\`): per query ${WARMUP} warm-up runs (quick queries: ${WARMUP_SECONDS} s of them, at most ${MAX_WARMUP_RUNS}), then ${REPEAT} timed runs.` +
    (withPlacement ? `\nPlacement (Debian's placement-api, wsgiref): 1 warm-up run, then ${PLACEMENT_REPEAT} runs per query (at least 3 when a query takes over 30 s), interleaved with ours.` : ''),
);
if (part('candidates', 'BENCH_CANDIDATES')) for (const size of SIZES) await benchSize(size, withPlacement);

// Throughput per worker count, and a bounded load of readers and writers, on the smallest cloud.
if (part('throughput', 'BENCH_THROUGHPUT') || part('load', 'BENCH_LOAD')) {
  const size = Math.min(...SIZES);
  const file = scenarioFile(size);
  const dir = mkdtempSync(join(tmpdir(), 'placement-gql-http-'));
  const dbFile = join(dir, 'bench.db');
  const db = openDatabase(dbFile);
  const scenario = JSON.parse(readFileSync(file, 'utf8'));
  importSnapshot(db, scenario);
  if (part('throughput', 'BENCH_THROUGHPUT')) {
    const queries = (scenario.queries as ScenarioQuery[]).filter((q) => (q.kind ?? 'allocation_candidates') === 'allocation_candidates' && q.tag !== 'ac_basic' && q.tag !== 'ac_forbidden' && q.tag !== 'ac_root_required');
    const candidateBodies = queries.map((q) => JSON.stringify({ query: QUERY, variables: { query: queryString(q), microversion: q.microversion ?? null } }));
    console.log(`\n# Throughput over HTTP (${size} roots): requests/s, each client sending a mix of candidate queries and dashboard pages`);
    console.log(await throughputTable(dbFile, candidateBodies));
  }
  if (part('load', 'BENCH_LOAD')) {
    const providers = db.sqlite.prepare('SELECT uuid FROM resource_providers ORDER BY id LIMIT 20').all().map((r: any) => r.uuid as string);
    const load = await runLoad(db, { readers: 8, writers: 8, seconds: 10, providers });
    console.log(`\n# Load: 8 readers, 8 writers on 20 shared providers, ${load.seconds.toFixed(1)} s over HTTP`);
    console.log(`reads ${load.reads} (failed ${load.failedReads}), p50 ${fmt(load.readP50Ms)} ms, p99 ${fmt(load.readP99Ms)} ms`);
    console.log(`writes applied ${load.writes}, conflicts returned as data ${load.conflicts}, failed ${load.failedWrites}, lost updates ${load.lostUpdates}; p50 ${fmt(load.writeP50Ms)} ms, p99 ${fmt(load.writeP99Ms)} ms`);
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
}

// Capacity: rollups, flavor headroom, a /metrics scrape and the dashboard's query, at each size.
if (part('capacity', 'BENCH_CAPACITY') || part('refresh', 'BENCH_REFRESH')) {
  for (const size of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'placement-gql-capacity-'));
    const dbFile = join(dir, 'bench.db');
    const db = openDatabase(dbFile);
    importSnapshot(db, JSON.parse(readFileSync(scenarioFile(size), 'utf8')));
    db.close();
    if (part('capacity', 'BENCH_CAPACITY')) await capacityBench(dbFile, size);
    if (part('refresh', 'BENCH_REFRESH')) await refreshBench(dbFile, size);
    rmSync(dir, { recursive: true, force: true });
  }
}

// Gateway mode: sync and refresh against the real Placement, at each size (10,000 roots: about half an hour of full sync).
if (withPlacement && part('gateway', 'BENCH_GATEWAY')) {
  for (const size of SIZES) await gatewayBench(size, scenarioFile(size), join(CACHE, `placement-seed${SEED}_size${size}.sqlite`));
}
// Gateway mode reading Placement's database: the same cloud, Placement on MariaDB, at each size.
if (withPlacement && part('gateway-db', 'BENCH_GATEWAY_DB')) {
  for (const size of SIZES) await placementDbBench(size, scenarioFile(size), join(CACHE, `placement-seed${SEED}_size${size}.sqlite`));
}
