// ResourceProvider: the node type, its tree relations, lookups, listing, and its mutations.
import { builder } from '../../builder.js';
import { defineMutation } from '../common/mutation.js';
import { DuplicateNameError, InUseError, NotFoundError } from '../common/errors.graphql.js';
import { connectionOptions, edgeOptions, offsetConnection } from '../common/connection.js';
import { ResourceAmountInput } from '../common/common.graphql.js';
import * as service from './providers.service.js';
import type { ProviderRow } from './providers.service.js';
import { knownParent, knownRoot } from './providers.links.js';

export const ResourceProviderRef = builder.objectRef<ProviderRow>('ResourceProvider');

builder.node(ResourceProviderRef, {
  description: 'A resource provider: a compute node, a NUMA node, a NIC, a shared-storage pool, a bare-metal node...',
  id: { resolve: (p) => p.uuid },
  loadOne: (uuid, ctx) => ctx.loaders.providers.byUuid.load(uuid),
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: 'The natural key of the provider.' }),
    name: t.exposeString('name', { description: 'A unique name, at most 200 characters.' }),
    generation: t.exposeInt('generation', { description: 'Bumped by every change to its inventories, traits, aggregates or allocations; send it back with a change.' }),
    createdAt: t.exposeString('createdAt', { description: 'When it was created (ISO 8601, UTC).' }),
    updatedAt: t.exposeString('updatedAt', { description: 'When it was last changed (ISO 8601, UTC).' }),
    parent: t.field({
      type: ResourceProviderRef,
      nullable: true,
      description: 'The parent provider; null for a root.',
      extensions: { answerJsonValue: knownParent },
      resolve: (p, _args, ctx) => (p.parentId == null ? null : (knownParent(p) ?? ctx.loaders.providers.byId.load(p.parentId))),
    }),
    root: t.field({
      type: ResourceProviderRef,
      description: 'The root of its tree (itself for a root).',
      extensions: { answerJsonValue: knownRoot },
      resolve: async (p, _args, ctx) => (p.rootId === p.id ? p : (knownRoot(p) ?? (await ctx.loaders.providers.byId.load(p.rootId))!)),
    }),
    isRoot: t.boolean({ description: 'Whether it is the root of its tree.', resolve: (p) => p.rootId === p.id }),
    children: t.field({
      type: [ResourceProviderRef],
      description: 'Its direct children, in creation order.',
      resolve: (p, _args, ctx) => ctx.loaders.providers.childrenOf.load(p.id),
    }),
    descendants: t.field({
      type: [ResourceProviderRef],
      description: 'Every provider below it in its tree, parents before children.',
      resolve: async (p, _args, ctx) => descendantsOf(p, await ctx.loaders.providers.treeOf.load(p.rootId)),
    }),
    tree: t.field({
      type: [ResourceProviderRef],
      description: 'Every provider of its tree, the root first.',
      resolve: (p, _args, ctx) => ctx.loaders.providers.treeOf.load(p.rootId),
    }),
  }),
});

/** The providers below `provider` in a tree given as rows, parents before children. */
function descendantsOf(provider: ProviderRow, tree: ProviderRow[]): ProviderRow[] {
  const result: ProviderRow[] = [];
  const below = new Set([provider.id]);
  // Rows come in creation order, but a re-parented provider may precede its new parent: repeat until stable.
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of tree) {
      if (row.parentId != null && below.has(row.parentId) && !below.has(row.id)) {
        below.add(row.id);
        result.push(row);
        grew = true;
      }
    }
  }
  return result;
}

export const ResourceProviderFilter = builder.inputType('ResourceProviderFilter', {
  description: "Placement's GET /resource_providers filters (microversion 1.39): every filter applies to the provider itself.",
  fields: (t) => ({
    name: t.string({ required: false, description: 'Exactly this name.' }),
    uuid: t.field({ type: 'UUID', required: false, description: 'Exactly this uuid.' }),
    inTree: t.field({ type: 'UUID', required: false, description: 'In the same tree as this provider (any provider of the tree).' }),
    memberOf: t.field({
      type: t.listRef(t.listRef('UUID')),
      required: false,
      description: 'Each inner list is an any-of set of aggregates; the provider must be in one aggregate of every set.',
    }),
    notMemberOf: t.field({ type: ['UUID'], required: false, description: 'In none of these aggregates.' }),
    required: t.stringList({ required: false, description: 'Has every one of these traits.' }),
    forbidden: t.stringList({ required: false, description: 'Has none of these traits.' }),
    anyOf: t.field({ type: t.listRef(t.listRef('String')), required: false, description: 'Has at least one trait of every set.' }),
    resources: t.field({
      type: [ResourceAmountInput],
      required: false,
      description: 'Can take each amount now: used + amount <= capacity, min_unit <= amount <= max_unit, amount % step_size = 0.',
    }),
  }),
});

