// Headroom: how many more instances of one allocation-candidate request can be placed together on the
// free capacity of today, with a plan that realises the count and a proven upper bound.
//
// The candidate search's own plans say, per tree (anchor), which providers may give each group; its
// enumerator lists every candidate of one tree. Each distinct candidate is a pattern: a demand per
// (provider, class). Placing instances only raises usage, so the patterns valid later are among those
// valid now, and "how many fit" on a tree is: maximise the number of patterns taken (with repetition)
// whose summed demand stays within each inventory's free capacity. That is solved per tree by a
// depth-first branch and bound whose bounds are per-class capacity/amount ratios; when it ends, the
// count is proven. Trees are independent except through sharing providers: each tree is first solved
// alone (an upper bound for it); when the solutions together overrun a shared inventory, the trees
// using it are solved again one after the other on what the earlier ones leave, and the total is then
// bounded by the classes' capacity/amount ratios over the whole cloud (exact only when they meet).
import type { Db } from '../../db/client.js';
import { CandidateIndex } from '../candidates/candidates.index.js';
import { fromInput } from '../candidates/candidates.request.js';
import { SearchFacts, type GroupPlan } from '../candidates/candidates.facts.js';
import { planGroups } from '../candidates/candidates.plan.js';
import { Enumerator, Layout, yieldToEventLoop, type Candidate } from '../candidates/candidates.enumerate.js';
import { AnswerShape } from '../candidates/candidates.answer.js';
import { changeSince, dataVersion, providersById, type DataVersion } from '../candidates/candidates.data.js';
import type { CandidateRequest, CandidatesRequestInput } from '../candidates/candidates.types.js';
import type { ProviderRow } from '../providers/providers.service.js';
import { fitsUnits } from '../../rules/capacity.js';

/** Candidates listed per tree at most (distinct demands kept); beyond, the tree's count is not proven. */
const PATTERNS_PER_TREE = 512;
/** Enumeration steps per tree at most. */
const STEPS_PER_TREE = 50_000;
/** Branch-and-bound nodes per tree at most; beyond, the best count found stands, bounded by the ratios. */
const NODES_PER_TREE = 20_000;
/** Trees handled between two yields to the event loop. */
const TREES_PER_SLICE = 500;

export type StrandedReason = 'OTHER_CLASS' | 'TOO_SMALL' | 'MAX_UNIT' | 'MIN_UNIT' | 'STEP_SIZE' | 'NOT_ELIGIBLE';

export const STRANDED_REASONS: Record<StrandedReason, string> = {
  OTHER_CLASS: 'enough is free, but another class or group of the request is exhausted on that tree',
  TOO_SMALL: 'less is free than one instance asks',
  MAX_UNIT: "the amount asked is above the inventory's max_unit",
  MIN_UNIT: "the amount asked is below the inventory's min_unit",
  STEP_SIZE: "the amount asked is not a multiple of the inventory's step_size",
  NOT_ELIGIBLE: 'the provider is ruled out by traits, aggregates, root or tree filters, or its tree lacks another class asked',
};

export interface StrandedPart {
  reason: StrandedReason;
  amount: number;
  providerCount: number;
}

/** Free capacity of one class that no further instance of the request can use, once `fits` are placed. */
export interface StrandedClass {
  resourceClass: string;
  /** Free before the placements (inventories of this class in reach of the request's classes). */
  free: number;
  /** Free left after placing `fits` instances. */
  left: number;
  /** What is left, all of it stranded, by reason. */
  reasons: StrandedPart[];
}

/** Count of one tree (the anchor of the request's candidates). */
export interface TreeHeadroom {
  root: number;
  fits: number;
  atMost: number;
  exact: boolean;
  /** Whether some candidate of this tree uses a provider that candidates of other trees use too. */
  shares: boolean;
}

