// What candidate searches read, kept in memory per database until the data changes: inventories per
// resource class, holders per trait, members per aggregate, and (for large answers) every tree's
// providers with their inventories and traits. Each part is read whole on first need, in one
// statement per batch of names. After a write (here or by another connection, read from the change
// log), the next index keeps what the write cannot have changed and reads again only the rows of the
// providers it names (`after` below); an import, or a change to more than a tenth of the providers,
// starts a new index.
import type { Db } from '../../db/client.js';
import type { ProviderRow } from '../providers/providers.service.js';
import type { ProviderSummary } from './candidates.types.js';
import * as read from './candidates.data.js';
import { changedBy, dataVersion, providerDelta, type DataVersion, type ProviderDelta } from '../../db/changes.js';
import type { CapacityRow, InventoryUsage } from './candidates.data.js';
import { KeptRequests } from './candidates.kept.js';
import { linkTrees } from '../providers/providers.links.js';

export interface TreeCatalog {
  byId: Map<number, ProviderRow>;
  byRoot: Map<number, ProviderRow[]>;
  inventories: Map<number, InventoryUsage[]>;
  traits: Map<number, string[]>;
  /** The summaries of each tree's providers (by root, in the order of byRoot), made so far: they do not change while the data does not. */
  summaries: Map<number, ProviderSummary[]>;
  /** Allocation requests made so far, by the rows they use (carried over to the catalog after a change). */
  kept: KeptRequests;
}

export interface ClassInventories {
  /** Largest room first: the rows able to give an amount come first (equal rooms in the order of the inventory rows). */
  rows: CapacityRow[];
  byProvider: Map<number, CapacityRow>;
  /** The rows of each tree in the same order, made on first need (see rowsInTree); a change makes new inventories. */
  byRoot?: Map<number, CapacityRow[]>;
}

/** A class's rows in one tree, in the class's order: an in_tree group reads its tree, not every row of the class. */
export function rowsInTree(inventories: ClassInventories, root: number): CapacityRow[] {
  if (!inventories.byRoot) {
    const byRoot = new Map<number, CapacityRow[]>();
    for (const row of inventories.rows) {
      const list = byRoot.get(row.rootId);
      if (list) list.push(row);
      else byRoot.set(row.rootId, [row]);
    }
    inventories.byRoot = byRoot;
  }
  return inventories.byRoot.get(root) ?? [];
}

type Links = Map<number, [number, number | null]>;

const indexes = new WeakMap<Db, CandidateIndex>();

export class CandidateIndex {
  readonly traitIds: Map<string, number>;
  readonly classIds: Map<string, number>;
  /** Classes read whole. */
  private readonly classes = new Map<number, ClassInventories>();
  private readonly holders = new Map<number, Map<number, number>>();
  private readonly members = new Map<string, Map<number, number>>();
  private readonly anchors = new Map<number, number[]>();
  /** The aggregates of each sharing provider whose anchors are known. */
  private readonly anchorAggregates = new Map<number, number[]>();
  private readonly treeRoots = new Map<string, number | null>();
  private links: Links | null = null;
  private membersByRoot: Map<number, number[]> | null = null;
  private catalog: TreeCatalog | null = null;

  private constructor(
    readonly db: Db,
    readonly version: DataVersion,
    names: { traitIds: Map<string, number>; classIds: Map<string, number> } | null = null,
  ) {
    this.traitIds = names?.traitIds ?? read.allNames(db, 'traits');
    this.classIds = names?.classIds ?? read.allNames(db, 'resource_classes');
  }

  /** The index of this database, as the data is now. */
  static of(db: Db): CandidateIndex {
    const version = dataVersion(db);
    const index = indexes.get(db);
    if (index && version.seq >= 0 && index.version.seq === version.seq) return index;
    const delta = index ? providerDelta(db, index.version, version) : null;
    const made = delta ? index!.after(version, delta) : new CandidateIndex(db, version);
    if (version.seq >= 0) indexes.set(db, made);
    return made;
  }

  /** Whether nothing was written since this index was made. */
  isCurrent(): boolean {
    return this.version.seq >= 0 && this.version.seq === dataVersion(this.db).seq;
  }

  /** Inventories of a class; restricted to some trees, read just for them (not kept) unless the class is already known. */
  inventoriesOf(classId: number, roots: readonly number[] | null = null): ClassInventories {
    const known = this.classes.get(classId);
    if (known) return known;
    const rows = read.capacityRows(this.db, classId, roots).sort(byRoom);
    const inventories = { rows, byProvider: new Map(rows.map((r) => [r.id, r])) };
    if (roots === null) this.classes.set(classId, inventories);
    return inventories;
  }

