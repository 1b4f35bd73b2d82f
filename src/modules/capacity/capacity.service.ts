// Capacity rollups: per group of providers and per resource class, total, reserved, capacity, used and
// free. Three statements whatever the size of the cloud (providers with their inventories and usage,
// then aggregates and traits when grouped by them); the sums are made in memory with the one capacity rule.
// Kept until the data changes; after a write (whoever made it), the changed providers are read again and
// only the groups they count in (before and now) are made again.
import type { Db } from '../../db/client.js';
import { RequestRefused } from '../common/errors.js';
import { list, statement } from '../../db/sql.js';
import { capacityOf } from '../../rules/capacity.js';
import { changedBy, dataVersion, providerDelta, type DataVersion, type ProviderDelta } from '../../db/changes.js';
import type { CandidatesRequestInput } from '../candidates/index.js';
import { BootRequestError, buildBootRequest, type FlavorSpec, type ImageSpec } from '../flavors/boot-request.js';
import { extraSpecsOfFlavors, flavorByName } from '../flavors/flavors.service.js';
import { imageByName, propertiesOfImages } from '../images/images.service.js';
import type { HeadroomResult } from './capacity.headroom.js';
import { filterClause, type ProviderFilter } from '../providers/providers.service.js';

export type CapacityGroupBy = 'RESOURCE_CLASS' | 'AGGREGATE' | 'TRAIT' | 'ROOT' | 'PROVIDER';

export interface CapacityResource {
  resourceClass: string;
  total: number;
  reserved: number;
  capacity: number;
  used: number;
  /** capacity - used (negative when an inventory was lowered below its usage). */
  free: number;
  /** Providers of the group with an inventory of this class. */
  providerCount: number;
}

export interface CapacityGroupKey {
  resourceClass: string | null;
  aggregate: string | null;
  trait: string | null;
  rootUuid: string | null;
  providerUuid: string | null;
}

export interface CapacityGroup {
  key: CapacityGroupKey;
  /** Providers in the group (matching the filter). */
  providerCount: number;
  resources: CapacityResource[];
}

interface ProviderFacts {
  id: number;
  uuid: string;
  rootUuid: string;
  inventories: { resourceClass: string; total: number; reserved: number; capacity: number; used: number }[];
}

const rows = <T>(db: Db, source: string, ...params: unknown[]) => statement(db, source).raw(true).all(...params) as T[];

/** The providers matching a filter (or those of them among some providers), with each inventory's figures (one statement). */
function providerFacts(db: Db, filter: ProviderFilter, among: readonly number[] | null = null): ProviderFacts[] {
  const { where, params } = filterClause(db, filter);
  const restricted = among ? `${where ? `${where} AND` : 'WHERE'} rp.id IN (SELECT value FROM json_each(?))` : where;
  const found = rows<[number, string, string, string | null, number | null, number | null, number | null, number | null]>(
    db,
    // Usage per inventory through the (provider, class) index of allocations: a grouped subquery joined
    // back costs several times more here.
    `SELECT rp.id, rp.uuid, r.uuid, rc.name, i.total, i.reserved, i.allocation_ratio,
       COALESCE((SELECT SUM(a.used) FROM allocations a WHERE a.resource_provider_id = i.resource_provider_id AND a.resource_class_id = i.resource_class_id), 0)
     FROM resource_providers rp JOIN resource_providers r ON r.id = rp.root_id
     LEFT JOIN inventories i ON i.resource_provider_id = rp.id
     LEFT JOIN resource_classes rc ON rc.id = i.resource_class_id
     ${restricted}
     ORDER BY rp.id, rc.id`,
    ...params,
    ...(among ? [list(among)] : []),
  );
  const result: ProviderFacts[] = [];
  let last: ProviderFacts | null = null;
  for (const [id, uuid, rootUuid, resourceClass, total, reserved, allocationRatio, used] of found) {
    if (!last || last.id !== id) result.push((last = { id, uuid, rootUuid, inventories: [] }));
    if (resourceClass === null) continue;
    last.inventories.push({ resourceClass, total: total!, reserved: reserved!, capacity: capacityOf({ total: total!, reserved: reserved!, allocationRatio: allocationRatio! }), used: used! });
  }
  return result;
}

