// The database reads of a candidate search. Each reads one kind of fact for a whole batch
// (a resource class, a set of traits, a set of aggregates, a set of trees), never one provider or tree.
import type { Db } from '../../db/client.js';
import { all, get, list, statement } from '../../db/sql.js';
import { PROVIDER_COLUMNS, type ProviderRow } from '../providers/providers.service.js';
import { capacityOf } from '../../rules/capacity.js';

export const SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE';

/** One string object per distinct name (SQLite hands out a new string per row). */
function interner() {
  const seen = new Map<string, string>();
  return (s: string) => {
    const known = seen.get(s);
    if (known !== undefined) return known;
    seen.set(s, s);
    return s;
  };
}

/** Rows as arrays (no object per row): for the large reads. */
const rows = <T>(db: Db, source: string, ...params: unknown[]) => statement(db, source).raw(true).all(...params) as T[];

/** Every trait or resource class: name -> id. */
export function allNames(db: Db, table: 'traits' | 'resource_classes'): Map<string, number> {
  return new Map(rows<[string, number]>(db, `SELECT name, id FROM ${table}`));
}

/** An inventory able to give some amount of one class, with what is used of it already. */
export interface CapacityRow {
  id: number;
  /** The inventory row's id: the order rows are read in (equal rooms keep it). */
  inventoryId: number;
  rootId: number;
  capacity: number;
  used: number;
  /** The largest amount that could fit now: min(max_unit, capacity - used). */
  room: number;
  minUnit: number;
  maxUnit: number;
  stepSize: number;
}

const USED = `COALESCE((SELECT SUM(a.used) FROM allocations a WHERE a.resource_provider_id = i.resource_provider_id AND a.resource_class_id = i.resource_class_id), 0)`;

/**
 * The trees' providers (`rp`) for a read: every provider, or those of some trees. The two are apart
 * because `? IS NULL OR rp.root_id IN (…)` keeps SQLite off the root index: a few trees cost a scan.
 */
function ofTrees(rootIds: readonly number[] | null): { where: string; params: unknown[] } {
  return rootIds === null ? { where: '', params: [] } : { where: 'WHERE rp.root_id IN (SELECT value FROM json_each(?))', params: [list(rootIds)] };
}

/** Every inventory of one class with its usage, optionally only in some trees, in the order of the inventory rows. */
export function capacityRows(db: Db, classId: number, roots: readonly number[] | null): CapacityRow[] {
  const trees = ofTrees(roots);
  // CROSS JOIN: the providers lead, found by root with trees (never the class's every row to keep a few).
  const found = rows<CapacityColumns>(
    db,
    `SELECT i.id, i.resource_provider_id, rp.root_id, i.total, i.reserved, i.allocation_ratio, i.min_unit, i.max_unit, i.step_size, ${USED}
     FROM resource_providers rp CROSS JOIN inventories i ON i.resource_provider_id = rp.id AND i.resource_class_id = ?
     ${trees.where} ORDER BY i.id`,
    classId,
    ...trees.params,
  );
  return found.map(capacityRow);
}

/** Every inventory of these providers with its usage: class id -> rows, in the order of the inventory rows. */
export function capacityRowsOfProviders(db: Db, ids: readonly number[]): Map<number, CapacityRow[]> {
  const found = rows<[number, ...CapacityColumns]>(
    db,
    `SELECT i.resource_class_id, i.id, i.resource_provider_id, rp.root_id, i.total, i.reserved, i.allocation_ratio, i.min_unit, i.max_unit, i.step_size, ${USED}
     FROM inventories i JOIN resource_providers rp ON rp.id = i.resource_provider_id
     WHERE i.resource_provider_id IN (SELECT value FROM json_each(?)) ORDER BY i.id`,
    list(ids),
  );
  const byClass = new Map<number, CapacityRow[]>();
  for (const [classId, ...columns] of found) {
    const row = capacityRow(columns);
    const list = byClass.get(classId);
    if (list) list.push(row);
    else byClass.set(classId, [row]);
  }
  return byClass;
}

type CapacityColumns = [number, number, number, number, number, number, number, number, number, number];

function capacityRow([inventoryId, id, rootId, total, reserved, allocationRatio, minUnit, maxUnit, stepSize, used]: CapacityColumns): CapacityRow {
  const capacity = capacityOf({ total, reserved, allocationRatio });
  return { id, inventoryId, rootId, capacity, used, room: Math.min(maxUnit, capacity - used), minUnit, maxUnit, stepSize };
}

