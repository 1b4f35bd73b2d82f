// Every operation that changes data, in one table: what it does on this server's own database, what
// subscribers are told once it is committed, and whose data it is in a live cloud. The write port
// (Writes) is made from it; its adapters apply the operations locally (local.ts) or through the
// services that own the data (src/mirror/gateway.writes.ts). Resolvers, the REST API and the command
// line call `writes.*` and know nothing of which adapter runs.
import type { Db } from '../db/client.js';
import type { ChangeEvent, ProviderChange } from '../modules/changes/changes.feed.js';
import * as providers from '../modules/providers/providers.service.js';
import * as inventories from '../modules/inventories/inventories.service.js';
import * as traits from '../modules/traits/traits.service.js';
import * as aggregates from '../modules/aggregates/aggregates.service.js';
import * as allocations from '../modules/allocations/allocations.service.js';
import { reshape } from '../modules/allocations/allocations.reshape.js';
import * as resourceClasses from '../modules/resource-classes/resource-classes.service.js';
import * as providerConfig from '../modules/provider-config/provider-config.service.js';
import * as flavors from '../modules/flavors/flavors.service.js';
import * as images from '../modules/images/images.service.js';
import * as nodes from '../modules/nodes/nodes.service.js';

/** The services of a cloud that own data this server can also hold. */
export type OwningService = 'compute' | 'image' | 'baremetal';

export interface Owner {
  service: OwningService;
  /** What it owns, in the plural ("flavors"). */
  what: string;
  /** How to make the change there instead. */
  use: string;
}

interface Operation<I, R> {
  /** The change on this server's database; it runs inside one transaction. */
  apply: (db: Db, input: I) => R;
  /** What subscribers are told once it is committed. */
  events?: (result: R, input: I) => ChangeEvent[];
  /** Data owned by Nova, Glance or Ironic: refused in gateway mode while that service is mirrored. */
  owner?: Owner;
  /** Also changes Placement's data (a node's provider): refused in gateway mode whatever is mirrored. */
  placementToo?: boolean;
}

const operation = <I, R>(op: Operation<I, R>) => op;

const providerChanged = (mutation: string, providerUuid: string, kind: ProviderChange['kind']): ChangeEvent => ({ topic: 'providerChanged', payload: { mutation, providerUuid, kind } });
const usageChanged = (mutation: string, consumerUuid: string, providerUuids: string[]): ChangeEvent => ({ topic: 'usageChanged', payload: { mutation, consumerUuid, providerUuids } });

const COMPUTE = (use: string): Owner => ({ service: 'compute', what: 'flavors', use });
const IMAGE = (use: string): Owner => ({ service: 'image', what: 'images', use });
const BAREMETAL = (use: string): Owner => ({ service: 'baremetal', what: 'bare-metal nodes', use });

/** A node operation: Ironic's data and its provider's in Placement. */
const nodeOperation = <I, R>(use: string, apply: (db: Db, input: I) => R, events: (result: R, input: I) => ChangeEvent[]) =>
  operation<I, R>({ apply, events, owner: BAREMETAL(use), placementToo: true });
const nodeEvent = (name: string, kind: ProviderChange['kind']) => (node: nodes.NodeRow) => [providerChanged(name, node.uuid, kind)];

