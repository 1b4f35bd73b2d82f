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
import { AnswerShape, type Candidate, CandidateIndex, type CandidateRequest, type CandidatesRequestInput, type CapacityRow, type ClassInventories, Enumerator, fromInput, type GroupPlan, Layout, planGroups, providersById, SearchFacts, type SearchRequest, yieldToEventLoop } from '../candidates/index.js';
import { changesBetween, dataVersion, usageOnly, type DataVersion } from '../../db/changes.js';
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
  /** The keys its candidates use (each once). */
  usedKeys: number[];
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

/**
 * What the solve of each request leaves for the next one (the newest, per request): its plans, keys and
 * every tree solved alone. When only usage changed since, on this connection, and the providers written
 * are known (usageOnly), only the trees those providers are in reach of are planned, listed and
 * solved again; the other trees' figures are those of the last solve (a tree's candidates and count
 * depend only on its own providers and the sharing providers anchored at it). Anything else: all again.
 */
const states = new WeakMap<Db, Map<string, Promise<SolveState | null>>>();

interface SolveState {
  version: DataVersion;
  plans: GroupPlan[];
  demands: ClassDemand[];
  posOf: Map<number, number>;
  keys: Keys;
  /** Roots where every group has options, in order. */
  anchors: number[];
  /** Each anchor's tree, solved alone on the free capacity of `version`. */
  trees: Map<number, TreeWork>;
  /**
   * Keys of sharing providers (the only ones candidates of several trees can use): the trees whose
   * candidates use each, and what their solutions alone take of it.
   */
  users: Map<number, { roots: Set<number>; taken: number }>;
  /** The keys some tree's options reach (how many trees), and their free capacity summed per class. */
  reach: Map<number, number>;
  reachSums: ReachSums;
}

/** How many more instances of a request fit. Bad requests throw RequestRefused (Placement's status and message). */
export function headroom(db: Db, input: CandidatesRequestInput): Promise<HeadroomResult> {
  const version = dataVersion(db);
  let kept = answers.get(db);
  if (!kept || !changesBetween(db, kept.version, version).none) answers.set(db, (kept = { version, byRequest: new Map() }));
  const key = JSON.stringify({ ...input, limit: null });
  let answer = kept.byRequest.get(key);
  if (!answer) {
    if (kept.byRequest.size >= KEPT_ANSWERS) kept.byRequest.clear();
    answer = solve(db, input, key);
    kept.byRequest.set(key, answer);
    const byRequest = kept.byRequest;
    answer.catch(() => byRequest.delete(key));
  }
  return answer;
}

function solve(db: Db, input: CandidatesRequestInput, key: string): Promise<HeadroomResult> {
  let byRequest = states.get(db);
  if (!byRequest) states.set(db, (byRequest = new Map()));
  const previous = byRequest.get(key);
  if (!previous && byRequest.size >= KEPT_ANSWERS) byRequest.clear();
  let result!: Promise<HeadroomResult>;
  // The states of one request are made one after the other: each starts from the one before.
  const state = (async () => {
    const prior = previous ? await previous.catch(() => null) : null;
    const out = await advance(db, input, prior);
    result = Promise.resolve(out.result);
    return out.state;
  })();
  byRequest.set(key, state);
  state.catch(() => byRequest.get(key) === state && byRequest.delete(key));
  return state.then(() => result);
}

