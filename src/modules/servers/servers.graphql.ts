// Nova's servers (gateway mode, mirrored read-only): the instance behind a consumer.
import { builder } from '../../builder.js';
import { ConsumerRef } from '../allocations/allocations.graphql.js';
import type { ServerRow } from './servers.service.js';

const ServerRef = builder.objectRef<ServerRow>('Server').implement({
  description: "A Nova server (instance), mirrored from Nova's GET /servers/detail in gateway mode.",
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: "Its uuid: the consumer uuid of its allocations." }),
    name: t.exposeString('name', { description: 'Its name.' }),
    status: t.exposeString('status', { description: "Nova's status (ACTIVE, SHUTOFF, ERROR, BUILD...)." }),
    flavor: t.string({ nullable: true, description: "Its flavor's name (its id with a Nova older than 2.47).", resolve: (s) => s.flavor }),
    host: t.string({ nullable: true, description: 'The compute host it runs on (OS-EXT-SRV-ATTR:host); null when unscheduled.', resolve: (s) => s.host }),
    projectId: t.exposeString('projectId', { description: 'Its project.' }),
  }),
});

builder.objectField(ConsumerRef, 'server', (t) =>
  t.field({
    type: ServerRef,
    nullable: true,
    description: 'Gateway mode with Nova mirrored: the server this consumer is; null for another kind of consumer, an orphaned allocation, or when Nova is not mirrored.',
    resolve: (c, _args, ctx) => ctx.loaders.servers.byUuid.load(c.uuid),
  }),
);