  /** Holders of each trait: provider id -> root id. */
  holdersOf(traitIds: readonly number[]): Map<number, Map<number, number>> {
    const missing = [...new Set(traitIds.filter((id) => !this.holders.has(id)))];
    for (const [id, holders] of read.traitHolders(this.db, missing)) this.holders.set(id, holders);
    return new Map(traitIds.map((id) => [id, this.holders.get(id)!]));
  }

  /** Members of each aggregate: provider id -> root id. */
  membersOf(uuids: readonly string[]): Map<string, Map<number, number>> {
    const missing = [...new Set(uuids.filter((u) => !this.members.has(u)))];
    for (const [uuid, members] of read.aggregateMembers(this.db, missing)) this.members.set(uuid, members);
    return new Map(uuids.map((u) => [u, this.members.get(u)!]));
  }

  /** Root of the tree of each provider uuid (null when there is no such provider). */
  rootsOf(uuids: readonly string[]): Map<string, number | null> {
    const missing = [...new Set(uuids.filter((u) => !this.treeRoots.has(u)))];
    const found = read.rootsByUuid(this.db, missing);
    for (const uuid of missing) this.treeRoots.set(uuid, found.get(uuid) ?? null);
    return new Map(uuids.map((u) => [u, this.treeRoots.get(u)!]));
  }

  /** Anchors (roots of trees sharing an aggregate) of each sharing provider. */
  anchorsOf(sharingIds: readonly number[]): Map<number, number[]> {
    const missing = [...new Set(sharingIds.filter((id) => !this.anchors.has(id)))];
    if (missing.length) {
      for (const [id, anchors] of read.sharingAnchors(this.db, missing)) this.anchors.set(id, anchors);
      const aggregates = read.aggregateIdsOf(this.db, missing);
      for (const id of missing) this.anchorAggregates.set(id, aggregates.get(id) ?? []);
    }
    return new Map(sharingIds.map((id) => [id, this.anchors.get(id)!]));
  }

  /** The anchors of a provider as this index knows them, without reading (undefined: never asked). */
  knownAnchorsOf(id: number): readonly number[] | undefined {
    return this.anchors.get(id);
  }

  /** Root and parent (null for a root) of every provider. */
  providerLinks(): Links {
    return (this.links ??= read.providerLinks(this.db));
  }

  rootOf(id: number): number {
    return this.providerLinks().get(id)![0];
  }

  parentOf(id: number): number | null {
    return this.providerLinks().get(id)?.[1] ?? null;
  }

  /** Every tree: root id -> its providers' ids, in creation order. */
  treeMembers(): Map<number, number[]> {
    if (!this.membersByRoot) {
      this.membersByRoot = new Map();
      for (const [id, [root]] of [...this.providerLinks()].sort((a, b) => a[0] - b[0])) {
        const list = this.membersByRoot.get(root);
        if (list) list.push(id);
        else this.membersByRoot.set(root, [id]);
      }
    }
    return this.membersByRoot;
  }

  /** Whether any provider has a parent (Placement's switch for microversions before 1.29). */
  hasTrees(): boolean {
    for (const [, parent] of this.providerLinks().values()) if (parent !== null) return true;
    return false;
  }

  someRootWithTraits(required: readonly number[], forbidden: readonly number[]): boolean {
    return read.someRootWithTraits(this.db, required, forbidden);
  }

  hasCatalog(): boolean {
    return this.catalog !== null;
  }

  /** Every tree's providers, inventories and traits (read once per index). */
  trees(): TreeCatalog {
    return (this.catalog ??= readTrees(this.db, null));
  }