export interface HeadroomResult {
  fits: number;
  atMost: number;
  exact: boolean;
  /** Whether sharing providers couple trees (their figures are bounded, not solved together). */
  sharing: boolean;
  trees: TreeHeadroom[];
  stranded: StrandedClass[];
  /** The first `first` allocation requests of the plan, in order (each valid on what the earlier ones leave). */
  plan(first?: number): CandidateRequest[];
}

interface Pattern {
  candidate: Candidate;
  /** Global key indices (provider x class) and the amount of each. */
  keys: number[];
  amounts: number[];
}

interface TreeWork {
  root: number;
  patterns: Pattern[];
  /** Whether the enumeration listed every candidate of the tree. */
  listed: boolean;
  /** Candidates Placement lists that its PUT /allocations refuses (summed amounts against min_unit or step_size). */
  refused: Pattern[];
  /** Keys the tree's options reach (for its bound): key -> class position. */
  reach: number[];
  counts: number[];
  fits: number;
  atMost: number;
  proven: boolean;
  /** Whether a candidate PUT refuses still fits after the plan (Placement would still list it). */
  leftover: boolean;
}

/** What a request asks per class: the total per instance and the pieces (one per group asking it). */
interface ClassDemand {
  classId: number;
  name: string;
  total: number;
  pieces: number[];
  minPiece: number;
}

class Keys {
  readonly index = new Map<number, number>();
  readonly provider: number[] = [];
  readonly classPos: number[] = [];
  readonly free: number[] = [];

  constructor(private readonly classCount: number) {}

  of(provider: number, classPos: number, free: () => number): number {
    const id = provider * this.classCount + classPos;
    let k = this.index.get(id);
    if (k === undefined) {
      k = this.provider.length;
      this.index.set(id, k);
      this.provider.push(provider);
      this.classPos.push(classPos);
      this.free.push(free());
    }
    return k;
  }
}

/** Answers kept per database while the data does not change (a dashboard asks the same flavors again and again). */
const answers = new WeakMap<Db, { version: DataVersion; byRequest: Map<string, Promise<HeadroomResult>> }>();
const KEPT_ANSWERS = 200;

/** How many more instances of a request fit. Bad requests throw RequestRejected (Placement's status and message). */
export function headroom(db: Db, input: CandidatesRequestInput): Promise<HeadroomResult> {
  const version = dataVersion(db);
  let kept = answers.get(db);
  if (!kept || changeSince(kept.version, version) !== 'same') answers.set(db, (kept = { version, byRequest: new Map() }));
  const key = JSON.stringify({ ...input, limit: null });
  let answer = kept.byRequest.get(key);
  if (!answer) {
    if (kept.byRequest.size >= KEPT_ANSWERS) kept.byRequest.clear();
    answer = solve(db, input);
    kept.byRequest.set(key, answer);
    const byRequest = kept.byRequest;
    answer.catch(() => byRequest.delete(key));
  }
  return answer;
}

