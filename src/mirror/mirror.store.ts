// The mirror: what was read from Placement, written into the Placement tables in one transaction.
// Only what differs is written, so an unchanged cloud costs reads and no writes. Generations are
// Placement's own, so a caller's generation means the same thing here and upstream.
import type { Db } from '../db/client.js';
import { keptPerDatabase } from '../db/changes.js';
import { all, get, list, run } from '../db/sql.js';
import { ensureResourceClasses } from '../modules/resource-classes/resource-classes.service.js';
import { ensureTraits } from '../modules/traits/traits.service.js';
import type { ProviderDetail } from './placement-api.source.js';
import type { KnownState, PlacementState } from './source.js';

export interface MirrorChanges {
  providers: number;
  added: number;
  removed: number;
  /** Providers whose inventories, traits or aggregates were rewritten. */
  detailed: number;
  /** Providers whose allocations were rewritten. */
  allocationsRewritten: number;
  consumers: number;
  /** What changed in the flavors (compute), servers, images and nodes mirrored beside Placement. */
  services?: Partial<Record<'compute' | 'servers' | 'image' | 'baremetal', { added: number; updated: number; removed: number; skipped: number }>>;
}

/**
 * What the mirror holds, to read Placement against. Without `allocations` (a write's read-back, which
 * reads the allocations of the providers it touched from Placement anyway) no allocation is read.
 * Kept until the mirror changes: a refresh that finds nothing new reads none of it again (at 10,000
 * roots reading it took about 0.2 s of a 0.55 s refresh). Readers must not change what they are given.
 */
export function knownState(db: Db, options: { allocations?: boolean } = {}): KnownState {
  return options.allocations === false ? knownWithoutAllocations(db) : knownWithAllocations(db);
}

const knownWithAllocations = keptPerDatabase((db) => readKnownState(db, true));
const knownWithoutAllocations = keptPerDatabase((db) => readKnownState(db, false));
const forgetKnownState = (db: Db) => {
  knownWithAllocations.forget(db);
  knownWithoutAllocations.forget(db);
};

function readKnownState(db: Db, withAllocations: boolean): KnownState {
  const rows = all<{ uuid: string; name: string; generation: number; parent: string | null; root: string | null }>(
    db,
    `SELECT rp.uuid, rp.name, rp.generation, p.uuid AS parent, r.uuid AS root
     FROM resource_providers rp LEFT JOIN resource_providers p ON p.id = rp.parent_id LEFT JOIN resource_providers r ON r.id = rp.root_id`,
  );
  const generations = new Map(rows.map((r) => [r.uuid, r.generation]));
  const tree = new Map(rows.map((r) => [r.uuid, { name: r.name, parent: r.parent, root: r.root }]));
  const inventoryClasses = new Map<string, Set<string>>();
  for (const r of all<{ uuid: string; rc: string }>(db, 'SELECT rp.uuid, rc.name AS rc FROM inventories i JOIN resource_providers rp ON rp.id = i.resource_provider_id JOIN resource_classes rc ON rc.id = i.resource_class_id')) {
    inventoryClasses.set(r.uuid, (inventoryClasses.get(r.uuid) ?? new Set()).add(r.rc));
  }
  const consumers = new Map(
    all<{ uuid: string; project: string; user: string; type: string | null; generation: number }>(
      db,
      'SELECT uuid, project_id AS project, user_id AS user, consumer_type AS type, generation FROM consumers',
    ).map(({ uuid, ...meta }) => [uuid, meta]),
  );
  const allocations = new Map<string, Map<string, Record<string, number>>>();
  for (const r of withAllocations ? allocationRows(db, null) : []) {
    let byProvider = allocations.get(r.consumer);
    if (!byProvider) allocations.set(r.consumer, (byProvider = new Map()));
    const resources = byProvider.get(r.provider) ?? {};
    resources[r.rc] = (resources[r.rc] ?? 0) + r.used;
    byProvider.set(r.provider, resources);
  }
  return { generations, tree, inventoryClasses, consumers, allocations };
}

/**
 * Writes a full read of Placement into the mirror, in one transaction. With `partial`, only the
 * providers and consumers in the state are touched (after a write through the gateway): nothing
 * else is removed.
 */
