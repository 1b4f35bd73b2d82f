// Headroom's answer: every tree listed and solved alone (once per state), then put together; where
// sharing providers couple trees and their solutions overrun a shared inventory, those trees are solved
// again one after the other on what the earlier ones leave.
import type { Db } from '../../db/client.js';
import { AnswerShape, type Candidate, type CandidateRequest, Layout, providersById, type SearchFacts, yieldToEventLoop } from '../candidates/index.js';
import type { ProviderRow } from '../providers/providers.service.js';
import { listPatterns } from './capacity.headroom.patterns.js';
import { addCounts, addReach, boundOf, solveTree } from './capacity.headroom.solve.js';
import { strandedAfter } from './capacity.headroom.stranded.js';
import type { HeadroomResult, Keys, SolveState, StrandedClass, TreeHeadroom, TreeWork } from './capacity.headroom.types.js';

/** Trees handled between two yields to the event loop. */
const TREES_PER_SLICE = 500;

/** The free capacity of a provider's inventory of a class (0 without one). */
export function freeOf(facts: SearchFacts, provider: number, classId: number): number {
  const row = facts.classes.get(classId)?.byProvider.get(provider);
  return row ? Math.max(0, row.capacity - row.used) : 0;
}

/** Adds (sign 1) or takes away (sign -1) a tree solved alone from the users of sharing providers' keys. */
export function countUsers(tree: TreeWork, keys: Keys, sharing: Map<number, number>, state: SolveState, sign: 1 | -1) {
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
export async function finish(db: Db, facts: SearchFacts, state: SolveState): Promise<HeadroomResult> {
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
