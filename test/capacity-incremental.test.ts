// Kept capacity figures against figures made from scratch: after each random write of any kind (usage,
// inventories, traits with the sharing trait gained and lost, aggregates, providers created, deleted,
// renamed and moved, custom traits and classes created and deleted, several at once), made here or by
// another connection, every headroom and rollup answered equals the one a new connection computes.
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/client.js';
import { headroom, type HeadroomResult } from '../src/modules/capacity/capacity.headroom.js';
import { capacityRollup, type CapacityGroupBy } from '../src/modules/capacity/capacity.service.js';
import type { ProviderFilter } from '../src/modules/providers/providers.service.js';
import { RequestRefused } from '../src/modules/common/errors.js';
import { createResourceClass, deleteResourceClass } from '../src/modules/resource-classes/resource-classes.service.js';
import { setInventory } from '../src/modules/inventories/inventories.service.js';
import { providerByUuid } from '../src/modules/providers/providers.service.js';
import { createServer } from '../src/server.js';
import { fixture, harness } from './helpers.js';
import { randomWriter, WRITE_KINDS, type WriteKind } from './writes-support.js';

const STORAGE = '6618c9c6-66b2-4260-af52-ce98ab37eaea';
const AGGREGATES = [STORAGE, 'fb62f4a0-6ce0-4e56-b568-753bd7d38f50', '10e6ed7a-3fee-41a5-a3d7-41006ba7a37a', 'a0000000-0000-4000-8000-00000000000a'];
const A_ROOT = '3be8343b-b9d4-415a-b7c5-595af6e07183';
/** Providers the filters name, which the writes move, rename, delete and create more often (the last does not exist yet). */
const FOCUS = [A_ROOT, 'f0000000-0000-4000-8000-000000000002'];

const REQUESTS = [
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 2 }, { resourceClass: 'MEMORY_MB', amount: 2048 }, { resourceClass: 'DISK_GB', amount: 20 }] }] },
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'DISK_GB', amount: 100 }] }] },
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'MEMORY_MB', amount: 512 }] }] },
  // The sharing pool's disk is what bounds this one.
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'DISK_GB', amount: 3000 }] }] },
  { groups: [{ suffix: '1', resources: [{ resourceClass: 'VCPU', amount: 2 }] }, { suffix: '2', resources: [{ resourceClass: 'VCPU', amount: 2 }] }], groupPolicy: 'ISOLATE' },
  { groups: [{ resources: [{ resourceClass: 'MEMORY_MB', amount: 1024 }] }, { suffix: '1', resources: [{ resourceClass: 'VCPU', amount: 1 }], required: ['HW_CPU_X86_AVX2'] }] },
  // Traits, aggregates and roots: what writes of traits, aggregates and providers change.
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'MEMORY_MB', amount: 256 }], forbidden: ['COMPUTE_STATUS_DISABLED'], memberOf: [[AGGREGATES[1], AGGREGATES[2], AGGREGATES[3]]] }] },
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'DISK_GB', amount: 10 }] }], rootForbidden: ['COMPUTE_STATUS_DISABLED'] },
  { groups: [{ resources: [{ resourceClass: 'DISK_GB', amount: 50 }], memberOf: [[STORAGE]] }] },
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }], required: ['HW_NUMA_ROOT'] }] },
  // Refused until the first custom class or trait is created (then nobody has it, then some do).
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'CUSTOM_INC_C1', amount: 1 }] }] },
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }], required: ['CUSTOM_INC_T1'] }] },
  { groups: [{ resources: [{ resourceClass: 'MEMORY_MB', amount: 128 }], inTree: FOCUS[1] }] },
];
const ROLLUPS: [ProviderFilter, CapacityGroupBy[]][] = [
  [{}, []],
  [{}, ['RESOURCE_CLASS']],
  [{}, ['AGGREGATE', 'RESOURCE_CLASS']],
  [{}, ['TRAIT']],
  [{}, ['ROOT']],
  [{}, ['PROVIDER', 'RESOURCE_CLASS']],
  [{ resources: [{ resourceClass: 'VCPU', amount: 2 }] }, ['ROOT']],
  [{ inTree: A_ROOT }, ['RESOURCE_CLASS']],
  [{ inTree: FOCUS[1] }, []],
  [{ required: ['CUSTOM_INC_T1'] }, ['ROOT']],
  [{ memberOf: [[STORAGE, AGGREGATES[1]]] }, ['AGGREGATE']],
  [{ required: ['HW_CPU_X86_AVX2'], forbidden: ['COMPUTE_STATUS_DISABLED'] }, ['TRAIT', 'RESOURCE_CLASS']],
];

/** Everything a headroom answers, as plain data. */
function seen(h: HeadroomResult) {
  return { fits: h.fits, atMost: h.atMost, exact: h.exact, sharing: h.sharing, trees: h.trees, stranded: h.stranded, plan: JSON.parse(JSON.stringify(h.plan(100))) };
}