  /**
   * The index after a write: what it cannot have changed is shared with this one (which stays as it was,
   * for the searches still reading it), and the parts the changed providers are in are made again from
   * their rows as they are now. Nothing kept is changed in place.
   */
  private after(version: DataVersion, delta: ProviderDelta): CandidateIndex {
    const { db } = this;
    const next = new CandidateIndex(db, version, delta.names ? null : this);
    // Names created or deleted: what is kept under an id whose name changed goes (read again when asked).
    const gone = { traits: changedIds(this.traitIds, next.traitIds), classes: changedIds(this.classIds, next.classIds) };
    const moved = delta.provider;
    const links = moved.size ? read.providerLinks(db, [...moved]) : new Map() as Links;

    // Inventory rows: their capacity and usage, and their root.
    const rowsChanged = changedBy(delta, 'usage', 'inventory', 'provider');
    const rows = rowsChanged.size && this.classes.size ? read.capacityRowsOfProviders(db, [...rowsChanged]) : new Map<number, CapacityRow[]>();
    for (const [classId, before] of this.classes) if (!gone.classes.has(classId)) next.classes.set(classId, withRows(before, rowsChanged, rows.get(classId) ?? []));

    const traitsChanged = changedBy(delta, 'traits', 'provider');
    const held = traitsChanged.size && this.holders.size ? read.traitHoldersAmong(db, [...traitsChanged]) : new Map<number, Map<number, number>>();
    for (const [traitId, before] of this.holders) if (!gone.traits.has(traitId)) next.holders.set(traitId, withEntries(before, traitsChanged, held.get(traitId)));

    const aggregatesChanged = changedBy(delta, 'aggregates', 'provider');
    const joined = aggregatesChanged.size && this.members.size ? read.aggregateMembersAmong(db, [...aggregatesChanged]) : new Map<string, Map<number, number>>();
    for (const [uuid, before] of this.members) next.members.set(uuid, withEntries(before, aggregatesChanged, joined.get(uuid)));

    // A sharing provider's anchors change when it changes aggregates, or when a provider in one of its
    // aggregates (before or now) changes aggregates or moves: those are read again.
    const redo = this.anchorsToRedo(aggregatesChanged, moved);
    for (const [id, anchors] of this.anchors) {
      if (redo.has(id)) continue;
      next.anchors.set(id, anchors);
      next.anchorAggregates.set(id, this.anchorAggregates.get(id)!);
    }
    if (redo.size) next.anchorsOf([...redo]);

    if (moved.size) {
      // In-tree lookups in the trees providers left or joined are made again (all of them when where they were is not known).
      const roots = new Set<number>();
      for (const id of moved) {
        const was = this.links?.get(id);
        if (was) roots.add(was[0]);
        const is = links.get(id);
        if (is) roots.add(is[0]);
      }
      if (this.links) for (const [uuid, root] of this.treeRoots) if (root !== null && !roots.has(root)) next.treeRoots.set(uuid, root);
      if (this.links) {
        next.links = new Map(this.links);
        for (const id of moved) {
          const link = links.get(id);
          if (link) next.links.set(id, link);
          else next.links.delete(id);
        }
        if (this.membersByRoot) next.membersByRoot = withTreeMembers(this.membersByRoot, this.links, links, moved);
      }
    } else {
      for (const [uuid, root] of this.treeRoots) next.treeRoots.set(uuid, root);
      next.links = this.links;
      next.membersByRoot = this.membersByRoot;
    }

    next.catalog = this.catalog && delta.ids.size ? this.catalogAfter(delta.ids, links, moved) : this.catalog;
    return next;
  }

  /** The sharing providers whose anchors may have changed with the aggregates or the place of these providers. */
  private anchorsToRedo(changed: Set<number>, moved: Set<number>): Set<number> {
    const redo = new Set<number>();
    if (!changed.size || !this.anchors.size) return redo;
    // The roots these providers were in: a provider that left an aggregate leaves its root in the anchors.
    const roots = new Set<number>();
    const stayed: number[] = [];
    for (const id of changed) {
      const was = this.links?.get(id);
      if (was) roots.add(was[0]);
      else if (this.links) continue;
      // Where a provider that moved or went was is not known without the links of before: all are read again.
      else if (moved.has(id)) return new Set(this.anchors.keys());
      else stayed.push(id);
    }
    if (stayed.length) for (const [root] of read.providerLinks(this.db, stayed).values()) roots.add(root);
    const aggregates = new Set([...read.aggregateIdsOf(this.db, [...changed]).values()].flat());
    for (const [id, anchors] of this.anchors) {
      if (changed.has(id) || this.anchorAggregates.get(id)!.some((a) => aggregates.has(a)) || anchors.some((root) => roots.has(root))) redo.add(id);
    }
    return redo;
  }

  /** The catalog with the trees of these providers (where they were and where they are) read again. */
  private catalogAfter(ids: Set<number>, links: Links, moved: Set<number>): TreeCatalog {
    const before = this.catalog!;
    const roots = new Set<number>();
    for (const id of ids) {
      const row = before.byId.get(id);
      if (row) roots.add(row.rootId);
      if (moved.has(id)) {
        const link = links.get(id);
        if (link) roots.add(link[0]);
      }
    }
    const part = readTrees(this.db, [...roots]);
    const catalog: TreeCatalog = { byId: new Map(before.byId), byRoot: new Map(before.byRoot), inventories: new Map(before.inventories), traits: new Map(before.traits), summaries: new Map(before.summaries), kept: before.kept };
    for (const root of roots) {
      for (const row of before.byRoot.get(root) ?? []) {
        catalog.byId.delete(row.id);
        catalog.inventories.delete(row.id);
        catalog.traits.delete(row.id);
      }
      catalog.summaries.delete(root);
      const rows = part.byRoot.get(root);
      if (rows) catalog.byRoot.set(root, rows);
      else catalog.byRoot.delete(root);
    }
    for (const [id, row] of part.byId) catalog.byId.set(id, row);
    for (const [id, list] of part.inventories) catalog.inventories.set(id, list);
    for (const [id, names] of part.traits) catalog.traits.set(id, names);
    return catalog;
  }
}

