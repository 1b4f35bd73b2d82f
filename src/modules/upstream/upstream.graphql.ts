// Gateway mode as seen through the API: the upstream's state, and a refresh on demand.
import { GraphQLError } from 'graphql';
import { builder } from '../../builder.js';
import type { UpstreamStatus } from '../../mirror/gateway.js';
import type { ServiceStatus } from '../../mirror/services.mirror.js';
import { explainFailure, isExplained } from '../../upstream/failure.js';
import type { SkippedReason } from '../../mirror/skipped.store.js';
import type { SkippedRecord } from '../../mirror/placement.records.js';

const SkippedReasonRef = builder.objectRef<SkippedReason>('UpstreamSkipReason').implement({
  description: 'One reason records of the upstream answers were not mirrored, and how many.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'What was skipped: provider, inventory, trait, aggregate, resource class, consumer, allocation (Placement), flavor, server (Nova), image (Glance) or node (Ironic).' }),
    reason: t.exposeString('reason', { description: 'The rule those records break, in plain words.' }),
    count: t.exposeInt('count', { description: 'How many records were skipped for it.' }),
  }),
});

const SkippedRecordRef = builder.objectRef<Omit<SkippedRecord, 'provider'>>('UpstreamSkippedRecord').implement({
  description: 'A record of the upstream answers that was not mirrored because it breaks a rule.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'provider, inventory, trait, aggregate, resource class, consumer, allocation, flavor, server, image or node.' }),
    record: t.exposeString('record', { description: 'Which record: its uuid, or its values quoted and cut short.' }),
    reason: t.exposeString('reason', { description: 'The rule it breaks.' }),
  }),
});

const UpstreamSkippedRef = builder.objectRef<{ count: number; reasons: SkippedReason[] }>('UpstreamSkipped').implement({
  description: "What the mirror did not take from the upstream answers (Placement's, and Nova's, Glance's and Ironic's): each record is checked before it is stored, and one that breaks a rule is left out.",
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'Records not mirrored (0 when the upstream answered only valid records).' }),
    reasons: t.field({ type: [SkippedReasonRef], description: 'Why, counted by reason (most frequent first, at most 20).', resolve: (s) => s.reasons }),
    records: t.field({
      type: [SkippedRecordRef],
      description: 'The records not mirrored, in the order they were met.',
      args: { first: t.arg.int({ defaultValue: 20, description: 'How many (at most 1000).' }) },
      resolve: (_s, { first }, ctx) => ctx.gateway?.skippedRecords(Math.min(Math.max(first ?? 20, 0), 1000)) ?? [],
    }),
  }),
});

const UpstreamServiceRef = builder.objectRef<ServiceStatus>('UpstreamService').implement({
  description: 'A service mirrored beside Placement, read-only: Nova (flavors, servers), Glance (images), Ironic (nodes).',
  fields: (t) => ({
    service: t.exposeString('service', { description: 'Its type in the service catalog: compute, image or baremetal.' }),
    name: t.exposeString('name', { description: 'Nova, Glance or Ironic.' }),
    url: t.string({ nullable: true, description: 'The endpoint mirrored (from the catalog, or --nova-url, --glance-url, --ironic-url); null when there is none.', resolve: (s) => s.url }),
    mirrored: t.exposeBoolean('mirrored', { description: "Whether it is mirrored: its mutations (createFlavor, createImage, the node mutations) are then refused here." }),
    note: t.string({ nullable: true, description: 'Why it is not mirrored, or what of it is not.', resolve: (s) => s.note }),
    lastSyncAt: t.string({ nullable: true, description: 'When it was last read (ISO 8601).', resolve: (s) => s.lastSyncAt }),
    items: t.exposeInt('items', { description: 'Flavors, images or bare-metal nodes in the mirror.' }),
    servers: t.int({ nullable: true, description: "compute: Nova's servers in the mirror; null when they are not mirrored.", resolve: (s) => s.servers }),
    skipped: t.exposeInt('skipped', { description: 'baremetal: Ironic nodes not mirrored because Placement has no provider of the same uuid (yet).' }),
    lastError: t.string({ nullable: true, description: 'Why its last read failed, in plain words (it keeps its previous state); null when it succeeded.', resolve: (s) => s.lastError }),
  }),
});

const UpstreamStatusRef = builder.objectRef<UpstreamStatus>('UpstreamStatus').implement({
  description: 'The live Placement this server mirrors and writes through to.',
  fields: (t) => ({
    url: t.exposeString('url', { description: "Placement's endpoint, without credentials (userinfo left out, query values as ***)." }),
    database: t.string({ nullable: true, description: "Placement's database when the mirror reads it (--placement-db), as mysql://HOST:PORT/NAME as USER, never with the password; null when the mirror reads Placement's API.", resolve: (s) => s.database }),
    statements: t.int({ nullable: true, description: "SQL statements sent to Placement's database since the server started; null when the mirror reads Placement's API.", resolve: (s) => s.statements }),
    microversion: t.exposeString('microversion', { description: 'The microversion every request sends (1.39, or the most the upstream serves).' }),
    lastSyncAt: t.string({ nullable: true, description: 'When the mirror was last refreshed in full (ISO 8601); null before the first refresh.', resolve: (s) => s.lastSyncAt }),
    lastSyncSeconds: t.float({ nullable: true, description: 'How long that refresh took.', resolve: (s) => s.lastSyncSeconds }),
    stale: t.exposeBoolean('stale', { description: 'True when no refresh succeeded in the last three intervals (or none yet): answers may be old.' }),
    providers: t.exposeInt('providers', { description: 'Providers in the mirror.' }),
    requests: t.exposeInt('requests', { description: 'Requests sent to Placement since the server started.' }),
    lastError: t.string({ nullable: true, description: 'Why the last refresh failed, in plain words (what, which service, the status, what to check); null when it succeeded.', resolve: (s) => s.lastError }),
    skipped: t.field({ type: UpstreamSkippedRef, description: 'Records of the upstream answers not mirrored because they break a rule, and why.', resolve: (s) => s.skipped }),
    disabledFeatures: t.exposeStringList('disabledFeatures', { description: 'What this Placement is too old for (empty at microversion 1.39).' }),
    services: t.field({ type: [UpstreamServiceRef], description: 'Nova, Glance and Ironic: which are mirrored beside Placement, and from where.', resolve: (_s, _a, ctx) => ctx.gateway?.services.status() ?? [] }),
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
        await ctx.gateway.refresh(undefined, { full: true });
      } catch (error) {
        if (!isExplained(error)) throw error;
        throw new GraphQLError(`The refresh failed; the mirror keeps its previous state. ${explainFailure(error)}`, { extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
      }
      ctx.changed();
      return ctx.gateway.status();
    },
  }),
);
