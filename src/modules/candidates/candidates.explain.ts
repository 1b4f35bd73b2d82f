// Why a provider tree is or is not an allocation candidate, per request group, with the numbers:
// the answer to "No valid host" that Placement never gives. This file judges; the shapes of the answer
// are in candidates.explain.types.ts and its wording in candidates.explain.words.ts.
import type { Db } from '../../db/client.js';
import { statement } from '../../db/sql.js';
import { fits } from '../../rules/capacity.js';
import type { CapacityRow } from './candidates.data.js';
import { CandidateIndex } from './candidates.index.js';
import type { SearchGroup, SearchRequest } from './candidates.request.js';
import { SearchFacts, type GroupPlan } from './candidates.facts.js';
import { answeredEmpty, countChoices, planGroups } from './candidates.plan.js';
import { Enumerator, yieldToEventLoop } from './candidates.enumerate.js';
import type { ProblemKind, CandidateProblem, ResourceCheck, ProviderCheck, GroupExplanation, TreeExplanation, ReasonCount, CandidatesExplanation } from './candidates.explain.types.js';
import { groupName, plural, aggregateSet, traitList, nameList, describe, summarize } from './candidates.explain.words.js';

/** Trees listed in `closest`. */
const CLOSEST = 3;
/** Trees explained between two yields to the event loop (10,000 trees take about a second). */
const TREES_PER_SLICE = 500;

/** Most allocation requests counted per tree. */
const COUNT_LIMIT = 10_000;

function problem(kind: ProblemKind, message: string, fields: Partial<CandidateProblem> = {}): CandidateProblem {
  return { kind, message, group: null, providerId: null, resourceClass: null, amount: null, capacity: null, used: null, traits: [], aggregates: [], ...fields };
}

class Explainer {
  private readonly sharingAt = new Map<number, number[]>();
  /** Per anchor enumerated (meeting root_required): its candidates with a provider of its own tree that is not sharing. */
  private readonly own = new Map<number, number>();
  /** Candidates made of sharing providers alone, once each (by their picks, as the search lists them once): the roots of their trees. */
  private readonly sharedOnly = new Map<string, number[]>();
  private readonly enumerated = new Set<number>();
  constructor(
    private readonly facts: SearchFacts,
    private readonly plans: GroupPlan[],
    private readonly providers: Map<number, { name: string; uuid: string }>,
  ) {
    // Sharing providers of the requested classes, by the anchors they reach.
    const sharing = [...facts.sharing.keys()].filter((id) => [...facts.classes.values()].some((c) => c.byProvider.has(id)));
    for (const [id, anchors] of facts.index.anchorsOf(sharing)) {
      for (const anchor of anchors) {
        if (anchor === facts.index.rootOf(id)) continue;
        const list = this.sharingAt.get(anchor);
        if (list) list.push(id);
        else this.sharingAt.set(anchor, [id]);
      }
    }
  }

  private name(id: number) {
    return this.providers.get(id)?.name ?? String(id);
  }

  explain(root: number): TreeExplanation {
    const { facts, plans } = this;
    const problems: CandidateProblem[] = [];
    const { rootRequired, rootForbidden } = facts.request;
    const missing = rootRequired.filter((t) => !facts.holdersOf(t).has(root));
    if (missing.length) {
      problems.push(problem('ROOT_REQUIRED_MISSING', `The root ${this.name(root)} lacks ${traitList(missing)}, required by root_required.`, { providerId: root, traits: missing }));
    }
    const present = rootForbidden.filter((t) => facts.holdersOf(t).has(root));
    if (present.length) {
      problems.push(problem('ROOT_FORBIDDEN_PRESENT', `The root ${this.name(root)} has ${traitList(present)}, forbidden by root_required (${present.map((t) => `!${t}`).join(',')}).`, { providerId: root, traits: present }));
    }
    const groups = plans.map((plan) => this.explainGroup(plan, root));
    for (const g of groups) if (!g.satisfied) problems.push(...g.problems);
    if (groups.every((g) => g.satisfied)) {
      const enumerator = this.enumerateAt(root);
      // Candidates made of sharing providers of other trees alone belong to those trees (the search lists them once).
      const touching = enumerator.found.some((c) => c.picks.some((id) => facts.index.rootOf(id) === root));
      if (!touching && enumerator.found.length > 0) {
        const others = [...new Set(enumerator.found.flatMap((c) => c.picks))].map((id) => this.name(id));
        const message = `The tree of ${this.name(root)} gives none of the resources itself: its only candidates use sharing providers of other trees alone (${nameList(others)}), and are theirs.`;
        problems.push(problem('SHARING_ONLY', message, { providerId: root }));
      } else if (!touching) problems.push(...this.combinationProblems(enumerator, root));
    }
    // Settled once every anchor is enumerated (settle).
    return { rootId: root, rootUuid: this.providers.get(root)!.uuid, candidate: false, allocationRequests: 0, problems, groups };
  }