/** Largest room first, then in the order of the inventory rows (as read). */
const byRoom = (a: CapacityRow, b: CapacityRow) => b.room - a.room || a.inventoryId - b.inventoryId;

/** Ids whose name is not the same in both maps (created, deleted or renamed). */
function changedIds(before: Map<string, number>, after: Map<string, number>): Set<number> {
  const changed = new Set<number>();
  if (before === after) return changed;
  for (const [name, id] of before) if (after.get(name) !== id) changed.add(id);
  for (const [name, id] of after) if (before.get(name) !== id) changed.add(id);
  return changed;
}

/**
 * A class read whole, with the rows of some providers as they are now: each goes where a new read would
 * put it, by room and then in the order of the inventory rows. The same object when none of them is in it.
 */
function withRows(before: ClassInventories, changed: Set<number>, now: CapacityRow[]): ClassInventories {
  if (!now.length && ![...changed].some((id) => before.byProvider.has(id))) return before;
  const kept = before.rows.filter((r) => !changed.has(r.id));
  const added = now.slice().sort(byRoom);
  const rows: CapacityRow[] = new Array(kept.length + added.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < rows.length; k++) rows[k] = j >= added.length || (i < kept.length && byRoom(kept[i], added[j]) <= 0) ? kept[i++] : added[j++];
  const byProvider = new Map(before.byProvider);
  for (const id of changed) byProvider.delete(id);
  for (const row of now) byProvider.set(row.id, row);
  return { rows, byProvider };
}

/** Provider id -> root id, with the entries of some providers as they are now. The same map when none changes. */
function withEntries(before: Map<number, number>, changed: Set<number>, now: Map<number, number> | undefined): Map<number, number> {
  if (!now && ![...changed].some((id) => before.has(id))) return before;
  const after = new Map(before);
  for (const id of changed) after.delete(id);
  if (now) for (const [id, root] of now) after.set(id, root);
  return after;
}

/** Every tree's members with the providers that moved, came or went where they are now (lists in id order). */
function withTreeMembers(before: Map<number, number[]>, was: Links, now: Links, moved: Set<number>): Map<number, number[]> {
  const after = new Map(before);
  const lists = new Map<number, number[]>();
  const listOf = (root: number) => {
    let list = lists.get(root);
    if (!list) lists.set(root, (list = [...(after.get(root) ?? [])]));
    return list;
  };
  for (const id of moved) {
    const from = was.get(id);
    if (from) {
      const list = listOf(from[0]);
      const at = list.indexOf(id);
      if (at >= 0) list.splice(at, 1);
    }
  }
  for (const id of moved) {
    const to = now.get(id);
    if (!to) continue;
    const list = listOf(to[0]);
    let at = list.length;
    while (at > 0 && list[at - 1] > id) at--;
    list.splice(at, 0, id);
  }
  for (const [root, list] of lists) {
    if (list.length) after.set(root, list);
    else after.delete(root);
  }
  return after;
}

/** Providers, inventories and traits of some trees (null: all), read in three statements. */
export function readTrees(db: Db, roots: readonly number[] | null): TreeCatalog {
  const providers = read.providersOfTrees(db, roots);
  const byId = new Map<number, ProviderRow>();
  const byRoot = new Map<number, ProviderRow[]>();
  for (const row of providers) {
    byId.set(row.id, row);
    const tree = byRoot.get(row.rootId);
    if (tree) tree.push(row);
    else byRoot.set(row.rootId, [row]);
  }
  const inventories = new Map<number, InventoryUsage[]>();
  for (const inv of read.inventoriesOfTrees(db, roots)) {
    const list = inventories.get(inv.providerId);
    if (list) list.push(inv);
    else inventories.set(inv.providerId, [inv]);
  }
  linkTrees(byId);
  return { byId, byRoot, inventories, traits: read.traitsOfTrees(db, roots), summaries: new Map(), kept: new KeptRequests() };
}