export function applyPlacementState(db: Db, state: PlacementState, partial = false): MirrorChanges {
  return db.transaction(() => {
    const changes: MirrorChanges = { providers: state.providers.length, added: 0, removed: 0, detailed: 0, allocationsRewritten: 0, consumers: 0 };
    ensureTraits(db, state.traits);
    ensureResourceClasses(db, state.resourceClasses);

    // Every provider for a full read (what is gone is found among them); only those read for a partial one.
    const local = new Map(
      all<{ id: number; uuid: string; name: string; generation: number; parent: string | null; root: string | null }>(
        db,
        `SELECT rp.id, rp.uuid, rp.name, rp.generation, p.uuid AS parent, r.uuid AS root
         FROM resource_providers rp LEFT JOIN resource_providers p ON p.id = rp.parent_id LEFT JOIN resource_providers r ON r.id = rp.root_id
         WHERE ? IS NULL OR rp.uuid IN (SELECT value FROM json_each(?))`,
        partial ? 1 : null,
        partial ? list(state.providers.map((p) => p.uuid)) : null,
      ).map((r) => [r.uuid, r]),
    );
    const upstream = new Set(state.providers.map((p) => p.uuid));

    if (!partial) {
      const gone = [...local.values()].filter((p) => !upstream.has(p.uuid)).map((p) => p.id);
      if (gone.length) {
        const ids = JSON.stringify(gone);
        for (const table of ['allocations', 'inventories', 'provider_traits', 'provider_aggregates']) {
          run(db, `DELETE FROM ${table} WHERE resource_provider_id IN (SELECT value FROM json_each(?))`, ids);
        }
        run(db, 'UPDATE resource_providers SET parent_id = NULL, root_id = id WHERE id IN (SELECT value FROM json_each(?))', ids);
        run(db, 'DELETE FROM resource_providers WHERE id IN (SELECT value FROM json_each(?))', ids);
        changes.removed = gone.length;
      }
    }

    // Names are unique: move renamed providers out of the way first, so swaps and reuses apply (to a
    // name longer than any valid one, which no provider can have).
    for (const p of state.providers) {
      const mine = local.get(p.uuid);
      if (mine && mine.name !== p.name) run(db, 'UPDATE resource_providers SET name = ? WHERE id = ?', `\u0000${p.uuid}`.padEnd(256, '\u0000'), mine.id);
    }
    for (const p of state.providers) {
      const mine = local.get(p.uuid);
      if (!mine) {
        run(db, 'INSERT INTO resource_providers (uuid, name, generation) VALUES (?, ?, ?)', p.uuid, p.name, p.generation);
        changes.added++;
      } else if (mine.name !== p.name || mine.generation !== p.generation) {
        run(db, "UPDATE resource_providers SET name = ?, generation = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?", p.name, p.generation, mine.id);
      }
    }
    for (const p of state.providers) {
      const mine = local.get(p.uuid);
      if (mine && mine.parent === p.parent && mine.root === p.root) continue;
      run(
        db,
        `UPDATE resource_providers SET parent_id = (SELECT id FROM resource_providers WHERE uuid = ?),
           root_id = (SELECT id FROM resource_providers WHERE uuid = ?) WHERE uuid = ?`,
        p.parent,
        p.root,
        p.uuid,
      );
    }

    for (const [uuid, detail] of state.details) {
      writeDetail(db, uuid, detail);
      changes.detailed++;
    }

    for (const [uuid, c] of state.consumers) {
      run(
        db,
        `INSERT INTO consumers (uuid, project_id, user_id, consumer_type, generation) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (uuid) DO UPDATE SET project_id = excluded.project_id, user_id = excluded.user_id,
           consumer_type = excluded.consumer_type, generation = excluded.generation`,
        uuid,
        c.project,
        c.user,
        c.type,
        c.generation,
      );
      changes.consumers++;
    }

    const current = allocationsByProvider(db, [...state.allocations.keys()]);
    for (const [uuid, held] of state.allocations) {
      const wanted = signature(held);
      if ((current.get(uuid) ?? '') === wanted) continue;
      const id = get<{ id: number }>(db, 'SELECT id FROM resource_providers WHERE uuid = ?', uuid)!.id;
      run(db, 'DELETE FROM allocations WHERE resource_provider_id = ?', id);
      for (const [consumer, resources] of held) {
        for (const [rc, used] of Object.entries(resources)) {
          // A consumer deleted between two reads has no row: its allocations go with it.
          run(
            db,
            `INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used)
             SELECT ?, c.id, rc.id, ? FROM consumers c, resource_classes rc WHERE c.uuid = ? AND rc.name = ?`,
            id,
            used,
            consumer,
            rc,
          );
        }
      }
      changes.allocationsRewritten++;
    }
    if (!partial) {
      // Consumers Placement no longer has are gone, with whatever the mirror still held for them.
      const seen = JSON.stringify([...state.seenConsumers.keys()]);
      run(db, 'DELETE FROM allocations WHERE consumer_id IN (SELECT id FROM consumers WHERE uuid NOT IN (SELECT value FROM json_each(?)))', seen);
      run(db, 'DELETE FROM consumers WHERE uuid NOT IN (SELECT value FROM json_each(?))', seen);
      removeUnlisted(db, 'traits', state.traits, 'provider_traits', 'trait_id');
      removeUnlisted(db, 'resource_classes', state.resourceClasses, 'inventories', 'resource_class_id');
    } else {
      run(db, 'DELETE FROM consumers WHERE NOT EXISTS (SELECT 1 FROM allocations a WHERE a.consumer_id = consumers.id)');
    }
    run(db, 'DELETE FROM aggregates WHERE NOT EXISTS (SELECT 1 FROM provider_aggregates pa WHERE pa.aggregate_id = aggregates.id)');
    // A generation written alone is not in the change log: the kept state is dropped by what wrote it.
    if (changes.added || changes.removed || changes.detailed || changes.allocationsRewritten || changes.consumers) forgetKnownState(db);
    return changes;
  });
}