  /**
   * The candidates anchored at a root, recorded once per root. Those with a provider that is not sharing
   * are the anchor's tree's; those made of sharing providers alone belong to the trees of those providers,
   * whatever the anchor (a sharing provider reached through an aggregate from a tree meeting root_required,
   * say), and are counted once however many anchors reach them.
   */
  enumerateAt(anchor: number): Enumerator {
    const { facts } = this;
    const enumerator = new Enumerator(facts, this.plans, COUNT_LIMIT, false, [anchor]);
    enumerator.run(Infinity);
    if (this.enumerated.has(anchor) || !this.facts.meetsRootRequired(anchor)) return enumerator;
    this.enumerated.add(anchor);
    let own = 0;
    for (const { picks } of enumerator.found) {
      if (picks.some((id) => !facts.sharing.has(id))) own++;
      else {
        const key = picks.join(',');
        if (!this.sharedOnly.has(key)) this.sharedOnly.set(key, [...new Set(picks.map((id) => facts.index.rootOf(id)))].sort((a, b) => a - b));
      }
    }
    this.own.set(anchor, own);
    return enumerator;
  }

  /** Anchors other than the root that the tree's sharing providers reach (candidates of its sharing providers alone may be anchored there). */
  anchorsReached(root: number): number[] {
    const sharing = (this.facts.index.treeMembers().get(root) ?? []).filter((id) => this.facts.sharing.has(id));
    const anchors = new Set([...this.facts.index.anchorsOf(sharing).values()].flat());
    anchors.delete(root);
    return [...anchors].sort((a, b) => a - b);
  }

  /**
   * Once every anchor is enumerated: a tree is a candidate when some candidate belongs to it. A candidate
   * of sharing providers of several trees belongs to each of them and is counted in the first (so the
   * counts add up to the search's).
   */
  settle(trees: TreeExplanation[]) {
    const counted = new Map(this.own);
    const owners = new Set<number>();
    for (const roots of this.sharedOnly.values()) {
      counted.set(roots[0], (counted.get(roots[0]) ?? 0) + 1);
      for (const root of roots) owners.add(root);
    }
    for (const tree of trees) {
      const count = counted.get(tree.rootId) ?? 0;
      tree.candidate = count > 0 || owners.has(tree.rootId);
      tree.allocationRequests = tree.candidate ? count : 0;
      if (tree.candidate) tree.problems = [];
    }
  }

  /** Where each group could go in this tree on its own: "group 1 can only use pf0 and pf1 and group 2 can only use pf0". */
  private placesOf(root: number, suffixes: (s: string) => boolean): string {
    return this.plans
      .filter((p) => suffixes(p.group.suffix))
      .map((p) => `${groupName(p.group.suffix)} can only use ${nameList([...new Set((p.optionsByAnchor.get(root) ?? []).flat())].map((id) => this.name(id)))}`)
      .join(' and ');
  }

