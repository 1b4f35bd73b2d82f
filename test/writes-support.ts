// Random writes of every kind, for the tests that compare what is kept across writes with what a new
// connection computes from scratch: usage, inventories, traits (the sharing trait gained and lost,
// custom traits created), aggregates, providers created, deleted, renamed and moved, custom names
// created and deleted, several at once (as a refresh of the mirror writes them), by the connection that
// keeps its figures or by another one (another worker, the mirror, the command line).
import { openDatabase, type Db } from '../src/db/client.js';
import { deleteAllocations, setAllocations } from '../src/modules/allocations/allocations.service.js';
import { setProviderAggregates } from '../src/modules/aggregates/aggregates.service.js';
import { setInventories, setInventory } from '../src/modules/inventories/inventories.service.js';
import { createProvider, deleteProvider, providerByUuid, updateProvider } from '../src/modules/providers/providers.service.js';
import { createResourceClass, deleteResourceClass } from '../src/modules/resource-classes/resource-classes.service.js';
import { createTrait, deleteTrait, setProviderTraits } from '../src/modules/traits/traits.service.js';
import { DomainError } from '../src/modules/common/errors.js';
import { random } from './capacity-support.js';

export const WRITE_KINDS = ['allocate', 'reallocate', 'free', 'inventory', 'traits', 'sharing', 'aggregates', 'create', 'delete', 'move', 'rename', 'names', 'refresh'] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

const SHARING = 'MISC_SHARES_VIA_AGGREGATE';

/**
 * A seeded writer on one database file. `write(db, kind)` makes one write of that kind on `db` (in a
 * transaction, as a mutation does) and says whether it was applied (a refused one, such as deleting a
 * provider with allocations, changes nothing). It puts providers in `aggregates`; half of its moves,
 * renames and deletions are of providers in `focus`, which it creates first when they do not exist (a
 * test asks about them by uuid). Custom traits and classes are named CUSTOM_INC_T1, CUSTOM_INC_C1, ...
 */
