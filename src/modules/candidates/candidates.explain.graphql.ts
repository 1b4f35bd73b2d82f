// explainCandidates: why provider trees are or are not allocation candidates, with the numbers.
import { builder } from '../../builder.js';
import { MAX_PAGE_SIZE } from '../common/paging.js';
import { arrayPage, edgeOptions, offsetConnection } from '../common/connection.js';
import { ResourceProviderRef } from '../providers/providers.graphql.js';
import { listSize } from '../common/cost.js';
import type { CandidatesRequestInput } from './candidates.types.js';
import { CandidatesRequestInputRef } from './candidates.inputs.graphql.js';
import { explainCandidates } from './candidates.service.js';
import { RequestErrorRef, isRefusal, orRefusal } from '../common/refusal.graphql.js';
import type * as E from './candidates.explain.types.js';

const ProblemKindEnum = builder.enumType('CandidateProblemKind', {
  description: 'What keeps a provider, a request group or a tree from serving a candidate request.',
  values: {
    NO_INVENTORY: { description: 'No provider considered has inventory of the class.' },
    CAPACITY_EXCEEDED: { description: 'used + amount > capacity (capacity = (total - reserved) * allocation_ratio).' },
    BELOW_MIN_UNIT: { description: 'The amount is below the inventory\'s min_unit.' },
    ABOVE_MAX_UNIT: { description: 'The amount is above the inventory\'s max_unit.' },
    STEP_SIZE: { description: 'The amount is not a multiple of the inventory\'s step_size.' },
    REQUIRED_TRAIT_MISSING: { description: 'A required trait is missing (on the provider of a suffixed group; on every provider giving resources to the unsuffixed group).' },
    ANY_OF_UNMET: { description: 'None of the traits of an any-of set (required=in:A,B) is present.' },
    FORBIDDEN_TRAIT: { description: 'The provider has a forbidden trait.' },
    NOT_IN_AGGREGATE: { description: 'member_of is not met (for the unsuffixed group the provider or its root must be in the aggregates; a sharing provider itself).' },
    IN_FORBIDDEN_AGGREGATE: { description: 'The provider (or, unsuffixed group, its root) is in an aggregate of notMemberOf.' },
    NOT_IN_TREE: { description: 'in_tree names another tree (or no provider).' },
    ROOT_REQUIRED_MISSING: { description: 'The root lacks a rootRequired trait.' },
    ROOT_FORBIDDEN_PRESENT: { description: 'The root has a rootForbidden trait.' },
    RESOURCELESS_GROUP: { description: 'A resourceless group without required traits or member_of: Placement finds no provider for it.' },
    ISOLATE: { description: 'group_policy ISOLATE: the suffixed groups cannot all get different providers.' },
    SAME_SUBTREE: { description: 'sameSubtree: the groups\' providers are not all below one of them.' },
    SUMMED_CAPACITY: { description: 'Several groups asking for one class on the same provider exceed its capacity or max_unit together.' },
    SHARING_ONLY: { description: 'The tree gives none of the resources itself: its only candidates use sharing providers of other trees alone, and belong to their trees.' },
  } as const,
});

const ProblemRef = builder.objectRef<E.CandidateProblem>('CandidateProblem').implement({
  description: 'One reason, in words and in numbers.',
  fields: (t) => ({
    kind: t.expose('kind', { type: ProblemKindEnum, description: 'The kind of reason.' }),
    message: t.exposeString('message', { description: 'The reason in words, with the numbers and names involved.' }),
    group: t.exposeString('group', { nullable: true, description: 'The request group ("" = unsuffixed); null for the tree as a whole.' }),
    provider: t.field({
      type: ResourceProviderRef,
      nullable: true,
      description: 'The provider concerned, if one.',
      resolve: (p, _args, ctx) => (p.providerId === null ? null : ctx.loaders.providers.byId.load(p.providerId)),
    }),
    resourceClass: t.exposeString('resourceClass', { nullable: true, description: 'The resource class concerned, if one.' }),
    amount: t.exposeInt('amount', { nullable: true, description: 'The amount requested.' }),
    capacity: t.exposeInt('capacity', { nullable: true, description: 'The inventory\'s capacity.' }),
    used: t.exposeInt('used', { nullable: true, description: 'What is allocated from the inventory already.' }),
    traits: t.exposeStringList('traits', { description: 'The traits concerned (missing, forbidden, or an any-of set).' }),
    aggregates: t.exposeStringList('aggregates', { description: 'The aggregates concerned.' }),
  }),
});