  private combinationProblems(enumerator: Enumerator, root: number): CandidateProblem[] {
    const { refused } = enumerator;
    const result: CandidateProblem[] = [];
    const tree = `In the tree of ${this.name(root)}`;
    const combinations = (n: number) => plural(n, 'combination');
    if (refused.isolate) {
      const places = this.placesOf(root, (s) => s !== '');
      result.push(problem('ISOLATE', `${tree}, group_policy=isolate needs a different provider for each suffixed group, but ${places} (${combinations(refused.isolate)} refused).`, { providerId: root }));
    }
    if (refused.capacity) {
      result.push(
        problem('SUMMED_CAPACITY', `${tree}, groups asking for the same class from one provider exceed its capacity or max_unit together (${combinations(refused.capacity)} refused).`, {
          providerId: root,
        }),
      );
    }
    if (refused.sameSubtree) {
      const sets = this.facts.request.sameSubtree;
      const places = this.placesOf(root, (s) => sets.some((set) => set.includes(s)));
      const named = sets.map((set) => set.join(',')).join('; ');
      result.push(
        problem('SAME_SUBTREE', `${tree}, same_subtree=${named} needs those groups' providers all below one of them, but ${places} (${combinations(refused.sameSubtree)} refused).`, {
          providerId: root,
        }),
      );
    }
    return result;
  }

  private explainGroup(plan: GroupPlan, root: number): GroupExplanation {
    const { facts } = this;
    const { group } = plan;
    const unsuffixed = group.suffix === '';
    const choices = countChoices(plan, root, COUNT_LIMIT);
    const treeRoot = group.inTree == null ? null : facts.treeRoots.get(group.inTree);
    const base = { group: group.suffix };
    const groupProblems: CandidateProblem[] = [];

    if (group.inTree != null && (treeRoot == null || (unsuffixed && treeRoot !== root))) {
      const message =
        treeRoot == null
          ? `in_tree names ${group.inTree}, which is no provider.`
          : `in_tree restricts ${groupName(group.suffix)} to the tree of ${group.inTree} (root ${this.name(treeRoot)}).`;
      return { suffix: group.suffix, satisfied: false, choices: 0, providers: [], problems: [problem('NOT_IN_TREE', message, base)] };
    }
    if (!plan.classIds.length && !group.required.length && !group.memberOf.length) {
      const message = `${groupName(group.suffix)} asks for no resources, no required traits and no member_of: Placement finds no provider for it.`;
      return { suffix: group.suffix, satisfied: false, choices: 0, providers: [], problems: [problem('RESOURCELESS_GROUP', message, base)] };
    }

    const members = facts.index.treeMembers().get(root) ?? [];
    const sharing = unsuffixed && group.inTree != null ? [] : (this.sharingAt.get(root) ?? []);
    const candidates = plan.classIds.length
      ? [...members, ...sharing].filter((id) => plan.classIds.some((c) => facts.classes.get(c)!.byProvider.has(id)))
      : [...members, ...sharing];
    const checks = candidates.map((id) => this.checkProvider(plan, root, id, !members.includes(id), treeRoot ?? null));
    const satisfied = choices > 0;
    if (!satisfied) {
      if (!plan.classIds.length) {
        groupProblems.push(...checks.flatMap((c) => c.problems));
        if (!checks.length) groupProblems.push(problem('NO_INVENTORY', `No provider of the tree of ${this.name(root)} can serve ${groupName(group.suffix)}.`, base));
      } else if (unsuffixed) groupProblems.push(...this.unsuffixedProblems(plan, root, checks));
      else {
        for (const [k, [rc, amount]] of group.resources.entries()) {
          if (!checks.some((c) => c.resources[k].capacity !== null)) {
            groupProblems.push(problem('NO_INVENTORY', `No provider of the tree of ${this.name(root)}${sharing.length ? ' nor any sharing provider reaching it' : ''} has inventory of ${rc} (${groupName(group.suffix)}).`, { ...base, resourceClass: rc, amount }));
          }
        }
        if (!groupProblems.length) groupProblems.push(...checks.flatMap((c) => c.problems));
      }
    }
    return { suffix: group.suffix, satisfied, choices, providers: checks, problems: groupProblems };
  }