async function advance(db: Db, input: CandidatesRequestInput, prior: SolveState | null): Promise<{ state: SolveState; result: HeadroomResult }> {
  const request = { ...fromInput(input), limit: null };
  const index = CandidateIndex.of(db);
  const facts = new SearchFacts(index, request);
  const touched = prior && usageOnly(changesBetween(db, prior.version, index.version));
  let state: SolveState;
  if (prior && touched) {
    // The trees the written providers are in reach of: their own, and every anchor of a sharing one.
    const links = index.providerLinks();
    const roots = new Set<number>();
    for (const id of touched) {
      const link = links.get(id);
      if (link) roots.add(link[0]);
      if (facts.sharing.has(id)) for (const anchor of facts.anchorsOf(id)) roots.add(anchor);
    }
    // Their options, planned on their own providers and the sharing ones (what options there come from).
    const part = new FactsWithin(index, request, roots);
    for (const [classId, inventories] of facts.classes) part.classes.set(classId, rowsWithin(inventories, touched, roots, facts.sharing));
    const partPlans = planGroups(part);
    const plans = prior.plans.map((plan, i) => {
      const optionsByAnchor = new Map(plan.optionsByAnchor);
      for (const root of roots) {
        const options = partPlans[i].optionsByAnchor.get(root);
        if (options) optionsByAnchor.set(root, options);
        else optionsByAnchor.delete(root);
      }
      return { ...plan, masks: partPlans[i].masks, optionsByAnchor };
    });
    const { keys, demands, trees } = prior;
    // The free capacity of the written providers' keys, as now.
    const classCount = Math.max(1, demands.length);
    for (const id of touched) {
      demands.forEach((d, pos) => {
        const k = keys.index.get(id * classCount + pos);
        if (k === undefined) return;
        const reached = prior.reach.has(k);
        if (reached) addReach(k, keys.free[k], keys, demands, prior.reachSums, -1);
        keys.free[k] = freeOf(facts, id, d.classId);
        if (reached) addReach(k, keys.free[k], keys, demands, prior.reachSums, 1);
      });
    }
    for (const root of roots) {
      const tree = trees.get(root);
      if (!tree) continue;
      trees.delete(root);
      countUsers(tree, keys, facts.sharing, prior, -1);
    }
    const anchors = prior.anchors.filter((a) => !roots.has(a));
    for (const root of roots) if (plans.length && plans.every((p) => p.optionsByAnchor.has(root))) anchors.push(root);
    state = { ...prior, version: index.version, plans, anchors: anchors.sort((a, b) => a - b) };
  } else {
    // Not strict: a group satisfied nowhere leaves no anchor (the search would stop there with no candidate).
    const plans = planGroups(facts);
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
    const anchors = plans.length ? [...plans[0].optionsByAnchor.keys()].filter((a) => plans.every((p) => p.optionsByAnchor.has(a))).sort((a, b) => a - b) : [];
    state = { version: index.version, plans, demands, posOf, keys: new Keys(Math.max(1, demands.length)), anchors, trees: new Map(), users: new Map(), reach: new Map(), reachSums: { sums: demands.map(() => 0), pieces: demands.map(() => 0) } };
  }
  return { state, result: await finish(db, facts, state) };
}

/** A search's facts for planning some trees only: a sharing provider is anchored at those of them it serves. */
class FactsWithin extends SearchFacts {
  constructor(
    index: CandidateIndex,
    request: SearchRequest,
    private readonly roots: Set<number>,
  ) {
    super(index, request);
  }

  override anchorsOf(id: number): number[] {
    return super.anchorsOf(id).filter((anchor) => this.roots.has(anchor));
  }
}

/** A class's rows in some trees and the sharing providers' (kept for the other requests asking after the same write). */
const within = new WeakMap<ClassInventories, { touched: Set<number>; rows: ClassInventories }>();
function rowsWithin(inventories: ClassInventories, touched: Set<number>, roots: Set<number>, sharing: Map<number, number>): ClassInventories {
  const known = within.get(inventories);
  if (known && known.touched.size === touched.size && [...touched].every((id) => known.touched.has(id))) return known.rows;
  const rows: CapacityRow[] = [];
  for (const r of inventories.rows) if (roots.has(r.rootId) || sharing.has(r.id)) rows.push(r);
  const part = { rows, byProvider: inventories.byProvider };
  within.set(inventories, { touched, rows: part });
  return part;
}

