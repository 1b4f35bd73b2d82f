// The plan of a candidate search: each group's names checked in Placement's order, and per anchor
// root the providers able to satisfy it (Placement's _get_trees_matching_all and the providers of
// each request group), before any candidate is built.
import type { CapacityRow } from './candidates.data.js';
import { reject as rejectRequest } from '../common/query-string.js';
import type { GroupPlan, SearchFacts } from './candidates.facts.js';

const MAX_REQUIRED_SETS = 30;

/**
 * Checks names and builds each group's plan in Placement's order, going on past a group satisfied
 * nowhere to say why everywhere (an explanation, headroom). With `unknownMatchNothing` (a request
 * Placement answers with no candidates before it reaches a bad name), an unknown trait is held by no
 * provider and an unknown resource class has no inventory.
 */
export function planGroups(facts: SearchFacts, unknownMatchNothing = false): GroupPlan[] {
  return plan(facts, false, unknownMatchNothing)!;
}

/**
 * The plan of a search, which stops at the first group satisfied nowhere as Placement does (before the
 * names of later groups are checked): null when it answers with no candidates.
 */
export function planSearch(facts: SearchFacts): GroupPlan[] | null {
  return plan(facts, true, false);
}

function plan(facts: SearchFacts, strict: boolean, unknownMatchNothing: boolean): GroupPlan[] | null {
  const { request, index } = facts;
  const reject: (message: string) => void = unknownMatchNothing ? () => {} : rejectRequest;
  if (unknownMatchNothing && !facts.classes.has(UNKNOWN_CLASS)) facts.classes.set(UNKNOWN_CLASS, { rows: [], byProvider: new Map() });
  for (const t of [...request.rootRequired, ...request.rootForbidden]) if (!index.traitIds.has(t)) reject(`No such trait(s): ${t}.`);
  if (strict && (request.rootRequired.length || request.rootForbidden.length) && !facts.someAnchorAllowed()) return null;
  const classUses = new Map<number, number>();
  for (const g of request.groups) for (const [rc] of g.resources) if (index.classIds.has(rc)) classUses.set(index.classIds.get(rc)!, (classUses.get(index.classIds.get(rc)!) ?? 0) + 1);
  const plans: GroupPlan[] = [];
  for (const [i, group] of request.groups.entries()) {
    const classIds = group.resources.map(([rc]) => index.classIds.get(rc) ?? (reject(`Invalid resource class in resources parameter: No such resource class ${rc}.`), UNKNOWN_CLASS));
    const inAggregates = facts.inAggregates(group.memberOf);
    if (strict && inAggregates && inAggregates.size === 0) return null;
    for (const t of [...group.required.flat(), ...group.forbidden]) if (!index.traitIds.has(t)) reject(`No such trait(s): ${t}.`);
    if (group.required.length > MAX_REQUIRED_SETS) rejectRequest(`At most ${MAX_REQUIRED_SETS} required trait sets are supported in one group.`);
    // An unknown in_tree provider: no tree matches (-1 is no root).
    const treeRoot = group.inTree == null ? null : (facts.treeRoots.get(group.inTree) ?? -1);
    if (strict && treeRoot === -1) return null;
    const fitting = group.resources.map(([, amount], k) => facts.fitting(classIds[k], amount, treeRoot));
    if (strict && fitting.some((rows) => !rows.length)) return null;
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
    else planSuffixed(facts, plan, fitting, inAggregates, excluded, forbidden);
    if (strict && !someChoice(plan)) return null;
    plans.push(plan);
  }
  return plans;
}

/** The class id an unknown resource class plans with when unknown names match nothing: no provider has it. */
export const UNKNOWN_CLASS = -1;

/**
 * Whether Placement answers the request with no candidates before it has checked every name: some group
 * is satisfied nowhere (a search's plan stops). A bad name met before that throws, as in a search.
 */
export const answeredEmpty = (facts: SearchFacts): boolean => planSearch(facts) === null;

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
  if (treeRoot === null) facts.prepareAnchors(fitting);
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
  // Most sets are empty: each test costs a lookup per row of the class, so an empty one is not asked.
  const anyForbidden = forbidden.size > 0;
  const anyExcluded = excluded.size > 0;
  const anySharing = treeRoot === null && facts.sharing.size > 0;
  fitting.forEach((rows, k) => {
    for (const { id, rootId } of rows) {
      if ((anyForbidden && forbidden.has(id)) || (anyExcluded && excluded.has(id))) continue;
      if ((!anchorFilter || facts.anchorAllowed(rootId)) && !(anyExcluded && excluded.has(rootId)) && (!inAggregates || inAggregates.has(id) || inAggregates.has(rootId))) add(k, rootId, id);
      if (anySharing && facts.sharing.has(id) && (!inAggregates || inAggregates.has(id))) {
        for (const anchor of facts.anchorsOf(id)) if (anchor !== rootId && (!anchorFilter || facts.anchorAllowed(anchor)) && !excluded.has(anchor)) add(k, anchor, id);
      }
    }
  });
  for (const [anchor, lists] of options) if (lists.length < fitting.length) options.delete(anchor);
  plan.optionsByAnchor = options;
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
    if (!group.required.length && !group.memberOf.length) return;
    providers = group.required.length ? [...plan.masks].filter(([, mask]) => mask === plan.fullMask).map(([id]) => id) : [...inAggregates!];
  }
  providers = providers.filter((id) => (plan.masks.get(id) ?? 0) === plan.fullMask && !forbidden.has(id) && !excluded.has(id) && (!inAggregates || inAggregates.has(id)));
  facts.prepareAnchors([providers]);
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
export function reachOf(plan: GroupPlan, options: number[][]): number[] {
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
