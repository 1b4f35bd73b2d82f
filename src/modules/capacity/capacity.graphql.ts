// Capacity: rollups per group and resource class, headroom of a request or of flavors.
import { builder } from '../../builder.js';
import { ResourceProviderRef, ResourceProviderFilter } from '../providers/providers.graphql.js';
import type { ProviderFilter } from '../providers/providers.service.js';
import type { Context } from '../../context.js';
import { RequestRefused } from '../common/errors.js';
import { AllocationRequestRef } from '../candidates/candidates.graphql.js';
import { CandidatesRequestInputRef } from '../candidates/candidates.inputs.graphql.js';
import type { CandidatesRequestInput } from '../candidates/index.js';
import { FlavorRef } from '../flavors/flavors.graphql.js';
import type { CapacityHistory, HistorySample } from './capacity.history.js';
import { STRANDED_REASONS, headroom, type HeadroomResult, type StrandedClass, type StrandedPart, type StrandedReason } from './capacity.headroom.js';
import {
  capacityRollup,
  flavorNames,
  flavorRequest,
  fullestTrees,
  fullness,
  headroomGroups,
  type CapacityGroup,
  type CapacityGroupBy,
  type CapacityGroupKey,
  type CapacityResource,
  type HeadroomGroup,
  type HeadroomGroupBy,
} from './capacity.service.js';

// Sums of capacity outgrow GraphQL's 32-bit Int (MEMORY_MB over 10,000 compute nodes is billions).
builder.scalarType('SafeInt', {
  description: 'An integer of at most 2^53 - 1 in size, written as a JSON number: sums of capacity go past the 32 bits of Int.',
  serialize: (value) => {
    if (!Number.isSafeInteger(value)) throw new Error(`SafeInt cannot represent ${String(value)}.`);
    return value;
  },
  parseValue: (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new RequestRefused(`SafeInt must be an integer of at most 2^53 - 1 in size; got ${JSON.stringify(value)}.`);
    return value;
  },
});

export const CapacityGroupByRef = builder.enumType('CapacityGroupBy', {
  description: 'What capacity is grouped by (several: one group per combination).',
  values: {
    RESOURCE_CLASS: { description: 'One group per resource class.' },
    AGGREGATE: { description: "One group per aggregate the provider itself is in (a provider in none: aggregate null)." },
    TRAIT: { description: 'One group per trait the provider itself has (a provider with none: trait null).' },
    ROOT: { description: "One group per tree (the provider's root)." },
    PROVIDER: { description: 'One group per provider.' },
  } as const,
});

export const CapacityResourceRef = builder.objectRef<CapacityResource>('CapacityResource').implement({
  description: 'Capacity of one resource class, summed over the inventories of a group of providers.',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class.' }),
    total: t.expose('total', { type: 'SafeInt', description: 'Sum of the inventories\' total.' }),
    reserved: t.expose('reserved', { type: 'SafeInt', description: 'Sum of the inventories\' reserved.' }),
    capacity: t.expose('capacity', { type: 'SafeInt', description: "Sum of each inventory's floor((total - reserved) * allocation_ratio)." }),
    used: t.expose('used', { type: 'SafeInt', description: 'Sum of the allocations against them.' }),
    free: t.expose('free', { type: 'SafeInt', description: 'capacity - used (an inventory lowered below its usage counts negative).' }),
    providerCount: t.exposeInt('providerCount', { description: 'Providers of the group with an inventory of this class.' }),
    usedRatio: t.float({ description: 'used / capacity (0 without capacity).', resolve: (r) => (r.capacity > 0 ? r.used / r.capacity : 0) }),
  }),
});

const MAX_MEMBERS = 20;

const CapacityGroupKeyRef = builder.objectRef<CapacityGroupKey>('CapacityGroupKey').implement({
  description: 'What the providers of a group have in common; null for what the group is not keyed by (or an aggregate or trait the providers lack).',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { nullable: true, description: 'The resource class (groupBy RESOURCE_CLASS).' }),
    aggregate: t.field({ type: 'UUID', nullable: true, description: 'The aggregate uuid (groupBy AGGREGATE).', resolve: (k) => k.aggregate }),
    aggregateMembers: t.field({
      type: [ResourceProviderRef],
      description:
        "Some providers in the aggregate (groupBy AGGREGATE; empty otherwise), sharing providers first, then by name: Placement's aggregates have no names, their members tell them apart. Every member, whatever the filter; the group's providerCount counts those matching it.",
      args: { first: t.arg.int({ required: false, defaultValue: 3, description: `How many (at most ${MAX_MEMBERS}).` }) },
      resolve: async (k, { first }, ctx) => {
        const n = first ?? 3;
        if (n < 0 || n > MAX_MEMBERS) throw new RequestRefused(`first must be between 0 and ${MAX_MEMBERS} (got ${n}).`);
        if (!k.aggregate || n === 0) return [];
        const rows = await ctx.loaders.aggregates.membersOf(n).load(k.aggregate);
        ctx.loaders.providers.prime(rows);
        return rows;
      },
    }),
    trait: t.exposeString('trait', { nullable: true, description: 'The trait (groupBy TRAIT).' }),
    root: t.field({
      type: ResourceProviderRef,
      nullable: true,
      description: 'The root of the tree (groupBy ROOT).',
      resolve: (k, _args, ctx) => (k.rootUuid ? ctx.loaders.providers.byUuid.load(k.rootUuid) : null),
    }),
    provider: t.field({
      type: ResourceProviderRef,
      nullable: true,
      description: 'The provider (groupBy PROVIDER).',
      resolve: (k, _args, ctx) => (k.providerUuid ? ctx.loaders.providers.byUuid.load(k.providerUuid) : null),
    }),
  }),
});

