// The facts of one candidate search (Placement's research_context.py): the request's names resolved,
// who holds each trait and aggregate, the inventories able to give each class, the sharing providers
// and their anchors, root_required.
import type { ResourceAmount } from '../common/names.js';
import { fits } from '../../rules/capacity.js';
import { SHARING_TRAIT, type CapacityRow } from './candidates.data.js';
import { CandidateIndex, rowsInTree, type ClassInventories } from './candidates.index.js';
import type { SearchGroup, SearchRequest } from './candidates.request.js';

/** A group as the search sees it: names resolved, and its ways to be satisfied per anchor root. */
export interface GroupPlan {
  group: SearchGroup;
  index: number;
  classIds: number[];
  amounts: number[];
  /** The group's amounts as answer objects, shared by every allocation request. */
  resourceAmounts: ResourceAmount[];
  /** Per anchor: for the unsuffixed group the providers able to give each class; for a suffixed group one list of providers. */
  optionsByAnchor: Map<number, number[][]>;
  /** Per provider, the required trait sets it meets, as bits. */
  masks: Map<number, number>;
  fullMask: number;
  /** Whether another group asks for one of this group's classes (amounts may add up on one provider). */
  sharesClasses: boolean;
}

/** Facts of one search: the request's names resolved and what the index knows about them. */
export class SearchFacts {
  readonly holders: Map<number, Map<number, number>>;
  readonly members: Map<string, Map<number, number>>;
  readonly treeRoots: Map<string, number | null>;
  readonly classes = new Map<number, ClassInventories>();
  readonly sharing: Map<number, number>;

  constructor(
    readonly index: CandidateIndex,
    readonly request: SearchRequest,
    /** Explanations judge root_required per tree, apart from the groups. */
    readonly ignoreRootFilter = false,
  ) {
    const { groups } = request;
    const traitNames = [SHARING_TRAIT, ...request.rootRequired, ...request.rootForbidden, ...groups.flatMap((g) => [...g.required.flat(), ...g.forbidden])];
    this.holders = index.holdersOf(traitNames.flatMap((t) => (index.traitIds.has(t) ? [index.traitIds.get(t)!] : [])));
    this.members = index.membersOf(groups.flatMap((g) => [...g.memberOf.flat(), ...g.forbiddenAggregates]));
    this.treeRoots = index.rootsOf(groups.flatMap((g) => (g.inTree ? [g.inTree] : [])));
    this.sharing = this.holdersOf(SHARING_TRAIT);
    // A class asked only by groups bound to trees (in_tree) is read for those trees only.
    const trees = new Map<number, Set<number> | null>();
    for (const g of groups) {
      const root = g.inTree == null ? null : this.treeRoots.get(g.inTree);
      for (const [rc] of g.resources) {
        const id = index.classIds.get(rc);
        if (id === undefined) continue;
        const before = trees.get(id);
        if (root == null || before === null) trees.set(id, null);
        else trees.set(id, new Set([...(before ?? []), root]));
      }
    }
    for (const [id, roots] of trees) this.classes.set(id, index.inventoriesOf(id, roots && [...roots]));
  }

  holdersOf(trait: string): Map<number, number> {
    const id = this.index.traitIds.get(trait);
    return (id !== undefined && this.holders.get(id)) || new Map();
  }

  anchorsOf(id: number): number[] {
    return this.index.anchorsOf([id]).get(id)!;
  }

  /** Loads at once the anchors of every sharing provider among these (ids, or rows of inventories). */
  prepareAnchors(providers: readonly (number | { id: number })[][]) {
    const sharing: number[] = [];
    for (const list of providers) {
      for (const p of list) {
        const id = typeof p === 'number' ? p : p.id;
        if (this.sharing.has(id)) sharing.push(id);
      }
    }
    if (sharing.length) this.index.anchorsOf(sharing);
  }

  /** Providers in at least one aggregate of every set, or null when there are no sets. */
  inAggregates(sets: string[][]): Set<number> | null {
    if (sets.length === 0) return null;
    const [first, ...rest] = sets.map((set) => this.inAnyAggregate(set));
    return rest.reduce((result, inSet) => new Set([...result].filter((id) => inSet.has(id))), first);
  }

  /** Providers in any of these aggregates. */
  inAnyAggregate(uuids: string[]): Set<number> {
    const result = new Set<number>();
    for (const uuid of uuids) for (const id of this.members.get(uuid)!.keys()) result.add(id);
    return result;
  }

  /** Providers holding any of these traits. */
  holdingAny(traits: string[]): Set<number> {
    const result = new Set<number>();
    for (const t of traits) for (const id of this.holdersOf(t).keys()) result.add(id);
    return result;
  }

  /** Per provider, which of the required sets it meets (bit i = set i). */
  requiredMasks(required: string[][]): Map<number, number> {
    const masks = new Map<number, number>();
    required.forEach((set, i) => {
      for (const t of set) for (const id of this.holdersOf(t).keys()) masks.set(id, (masks.get(id) ?? 0) | (1 << i));
    });
    return masks;
  }

  /** Whether candidates may be anchored at a root: it meets root_required, unless explanations judge that apart. */
  anchorAllowed(root: number): boolean {
    return this.ignoreRootFilter || this.meetsRootRequired(root);
  }

  /** Whether a root meets root_required: every required trait, no forbidden one (Placement's anchor filter). */
  meetsRootRequired(root: number): boolean {
    const { rootRequired, rootForbidden } = this.request;
    for (const t of rootRequired) if (!this.holdersOf(t).has(root)) return false;
    for (const t of rootForbidden) if (this.holdersOf(t).has(root)) return false;
    return true;
  }

  /** Whether some root meets root_required at all. */
  someAnchorAllowed(): boolean {
    const { rootRequired, rootForbidden } = this.request;
    if (rootRequired.length === 0) return this.index.someRootWithTraits([], rootForbidden.map((t) => this.index.traitIds.get(t)!));
    for (const [id, root] of this.holdersOf(rootRequired[0])) if (id === root && this.anchorAllowed(id)) return true;
    return false;
  }

  /** The inventories of a group's class that can give its amount (in its tree, with in_tree). */
  fitting(classId: number, amount: number, treeRoot: number | null): CapacityRow[] {
    const inventories = this.classes.get(classId)!;
    const result: CapacityRow[] = [];
    for (const row of treeRoot === null ? inventories.rows : rowsInTree(inventories, treeRoot)) {
      if (row.room < amount) break;
      if (fits(row, amount)) result.push(row);
    }
    return result;
  }
}