  /**
   * Why no combination of providers serves the unsuffixed group: a class nobody can give, and required
   * traits that no provider able to give resources has (traits of providers giving nothing do not count).
   */
  private unsuffixedProblems(plan: GroupPlan, root: number, checks: ProviderCheck[]): CandidateProblem[] {
    const { group } = plan;
    const result = new Set<CandidateProblem>();
    const base = { group: group.suffix };
    group.resources.forEach(([rc, amount], k) => {
      const givers = checks.filter((c) => c.resources[k].capacity !== null);
      if (!givers.length) {
        const via = this.sharingAt.has(root) && plan.group.inTree == null ? ' nor any sharing provider reaching it' : '';
        result.add(problem('NO_INVENTORY', `No provider of the tree of ${this.name(root)}${via} has inventory of ${rc}.`, { ...base, resourceClass: rc, amount }));
      } else if (!givers.some((c) => c.resources[k].fits && !this.blocked(c))) {
        for (const c of givers) for (const p of c.problems) if (p.resourceClass === null || p.resourceClass === rc) result.add(p);
      }
    });
    // Traits count on providers with inventory of a requested class (a trait only on the root, giving nothing, does not).
    const traits = new Set<string>();
    for (const c of checks) if (c.resources.some((r) => r.capacity !== null)) for (const t of group.required.flat()) if (this.facts.holdersOf(t).has(c.providerId)) traits.add(t);
    let traitProblems = 0;
    // With no provider having any of the classes, the traits say nothing more.
    for (const set of checks.length ? group.required : []) {
      if (set.some((t) => traits.has(t))) continue;
      traitProblems++;
      const onRoot = set.filter((t) => this.facts.holdersOf(t).has(root));
      const note = onRoot.length ? ` (the root ${this.name(root)} has ${onRoot.join(', ')} but gives none of the resources, so it does not count)` : '';
      const kind = set.length === 1 ? 'REQUIRED_TRAIT_MISSING' : 'ANY_OF_UNMET';
      const what = set.length === 1 ? `trait ${set[0]}` : `any of ${set.join(', ')}`;
      const givers = checks.filter((c) => c.resources.some((r) => r.capacity !== null)).map((c) => this.name(c.providerId));
      const message = `In the tree of ${this.name(root)}, no provider with ${nameList(plan.group.resources.map(([rc]) => rc), Infinity).replace(/ and ([^ ]+)$/, ' or $1')} (${nameList(givers)}) has ${what}${note}.`;
      const inTree = (this.facts.index.treeMembers().get(root) ?? []).some((id) => set.some((t) => this.facts.holdersOf(t).has(id)));
      result.add(problem(kind, message, { ...base, providerId: root, traits: [...set], inTree }));
    }
    // The root in an excluded aggregate shuts the whole tree: once for the tree.
    const excluded = group.forbiddenAggregates.filter((u) => this.facts.members.get(u)!.has(root));
    if (excluded.length) {
      for (const p of [...result]) if (p.kind === 'IN_FORBIDDEN_AGGREGATE') result.delete(p);
      const which = `${excluded.length === 1 ? 'aggregate' : 'aggregates'} ${excluded.join(', ')}`;
      result.add(
        problem('IN_FORBIDDEN_AGGREGATE', `The root ${this.name(root)} is in ${which}, which notMemberOf of the unsuffixed group excludes: none of its tree's providers can serve it.`, {
          ...base,
          providerId: root,
          aggregates: excluded,
        }),
      );
    }
    // The same aggregates missing on several providers: once for the tree (member_of spans from the root).
    const outside = [...result].filter((p) => p.kind === 'NOT_IN_AGGREGATE' && !checks.find((c) => c.providerId === p.providerId)?.sharing);
    if (outside.length > 1 && outside.every((p) => p.aggregates.join() === outside[0].aggregates.join())) {
      for (const p of outside) result.delete(p);
      const names = nameList(outside.map((p) => this.name(p.providerId!)));
      const sets = group.memberOf.filter((set) => set.some((u) => outside[0].aggregates.includes(u))).map(aggregateSet).join(' and in ');
      result.add(
        problem('NOT_IN_AGGREGATE', `Neither the root ${this.name(root)} nor its providers with the resources (${names}) are in ${sets} (member_of of the unsuffixed group).`, {
          ...base,
          providerId: root,
          aggregates: outside[0].aggregates,
        }),
      );
    }
    if (!result.size && !traitProblems) {
      result.add(problem('REQUIRED_TRAIT_MISSING', `In the tree of ${this.name(root)}, no combination of providers able to give the resources has all the required traits (${group.required.map((set) => set.join('|')).join(', ')}) together.`, { ...base, providerId: root, traits: group.required.flat() }));
    }
    return [...result];
  }

