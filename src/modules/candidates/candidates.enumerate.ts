// Candidates enumerated from the plans (Placement's _merge_candidates and its checks): one provider
// per slot, anchor by anchor, lazily, with group_policy, summed capacities, same_subtree and nesting.
import { CandidateIndex } from './candidates.index.js';
import type { GroupPlan, SearchFacts } from './candidates.facts.js';
import { reachOf } from './candidates.plan.js';

/** Steps of enumeration between two yields to the event loop. */
export const STEPS_PER_SLICE = 5_000;

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

  /** The options of every slot at an anchor, or null when some group has none there (read only). */
  optionsAt(anchor: number): readonly number[][] | null {
    if (this.plans.length === 1) return this.plans[0].optionsByAnchor.get(anchor) ?? null;
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
  private options: readonly number[][] | null = null;
  private level = 0;
  private readonly cursor: number[];
  private readonly picks: number[];
  private readonly applied: boolean[];
  private readonly masks: number[];
  /** Amount summed per provider and class over the slots picked (only classes that several groups ask for). */
  private readonly sums = new Map<string, number>();
  /** The unsuffixed group's required sets its later classes could still meet (null without required traits). */
  private reach: number[] | null = null;
  /** The unsuffixed group, when it requires traits (its picks are checked against `reach`). */
  private readonly unsuffixedWithTraits: GroupPlan | undefined;
  /** Whether any provider shares (only then can two anchors reach the same allocations). */
  private readonly anySharing: boolean;

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
    this.unsuffixedWithTraits = plans.find((p) => p.group.suffix === '' && p.fullMask !== 0);
    this.anySharing = facts.sharing.size > 0;
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
    const unsuffixed = this.unsuffixedWithTraits;
    this.reach = unsuffixed && this.options ? reachOf(unsuffixed, unsuffixed.optionsByAnchor.get(anchor)!) : null;
    this.level = 0;
    // Per anchor, so without fill() and clear() (clearing a Map makes a new table even when it is empty).
    for (let i = 0; i < this.cursor.length; i++) {
      this.cursor[i] = -1;
      this.applied[i] = false;
    }
    if (this.sums.size) this.sums.clear();
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
    const { layout, facts, picks } = this;
    for (const groups of this.subtrees) {
      if (!this.inOneSubtree(groups)) return this.refused.sameSubtree++, true;
    }
    if (this.nestedUnaware) {
      const givers = new Set(layout.givers({ anchor: this.anchor, picks }));
      if (new Set([...givers].map((id) => facts.index.rootOf(id))).size !== givers.size) return this.refused.nested++, true;
    }
    // The same allocations reached from two anchors (sharing providers only) count once.
    if (this.anySharing && allIn(facts.sharing, picks)) {
      const key = picks.join(',');
      if (this.seenShared.has(key)) return true;
      this.seenShared.add(key);
    }
    if (this.found.length === this.wanted) {
      this.more = true;
      return false;
    }
    this.found.push({ anchor: this.anchor, picks: picks.slice() });
    return true;
  }

  /**
   * same_subtree for these groups: one of the providers they picked has all the others below it (or is
   * all of them). Checked on every complete set of picks, so it walks parents without allocating.
   */
  private inOneSubtree(groups: number[]): boolean {
    const { slotsOf } = this.layout;
    const { picks } = this;
    const { index } = this.facts;
    for (const g of groups) {
      for (const top of slotsOf[g]) {
        if (groups.every((h) => slotsOf[h].every((slot) => isBelowOrSelf(index, picks[slot], picks[top])))) return true;
      }
    }
    return groups.length === 0;
  }
}

/** Enumerates every anchor, yielding to the event loop between slices of steps. */
export async function enumerate(facts: SearchFacts, plans: GroupPlan[], wanted: number, nestedUnaware: boolean): Promise<Enumerator> {
  const enumerator = new Enumerator(facts, plans, wanted, nestedUnaware);
  while (!enumerator.run(STEPS_PER_SLICE)) await yieldToEventLoop();
  return enumerator;
}

export const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

/** Whether every id is a key of the map. */
function allIn(map: ReadonlyMap<number, unknown>, ids: readonly number[]): boolean {
  for (let i = 0; i < ids.length; i++) if (!map.has(ids[i])) return false;
  return true;
}

/** Whether provider id is top or somewhere below it. */
function isBelowOrSelf(index: CandidateIndex, id: number, top: number): boolean {
  for (let p: number | null = id; p !== null; p = index.parentOf(p)) if (p === top) return true;
  return false;
}
