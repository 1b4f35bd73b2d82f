// Capacity: rollups per group and resource class.
import { builder } from '../../builder.js';
import { ResourceProviderRef, ResourceProviderFilter } from '../providers/providers.graphql.js';
import type { ProviderFilter } from '../providers/providers.service.js';
import { capacityRollup, type CapacityGroup, type CapacityGroupBy, type CapacityGroupKey, type CapacityResource } from './capacity.service.js';

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
    total: t.exposeInt('total', { description: 'Sum of the inventories\' total.' }),
    reserved: t.exposeInt('reserved', { description: 'Sum of the inventories\' reserved.' }),
    capacity: t.exposeInt('capacity', { description: "Sum of each inventory's floor((total - reserved) * allocation_ratio)." }),
    used: t.exposeInt('used', { description: 'Sum of the allocations against them.' }),
    free: t.exposeInt('free', { description: 'capacity - used (an inventory lowered below its usage counts negative).' }),
    providerCount: t.exposeInt('providerCount', { description: 'Providers of the group with an inventory of this class.' }),
  }),
});

const CapacityGroupKeyRef = builder.objectRef<CapacityGroupKey>('CapacityGroupKey').implement({
  description: 'What the providers of a group have in common; null for what the group is not keyed by (or an aggregate or trait the providers lack).',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { nullable: true, description: 'The resource class (groupBy RESOURCE_CLASS).' }),
    aggregate: t.field({ type: 'UUID', nullable: true, description: 'The aggregate uuid (groupBy AGGREGATE).', resolve: (k) => k.aggregate }),
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
  }),
});

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
}));