async function solve(db: Db, input: CandidatesRequestInput): Promise<HeadroomResult> {
  const request = { ...fromInput(input), limit: null };
  const index = CandidateIndex.of(db);
  const facts = new SearchFacts(index, request);
  // Not strict: a group satisfied nowhere leaves no anchor (the search would stop there with no candidate).
  const plans = planGroups(facts, false);
  const layout = new Layout(plans);

  // Per class asked: its total per instance and its pieces.
  const demands: ClassDemand[] = [];
  const posOf = new Map<number, number>();
  for (const plan of plans) {
    plan.classIds.forEach((classId, k) => {
      let pos = posOf.get(classId);
      if (pos === undefined) {
        posOf.set(classId, (pos = demands.length));
        demands.push({ classId, name: plan.group.resources[k][0], total: 0, pieces: [], minPiece: Infinity });
      }
      const d = demands[pos];
      d.total += plan.amounts[k];
      d.pieces.push(plan.amounts[k]);
      d.minPiece = Math.min(d.minPiece, plan.amounts[k]);
    });
  }
  const rowOf = (provider: number, classId: number) => facts.classes.get(classId)?.byProvider.get(provider);
  const keys = new Keys(Math.max(1, demands.length));
  const keyOf = (provider: number, pos: number) =>
    keys.of(provider, pos, () => {
      const row = rowOf(provider, demands[pos].classId);
      return row ? Math.max(0, row.capacity - row.used) : 0;
    });

  const anchors = plans.length ? [...plans[0].optionsByAnchor.keys()].filter((a) => plans.every((p) => p.optionsByAnchor.has(a))).sort((a, b) => a - b) : [];
  const trees: TreeWork[] = [];
  const usersOfKey = new Map<number, number>();
  let slice = 0;
  for (const anchor of anchors) {
    if (++slice % TREES_PER_SLICE === 0) await yieldToEventLoop();
    const tree = listPatterns(facts, plans, layout, anchor, keyOf, posOf, rowOf);
    for (const k of new Set(tree.patterns.flatMap((p) => p.keys))) usersOfKey.set(k, (usersOfKey.get(k) ?? 0) + 1);
    trees.push(tree);
  }

  // Each tree alone, on today's free capacity.
  const free = keys.free.slice();
  for (const tree of trees) {
    if (++slice % TREES_PER_SLICE === 0) await yieldToEventLoop();
    solveTree(tree, free, keys, demands);
  }
  // Together: inventories several trees use may be overrun by the solutions added up.
  const sharedKeys = new Set([...usersOfKey].filter(([, n]) => n > 1).map(([k]) => k));
  const coupled = trees.filter((t) => t.patterns.some((p) => p.keys.some((k) => sharedKeys.has(k))));
  const coupledSet = new Set(coupled);
  const taken = new Array<number>(free.length).fill(0);
  for (const tree of trees) addCounts(tree, taken, 1);
  if (coupled.length && sharedKeys.size && [...sharedKeys].some((k) => taken[k] > free[k])) {
    const left = free.slice();
    for (const tree of trees) if (!coupledSet.has(tree)) addCounts(tree, left, -1);
    for (const tree of coupled) {
      const alone = { fits: tree.fits, atMost: tree.atMost, proven: tree.proven };
      solveTree(tree, left, keys, demands);
      addCounts(tree, left, -1);
      // The tree's own bound stays the one found alone (it is proven only if nothing was lost).
      tree.atMost = alone.atMost;
      tree.proven = alone.proven && tree.fits === alone.fits;
    }
  }

  // What the plan leaves.
  const after = keys.free.slice();
  for (const tree of trees) addCounts(tree, after, -1);
  // A candidate Placement would still list (though its PUT refuses it) leaves the count unproven.
  for (const tree of trees) tree.leftover = tree.refused.some((p) => p.keys.every((k, i) => after[k] >= p.amounts[i]));

  const fits = trees.reduce((n, t) => n + t.fits, 0);
  let atMost = trees.reduce((n, t) => n + (t.proven ? t.fits : t.atMost), 0);
  if (coupled.length) atMost = Math.min(atMost, Math.max(fits, ratioBound([...new Set(trees.flatMap((t) => t.reach))], keys.free, keys, demands)));
  const treeResults: TreeHeadroom[] = trees.map((t) => ({
    root: t.root,
    fits: t.fits,
    atMost: t.proven ? t.fits : Math.max(t.fits, t.atMost),
    exact: t.proven && !t.leftover,
    shares: coupledSet.has(t),
  }));
  const stranded = strandedAfter(facts, plans, demands, keys, after);

  const plan = (first = fits): CandidateRequest[] => {
    const picked: Candidate[] = [];
    for (const tree of trees) {
      tree.counts.forEach((n, i) => {
        for (let c = 0; c < n && picked.length < first; c++) picked.push(tree.patterns[i].candidate);
      });
      if (picked.length >= first) break;
    }
    if (!picked.length) return [];
    const ids = [...new Set(picked.flatMap((c) => c.picks))];
    const rows = new Map<number, ProviderRow>(providersById(db, ids).map((r) => [r.id, r]));
    const s = new AnswerShape(layout, (id) => rows.get(id)!);
    return picked.map((c) => ({ allocations: s.allocations(c), mappings: s.mappings(c) }));
  };
  return { fits, atMost: Math.max(fits, atMost), exact: fits === Math.max(fits, atMost) && !trees.some((t) => t.leftover), sharing: coupled.length > 0, trees: treeResults, stranded, plan };
}