/** The free capacity of a provider's inventory of a class (0 without one). */
function freeOf(facts: SearchFacts, provider: number, classId: number): number {
  const row = facts.classes.get(classId)?.byProvider.get(provider);
  return row ? Math.max(0, row.capacity - row.used) : 0;
}

/** Adds (sign 1) or takes away (sign -1) a tree solved alone from the users of sharing providers' keys. */
function countUsers(tree: TreeWork, keys: Keys, sharing: Map<number, number>, state: SolveState, sign: 1 | -1) {
  const { users, reach, reachSums, demands } = state;
  for (const k of new Set(tree.reach)) {
    const n = (reach.get(k) ?? 0) + sign;
    if (n === 0 || (n === 1 && sign > 0)) addReach(k, keys.free[k], keys, demands, reachSums, sign);
    if (n) reach.set(k, n);
    else reach.delete(k);
  }
  for (const k of tree.usedKeys) {
    if (!sharing.has(keys.provider[k])) continue;
    let user = users.get(k);
    if (!user) users.set(k, (user = { roots: new Set(), taken: 0 }));
    if (sign > 0) user.roots.add(tree.root);
    else user.roots.delete(tree.root);
  }
  tree.counts.forEach((n, i) => {
    if (!n) return;
    const p = tree.patterns[i];
    p.keys.forEach((k, j) => {
      const user = users.get(k);
      if (user) user.taken += sign * n * p.amounts[j];
    });
  });
}

