// The allocation-candidate search: Placement 8.0.0's semantics (objects/allocation_candidate.py and
// research_context.py) over the candidate index, with candidates built lazily in memory.
import type { Db } from '../../db/client.js';
import type { ResourceAmount } from '../common/names.js';
import type { ProviderRow } from '../providers/providers.service.js';
import { fits } from '../../rules/capacity.js';
import { SHARING_TRAIT, providersById, type CapacityRow } from './candidates.data.js';
import { CandidateIndex, readTrees, type ClassInventories, type TreeCatalog } from './candidates.index.js';
import { reject as rejectRequest, type SearchGroup, type SearchRequest } from './candidates.request.js';
import type { CandidateAllocation, CandidateMapping, CandidateRequest, CandidatesFound, ProviderSummary } from './candidates.types.js';

export const DEFAULT_MAX_CANDIDATES = 100_000;
/** Steps of enumeration between two yields to the event loop. */
const STEPS_PER_SLICE = 5_000;
/** Answers touching at most this many trees read them directly instead of loading every tree into the index. */
const FEW_TREES = 64;
const MAX_REQUIRED_SETS = 30;

/** Why a search stops before building candidates: some group can be satisfied nowhere (thrown; not an Error, no stack needed). */
class NothingFound {}
const NOTHING = new NothingFound();
const nothing = (): never => {
  throw NOTHING;
};

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

  /** Loads at once the anchors of every sharing provider among these. */
  prepareAnchors(ids: Iterable<number>) {
    const sharing = [...ids].filter((id) => this.sharing.has(id));
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
    const result: CapacityRow[] = [];
    for (const row of this.classes.get(classId)!.rows) {
      if (row.room < amount) break;
      if (fits(row, amount) && (treeRoot === null || row.rootId === treeRoot)) result.push(row);
    }
    return result;
  }
}

/**
 * Checks names and builds each group's plan in Placement's order. A search (strict) stops at the first
 * group satisfied nowhere, as Placement does; an explanation goes on to say why everywhere. With
 * `unknownMatchNothing` (a request Placement answers with no candidates before it reaches a bad name),
 * an unknown trait is held by no provider and an unknown resource class has no inventory.
 */
export function planGroups(facts: SearchFacts, strict = true, unknownMatchNothing = false): GroupPlan[] {
  const { request, index } = facts;
  const stop = strict ? nothing : () => {};
  const reject: (message: string) => void = unknownMatchNothing ? () => {} : rejectRequest;
  if (unknownMatchNothing && !facts.classes.has(UNKNOWN_CLASS)) facts.classes.set(UNKNOWN_CLASS, { rows: [], byProvider: new Map() });
  for (const t of [...request.rootRequired, ...request.rootForbidden]) if (!index.traitIds.has(t)) reject(`No such trait(s): ${t}.`);
  if ((request.rootRequired.length || request.rootForbidden.length) && !facts.someAnchorAllowed()) stop();
  const classUses = new Map<number, number>();
  for (const g of request.groups) for (const [rc] of g.resources) if (index.classIds.has(rc)) classUses.set(index.classIds.get(rc)!, (classUses.get(index.classIds.get(rc)!) ?? 0) + 1);
  return request.groups.map((group, i) => {
    const classIds = group.resources.map(([rc]) => index.classIds.get(rc) ?? (reject(`Invalid resource class in resources parameter: No such resource class ${rc}.`), UNKNOWN_CLASS));
    const inAggregates = facts.inAggregates(group.memberOf);
    if (inAggregates && inAggregates.size === 0) stop();
    for (const t of [...group.required.flat(), ...group.forbidden]) if (!index.traitIds.has(t)) reject(`No such trait(s): ${t}.`);
    if (group.required.length > MAX_REQUIRED_SETS) rejectRequest(`At most ${MAX_REQUIRED_SETS} required trait sets are supported in one group.`);
    // An unknown in_tree provider: no tree matches (-1 is no root).
    const treeRoot = group.inTree == null ? null : (facts.treeRoots.get(group.inTree) ?? (stop(), -1));
    const fitting = group.resources.map(([, amount], k) => {
      const rows = facts.fitting(classIds[k], amount, treeRoot);
      if (!rows.length) stop();
      return rows;
    });
    const plan: GroupPlan = {
      group,
      index: i,
      classIds,
      amounts: group.resources.map(([, amount]) => amount),
      resourceAmounts: group.resources.map(([resourceClass, amount]) => ({ resourceClass, amount })),
      optionsByAnchor: new Map(),
      masks: facts.requiredMasks(group.required),
      fullMask: (1 << group.required.length) - 1,
      sharesClasses: classIds.some((id) => classUses.get(id)! > 1),
    };
    const excluded = facts.inAnyAggregate(group.forbiddenAggregates);
    const forbidden = facts.holdingAny(group.forbidden);
    if (group.suffix === '') planUnsuffixed(facts, plan, fitting, inAggregates, excluded, forbidden, treeRoot);
    else planSuffixed(facts, plan, fitting, inAggregates, excluded, forbidden, stop);
    if (!someChoice(plan)) stop();
    return plan;
  });
}