const CapacityGroupRef = builder.objectRef<CapacityGroup>('CapacityGroup').implement({
  description: 'Capacity of a group of providers, per resource class.',
  fields: (t) => ({
    key: t.expose('key', { type: CapacityGroupKeyRef, description: 'What the group is.' }),
    providerCount: t.exposeInt('providerCount', { description: 'Providers in the group (matching the filter).' }),
    resources: t.expose('resources', { type: [CapacityResourceRef], description: 'Per resource class, sorted by name.' }),
    fullness: t.float({ description: 'The largest usedRatio of its classes.', resolve: (g) => fullness(g) }),
  }),
});

const MAX_TREES = 1000;

builder.queryFields((t) => ({
  capacity: t.field({
    type: [CapacityGroupRef],
    description:
      "Total, reserved, capacity (Placement's formula), used and free per resource class, for the providers matching a filter, grouped. Without groupBy, one group: the whole selection.",
    args: {
      filter: t.arg({ type: ResourceProviderFilter, required: false, description: 'Which providers (as resourceProviders); all when absent.' }),
      groupBy: t.arg({ type: [CapacityGroupByRef], required: false, description: 'How to group; one group when absent or empty.' }),
    },
    resolve: (_root, { filter, groupBy }, ctx) => capacityRollup(ctx.db, (filter ?? {}) as ProviderFilter, (groupBy ?? []) as CapacityGroupBy[]),
  }),
  fullestTrees: t.field({
    type: [CapacityGroupRef],
    description: 'The trees closest to full: capacity grouped by ROOT, sorted by fullness (the largest share used of any class), most full first.',
    args: {
      filter: t.arg({ type: ResourceProviderFilter, required: false, description: 'Which providers count (e.g. memberOf an aggregate); all when absent.' }),
      first: t.arg.int({ required: false, defaultValue: 10, description: `How many trees (at most ${MAX_TREES}).` }),
    },
    resolve: (_root, { filter, first }, ctx) => {
      if (first != null && (first < 0 || first > MAX_TREES)) throw new RequestRefused(`first must be between 0 and ${MAX_TREES} (got ${first}).`);
      return fullestTrees(ctx.db, (filter ?? {}) as ProviderFilter, first ?? 10);
    },
  }),
}));

// ---- Headroom ----

const HeadroomGroupByRef = builder.enumType('HeadroomGroupBy', {
  description: 'How headroom is split.',
  values: {
    ROOT: { description: 'Per tree (the root of the candidates\' anchor).' },
    AGGREGATE: { description: "Per aggregate the tree's root is in (a root in none: aggregate null)." },
    TRAIT: { description: "Per trait of the tree's root (a root with none: trait null)." },
  } as const,
});

const StrandedReasonRef = builder.enumType('StrandedReason', {
  description: 'Why free capacity cannot take one more instance of a request.',
  values: Object.fromEntries(Object.entries(STRANDED_REASONS).map(([name, description]) => [name, { description: description[0].toUpperCase() + description.slice(1) + '.' }])) as Record<StrandedReason, { description: string }>,
});

const StrandedPartRef = builder.objectRef<StrandedPart>('StrandedPart').implement({
  description: 'Free capacity of one class left for one reason.',
  fields: (t) => ({
    reason: t.field({ type: StrandedReasonRef, description: 'Why it cannot be used.', resolve: (p) => p.reason }),
    description: t.string({ description: 'The reason in words.', resolve: (p) => STRANDED_REASONS[p.reason] }),
    amount: t.expose('amount', { type: 'SafeInt', description: 'Units left for this reason.' }),
    providerCount: t.exposeInt('providerCount', { description: 'Inventories (one per provider) holding them.' }),
  }),
});

