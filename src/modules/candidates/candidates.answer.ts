// The answer of a candidate search (Placement's _alloc_candidates_multiple_providers and provider
// summaries): allocation requests with their mappings, and the summaries of every provider of the
// trees they use.
import type { ResourceAmount } from '../common/names.js';
import type { ProviderRow } from '../providers/providers.service.js';
import { providersById } from './candidates.data.js';
import { CandidateIndex, readTrees, type TreeCatalog } from './candidates.index.js';
import type { CandidateAllocation, CandidateMapping, CandidateRequest, CandidatesFound, ProviderSummary } from './candidates.types.js';
import type { SearchFacts } from './candidates.facts.js';
import type { Candidate, Layout } from './candidates.enumerate.js';
import { KeptRequest, layoutKey } from './candidates.kept.js';

/** Answers touching at most this many trees read them directly instead of loading every tree into the index. */
const FEW_TREES = 64;

/** The answer: allocation requests and the summaries of every provider of the trees they use. */
export function answer(facts: SearchFacts, layout: Layout, returned: Candidate[], everyCandidate: Candidate[] | null, truncated: boolean): CandidatesFound {
  const { index, request, sharing } = facts;
  const { plans } = layout;
  // A provider's root is the anchor, unless it is a sharing provider (maybe of another tree).
  const rootOf = (id: number, anchor: number) => (sharing.has(id) ? index.rootOf(id) : anchor);
  const roots = new Set<number>();
  for (const candidate of returned) for (const id of layout.givers(candidate)) roots.add(rootOf(id, candidate.anchor));
  const trees = treesFor(index, [...roots]);
  // Providers of resourceless groups may sit outside the trees giving resources.
  const mapped = new Set<number>();
  plans.forEach((plan, g) => {
    if (!plan.classIds.length) for (const candidate of returned) for (const id of layout.mapped(candidate, g)) mapped.add(id);
  });
  const outside = [...mapped].filter((id) => !trees.byId.has(id));
  const rowOf = new Map<number, ProviderRow>(outside.length ? providersById(index.db, outside).map((r) => [r.id, r]) : []);
  const providerOf = (id: number) => trees.byId.get(id) ?? rowOf.get(id)!;
  const shape = new AnswerShape(layout, providerOf);
  const kept = trees.kept.of(layoutKey(plans.map((p) => ({ suffix: p.group.suffix, amounts: p.resourceAmounts }))));
  const make = (candidate: Candidate) => new KeptRequest(shape.allocations(candidate), shape.mappings(candidate));
  const allocationRequests: CandidateRequest[] = returned.map((candidate) => kept.request(candidate, providerOf, make));

  // Before 1.29 (with trees), summaries list only providers some candidate allocates from.
  let used: Set<number> | null = null;
  if (everyCandidate) {
    used = new Set();
    for (const candidate of everyCandidate) for (const id of layout.givers(candidate)) used.add(id);
  }
  const requested = request.minor < 27 ? new Set(plans.flatMap((p) => p.classIds)) : null;
  const requestedKey = requested ? [...requested].sort((a, b) => a - b).join() : '';
  const providerSummaries: ProviderSummary[] = [];
  for (const root of ascending(roots)) {
    for (const summary of summariesOf(trees, root)) {
      if (used && !used.has(summary.provider.id)) continue;
      providerSummaries.push(requested ? summaryOfClasses(trees, summary, requested, requestedKey) : summary);
    }
  }
  return { kind: 'candidates', count: allocationRequests.length, truncated, allocationRequests, providerSummaries, traitIds: index.traitIds };
}

/** Builds the pieces of allocation requests from candidates. */
export class AnswerShape {
  private readonly merged = new Map<string, ResourceAmount>();

  constructor(
    private readonly layout: Layout,
    private readonly rowOf: (id: number) => ProviderRow,
  ) {}