/** The class id an unknown resource class plans with when unknown names match nothing: no provider has it. */
export const UNKNOWN_CLASS = -1;

/**
 * Whether Placement answers the request with no candidates before it has checked every name: some group
 * is satisfied nowhere (a strict plan stops). A bad name met before that throws, as in a search.
 */
export function answeredEmpty(facts: SearchFacts): boolean {
  try {
    planGroups(facts);
    return false;
  } catch (error) {
    if (error instanceof NothingFound) return true;
    throw error;
  }
}

/**
 * The unsuffixed group: each class from any provider of the anchor's tree, or from a sharing provider
 * anchored there. A provider matches member_of when it or its anchor is in the aggregates.
 */
function planUnsuffixed(
  facts: SearchFacts,
  plan: GroupPlan,
  fitting: CapacityRow[][],
  inAggregates: Set<number> | null,
  excluded: Set<number>,
  forbidden: Set<number>,
  treeRoot: number | null,
) {
  const anchorFilter = !facts.ignoreRootFilter && (facts.request.rootRequired.length > 0 || facts.request.rootForbidden.length > 0);
  if (treeRoot === null) facts.prepareAnchors(fitting.flatMap((rows) => rows.map((r) => r.id)));
  // Per anchor, the providers able to give each class; an anchor missing a class is dropped.
  const options = new Map<number, number[][]>();
  const add = (k: number, anchor: number, id: number) => {
    const lists = options.get(anchor);
    if (k === 0) {
      if (lists) lists[0].push(id);
      else options.set(anchor, [[id]]);
    } else if (lists && lists.length === k + 1) lists[k].push(id);
    else if (lists && lists.length === k) lists.push([id]);
  };
  fitting.forEach((rows, k) => {
    for (const { id, rootId } of rows) {
      if (forbidden.has(id) || excluded.has(id)) continue;
      if ((!anchorFilter || facts.anchorAllowed(rootId)) && !excluded.has(rootId) && (!inAggregates || inAggregates.has(id) || inAggregates.has(rootId))) add(k, rootId, id);
      if (treeRoot === null && facts.sharing.has(id) && (!inAggregates || inAggregates.has(id))) {
        for (const anchor of facts.anchorsOf(id)) if (anchor !== rootId && (!anchorFilter || facts.anchorAllowed(anchor)) && !excluded.has(anchor)) add(k, anchor, id);
      }
    }
  });
  for (const [anchor, lists] of options) if (lists.length === fitting.length) plan.optionsByAnchor.set(anchor, lists);
}

