// A bounded load on loopback: concurrent readers (a dashboard page) and writers (generation-guarded
// trait updates on shared providers) over HTTP. Counts lost updates and failed reads; reports latency.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from '../src/db/client.js';
import { createServer } from '../src/server.js';

export interface LoadReport {
  seconds: number;
  reads: number;
  failedReads: number;
  writes: number;
  conflicts: number;
  failedWrites: number;
  lostUpdates: number;
  readP50Ms: number;
  readP99Ms: number;
  writeP50Ms: number;
  writeP99Ms: number;
}

const DASHBOARD = `{ resourceProviders(first: 50) { totalCount nodes { uuid name generation parent { name } children { name }
  inventories { resourceClass capacity used free } traits aggregates } } }`;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
};

/** Runs readers and writers against a real HTTP server on 127.0.0.1 for `seconds` (bounded), then checks the generations. */
export async function runLoad(db: Db, options: { readers: number; writers: number; seconds: number; providers: string[] }): Promise<LoadReport> {
  const http: HttpServer = createHttpServer(createServer({ db }));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
  const post = async (query: string, variables?: object) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    return { ok: response.ok, body: (await response.json()) as any };
  };
  const generationOf = async (uuid: string) => (await post('query($u: UUID!) { resourceProvider(uuid: $u) { generation } }', { u: uuid })).body.data.resourceProvider.generation as number;

  const initial = new Map<string, number>();
  for (const uuid of options.providers) initial.set(uuid, await generationOf(uuid));
  const deadline = Date.now() + options.seconds * 1000;
  const readTimes: number[] = [];
  const writeTimes: number[] = [];
  const applied = new Map<string, number>(options.providers.map((u) => [u, 0]));
  // The generation each successful write was based on: two successes on one base means one overwrote the other.
  const bases = new Map<string, Set<number>>(options.providers.map((u) => [u, new Set()]));
  let overwritten = 0;
  let failedReads = 0;
  let conflicts = 0;
  let failedWrites = 0;

  const reader = async () => {
    while (Date.now() < deadline) {
      const started = performance.now();
      const { ok, body } = await post(DASHBOARD).catch(() => ({ ok: false, body: {} as any }));
      readTimes.push(performance.now() - started);
      if (!ok || body.errors || !body.data?.resourceProviders) failedReads++;
    }
  };
  const writer = async (n: number) => {
    let i = 0;
    while (Date.now() < deadline) {
      const uuid = options.providers[(n + i++) % options.providers.length];
      const generation = await generationOf(uuid);
      const traits = i % 2 ? ['COMPUTE_NODE', 'HW_CPU_X86_AVX2'] : ['COMPUTE_NODE'];
      const started = performance.now();
      const { body } = await post(
        'mutation($input: SetProviderTraitsInput!) { setProviderTraits(input: $input) { __typename } }',
        { input: { providerUuid: uuid, generation, traits } },
      );
      writeTimes.push(performance.now() - started);
      const outcome = body.data?.setProviderTraits?.__typename;
      if (outcome === 'ResourceProviderPayload') {
        applied.set(uuid, applied.get(uuid)! + 1);
        if (bases.get(uuid)!.has(generation)) overwritten++;
        bases.get(uuid)!.add(generation);
      }
      else if (outcome === 'GenerationConflict') conflicts++;
      else failedWrites++;
    }
  };
  const started = performance.now();
  await Promise.all([...Array.from({ length: options.readers }, reader), ...Array.from({ length: options.writers }, (_, n) => writer(n))]);
  const seconds = (performance.now() - started) / 1000;

  // Every successful write bumped its provider's generation exactly once, from a base no other write used.
  let lostUpdates = overwritten;
  for (const uuid of options.providers) lostUpdates += Math.abs((await generationOf(uuid)) - initial.get(uuid)! - applied.get(uuid)!);
  await new Promise((resolve) => http.close(resolve));
  return {
    seconds,
    reads: readTimes.length,
    failedReads,
    writes: [...applied.values()].reduce((a, b) => a + b, 0),
    conflicts,
    failedWrites,
    lostUpdates,
    readP50Ms: percentile(readTimes, 50),
    readP99Ms: percentile(readTimes, 99),
    writeP50Ms: percentile(writeTimes, 50),
    writeP99Ms: percentile(writeTimes, 99),
  };
}