  allocations(candidate: Candidate): CandidateAllocation[] {
    const { layout, rowOf } = this;
    const { picks } = candidate;
    // One group whose classes all come from one provider: the common case.
    if (layout.plans.length === 1 && layout.mapped(candidate, 0).length === 1) return [{ provider: rowOf(picks[0]), resources: layout.plans[0].resourceAmounts }];
    const ids: number[] = [];
    const lists: ResourceAmount[][] = [];
    const { plans } = layout;
    for (let g = 0; g < plans.length; g++) {
      const amounts = plans[g].resourceAmounts;
      for (let k = 0; k < amounts.length; k++) {
        const id = layout.giver(candidate, g, k);
        const at = ids.indexOf(id);
        if (at < 0) {
          ids.push(id);
          lists.push([amounts[k]]);
          continue;
        }
        const list = lists[at];
        // A class already taken from this provider comes from another group: the amounts add up.
        const same = plans[g].sharesClasses ? list.findIndex((r) => r.resourceClass === amounts[k].resourceClass) : -1;
        if (same < 0) list.push(amounts[k]);
        else list[same] = this.sum(list[same], amounts[k]);
      }
    }
    const allocations: CandidateAllocation[] = new Array(ids.length);
    for (let i = 0; i < ids.length; i++) allocations[i] = { provider: rowOf(ids[i]), resources: lists[i] };
    return allocations;
  }

  mappings(candidate: Candidate): CandidateMapping[] {
    const { plans } = this.layout;
    const mappings: CandidateMapping[] = new Array(plans.length);
    for (let g = 0; g < plans.length; g++) mappings[g] = { suffix: plans[g].group.suffix, providers: this.layout.mapped(candidate, g).map(this.rowOf) };
    return mappings;
  }

  /** Amounts of one class that two groups take from one provider, added up. */
  private sum(a: ResourceAmount, b: ResourceAmount): ResourceAmount {
    const amount = a.amount + b.amount;
    const key = `${a.resourceClass}:${amount}`;
    let value = this.merged.get(key);
    if (!value) this.merged.set(key, (value = { resourceClass: a.resourceClass, amount }));
    return value;
  }
}

/** The summaries of a tree's providers, made once per tree catalog. */
function summariesOf(trees: TreeCatalog, root: number): ProviderSummary[] {
  let summaries = trees.summaries.get(root);
  if (!summaries) {
    summaries = (trees.byRoot.get(root) ?? []).map((row) => ({
      provider: row,
      parentUuid: row.parentId === null ? null : trees.byId.get(row.parentId)!.uuid,
      rootUuid: trees.byId.get(row.rootId)!.uuid,
      resources: trees.inventories.get(row.id) ?? [],
      traits: trees.traits.get(row.id) ?? [],
      placementJson: [],
      answerJson: undefined,
    }));
    trees.summaries.set(root, summaries);
  }
  return summaries;
}

/** Summaries showing only some classes (before 1.27), by the classes, kept while their summary is (made again when its tree changes). */
const withClasses = new WeakMap<ProviderSummary, Map<string, ProviderSummary>>();
function summaryOfClasses(trees: TreeCatalog, summary: ProviderSummary, classIds: ReadonlySet<number>, key: string): ProviderSummary {
  const row = summary.provider;
  let byClasses = withClasses.get(summary);
  if (!byClasses) withClasses.set(summary, (byClasses = new Map()));
  let shown = byClasses.get(key);
  if (!shown) byClasses.set(key, (shown = { ...summary, resources: (trees.inventories.get(row.id) ?? []).filter((inv) => classIds.has(inv.classId)), placementJson: [], answerJson: undefined }));
  return shown;
}

/** Providers, inventories and traits of the trees of an answer: from the index, or read for a few trees. */
function treesFor(index: CandidateIndex, roots: number[]): TreeCatalog {
  if (index.hasCatalog()) return index.trees();
  if (roots.length <= FEW_TREES) return readTrees(index.db, roots);
  // The data may have changed during a long search: then read fresh rows rather than fill a stale index.
  return index.isCurrent() ? index.trees() : readTrees(index.db, roots);
}

/** The ids in ascending order; roots met anchor by anchor mostly are already (then no sort). */
function ascending(ids: Set<number>): number[] {
  const list = [...ids];
  for (let i = 1; i < list.length; i++) if (list[i - 1] > list[i]) return list.sort((a, b) => a - b);
  return list;
}