function addTo(map: Map<number, number[]>, key: number, value: number) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A suffixed group: one provider with every class, its own traits and its own aggregates. */
function planSuffixed(
  facts: SearchFacts,
  plan: GroupPlan,
  fitting: CapacityRow[][],
  inAggregates: Set<number> | null,
  excluded: Set<number>,
  forbidden: Set<number>,
  stop: () => void,
) {
  const { group } = plan;
  let providers: number[];
  if (fitting.length) {
    providers = fitting[0].map((r) => r.id);
    for (const rows of fitting.slice(1)) {
      const ids = new Set(rows.map((r) => r.id));
      providers = providers.filter((id) => ids.has(id));
    }
  } else {
    // A resourceless group (in same_subtree): Placement finds nothing unless traits or aggregates are required.
    if (!group.required.length && !group.memberOf.length) return stop();
    providers = group.required.length ? [...plan.masks].filter(([, mask]) => mask === plan.fullMask).map(([id]) => id) : [...inAggregates!];
  }
  providers = providers.filter((id) => (plan.masks.get(id) ?? 0) === plan.fullMask && !forbidden.has(id) && !excluded.has(id) && (!inAggregates || inAggregates.has(id)));
  facts.prepareAnchors(providers);
  const byAnchor = new Map<number, number[]>();
  for (const id of providers) {
    const root = facts.index.rootOf(id);
    if (facts.anchorAllowed(root)) addTo(byAnchor, root, id);
    if (facts.sharing.has(id)) for (const anchor of facts.anchorsOf(id)) if (anchor !== root && facts.anchorAllowed(anchor)) addTo(byAnchor, anchor, id);
  }
  for (const [anchor, ids] of byAnchor) plan.optionsByAnchor.set(anchor, [ids]);
}

/** Whether some anchor has providers for every class of the unsuffixed group that together meet its required traits. */
function someChoice(plan: GroupPlan): boolean {
  for (const anchor of plan.optionsByAnchor.keys()) if (countChoices(plan, anchor, 1) > 0) return true;
  return false;
}

/**
 * For the unsuffixed group at an anchor: reach[k] = the required sets that the providers of classes k
 * and after could still meet. A partial pick whose mask together with it falls short is a dead end.
 */
function reachOf(plan: GroupPlan, options: number[][]): number[] {
  const reach = new Array(options.length + 1).fill(0);
  for (let k = options.length - 1; k >= 0; k--) {
    let mask = reach[k + 1];
    for (const id of options[k]) mask |= plan.masks.get(id) ?? 0;
    reach[k] = mask;
  }
  return reach;
}

/** How many ways (up to `cap`) the group can be satisfied at an anchor on its own. */
export function countChoices(plan: GroupPlan, anchor: number, cap: number): number {
  const options = plan.optionsByAnchor.get(anchor);
  if (!options) return 0;
  if (plan.group.suffix !== '') return Math.min(cap, options[0].length);
  if (plan.fullMask === 0) return Math.min(cap, options.reduce((n, list) => n * list.length, 1));
  const reach = reachOf(plan, options);
  let count = 0;
  const walk = (k: number, mask: number) => {
    if (count >= cap || (mask | reach[k]) !== plan.fullMask) return;
    if (k === options.length) {
      count++;
      return;
    }
    for (const id of options[k]) walk(k + 1, mask | (plan.masks.get(id) ?? 0));
  };
  walk(0, 0);
  return count;
}

/**
 * A candidate is one provider picked per slot: a slot per class of the unsuffixed group (each class whole
 * from one provider), and one slot per suffixed group (one provider gives all its classes).
 */
interface Slot {
  plan: GroupPlan;
  /** The class of the unsuffixed group; -1 for a suffixed group. */
  k: number;
}

export interface Candidate {
  /** The root the candidate is anchored at (its tree, or the tree a sharing provider serves). */
  anchor: number;
  /** The provider picked for each slot. */
  picks: number[];
}

/** The slots of a request, in group order. */
export class Layout {
  readonly slots: Slot[] = [];
  /** Each group's slots. */
  readonly slotsOf: number[][];

  /** Whether every group asks for resources (no resourceless group). */
  readonly allGive: boolean;

  constructor(readonly plans: GroupPlan[]) {
    this.allGive = plans.every((p) => p.classIds.length > 0);
    this.slotsOf = plans.map((plan) => {
      const mine: number[] = [];
      const ks = plan.group.suffix === '' ? plan.classIds.map((_, k) => k) : [-1];
      for (const k of ks) mine.push(this.slots.push({ plan, k }) - 1);
      return mine;
    });
  }

  /** The options of every slot at an anchor, or null when some group has none there. */
  optionsAt(anchor: number): number[][] | null {
    const options: number[][] = [];
    for (const plan of this.plans) {
      const lists = plan.optionsByAnchor.get(anchor);
      if (!lists) return null;
      options.push(...lists);
    }
    return options;
  }

  /** The provider giving class k of a group in a candidate. */
  giver(candidate: Candidate, g: number, k: number): number {
    const mine = this.slotsOf[g];
    return candidate.picks[mine.length === 1 ? mine[0] : mine[k]];
  }