type NameKind = 'aggregates' | 'traits';

/** provider id -> names, for every provider with one (or for these providers), sorted (one statement). */
function namesByProvider(db: Db, kind: NameKind, among: readonly number[] | null = null): Map<number, string[]> {
  const only = among ? 'WHERE resource_provider_id IN (SELECT value FROM json_each(?))' : '';
  const source =
    kind === 'aggregates'
      ? `SELECT pa.resource_provider_id, a.uuid FROM provider_aggregates pa JOIN aggregates a ON a.id = pa.aggregate_id ${only} ORDER BY a.uuid`
      : `SELECT pt.resource_provider_id, t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id ${only} ORDER BY t.name`;
  const byProvider = new Map<number, string[]>();
  for (const [id, name] of rows<[number, string]>(db, source, ...(among ? [list(among)] : []))) {
    const names = byProvider.get(id);
    if (names) names.push(name);
    else byProvider.set(id, [name]);
  }
  return byProvider;
}

/**
 * What rollups are made of: the providers matching each filter asked with their inventories, and the
 * aggregates and traits of every provider. After a write (by any connection), the providers it changed
 * are read again and the rest kept: a provider's match of a filter depends on its own rows only, but for
 * `inTree` (which follows its tree's root: read again whole after a provider moved, came or went) and
 * filters naming traits or classes after one was created or deleted.
 */
interface RollupBase {
  version: DataVersion;
  facts: Map<string, ProviderFacts[]>;
  names: Map<NameKind, Map<number, string[]>>;
  /** When made from the base before it: that base, and the providers read again. */
  from: { base: RollupBase; ids: Set<number> } | null;
}

const bases = new WeakMap<Db, RollupBase>();

function baseOf(db: Db): RollupBase {
  const version = dataVersion(db);
  const known = bases.get(db);
  if (known && sameVersion(known.version, version)) return known;
  const delta = known ? providerDelta(db, known.version, version) : null;
  const base = delta ? baseAfter(db, known!, delta, version) : { version, facts: new Map(), names: new Map(), from: null };
  // One step back is kept (for the rollups kept as of it), no more.
  if (known) known.from = null;
  bases.set(db, base);
  return base;
}

function baseAfter(db: Db, known: RollupBase, delta: ProviderDelta, version: DataVersion): RollupBase {
  const { ids } = delta;
  const facts = new Map<string, ProviderFacts[]>();
  for (const [key, list] of known.facts) {
    const filter = JSON.parse(key) as ProviderFilter;
    if ((filter.inTree != null && delta.provider.size) || (delta.names && namesIn(filter))) continue;
    facts.set(key, ids.size ? withFacts(list, ids, providerFacts(db, filter, [...ids])) : list);
  }
  const names = new Map<NameKind, Map<number, string[]>>();
  for (const [kind, byProvider] of known.names) {
    const changed = changedBy(delta, kind, 'provider');
    if (!changed.size) names.set(kind, byProvider);
    else {
      const after = new Map(byProvider);
      for (const id of changed) after.delete(id);
      for (const [id, list] of namesByProvider(db, kind, [...changed])) after.set(id, list);
      names.set(kind, after);
    }
  }
  return { version, facts, names, from: { base: known, ids } };
}

const namesIn = (filter: ProviderFilter) => !!(filter.required?.length || filter.forbidden?.length || filter.anyOf?.length || filter.resources?.length);

