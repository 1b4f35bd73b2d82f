// What candidate searches read, kept in memory per database until the data changes: inventories per
// resource class, holders per trait, members per aggregate, and (for large answers) every tree's
// providers with their inventories and traits. Each part is read whole on first need, in one
// statement per batch of names. Any write (here or by another connection) starts a new index; when
// only allocations were written since (as a scheduler's claims do), the new index keeps what
// allocations cannot change: trees, traits, aggregates, sharing anchors.
import type { Db } from '../../db/client.js';
import type { ProviderRow } from '../providers/providers.service.js';
import type { ProviderSummary } from './candidates.types.js';
import * as read from './candidates.data.js';
import { changesBetween, dataVersion, usageOnly, type DataVersion } from '../../db/changes.js';
import type { CapacityRow, InventoryUsage } from './candidates.data.js';
import { linkTrees } from '../providers/providers.links.js';

export interface TreeCatalog {
  byId: Map<number, ProviderRow>;
  byRoot: Map<number, ProviderRow[]>;
  inventories: Map<number, InventoryUsage[]>;
  traits: Map<number, string[]>;
  /** Summaries made so far (they do not change while the data does not). */
  summaries: Map<number, ProviderSummary>;
}

export interface ClassInventories {
  /** Largest room first: the rows able to give an amount come first (equal rooms in the order read). */
  rows: CapacityRow[];
  byProvider: Map<number, CapacityRow>;
  /** For a class read whole: each provider's place in the order read. */
  order?: Map<number, number>;
}

const indexes = new WeakMap<Db, CandidateIndex>();

export class CandidateIndex {
  readonly traitIds: Map<string, number>;
  readonly classIds: Map<string, number>;
  private readonly classes = new Map<number, ClassInventories>();
  private readonly holders = new Map<number, Map<number, number>>();
  private readonly members = new Map<string, Map<number, number>>();
  private readonly anchors = new Map<number, number[]>();
  private readonly treeRoots = new Map<string, number | null>();
  private links: Map<number, [number, number | null]> | null = null;
  private membersByRoot: Map<number, number[]> | null = null;
  /** Trait names of every provider, when known from an index of the same structure. */
  private traitsByProvider: Map<number, string[]> | null = null;
  private catalog: TreeCatalog | null = null;

  private constructor(
    readonly db: Db,
    readonly version: DataVersion,
    /** The previous index, when only allocations were written since: what they cannot change is taken from it. */
    same: CandidateIndex | null = null,
    /** The providers whose usage changed since `same` was made. */
    touched: Set<number> | null = null,
  ) {
    this.traitIds = same?.traitIds ?? read.allNames(db, 'traits');
    this.classIds = same?.classIds ?? read.allNames(db, 'resource_classes');
    if (!same) return;
    // The classes read whole: only the rows of the providers written are read again.
    if (touched && same.classes.size) {
      const now = read.capacityRowsOfProviders(db, [...touched]);
      for (const [classId, before] of same.classes) {
        const patched = withRows(before, touched, now.get(classId) ?? []);
        if (patched) this.classes.set(classId, patched);
      }
    }
    this.holders = same.holders;
    this.members = same.members;
    this.anchors = same.anchors;
    this.treeRoots = same.treeRoots;
    this.links = same.links;
    this.membersByRoot = same.membersByRoot;
    this.traitsByProvider = same.catalog?.traits ?? same.traitsByProvider;
  }

  /** The index of this database, as the data is now. */
  static of(db: Db): CandidateIndex {
    const version = dataVersion(db);
    const index = indexes.get(db);
    const changes = index && changesBetween(db, index.version, version);
    if (changes?.none) return index!;
    const touched = changes ? usageOnly(changes) : null;
    const made = new CandidateIndex(db, version, touched ? index! : null, touched);
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
    if (known || roots === null) {
      if (known) return known;
      const read_ = read.capacityRows(this.db, classId, null);
      const order = new Map(read_.map((r, i) => [r.id, i]));
      const rows = byRoom(read_);
      const whole = { rows, byProvider: new Map(rows.map((r) => [r.id, r])), order };
      this.classes.set(classId, whole);
      return whole;
    }
    const rows = byRoom(read.capacityRows(this.db, classId, roots));
    return { rows, byProvider: new Map(rows.map((r) => [r.id, r])) };
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
    for (const [id, anchors] of read.sharingAnchors(this.db, missing)) this.anchors.set(id, anchors);
    return new Map(sharingIds.map((id) => [id, this.anchors.get(id)!]));
  }

  /** Root and parent (null for a root) of every provider. */
  providerLinks(): Map<number, [number, number | null]> {
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
    return (this.catalog ??= readTrees(this.db, null, this.traitsByProvider));
  }
}

const byRoom = (rows: CapacityRow[]) => rows.sort((a, b) => b.room - a.room);

/**
 * A class read whole, with the rows of some providers as they are now (their usage changed, nothing else):
 * each goes back where a new read would put it, by room and then in the order read. Null when a row is new.
 */
function withRows(before: ClassInventories, touched: Set<number>, now: CapacityRow[]): ClassInventories | null {
  const { order } = before;
  if (!order || now.length !== [...touched].filter((id) => before.byProvider.has(id)).length) return null;
  const rows = before.rows.filter((r) => !touched.has(r.id));
  const byProvider = new Map(before.byProvider);
  const after = (a: CapacityRow, b: CapacityRow) => a.room < b.room || (a.room === b.room && order.get(a.id)! > order.get(b.id)!);
  for (const row of now) {
    if (!order.has(row.id)) return null;
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (after(row, rows[mid])) lo = mid + 1;
      else hi = mid;
    }
    rows.splice(lo, 0, row);
    byProvider.set(row.id, row);
  }
  return { rows, byProvider, order };
}

/** Providers, inventories and traits of some trees (null: all), read in three statements (two when the traits are known). */
export function readTrees(db: Db, roots: readonly number[] | null, traits: Map<number, string[]> | null = null): TreeCatalog {
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
  return { byId, byRoot, inventories, traits: traits ?? read.traitsOfTrees(db, roots), summaries: new Map() };
}
