// Consumers, allocations, usage totals, and their mutations.
import { builder } from '../../builder.js';
import { defineMutation } from '../common/mutation.js';
import { CapacityExceededError, GenerationConflictError, NotFoundError } from '../common/errors.graphql.js';
import { ResourceAmount, ResourceAmountInput } from '../common/common.graphql.js';
import { ResourceProviderRef } from '../providers/providers.graphql.js';
import type { ProviderRow } from '../providers/providers.service.js';
import * as service from './allocations.service.js';
import type { AllocationRow, ConsumerRow } from './allocations.service.js';
import { shownConsumerType } from '../../rules/names.js';

export const ConsumerRef = builder.objectRef<ConsumerRow>('Consumer');

/** Allocation rows of one consumer on one provider, as one object. */
interface Holding {
  consumerId: number;
  providerId: number;
  resources: { resourceClass: string; amount: number }[];
}

function holdings(rows: AllocationRow[]): Holding[] {
  const byKey = new Map<string, Holding>();
  for (const row of rows) {
    const key = `${row.consumerId}/${row.providerId}`;
    let holding = byKey.get(key);
    if (!holding) byKey.set(key, (holding = { consumerId: row.consumerId, providerId: row.providerId, resources: [] }));
    holding.resources.push({ resourceClass: row.resourceClass, amount: row.used });
  }
  return [...byKey.values()];
}

const Allocation = builder.objectRef<Holding>('Allocation').implement({
  description: 'What one consumer holds on one provider.',
  fields: (t) => ({
    consumer: t.field({ type: ConsumerRef, description: 'The consumer.', resolve: async (h, _args, ctx) => (await ctx.loaders.allocations.consumerById.load(h.consumerId))! }),
    provider: t.field({ type: ResourceProviderRef, description: 'The provider.', resolve: async (h, _args, ctx) => (await ctx.loaders.providers.byId.load(h.providerId))! }),
    resources: t.field({ type: [ResourceAmount], description: 'Amounts per resource class.', resolve: (h) => h.resources }),
  }),
});

builder.node(ConsumerRef, {
  description: 'An instance, migration or other user of resources, holding allocations on providers.',
  id: { resolve: (c) => c.uuid },
  loadOne: (uuid, ctx) => ctx.loaders.allocations.consumerByUuid.load(uuid),
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: 'The natural key (an instance uuid, for Nova).' }),
    projectId: t.exposeString('projectId', { description: 'The project it belongs to.' }),
    userId: t.exposeString('userId', { description: 'The user it belongs to.' }),
    consumerType: t.string({
      description: 'INSTANCE, MIGRATION, or another upper-case type; `unknown` for a consumer whose allocations were written without one (before Placement 1.38), as Placement shows it.',
      resolve: (c) => shownConsumerType(c.consumerType),
    }),
    generation: t.exposeInt('generation', { description: 'Bumped by every change to its allocations; send it back with a change.' }),
    allocations: t.field({
      type: [Allocation],
      description: 'What it holds, per provider.',
      resolve: async (c, _args, ctx) => holdings(await ctx.loaders.allocations.ofConsumer.load(c.id)),
    }),
  }),
});

builder.objectFields(ResourceProviderRef, (t) => ({
  allocations: t.field({
    type: [Allocation],
    description: 'What each consumer holds on this provider.',
    resolve: async (p: ProviderRow, _args, ctx) => holdings(await ctx.loaders.allocations.ofProvider.load(p.id)),
  }),
}));

const UsageGrouping = builder.enumType('UsageGrouping', {
  description: 'How usage totals are grouped.',
  values: {
    PROJECT: { description: 'One total per project.' },
    USER: { description: 'One total per user.' },
    CONSUMER_TYPE: { description: 'One total per consumer type.' },
  } as const,
});

const UsageTotal = builder.objectRef<service.UsageTotal>('UsageTotal').implement({
  description: 'Resources used by the consumers of one project, user or consumer type.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The project id, user id or consumer type (`unknown` for consumers without one).' }),
    consumerCount: t.exposeInt('consumerCount', { description: 'How many consumers it has.' }),
    resources: t.field({
      type: [ResourceAmount],
      description: 'Units used per resource class.',
      resolve: (u) => u.resources.map((r) => ({ resourceClass: r.resourceClass, amount: r.used })),
    }),
  }),
});

