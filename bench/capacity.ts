// Capacity figures over HTTP: rollups, headroom of 20 flavors, a /metrics scrape and the dashboard's
// whole query, each cold (just after a write of usage on one provider: what it touches is computed again) and warm
// (unchanged data).
import { HttpClient, startOurs } from './services.js';

const ROLLUP_CLASS = '{ capacity(groupBy: [RESOURCE_CLASS]) { key { resourceClass } resources { capacity used free } } }';
const ROLLUP_AGGREGATE = '{ capacity(groupBy: [AGGREGATE, RESOURCE_CLASS]) { key { aggregate resourceClass } resources { capacity used free } } }';
const HEADROOM = '{ flavorHeadroom { flavor { name } headroom { fits atMost exact } } }';
// The /dashboard page's main query (src/server/dashboard.page.js) and its history.
const DASHBOARD = `query Dashboard {
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