/** Candidate searches read the same kept index. */
const SEARCH = `query($q: String!) { placementCandidates(query: $q) { ... on Candidates { count
  allocationRequests { allocations { provider { uuid } resources { resourceClass amount } } }
  providerSummaries { provider { uuid name } resources { resourceClass capacity used } traits } } } }`;
const QUERIES = ['resources=VCPU:2,MEMORY_MB:4096,DISK_GB:40', 'resources=VCPU:1,MEMORY_MB:512&limit=5', 'resources1=VCPU:2&resources2=VCPU:2&group_policy=isolate'];

const servers = new WeakMap<Db, ReturnType<typeof createServer>>();

async function figures(db: Db) {
  const out: unknown[] = [];
  let yoga = servers.get(db);
  if (!yoga) servers.set(db, (yoga = createServer({ db, maskErrors: false })));
  for (const q of QUERIES) {
    const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: SEARCH, variables: { q } }) });
    const body = (await response.json()) as { data: unknown; errors?: unknown };
    expect(body.errors).toBeUndefined();
    out.push(body.data);
  }
  for (const request of REQUESTS) {
    try {
      out.push(seen(await headroom(db, request as any)));
    } catch (error) {
      if (!(error instanceof RequestRefused)) throw error;
      out.push({ refused: error.message });
    }
  }
  for (const [filter, groupBy] of ROLLUPS) {
    try {
      out.push(capacityRollup(db, filter, groupBy));
    } catch (error) {
      if (!(error instanceof RequestRefused)) throw error;
      out.push({ refused: error.message });
    }
  }
  return out;
}

/** The figures of a new connection: nothing kept, everything computed from scratch. */
async function fromScratch(file: string) {
  const fresh = openDatabase(file);
  try {
    return await figures(fresh);
  } finally {
    fresh.close();
  }
}

describe('capacity figures kept across writes', () => {
  it('equal figures made from scratch after every write, whatever was written and by whom', async () => {
    const h = harness(fixture('./golden/generated/seed1_size20.scenario.json'));
    const db = h.db;
    const writer = randomWriter(17, AGGREGATES, FOCUS);
    // Computed once before any write: from then on, the kept figures follow the writes.
    await figures(db);
    const applied = new Set<string>();
    let steps = 0;
    const step = async (kind: WriteKind, elsewhere: boolean) => {
      const label = `${kind}${elsewhere ? ' by another connection' : ''}`;
      const done = elsewhere ? writer.writeElsewhere(db.file, kind) : writer.write(db, kind);
      if (done) applied.add(label);
      expect(await figures(db), `step ${steps++}: ${label}`).toEqual(await fromScratch(db.file));
      return done;
    };
    // Each kind here and by another connection (tried again when refused), then at random, usage most often as in a cloud.
    for (const kind of WRITE_KINDS) for (const elsewhere of [false, true]) for (let tries = 0; tries < 5 && !(await step(kind, elsewhere)); tries++);
    for (let i = 0; i < 60; i++) await step(writer.next() < 0.3 ? writer.pick(['allocate', 'reallocate', 'free'] as const) : writer.pick(WRITE_KINDS), writer.next() < 0.35);
    for (const kind of WRITE_KINDS) expect([applied.has(kind), applied.has(`${kind} by another connection`)], kind).toEqual([true, true]);
  }, 240_000);

  it('starts again for a request whose class was deleted and made again with another id', async () => {
    const h = harness(fixture('./golden/generated/seed1_size20.scenario.json'));
    const db = h.db;
    const request = { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'CUSTOM_AGAIN', amount: 1 }] }] };
    const both = async () => [seen(await headroom(db, request)), await (async () => {
      const fresh = openDatabase(db.file);
      try {
        return seen(await headroom(fresh, request));
      } finally {
        fresh.close();
      }
    })()];
    db.transaction(() => createResourceClass(db, 'CUSTOM_AGAIN'));
    const [none, noneFresh] = await both();
    expect(none).toEqual(noneFresh);
    db.transaction(() => {
      deleteResourceClass(db, 'CUSTOM_AGAIN');
      createResourceClass(db, 'CUSTOM_OTHER');
      createResourceClass(db, 'CUSTOM_AGAIN');
    });
    await both();
    // Now some of it: a tree of the kept solve gets it (only that tree is redone).
    db.transaction(() => setInventory(db, { providerUuid: A_ROOT, generation: providerByUuid(db, A_ROOT)!.generation, resourceClass: 'CUSTOM_AGAIN', total: 4 }));
    const [kept, fresh] = await both();
    expect(kept.fits).toBeGreaterThan(0);
    expect(kept).toEqual(fresh);
  });
});