  /** Whether a provider is out for reasons other than its amounts. */
  private blocked(check: ProviderCheck): boolean {
    return check.problems.some((p) => p.resourceClass === null);
  }

  private checkProvider(plan: GroupPlan, root: number, id: number, viaSharing: boolean, treeRoot: number | null): ProviderCheck {
    const { facts } = this;
    const { group } = plan;
    const unsuffixed = group.suffix === '';
    const name = this.name(id);
    const base = { group: group.suffix, providerId: id };
    const problems: CandidateProblem[] = [];
    const resources = group.resources.map(([rc, amount], k) => {
      const row = facts.classes.get(plan.classIds[k])!.byProvider.get(id);
      const check = resourceCheck(rc, amount, row);
      if (row && !check.fits) problems.push(amountProblem(rc, amount, row, viaSharing ? `${name} (sharing provider)` : name, base));
      else if (!row && !unsuffixed) problems.push(problem('NO_INVENTORY', `${name} has no inventory of ${rc} (${groupName(group.suffix)} takes all its resources from one provider).`, { ...base, resourceClass: rc, amount }));
      return check;
    });
    const heldForbidden = group.forbidden.filter((t) => facts.holdersOf(t).has(id));
    if (heldForbidden.length) {
      const gives = resources.filter((r) => r.capacity !== null).map((r) => r.resourceClass);
      const what = gives.length ? `, with ${gives.join(', ')},` : '';
      problems.push(problem('FORBIDDEN_TRAIT', `${name}${what} has forbidden ${traitList(heldForbidden)} (${groupName(group.suffix)}).`, { ...base, traits: heldForbidden }));
    }
    if (!unsuffixed) {
      for (const set of group.required) {
        if (set.some((t) => facts.holdersOf(t).has(id))) continue;
        if (set.length === 1) problems.push(problem('REQUIRED_TRAIT_MISSING', `${name} lacks trait ${set[0]}, required by ${groupName(group.suffix)}.`, { ...base, traits: [...set] }));
        else problems.push(problem('ANY_OF_UNMET', `${name} has none of ${set.join(', ')}, one of which ${groupName(group.suffix)} requires.`, { ...base, traits: [...set] }));
      }
      if (treeRoot !== null && facts.index.rootOf(id) !== treeRoot) {
        problems.push(problem('NOT_IN_TREE', `${name} is not in the tree of ${group.inTree} (in_tree${group.suffix}).`, base));
      }
    }
    problems.push(...this.aggregateProblems(group, root, id, viaSharing, name, base));
    const usable = unsuffixed ? resources.some((r) => r.fits) && !problems.some((p) => p.resourceClass === null) : problems.length === 0;
    return { providerId: id, sharing: viaSharing, usable, resources, problems };
  }

