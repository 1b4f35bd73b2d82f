// Kept capacity figures against figures made from scratch: after each write (usage written here, which
// headroom and rollups follow tree by tree; inventories, traits and providers changed; usage written by
// another connection), every headroom and rollup answered equals the one a fresh connection computes.
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/client.js';
import { headroom, type HeadroomResult } from '../src/modules/capacity/capacity.headroom.js';
import { capacityRollup, type CapacityGroupBy } from '../src/modules/capacity/capacity.service.js';
import { deleteAllocations, setAllocations } from '../src/modules/allocations/allocations.service.js';
import { setInventory } from '../src/modules/inventories/inventories.service.js';
import { setProviderTraits } from '../src/modules/traits/traits.service.js';
import { deleteProvider, providerByUuid } from '../src/modules/providers/providers.service.js';
import { DomainError } from '../src/modules/common/errors.js';
import { createServer } from '../src/server.js';
import { fixture, harness } from './helpers.js';
import { random } from './capacity-support.js';

const REQUESTS = [
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 2 }, { resourceClass: 'MEMORY_MB', amount: 2048 }, { resourceClass: 'DISK_GB', amount: 20 }] }] },
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'DISK_GB', amount: 100 }] }] },
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'MEMORY_MB', amount: 512 }] }] },
  // The sharing pool's disk is what bounds this one.
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'DISK_GB', amount: 3000 }] }] },
  { groups: [{ suffix: '1', resources: [{ resourceClass: 'VCPU', amount: 2 }] }, { suffix: '2', resources: [{ resourceClass: 'VCPU', amount: 2 }] }], groupPolicy: 'ISOLATE' },
  { groups: [{ resources: [{ resourceClass: 'MEMORY_MB', amount: 1024 }] }, { suffix: '1', resources: [{ resourceClass: 'VCPU', amount: 1 }], required: ['HW_CPU_X86_AVX2'] }] },
];
const GROUPINGS: CapacityGroupBy[][] = [[], ['RESOURCE_CLASS'], ['AGGREGATE', 'RESOURCE_CLASS'], ['TRAIT'], ['ROOT']];

const servers = new Map<Db, ReturnType<typeof createServer>>();

/** Everything a headroom answers, as plain data. */
function seen(h: HeadroomResult) {
  return { fits: h.fits, atMost: h.atMost, exact: h.exact, sharing: h.sharing, trees: h.trees, stranded: h.stranded, plan: JSON.parse(JSON.stringify(h.plan(100))) };
}

/** Candidate searches read the same kept index (its inventories patched after a write of usage). */
const SEARCH = `query($q: String!) { placementCandidates(query: $q) { ... on Candidates { count
  allocationRequests { allocations { provider { uuid } resources { resourceClass amount } } }
  providerSummaries { provider { uuid } resources { resourceClass capacity used } } } } }`;
const QUERIES = ['resources=VCPU:2,MEMORY_MB:4096,DISK_GB:40', 'resources=VCPU:1,MEMORY_MB:512&limit=5', 'resources1=VCPU:2&resources2=VCPU:2&group_policy=isolate'];

async function figures(db: Db) {
  const out: unknown[] = [];
  const yoga = servers.get(db) ?? servers.set(db, createServer({ db, maskErrors: false })).get(db)!;
  for (const q of QUERIES) {
    const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: SEARCH, variables: { q } }) });
    out.push(await response.json());
  }
  for (const request of REQUESTS) out.push(seen(await headroom(db, request as any)));
  for (const groupBy of GROUPINGS) out.push(capacityRollup(db, {}, groupBy));
  out.push(capacityRollup(db, { resources: [{ resourceClass: 'VCPU', amount: 2 }] }, ['ROOT']));
  return out;
}