builder.queryFields((t) => ({
  resourceProvider: t.field({
    type: ResourceProviderRef,
    nullable: true,
    description: 'The provider with this uuid, or null.',
    args: { uuid: t.arg({ type: 'UUID', required: true, description: 'Its uuid.' }) },
    resolve: (_root, { uuid }, ctx) => ctx.loaders.providers.byUuid.load(uuid),
  }),
  resourceProviders: t.connection(
    {
      type: ResourceProviderRef,
      description: 'Providers matching a filter, in creation order.',
      args: { filter: t.arg({ type: ResourceProviderFilter, required: false, description: 'Which providers; all when absent.' }) },
      resolve: (_root, args, ctx) =>
        offsetConnection(args, (page) => {
          const result = service.listProviders(ctx.db, args.filter ?? {}, page);
          ctx.loaders.providers.prime(result.rows);
          return result;
        }),
    },
    connectionOptions('ResourceProvider', 'resource providers'),
    edgeOptions('ResourceProvider', 'resource providers'),
  ),
}));

export const ProviderPayload = builder.objectRef<{ provider: ProviderRow }>('ResourceProviderPayload').implement({
  description: 'The provider after the change.',
  fields: (t) => ({
    provider: t.field({ type: ResourceProviderRef, description: 'The provider as it is now.', resolve: (p) => p.provider }),
  }),
});

const DeletedProviderPayload = builder.objectRef<{ provider: ProviderRow }>('DeleteResourceProviderPayload').implement({
  description: 'The provider that was deleted.',
  fields: (t) => ({
    uuid: t.string({ description: 'Uuid of the deleted provider.', resolve: (p) => p.provider.uuid }),
    name: t.string({ description: 'Name of the deleted provider.', resolve: (p) => p.provider.name }),
  }),
});

defineMutation('createResourceProvider', {
  description: 'Creates a provider, a root or the child of another (POST /resource_providers).',
  input: (t) => ({
    name: t.string({ required: true, description: 'A unique name, at most 200 characters.' }),
    uuid: t.field({ type: 'UUID', required: false, description: 'Its uuid; generated when absent.' }),
    parentUuid: t.field({ type: 'UUID', required: false, description: 'The parent provider; absent for a root.' }),
  }),
  payload: ProviderPayload,
  errors: [DuplicateNameError],
  resolve: async (input, ctx) => ({ provider: await ctx.writes.createProvider(input) }),
});

defineMutation('updateResourceProvider', {
  description: 'Renames a provider and/or moves it under another parent or to the top of its own tree (PUT /resource_providers/{uuid}).',
  input: (t) => ({
    uuid: t.field({ type: 'UUID', required: true, description: 'The provider to change.' }),
    name: t.string({ required: false, description: 'The new name; absent keeps it.' }),
    parentUuid: t.field({ type: 'UUID', required: false, description: 'The new parent; null makes it a root; absent keeps the parent.' }),
  }),
  payload: ProviderPayload,
  errors: [NotFoundError, DuplicateNameError],
  resolve: async (input, ctx) => ({ provider: await ctx.writes.updateProvider(input) }),
});

defineMutation('deleteResourceProvider', {
  description: 'Deletes a provider with its inventories, traits and aggregates; refused while it has children or allocations.',
  input: (t) => ({ uuid: t.field({ type: 'UUID', required: true, description: 'The provider to delete.' }) }),
  payload: DeletedProviderPayload,
  errors: [NotFoundError, InUseError],
  resolve: async (input, ctx) => ({ provider: await ctx.writes.deleteProvider(input.uuid) }),
});
