// Why a provider tree is or is not an allocation candidate, per request group, with the numbers:
// the answer to "No valid host" that Placement never gives.
import type { Db } from '../../db/client.js';
import { statement } from '../../db/sql.js';
import { fits, type CapacityRow } from './candidates.data.js';
import { CandidateIndex } from './candidates.index.js';
import { pyList, type SearchGroup, type SearchRequest } from './candidates.request.js';
import { Enumerator, SearchFacts, countChoices, planGroups, type GroupPlan } from './candidates.search.js';

export type ProblemKind =
  | 'NO_INVENTORY'
  | 'CAPACITY_EXCEEDED'
  | 'BELOW_MIN_UNIT'
  | 'ABOVE_MAX_UNIT'
  | 'STEP_SIZE'
  | 'REQUIRED_TRAIT_MISSING'
  | 'ANY_OF_UNMET'
  | 'FORBIDDEN_TRAIT'
  | 'NOT_IN_AGGREGATE'
  | 'IN_FORBIDDEN_AGGREGATE'
  | 'NOT_IN_TREE'
  | 'ROOT_REQUIRED_MISSING'
  | 'ROOT_FORBIDDEN_PRESENT'
  | 'RESOURCELESS_GROUP'
  | 'ISOLATE'
  | 'SAME_SUBTREE'
  | 'SUMMED_CAPACITY';

export interface CandidateProblem {
  kind: ProblemKind;
  message: string;
  /** The group's suffix ("" = unsuffixed); null for the tree as a whole. */
  group: string | null;
  providerId: number | null;
  resourceClass: string | null;
  amount: number | null;
  capacity: number | null;
  used: number | null;
  traits: string[];
  aggregates: string[];
}

export interface ResourceCheck {
  resourceClass: string;
  amount: number;
  /** null when the provider has no inventory of the class. */
  capacity: number | null;
  used: number | null;
  minUnit: number | null;
  maxUnit: number | null;
  stepSize: number | null;
  fits: boolean;
}

export interface ProviderCheck {
  providerId: number;
  /** Reached through a shared aggregate rather than being in the tree. */
  sharing: boolean;
  usable: boolean;
  resources: ResourceCheck[];
  problems: CandidateProblem[];
}

export interface GroupExplanation {
  suffix: string;
  satisfied: boolean;
  /** Ways the group can be satisfied in this tree (before combining groups). */
  choices: number;
  providers: ProviderCheck[];
  problems: CandidateProblem[];
}

export interface TreeExplanation {
  rootId: number;
  rootUuid: string;
  candidate: boolean;
  /** Allocation requests anchored in this tree. */
  allocationRequests: number;
  /** Everything that keeps the tree from being a candidate (empty when it is one). */
  problems: CandidateProblem[];
  groups: GroupExplanation[];
}

export interface ReasonCount {
  kind: ProblemKind;
  group: string | null;
  /** Trees kept out by this reason (a tree counts once per reason). */
  trees: number;
  example: string;
}

export interface CandidatesExplanation {
  trees: TreeExplanation[];
  candidateTrees: number;
  reasons: ReasonCount[];
}

/** Most allocation requests counted per tree. */
const COUNT_LIMIT = 10_000;

const groupName = (suffix: string) => (suffix === '' ? 'the unsuffixed group' : `group ${suffix}`);

function problem(kind: ProblemKind, message: string, fields: Partial<CandidateProblem> = {}): CandidateProblem {
  return { kind, message, group: null, providerId: null, resourceClass: null, amount: null, capacity: null, used: null, traits: [], aggregates: [], ...fields };
}