/** Who holds each of these traits: trait id -> provider id -> root id. */
export function traitHolders(db: Db, traitIds: readonly number[]): Map<number, Map<number, number>> {
  const holders = new Map<number, Map<number, number>>(traitIds.map((id) => [id, new Map()]));
  if (traitIds.length === 0) return holders;
  return byKey(holders, rows<[number, number, number]>(db, `${HOLDERS} WHERE pt.trait_id IN (SELECT value FROM json_each(?))`, list(traitIds)));
}

/** The traits these providers hold: trait id -> provider id -> root id (traits none of them holds are absent). */
export function traitHoldersAmong(db: Db, providerIds: readonly number[]): Map<number, Map<number, number>> {
  return byKey(new Map(), rows<[number, number, number]>(db, `${HOLDERS} WHERE pt.resource_provider_id IN (SELECT value FROM json_each(?))`, list(providerIds)));
}

const HOLDERS = 'SELECT pt.trait_id, pt.resource_provider_id, rp.root_id FROM provider_traits pt JOIN resource_providers rp ON rp.id = pt.resource_provider_id';

/** Members of each of these aggregates: aggregate uuid -> provider id -> root id. */
export function aggregateMembers(db: Db, uuids: readonly string[]): Map<string, Map<number, number>> {
  const members = new Map<string, Map<number, number>>(uuids.map((u) => [u, new Map()]));
  if (uuids.length === 0) return members;
  return byKey(members, rows<[string, number, number]>(db, `${MEMBERS} WHERE a.uuid IN (SELECT value FROM json_each(?))`, list(uuids)));
}

/** The aggregates these providers are in: aggregate uuid -> provider id -> root id (aggregates none of them is in are absent). */
export function aggregateMembersAmong(db: Db, providerIds: readonly number[]): Map<string, Map<number, number>> {
  return byKey(new Map(), rows<[string, number, number]>(db, `${MEMBERS} WHERE pa.resource_provider_id IN (SELECT value FROM json_each(?))`, list(providerIds)));
}

const MEMBERS = `SELECT a.uuid, pa.resource_provider_id, rp.root_id FROM aggregates a
  JOIN provider_aggregates pa ON pa.aggregate_id = a.id JOIN resource_providers rp ON rp.id = pa.resource_provider_id`;

/** Rows (key, provider id, root id) into key -> provider id -> root id. */
function byKey<K>(into: Map<K, Map<number, number>>, found: [K, number, number][]): Map<K, Map<number, number>> {
  for (const [key, providerId, rootId] of found) {
    let map = into.get(key);
    if (!map) into.set(key, (map = new Map()));
    map.set(providerId, rootId);
  }
  return into;
}

/** The aggregate ids of these providers: provider id -> aggregate ids. */
export function aggregateIdsOf(db: Db, providerIds: readonly number[]): Map<number, number[]> {
  const found = rows<[number, number]>(db, 'SELECT resource_provider_id, aggregate_id FROM provider_aggregates WHERE resource_provider_id IN (SELECT value FROM json_each(?))', list(providerIds));
  const byProvider = new Map<number, number[]>();
  for (const [id, aggregateId] of found) {
    const ids = byProvider.get(id);
    if (ids) ids.push(aggregateId);
    else byProvider.set(id, [aggregateId]);
  }
  return byProvider;
}

/** Root ids of the providers with these uuids (as given: Placement compares uuids as strings). */
export function rootsByUuid(db: Db, uuids: readonly string[]): Map<string, number> {
  if (uuids.length === 0) return new Map();
  const rows = all<{ uuid: string; rootId: number }>(db, 'SELECT uuid, root_id AS rootId FROM resource_providers WHERE uuid IN (SELECT value FROM json_each(?))', list(uuids));
  return new Map(rows.map((r) => [r.uuid, r.rootId]));
}

/**
 * The anchors of sharing providers: for each, the roots of every tree with a provider in one of its
 * aggregates (including its own tree when it is in an aggregate).
 */
