// Gateway mode as seen through the API: the upstream's state, and a refresh on demand.
import { GraphQLError } from 'graphql';
import { builder } from '../../builder.js';
import type { UpstreamStatus } from '../../upstream/gateway.js';
import { explainFailure } from '../../upstream/failure.js';

const UpstreamStatusRef = builder.objectRef<UpstreamStatus>('UpstreamStatus').implement({
  description: 'The live Placement this server mirrors and writes through to.',
  fields: (t) => ({
    url: t.exposeString('url', { description: "Placement's endpoint." }),
    microversion: t.exposeString('microversion', { description: 'The microversion every request sends (1.39, or the most the upstream serves).' }),
    lastSyncAt: t.string({ nullable: true, description: 'When the mirror was last refreshed in full (ISO 8601); null before the first refresh.', resolve: (s) => s.lastSyncAt }),
    lastSyncSeconds: t.float({ nullable: true, description: 'How long that refresh took.', resolve: (s) => s.lastSyncSeconds }),
    stale: t.exposeBoolean('stale', { description: 'True when no refresh succeeded in the last three intervals (or none yet): answers may be old.' }),
    providers: t.exposeInt('providers', { description: 'Providers in the mirror.' }),
    requests: t.exposeInt('requests', { description: 'Requests sent to Placement since the server started.' }),
    lastError: t.string({ nullable: true, description: 'Why the last refresh failed; null when it succeeded.', resolve: (s) => s.lastError }),
    disabledFeatures: t.exposeStringList('disabledFeatures', { description: 'What this Placement is too old for (empty at microversion 1.39).' }),
  }),
});

builder.queryField('upstream', (t) =>
  t.field({
    type: UpstreamStatusRef,
    nullable: true,
    description: 'Gateway mode: the Placement mirrored and written through to; null in standalone mode.',
    resolve: (_root, _args, ctx) => ctx.gateway?.status() ?? null,
  }),
);

builder.mutationField('syncUpstream', (t) =>
  t.field({
    type: UpstreamStatusRef,
    description: 'Gateway mode (admin): refreshes the mirror from Placement now and answers when it is done.',
    resolve: async (_root, _args, ctx) => {
      if (!ctx.gateway) throw new GraphQLError('syncUpstream needs gateway mode: this server has no upstream (serve --upstream URL or --os-cloud NAME).', { extensions: { code: 'NOT_IN_GATEWAY_MODE' } });
      try {
        await ctx.gateway.refresh();
      } catch (error) {
        const message = explainFailure(error);
        if (!message) throw error;
        throw new GraphQLError(`The refresh failed; the mirror keeps its previous state. ${message}`, { extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
      }
      ctx.changed();
      return ctx.gateway.status();
    },
  }),
);
