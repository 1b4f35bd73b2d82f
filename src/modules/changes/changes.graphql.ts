// Subscriptions (over SSE) to committed changes: providers, usage, provider-config applies.
import { filter, pipe } from 'graphql-yoga';
import { builder } from '../../builder.js';
import { ResourceProviderRef } from '../providers/providers.graphql.js';
import type { ProviderChange, ProviderConfigApplied, UsageChange } from './changes.feed.js';

const ProviderChangeKind = builder.enumType('ProviderChangeKind', {
  description: 'What part of a provider changed.',
  values: {
    INVENTORIES: { description: 'Its inventories were replaced.' },
    TRAITS: { description: 'Its traits were replaced.' },
    AGGREGATES: { description: 'Its aggregates were replaced.' },
    PROVIDER: { description: 'It was created, renamed or moved.' },
    DELETED: { description: 'It was deleted.' },
  } as const,
});

const ProviderChangeRef = builder.objectRef<ProviderChange>('ProviderChange').implement({
  description: 'A committed change to one provider.',
  fields: (t) => ({
    kind: t.field({ type: ProviderChangeKind, description: 'What changed.', resolve: (c) => c.kind }),
    mutation: t.exposeString('mutation', { description: 'The mutation that made the change.' }),
    providerUuid: t.field({ type: 'UUID', description: 'The provider changed.', resolve: (c) => c.providerUuid }),
    provider: t.field({
      type: ResourceProviderRef,
      nullable: true,
      description: 'The provider as it is now; null once deleted.',
      resolve: (c, _args, ctx) => ctx.loaders.providers.byUuid.load(c.providerUuid),
    }),
  }),
});

const UsageChangeRef = builder.objectRef<UsageChange>('UsageChange').implement({
  description: 'A committed change to the allocations of one consumer.',
  fields: (t) => ({
    mutation: t.exposeString('mutation', { description: 'The mutation that made the change.' }),
    consumerUuid: t.field({ type: 'UUID', description: 'The consumer whose allocations changed.', resolve: (c) => c.consumerUuid }),
    providerUuids: t.field({ type: ['UUID'], description: 'Providers whose usage changed.', resolve: (c) => c.providerUuids }),
    providers: t.field({
      type: [ResourceProviderRef],
      description: 'Those providers as they are now, with their usage.',
      resolve: async (c, _args, ctx) => (await ctx.loaders.providers.byUuid.loadMany(c.providerUuids)).filter((p): p is any => !!p && !(p instanceof Error)),
    }),
  }),
});

const ProviderConfigAppliedRef = builder.objectRef<ProviderConfigApplied>('ProviderConfigApplied').implement({
  description: 'A provider-config apply that was committed.',
  fields: (t) => ({
    documents: t.exposeStringList('documents', { description: 'The documents applied, in the order applied.' }),
    providerUuids: t.field({ type: ['UUID'], description: 'Providers the apply changed.', resolve: (c) => c.providerUuids }),
  }),
});

const touches = (uuids: readonly string[] | null | undefined, providerUuids: readonly string[]) => !uuids?.length || providerUuids.some((u) => uuids.includes(u));

builder.subscriptionType({ description: 'Live updates for dashboards, over server-sent events (Accept: text/event-stream).' });

builder.subscriptionFields((t) => ({
  providerChanged: t.field({
    type: ProviderChangeRef,
    description: 'Each committed change to a provider: inventories, traits, aggregates, name, parent, deletion.',
    args: { uuids: t.arg({ type: ['UUID'], required: false, description: 'Only these providers; all when absent.' }) },
    subscribe: (_root, args, ctx) => pipe(ctx.feed.subscribe('providerChanged'), filter((c: ProviderChange) => touches(args.uuids, [c.providerUuid]))),
    resolve: (change) => change,
  }),
  usageChanged: t.field({
    type: UsageChangeRef,
    description: 'Each committed change to allocations, with the providers whose usage changed.',
    args: { providerUuids: t.arg({ type: ['UUID'], required: false, description: 'Only changes touching these providers; all when absent.' }) },
    subscribe: (_root, args, ctx) => pipe(ctx.feed.subscribe('usageChanged'), filter((c: UsageChange) => touches(args.providerUuids, c.providerUuids))),
    resolve: (change) => change,
  }),
  providerConfigApplied: t.field({
    type: ProviderConfigAppliedRef,
    description: 'Each committed provider-config apply.',
    subscribe: (_root, _args, ctx) => ctx.feed.subscribe('providerConfigApplied'),
    resolve: (applied) => applied,
  }),
}));
