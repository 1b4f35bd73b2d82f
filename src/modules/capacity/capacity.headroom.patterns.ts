// Headroom's listing: the distinct candidates of one tree as patterns of demand per (provider, class),
// from the candidate search's enumerator (or directly, for the common one-group request).
import { Enumerator, type GroupPlan, type Layout, type SearchFacts } from '../candidates/index.js';
import { fitsUnits } from '../../rules/capacity.js';
import type { Pattern, TreeWork } from './capacity.headroom.types.js';

/** Candidates listed per tree at most (distinct demands kept); beyond, the tree's count is not proven. */
const PATTERNS_PER_TREE = 512;
/** Enumeration steps per tree at most. */
const STEPS_PER_TREE = 50_000;

/** The distinct candidates of one tree as demands (PUT-refused ones apart), and the keys its options reach. */
export function listPatterns(
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