const StrandedClassRef = builder.objectRef<StrandedClass>('StrandedCapacity').implement({
  description: 'Free capacity of one class asked by the request that no further instance can use once `fits` instances are placed.',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class.' }),
    free: t.expose('free', { type: 'SafeInt', description: 'Free now, over every inventory of the class (in the request\'s trees with inTree).' }),
    left: t.expose('left', { type: 'SafeInt', description: 'Free once the plan is placed: all of it stranded.' }),
    reasons: t.expose('reasons', { type: [StrandedPartRef], description: 'What is left, by reason, largest first.' }),
  }),
});

const HeadroomGroupRef = builder.objectRef<HeadroomGroup>('HeadroomGroup').implement({
  description: 'Headroom of the trees of one group.',
  fields: (t) => ({
    root: t.field({ type: ResourceProviderRef, nullable: true, description: 'The tree (by ROOT).', resolve: (g, _a, ctx) => (g.rootUuid ? ctx.loaders.providers.byUuid.load(g.rootUuid) : null) }),
    aggregate: t.field({ type: 'UUID', nullable: true, description: 'The aggregate (by AGGREGATE).', resolve: (g) => (g.by === 'AGGREGATE' ? (g.key as string | null) : null) }),
    trait: t.string({ nullable: true, description: 'The trait (by TRAIT).', resolve: (g) => (g.by === 'TRAIT' ? (g.key as string | null) : null) }),
    fits: t.exposeInt('fits', { description: 'Instances the plan places in these trees.' }),
    atMost: t.exposeInt('atMost', { description: 'Proven upper bound for these trees (each tree bounded alone).' }),
    exact: t.exposeBoolean('exact', { description: 'fits = atMost, proven.' }),
    trees: t.exposeInt('trees', { description: 'Trees of the group where the request has a candidate now.' }),
  }),
});

interface HeadroomView {
  result: HeadroomResult;
}

const MAX_PLAN = 10_000;

export const HeadroomRef = builder.objectRef<HeadroomView>('Headroom').implement({
  description:
    'How many more instances of a request can be placed together on the free capacity of today, honouring everything the candidate search honours. Per tree without sharing providers the count is exact (proven by a bounded search); sharing providers couple trees, and their total is then bounded.',
  fields: (t) => ({
    fits: t.int({ description: 'Instances that can be placed together (the plan places them).', resolve: (h) => h.result.fits }),
    atMost: t.int({ description: 'A proven upper bound: no more than this many fit.', resolve: (h) => h.result.atMost }),
    exact: t.boolean({
      description: 'true when fits = atMost is proven; then once the plan is placed, the candidate search finds nothing for the request.',
      resolve: (h) => h.result.exact,
    }),
    sharing: t.boolean({ description: 'Whether sharing providers couple trees (their counts are then bounded together rather than solved together).', resolve: (h) => h.result.sharing }),
    trees: t.int({ description: 'Trees where the request has a candidate now.', resolve: (h) => h.result.trees.filter((tr) => tr.fits > 0 || tr.atMost > 0).length }),
    plan: t.field({
      type: [AllocationRequestRef],
      description: `Allocation requests realising fits, in order: each is a candidate of the request on what the earlier ones leave (so PUT /allocations accepts them one after the other). At most ${MAX_PLAN}.`,
      args: { first: t.arg.int({ required: false, description: `How many (default: all of fits, at most ${MAX_PLAN}).` }) },
      resolve: (h, { first }) => {
        if (first != null && first < 0) throw new RequestRefused('first must be 0 or more.');
        return h.result.plan(Math.min(first ?? h.result.fits, MAX_PLAN));
      },
    }),
    stranded: t.field({ type: [StrandedClassRef], description: 'Per class asked, the free capacity no further instance can use, and why.', resolve: (h) => h.result.stranded }),
    groups: t.field({
      type: [HeadroomGroupRef],
      description: 'The same figures per tree, aggregate or trait of the root, most fits first.',
      args: { by: t.arg({ type: HeadroomGroupByRef, required: true, description: 'How to split.' }) },
      resolve: (h, { by }, ctx) => headroomGroups(ctx.db, h.result, by as HeadroomGroupBy),
    }),
  }),
});

async function headroomOf(ctx: Context, request: CandidatesRequestInput): Promise<HeadroomView> {
  return { result: await headroom(ctx.db, request) };
}

const flavorHeadroomOf = (ctx: Context, flavor: string, image: string | null | undefined): Promise<HeadroomView> => headroomOf(ctx, flavorRequest(ctx.db, flavor, image ?? null));

