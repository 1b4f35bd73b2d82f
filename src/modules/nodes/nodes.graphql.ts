// BaremetalNode: bare-metal nodes with traits, their provider, listing filters, deployment, and drift from their providers.
import { builder, type InputFieldBuilder } from '../../builder.js';
import { defineMutation } from '../common/mutation.js';
import { CapacityExceededError, DomainErrorInterface, DuplicateNameError, InUseError, isError, NotFoundError } from '../common/errors.graphql.js';
import { connectionOptions, edgeOptions, offsetConnection } from '../common/connection.js';
import { ResourceProviderRef } from '../providers/providers.graphql.js';
import * as service from './nodes.service.js';
import { InvalidProvisionState, MissingNodeTraits, TraitLimitExceeded, type NodeRow } from './nodes.service.js';

export const BaremetalNodeRef = builder.objectRef<NodeRow>('BaremetalNode');

const ProvisionStateEnum = builder.enumType('NodeProvisionState', {
  description: "Ironic's stable provision states modelled here; the transient ones (verifying, cleaning, deploying, deleting) complete at once.",
  values: {
    ENROLL: { value: 'enroll', description: 'Known but not yet managed: not schedulable (its unit is reserved).' },
    MANAGEABLE: { value: 'manageable', description: 'Managed, not offered for scheduling (its unit is reserved).' },
    AVAILABLE: { value: 'available', description: 'Offered for scheduling: its unit is free.' },
    ACTIVE: { value: 'active', description: 'Deployed: an instance holds its unit.' },
  } as const,
});

const ProvisionActionEnum = builder.enumType('NodeProvisionAction', {
  description: "Ironic's provision-state verbs besides deploy and undeploy.",
  values: {
    MANAGE: { value: 'manage', description: 'enroll or available to manageable.' },
    PROVIDE: { value: 'provide', description: 'manageable to available (after cleaning).' },
  } as const,
});

builder.node(BaremetalNodeRef, {
  description: 'A bare-metal node (Ironic): its traits are the source of truth for the traits of its resource provider.',
  id: { resolve: (n) => n.uuid },
  loadOne: (uuid, ctx) => ctx.loaders.nodes.byUuid.load(uuid),
  fields: (t) => ({
    uuid: t.exposeString('uuid', { description: 'The natural key; also the uuid of its provider.' }),
    name: t.exposeString('name', { nullable: true, description: 'A unique name (A-Z, a-z, 0-9, ".", "_", "~", "-"); also the name of its provider.' }),
    resourceClass: t.exposeString('resourceClass', { description: 'The resource class as set on the node, e.g. baremetal-gold.' }),
    placementResourceClass: t.string({
      description: "The class of its provider's one unit: Nova's normalization of resourceClass (CUSTOM_BAREMETAL_GOLD).",
      resolve: (n) => service.placementResourceClass(n.resourceClass),
    }),
    traits: t.stringList({ description: 'Its traits, sorted.', resolve: (n, _args, ctx) => ctx.loaders.nodes.traitsOf.load(n.id) }),
    provisionState: t.field({ type: ProvisionStateEnum, description: 'Where it is in its life cycle.', resolve: (n) => n.provisionState }),
    instanceUuid: t.exposeString('instanceUuid', { nullable: true, description: 'The instance deployed on it (its allocation consumer); null unless active.' }),
    instanceTraits: t.exposeStringList('instanceTraits', { description: "The traits the deployed instance asked for (Ironic's instance_info.traits); empty unless active." }),
    provider: t.field({
      type: ResourceProviderRef,
      description: 'Its resource provider (same uuid).',
      resolve: async (n, _args, ctx) => (await ctx.loaders.providers.byId.load(n.providerId))!,
    }),
    createdAt: t.exposeString('createdAt', { description: 'When it was created (ISO 8601, UTC).' }),
    updatedAt: t.exposeString('updatedAt', { description: 'When its provision state last changed (ISO 8601, UTC).' }),
  }),
});

builder.objectFields(ResourceProviderRef, (t) => ({
  baremetalNode: t.field({
    type: BaremetalNodeRef,
    nullable: true,
    description: 'The bare-metal node this provider represents, or null.',
    resolve: (p, _args, ctx) => ctx.loaders.nodes.ofProvider.load(p.id),
  }),
}));