/** The distinct candidates of one tree as demands (PUT-refused ones apart), and the keys its options reach. */
function listPatterns(
  facts: SearchFacts,
  plans: GroupPlan[],
  layout: Layout,
  anchor: number,
  keyOf: (provider: number, pos: number) => number,
  posOf: Map<number, number>,
  rowOf: (provider: number, classId: number) => { minUnit: number; maxUnit: number; stepSize: number } | undefined,
): TreeWork {
  const fast = simpleTree(facts, plans, anchor, keyOf, posOf);
  if (fast) return fast;
  const enumerator = new Enumerator(facts, plans, PATTERNS_PER_TREE, false, [anchor]);
  const summing = plans.some((p) => p.sharesClasses);
  const done = enumerator.run(STEPS_PER_TREE);
  const listed = done && !enumerator.more;
  const seen = new Set<string>();
  const patterns: Pattern[] = [];
  const refused: Pattern[] = [];
  for (const candidate of enumerator.found) {
    const demand = new Map<number, number>();
    layout.slots.forEach((slot, i) => {
      const provider = candidate.picks[i];
      const ks = slot.k >= 0 ? [slot.k] : slot.plan.classIds.map((_, c) => c);
      for (const k of ks) {
        const key = keyOf(provider, posOf.get(slot.plan.classIds[k])!);
        demand.set(key, (demand.get(key) ?? 0) + slot.plan.amounts[k]);
      }
    });
    const entries = [...demand].sort((a, b) => a[0] - b[0]);
    const id = entries.map(([k, n]) => `${k}:${n}`).join(',');
    if (seen.has(id)) continue;
    seen.add(id);
    const pattern: Pattern = { candidate, keys: entries.map(([k]) => k), amounts: entries.map(([, n]) => n) };
    // An amount summed from several groups on one provider must itself pass min_unit and step_size for PUT
    // (single amounts were checked when the groups were planned).
    const putRefuses = summing && layout.slots.some((slot, i) => {
      const provider = candidate.picks[i];
      return slot.plan.classIds.some((classId) => {
        const row = rowOf(provider, classId);
        const amount = demand.get(keyOf(provider, posOf.get(classId)!));
        return row && amount !== undefined && !fitsUnits(row, amount);
      });
    });
    (putRefuses ? refused : patterns).push(pattern);
  }
  const reach = new Set<number>();
  for (const plan of plans) {
    const lists = plan.optionsByAnchor.get(anchor)!;
    if (plan.group.suffix === '') lists.forEach((ids, k) => ids.forEach((id) => reach.add(keyOf(id, posOf.get(plan.classIds[k])!))));
    else for (const id of lists[0]) plan.classIds.forEach((classId) => reach.add(keyOf(id, posOf.get(classId)!)));
  }
  return { root: anchor, patterns, listed, refused, reach: [...reach], counts: patterns.map(() => 0), fits: 0, atMost: 0, proven: false, leftover: false };
}

/**
 * The common request, one unsuffixed group without required traits or same_subtree: its candidates at a
 * tree are every choice of one provider per class (what the enumerator would list, without walking).
 */