/** Removes one provider that Placement no longer has (after a delete through the gateway). */
export function removeProvider(db: Db, uuid: string) {
  db.transaction(() => {
    const row = get<{ id: number }>(db, 'SELECT id FROM resource_providers WHERE uuid = ?', uuid);
    if (!row) return;
    for (const table of ['allocations', 'inventories', 'provider_traits', 'provider_aggregates']) run(db, `DELETE FROM ${table} WHERE resource_provider_id = ?`, row.id);
    run(db, 'DELETE FROM resource_providers WHERE id = ?', row.id);
    run(db, 'DELETE FROM consumers WHERE NOT EXISTS (SELECT 1 FROM allocations a WHERE a.consumer_id = consumers.id)');
    run(db, 'DELETE FROM aggregates WHERE NOT EXISTS (SELECT 1 FROM provider_aggregates pa WHERE pa.aggregate_id = aggregates.id)');
  });
}

/** Removes a consumer and its allocations (after DELETE /allocations/{consumer} through the gateway). */
export function removeConsumer(db: Db, uuid: string) {
  db.transaction(() => {
    run(db, 'DELETE FROM allocations WHERE consumer_id IN (SELECT id FROM consumers WHERE uuid = ?)', uuid);
    run(db, 'DELETE FROM consumers WHERE uuid = ?', uuid);
  });
}

/** Keeps the mirror's list of traits or classes equal to Placement's (after creating or deleting one). */
export function syncNames(db: Db, table: 'traits' | 'resource_classes', names: string[]) {
  db.transaction(() => {
    (table === 'traits' ? ensureTraits : ensureResourceClasses)(db, names);
    removeUnlisted(db, table, names, table === 'traits' ? 'provider_traits' : 'inventories', table === 'traits' ? 'trait_id' : 'resource_class_id');
  });
}

/**
 * A provider's inventories, traits and aggregates as read, each part written only when it differs from
 * what the mirror has: the change log then names only what really changed (a trait set on a provider
 * leaves its inventories, and what caches keep of them, alone).
 */