  /** The providers of a group's mapping, sorted. */
  mapped(candidate: Candidate, g: number): number[] {
    const mine = this.slotsOf[g];
    const first = candidate.picks[mine[0]];
    let same = true;
    for (const slot of mine) if (candidate.picks[slot] !== first) same = false;
    if (same) return [first];
    const ids: number[] = [];
    for (const slot of mine) if (!ids.includes(candidate.picks[slot])) ids.push(candidate.picks[slot]);
    return ids.sort((a, b) => a - b);
  }

  /** The providers giving resources in a candidate (those of resourceless groups excluded). */
  givers(candidate: Candidate): number[] {
    if (this.allGive) return candidate.picks;
    return candidate.picks.filter((_, i) => this.slots[i].plan.classIds.length > 0);
  }
}

/** Combinations refused at some anchor, by cause (explanations report them). */
export interface Refusals {
  isolate: number;
  sameSubtree: number;
  capacity: number;
  nested: number;
}

/**
 * Enumerates candidates lazily: anchors in id order and, at each anchor, the picks slot by slot, with
 * the unsuffixed group's required traits, group_policy and summed capacities checked as picks are made,
 * and same_subtree when a candidate is complete. The walk can stop after any number of steps and go on
 * later, so a large search yields to the event loop; it ends after `wanted` candidates.
 */
export class Enumerator {
  readonly found: Candidate[] = [];
  /** Whether more candidates exist than were kept. */
  more = false;
  steps = 0;
  readonly refused: Refusals = { isolate: 0, sameSubtree: 0, capacity: 0, nested: 0 };
  readonly layout: Layout;
  private readonly seenShared = new Set<string>();
  private readonly isolate: boolean;
  private readonly subtrees: number[][];
  private readonly anchors: number[];
  private next = 0;
  // The walk at the current anchor.
  private anchor = -1;
  private options: number[][] | null = null;
  private level = 0;
  private readonly cursor: number[];
  private readonly picks: number[];
  private readonly applied: boolean[];
  private readonly masks: number[];
  /** Amount summed per provider and class over the slots picked (only classes that several groups ask for). */
  private readonly sums = new Map<string, number>();
  /** The unsuffixed group's required sets its later classes could still meet (null without required traits). */
  private reach: number[] | null = null;

  constructor(
    private readonly facts: SearchFacts,
    readonly plans: GroupPlan[],
    private readonly wanted: number,
    private readonly nestedUnaware: boolean,
    anchors?: number[],
  ) {
    const { request } = facts;
    this.layout = new Layout(plans);
    const n = this.layout.slots.length;
    this.cursor = new Array(n).fill(-1);
    this.picks = new Array(n).fill(-1);
    this.applied = new Array(n).fill(false);
    this.masks = new Array(n).fill(0);
    this.isolate = request.groupPolicy === 'isolate';
    this.subtrees = request.sameSubtree.map((set) => plans.filter((p) => set.includes(p.group.suffix)).map((p) => p.index));
    this.anchors = anchors ?? [...plans[0].optionsByAnchor.keys()].filter((a) => plans.every((p) => p.optionsByAnchor.has(a))).sort((a, b) => a - b);
  }

  /** Walks on for about `budget` steps; true once every anchor is done or `wanted` candidates are kept. */
  run(budget: number): boolean {
    const stop = this.steps + budget;
    while (this.steps < stop) {
      if (this.options === null) {
        if (this.next >= this.anchors.length) return true;
        this.start(this.anchors[this.next++]);
        continue;
      }
      if (!this.step()) return true;
    }
    return false;
  }

  private start(anchor: number) {
    this.anchor = anchor;
    this.options = this.layout.optionsAt(anchor);
    const unsuffixed = this.plans.find((p) => p.group.suffix === '' && p.fullMask !== 0);
    this.reach = unsuffixed && this.options ? reachOf(unsuffixed, unsuffixed.optionsByAnchor.get(anchor)!) : null;
    this.level = 0;
    this.cursor.fill(-1);
    this.applied.fill(false);
    this.sums.clear();
  }