function simpleTree(facts: SearchFacts, plans: GroupPlan[], anchor: number, keyOf: (provider: number, pos: number) => number, posOf: Map<number, number>): TreeWork | null {
  if (plans.length !== 1 || facts.request.sameSubtree.length) return null;
  const [plan] = plans;
  if (plan.group.suffix !== '' || plan.fullMask !== 0) return null;
  const lists = plan.optionsByAnchor.get(anchor)!;
  let product = 1;
  for (const ids of lists) product *= ids.length;
  if (product > PATTERNS_PER_TREE) return null;
  const pos = plan.classIds.map((classId) => posOf.get(classId)!);
  const patterns: Pattern[] = [];
  const picks = new Array<number>(lists.length).fill(0);
  const walk = (k: number) => {
    if (k === lists.length) {
      patterns.push({ candidate: { anchor, picks: picks.slice() }, keys: picks.map((id, c) => keyOf(id, pos[c])), amounts: plan.amounts });
      return;
    }
    for (const id of lists[k]) {
      picks[k] = id;
      walk(k + 1);
    }
  };
  walk(0);
  const reach: number[] = [];
  lists.forEach((ids, k) => ids.forEach((id) => reach.push(keyOf(id, pos[k]))));
  return { root: anchor, patterns, listed: true, refused: [], reach, counts: patterns.map(() => 0), fits: 0, atMost: 0, proven: false, leftover: false };
}

/** Adds (sign 1) or takes away (sign -1) the demand of a tree's counts. */
function addCounts(tree: TreeWork, into: number[], sign: 1 | -1) {
  tree.counts.forEach((n, i) => {
    if (!n) return;
    const p = tree.patterns[i];
    p.keys.forEach((k, j) => (into[k] += sign * n * p.amounts[j]));
  });
}

/**
 * Instances at most, by class: the free capacity reachable over what one instance asks in all, and
 * the pieces that fit whole on each inventory over the pieces one instance has.
 */
function ratioBound(reach: readonly number[], free: number[], keys: Keys, demands: ClassDemand[]): number {
  const sums = demands.map(() => 0);
  const pieces = demands.map(() => 0);
  for (const k of reach) {
    const pos = keys.classPos[k];
    const f = Math.max(0, free[k]);
    sums[pos] += f;
    pieces[pos] += Math.floor(f / demands[pos].minPiece);
  }
  let bound = Infinity;
  demands.forEach((d, pos) => {
    bound = Math.min(bound, Math.floor(sums[pos] / d.total), Math.floor(pieces[pos] / d.pieces.length));
  });
  return bound;
}

