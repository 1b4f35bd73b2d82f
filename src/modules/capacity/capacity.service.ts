// Capacity rollups: per group of providers and per resource class, total, reserved, capacity, used and
// free. Three statements whatever the size of the cloud (providers with their inventories and usage,
// then aggregates and traits when grouped by them); the sums are made in memory with the one capacity rule.
import type { Db } from '../../db/client.js';
import { RequestRefused } from '../common/errors.js';
import { list, statement } from '../../db/sql.js';
import { capacityOf } from '../../rules/capacity.js';
import { changesBetween, dataVersion, usageOnly, type DataVersion } from '../../db/changes.js';
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

/** The providers matching a filter, with each inventory's figures (one statement). */
function providerFacts(db: Db, filter: ProviderFilter): ProviderFacts[] {
  const { where, params } = filterClause(db, filter);
  const found = rows<[number, string, string, string | null, number | null, number | null, number | null, number | null]>(
    db,
    // Usage per inventory through the (provider, class) index of allocations: a grouped subquery joined
    // back costs several times more here.
    `SELECT rp.id, rp.uuid, r.uuid, rc.name, i.total, i.reserved, i.allocation_ratio,
       COALESCE((SELECT SUM(a.used) FROM allocations a WHERE a.resource_provider_id = i.resource_provider_id AND a.resource_class_id = i.resource_class_id), 0)
     FROM resource_providers rp JOIN resource_providers r ON r.id = rp.root_id
     LEFT JOIN inventories i ON i.resource_provider_id = rp.id
     LEFT JOIN resource_classes rc ON rc.id = i.resource_class_id
     ${where}
     ORDER BY rp.id, rc.id`,
    ...params,
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

/** provider id -> names, for every provider with one (one statement). */
function namesByProvider(db: Db, kind: 'aggregates' | 'traits'): Map<number, string[]> {
  const source =
    kind === 'aggregates'
      ? 'SELECT pa.resource_provider_id, a.uuid FROM provider_aggregates pa JOIN aggregates a ON a.id = pa.aggregate_id ORDER BY a.uuid'
      : 'SELECT pt.resource_provider_id, t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id ORDER BY t.name';
  const byProvider = new Map<number, string[]>();
  for (const [id, name] of rows<[number, string]>(db, source)) {
    const names = byProvider.get(id);
    if (names) names.push(name);
    else byProvider.set(id, [name]);
  }
  return byProvider;
}

/**
 * What rollups are made of, kept while only usage changes: the providers matching each filter asked with
 * their inventories (after a write of usage, by any connection, the usage of the providers written is read
 * again and the rest kept; a filter on resources, whose matches depend on usage, is read again whole), and
 * the aggregates and traits of every provider. Any other change: all read again.
 */
interface RollupBase {
  version: DataVersion;
  facts: Map<string, ProviderFacts[]>;
  names: Map<'aggregates' | 'traits', Map<number, string[]>>;
  /** Per filter kept, provider id -> its place in the facts (made when first needed, kept while only usage changes). */
  positions: Map<string, Map<number, number>>;
  /** When made from the base of `since` after a write of usage: what the usage of each provider written changed by, per class. */
  changed: { since: DataVersion; deltas: Map<number, Map<string, number>>; positions: Map<string, Map<number, number>> } | null;
}

const bases = new WeakMap<Db, RollupBase>();

function baseOf(db: Db): RollupBase {
  const version = dataVersion(db);
  const known = bases.get(db);
  const changes = known && changesBetween(db, known.version, version);
  if (changes?.none) return known!;
  const touched = changes ? usageOnly(changes) : null;
  const base: RollupBase = { version, facts: new Map(), names: touched ? known!.names : new Map(), positions: new Map(), changed: null };
  if (touched) {
    const usage = usageOf(db, [...touched]);
    const deltas = new Map<number, Map<string, number>>();
    for (const [key, list] of known!.facts) {
      if ((JSON.parse(key) as ProviderFilter).resources?.length) continue;
      let positions = known!.positions.get(key);
      if (!positions) known!.positions.set(key, (positions = new Map(list.map((p, i) => [p.id, i]))));
      const facts = list.slice();
      for (const id of touched) {
        const i = positions.get(id);
        if (i === undefined) continue;
        const p = facts[i];
        const inventories = p.inventories.map((inv) => ({ ...inv, used: usage.get(p.id)?.get(inv.resourceClass) ?? 0 }));
        facts[i] = { ...p, inventories };
        let delta = deltas.get(p.id);
        if (!delta) deltas.set(p.id, (delta = new Map()));
        p.inventories.forEach((inv, k) => inventories[k].used !== inv.used && delta!.set(inv.resourceClass, inventories[k].used - inv.used));
      }
      base.facts.set(key, facts);
      base.positions.set(key, positions);
    }
    base.changed = { since: known!.version, deltas, positions: base.positions };
  }
  bases.set(db, base);
  return base;
}

/** Usage of these providers: provider id -> class -> used (one statement). */
function usageOf(db: Db, ids: number[]): Map<number, Map<string, number>> {
  const byProvider = new Map<number, Map<string, number>>();
  for (const [id, resourceClass, used] of rows<[number, string, number]>(
    db,
    `SELECT a.resource_provider_id, rc.name, SUM(a.used) FROM allocations a JOIN resource_classes rc ON rc.id = a.resource_class_id
     WHERE a.resource_provider_id IN (SELECT value FROM json_each(?)) GROUP BY a.resource_provider_id, rc.name`,
    list(ids),
  )) {
    let classes = byProvider.get(id);
    if (!classes) byProvider.set(id, (classes = new Map()));
    classes.set(resourceClass, used);
  }
  return byProvider;
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

function namesOf(db: Db, base: RollupBase, kind: 'aggregates' | 'traits'): Map<number, string[]> {
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
  // Kept until the data changes: a dashboard asks the same rollups at every refresh. After a write of usage
  // (by any connection), the groups of the providers written are made again from the others kept.
  const version = dataVersion(db);
  let kept = rollups.get(db);
  if (!kept || !changesBetween(db, kept.version, version).none) {
    const base = baseOf(db);
    const next = { version, byKey: new Map<string, KeptRollup>() };
    if (kept && base.changed && sameVersion(base.changed.since, kept.version)) {
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

function rollup(db: Db, filter: ProviderFilter, groupBy: readonly CapacityGroupBy[]): KeptRollup {
  const by = new Set(groupBy);
  const base = baseOf(db);
  const providers = factsOf(db, base, filter);
  const aggregates = by.has('AGGREGATE') ? namesOf(db, base, 'aggregates') : null;
  const traits = by.has('TRAIT') ? namesOf(db, base, 'traits') : null;
  const groups = new Map<string, { key: CapacityGroupKey; providers: Set<number>; resources: Map<string, CapacityResource> }>();
  for (const p of providers) {
    for (const { id, key, inventories } of membershipsOf(p, by, aggregates, traits)) {
      let group = groups.get(id);
      if (!group) groups.set(id, (group = { key, providers: new Set(), resources: new Map() }));
      group.providers.add(p.id);
      for (const inv of inventories) {
        let r = group.resources.get(inv.resourceClass);
        if (!r) group.resources.set(inv.resourceClass, (r = { resourceClass: inv.resourceClass, total: 0, reserved: 0, capacity: 0, used: 0, free: 0, providerCount: 0 }));
        r.total += inv.total;
        r.reserved += inv.reserved;
        r.capacity += inv.capacity;
        r.used += inv.used;
        r.free += inv.capacity - inv.used;
        r.providerCount++;
      }
    }
  }
  const at = new Map<string, number>();
  if (groups.size === 0 && by.size === 0) return { filter, groupBy, at, answer: [{ key: { resourceClass: null, aggregate: null, trait: null, rootUuid: null, providerUuid: null }, providerCount: 0, resources: [] }] };
  const sorted = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  sorted.forEach(([id], i) => at.set(id, i));
  return {
    filter,
    groupBy,
    at,
    answer: sorted.map(([, g]) => ({ key: g.key, providerCount: g.providers.size, resources: [...g.resources.values()].sort((a, b) => (a.resourceClass < b.resourceClass ? -1 : 1)) })),
  };
}

/**
 * A kept rollup after a write of usage: the groups of the providers written, with their usage now (the
 * others as they were). Null when it must be made again: a filter on resources (its matches depend on usage).
 */
function patchRollup(db: Db, base: RollupBase, entry: KeptRollup): KeptRollup | null {
  if (entry.filter.resources?.length || !base.changed) return null;
  const facts = base.facts.get(JSON.stringify(entry.filter));
  if (!facts) return null;
  const by = new Set(entry.groupBy);
  const aggregates = by.has('AGGREGATE') ? namesOf(db, base, 'aggregates') : null;
  const traits = by.has('TRAIT') ? namesOf(db, base, 'traits') : null;
  const answer = entry.answer.slice();
  const copied = new Set<number>();
  for (const [id, deltas] of base.changed.deltas) {
    const p = facts[base.changed.positions.get(JSON.stringify(entry.filter))?.get(id) ?? -1];
    if (!p || p.id !== id) continue;
    for (const { id: groupId, inventories } of membershipsOf(p, by, aggregates, traits)) {
      const i = entry.at.get(groupId);
      if (i === undefined) return null;
      for (const inv of inventories) {
        const delta = deltas.get(inv.resourceClass);
        if (!delta) continue;
        if (!copied.has(i)) {
          copied.add(i);
          answer[i] = { ...answer[i], resources: answer[i].resources.map((r) => ({ ...r })) };
        }
        const r = answer[i].resources.find((x) => x.resourceClass === inv.resourceClass)!;
        r.used += delta;
        r.free -= delta;
      }
    }
  }
  return { ...entry, answer };
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