  /** One move of the walk: the next pick at the current level, or back up; false once `wanted` candidates are kept and another exists. */
  private step(): boolean {
    this.steps++;
    const options = this.options!;
    const level = this.level;
    if (this.applied[level]) this.unpick(level);
    const at = ++this.cursor[level];
    if (at >= options[level].length) {
      this.cursor[level] = -1;
      if (level === 0) this.options = null;
      else this.level--;
      return true;
    }
    if (!this.pick(level, options[level][at])) return true;
    if (level < options.length - 1) {
      this.level++;
      return true;
    }
    return this.complete();
  }

  private pick(level: number, id: number): boolean {
    const { plan, k } = this.layout.slots[level];
    if (k >= 0) {
      // The unsuffixed group: its required traits are met by its providers together.
      const mask = (level > 0 && this.layout.slots[level - 1].plan === plan ? this.masks[level - 1] : 0) | (plan.masks.get(id) ?? 0);
      if (this.reach && (mask | this.reach[k + 1]) !== plan.fullMask) return false;
      this.masks[level] = mask;
    } else if (this.isolate) {
      for (let i = 0; i < level; i++) {
        if (this.layout.slots[i].k < 0 && this.picks[i] === id) return this.refused.isolate++, false;
      }
    }
    if (plan.sharesClasses && !this.addAmounts(level, id, 1)) {
      this.addAmounts(level, id, -1);
      return this.refused.capacity++, false;
    }
    this.picks[level] = id;
    this.applied[level] = true;
    return true;
  }

  private unpick(level: number) {
    const { plan } = this.layout.slots[level];
    if (plan.sharesClasses) this.addAmounts(level, this.picks[level], -1);
    this.applied[level] = false;
  }

  /** Adds (sign 1) or removes (sign -1) the amounts a pick gives; on adding, whether the sums still fit capacity and max_unit. */
  private addAmounts(level: number, id: number, sign: 1 | -1): boolean {
    const { plan, k } = this.layout.slots[level];
    let fitsAll = true;
    const classes = k >= 0 ? [k] : plan.classIds.map((_, i) => i);
    for (const c of classes) {
      const classId = plan.classIds[c];
      const key = `${id}:${classId}`;
      const before = this.sums.get(key) ?? 0;
      const after = before + sign * plan.amounts[c];
      if (sign > 0 && before > 0) {
        const row = this.facts.classes.get(classId)!.byProvider.get(id)!;
        if (row.used + after > row.capacity || after > row.maxUnit) fitsAll = false;
      }
      if (after === 0) this.sums.delete(key);
      else this.sums.set(key, after);
    }
    return fitsAll;
  }

  /** A complete set of picks: keep it unless same_subtree, nesting (before 1.29) or a duplicate rules it out. */
  private complete(): boolean {
    const candidate: Candidate = { anchor: this.anchor, picks: this.picks.slice() };
    const { layout, facts } = this;
    for (const groups of this.subtrees) {
      if (!sameSubtree(facts.index, groups.flatMap((g) => layout.mapped(candidate, g)))) return this.refused.sameSubtree++, true;
    }
    if (this.nestedUnaware) {
      const givers = new Set(layout.givers(candidate));
      if (new Set([...givers].map((id) => facts.index.rootOf(id))).size !== givers.size) return this.refused.nested++, true;
    }
    // The same allocations reached from two anchors (sharing providers only) count once.
    if (candidate.picks.every((id) => facts.sharing.has(id))) {
      const key = candidate.picks.join(',');
      if (this.seenShared.has(key)) return true;
      this.seenShared.add(key);
    }
    if (this.found.length === this.wanted) {
      this.more = true;
      return false;
    }
    this.found.push(candidate);
    return true;
  }
}

/** Enumerates every anchor, yielding to the event loop between slices of steps. */
export async function enumerate(facts: SearchFacts, plans: GroupPlan[], wanted: number, nestedUnaware: boolean): Promise<Enumerator> {
  const enumerator = new Enumerator(facts, plans, wanted, nestedUnaware);
  while (!enumerator.run(STEPS_PER_SLICE)) await yieldToEventLoop();
  return enumerator;
}

export const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