/** The most instances of the tree's patterns on `free`: branch and bound, largest counts first. */
function solveTree(tree: TreeWork, free: number[], keys: Keys, demands: ClassDemand[]) {
  const { patterns } = tree;
  const n = patterns.length;
  if (n <= 1 && tree.listed) {
    // No candidate, or one: as many copies as fit, nothing to search.
    const p = patterns[0];
    let m = p ? Infinity : 0;
    if (p) p.keys.forEach((k, j) => (m = Math.min(m, Math.floor(free[k] / p.amounts[j]))));
    tree.counts = p ? [Math.max(0, m)] : [];
    tree.fits = tree.atMost = Math.max(0, m);
    tree.proven = true;
    return;
  }
  const bound0 = ratioBound(tree.reach, free, keys, demands);
  const local = free;
  const x = new Array<number>(n).fill(0);
  let best = 0;
  let bestX = x.slice();
  let nodes = 0;
  let aborted = false;
  let proven = false;
  // The keys the patterns use, each with the last pattern using it: key k is in reach from i when last >= i.
  const lastUse = new Map<number, number>();
  patterns.forEach((p, i) => p.keys.forEach((k) => lastUse.set(k, i)));
  const byFirst: number[][] = Array.from({ length: n }, () => []);
  for (const [k, last] of lastUse) byFirst[last].push(k);
  const reachAt: number[][] = new Array(n + 1);
  reachAt[n] = [];
  for (let i = n - 1; i >= 0; i--) reachAt[i] = byFirst[i].length ? reachAt[i + 1].concat(byFirst[i]) : reachAt[i + 1];
  const reachFrom = (i: number) => reachAt[i];
  const copies = (i: number) => {
    const p = patterns[i];
    let m = Infinity;
    p.keys.forEach((k, j) => (m = Math.min(m, Math.floor(local[k] / p.amounts[j]))));
    return Math.max(0, m);
  };
  // The sum of each pattern's copies bounds too, but costs n per node: only for few patterns.
  const boundFrom = (i: number) => {
    let each = 0;
    if (n - i <= 16) for (let j = i; j < n; j++) each += copies(j);
    else each = Infinity;
    return Math.min(each, ratioBound(reachFrom(i), local, keys, demands));
  };
  const apply = (i: number, v: number) => {
    const p = patterns[i];
    p.keys.forEach((k, j) => (local[k] -= v * p.amounts[j]));
  };
  const walk = (i: number, count: number) => {
    if (aborted || proven) return;
    if (++nodes > NODES_PER_TREE) {
      aborted = true;
      return;
    }
    if (i === n) {
      if (count > best) {
        best = count;
        bestX = x.slice();
        if (best >= bound0) proven = true;
      }
      return;
    }
    if (count + boundFrom(i) <= best) return;
    for (let v = copies(i); v >= 0; v--) {
      apply(i, v);
      x[i] = v;
      walk(i + 1, count + v);
      apply(i, -v);
      x[i] = 0;
      if (aborted || proven) return;
    }
  };
  if (n === 1) {
    // One pattern: as many copies as fit.
    best = copies(0);
    bestX = [best];
  } else if (n) walk(0, 0);
  tree.counts = bestX;
  tree.fits = best;
  tree.proven = tree.listed && (proven || !aborted || best >= bound0);
  tree.atMost = tree.proven ? best : Math.max(best, bound0);
}

/** Free capacity of the asked classes left after the plan, with why no further instance can use it. */
function strandedAfter(facts: SearchFacts, plans: GroupPlan[], demands: ClassDemand[], keys: Keys, after: number[]): StrandedClass[] {
  // Providers in some tree's options for each class position.
  const eligible = demands.map(() => new Set<number>());
  const posOf = new Map(demands.map((d, pos) => [d.classId, pos]));
  for (const plan of plans) {
    for (const lists of plan.optionsByAnchor.values()) {
      if (plan.group.suffix === '') lists.forEach((ids, k) => ids.forEach((id) => eligible[posOf.get(plan.classIds[k])!].add(id)));
      else for (const id of lists[0]) plan.classIds.forEach((classId) => eligible[posOf.get(classId)!].add(id));
    }
  }
  return demands.map((d, pos) => {
    const parts = new Map<StrandedReason, StrandedPart>();
    let free = 0;
    let left = 0;
    for (const row of facts.classes.get(d.classId)?.rows ?? []) {
      const before = row.capacity - row.used;
      if (before <= 0) continue;
      const k = keys.index.get(row.id * Math.max(1, demands.length) + pos);
      const now = k === undefined ? before : after[k];
      free += before;
      if (now <= 0) continue;
      left += now;
      let reason: StrandedReason;
      const usable = d.pieces.filter((a) => fitsUnits(row, a));
      if (!usable.length) reason = d.pieces.every((a) => a > row.maxUnit) ? 'MAX_UNIT' : d.pieces.every((a) => a < row.minUnit) ? 'MIN_UNIT' : 'STEP_SIZE';
      else if (now < Math.min(...usable)) reason = 'TOO_SMALL';
      else if (eligible[pos].has(row.id)) reason = 'OTHER_CLASS';
      else reason = 'NOT_ELIGIBLE';
      const part = parts.get(reason) ?? { reason, amount: 0, providerCount: 0 };
      part.amount += now;
      part.providerCount++;
      parts.set(reason, part);
    }
    return { resourceClass: d.name, free, left, reasons: [...parts.values()].sort((a, b) => b.amount - a.amount) };
  });
}