  private aggregateProblems(group: SearchGroup, root: number, id: number, viaSharing: boolean, name: string, base: Partial<CandidateProblem>): CandidateProblem[] {
    const { facts } = this;
    const result: CandidateProblem[] = [];
    const spansFromRoot = group.suffix === '' && !viaSharing;
    const inSet = (set: string[], p: number) => set.some((u) => facts.members.get(u)!.has(p));
    if (group.memberOf.length) {
      const mine = group.memberOf.every((set) => inSet(set, id));
      const roots = spansFromRoot && group.memberOf.every((set) => inSet(set, root));
      if (!mine && !roots) {
        const unmet = group.memberOf.filter((set) => !inSet(set, id) && !(spansFromRoot && inSet(set, root)));
        const who = spansFromRoot && id !== root ? `Neither ${name} nor its root ${this.name(root)} is` : `${name}${viaSharing ? ' (sharing provider)' : ''} is not`;
        const sets = (unmet.length ? unmet : group.memberOf).map(aggregateSet).join(' and in ');
        result.push(problem('NOT_IN_AGGREGATE', `${who} in ${sets} (member_of of ${groupName(group.suffix)}).`, { ...base, aggregates: unmet.flat() }));
      }
    }
    const bad = group.forbiddenAggregates.filter((u) => facts.members.get(u)!.has(id) || (group.suffix === '' && facts.members.get(u)!.has(root)));
    if (bad.length) {
      const itself = bad.some((u) => facts.members.get(u)!.has(id));
      const who = itself ? `${name}${viaSharing ? ' (sharing provider)' : ''}` : `The root ${this.name(root)} (for ${name})`;
      result.push(problem('IN_FORBIDDEN_AGGREGATE', `${who} is in ${bad.length === 1 ? 'aggregate' : 'aggregates'} ${bad.join(', ')}, which notMemberOf of ${groupName(group.suffix)} excludes.`, { ...base, aggregates: bad }));
    }
    return result;
  }
}

function resourceCheck(resourceClass: string, amount: number, row: CapacityRow | undefined): ResourceCheck {
  if (!row) return { resourceClass, amount, capacity: null, used: null, minUnit: null, maxUnit: null, stepSize: null, fits: false };
  return { resourceClass, amount, capacity: row.capacity, used: row.used, minUnit: row.minUnit, maxUnit: row.maxUnit, stepSize: row.stepSize, fits: fits(row, amount) };
}

function amountProblem(rc: string, amount: number, row: CapacityRow, name: string, base: Partial<CandidateProblem>): CandidateProblem {
  const numbers = { ...base, resourceClass: rc, amount, capacity: row.capacity, used: row.used };
  if (row.used + amount > row.capacity) {
    return problem('CAPACITY_EXCEEDED', `${name}: ${rc} used ${row.used} + requested ${amount} > capacity ${row.capacity} (${row.capacity - row.used} free).`, numbers);
  }
  if (amount < row.minUnit) return problem('BELOW_MIN_UNIT', `${name}: ${rc} amount ${amount} is below min_unit ${row.minUnit}.`, numbers);
  if (amount > row.maxUnit) return problem('ABOVE_MAX_UNIT', `${name}: ${rc} amount ${amount} is above max_unit ${row.maxUnit}.`, numbers);
  return problem('STEP_SIZE', `${name}: ${rc} amount ${amount} is not a multiple of step_size ${row.stepSize}.`, numbers);
}

/**
 * Explains every tree (or the tree of one provider): per tree whether it is a candidate and why not,
 * and over all of them the reasons counted by the number of trees they keep out.
 */
