// Inventory and usage of a provider, setInventories and setInventory.
import { builder, type InputFieldBuilder } from '../../builder.js';
import * as through from '../../upstream/write-through.js';
import { defineMutation } from '../common/mutation.js';
import { GenerationConflictError, InUseError, NotFoundError } from '../common/errors.graphql.js';
import { ProviderPayload, ResourceProviderRef } from '../providers/providers.graphql.js';
import { capacityOf } from '../../rules/capacity.js';
import { refuseCapacitiesOutOfRange, setInventories, setInventory, type InventoryFields, type InventoryRow } from './inventories.service.js';

/** The fields of an inventory's values, shared by every type that shows them. */
export const inventoryValueFields = (t: any) => ({
  total: t.exposeInt('total', { description: 'Units the provider has.' }),
  reserved: t.exposeInt('reserved', { description: 'Units kept back from allocation.' }),
  minUnit: t.exposeInt('minUnit', { description: 'Smallest amount one allocation may take.' }),
  maxUnit: t.exposeInt('maxUnit', { description: 'Largest amount one allocation may take.' }),
  stepSize: t.exposeInt('stepSize', { description: 'Every allocation is a multiple of this.' }),
  allocationRatio: t.exposeFloat('allocationRatio', { description: 'Overcommit factor.' }),
  capacity: t.int({ description: 'floor((total - reserved) * allocationRatio): what may be allocated in all.', resolve: (inv: InventoryFields) => capacityOf(inv) }),
});

const Inventory = builder.objectRef<InventoryRow>('Inventory').implement({
  description: 'How much of one resource class a provider has, and how much of it is used.',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class.' }),
    ...inventoryValueFields(t),
    used: t.exposeInt('used', { description: 'Units allocated to consumers.' }),
    free: t.int({ description: 'capacity - used (negative when the inventory was reduced below its usage).', resolve: (inv) => capacityOf(inv) - inv.used }),
  }),
});

const Usage = builder.objectRef<{ resourceClass: string; used: number }>('Usage').implement({
  description: 'Units of one resource class allocated on a provider.',
  fields: (t) => ({
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class.' }),
    used: t.exposeInt('used', { description: 'Units allocated.' }),
  }),
});

builder.objectFields(ResourceProviderRef, (t) => ({
  inventories: t.field({
    type: [Inventory],
    description: 'Its inventories, in resource class order, with capacity and usage.',
    resolve: (p, _args, ctx) => ctx.loaders.inventories.ofProvider.load(p.id),
  }),
  usages: t.field({
    type: [Usage],
    description: 'Units used of every class it has inventory of (GET .../usages).',
    resolve: async (p, _args, ctx) => (await ctx.loaders.inventories.ofProvider.load(p.id)).map((inv) => ({ resourceClass: inv.resourceClass, used: inv.used })),
  }),
}));

/** The input fields of one inventory record, shared by setInventories' records and setInventory. */
const inventoryInputFields = (t: InputFieldBuilder) => ({
  resourceClass: t.string({ required: true, description: 'A standard or existing CUSTOM_ resource class.' }),
  total: t.int({ required: true, description: 'Units the provider has (at least 1).' }),
  reserved: t.int({ required: false, description: 'Units kept back (default 0, at most total).' }),
  minUnit: t.int({ required: false, description: 'Smallest allocation (default 1).' }),
  maxUnit: t.int({ required: false, description: 'Largest allocation (default 2147483647).' }),
  stepSize: t.int({ required: false, description: 'Allocation granularity (default 1).' }),
  allocationRatio: t.float({ required: false, description: 'Overcommit factor (default 1.0).' }),
});

const InventoryInput = builder.inputType('InventoryInput', {
  description: "One inventory record; omitted fields take Placement's defaults.",
  fields: inventoryInputFields,
});

defineMutation('setInventories', {
  description: 'Replaces every inventory of a provider (PUT .../inventories). A class that still has allocations cannot be removed.',
  input: (t) => ({
    providerUuid: t.field({ type: 'UUID', required: true, description: 'The provider.' }),
    generation: t.int({ required: true, description: 'The provider generation last read.' }),
    inventories: t.field({ type: [InventoryInput], required: true, description: 'The complete new set; an empty list removes all.' }),
  }),
  payload: ProviderPayload,
  errors: [NotFoundError, GenerationConflictError, InUseError],
  resolve: (input, ctx) => ({ provider: setInventories(ctx.db, input) }),
  upstream: async (input, _ctx, gateway) => {
    refuseCapacitiesOutOfRange(input.inventories.map((inventory, n) => ({ inventory, path: `inventories.${n}` })));
    return { provider: await through.setInventories(gateway, input) };
  },
  events: ({ provider }) => [{ topic: 'providerChanged', payload: { mutation: 'setInventories', providerUuid: provider.uuid, kind: 'INVENTORIES' } }],
});

defineMutation('setInventory', {
  description:
    "Creates or replaces the inventory of one resource class, leaving the provider's other inventories as they are (PUT .../inventories/{rc}; osc-placement's --amend). Omitted fields take Placement's defaults.",
  input: (t) => ({
    providerUuid: t.field({ type: 'UUID', required: true, description: 'The provider.' }),
    generation: t.int({ required: true, description: 'The provider generation last read.' }),
    ...inventoryInputFields(t),
  }),
  payload: ProviderPayload,
  errors: [NotFoundError, GenerationConflictError],
  resolve: (input, ctx) => ({ provider: setInventory(ctx.db, input) }),
  upstream: async (input, _ctx, gateway) => {
    refuseCapacitiesOutOfRange([{ inventory: input, path: '' }]);
    return { provider: await through.setInventory(gateway, input) };
  },
  events: ({ provider }) => [{ topic: 'providerChanged', payload: { mutation: 'setInventory', providerUuid: provider.uuid, kind: 'INVENTORIES' } }],
});