/** Facts in provider order, with those of some providers as they are now (`now`: those of them matching, in order). */
function withFacts(before: ProviderFacts[], changed: Set<number>, now: ProviderFacts[]): ProviderFacts[] {
  const kept = before.filter((p) => !changed.has(p.id));
  if (!now.length) return kept;
  const after: ProviderFacts[] = new Array(kept.length + now.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < after.length; k++) after[k] = j >= now.length || (i < kept.length && kept[i].id < now[j].id) ? kept[i++] : now[j++];
  return after;
}

/** A provider's facts in a list in provider order (binary search). */
function factOf(facts: ProviderFacts[], id: number): ProviderFacts | undefined {
  let lo = 0;
  let hi = facts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (facts[mid].id === id) return facts[mid];
    if (facts[mid].id < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

function factsOf(db: Db, base: RollupBase, filter: ProviderFilter): ProviderFacts[] {
  const key = JSON.stringify(filter);
  let facts = base.facts.get(key);
  if (!facts) {
    if (base.facts.size >= 20) base.facts.clear();
    base.facts.set(key, (facts = providerFacts(db, filter)));
  }
  return facts;
}

function namesOf(db: Db, base: RollupBase, kind: NameKind): Map<number, string[]> {
  let names = base.names.get(kind);
  if (!names) base.names.set(kind, (names = namesByProvider(db, kind)));
  return names;
}

const ORDER: CapacityGroupBy[] = ['AGGREGATE', 'TRAIT', 'ROOT', 'PROVIDER', 'RESOURCE_CLASS'];

/**
 * Capacity per group. Without groupBy, one group: every provider matching the filter. A provider in
 * several aggregates (or with several traits) counts in each of their groups; one in none is in the
 * group whose aggregate (or trait) is null. Groups come sorted by their key.
 */
export function capacityRollup(db: Db, filter: ProviderFilter = {}, groupBy: readonly CapacityGroupBy[] = []): CapacityGroup[] {
  // Kept until the data changes: a dashboard asks the same rollups at every refresh. After a write (by any
  // connection), the groups the changed providers count in are made again, the others kept.
  const version = dataVersion(db);
  let kept = rollups.get(db);
  if (!kept || !sameVersion(kept.version, version)) {
    const base = baseOf(db);
    const next = { version, byKey: new Map<string, KeptRollup>() };
    if (kept && base.from && sameVersion(base.from.base.version, kept.version)) {
      for (const [key, entry] of kept.byKey) {
        const patched = patchRollup(db, base, entry);
        if (patched) next.byKey.set(key, patched);
      }
    }
    rollups.set(db, (kept = next));
  }
  const key = JSON.stringify([filter, [...groupBy].sort()]);
  let entry = kept.byKey.get(key);
  if (!entry) {
    if (kept.byKey.size >= 100) kept.byKey.clear();
    kept.byKey.set(key, (entry = rollup(db, filter, groupBy)));
  }
  return entry.answer;
}

interface KeptRollup {
  filter: ProviderFilter;
  groupBy: readonly CapacityGroupBy[];
  answer: CapacityGroup[];
  /** Each group's id, in the answer's order (sorted). */
  ids: string[];
  /** Group id -> its place in the answer. */
  at: Map<string, number>;
}

const rollups = new WeakMap<Db, { version: DataVersion; byKey: Map<string, KeptRollup> }>();

const sameVersion = (a: DataVersion, b: DataVersion) => a.seq >= 0 && a.seq === b.seq;

type Inventory = ProviderFacts['inventories'][number];

/** The groups a provider counts in: every combination of its keys (the resource class splits its inventories). */
function membershipsOf(p: ProviderFacts, by: Set<CapacityGroupBy>, aggregates: Map<number, string[]> | null, traits: Map<number, string[]> | null) {
  let keys: CapacityGroupKey[] = [{ resourceClass: null, aggregate: null, trait: null, rootUuid: by.has('ROOT') ? p.rootUuid : null, providerUuid: by.has('PROVIDER') ? p.uuid : null }];
  if (aggregates) keys = keys.flatMap((k) => (aggregates.get(p.id) ?? [null]).map((aggregate) => ({ ...k, aggregate })));
  if (traits) keys = keys.flatMap((k) => (traits.get(p.id) ?? [null]).map((trait) => ({ ...k, trait })));
  const out: { id: string; key: CapacityGroupKey; inventories: Inventory[] }[] = [];
  for (const base of keys) {
    const perClass = by.has('RESOURCE_CLASS') ? p.inventories.map((inv) => ({ key: { ...base, resourceClass: inv.resourceClass }, inventories: [inv] })) : [{ key: base, inventories: p.inventories }];
    for (const { key, inventories } of perClass) out.push({ id: ORDER.map((k) => keyPart(key, k) ?? '\u0000').join('\u0001'), key, inventories });
  }
  return out;
}

/** A group being summed: its providers counted, its resources by class. */
interface GroupSums {
  key: CapacityGroupKey;
  providerCount: number;
  resources: Map<string, CapacityResource>;
}

/** Adds (sign 1) or takes away (sign -1) one provider's inventories in a group. */
function count(group: GroupSums, inventories: Inventory[], sign: 1 | -1) {
  group.providerCount += sign;
  for (const inv of inventories) {
    let r = group.resources.get(inv.resourceClass);
    if (!r) group.resources.set(inv.resourceClass, (r = { resourceClass: inv.resourceClass, total: 0, reserved: 0, capacity: 0, used: 0, free: 0, providerCount: 0 }));
    r.total += sign * inv.total;
    r.reserved += sign * inv.reserved;
    r.capacity += sign * inv.capacity;
    r.used += sign * inv.used;
    r.free += sign * (inv.capacity - inv.used);
    r.providerCount += sign;
  }
}

/** A group as answered: its resources (those some inventory counts in) sorted by class. */
const answerOf = (g: GroupSums): CapacityGroup => ({
  key: g.key,
  providerCount: g.providerCount,
  resources: [...g.resources.values()].filter((r) => r.providerCount > 0).sort((a, b) => (a.resourceClass < b.resourceClass ? -1 : 1)),
});

const NO_GROUP: CapacityGroupKey = { resourceClass: null, aggregate: null, trait: null, rootUuid: null, providerUuid: null };

const byId = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

function rollup(db: Db, filter: ProviderFilter, groupBy: readonly CapacityGroupBy[]): KeptRollup {
  const by = new Set(groupBy);
  const base = baseOf(db);
  const providers = factsOf(db, base, filter);
  const aggregates = by.has('AGGREGATE') ? namesOf(db, base, 'aggregates') : null;
  const traits = by.has('TRAIT') ? namesOf(db, base, 'traits') : null;
  const groups = new Map<string, GroupSums>();
  for (const p of providers) {
    for (const { id, key, inventories } of membershipsOf(p, by, aggregates, traits)) {
      let group = groups.get(id);
      if (!group) groups.set(id, (group = { key, providerCount: 0, resources: new Map() }));
      count(group, inventories, 1);
    }
  }
  if (groups.size === 0 && by.size === 0) return { filter, groupBy, ids: [], at: new Map(), answer: [{ key: NO_GROUP, providerCount: 0, resources: [] }] };
  const sorted = [...groups.entries()].sort(byId);
  return { filter, groupBy, ids: sorted.map(([id]) => id), at: new Map(sorted.map(([id], i) => [id, i])), answer: sorted.map(([, g]) => answerOf(g)) };
}

/**
 * A kept rollup after a write: every changed provider taken away from the groups it counted in (as it
 * was) and added to those it counts in now; the other groups are kept. Null when it must be made again
 * (its facts were not kept).
 */
function patchRollup(db: Db, base: RollupBase, entry: KeptRollup): KeptRollup | null {
  const { from } = base;
  const key = JSON.stringify(entry.filter);
  const before = from?.base.facts.get(key);
  const after = base.facts.get(key);
  if (!from || !before || !after) return null;
  if (!from.ids.size) return entry;
  const by = new Set(entry.groupBy);
  const namesBefore = (kind: NameKind) => (by.has(kind === 'aggregates' ? 'AGGREGATE' : 'TRAIT') ? (from.base.names.get(kind) ?? undefined) : null);
  const aggregatesBefore = namesBefore('aggregates');
  const traitsBefore = namesBefore('traits');
  if (aggregatesBefore === undefined || traitsBefore === undefined) return null;
  const aggregates = by.has('AGGREGATE') ? namesOf(db, base, 'aggregates') : null;
  const traits = by.has('TRAIT') ? namesOf(db, base, 'traits') : null;
  // The groups the changed providers count in, as sums (the answer's groups are never changed in place).
  const groups = new Map<string, GroupSums>();
  const groupOf = (id: string, key: CapacityGroupKey) => {
    let group = groups.get(id);
    if (!group) {
      const i = entry.at.get(id);
      const answered = i === undefined ? null : entry.answer[i];
      group = { key: answered?.key ?? key, providerCount: answered?.providerCount ?? 0, resources: new Map(answered?.resources.map((r) => [r.resourceClass, { ...r }])) };
      groups.set(id, group);
    }
    return group;
  };
  for (const id of from.ids) {
    const was = factOf(before, id);
    if (was) for (const m of membershipsOf(was, by, aggregatesBefore, traitsBefore)) count(groupOf(m.id, m.key), m.inventories, -1);
    const is = factOf(after, id);
    if (is) for (const m of membershipsOf(is, by, aggregates, traits)) count(groupOf(m.id, m.key), m.inventories, 1);
  }
  const answer = entry.answer.slice();
  const added: [string, GroupSums][] = [];
  const removed = new Set<number>();
  for (const [id, group] of groups) {
    const i = entry.at.get(id);
    // A group no provider counts in any more goes (the one group without groupBy stays, empty).
    const gone = group.providerCount === 0 && by.size > 0;
    if (i === undefined) {
      if (!gone) added.push([id, group]);
    } else if (gone) removed.add(i);
    else answer[i] = answerOf(group);
  }
  if (!added.length && !removed.size) return { ...entry, answer };
  const kept: [string, CapacityGroup][] = [];
  entry.ids.forEach((id, i) => removed.has(i) || kept.push([id, answer[i]]));
  const sorted = added.sort(byId).map(([id, g]): [string, CapacityGroup] => [id, answerOf(g)]);
  const merged: [string, CapacityGroup][] = new Array(kept.length + sorted.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < merged.length; k++) merged[k] = j >= sorted.length || (i < kept.length && byId(kept[i], sorted[j]) < 0) ? kept[i++] : sorted[j++];
  return { ...entry, ids: merged.map(([id]) => id), at: new Map(merged.map(([id], k) => [id, k])), answer: merged.map(([, g]) => g) };
}

function keyPart(key: CapacityGroupKey, by: CapacityGroupBy): string | null {
  switch (by) {
    case 'AGGREGATE':
      return key.aggregate;
    case 'TRAIT':
      return key.trait;
    case 'ROOT':
      return key.rootUuid;
    case 'PROVIDER':
      return key.providerUuid;
    case 'RESOURCE_CLASS':
      return key.resourceClass;
  }
}

// ---- Headroom per group and per flavor ----

export type HeadroomGroupBy = 'ROOT' | 'AGGREGATE' | 'TRAIT';

export interface HeadroomGroup {
  by: HeadroomGroupBy;
  /** The root id (ROOT), aggregate uuid (AGGREGATE) or trait name (TRAIT); null: trees whose root has none. */
  key: string | number | null;
  rootUuid: string | null;
  fits: number;
  atMost: number;
  exact: boolean;
  /** Trees of the group where the request has candidates now. */
  trees: number;
}

/**
 * A headroom's figures per tree, per aggregate of the tree's root, or per trait of the tree's root (one
 * statement). Sorted by fits, most first, then by key.
 */
export function headroomGroups(db: Db, result: HeadroomResult, by: HeadroomGroupBy): HeadroomGroup[] {
  const roots = result.trees.map((t) => t.root);
  const uuids = new Map(rows<[number, string]>(db, 'SELECT id, uuid FROM resource_providers WHERE id IN (SELECT value FROM json_each(?))', list(roots)));
  let keysOf: (root: number) => (string | number | null)[];
  if (by === 'ROOT') keysOf = (root) => [root];
  else {
    const source =
      by === 'AGGREGATE'
        ? 'SELECT pa.resource_provider_id, a.uuid FROM provider_aggregates pa JOIN aggregates a ON a.id = pa.aggregate_id WHERE pa.resource_provider_id IN (SELECT value FROM json_each(?))'
        : 'SELECT pt.resource_provider_id, t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id WHERE pt.resource_provider_id IN (SELECT value FROM json_each(?))';
    const names = new Map<number, string[]>();
    for (const [id, name] of rows<[number, string]>(db, source, list(roots))) names.set(id, [...(names.get(id) ?? []), name]);
    keysOf = (root) => names.get(root) ?? [null];
  }
  const groups = new Map<string | number | null, HeadroomGroup>();
  for (const t of result.trees) {
    for (const key of keysOf(t.root)) {
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { by, key, rootUuid: by === 'ROOT' ? uuids.get(t.root)! : null, fits: 0, atMost: 0, exact: true, trees: 0 }));
      g.fits += t.fits;
      g.atMost += t.atMost;
      g.exact &&= t.exact;
      g.trees++;
    }
  }
  for (const g of groups.values()) g.exact &&= g.fits === g.atMost;
  const name = (g: HeadroomGroup) => String(g.rootUuid ?? g.key ?? '');
  return [...groups.values()].sort((a, b) => b.fits - a.fits || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}

/** The request Nova builds for a flavor (and an image), or why there is none. */
export function flavorRequest(db: Db, flavorName: string, imageName: string | null = null): CandidatesRequestInput {
  const flavor = flavorByName(db, flavorName);
  if (!flavor) throw new RequestRefused(`Flavor ${flavorName} could not be found.`, 404);
  let image: ImageSpec | null = null;
  if (imageName != null) {
    const row = imageByName(db, imageName);
    if (!row) throw new RequestRefused(`Image ${imageName} could not be found.`, 404);
    image = { uuid: row.uuid, name: row.name, properties: propertiesOfImages(db, [row.id]).map((p) => [p.key, p.value] as const) };
  }
  const spec: FlavorSpec = { ...flavor, extraSpecs: extraSpecsOfFlavors(db, [flavor.id]).map((s) => [s.key, s.value] as const) };
  try {
    return buildBootRequest(spec, image).candidatesRequest;
  } catch (error) {
    if (error instanceof BootRequestError) throw new RequestRefused(error.message);
    throw error;
  }
}

/** Names of every stored flavor, sorted. */
export function flavorNames(db: Db): string[] {
  return rows<[string]>(db, 'SELECT name FROM flavors ORDER BY name').map(([n]) => n);
}

/** A group's fullness: the largest share used of any class's capacity (0 without capacity). */
export const fullness = (g: CapacityGroup) => g.resources.reduce((most, r) => Math.max(most, r.capacity > 0 ? r.used / r.capacity : 0), 0);

/** The trees closest to full (by their fullest class), most full first. */
export function fullestTrees(db: Db, filter: ProviderFilter = {}, first = 10): CapacityGroup[] {
  return capacityRollup(db, filter, ['ROOT'])
    .map((g) => [fullness(g), g] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, first)
    .map(([, g]) => g);
}
