// The wording of explanations: problems and trees in sentences, apart from the judging
// (candidates.explain.ts) that finds them.
import type { ProblemKind, CandidateProblem, TreeExplanation, ReasonCount } from './candidates.explain.types.js';

export const groupName = (suffix: string) => (suffix === '' ? 'the unsuffixed group' : `group ${suffix}`);
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** One member_of set in words: "aggregate A" or "any of aggregates A, B". */
export const aggregateSet = (set: readonly string[]) => (set.length === 1 ? `aggregate ${set[0]}` : `any of aggregates ${set.join(', ')}`);
export const traitList = (traits: readonly string[]) => `${traits.length === 1 ? 'trait' : 'traits'} ${traits.join(', ')}`;
/** Names in a sentence: "a, b and c", or the first few and how many more. */
export function nameList(names: readonly string[], most = 5): string {
  if (names.length > most) return `${names.slice(0, most).join(', ')} and ${names.length - most} more`;
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}


/** A reason in words, for all the trees it applies to (`before`: the words so far, which a capacity reason updates with the most free). */
export function describe(p: CandidateProblem, before?: string): string {
  const who = p.group === null ? '' : p.group === '' ? '' : `group ${p.group}: `;
  const traits = p.traits.join(', ');
  const text: Record<ProblemKind, () => string> = {
    NO_INVENTORY: () => (p.resourceClass ? `no provider with ${p.resourceClass}` : 'no provider can serve the group'),
    CAPACITY_EXCEEDED: () => {
      const most = Math.max(p.capacity! - p.used!, Number(before?.match(/, (-?\d+) at most$/)?.[1] ?? -Infinity));
      return `not ${p.amount} ${p.resourceClass} free on one provider, ${most} at most`;
    },
    BELOW_MIN_UNIT: () => `${p.resourceClass} ${p.amount} below min_unit`,
    ABOVE_MAX_UNIT: () => `${p.resourceClass} ${p.amount} above max_unit`,
    STEP_SIZE: () => `${p.resourceClass} ${p.amount} not a multiple of step_size`,
    REQUIRED_TRAIT_MISSING: () => `no provider with the resources has ${traits}`,
    ANY_OF_UNMET: () => `no provider with the resources has any of ${traits}`,
    FORBIDDEN_TRAIT: () => `providers with the resources have forbidden ${traits}`,
    NOT_IN_AGGREGATE: () => `not in ${aggregateSet(p.aggregates)}`,
    IN_FORBIDDEN_AGGREGATE: () => `in excluded ${aggregateSet(p.aggregates)}`,
    NOT_IN_TREE: () => 'outside the in_tree tree',
    ROOT_REQUIRED_MISSING: () => `the root lacks ${traits}, required by root_required`,
    ROOT_FORBIDDEN_PRESENT: () => `the root has ${traits}, which root_required forbids`,
    RESOURCELESS_GROUP: () => 'a group with no resources, traits or aggregates',
    ISOLATE: () => 'group_policy=isolate: too few distinct providers',
    SAME_SUBTREE: () => 'same_subtree cannot be met',
    SUMMED_CAPACITY: () => 'groups together exceed one provider',
    SHARING_ONLY: () => 'only sharing providers of other trees give the resources',
  };
  return who + text[p.kind]();
}

export function summarize(trees: TreeExplanation[], candidates: TreeExplanation[], reasons: ReasonCount[], closest: TreeExplanation[], nameOf: (id: number) => string): string {
  const parts: string[] = [];
  const others = trees.length - candidates.length;
  if (!trees.length) return 'There is no provider tree.';
  if (candidates.length) {
    parts.push(`${candidates.length} of ${plural(trees.length, 'tree')} ${candidates.length === 1 ? 'is a candidate' : 'are candidates'}: ${nameList(candidates.map((t) => nameOf(t.rootId)))}.`);
    if (others) parts.push(`The other ${others} ${others === 1 ? 'is' : 'are'} not:`);
  } else parts.push(`No tree is a candidate (${plural(trees.length, 'tree')} explained). Why:`);
  // Reasons of the very same trees (e.g. two classes missing) are told together.
  const byTrees = new Map<string, ReasonCount[]>();
  for (const r of reasons) {
    const key = r.rootIds.join();
    byTrees.set(key, [...(byTrees.get(key) ?? []), r]);
  }
  const lines = [...byTrees.values()];
  const shown = lines.slice(0, 6).map((same) => `${plural(same[0].trees, 'tree')}, ${same.map((r) => r.description).join(' and ')} (${nameList(same[0].rootIds.map(nameOf), 3)})`);
  if (lines.length > shown.length) shown.push(`${plural(lines.length - shown.length, 'other reason')}`);
  if (shown.length) parts.push(`${shown.join('; ')}.`);
  if (closest.length) {
    const [first] = closest;
    parts.push(`Closest: ${nameList(closest.map((t) => nameOf(t.rootId)))}. ${first.problems.map((p) => p.message).join(' ')}`);
  }
  return parts.join(' ');
}