/** Whether one of these providers has all the others below it (or is all of them). */
function sameSubtree(index: CandidateIndex, ids: number[]): boolean {
  const distinct = [...new Set(ids)];
  if (distinct.length <= 1) return true;
  const ancestors = (id: number) => {
    const chain = new Set([id]);
    for (let p = index.parentOf(id); p !== null; p = index.parentOf(p)) chain.add(p);
    return chain;
  };
  let common = ancestors(distinct[0]);
  for (const id of distinct.slice(1)) {
    const mine = ancestors(id);
    common = new Set([...common].filter((a) => mine.has(a)));
  }
  return distinct.some((id) => common.has(id));
}

/** Runs a search: plan the groups, enumerate, then answer with the summaries of the trees used. */
export async function search(db: Db, request: SearchRequest, maxCandidates: number): Promise<CandidatesFound> {
  const index = CandidateIndex.of(db);
  const facts = new SearchFacts(index, request);
  let plans: GroupPlan[];
  try {
    plans = planGroups(facts);
  } catch (error) {
    if (error instanceof NothingFound) return { kind: 'candidates', count: 0, truncated: false, allocationRequests: [], providerSummaries: [] };
    throw error;
  }
  const nestedUnaware = request.minor < 29 && index.hasTrees();
  const limit = request.limit ?? Infinity;
  // Before 1.29 (with trees) the summaries keep only providers some candidate uses: that needs all of them.
  // A negative limit (int() of the first of repeated `limit` parameters) drops that many from the
  // end, as Python's list[:limit] does: it needs every candidate, up to the maximum.
  const wanted = nestedUnaware || limit < 0 ? maxCandidates : Math.min(limit, maxCandidates);
  const { found, more, layout } = await enumerate(facts, plans, wanted, nestedUnaware);
  if (found.length > STEPS_PER_SLICE) await yieldToEventLoop();
  const truncated = more && (limit > maxCandidates || limit < 0);
  return answer(facts, layout, found.slice(0, Math.min(limit, maxCandidates)), nestedUnaware ? found : null, truncated);
}

/** The answer: allocation requests and the summaries of every provider of the trees they use. */
function answer(facts: SearchFacts, layout: Layout, returned: Candidate[], everyCandidate: Candidate[] | null, truncated: boolean): CandidatesFound {
  const { index, request, sharing } = facts;
  const { plans } = layout;
  // A provider's root is the anchor, unless it is a sharing provider (maybe of another tree).
  const rootOf = (id: number, anchor: number) => (sharing.has(id) ? index.rootOf(id) : anchor);
  const roots = new Set<number>();
  for (const candidate of returned) for (const id of layout.givers(candidate)) roots.add(rootOf(id, candidate.anchor));
  const trees = treesFor(index, [...roots]);
  // Providers of resourceless groups may sit outside the trees giving resources.
  const mapped = new Set<number>();
  plans.forEach((plan, g) => {
    if (!plan.classIds.length) for (const candidate of returned) for (const id of layout.mapped(candidate, g)) mapped.add(id);
  });
  const outside = [...mapped].filter((id) => !trees.byId.has(id));
  const rowOf = new Map<number, ProviderRow>(outside.length ? providersById(index.db, outside).map((r) => [r.id, r]) : []);
  const shape = new AnswerShape(layout, (id) => trees.byId.get(id) ?? rowOf.get(id)!);
  const allocationRequests: CandidateRequest[] = returned.map((candidate) => new AllocationRequestView(shape, candidate));

  // Before 1.29 (with trees), summaries list only providers some candidate allocates from.
  let used: Set<number> | null = null;
  if (everyCandidate) {
    used = new Set();
    for (const candidate of everyCandidate) for (const id of layout.givers(candidate)) used.add(id);
  }
  const requested = request.minor < 27 ? new Set(plans.flatMap((p) => p.classIds)) : null;
  const providerSummaries: ProviderSummary[] = [];
  for (const root of [...roots].sort((a, b) => a - b)) {
    for (const row of trees.byRoot.get(root) ?? []) {
      if (used && !used.has(row.id)) continue;
      if (!requested) {
        providerSummaries.push(summaryOf(trees, row));
        continue;
      }
      const resources = (trees.inventories.get(row.id) ?? []).filter((inv) => requested.has(inv.classId));
      providerSummaries.push({ ...summaryOf(trees, row), resources });
    }
  }
  return { kind: 'candidates', count: allocationRequests.length, truncated, allocationRequests, providerSummaries };
}

