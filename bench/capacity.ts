// Capacity figures over HTTP: rollups, headroom of 20 flavors, a /metrics scrape and the dashboard's
// whole query, each cold (just after a write of usage on one provider: what it touches is computed again) and warm
// (unchanged data).
import { HttpClient, startOurs } from './services.js';
import { openDatabase, type Db } from '../src/db/client.js';
import { setAllocations } from '../src/modules/allocations/allocations.service.js';
import { setProviderAggregates } from '../src/modules/aggregates/aggregates.service.js';
import { createFlavor, flavorByName } from '../src/modules/flavors/flavors.service.js';
import { setInventories, setInventory } from '../src/modules/inventories/inventories.service.js';
import { createProvider, deleteProvider, providerByUuid, updateProvider } from '../src/modules/providers/providers.service.js';
import { createTrait, setProviderTraits } from '../src/modules/traits/traits.service.js';

const ROLLUP_CLASS = '{ capacity(groupBy: [RESOURCE_CLASS]) { key { resourceClass } resources { capacity used free } } }';
const ROLLUP_AGGREGATE = '{ capacity(groupBy: [AGGREGATE, RESOURCE_CLASS]) { key { aggregate resourceClass } resources { capacity used free } } }';
const HEADROOM = '{ flavorHeadroom { flavor { name } headroom { fits atMost exact } } }';
// The /dashboard page's main query (src/server/dashboard.page.js) and its history.
export const DASHBOARD = `query Dashboard {
  classes: capacity(groupBy: [RESOURCE_CLASS]) { providerCount resources { resourceClass total reserved capacity used free usedRatio } }
  aggregates: capacity(groupBy: [AGGREGATE]) { key { aggregate aggregateMembers(first: 3) { name traits } } providerCount fullness resources { resourceClass capacity used free usedRatio } }
  fullest: fullestTrees(first: 10) { key { root { uuid name } } fullness resources { resourceClass capacity used usedRatio } }
  flavorHeadroom { flavor { name vcpus memoryMb rootGb } headroom { fits atMost exact } }
}`;
const HISTORY = `query History {
  capacityHistory { intervalSeconds keptSeconds samples { at classes { resourceClass capacity used } flavors { flavor fits } } }
}`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

/** 20 flavors: the generator's six sizes and fourteen more between them. */
const FLAVORS = Array.from({ length: 20 }, (_, i) => {
  const vcpus = [1, 2, 2, 4, 8, 16, 1, 2, 4, 4, 8, 8, 12, 16, 24, 32, 2, 6, 10, 20][i];
  const memoryMb = [512, 2048, 4096, 8192, 16384, 32768, 1024, 8192, 4096, 16384, 8192, 32768, 24576, 65536, 49152, 131072, 1024, 12288, 20480, 40960][i];
  return { name: `bench.f${String(i + 1).padStart(2, '0')}`, vcpus, memoryMb, rootGb: vcpus * 10 };
});

export async function capacityBench(dbFile: string, size: number, runs = 5): Promise<void> {
  // One worker: each worker keeps its own computed figures, and warm means warm in the one answering.
  const ours = await startOurs(dbFile, { workers: 1 });
  const client = new HttpClient(ours.url);
  const post = async (query: string, variables?: object) => {
    const r = await client.post('/graphql', JSON.stringify({ query, variables }));
    const body = JSON.parse(r.body.toString('utf8'));
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return { ms: r.ms, data: body.data };
  };
  try {
    for (const f of FLAVORS) await post('mutation($i: CreateFlavorInput!) { createFlavor(input: $i) { __typename } }', { i: f });
    const provider = (await post('{ resourceProviders(first: 1, filter: { resources: [{ resourceClass: "VCPU", amount: 4 }] }) { nodes { uuid } } }')).data.resourceProviders.nodes[0].uuid;
    let flip = 0;
    let generation: number | null = null;
    // A write of usage: what it touches (its tree in the candidate index, headroom and rollups, metrics) is computed again.
    const write = async () => {
      const { data } = await post('mutation($i: SetAllocationsInput!) { setAllocations(input: $i) { __typename ... on ConsumerPayload { consumer { generation } } } }', {
        i: { consumerUuid: 'be0c0000-0000-4000-8000-000000000001', consumerGeneration: generation, projectId: 'bench', userId: 'bench', allocations: [{ providerUuid: provider, resources: [{ resourceClass: 'VCPU', amount: 1 + (flip++ % 2) }] }] },
      });
      if (data.setAllocations.__typename !== 'ConsumerPayload') throw new Error(`the bench's write was refused: ${data.setAllocations.__typename}`);
      generation = data.setAllocations.consumer.generation;
    };
    const time = async (label: string, run: () => Promise<number>) => {
      const cold: number[] = [];
      const warm: number[] = [];
      for (let i = 0; i < runs; i++) {
        await write();
        cold.push(await run());
        warm.push(await run());
      }
      console.log(`| ${label} | ${fmt(median(cold))} | ${fmt(median(warm))} |`);
    };
    console.log(`\n# Capacity over HTTP (${size} roots, ${FLAVORS.length} flavors, one worker): median ms of ${runs} runs, cold (after a write) and warm\n`);
    console.log('| request | cold ms | warm ms |');
    console.log('|---|---:|---:|');
    await time('capacity by resource class', async () => (await post(ROLLUP_CLASS)).ms);
    await time('capacity by aggregate and class', async () => (await post(ROLLUP_AGGREGATE)).ms);
    await time(`headroom of ${FLAVORS.length} flavors`, async () => (await post(HEADROOM)).ms);
    await time('/metrics scrape', async () => (await client.get('/metrics')).ms);
    await time('the dashboard\'s whole query', async () => (await post(DASHBOARD)).ms);
    await time('the dashboard\'s history (capacityHistory)', async () => (await post(HISTORY)).ms);
    const { data } = await post(HEADROOM);
    const exact = data.flavorHeadroom.filter((f: any) => f.headroom.exact).length;
    console.log(`\nExact for ${exact} of ${FLAVORS.length} flavors; total fits ${data.flavorHeadroom.reduce((n: number, f: any) => n + f.headroom.fits, 0)}.`);
  } finally {
    client.close();
    await ours.stop();
  }
}