const BaremetalNodeFilter = builder.inputType('BaremetalNodeFilter', {
  description:
    'Which nodes (every given filter must hold). The trait filters follow the API-WG tags guideline: a trait list given as [] is taken literally (traitsAny: [] and notTraitsAny: [] match nothing).',
  fields: (t) => ({
    traits: t.stringList({ required: false, description: 'Has every one of these traits.' }),
    notTraits: t.stringList({ required: false, description: 'Has none of these traits.' }),
    traitsAny: t.stringList({ required: false, description: 'Has at least one of these traits.' }),
    notTraitsAny: t.stringList({ required: false, description: 'Lacks at least one of these traits.' }),
    resourceClass: t.string({ required: false, description: 'Has exactly this resource class, as set on the node.' }),
    provisionState: t.field({ type: ProvisionStateEnum, required: false, description: 'Is in this provision state.' }),
  }),
});

const TraitDriftRef = builder.objectRef<service.TraitDrift>('NodeTraitDrift').implement({
  description: "A node whose provider's traits were changed behind its back (in Placement); the next sync restores the node's.",
  fields: (t) => ({
    node: t.field({ type: BaremetalNodeRef, description: 'The node.', resolve: (d) => d.node }),
    provider: t.field({ type: ResourceProviderRef, description: 'Its provider.', resolve: async (d, _args, ctx) => (await ctx.loaders.providers.byId.load(d.node.providerId))! }),
    missingOnProvider: t.exposeStringList('missingOnProvider', { description: 'Node traits the provider lacks, sorted.' }),
    unexpectedOnProvider: t.exposeStringList('unexpectedOnProvider', { description: 'Provider traits the node lacks, sorted.' }),
  }),
});

const DeployCheckRef = builder.objectRef<service.DeployCheck>('NodeDeployCheck').implement({
  description: 'Whether an instance asking for some traits may be deployed on a node.',
  fields: (t) => ({
    node: t.field({ type: BaremetalNodeRef, description: 'The node checked.', resolve: (c) => c.node }),
    valid: t.exposeBoolean('valid', { description: "Whether the instance traits are a subset of the node's traits (Ironic's deploy validation)." }),
    missingTraits: t.exposeStringList('missingTraits', { description: 'Instance traits the node lacks, in the order asked.' }),
    deployable: t.exposeBoolean('deployable', { description: 'Whether deployNode would go ahead: valid, and the node is available.' }),
    reasons: t.exposeStringList('reasons', { description: 'Why it is not deployable; empty when it is.' }),
  }),
});

builder.queryFields((t) => ({
  baremetalNode: t.field({
    type: BaremetalNodeRef,
    nullable: true,
    description: 'The node with this uuid or name, or null.',
    args: { node: t.arg.string({ required: true, description: 'Its uuid or name.' }) },
    resolve: (_root, args, ctx) => service.nodeByIdent(ctx.db, args.node),
  }),
  baremetalNodes: t.connection(
    {
      type: BaremetalNodeRef,
      description: 'Nodes matching a filter, in creation order.',
      args: { filter: t.arg({ type: BaremetalNodeFilter, required: false, description: 'Which nodes; all when absent.' }) },
      resolve: (_root, args, ctx) =>
        offsetConnection(args, (page) => {
          const result = service.listNodes(ctx.db, args.filter ?? {}, page);
          ctx.loaders.nodes.prime(result.rows);
          return result;
        }),
    },
    connectionOptions('BaremetalNode', 'bare-metal nodes'),
    edgeOptions('BaremetalNode', 'bare-metal nodes'),
  ),
  validateNodeDeploy: t.field({
    type: DeployCheckRef,
    description: "Checks, without deploying, that the traits an instance asks for are all on the node (and that the node is available).",
    args: {
      node: t.arg.string({ required: true, description: 'The uuid or name of the node.' }),
      instanceTraits: t.arg.stringList({ required: true, description: 'The traits the instance asks for (from its flavor and image).' }),
    },
    resolve: (_root, args, ctx) => service.validateNodeDeploy(ctx.db, args.node, args.instanceTraits),
  }),
  nodeTraitDrift: t.field({
    type: [TraitDriftRef],
    description: "Nodes whose provider's traits differ from the node's, in creation order; empty when every provider is in sync.",
    resolve: (_root, _args, ctx) => service.nodeTraitDrift(ctx.db),
  }),
}));