const ResourceCheckRef = builder.objectRef<E.ResourceCheck>('ResourceCheck').implement({
  description: 'Whether one provider can give one requested amount now.',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class.' }),
    amount: t.exposeInt('amount', { description: 'The amount requested.' }),
    capacity: t.exposeInt('capacity', { nullable: true, description: '(total - reserved) * allocation_ratio; null when the provider has no such inventory.' }),
    used: t.exposeInt('used', { nullable: true, description: 'Allocated already.' }),
    minUnit: t.exposeInt('minUnit', { nullable: true, description: 'Smallest amount one allocation may take.' }),
    maxUnit: t.exposeInt('maxUnit', { nullable: true, description: 'Largest amount one allocation may take.' }),
    stepSize: t.exposeInt('stepSize', { nullable: true, description: 'Amounts must be multiples of it.' }),
    fits: t.exposeBoolean('fits', { description: 'Whether the amount fits (capacity, min_unit, max_unit, step_size).' }),
  }),
});

const ProviderCheckRef = builder.objectRef<E.ProviderCheck>('ProviderCheck').implement({
  description: 'One provider considered for a request group: of the tree, or a sharing provider reaching it.',
  fields: (t) => ({
    provider: t.field({ type: ResourceProviderRef, description: 'The provider.', resolve: (c, _args, ctx) => ctx.loaders.providers.byId.load(c.providerId).then((p) => p!) }),
    sharing: t.exposeBoolean('sharing', { description: 'Whether it is a sharing provider of another tree, reached through an aggregate.' }),
    usable: t.exposeBoolean('usable', { description: 'Whether it can serve the group (the unsuffixed group: at least one of its classes).' }),
    resources: t.expose('resources', { type: [ResourceCheckRef], extensions: listSize(3), description: 'Each requested amount checked against its inventory.' }),
    problems: t.expose('problems', { type: [ProblemRef], extensions: listSize(2), description: 'Why it cannot serve the group (empty when usable).' }),
  }),
});

const GroupExplanationRef = builder.objectRef<E.GroupExplanation>('GroupExplanation').implement({
  description: 'One request group in one tree.',
  fields: (t) => ({
    suffix: t.exposeString('suffix', { description: 'The group suffix ("" = unsuffixed).' }),
    satisfied: t.exposeBoolean('satisfied', { description: 'Whether the group alone can be satisfied in this tree.' }),
    choices: t.exposeInt('choices', { description: 'How many ways (providers, or provider combinations for the unsuffixed group) satisfy it here.' }),
    providers: t.expose('providers', { type: [ProviderCheckRef], extensions: listSize(5), description: 'The providers with some of its classes (every provider for a resourceless group).' }),
    problems: t.expose('problems', { type: [ProblemRef], extensions: listSize(3), description: 'Why it cannot be satisfied here (empty when satisfied).' }),
  }),
});

const TreeExplanationRef = builder.objectRef<E.TreeExplanation>('TreeExplanation').implement({
  description: 'Whether one provider tree is an allocation candidate, and why not.',
  fields: (t) => ({
    root: t.field({ type: ResourceProviderRef, description: 'The root of the tree.', resolve: (e, _args, ctx) => ctx.loaders.providers.byId.load(e.rootId).then((p) => p!) }),
    candidate: t.exposeBoolean('candidate', {
      description:
        'Whether some allocation request belongs to this tree: one anchored in it with a provider of its own that is not sharing, or one made of sharing providers alone, one of them in this tree, wherever it is anchored.',
    }),
    allocationRequests: t.exposeInt('allocationRequests', {
      description: 'How many allocation requests belong to this tree (counted up to 10,000 per anchor); one made of sharing providers of several trees alone is counted once, in the first of them.',
    }),
    problems: t.expose('problems', { type: [ProblemRef], extensions: listSize(3), description: 'Everything keeping the tree out, tree-wide and per group (empty for a candidate).' }),
    groups: t.expose('groups', { type: [GroupExplanationRef], extensions: listSize(3), description: 'Each request group in this tree.' }),
  }),
});

const ReasonCountRef = builder.objectRef<E.ReasonCount>('CandidateReasonCount').implement({
  description: 'A reason keeping trees out, and how many trees it keeps out.',
  fields: (t) => ({
    kind: t.expose('kind', { type: ProblemKindEnum, description: 'The kind of reason.' }),
    group: t.exposeString('group', { nullable: true, description: 'The request group ("" = unsuffixed); null for tree-wide reasons.' }),
    resourceClass: t.exposeString('resourceClass', { nullable: true, description: 'The resource class concerned, if one.' }),
    traits: t.exposeStringList('traits', { description: 'The traits concerned (missing, forbidden, or an any-of set).' }),
    aggregates: t.exposeStringList('aggregates', { description: 'The aggregates concerned.' }),
    description: t.exposeString('description', { description: 'The reason in a few words, e.g. "not 500 VCPU free" or "no provider with the resources has HW_CPU_X86_AVX512F".' }),
    trees: t.exposeInt('trees', { description: 'Trees this reason applies to (a tree may have several reasons).' }),
    roots: t.field({
      type: [ResourceProviderRef],
      extensions: listSize(5),
      description: 'The roots of the first trees it applies to, in root order.',
      args: { first: t.arg.int({ required: false, defaultValue: 5, description: 'How many roots (at most 1,000).' }) },
      resolve: async (r, args, ctx) => {
        const first = Math.max(0, Math.min(args.first ?? 5, MAX_PAGE_SIZE));
        return (await Promise.all(r.rootIds.slice(0, first).map((id) => ctx.loaders.providers.byId.load(id)))).map((p) => p!);
      },
    }),
    example: t.exposeString('example', { description: 'The message of the first such tree, with its names and numbers.' }),
  }),
});

