// Headroom's solver: the most instances of a tree's patterns on some free capacity, by a depth-first
// branch and bound whose bounds are per-class capacity/amount ratios.
import type { ClassDemand, Keys, ReachSums, TreeWork } from './capacity.headroom.types.js';

/** Branch-and-bound nodes per tree at most; beyond, the best count found stands, bounded by the ratios. */
const NODES_PER_TREE = 20_000;

/** Adds (sign 1) or takes away (sign -1) the demand of a tree's counts. */
export function addCounts(tree: TreeWork, into: number[], sign: 1 | -1) {
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

export function addReach(k: number, free: number, keys: Keys, demands: ClassDemand[], into: ReachSums, sign: 1 | -1) {
  const pos = keys.classPos[k];
  const f = Math.max(0, free);
  into.sums[pos] += sign * f;
  into.pieces[pos] += sign * Math.floor(f / demands[pos].minPiece);
}

export function boundOf({ sums, pieces }: ReachSums, demands: ClassDemand[]): number {
  let bound = Infinity;
  demands.forEach((d, pos) => {
    bound = Math.min(bound, Math.floor(sums[pos] / d.total), Math.floor(pieces[pos] / d.pieces.length));
  });
  return bound;
}

/** The most instances of the tree's patterns on `free`: branch and bound, largest counts first. */
export function solveTree(tree: TreeWork, free: number[], keys: Keys, demands: ClassDemand[]) {
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