/** Builds the pieces of allocation requests from candidates. */
export class AnswerShape {
  private readonly merged = new Map<string, ResourceAmount>();

  constructor(
    private readonly layout: Layout,
    private readonly rowOf: (id: number) => ProviderRow,
  ) {}

  allocations(candidate: Candidate): CandidateAllocation[] {
    const { layout, rowOf } = this;
    const { picks } = candidate;
    // One group whose classes all come from one provider: the common case.
    if (layout.plans.length === 1 && layout.mapped(candidate, 0).length === 1) return [{ provider: rowOf(picks[0]), resources: layout.plans[0].resourceAmounts }];
    const ids: number[] = [];
    const lists: ResourceAmount[][] = [];
    const { plans } = layout;
    for (let g = 0; g < plans.length; g++) {
      const amounts = plans[g].resourceAmounts;
      for (let k = 0; k < amounts.length; k++) {
        const id = layout.giver(candidate, g, k);
        const at = ids.indexOf(id);
        if (at < 0) {
          ids.push(id);
          lists.push([amounts[k]]);
          continue;
        }
        const list = lists[at];
        // A class already taken from this provider comes from another group: the amounts add up.
        const same = plans[g].sharesClasses ? list.findIndex((r) => r.resourceClass === amounts[k].resourceClass) : -1;
        if (same < 0) list.push(amounts[k]);
        else list[same] = this.sum(list[same], amounts[k]);
      }
    }
    const allocations: CandidateAllocation[] = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) allocations[i] = { provider: rowOf(ids[i]), resources: lists[i] };
    return allocations;
  }

  mappings(candidate: Candidate): CandidateMapping[] {
    const { plans } = this.layout;
    const mappings: CandidateMapping[] = new Array(plans.length);
    for (let g = 0; g < plans.length; g++) mappings[g] = { suffix: plans[g].group.suffix, providers: this.layout.mapped(candidate, g).map(this.rowOf) };
    return mappings;
  }

  /** Amounts of one class that two groups take from one provider, added up. */
  private sum(a: ResourceAmount, b: ResourceAmount): ResourceAmount {
    const amount = a.amount + b.amount;
    const key = `${a.resourceClass}:${amount}`;
    let value = this.merged.get(key);
    if (!value) this.merged.set(key, (value = { resourceClass: a.resourceClass, amount }));
    return value;
  }
}

/**
 * An allocation request whose allocations and mappings are made when first read: GraphQL copies them
 * into its answer right away, so for large answers they are made late and let go early.
 */
class AllocationRequestView implements CandidateRequest {
  private made: CandidateRequest | null = null;

  constructor(
    private readonly shape: AnswerShape,
    private readonly candidate: Candidate,
  ) {}

  // Compiled GraphQL reads a field several times (null check, error check, value): make it once.
  private get pieces(): CandidateRequest {
    return (this.made ??= { allocations: this.shape.allocations(this.candidate), mappings: this.shape.mappings(this.candidate) });
  }

  get allocations(): CandidateAllocation[] {
    return this.pieces.allocations;
  }

  get mappings(): CandidateMapping[] {
    return this.pieces.mappings;
  }

  toJSON(): CandidateRequest {
    return this.pieces;
  }
}

/** A provider's summary, made once per tree catalog. */
function summaryOf(trees: TreeCatalog, row: ProviderRow): ProviderSummary {
  let summary = trees.summaries.get(row.id);
  if (!summary) {
    summary = {
      provider: row,
      parentUuid: row.parentId === null ? null : trees.byId.get(row.parentId)!.uuid,
      rootUuid: trees.byId.get(row.rootId)!.uuid,
      resources: trees.inventories.get(row.id) ?? [],
      traits: trees.traits.get(row.id) ?? [],
    };
    trees.summaries.set(row.id, summary);
  }
  return summary;
}

/** Providers, inventories and traits of the trees of an answer: from the index, or read for a few trees. */
function treesFor(index: CandidateIndex, roots: number[]): TreeCatalog {
  if (index.hasCatalog()) return index.trees();
  if (roots.length <= FEW_TREES) return readTrees(index.db, roots);
  // The data may have changed during a long search: then read fresh rows rather than fill a stale index.
  return index.isCurrent() ? index.trees() : readTrees(index.db, roots);
}
