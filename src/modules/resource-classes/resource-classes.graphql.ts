// Resource classes: the catalog and its mutations.
import { builder } from '../../builder.js';
import { defineMutation } from '../common/mutation.js';
import { arrayPage, connectionOptions, edgeOptions, offsetConnection } from '../common/connection.js';
import { InUseError, NotFoundError } from '../common/errors.graphql.js';
import * as service from './resource-classes.service.js';
import type { ResourceClassRow } from './resource-classes.service.js';

const ResourceClassRef = builder.objectRef<ResourceClassRow>('ResourceClass');

builder.node(ResourceClassRef, {
  description: 'A kind of quantitative resource: standard (os-resource-classes) or CUSTOM_.',
  id: { resolve: (rc) => rc.name },
  loadOne: (name, ctx) => service.resourceClassByName(ctx.db, name),
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The natural key, e.g. VCPU or CUSTOM_BAREMETAL_GOLD.' }),
    standard: t.exposeBoolean('standard', { description: 'Whether it is one of the 21 standard classes.' }),
  }),
});

builder.queryFields((t) => ({
  resourceClass: t.field({
    type: ResourceClassRef,
    nullable: true,
    description: 'The resource class with this name, or null.',
    args: { name: t.arg.string({ required: true, description: 'Its name.' }) },
    resolve: (_root, { name }, ctx) => service.resourceClassByName(ctx.db, name),
  }),
  resourceClasses: t.connection(
    {
      type: ResourceClassRef,
      description: "Resource classes: the standard ones in Placement's order, then custom ones.",
      args: { custom: t.arg.boolean({ required: false, description: 'true: only CUSTOM_ classes; false: only standard ones.' }) },
      resolve: (_root, args, ctx) => offsetConnection(args, arrayPage(service.listResourceClasses(ctx.db, args.custom))),
    },
    connectionOptions('ResourceClass', 'resource classes'),
    edgeOptions('ResourceClass', 'resource classes'),
  ),
}));

const ResourceClassPayload = builder.objectRef<{ resourceClass: ResourceClassRow; created: boolean }>('ResourceClassPayload').implement({
  description: 'The resource class, and whether this call created it.',
  fields: (t) => ({
    resourceClass: t.field({ type: ResourceClassRef, description: 'The class.', resolve: (p) => p.resourceClass }),
    created: t.exposeBoolean('created', { description: 'false when it existed already (idempotent, as PUT /resource_classes/{name}).' }),
  }),
});

const DeletedResourceClassPayload = builder.objectRef<ResourceClassRow>('DeleteResourceClassPayload').implement({
  description: 'The resource class that was deleted.',
  fields: (t) => ({ name: t.exposeString('name', { description: 'Its name.' }) }),
});

defineMutation('createResourceClass', {
  description: 'Creates a CUSTOM_ resource class (^CUSTOM_[A-Z0-9_]+$, at most 255 characters); an existing class is returned unchanged.',
  input: (t) => ({ name: t.string({ required: true, description: 'The CUSTOM_ name.' }) }),
  payload: ResourceClassPayload,
  errors: [],
  resolve: (input, ctx) => ctx.writes.createResourceClass(input.name),
});

defineMutation('deleteResourceClass', {
  description: 'Deletes a CUSTOM_ resource class that no inventory uses. Standard classes cannot be deleted.',
  input: (t) => ({ name: t.string({ required: true, description: 'The class.' }) }),
  payload: DeletedResourceClassPayload,
  errors: [NotFoundError, InUseError],
  resolve: (input, ctx) => ctx.writes.deleteResourceClass(input.name),
});