export const OPERATIONS = {
  // Placement's data.
  createProvider: operation({ apply: providers.createProvider, events: (p) => [providerChanged('createResourceProvider', p.uuid, 'PROVIDER')] }),
  updateProvider: operation({ apply: providers.updateProvider, events: (p) => [providerChanged('updateResourceProvider', p.uuid, 'PROVIDER')] }),
  deleteProvider: operation({ apply: providers.deleteProvider, events: (p) => [providerChanged('deleteResourceProvider', p.uuid, 'DELETED')] }),
  setInventories: operation({ apply: inventories.setInventories, events: (p) => [providerChanged('setInventories', p.uuid, 'INVENTORIES')] }),
  setInventory: operation({ apply: inventories.setInventory, events: (p) => [providerChanged('setInventory', p.uuid, 'INVENTORIES')] }),
  addInventory: operation({ apply: inventories.addInventory, events: (r) => [providerChanged('addInventory', r.provider.uuid, 'INVENTORIES')] }),
  updateInventory: operation({ apply: inventories.updateInventory, events: (r) => [providerChanged('updateInventory', r.provider.uuid, 'INVENTORIES')] }),
  deleteInventory: operation({ apply: inventories.deleteInventory, events: (p) => [providerChanged('deleteInventory', p.uuid, 'INVENTORIES')] }),
  deleteInventories: operation({ apply: inventories.deleteInventories, events: (p) => [providerChanged('deleteInventories', p.uuid, 'INVENTORIES')] }),
  setProviderTraits: operation({ apply: traits.setProviderTraits, events: (p) => [providerChanged('setProviderTraits', p.uuid, 'TRAITS')] }),
  deleteProviderTraits: operation({ apply: traits.deleteProviderTraits, events: (p) => [providerChanged('deleteProviderTraits', p.uuid, 'TRAITS')] }),
  setProviderAggregates: operation({ apply: aggregates.setProviderAggregates, events: (p) => [providerChanged('setProviderAggregates', p.uuid, 'AGGREGATES')] }),
  setAllocations: operation({ apply: allocations.setAllocations, events: (r, input) => [usageChanged('setAllocations', input.consumerUuid, r.providerUuids)] }),
  deleteAllocations: operation({ apply: allocations.deleteAllocations, events: (r, consumerUuid) => [usageChanged('deleteAllocations', consumerUuid, r.providerUuids)] }),
  reshape: operation({
    apply: reshape,
    events: (r) => [...r.providerUuids.map((uuid) => providerChanged('reshape', uuid, 'INVENTORIES')), ...r.consumers.map((c) => usageChanged('reshape', c.consumerUuid, c.providerUuids))],
  }),
  writeAllocations: operation({ apply: allocations.writeAllocations, events: (r) => r.consumers.map((c) => usageChanged('writeAllocations', c.consumerUuid, c.providerUuids)) }),
  createTrait: operation({ apply: traits.createTrait }),
  deleteTrait: operation({ apply: traits.deleteTrait }),
  createResourceClass: operation({ apply: resourceClasses.createResourceClass }),
  renameResourceClass: operation({ apply: resourceClasses.renameResourceClass }),
  deleteResourceClass: operation({ apply: resourceClasses.deleteResourceClass }),
  applyProviderConfig: operation({
    apply: providerConfig.applyProviderConfig,
    events: (plan) =>
      plan.applied
        ? [{ topic: 'providerConfigApplied', payload: { documents: plan.documents, providerUuids: plan.providers.filter(providerConfig.isChanged).map((p) => p.provider.uuid) } }]
        : [],
  }),

  // Nova's flavors and Glance's images.
  createFlavor: operation({ apply: flavors.createFlavor, owner: COMPUTE('create it with `openstack flavor create`') }),
  deleteFlavor: operation({ apply: flavors.deleteFlavor, owner: COMPUTE('delete it with `openstack flavor delete`') }),
  setFlavorExtraSpecs: operation({ apply: flavors.setFlavorExtraSpecs, owner: COMPUTE('set them with `openstack flavor set --property KEY=VALUE`') }),
  unsetFlavorExtraSpecs: operation({ apply: flavors.unsetFlavorExtraSpecs, owner: COMPUTE('unset them with `openstack flavor unset --property KEY`') }),
  createImage: operation({ apply: images.createImage, owner: IMAGE('create it with `openstack image create`') }),
  deleteImage: operation({ apply: images.deleteImage, owner: IMAGE('delete it with `openstack image delete`') }),
  setImageProperties: operation({
    apply: images.setImageProperties,
    owner: IMAGE('change them with `openstack image set --property KEY=VALUE` and `openstack image unset --property KEY`'),
  }),

  // Ironic's nodes, with their providers.
  createNode: nodeOperation('create it with `openstack baremetal node create`', nodes.createNode, nodeEvent('createNode', 'PROVIDER')),
  deleteNode: nodeOperation('delete it with `openstack baremetal node delete`', nodes.deleteNode, nodeEvent('deleteNode', 'DELETED')),
  setNodeTraits: nodeOperation('set them with `openstack baremetal node remove trait --all` and `openstack baremetal node add trait`', nodes.setNodeTraits, nodeEvent('setNodeTraits', 'TRAITS')),
  addNodeTraits: nodeOperation('add them with `openstack baremetal node add trait`', nodes.addNodeTraits, nodeEvent('addNodeTraits', 'TRAITS')),
  removeNodeTraits: nodeOperation('remove them with `openstack baremetal node remove trait`', nodes.removeNodeTraits, nodeEvent('removeNodeTraits', 'TRAITS')),
  clearNodeTraits: nodeOperation('clear them with `openstack baremetal node remove trait --all`', nodes.clearNodeTraits, nodeEvent('clearNodeTraits', 'TRAITS')),
  syncNodeTraits: nodeOperation("Nova's ironic driver copies node traits to their providers at its next update",
    nodes.syncNodeTraits,
    (synced) => synced.flatMap(nodeEvent('syncNodeTraits', 'TRAITS')),
  ),
  setNodeProvisionState: nodeOperation('change it with `openstack baremetal node manage` or `openstack baremetal node provide`',
    nodes.setNodeProvisionState,
    nodeEvent('setNodeProvisionState', 'INVENTORIES'),
  ),
  deployNode: nodeOperation('boot a server on it with `openstack server create` (Nova deploys it through Ironic)',
    nodes.deployNode,
    (node) => [...(node.instanceUuid ? [usageChanged('deployNode', node.instanceUuid, [node.uuid])] : []), providerChanged('deployNode', node.uuid, 'INVENTORIES')],
  ),
  undeployNode: nodeOperation('delete its server with `openstack server delete`', nodes.undeployNode, ({ node, instanceUuid }) => [
    ...(instanceUuid ? [usageChanged('undeployNode', instanceUuid, [node.uuid])] : []),
    providerChanged('undeployNode', node.uuid, 'INVENTORIES'),
  ]),
};

export type OperationName = keyof typeof OPERATIONS;
type InputOf<K extends OperationName> = Parameters<(typeof OPERATIONS)[K]['apply']>[1];
type ResultOf<K extends OperationName> = ReturnType<(typeof OPERATIONS)[K]['apply']>;

/** The write port: every operation, asynchronous, committed (or refused whole) when it resolves. */
export type Writes = { [K in OperationName]: (input: InputOf<K>) => Promise<ResultOf<K>> };

/** What subscribers are told once an operation is committed. */
export function eventsOf<K extends OperationName>(name: K, result: ResultOf<K>, input: InputOf<K>): ChangeEvent[] {
  const op: Operation<InputOf<K>, ResultOf<K>> = OPERATIONS[name] as never;
  return op.events?.(result, input) ?? [];
}

/** Whose data an operation changes in a live cloud (see Operation). */
export function ownerOf(name: OperationName): { owner?: Owner; placementToo: boolean } {
  const op: Operation<unknown, unknown> = OPERATIONS[name] as never;
  return { owner: op.owner, placementToo: op.placementToo === true };
}