export async function explain(db: Db, request: SearchRequest, providerUuid: string | null): Promise<CandidatesExplanation> {
  const index = CandidateIndex.of(db);
  // Bad names are refused as the search refuses them; but when Placement finds no candidates before it
  // reaches a bad name (it answers 200, empty), an unknown trait or class is explained as held by nobody.
  const answersEmpty = answeredEmpty(new SearchFacts(index, { ...request, limit: null }));
  const facts = new SearchFacts(index, { ...request, limit: null }, true);
  // Every class whole (sharing providers of other trees count too).
  for (const id of facts.classes.keys()) facts.classes.set(id, index.inventoriesOf(id));
  const plans = planGroups(facts, answersEmpty);
  const trees = index.treeMembers();
  let roots = [...trees.keys()].sort((a, b) => a - b);
  if (providerUuid !== null) {
    const root = index.rootsOf([providerUuid]).get(providerUuid);
    if (root == null) throw new UnknownProvider(providerUuid);
    roots = [root];
  }
  const rows = statement(db, 'SELECT id, name, uuid FROM resource_providers').raw(true).all() as [number, string, string][];
  const explainer = new Explainer(facts, plans, new Map(rows.map(([id, name, uuid]) => [id, { name, uuid }])));
  const explained: TreeExplanation[] = [];
  for (const root of roots) {
    explained.push(explainer.explain(root));
    if (explained.length % TREES_PER_SLICE === 0) await yieldToEventLoop();
  }
  // One tree: its sharing providers alone may make candidates anchored in other trees.
  if (providerUuid !== null) for (const anchor of explainer.anchorsReached(roots[0])) explainer.enumerateAt(anchor);
  explainer.settle(explained);
  const tally = new Map<string, ReasonCount>();
  for (const tree of explained) {
    if (tree.candidate) continue;
    const seen = new Set<string>();
    for (const p of tree.problems) {
      const key = reasonKey(p);
      if (seen.has(key)) continue;
      seen.add(key);
      const count = tally.get(key);
      if (count) {
        count.trees++;
        count.rootIds.push(tree.rootId);
        if (p.kind === 'CAPACITY_EXCEEDED') count.description = describe(p, count.description);
      } else {
        const { kind, group, resourceClass, traits, aggregates } = p;
        tally.set(key, { kind, group, resourceClass, traits, aggregates, description: describe(p), trees: 1, rootIds: [tree.rootId], example: p.message });
      }
    }
  }
  const reasons = [...tally.values()].sort((a, b) => b.trees - a.trees);
  const candidates = explained.filter((t) => t.candidate);
  const closest = candidates.length ? [] : nearest(explained.filter((t) => t.problems.length > 0));
  const names = new Map(rows.map(([id, name]) => [id, name]));
  const nameOf = (id: number) => names.get(id) ?? String(id);
  return { trees: explained, candidateTrees: candidates.length, reasons, closest, summary: summarize(explained, candidates, reasons, closest, nameOf) };
}

const reasonKey = (p: CandidateProblem) => [p.kind, p.group, p.kind === 'CAPACITY_EXCEEDED' || p.kind === 'NO_INVENTORY' ? p.resourceClass : `${p.resourceClass}:${p.amount}`, p.traits.join(), p.aggregates.join()].join('/');

/**
 * Trees with the fewest reasons against them, nearest first: a missing class weighs most, then traits,
 * aggregates and the root's traits, then amounts and combinations; ties go to the smallest shortfall.
 */
function nearest(trees: TreeExplanation[]): TreeExplanation[] {
  const far = new Set<ProblemKind>(['NO_INVENTORY', 'NOT_IN_TREE', 'RESOURCELESS_GROUP', 'SHARING_ONLY']);
  const amounts = new Set<ProblemKind>(['CAPACITY_EXCEEDED', 'BELOW_MIN_UNIT', 'ABOVE_MAX_UNIT', 'STEP_SIZE', 'ISOLATE', 'SAME_SUBTREE', 'SUMMED_CAPACITY']);
  const score = (t: TreeExplanation) => {
    const keys = new Map(t.problems.map((p) => [reasonKey(p), p]));
    let weight = 0;
    for (const p of keys.values()) weight += far.has(p.kind) ? 100 : amounts.has(p.kind) ? 1 : p.inTree ? 5 : 10;
    // Per class, the smallest share of the amount missing on some provider.
    const short = new Map<string, number>();
    for (const p of t.problems) {
      if (p.kind !== 'CAPACITY_EXCEEDED' || !p.amount) continue;
      const share = (p.used! + p.amount - p.capacity!) / p.amount;
      short.set(p.resourceClass!, Math.min(short.get(p.resourceClass!) ?? Infinity, share));
    }
    return weight + [...short.values()].reduce((a, b) => a + b, 0) / 10;
  };
  return trees
    .map((t) => [score(t), t] as const)
    .filter(([points]) => points < 100)
    .sort((a, b) => a[0] - b[0] || a[1].rootId - b[1].rootId)
    .slice(0, CLOSEST)
    .map(([, t]) => t);
}

export class UnknownProvider extends Error {
  constructor(readonly uuid: string) {
    super(`No resource provider with uuid ${uuid} found.`);
  }
}