export function randomWriter(seed: number, aggregates: readonly string[], focus: readonly string[] = []) {
  const r = random(seed);
  let made = 0;
  let traitsMade = 0;
  let classesMade = 0;
  const customTraits: string[] = [];
  const customClasses: string[] = [];
  const deletedTraits: string[] = [];
  const deletedClasses: string[] = [];
  const uuids = (db: Db) => (db.sqlite.prepare('SELECT uuid FROM resource_providers ORDER BY id').all() as { uuid: string }[]).map((p) => p.uuid);
  const consumers = (db: Db) => (db.sqlite.prepare('SELECT uuid, generation FROM consumers ORDER BY id').all() as { uuid: string; generation: number }[]);
  const inventoriesOf = (db: Db, uuid: string) =>
    db.sqlite
      .prepare(
        `SELECT rc.name AS resourceClass, i.total, i.reserved, i.min_unit AS minUnit, i.max_unit AS maxUnit, i.step_size AS stepSize, i.allocation_ratio AS allocationRatio,
           (SELECT COALESCE(SUM(a.used), 0) FROM allocations a WHERE a.resource_provider_id = i.resource_provider_id AND a.resource_class_id = i.resource_class_id) AS used
         FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id JOIN resource_providers rp ON rp.id = i.resource_provider_id WHERE rp.uuid = ? ORDER BY rc.id`,
      )
      .all(uuid) as { resourceClass: string; total: number; reserved: number; minUnit: number; maxUnit: number; stepSize: number; allocationRatio: number; used: number }[];
  const traitsOf = (db: Db, uuid: string) =>
    (db.sqlite.prepare('SELECT t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id JOIN resource_providers rp ON rp.id = pt.resource_provider_id WHERE rp.uuid = ?').all(uuid) as { name: string }[]).map((t) => t.name);
  const sharing = (db: Db) =>
    (db.sqlite.prepare(`SELECT rp.uuid FROM resource_providers rp JOIN provider_traits pt ON pt.resource_provider_id = rp.id JOIN traits t ON t.id = pt.trait_id WHERE t.name = '${SHARING}'`).all() as { uuid: string }[]).map((p) => p.uuid);
  const aggregatesOf = (db: Db, uuid: string) =>
    (db.sqlite.prepare('SELECT a.uuid FROM provider_aggregates pa JOIN aggregates a ON a.id = pa.aggregate_id JOIN resource_providers rp ON rp.id = pa.resource_provider_id WHERE rp.uuid = ?').all(uuid) as { uuid: string }[]).map((a) => a.uuid);
  // A write that changes nothing but the provider's generation is left out: the change log does not record it.
  const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
  const generation = (db: Db, uuid: string) => providerByUuid(db, uuid)!.generation;
  const uuid = (prefix: string) => `${prefix}-0000-4000-8000-${String(++made).padStart(12, '0')}`;

  const allocate = (db: Db, consumer: { uuid: string; generation: number | null }) => {
    // A sharing provider one time in four: its trees are coupled through it.
    const target = r.pick(r.next() < 0.25 && sharing(db).length ? sharing(db) : uuids(db));
    const inventory = inventoriesOf(db, target);
    if (!inventory.length) return false;
    const pick = r.pick(inventory);
    const amount = Math.max(pick.minUnit, Math.min(pick.maxUnit, Math.floor(pick.total * r.pick([0.05, 0.1, 0.3]))));
    setAllocations(db, { consumerUuid: consumer.uuid, consumerGeneration: consumer.generation, projectId: 'p', userId: 'u', allocations: [{ providerUuid: target, resources: [{ resourceClass: pick.resourceClass, amount: amount - (amount % pick.stepSize) || pick.stepSize }] }] });
    return true;
  };

  const one = (db: Db, kind: Exclude<WriteKind, 'refresh'>): boolean => {
    const providers = uuids(db);
    const focused = focus.filter((u) => providers.includes(u));
    /** A provider to move, rename or delete: one of `focus` half the time. */
    const target = (among: string[] = providers) => r.pick(focused.length && r.next() < 0.5 ? focused : among);
    switch (kind) {
      case 'allocate':
        return allocate(db, { uuid: uuid('c0000000'), generation: null });
      case 'reallocate': {
        const all = consumers(db);
        return all.length > 0 && allocate(db, r.pick(all));
      }
      case 'free': {
        const all = consumers(db);
        if (!all.length) return false;
        deleteAllocations(db, r.pick(all).uuid);
        return true;
      }
      case 'inventory': {
        const target = r.pick(providers);
        const inventory = inventoriesOf(db, target);
        const roll = r.next();
        if (!inventory.length || roll < 0.2) {
          // A class added (maybe a custom one created for it).
          const resourceClass = r.pick(['VCPU', 'MEMORY_MB', 'DISK_GB', ...customClasses]);
          setInventory(db, { providerUuid: target, generation: generation(db, target), resourceClass, total: r.pick([4, 16, 64, 4096]), maxUnit: r.pick([null, 8, 2048]) });
        } else if (roll < 0.3) {
          // A class no allocation uses removed.
          const keep = inventory.filter((inv) => inv.used > 0 || r.next() < 0.5);
          setInventories(db, { providerUuid: target, generation: generation(db, target), inventories: keep.map(({ used: _, ...fields }) => fields) });
        } else {
          const { used: _, ...pick } = r.pick(inventory);
          const change = r.pick(['total', 'total', 'reserved', 'maxUnit', 'allocationRatio'] as const);
          const next = { ...pick };
          if (change === 'total') next.total = Math.max(1, pick.total + r.pick([-4, -1, 1, 2, 8]));
          if (change === 'reserved') next.reserved = Math.min(pick.total - 1, r.pick([0, 1, 2]));
          if (change === 'maxUnit') next.maxUnit = Math.max(pick.minUnit, r.pick([1, 2, 4, pick.total]));
          if (change === 'allocationRatio') next.allocationRatio = r.pick([1, 1.5, 2, 16]);
          setInventory(db, { providerUuid: target, generation: generation(db, target), ...next });
        }
        return true;
      }
      case 'traits': {
        const target = r.pick(providers);
        const pool = ['HW_CPU_X86_AVX2', 'COMPUTE_STATUS_DISABLED', 'COMPUTE_VOLUME_MULTI_ATTACH', 'HW_NUMA_ROOT', ...customTraits];
        const now = traitsOf(db, target);
        const traits = [...new Set([...now.filter(() => r.next() < 0.6), ...pool.filter(() => r.next() < 0.3)])];
        if (sameSet(now, traits)) return false;
        setProviderTraits(db, { providerUuid: target, generation: generation(db, target), traits });
        return true;
      }
      case 'sharing': {
        // The sharing trait gained or lost.
        const target = r.next() < 0.5 && sharing(db).length ? r.pick(sharing(db)) : r.pick(providers);
        const traits = traitsOf(db, target);
        setProviderTraits(db, { providerUuid: target, generation: generation(db, target), traits: traits.includes(SHARING) ? traits.filter((t) => t !== SHARING) : [...traits, SHARING] });
        return true;
      }
      case 'aggregates': {
        const target = r.next() < 0.3 && sharing(db).length ? r.pick(sharing(db)) : r.pick(providers);
        const chosen = aggregates.filter(() => r.next() < 0.3);
        if (sameSet(aggregatesOf(db, target), chosen)) return false;
        setProviderAggregates(db, { providerUuid: target, generation: generation(db, target), aggregates: chosen });
        return true;
      }
      case 'create': {
        const id = focus.find((u) => !providers.includes(u)) ?? uuid('b0000000');
        const parent = r.next() < 0.6 ? r.pick(providers) : null;
        createProvider(db, { name: `made-${made}`, uuid: id, parentUuid: parent });
        const classes = ['VCPU', 'MEMORY_MB', 'DISK_GB', ...customClasses].filter(() => r.next() < 0.5);
        setInventories(db, { providerUuid: id, generation: 0, inventories: classes.map((resourceClass) => ({ resourceClass, total: r.pick([8, 32, 8192]), maxUnit: r.pick([null, 16]) })) });
        if (r.next() < 0.5) setProviderAggregates(db, { providerUuid: id, generation: 1, aggregates: aggregates.filter(() => r.next() < 0.4) });
        return true;
      }
      case 'delete': {
        // Leaves without allocations mostly (a refused deletion changes nothing).
        const leaves = (db.sqlite.prepare('SELECT uuid FROM resource_providers rp WHERE NOT EXISTS (SELECT 1 FROM resource_providers c WHERE c.parent_id = rp.id) AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.resource_provider_id = rp.id)').all() as { uuid: string }[]).map((p) => p.uuid);
        deleteProvider(db, target(r.next() < 0.8 && leaves.length ? leaves : providers));
        return true;
      }
      case 'move': {
        // To another parent (an update that changes nothing bumps the generation alone, which the change log does not record).
        const moving = providerByUuid(db, target())!;
        const parentUuid = r.next() < 0.3 ? null : r.pick(providers);
        const parentNow = moving.parentId === null ? null : (db.sqlite.prepare('SELECT uuid FROM resource_providers WHERE id = ?').get(moving.parentId) as { uuid: string }).uuid;
        if (parentUuid === parentNow) return false;
        updateProvider(db, { uuid: moving.uuid, parentUuid });
        return true;
      }
      case 'rename':
        updateProvider(db, { uuid: target(), name: `renamed-${++made}` });
        return true;
      case 'names': {
        const roll = r.next();
        // A name deleted before is made again half the time (with another id).
        const again = (gone: string[], fresh: () => string) => (gone.length && r.next() < 0.5 ? gone.splice(Math.floor(r.next() * gone.length), 1)[0] : fresh());
        const removed = (names: string[], gone: string[]) => {
          const name = names.splice(Math.floor(r.next() * names.length), 1)[0];
          gone.push(name);
          return name;
        };
        if (roll < 0.3) customTraits.push(createTrait(db, again(deletedTraits, () => `CUSTOM_INC_T${++traitsMade}`)).trait.name);
        else if (roll < 0.55) customClasses.push(createResourceClass(db, again(deletedClasses, () => `CUSTOM_INC_C${++classesMade}`)).resourceClass.name);
        else if (roll < 0.65 && customTraits.length) deleteTrait(db, removed(customTraits, deletedTraits));
        else if (roll < 0.75 && customClasses.length) deleteResourceClass(db, removed(customClasses, deletedClasses));
        else {
          // A class nothing uses deleted and made again at once, with another id (as a refresh may see it).
          const unused = customClasses.filter((name) => !db.sqlite.prepare('SELECT 1 FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id WHERE rc.name = ?').get(name));
          if (!unused.length) return false;
          const name = r.pick(unused);
          deleteResourceClass(db, name);
          customClasses.push(createResourceClass(db, `CUSTOM_INC_C${++classesMade}`).resourceClass.name);
          createResourceClass(db, name);
        }
        return true;
      }
    }
  };

  /** One write of this kind on db, in one transaction; false when it was refused (nothing changed). */
  const write = (db: Db, kind: WriteKind): boolean => {
    try {
      return db.transaction(() => {
        if (kind !== 'refresh') return one(db, kind);
        // Several writes at once, as one refresh of the mirror: a refused one is left out.
        let applied = false;
        for (let i = r.int(2, 6); i > 0; i--) {
          const each = r.pick(WRITE_KINDS.filter((k) => k !== 'refresh' && k !== 'names'));
          try {
            db.sqlite.prepare('SAVEPOINT one').run();
            applied = one(db, each as Exclude<WriteKind, 'refresh'>) || applied;
            db.sqlite.prepare('RELEASE one').run();
          } catch (error) {
            db.sqlite.prepare('ROLLBACK TO one').run();
            db.sqlite.prepare('RELEASE one').run();
            if (!(error instanceof DomainError)) throw error;
          }
        }
        return applied;
      });
    } catch (error) {
      if (error instanceof DomainError) return false;
      throw error;
    }
  };

  return {
    write,
    /** One write on another connection to the same file (another worker, the mirror, the command line). */
    writeElsewhere(file: string, kind: WriteKind): boolean {
      const other = openDatabase(file);
      try {
        return write(other, kind);
      } finally {
        other.close();
      }
    },
    pick: r.pick,
    next: r.next,
  };
}