describe('capacity figures kept across writes', () => {
  it('equal figures made from scratch after every write, whatever was written and by whom', async () => {
    const scenario = fixture('./golden/generated/seed1_size20.scenario.json');
    const h = harness(scenario);
    const db = h.db;
    const r = random(17);
    const uuids = () => (db.sqlite.prepare('SELECT uuid FROM resource_providers ORDER BY id').all() as { uuid: string }[]).map((p) => p.uuid);
    const inventoriesOf = (uuid: string) =>
      db.sqlite.prepare('SELECT rc.name AS rc, i.total, i.max_unit AS maxUnit FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id JOIN resource_providers rp ON rp.id = i.resource_provider_id WHERE rp.uuid = ?').all(uuid) as { rc: string; total: number; maxUnit: number }[];
    const consumers: { uuid: string; generation: number }[] = [];
    let made = 0;
    const sharing = () =>
      (db.sqlite.prepare("SELECT rp.uuid FROM resource_providers rp JOIN provider_traits pt ON pt.resource_provider_id = rp.id JOIN traits t ON t.id = pt.trait_id WHERE t.name = 'MISC_SHARES_VIA_AGGREGATE'").all() as { uuid: string }[]).map((p) => p.uuid);
    const allocate = (target: Db, consumer: { uuid: string; generation: number | null } | null) => {
      // A sharing provider one time in four: its trees are coupled through it.
      const uuid = r.pick(r.next() < 0.25 && sharing().length ? sharing() : uuids());
      const inv = inventoriesOf(uuid);
      if (!inv.length) return;
      const pick = r.pick(inv);
      const amount = Math.max(1, Math.min(pick.maxUnit, Math.floor(pick.total * r.pick([0.05, 0.1, 0.3]))));
      const c = consumer ?? { uuid: `c0000000-0000-4000-8000-${String(++made).padStart(12, '0')}`, generation: null };
      const result = setAllocations(target, { consumerUuid: c.uuid, consumerGeneration: c.generation, projectId: 'p', userId: 'u', allocations: [{ providerUuid: uuid, resources: [{ resourceClass: pick.rc, amount }] }] });
      if (consumer) consumer.generation = result.consumer!.generation;
      else consumers.push({ uuid: c.uuid, generation: result.consumer!.generation });
    };
    // Another connection, opened once (opening one writes to the file): every write on `db` is another's to
    // it, so it keeps nothing across them and computes every figure from scratch.
    const fresh = openDatabase(db.file);
    const kinds = { usage: 0, other: 0, external: 0 };
    for (let step = 0; step < 60; step++) {
      const roll = r.next();
      try {
        if (roll < 0.45) allocate(db, null), kinds.usage++;
        else if (roll < 0.6 && consumers.length) allocate(db, r.pick(consumers)), kinds.usage++;
        else if (roll < 0.7 && consumers.length) deleteAllocations(db, consumers.splice(Math.floor(r.next() * consumers.length), 1)[0].uuid), kinds.usage++;
        else if (roll < 0.78) {
          const uuid = r.pick(uuids());
          const inv = inventoriesOf(uuid);
          if (inv.length) {
            const pick = r.pick(inv);
            setInventory(db, { providerUuid: uuid, generation: providerByUuid(db, uuid)!.generation, resourceClass: pick.rc, total: pick.total + r.pick([-2, -1, 1, 4]), maxUnit: pick.maxUnit });
          }
          kinds.other++;
        } else if (roll < 0.84) {
          const uuid = r.pick(uuids());
          setProviderTraits(db, { providerUuid: uuid, generation: providerByUuid(db, uuid)!.generation, traits: r.pick([[], ['HW_CPU_X86_AVX2'], ['MISC_SHARES_VIA_AGGREGATE'], ['HW_CPU_X86_AVX2', 'COMPUTE_VOLUME_MULTI_ATTACH']]) });
          kinds.other++;
        } else if (roll < 0.88) {
          deleteProvider(db, r.pick(uuids()));
          kinds.other++;
        } else {
          // Usage written by another connection (another worker, another process): seen through data_version.
          const other = openDatabase(db.file);
          allocate(other, null);
          other.close();
          kinds.external++;
        }
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
      expect(await figures(db), `step ${step}`).toEqual(await figures(fresh));
    }
    fresh.close();
    expect(kinds.usage).toBeGreaterThan(20);
    expect(kinds.other).toBeGreaterThan(5);
    expect(kinds.external).toBeGreaterThan(2);
  }, 120_000);
});
