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
//
// This file keeps answers and solve states per database and redoes only the trees a write of usage
// reaches; the stages are apart: listing a tree's patterns (capacity.headroom.patterns.ts), the branch
// and bound (.solve.ts), putting the trees together into the answer (.result.ts), stranded capacity
// (.stranded.ts), and the shapes they share (.types.ts).
import type { Db } from '../../db/client.js';
import { CandidateIndex, type CandidatesRequestInput, type CapacityRow, type ClassInventories, fromInput, planGroups, SearchFacts, type SearchRequest } from '../candidates/index.js';
import { changesBetween, dataVersion, usageOnly, type DataVersion } from '../../db/changes.js';
import { finish, countUsers, freeOf } from './capacity.headroom.result.js';
import { addReach } from './capacity.headroom.solve.js';
import { Keys, type ClassDemand, type HeadroomResult, type SolveState } from './capacity.headroom.types.js';

export { STRANDED_REASONS } from './capacity.headroom.stranded.js';
export type { HeadroomResult, StrandedClass, StrandedPart, StrandedReason, TreeHeadroom } from './capacity.headroom.types.js';

/** Answers kept per database while the data does not change (a dashboard asks the same flavors again and again). */
const answers = new WeakMap<Db, { version: DataVersion; byRequest: Map<string, Promise<HeadroomResult>> }>();
const KEPT_ANSWERS = 200;

/**
 * What the solve of each request leaves for the next one (the newest, per request): its plans, keys and
 * every tree solved alone. When only usage changed since (whoever wrote it) and the providers written
 * are known (usageOnly), only the trees those providers are in reach of are planned, listed and
 * solved again; the other trees' figures are those of the last solve (a tree's candidates and count
 * depend only on its own providers and the sharing providers anchored at it). Anything else: all again.
 */
const states = new WeakMap<Db, Map<string, Promise<SolveState | null>>>();

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