/** A page of tree explanations with the totals over every tree explained. */
type ExplanationPage = Awaited<ReturnType<typeof offsetConnection<E.TreeExplanation>>> & Pick<E.CandidatesExplanation, 'candidateTrees' | 'reasons' | 'closest' | 'summary'> & { explainedTrees: number };

const CandidatesExplanationRef = builder.connectionObject(
  {
    type: TreeExplanationRef,
    name: 'CandidatesExplanation',
    description: 'A page of tree explanations, with totals over every tree explained.',
    fields: (c) => ({
      totalCount: c.int({ description: 'How many trees are listed (all those explained, or those `candidate` selects).', resolve: (p) => (p as ExplanationPage).totalCount }),
      explainedTrees: c.int({ description: 'How many trees were explained (every tree, or the tree of `provider`).', resolve: (p) => (p as ExplanationPage).explainedTrees }),
      candidateTrees: c.int({ description: 'How many of the trees explained are candidates.', resolve: (p) => (p as ExplanationPage).candidateTrees }),
      summary: c.string({
        description: 'In a few sentences: which trees are candidates, or, when none is, why (each reason with how many trees and which), and the closest trees.',
        resolve: (p) => (p as ExplanationPage).summary,
      }),
      closest: c.field({
        type: [TreeExplanationRef],
        extensions: listSize(3),
        description:
          'When no tree is a candidate: up to 3 trees with the fewest reasons against them, nearest first (traits, aggregates and the root weigh more than amounts and combinations; ' +
          'ties go to the smallest shortfall). Trees missing a class entirely or outside in_tree are never listed; empty when some tree is a candidate.',
        resolve: (p) => (p as ExplanationPage).closest,
      }),
      reasons: c.field({
        type: [ReasonCountRef],
        extensions: listSize(8),
        description: 'Why the other trees are not candidates: each reason with the number of trees it applies to, most frequent first.',
        resolve: (p) => (p as ExplanationPage).reasons,
      }),
    }),
  },
  edgeOptions('TreeExplanation', 'tree explanations'),
);

const ExplainCandidatesResultRef = builder.unionType('ExplainCandidatesResult', {
  description: 'The explanation, or why Placement would refuse the request (as `candidates` answers it).',
  types: [CandidatesExplanationRef, RequestErrorRef],
  resolveType: (value) => (isRefusal(value) ? 'RequestError' : 'CandidatesExplanation'),
});

builder.queryField('explainCandidates', (t) =>
  t.field({
    type: ExplainCandidatesResultRef,
    description:
      'Why provider trees are or are not allocation candidates for a request (what Placement never tells): per tree and request group, ' +
      'with capacities, usage, traits and aggregates; over all trees, a summary in words, the reasons counted, and the closest trees when none fits. ' +
      'Trees in root creation order. A request Placement refuses (or an unknown `provider`) is answered as RequestError.',
    args: {
      request: t.arg({ type: CandidatesRequestInputRef, required: true, description: 'The request, as for `candidates` (its limit is ignored).' }),
      provider: t.arg({ type: 'UUID', required: false, description: 'Explain only the tree of this provider; every tree when absent.' }),
      candidate: t.arg.boolean({
        required: false,
        description: 'List only the trees that are (true) or are not (false) candidates; every tree when absent. The totals, reasons, summary and closest trees still cover every tree explained.',
      }),
      first: t.arg.int({ required: false, description: 'How many trees from the start (or after `after`).' }),
      after: t.arg.string({ required: false, description: 'The cursor to start after.' }),
      last: t.arg.int({ required: false, description: 'How many trees from the end (or before `before`).' }),
      before: t.arg.string({ required: false, description: 'The cursor to end before.' }),
    },
    resolve: (_root, args, ctx) =>
      orRefusal(async () => {
        const explanation = await explainCandidates(ctx.db, args.request as CandidatesRequestInput, args.provider ?? null);
        const { candidateTrees, reasons, closest, summary } = explanation;
        const listed = args.candidate == null ? explanation.trees : explanation.trees.filter((tree) => tree.candidate === args.candidate);
        const page = await offsetConnection(args, arrayPage(listed));
        return { ...page, explainedTrees: explanation.trees.length, candidateTrees, reasons, closest, summary };
      }),
  }),
);