class Explainer {
  private readonly sharingAt = new Map<number, number[]>();
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
      problems.push(problem('ROOT_REQUIRED_MISSING', `The root ${this.name(root)} lacks root_required trait(s) ${missing.join(', ')}.`, { providerId: root, traits: missing }));
    }
    const present = rootForbidden.filter((t) => facts.holdersOf(t).has(root));
    if (present.length) {
      problems.push(problem('ROOT_FORBIDDEN_PRESENT', `The root ${this.name(root)} has trait(s) ${present.join(', ')}, forbidden by root_required.`, { providerId: root, traits: present }));
    }
    const groups = plans.map((plan) => this.explainGroup(plan, root));
    for (const g of groups) if (!g.satisfied) problems.push(...g.problems);
    let allocationRequests = 0;
    if (groups.every((g) => g.satisfied)) {
      const enumerator = new Enumerator(facts, plans, COUNT_LIMIT, false, [root]);
      enumerator.run(Infinity);
      // Candidates made of sharing providers of other trees alone belong to those trees (the search lists them once).
      allocationRequests = enumerator.found.filter((c) => c.picks.some((id) => facts.index.rootOf(id) === root)).length;
      if (allocationRequests === 0) problems.push(...this.combinationProblems(enumerator));
    }
    return { rootId: root, rootUuid: this.providers.get(root)!.uuid, candidate: problems.length === 0 && allocationRequests > 0, allocationRequests: problems.length ? 0 : allocationRequests, problems, groups };
  }

  private combinationProblems(enumerator: Enumerator): CandidateProblem[] {
    const { refused } = enumerator;
    const result: CandidateProblem[] = [];
    if (refused.isolate) result.push(problem('ISOLATE', `group_policy=isolate: every combination puts two suffixed groups on the same provider (${refused.isolate} refused).`));
    if (refused.capacity) {
      result.push(problem('SUMMED_CAPACITY', `Groups asking for the same class on one provider exceed its capacity or max_unit together (${refused.capacity} combinations refused).`));
    }
    if (refused.sameSubtree) {
      const sets = this.facts.request.sameSubtree.map((s) => s.join(',')).join('; ');
      result.push(problem('SAME_SUBTREE', `same_subtree (${sets}): no combination has all those groups' providers below one of them (${refused.sameSubtree} refused).`));
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
        if (!checks.length) groupProblems.push(problem('NO_INVENTORY', `No provider of this tree can serve ${groupName(group.suffix)}.`, base));
      } else if (unsuffixed) groupProblems.push(...this.unsuffixedProblems(plan, root, checks));
      else {
        for (const [k, [rc, amount]] of group.resources.entries()) {
          if (!checks.some((c) => c.resources[k].capacity !== null)) {
            groupProblems.push(problem('NO_INVENTORY', `No provider of this tree${sharing.length ? ' or sharing provider reaching it' : ''} has inventory of ${rc}.`, { ...base, resourceClass: rc, amount }));
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
        result.add(problem('NO_INVENTORY', `No provider of this tree or sharing provider reaching it has inventory of ${rc}.`, { ...base, resourceClass: rc, amount }));
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
      result.add(problem(kind, `No provider able to give resources to the unsuffixed group has ${what}${note}.`, { ...base, traits: [...set] }));
    }
    if (!result.size && !traitProblems) {
      result.add(problem('REQUIRED_TRAIT_MISSING', 'No combination of providers able to give the resources has all the required traits together.', { ...base, traits: group.required.flat() }));
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
      if (row && !check.fits) problems.push(amountProblem(rc, amount, row, name, base));
      else if (!row && !unsuffixed) problems.push(problem('NO_INVENTORY', `${name} has no inventory of ${rc}.`, { ...base, resourceClass: rc, amount }));
      return check;
    });
    const heldForbidden = group.forbidden.filter((t) => facts.holdersOf(t).has(id));
    if (heldForbidden.length) problems.push(problem('FORBIDDEN_TRAIT', `${name} has forbidden trait(s) ${heldForbidden.join(', ')}.`, { ...base, traits: heldForbidden }));
    if (!unsuffixed) {
      for (const set of group.required) {
        if (set.some((t) => facts.holdersOf(t).has(id))) continue;
        if (set.length === 1) problems.push(problem('REQUIRED_TRAIT_MISSING', `${name} lacks required trait ${set[0]}.`, { ...base, traits: [...set] }));
        else problems.push(problem('ANY_OF_UNMET', `${name} has none of ${set.join(', ')}.`, { ...base, traits: [...set] }));
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
        const unmet = group.memberOf.filter((set) => !inSet(set, id));
        const who = spansFromRoot ? `Neither ${name} nor its root ${this.name(root)} is` : `${name} is not`;
        const sets = unmet.map((set) => pyList(set)).join(' and ');
        result.push(problem('NOT_IN_AGGREGATE', `${who} in one aggregate of each member_of set (unmet: ${sets}).`, { ...base, aggregates: unmet.flat() }));
      }
    }
    const bad = group.forbiddenAggregates.filter((u) => facts.members.get(u)!.has(id) || (group.suffix === '' && facts.members.get(u)!.has(root)));
    if (bad.length) result.push(problem('IN_FORBIDDEN_AGGREGATE', `${name} or its anchor is in forbidden aggregate(s) ${bad.join(', ')}.`, { ...base, aggregates: bad }));
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
export function explain(db: Db, request: SearchRequest, providerUuid: string | null): CandidatesExplanation {
  const index = CandidateIndex.of(db);
  const facts = new SearchFacts(index, { ...request, limit: null }, true);
  // Every class whole (sharing providers of other trees count too).
  for (const id of facts.classes.keys()) facts.classes.set(id, index.inventoriesOf(id));
  const plans = planGroups(facts, false);
  const trees = index.treeMembers();
  let roots = [...trees.keys()].sort((a, b) => a - b);
  if (providerUuid !== null) {
    const root = index.rootsOf([providerUuid]).get(providerUuid);
    if (root == null) throw new UnknownProvider(providerUuid);
    roots = [root];
  }
  const rows = statement(db, 'SELECT id, name, uuid FROM resource_providers').raw(true).all() as [number, string, string][];
  const explainer = new Explainer(facts, plans, new Map(rows.map(([id, name, uuid]) => [id, { name, uuid }])));
  const explained = roots.map((root) => explainer.explain(root));
  const tally = new Map<string, ReasonCount>();
  for (const tree of explained) {
    if (tree.candidate) continue;
    const seen = new Set<string>();
    for (const p of tree.problems) {
      const key = `${p.kind}/${p.group}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const count = tally.get(key);
      if (count) count.trees++;
      else tally.set(key, { kind: p.kind, group: p.group, trees: 1, example: p.message });
    }
  }
  return {
    trees: explained,
    candidateTrees: explained.filter((t) => t.candidate).length,
    reasons: [...tally.values()].sort((a, b) => b.trees - a.trees),
  };
}

export class UnknownProvider extends Error {
  constructor(readonly uuid: string) {
    super(`No resource provider with uuid ${uuid} found.`);
  }
}