/** Where a value is in a sorted list of distinct numbers. */
function sortedIndex(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Lists and solves alone the trees the state lacks, then puts every tree together: the request's headroom. */
async function finish(db: Db, facts: SearchFacts, state: SolveState): Promise<HeadroomResult> {
  const { plans, demands, posOf, keys, anchors, users } = state;
  const layout = new Layout(plans);
  const rowOf = (provider: number, classId: number) => facts.classes.get(classId)?.byProvider.get(provider);
  const keyOf = (provider: number, pos: number) => keys.of(provider, pos, () => freeOf(facts, provider, demands[pos].classId));

  const alone: TreeWork[] = new Array(anchors.length);
  let slice = 0;
  for (let i = 0; i < anchors.length; i++) {
    let tree = state.trees.get(anchors[i]);
    if (!tree) {
      if (++slice % TREES_PER_SLICE === 0) await yieldToEventLoop();
      tree = listPatterns(facts, plans, layout, anchors[i], keyOf, posOf, rowOf);
      // Each tree alone, on today's free capacity.
      solveTree(tree, keys.free, keys, demands);
      state.trees.set(anchors[i], tree);
      countUsers(tree, keys, facts.sharing, state, 1);
    }
    alone[i] = tree;
  }

  // Together: inventories several trees use may be overrun by the solutions added up.
  const trees = alone.slice();
  const free = keys.free;
  // Inventories several trees use, the trees using them (in order), and whether their solutions overrun one.
  const coupledRoots = new Set<number>();
  let overrun = false;
  for (const [k, user] of users) {
    if (user.roots.size < 2) continue;
    for (const root of user.roots) coupledRoots.add(root);
    if (user.taken > free[k]) overrun = true;
  }
  const coupledAt = [...coupledRoots].map((root) => sortedIndex(anchors, root)).sort((a, b) => a - b);
  if (overrun) {
    const coupledSet = new Set(coupledAt);
    const left = free.slice();
    trees.forEach((tree, i) => coupledSet.has(i) || addCounts(tree, left, -1));
    for (const i of coupledAt) {
      // Solved again on what the earlier ones leave, on a copy: the tree alone is kept for the next solve.
      const tree: TreeWork = { ...alone[i] };
      solveTree(tree, left, keys, demands);
      addCounts(tree, left, -1);
      // The tree's own bound stays the one found alone (it is proven only if nothing was lost).
      tree.atMost = alone[i].atMost;
      tree.proven = alone[i].proven && tree.fits === alone[i].fits;
      trees[i] = tree;
    }
  }

  // What the plan leaves, made when asked (on the free capacity of now: the next solve changes `free`).
  const freeNow = free.slice();
  let leftAfter: number[] | null = null;
  const after = () => {
    if (!leftAfter) {
      leftAfter = freeNow.slice();
      for (const tree of trees) addCounts(tree, leftAfter, -1);
    }
    return leftAfter;
  };
  // A candidate Placement would still list (though its PUT refuses it) leaves the count unproven.
  const leftover = trees.map((t) => t.refused.length > 0 && t.refused.some((p) => p.keys.every((k, i) => after()[k] >= p.amounts[i])));

  let fits = 0;
  let atMost = 0;
  for (const t of trees) {
    fits += t.fits;
    atMost += t.proven ? t.fits : t.atMost;
  }
  if (coupledAt.length) atMost = Math.min(atMost, Math.max(fits, boundOf(state.reachSums, demands)));
  const coupled = new Set(coupledAt);
  let treeResults: TreeHeadroom[] | null = null;
  let stranded: StrandedClass[] | null = null;

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
  return {
    fits,
    atMost: Math.max(fits, atMost),
    exact: fits === Math.max(fits, atMost) && !leftover.some(Boolean),
    sharing: coupledAt.length > 0,
    // Made when asked: a dashboard asks for the counts only.
    get trees() {
      return (treeResults ??= trees.map((t, i) => ({
        root: t.root,
        fits: t.fits,
        atMost: t.proven ? t.fits : Math.max(t.fits, t.atMost),
        exact: t.proven && !leftover[i],
        shares: coupled.has(i),
      })));
    },
    get stranded() {
      return (stranded ??= strandedAfter(facts, plans, demands, keys, after()));
    },
    plan,
  };
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
  return { root: anchor, patterns, listed, refused, reach: [...reach], counts: patterns.map(() => 0), fits: 0, atMost: 0, proven: false, usedKeys: usedKeysOf(patterns) };
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
  return { root: anchor, patterns, listed: true, refused: [], reach, counts: patterns.map(() => 0), fits: 0, atMost: 0, proven: false, usedKeys: usedKeysOf(patterns) };
}

const usedKeysOf = (patterns: Pattern[]) => [...new Set(patterns.flatMap((p) => p.keys))];

/** Adds (sign 1) or takes away (sign -1) the demand of a tree's counts. */
function addCounts(tree: TreeWork, into: number[], sign: 1 | -1) {
  const { counts, patterns } = tree;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i];
    if (!n) continue;
    const { keys, amounts } = patterns[i];
    for (let j = 0; j < keys.length; j++) into[keys[j]] += sign * n * amounts[j];
  }
}

/**
 * Instances at most, by class: the free capacity reachable over what one instance asks in all, and
 * the pieces that fit whole on each inventory over the pieces one instance has.
 */
function ratioBound(reach: readonly number[], free: number[], keys: Keys, demands: ClassDemand[]): number {
  const sums = demands.map(() => 0);
  const pieces = demands.map(() => 0);
  for (const k of reach) addReach(k, free[k], keys, demands, { sums, pieces }, 1);
  return boundOf({ sums, pieces }, demands);
}

/** Free capacity and whole pieces per class over some keys. */
interface ReachSums {
  sums: number[];
  pieces: number[];
}

function addReach(k: number, free: number, keys: Keys, demands: ClassDemand[], into: ReachSums, sign: 1 | -1) {
  const pos = keys.classPos[k];
  const f = Math.max(0, free);
  into.sums[pos] += sign * f;
  into.pieces[pos] += sign * Math.floor(f / demands[pos].minPiece);
}

function boundOf({ sums, pieces }: ReachSums, demands: ClassDemand[]): number {
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
      // A key made after `after` (by a later solve) was used by no tree of this one.
      const now = k === undefined || k >= after.length ? before : after[k];
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