export function sharingAnchors(db: Db, sharingIds: readonly number[]): Map<number, number[]> {
  const anchors = new Map<number, number[]>(sharingIds.map((id) => [id, []]));
  if (sharingIds.length === 0) return anchors;
  const found = rows<[number, number]>(
    db,
    `SELECT DISTINCT own.resource_provider_id, rp.root_id FROM provider_aggregates own
     JOIN provider_aggregates other ON other.aggregate_id = own.aggregate_id
     JOIN resource_providers rp ON rp.id = other.resource_provider_id
     WHERE own.resource_provider_id IN (SELECT value FROM json_each(?))`,
    list(sharingIds),
  );
  for (const [id, rootId] of found) anchors.get(id)!.push(rootId);
  return anchors;
}

/** Whether some root has every required trait and none of the forbidden ones. */
export function someRootWithTraits(db: Db, required: readonly number[], forbidden: readonly number[]): boolean {
  return !!get(
    db,
    `SELECT 1 FROM resource_providers rp WHERE rp.parent_id IS NULL
       AND (SELECT COUNT(*) FROM provider_traits pt WHERE pt.resource_provider_id = rp.id AND pt.trait_id IN (SELECT value FROM json_each(?))) = ?
       AND NOT EXISTS (SELECT 1 FROM provider_traits pt WHERE pt.resource_provider_id = rp.id AND pt.trait_id IN (SELECT value FROM json_each(?)))
     LIMIT 1`,
    list(required),
    required.length,
    list(forbidden),
  );
}

/** Root and parent of every provider (or of these): id -> [root id, parent id or null]. */
export function providerLinks(db: Db, ids: readonly number[] | null = null): Map<number, [number, number | null]> {
  const found = ids
    ? rows<[number, number, number | null]>(db, 'SELECT id, root_id, parent_id FROM resource_providers WHERE id IN (SELECT value FROM json_each(?))', list(ids))
    : rows<[number, number, number | null]>(db, 'SELECT id, root_id, parent_id FROM resource_providers');
  return new Map(found.map(([id, root, parent]) => [id, [root, parent]]));
}

/** Every provider of these trees (null: of every tree), in creation order. */
export function providersOfTrees(db: Db, rootIds: readonly number[] | null): ProviderRow[] {
  const trees = ofTrees(rootIds);
  return all<ProviderRow>(db, `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp ${trees.where} ORDER BY rp.id`, ...trees.params);
}

/** These providers, in creation order. */
export function providersById(db: Db, ids: readonly number[]): ProviderRow[] {
  return all<ProviderRow>(db, `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp WHERE rp.id IN (SELECT value FROM json_each(?)) ORDER BY rp.id`, list(ids));
}

export interface InventoryUsage {
  providerId: number;
  classId: number;
  resourceClass: string;
  capacity: number;
  used: number;
}

/** Capacity and usage of every inventory in these trees (null: in every tree), by provider and class id. */
export function inventoriesOfTrees(db: Db, rootIds: readonly number[] | null): InventoryUsage[] {
  const trees = ofTrees(rootIds);
  const found = rows<[number, number, string, number, number, number, number]>(
    db,
    `SELECT i.resource_provider_id, i.resource_class_id, rc.name, i.total, i.reserved, i.allocation_ratio, ${USED}
     FROM resource_providers rp JOIN inventories i ON i.resource_provider_id = rp.id JOIN resource_classes rc ON rc.id = i.resource_class_id
     ${trees.where} ORDER BY i.resource_provider_id, i.resource_class_id`,
    ...trees.params,
  );
  const intern = interner();
  return found.map(([providerId, classId, resourceClass, total, reserved, allocationRatio, used]) => ({
    providerId,
    classId,
    resourceClass: intern(resourceClass),
    capacity: capacityOf({ total, reserved, allocationRatio }),
    used,
  }));
}

/** Trait names of every provider in these trees (null: in every tree), sorted per provider. */
export function traitsOfTrees(db: Db, rootIds: readonly number[] | null): Map<number, string[]> {
  const trees = ofTrees(rootIds);
  const found = rows<[number, string]>(
    db,
    `SELECT pt.resource_provider_id, t.name FROM resource_providers rp JOIN provider_traits pt ON pt.resource_provider_id = rp.id
     JOIN traits t ON t.id = pt.trait_id ${trees.where} ORDER BY pt.resource_provider_id, t.name`,
    ...trees.params,
  );
  const traits = new Map<number, string[]>();
  const intern = interner();
  for (const [id, raw] of found) {
    const name = intern(raw);
    const names = traits.get(id);
    if (names) names.push(name);
    else traits.set(id, [name]);
  }
  return traits;
}