const InvalidProvisionStateError = builder.objectRef<InvalidProvisionState>('InvalidProvisionState').implement({
  description: 'The node is not in a state that allows the action; nothing was changed.',
  interfaces: [DomainErrorInterface],
  isTypeOf: isError('InvalidProvisionState'),
  fields: (t) => ({
    nodeIdent: t.exposeString('node', { description: 'The name of the node, or its uuid when it has none.' }),
    action: t.exposeString('action', { description: 'The action refused: manage, provide, deploy, undeploy or delete.' }),
    provisionState: t.field({ type: ProvisionStateEnum, description: 'The state the node is in.', resolve: (e) => e.provisionState }),
    allowedStates: t.field({ type: [ProvisionStateEnum], description: 'The states that allow the action.', resolve: (e) => e.allowedStates }),
  }),
});

const TraitLimitExceededError = builder.objectRef<TraitLimitExceeded>('TraitLimitExceeded').implement({
  description: `A node may have at most ${service.MAX_TRAITS_PER_NODE} traits (the limit of Placement); nothing was changed.`,
  interfaces: [DomainErrorInterface],
  isTypeOf: isError('TraitLimitExceeded'),
  fields: (t) => ({
    nodeIdent: t.exposeString('node', { description: 'The name of the node, or its uuid when it has none.' }),
    limit: t.exposeInt('limit', { description: 'The most traits a node may have.' }),
    count: t.exposeInt('count', { description: 'How many it would have had.' }),
    overLimit: t.exposeStringList('overLimit', { description: 'The traits that do not fit, in the order given.' }),
  }),
});

const MissingNodeTraitsError = builder.objectRef<MissingNodeTraits>('MissingNodeTraits').implement({
  description: "The instance asks for traits the node lacks: instance traits must be a subset of the node's; nothing was changed.",
  interfaces: [DomainErrorInterface],
  isTypeOf: isError('MissingNodeTraits'),
  fields: (t) => ({
    nodeIdent: t.exposeString('node', { description: 'The name of the node, or its uuid when it has none.' }),
    missing: t.exposeStringList('missing', { description: 'The instance traits the node lacks, in the order asked.' }),
  }),
});

const NodePayload = builder.objectRef<{ node: NodeRow; instanceUuid?: string | null }>('BaremetalNodePayload').implement({
  description: 'The node after the change.',
  fields: (t) => ({
    node: t.field({ type: BaremetalNodeRef, description: 'The node as it is now (its provider has been synced).', resolve: (p) => p.node }),
  }),
});

const DeletedNodePayload = builder.objectRef<{ node: NodeRow }>('DeleteBaremetalNodePayload').implement({
  description: 'The node that was deleted, with its provider.',
  fields: (t) => ({
    uuid: t.string({ description: 'Uuid of the deleted node and provider.', resolve: (p) => p.node.uuid }),
    name: t.string({ nullable: true, description: 'Name of the deleted node.', resolve: (p) => p.node.name }),
  }),
});

const SyncPayload = builder.objectRef<{ synced: NodeRow[] }>('SyncNodeTraitsPayload').implement({
  description: 'The nodes whose provider traits were rewritten.',
  fields: (t) => ({
    synced: t.field({ type: [BaremetalNodeRef], description: 'Nodes whose provider had drifted and now has the node traits again.', resolve: (p) => p.synced }),
  }),
});

const nodeArg = (t: InputFieldBuilder) => t.string({ required: true, description: 'The uuid or name of the node.' });
const traitsArg = (t: InputFieldBuilder, description: string) => t.stringList({ required: true, description });

defineMutation('createNode', {
  description:
    "Creates a bare-metal node and its resource provider (same uuid, named after the node or else its uuid) with one unit of the node's resource class (total 1, max_unit 1, reserved unless available), as Nova's ironic driver reports it.",
  input: (t) => ({
    uuid: t.field({ type: 'UUID', required: false, description: 'Its uuid; generated when absent.' }),
    name: t.string({ required: false, description: 'A unique name (A-Z, a-z, 0-9, ".", "_", "~", "-"; at most 200; not uuid-like).' }),
    resourceClass: t.string({ required: true, description: 'Its resource class, e.g. baremetal-gold (at most 80 characters); its provider gets CUSTOM_BAREMETAL_GOLD.' }),
    traits: t.stringList({ required: false, description: `Its first traits: standard or CUSTOM_, at most ${service.MAX_TRAITS_PER_NODE}.` }),
    provisionState: t.field({ type: ProvisionStateEnum, required: false, description: 'ENROLL, MANAGEABLE or AVAILABLE (the default).' }),
  }),
  payload: NodePayload,
  errors: [DuplicateNameError, TraitLimitExceededError],
  resolve: async (input, ctx) => ({ node: await ctx.writes.createNode(input) }),
});

