// Traits: the catalog, a provider's traits, and their mutations.
import { builder } from '../../builder.js';
import { defineMutation } from '../common/mutation.js';
import { arrayPage, connectionOptions, edgeOptions, offsetConnection } from '../common/connection.js';
import { GenerationConflictError, InUseError, NotFoundError } from '../common/errors.graphql.js';
import { ProviderPayload, ResourceProviderRef } from '../providers/providers.graphql.js';
import * as service from './traits.service.js';
import type { TraitRow } from './traits.service.js';

export const TraitRef = builder.objectRef<TraitRow>('Trait');

builder.node(TraitRef, {
  description: 'A qualitative characteristic of a provider: standard (os-traits) or CUSTOM_.',
  id: { resolve: (t) => t.name },
  loadOne: (name, ctx) => service.traitByName(ctx.db, name),
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The natural key, e.g. HW_CPU_X86_AVX2 or CUSTOM_RAID.' }),
    standard: t.exposeBoolean('standard', { description: 'Whether it is one of the standard traits of os-traits.' }),
  }),
});

const TraitFilter = builder.inputType('TraitFilter', {
  description: "Placement's GET /traits filters.",
  fields: (t) => ({
    prefix: t.string({ required: false, description: 'Names starting with this (name=startswith:).' }),
    names: t.stringList({ required: false, description: 'Only these names (name=in:).' }),
    associated: t.boolean({ required: false, description: 'true: only traits some provider has; false: only traits no provider has.' }),
    custom: t.boolean({ required: false, description: 'true: only CUSTOM_ traits; false: only standard ones.' }),
  }),
});

builder.queryFields((t) => ({
  trait: t.field({
    type: TraitRef,
    nullable: true,
    description: 'The trait with this name, or null.',
    args: { name: t.arg.string({ required: true, description: 'Its name.' }) },
    resolve: (_root, { name }, ctx) => service.traitByName(ctx.db, name),
  }),
  traits: t.connection(
    {
      type: TraitRef,
      description: 'Traits, sorted by name.',
      args: { filter: t.arg({ type: TraitFilter, required: false, description: 'Which traits; all when absent.' }) },
      resolve: (_root, args, ctx) => offsetConnection(args, arrayPage(service.listTraits(ctx.db, args.filter ?? {}))),
    },
    connectionOptions('Trait', 'traits'),
    edgeOptions('Trait', 'traits'),
  ),
}));

builder.objectFields(ResourceProviderRef, (t) => ({
  traits: t.stringList({
    description: 'Names of its traits, sorted.',
    resolve: (p, _args, ctx) => ctx.loaders.traits.namesOfProvider.load(p.id),
  }),
}));

const TraitPayload = builder.objectRef<{ trait: TraitRow; created: boolean }>('TraitPayload').implement({
  description: 'The trait, and whether this call created it.',
  fields: (t) => ({
    trait: t.field({ type: TraitRef, description: 'The trait.', resolve: (p) => p.trait }),
    created: t.exposeBoolean('created', { description: 'false when it existed already (the call is idempotent, as PUT /traits/{name}).' }),
  }),
});

const DeletedTraitPayload = builder.objectRef<TraitRow>('DeleteTraitPayload').implement({
  description: 'The trait that was deleted.',
  fields: (t) => ({ name: t.exposeString('name', { description: 'Its name.' }) }),
});

defineMutation('createTrait', {
  description: 'Creates a CUSTOM_ trait (^CUSTOM_[A-Z0-9_]+$, at most 255 characters); an existing trait is returned unchanged.',
  input: (t) => ({ name: t.string({ required: true, description: 'The CUSTOM_ name.' }) }),
  payload: TraitPayload,
  errors: [],
  resolve: (input, ctx) => ctx.writes.createTrait(input.name),
});

defineMutation('deleteTrait', {
  description: 'Deletes a CUSTOM_ trait that no provider has. Standard traits cannot be deleted.',
  input: (t) => ({ name: t.string({ required: true, description: 'The trait.' }) }),
  payload: DeletedTraitPayload,
  errors: [NotFoundError, InUseError],
  resolve: (input, ctx) => ctx.writes.deleteTrait(input.name),
});

defineMutation('setProviderTraits', {
  description: 'Replaces the traits of a provider (PUT .../traits); every trait must exist.',
  input: (t) => ({
    providerUuid: t.field({ type: 'UUID', required: true, description: 'The provider.' }),
    generation: t.int({ required: true, description: 'The provider generation last read.' }),
    traits: t.stringList({ required: true, description: 'The complete new set of trait names.' }),
  }),
  payload: ProviderPayload,
  errors: [NotFoundError, GenerationConflictError],
  resolve: async (input, ctx) => ({ provider: await ctx.writes.setProviderTraits(input) }),
});
