// The capacity history a serving process keeps: a sample at the start and one every interval, used and
// capacity per class and headroom per flavor as the API answers them at that moment, the last hour only.
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { CapacityHistory } from '../src/modules/capacity/capacity.history.js';
import type { CapacitySamples } from '../src/modules/capacity/capacity.metrics.js';
import { createServer, type Server } from '../src/server.js';
import { demoCloud, harness, tempDbFile } from './helpers.js';

const HISTORY = `{ capacityHistory { intervalSeconds keptSeconds samples { at classes { resourceClass capacity used } flavors { flavor fits } } } }`;
const NOW = `{ capacity(groupBy: [RESOURCE_CLASS]) { resources { resourceClass capacity used } } flavorHeadroom { flavor { name } headroom { fits } } }`;

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.history?.stop();
});

function serving(intervalMs: number) {
  const db = openDatabase(tempDbFile());
  importSnapshot(db, demoCloud());
  const yoga = createServer({ db, maskErrors: false, history: { intervalMs } });
  servers.push(yoga);
  const gql = async (query: string, variables?: object) => {
    const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as any;
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  return { yoga, gql };
}

/** The API's figures now, in the shape of a sample. */
async function current(gql: (q: string) => Promise<any>) {
  const data = await gql(NOW);
  return {
    classes: data.capacity.map((g: any) => g.resources[0]),
    flavors: data.flavorHeadroom.map((f: any) => ({ flavor: f.flavor.name, fits: f.headroom.fits })),
  };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('capacityHistory', () => {
  it('samples at the start and every interval the figures the API answers, and follows a change', async () => {
    const { gql } = serving(200);
    const first = await until(() => gql(HISTORY), (d) => d.capacityHistory.samples.length >= 1);
    expect(first.capacityHistory.intervalSeconds).toBe(0.2);
    expect(first.capacityHistory.keptSeconds).toBe(3600);
    const before = await current(gql);
    const [s0] = first.capacityHistory.samples;
    expect({ classes: s0.classes, flavors: s0.flavors }).toEqual(before);
    expect(before.flavors.length).toBeGreaterThan(0);
    expect(Math.abs(Date.parse(s0.at) - Date.now())).toBeLessThan(10_000);

    // An allocation: the next samples show it, as the API does.
    const root = (await gql('{ resourceProviders(filter: { name: "compute-01" }) { nodes { uuid } } }')).resourceProviders.nodes[0].uuid;
    const set = await gql(`mutation($i: SetAllocationsInput!) { setAllocations(input: $i) { __typename } }`, {
      i: { consumerUuid: 'd0000000-0000-4000-8000-000000000009', projectId: 'p', userId: 'u', allocations: [{ providerUuid: root, resources: [{ resourceClass: 'VCPU', amount: 8 }, { resourceClass: 'MEMORY_MB', amount: 16384 }] }] },
    });
    expect(set.setAllocations.__typename).toBe('ConsumerPayload');
    const after = await current(gql);
    const vcpu = (c: { classes: any[] }) => c.classes.find((r) => r.resourceClass === 'VCPU').used;
    expect(vcpu(after)).toBe(vcpu(before) + 8);
    const later = await until(() => gql(HISTORY), (d) => vcpu(d.capacityHistory.samples.at(-1)) === vcpu(after));
    const last = later.capacityHistory.samples.at(-1);
    expect({ classes: last.classes, flavors: last.flavors }).toEqual(after);
    // Oldest first, one interval apart at least.
    const times = later.capacityHistory.samples.map((s: any) => Date.parse(s.at));
    expect(times.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(150);
  });

  it('is empty, with no interval, on a server that keeps none', async () => {
    const { gql } = harness(demoCloud());
    expect((await gql(HISTORY)).data.capacityHistory).toEqual({ intervalSeconds: null, keptSeconds: null, samples: [] });
  });

  it('keeps the last hour only', async () => {
    let used = 0;
    const source = async (): Promise<CapacitySamples> => ({ classes: [{ resourceClass: 'VCPU', total: 10, reserved: 0, capacity: 10, used: used++, free: 0, providerCount: 1 }], aggregates: [], flavors: [] });
    const history = new CapacityHistory(source, { intervalMs: 30_000 });
    const start = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i <= 150; i++) await history.sample(start + i * 30_000);
    const samples = history.samples();
    // 150 intervals taken; those older than an hour before the last are gone: 121 left (the hour's both ends).
    expect(samples.length).toBe(121);
    expect(samples[0].at).toBe(start + 30 * 30_000);
    expect(samples.at(-1)!.at).toBe(start + 150 * 30_000);
    expect(samples.map((s) => s.classes[0].used)).toEqual(Array.from({ length: 121 }, (_, i) => 30 + i));
  });
});