defineMutation('deleteNode', {
  description: 'Deletes a node and its provider; refused while it is active, or while its provider has allocations or children.',
  input: (t) => ({ node: nodeArg(t) }),
  payload: DeletedNodePayload,
  errors: [NotFoundError, InvalidProvisionStateError, InUseError],
  resolve: async (input, ctx) => ({ node: await ctx.writes.deleteNode(input.node) }),
});

const traitErrors = [NotFoundError, TraitLimitExceededError];

defineMutation('setNodeTraits', {
  description: `Replaces every trait of a node (PUT /nodes/{node}/traits) and syncs them to its provider. Each trait is standard or CUSTOM_; at most ${service.MAX_TRAITS_PER_NODE}.`,
  input: (t) => ({ node: nodeArg(t), traits: traitsArg(t, 'The complete new set.') }),
  payload: NodePayload,
  errors: traitErrors,
  resolve: async (input, ctx) => ({ node: await ctx.writes.setNodeTraits(input) }),
});

defineMutation('addNodeTraits', {
  description: 'Adds traits to a node (PUT /nodes/{node}/traits/{trait}) and syncs them to its provider; traits it has already are kept. All or nothing.',
  input: (t) => ({ node: nodeArg(t), traits: traitsArg(t, 'The traits to add.') }),
  payload: NodePayload,
  errors: traitErrors,
  resolve: async (input, ctx) => ({ node: await ctx.writes.addNodeTraits(input) }),
});

defineMutation('removeNodeTraits', {
  description: 'Removes traits from a node (DELETE /nodes/{node}/traits/{trait}) and syncs its provider; each must be on the node.',
  input: (t) => ({ node: nodeArg(t), traits: traitsArg(t, 'The traits to remove.') }),
  payload: NodePayload,
  errors: [NotFoundError],
  resolve: async (input, ctx) => ({ node: await ctx.writes.removeNodeTraits(input) }),
});

defineMutation('clearNodeTraits', {
  description: 'Removes every trait of a node (DELETE /nodes/{node}/traits) and syncs its provider.',
  input: (t) => ({ node: nodeArg(t) }),
  payload: NodePayload,
  errors: [NotFoundError],
  resolve: async (input, ctx) => ({ node: await ctx.writes.clearNodeTraits(input.node) }),
});

defineMutation('syncNodeTraits', {
  description: "Rewrites providers' traits from their nodes' traits, undoing changes made in Placement behind the nodes' backs (what Nova's next sync does).",
  input: (t) => ({ nodes: t.stringList({ required: false, description: 'Uuids or names of the nodes to sync; every drifted node when absent.' }) }),
  payload: SyncPayload,
  errors: [NotFoundError],
  resolve: async (input, ctx) => ({ synced: await ctx.writes.syncNodeTraits(input.nodes) }),
});

defineMutation('setNodeProvisionState', {
  description: "Moves a node through Ironic's manage (enroll or available to manageable) and provide (manageable to available) verbs; its provider's unit is reserved unless available.",
  input: (t) => ({ node: nodeArg(t), action: t.field({ type: ProvisionActionEnum, required: true, description: 'The verb.' }) }),
  payload: NodePayload,
  errors: [NotFoundError, InvalidProvisionStateError],
  resolve: async (input, ctx) => ({ node: await ctx.writes.setNodeProvisionState(input) }),
});

defineMutation('deployNode', {
  description:
    "Deploys an instance on an available node: its traits must be a subset of the node's (validateNodeDeploy); the node's one unit is allocated to the instance, its traits are recorded and the node becomes active.",
  input: (t) => ({
    node: nodeArg(t),
    instanceUuid: t.field({ type: 'UUID', required: false, description: 'The instance (allocation consumer); generated when absent. It must hold no allocations yet.' }),
    instanceTraits: traitsArg(t, 'The traits the instance asks for (from its flavor and image); may be empty.'),
    projectId: t.string({ required: true, description: 'The project of the instance.' }),
    userId: t.string({ required: true, description: 'The user of the instance.' }),
  }),
  payload: NodePayload,
  errors: [NotFoundError, InvalidProvisionStateError, MissingNodeTraitsError, InUseError, CapacityExceededError],
  resolve: async (input, ctx) => ({ node: await ctx.writes.deployNode(input) }),
});

defineMutation('undeployNode', {
  description: "Tears down an active node: the instance's allocations are released and the node is available again.",
  input: (t) => ({ node: nodeArg(t) }),
  payload: NodePayload,
  errors: [NotFoundError, InvalidProvisionStateError],
  resolve: (input, ctx) => ctx.writes.undeployNode(input.node),
});