function writeDetail(db: Db, uuid: string, detail: ProviderDetail) {
  const id = get<{ id: number }>(db, 'SELECT id FROM resource_providers WHERE uuid = ?', uuid)!.id;
  const inventories = Object.entries(detail.inventories).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const inventoriesNow = all<{ rc: string; total: number; reserved: number; min_unit: number; max_unit: number; step_size: number; allocation_ratio: number }>(
    db,
    `SELECT rc.name AS rc, i.total, i.reserved, i.min_unit, i.max_unit, i.step_size, i.allocation_ratio FROM inventories i
     JOIN resource_classes rc ON rc.id = i.resource_class_id WHERE i.resource_provider_id = ? ORDER BY rc.name`,
    id,
  );
  const sameInventories =
    inventoriesNow.length === inventories.length &&
    inventoriesNow.every((now, k) => {
      const [rc, inv] = inventories[k];
      return now.rc === rc && now.total === inv.total && now.reserved === inv.reserved && now.min_unit === inv.min_unit && now.max_unit === inv.max_unit && now.step_size === inv.step_size && now.allocation_ratio === inv.allocation_ratio;
    });
  if (!sameInventories) {
    run(db, 'DELETE FROM inventories WHERE resource_provider_id = ?', id);
    ensureResourceClasses(db, inventories.map(([rc]) => rc));
    for (const [rc, inv] of inventories) {
      run(
        db,
        `INSERT INTO inventories (resource_provider_id, resource_class_id, total, reserved, min_unit, max_unit, step_size, allocation_ratio)
         SELECT ?, id, ?, ?, ?, ?, ?, ? FROM resource_classes WHERE name = ?`,
        id,
        inv.total,
        inv.reserved,
        inv.min_unit,
        inv.max_unit,
        inv.step_size,
        inv.allocation_ratio,
        rc,
      );
    }
  }
  const traitsNow = all<{ name: string }>(db, 'SELECT t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id WHERE pt.resource_provider_id = ?', id).map((r) => r.name);
  if (!sameSet(traitsNow, detail.traits)) {
    run(db, 'DELETE FROM provider_traits WHERE resource_provider_id = ?', id);
    ensureTraits(db, detail.traits);
    for (const t of detail.traits) run(db, 'INSERT INTO provider_traits (resource_provider_id, trait_id) SELECT ?, id FROM traits WHERE name = ?', id, t);
  }
  const aggregatesNow = all<{ uuid: string }>(db, 'SELECT a.uuid FROM provider_aggregates pa JOIN aggregates a ON a.id = pa.aggregate_id WHERE pa.resource_provider_id = ?', id).map((r) => r.uuid);
  if (!sameSet(aggregatesNow, detail.aggregates)) {
    run(db, 'DELETE FROM provider_aggregates WHERE resource_provider_id = ?', id);
    for (const a of detail.aggregates) {
      run(db, 'INSERT OR IGNORE INTO aggregates (uuid) VALUES (?)', a);
      run(db, 'INSERT INTO provider_aggregates (resource_provider_id, aggregate_id) SELECT ?, id FROM aggregates WHERE uuid = ?', id, a);
    }
  }
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === new Set(b).size && a.every((x) => b.includes(x));

/** The allocations held on these providers (null: on every provider). */
const allocationRows = (db: Db, providerUuids: readonly string[] | null) =>
  all<{ provider: string; consumer: string; rc: string; used: number }>(
    db,
    `SELECT rp.uuid AS provider, c.uuid AS consumer, rc.name AS rc, a.used FROM allocations a
     JOIN resource_providers rp ON rp.id = a.resource_provider_id JOIN consumers c ON c.id = a.consumer_id
     JOIN resource_classes rc ON rc.id = a.resource_class_id
     WHERE ? IS NULL OR rp.uuid IN (SELECT value FROM json_each(?))`,
    providerUuids && 1,
    providerUuids && list(providerUuids),
  );

/** The allocations of these providers, each as its signature. */
function allocationsByProvider(db: Db, providerUuids: readonly string[]): Map<string, string> {
  const rows = allocationRows(db, providerUuids);
  const held = new Map<string, Map<string, Record<string, number>>>();
  for (const r of rows) {
    let byConsumer = held.get(r.provider);
    if (!byConsumer) held.set(r.provider, (byConsumer = new Map()));
    const resources = byConsumer.get(r.consumer) ?? {};
    resources[r.rc] = (resources[r.rc] ?? 0) + r.used;
    byConsumer.set(r.consumer, resources);
  }
  return new Map([...held].map(([uuid, byConsumer]) => [uuid, signature(byConsumer)]));
}

/** The same text for the same allocations, whatever order they were read in. */
function signature(held: Map<string, Record<string, number>>): string {
  return [...held]
    .map(([consumer, resources]) => `${consumer}:${Object.keys(resources).sort().map((rc) => `${rc}=${resources[rc]}`).join(',')}`)
    .sort()
    .join(';');
}

function removeUnlisted(db: Db, table: 'traits' | 'resource_classes', names: readonly string[], usedIn: string, column: string) {
  run(
    db,
    `DELETE FROM ${table} WHERE standard = 0 AND name NOT IN (SELECT value FROM json_each(?))
       AND NOT EXISTS (SELECT 1 FROM ${usedIn} u WHERE u.${column} = ${table}.id)`,
    JSON.stringify(names),
  );
}