// ---- After a refresh: what another connection changed, seen by every worker ----

/** What another connection writes (one transaction, as the mirror's refresh or another worker does), run `run` of the bench. */
interface Refresh {
  label: string;
  write(db: Db, run: number): void;
}

const BENCH_TRAIT = 'CUSTOM_BENCH_REFRESH';
const BENCH_AGGREGATE = 'be0a0000-0000-4000-8000-000000000001';

/** Compute nodes of the cloud with VCPU inventory, in creation order: what the refreshes change. */
function computeNodes(db: Db) {
  return db.sqlite
    .prepare(
      `SELECT rp.uuid, rp.id, (SELECT COALESCE(SUM(a.used), 0) FROM allocations a WHERE a.resource_provider_id = rp.id AND a.resource_class_id = rc.id) AS used,
         i.total, i.reserved, i.min_unit AS minUnit, i.max_unit AS maxUnit, i.step_size AS stepSize, i.allocation_ratio AS allocationRatio
       FROM resource_providers rp JOIN inventories i ON i.resource_provider_id = rp.id JOIN resource_classes rc ON rc.id = i.resource_class_id
       WHERE rc.name = 'VCPU' AND rp.name NOT LIKE 'bench-%' ORDER BY rp.id`,
    )
    .all() as { uuid: string; id: number; used: number; total: number; reserved: number; minUnit: number; maxUnit: number; stepSize: number; allocationRatio: number }[];
}

const generationOf = (db: Db, uuid: string) => providerByUuid(db, uuid)!.generation;
const traitsOf = (db: Db, id: number) =>
  (db.sqlite.prepare('SELECT t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id WHERE pt.resource_provider_id = ?').all(id) as { name: string }[]).map((t) => t.name);
const aggregatesOf = (db: Db, id: number) =>
  (db.sqlite.prepare('SELECT a.uuid FROM provider_aggregates pa JOIN aggregates a ON a.id = pa.aggregate_id WHERE pa.resource_provider_id = ?').all(id) as { uuid: string }[]).map((a) => a.uuid);

/** One more VCPU on a provider, its other inventory fields as they are. */
function nudgeInventory(db: Db, node: ReturnType<typeof computeNodes>[number]) {
  const { uuid, id: _id, used: _used, total, ...fields } = node;
  setInventory(db, { providerUuid: uuid, generation: generationOf(db, uuid), resourceClass: 'VCPU', total: total + 1, ...fields });
}

/** A custom trait on a provider, or off it (run by run). */
function toggleTrait(db: Db, node: { uuid: string; id: number }, run: number) {
  const traits = traitsOf(db, node.id).filter((t) => t !== BENCH_TRAIT);
  setProviderTraits(db, { providerUuid: node.uuid, generation: generationOf(db, node.uuid), traits: run % 2 ? traits : [...traits, BENCH_TRAIT] });
}