builder.queryFields((t) => ({
  consumer: t.field({
    type: ConsumerRef,
    nullable: true,
    description: 'The consumer with this uuid (one that holds allocations), or null.',
    args: { uuid: t.arg({ type: 'UUID', required: true, description: 'Its uuid.' }) },
    resolve: (_root, { uuid }, ctx) => ctx.loaders.allocations.consumerByUuid.load(uuid),
  }),
  usageTotals: t.field({
    type: [UsageTotal],
    description: 'Usage totals by project, user or consumer type, optionally narrowed (GET /usages, generalised).',
    args: {
      groupBy: t.arg({ type: UsageGrouping, required: true, description: 'What one total covers.' }),
      projectId: t.arg.string({ required: false, description: 'Only consumers of this project.' }),
      userId: t.arg.string({ required: false, description: 'Only consumers of this user.' }),
      consumerType: t.arg.string({ required: false, description: 'Only consumers of this type (`unknown`: those without one).' }),
    },
    resolve: (_root, args, ctx) => service.usageTotals(ctx.db, args.groupBy, args),
  }),
}));

const ProviderAllocationInput = builder.inputType('ProviderAllocationInput', {
  description: 'What the consumer takes from one provider.',
  fields: (t) => ({
    providerUuid: t.field({ type: 'UUID', required: true, description: 'The provider.' }),
    resources: t.field({ type: [ResourceAmountInput], required: true, description: 'Amounts per resource class.' }),
  }),
});

const ConsumerPayload = builder.objectRef<{ consumer: ConsumerRow | null; consumerUuid: string; providerUuids: string[] }>('ConsumerPayload').implement({
  description: 'The consumer after the change.',
  fields: (t) => ({
    consumerUuid: t.exposeString('consumerUuid', { description: 'The consumer changed.' }),
    consumer: t.field({ type: ConsumerRef, nullable: true, description: 'The consumer as it is now; null when it holds nothing any more.', resolve: (p) => p.consumer }),
    providerUuids: t.field({ type: ['UUID'], description: 'Providers whose usage changed (held before or now).', resolve: (p) => p.providerUuids }),
  }),
});

defineMutation('setAllocations', {
  description:
    'Replaces every allocation of a consumer (PUT /allocations/{consumer}, 1.38): each amount must fit capacity, min_unit, max_unit and step_size. An empty list removes them.',
  input: (t) => ({
    consumerUuid: t.field({ type: 'UUID', required: true, description: 'The consumer.' }),
    consumerGeneration: t.int({ required: false, description: 'The consumer generation last read; null (or absent) for a new consumer.' }),
    projectId: t.string({ required: true, description: 'The project of the consumer.' }),
    userId: t.string({ required: true, description: 'The user of the consumer.' }),
    consumerType: t.string({ required: false, description: 'INSTANCE (default), MIGRATION or another ^[A-Z0-9_]+$ type.' }),
    allocations: t.field({ type: [ProviderAllocationInput], required: true, description: 'The complete new set, per provider.' }),
  }),
  payload: ConsumerPayload,
  errors: [GenerationConflictError, CapacityExceededError],
  resolve: async (input, ctx) => ({
    consumerUuid: input.consumerUuid,
    ...(await ctx.writes.setAllocations({ ...input, consumerGeneration: input.consumerGeneration ?? null })),
  }),
});

defineMutation('deleteAllocations', {
  description: 'Removes every allocation of a consumer, and the consumer (DELETE /allocations/{consumer}).',
  input: (t) => ({ consumerUuid: t.field({ type: 'UUID', required: true, description: 'The consumer.' }) }),
  payload: ConsumerPayload,
  errors: [NotFoundError],
  resolve: async (input, ctx) => ({ consumerUuid: input.consumerUuid, consumer: null, ...(await ctx.writes.deleteAllocations(input.consumerUuid)) }),
});
