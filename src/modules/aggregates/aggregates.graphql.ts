// A provider's aggregates and setProviderAggregates.
import { builder } from '../../builder.js';
import { defineMutation } from '../common/mutation.js';
import { GenerationConflictError, NotFoundError } from '../common/errors.graphql.js';
import { ProviderPayload, ResourceProviderRef } from '../providers/providers.graphql.js';

builder.objectFields(ResourceProviderRef, (t) => ({
  aggregates: t.field({
    type: ['UUID'],
    description: 'Uuids of the aggregates it is in, sorted.',
    resolve: (p, _args, ctx) => ctx.loaders.aggregates.uuidsOfProvider.load(p.id),
  }),
}));

defineMutation('setProviderAggregates', {
  description: 'Replaces the aggregates of a provider (PUT .../aggregates); aggregates exist as long as a provider is in them.',
  input: (t) => ({
    providerUuid: t.field({ type: 'UUID', required: true, description: 'The provider.' }),
    generation: t.int({ required: true, description: 'The provider generation last read.' }),
    aggregates: t.field({ type: ['UUID'], required: true, description: 'The complete new set of aggregate uuids.' }),
  }),
  payload: ProviderPayload,
  errors: [NotFoundError, GenerationConflictError],
  resolve: async (input, ctx) => ({ provider: await ctx.writes.setProviderAggregates(input) }),
});