const REFRESHES: Refresh[] = [
  {
    label: 'one inventory changed',
    write: (db, run) => nudgeInventory(db, computeNodes(db)[run * 37]),
  },
  {
    label: 'a trait changed on 100 providers',
    write: (db, run) => {
      for (const node of computeNodes(db).slice(0, 100)) toggleTrait(db, node, run);
    },
  },
  {
    // As one refresh of a busy cloud: servers booted and deleted, inventories and traits changed, hosts moved
    // between aggregates, renamed, and a host added or removed.
    label: '100 mixed changes',
    write: (db, run) => {
      const nodes = computeNodes(db);
      const at = (i: number) => nodes[(run * 101 + i * 97) % nodes.length];
      // Hosts with a VCPU free (at the least allocation ratio of the cloud, 1).
      const free = nodes.filter((n) => n.used + 1 <= n.total - n.reserved);
      for (let i = 0; i < 40; i++) {
        const node = free[(run * 101 + i * 97) % free.length];
        const consumerUuid = `be0c0000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        const consumer = db.sqlite.prepare('SELECT generation FROM consumers WHERE uuid = ?').get(consumerUuid) as { generation: number } | undefined;
        // Each consumer moves to another host at each run (a deletion on one, an allocation on the other).
        setAllocations(db, { consumerUuid, consumerGeneration: consumer?.generation ?? null, projectId: 'bench', userId: 'bench', allocations: [{ providerUuid: node.uuid, resources: [{ resourceClass: 'VCPU', amount: 1 }] }] });
      }
      for (let i = 40; i < 65; i++) nudgeInventory(db, at(i));
      for (let i = 65; i < 85; i++) toggleTrait(db, at(i), run);
      for (let i = 85; i < 95; i++) {
        const node = at(i);
        const aggregates = aggregatesOf(db, node.id).filter((a) => a !== BENCH_AGGREGATE);
        setProviderAggregates(db, { providerUuid: node.uuid, generation: generationOf(db, node.uuid), aggregates: run % 2 ? aggregates : [...aggregates, BENCH_AGGREGATE] });
      }
      for (let i = 95; i < 99; i++) {
        const node = at(i);
        const name = providerByUuid(db, node.uuid)!.name;
        updateProvider(db, { uuid: node.uuid, name: name.endsWith('-renamed') ? name.slice(0, -'-renamed'.length) : `${name}-renamed` });
      }
      // A host added (with inventory), or the one added before removed.
      const added = providerByUuid(db, 'be0d0000-0000-4000-8000-000000000001');
      if (added) deleteProvider(db, added.uuid);
      else {
        createProvider(db, { name: 'bench-added-host', uuid: 'be0d0000-0000-4000-8000-000000000001' });
        setInventories(db, { providerUuid: 'be0d0000-0000-4000-8000-000000000001', generation: 0, inventories: [{ resourceClass: 'VCPU', total: 32 }, { resourceClass: 'MEMORY_MB', total: 131072 }, { resourceClass: 'DISK_GB', total: 2000 }] });
      }
    },
  },
];

/** What the refreshes need: their trait, and the 20 flavors. */
function prepareRefreshes(db: Db) {
  createTrait(db, BENCH_TRAIT);
  for (const f of FLAVORS) if (!flavorByName(db, f.name)) createFlavor(db, f);
}

/**
 * The dashboard's whole query and the headroom of 20 flavors right after a write by another connection, on
 * each of 2 workers: every worker sees the same change in the change log and redoes what it touches.
 */
export async function refreshBench(dbFile: string, size: number, runs = 3): Promise<void> {
  const workers = 2;
  const ours = await startOurs(dbFile, { workers });
  // One keep-alive connection per worker: node:cluster hands new connections to the workers in turn.
  const clients = Array.from({ length: workers }, () => new HttpClient(ours.url));
  const writer = openDatabase(dbFile);
  const post = async (client: HttpClient, query: string, variables?: object) => {
    const r = await client.post('/graphql', JSON.stringify({ query, variables }));
    const body = JSON.parse(r.body.toString('utf8'));
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return { ms: r.ms, data: body.data };
  };
  try {
    writer.transaction(() => prepareRefreshes(writer));
    // Each worker computes everything once (as a running server has), before the first refresh.
    for (const client of clients) await post(client, DASHBOARD);
    const starts = await Promise.all(clients.map(async (client) => (await post(client, HISTORY)).data.capacityHistory.samples[0]?.at ?? null));
    const distinct = new Set(starts).size === workers;
    console.log(`\n# Capacity right after a refresh by another connection (${size} roots, ${FLAVORS.length} flavors, ${workers} workers): median ms of ${runs} runs on each worker\n`);
    if (!distinct) console.log('(The connections may share a worker: their capacity histories started at the same time.)\n');
    console.log(`| refresh | ${clients.map((_, w) => `dashboard, worker ${w + 1}`).join(' | ')} | ${clients.map((_, w) => `headroom of ${FLAVORS.length} flavors, worker ${w + 1}`).join(' | ')} |`);
    console.log(`|---|${clients.map(() => '---:').join('|')}|${clients.map(() => '---:').join('|')}|`);
    let run = 0;
    for (const refresh of REFRESHES) {
      const dashboard: number[][] = clients.map(() => []);
      const headroom: number[][] = clients.map(() => []);
      for (let i = 0; i < runs; i++) {
        writer.transaction(() => refresh.write(writer, run++));
        for (const [w, client] of clients.entries()) dashboard[w].push((await post(client, DASHBOARD)).ms);
        writer.transaction(() => refresh.write(writer, run++));
        for (const [w, client] of clients.entries()) headroom[w].push((await post(client, HEADROOM)).ms);
      }
      console.log(`| ${refresh.label} | ${dashboard.map((xs) => fmt(median(xs))).join(' | ')} | ${headroom.map((xs) => fmt(median(xs))).join(' | ')} |`);
    }
  } finally {
    writer.close();
    for (const client of clients) client.close();
    await ours.stop();
  }
}