const FlavorHeadroomRef = builder.objectRef<{ flavor: string; headroom: HeadroomView }>('FlavorHeadroom').implement({
  description: 'Headroom of one flavor.',
  fields: (t) => ({
    flavor: t.field({ type: FlavorRef, description: 'The flavor.', resolve: async (f, _a, ctx) => (await ctx.loaders.flavors.byName.load(f.flavor))! }),
    headroom: t.expose('headroom', { type: HeadroomRef, description: 'Its headroom (the request Nova builds for it).' }),
  }),
});

builder.objectField(FlavorRef, 'headroom', (t) =>
  t.field({
    type: HeadroomRef,
    description: 'How many more servers of this flavor (booted from the image) fit, with the request Nova builds for them.',
    args: { image: t.arg.string({ required: false, description: 'The image name; none: an image without properties.' }) },
    resolve: (f, { image }, ctx) => flavorHeadroomOf(ctx, f.name, image),
  }),
);

builder.queryFields((t) => ({
  headroom: t.field({
    type: HeadroomRef,
    description: 'How many more instances of a request fit together on the free capacity of today: fits, atMost, exact, a plan, stranded capacity.',
    args: { request: t.arg({ type: CandidatesRequestInputRef, required: true, description: 'The request (its limit is ignored).' }) },
    resolve: (_root, { request }, ctx) => headroomOf(ctx, request as CandidatesRequestInput),
  }),
  flavorHeadroom: t.field({
    type: [FlavorHeadroomRef],
    description: 'Headroom of several flavors at once, each on its own (each count assumes only that flavor is placed).',
    args: {
      flavors: t.arg.stringList({ required: false, description: 'Flavor names; every stored flavor when absent.' }),
      image: t.arg.string({ required: false, description: 'The image name; none: an image without properties.' }),
    },
    resolve: async (_root, { flavors, image }, ctx) => {
      const names = flavors ?? flavorNames(ctx.db);
      const out = [];
      for (const flavor of names) out.push({ flavor, headroom: await flavorHeadroomOf(ctx, flavor, image) });
      return out;
    },
  }),
}));

// ---- History ----

const HistoryClassRef = builder.objectRef<HistorySample['classes'][number]>('CapacityHistoryClass').implement({
  description: 'Capacity and usage of one resource class at one sample.',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class.' }),
    capacity: t.expose('capacity', { type: 'SafeInt', description: "Sum of each inventory's floor((total - reserved) * allocation_ratio)." }),
    used: t.expose('used', { type: 'SafeInt', description: 'Sum of the allocations against them.' }),
  }),
});

const HistoryFlavorRef = builder.objectRef<HistorySample['flavors'][number]>('CapacityHistoryFlavor').implement({
  description: 'Headroom of one stored flavor at one sample.',
  fields: (t) => ({
    flavor: t.exposeString('flavor', { description: 'The flavor name.' }),
    fits: t.exposeInt('fits', { description: 'More servers of the flavor that fit together (headroom.fits, an image without properties).' }),
  }),
});

const HistorySampleRef = builder.objectRef<HistorySample>('CapacityHistorySample').implement({
  description: 'The capacity of the cloud at one moment.',
  fields: (t) => ({
    at: t.string({ description: 'When the sample was taken (ISO 8601).', resolve: (s) => new Date(s.at).toISOString() }),
    classes: t.expose('classes', { type: [HistoryClassRef], description: 'Per resource class, sorted by name.' }),
    flavors: t.expose('flavors', { type: [HistoryFlavorRef], description: 'Per stored flavor Nova can build a request for, sorted by name.' }),
  }),
});

const HistoryRef = builder.objectRef<{ history: CapacityHistory | null }>('CapacityHistory').implement({
  description: 'The capacity of the last hour, kept in memory by the serving process (a restart starts it afresh; Prometheus keeps longer ones from /metrics).',
  fields: (t) => ({
    intervalSeconds: t.float({ nullable: true, description: 'Seconds between two samples; null when this server keeps no history.', resolve: ({ history: h }) => (h ? h.intervalMs / 1000 : null) }),
    keptSeconds: t.float({ nullable: true, description: 'How far back samples are kept; null when this server keeps no history.', resolve: ({ history: h }) => (h ? h.keepMs / 1000 : null) }),
    samples: t.field({ type: [HistorySampleRef], description: 'The samples, oldest first (the first is taken when the server starts); empty when this server keeps no history (only `serve` keeps one).', resolve: ({ history: h }) => h?.samples() ?? [] }),
  }),
});

builder.queryFields((t) => ({
  capacityHistory: t.field({
    type: HistoryRef,
    description: 'Used and capacity per resource class and headroom per flavor over the last hour, sampled every 30 seconds by the serving process: the lines of the /dashboard page.',
    resolve: (_root, _args, ctx) => ({ history: ctx.history }),
  }),
}));
