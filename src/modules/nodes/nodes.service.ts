// Bare-metal nodes with traits (Ironic's node-traits design): each node owns a resource provider
// (same uuid) whose inventory and traits it reports as Nova's ironic driver does.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { all, get, list, run } from '../../db/sql.js';
import { canonicalUuid, normalizeCustomName, traitProblem } from '../../rules/names.js';
import { isStandardTrait } from '../../catalog/index.js';
import { DomainError, DuplicateName, InUse, InvalidInput, NotFound, RequestRefused, type Issue } from '../common/errors.js';
import { MAX_PROVIDER_NAME_LENGTH, bumpGeneration, createProvider, deleteProvider, requireProvider } from '../providers/providers.service.js';
import type { Page } from '../common/paging.js';
import { ensureTraits, traitIdsOrIssues, writeProviderTraits } from '../traits/traits.service.js';
import { ensureResourceClasses } from '../resource-classes/resource-classes.service.js';
import { writeInventories } from '../inventories/inventories.service.js';
import { consumerByUuid, deleteAllocations, setAllocations } from '../allocations/allocations.service.js';

/** The provision states modelled: Ironic's stable states. Transitions (verifying, cleaning, deploying, deleting) complete at once. */
export type ProvisionState = 'enroll' | 'manageable' | 'available' | 'active';
/** Ironic's provision-state verbs other than deploy and undeploy. */
export type ProvisionAction = 'manage' | 'provide';

export const MAX_TRAITS_PER_NODE = 50;
/** Ironic's nodes.resource_class column. */
export const MAX_RESOURCE_CLASS_LENGTH = 80;
/** Ironic's logical names: RFC 3986 unreserved characters. */
const NODE_NAME_PATTERN = /^[A-Za-z0-9._~-]+$/;

export interface NodeRow {
  id: number;
  uuid: string;
  name: string | null;
  resourceClass: string;
  provisionState: ProvisionState;
  instanceUuid: string | null;
  instanceTraits: string[];
  providerId: number;
  createdAt: string;
  updatedAt: string;
}

export const NODE_COLUMNS = `n.id, n.uuid, n.name, n.resource_class AS resourceClass, n.provision_state AS provisionState,
  n.instance_uuid AS instanceUuid, n.instance_traits AS instanceTraits, n.resource_provider_id AS providerId,
  n.created_at AS createdAt, n.updated_at AS updatedAt`;

/** A node as read with NODE_COLUMNS (instance traits parsed). */
export const toNode = (row: Omit<NodeRow, 'instanceTraits'> & { instanceTraits: string }): NodeRow => ({ ...row, instanceTraits: JSON.parse(row.instanceTraits) });

/** The resource class of the node's provider: Nova's normalize_rc_name (CUSTOM_ + upper case, runs of other characters as _). */
export const placementResourceClass = (resourceClass: string) => normalizeCustomName(resourceClass);

/** The failure of a provision-state change (Ironic's InvalidStateRequested). */
export class InvalidProvisionState extends DomainError {
  readonly typename = 'InvalidProvisionState';
  constructor(
    readonly node: string,
    readonly action: string,
    readonly provisionState: ProvisionState,
    readonly allowedStates: ProvisionState[],
  ) {
    super(`The requested action "${action}" can not be performed on node "${node}" while it is in state "${provisionState}" (allowed in: ${allowedStates.join(', ')}).`);
  }
}

/** Too many traits for one node; nothing was changed. */
export class TraitLimitExceeded extends DomainError {
  readonly typename = 'TraitLimitExceeded';
  constructor(
    readonly node: string,
    readonly limit: number,
    readonly count: number,
    /** The traits that do not fit, in the order given. */
    readonly overLimit: string[],
  ) {
    super(`Node "${node}" would have ${count} traits, but a node may have at most ${limit}: ${overLimit.join(', ')} ${overLimit.length === 1 ? 'does' : 'do'} not fit.`);
  }
}

/** The instance asks for traits the node lacks (Ironic's deploy validation). */
export class MissingNodeTraits extends DomainError {
  readonly typename = 'MissingNodeTraits';
  constructor(
    readonly node: string,
    readonly missing: string[],
  ) {
    super(missingTraitsMessage(node, missing));
  }
}

const missingTraitsMessage = (node: string, missing: string[]) =>
  `Node "${node}" lacks the traits the instance asks for: ${missing.join(', ')} (instance traits must be a subset of the node's traits).`;

function traitIssues(names: readonly string[], path: string): Issue[] {
  return names.flatMap((name, n) => {
    const problem = traitProblem(name, isStandardTrait(name));
    return problem ? [{ path: `${path}.${n}`, message: problem }] : [];
  });
}

const ident = (node: NodeRow) => node.name ?? node.uuid;

export function nodeByIdent(db: Db, nodeIdent: string): NodeRow | undefined {
  const uuid = canonicalUuid(nodeIdent);
  const row = uuid
    ? get<any>(db, `SELECT ${NODE_COLUMNS} FROM baremetal_nodes n WHERE n.uuid = ?`, uuid)
    : get<any>(db, `SELECT ${NODE_COLUMNS} FROM baremetal_nodes n WHERE n.name = ?`, nodeIdent);
  return row && toNode(row);
}

/** The node with this uuid or name, or NotFound naming the input field. */
export function requireNode(db: Db, nodeIdent: string, field = 'node'): NodeRow {
  const node = nodeByIdent(db, nodeIdent);
  if (!node) throw new NotFound('bare-metal node', `${field}=${nodeIdent}`, `No bare-metal node with uuid or name "${nodeIdent}" was found (${field}).`);
  return node;
}

export function nodeTraitNames(db: Db, nodeId: number): string[] {
  return all<{ trait: string }>(db, 'SELECT trait FROM node_traits WHERE node_id = ? ORDER BY trait', nodeId).map((r) => r.trait);
}

/**
 * Makes the provider's traits equal to the node's (the node is the source of truth), creating
 * custom traits as needed; the generation is bumped when they differed. Returns whether they did.
 */
export function syncProviderTraits(db: Db, node: NodeRow): boolean {
  const wanted = nodeTraitNames(db, node.id);
  const current = all<{ name: string }>(
    db,
    'SELECT t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id WHERE pt.resource_provider_id = ? ORDER BY t.name',
    node.providerId,
  ).map((r) => r.name);
  if (sameList(wanted, current)) return false;
  ensureTraits(db, wanted);
  writeProviderTraits(db, node.providerId, traitIdsOrIssues(db, wanted, 'traits'));
  const provider = requireProvider(db, node.uuid);
  bumpGeneration(db, provider, provider.generation);
  return true;
}

/**
 * Gives the provider the inventory Nova's ironic driver reports (update_provider_tree): one unit of
 * the node's class, reserved while the node is not available or has an instance. Bumps the generation when it changed.
 */
function syncProviderInventory(db: Db, node: NodeRow) {
  const resourceClass = placementResourceClass(node.resourceClass);
  ensureResourceClasses(db, [resourceClass]);
  const classId = get<{ id: number }>(db, 'SELECT id FROM resource_classes WHERE name = ?', resourceClass)!.id;
  const fields = { total: 1, reserved: node.provisionState === 'available' && node.instanceUuid == null ? 0 : 1, minUnit: 1, maxUnit: 1, stepSize: 1, allocationRatio: 1.0 };
  const current = all<typeof fields & { classId: number }>(
    db,
    `SELECT resource_class_id AS classId, total, reserved, min_unit AS minUnit, max_unit AS maxUnit, step_size AS stepSize, allocation_ratio AS allocationRatio
     FROM inventories WHERE resource_provider_id = ?`,
    node.providerId,
  );
  const unchanged = current.length === 1 && JSON.stringify(current[0]) === JSON.stringify({ classId, ...fields });
  if (unchanged) return;
  writeInventories(db, node.providerId, [{ classId, fields }]);
  const provider = requireProvider(db, node.uuid);
  bumpGeneration(db, provider, provider.generation);
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Replaces the node's traits after checking names and the limit, then syncs them to the provider. */
function replaceNodeTraits(db: Db, node: NodeRow, traits: readonly string[]) {
  run(db, 'DELETE FROM node_traits WHERE node_id = ?', node.id);
  run(db, 'INSERT INTO node_traits (node_id, trait) SELECT DISTINCT ?, value FROM json_each(?)', node.id, list(traits));
  syncProviderTraits(db, node);
}

function assertWithinLimit(node: string, existing: number, added: readonly string[]) {
  const count = existing + added.length;
  if (count > MAX_TRAITS_PER_NODE) throw new TraitLimitExceeded(node, MAX_TRAITS_PER_NODE, count, added.slice(Math.max(0, MAX_TRAITS_PER_NODE - existing)));
}

function nodeNameIssues(name: string | null | undefined): Issue[] {
  if (name == null) return [];
  if (name.length === 0 || name.length > MAX_PROVIDER_NAME_LENGTH) return [{ path: 'name', message: `must have 1 to ${MAX_PROVIDER_NAME_LENGTH} characters (got ${name.length})` }];
  if (!NODE_NAME_PATTERN.test(name)) return [{ path: 'name', message: `${name} is not a valid node name: only A-Z, a-z, 0-9, ".", "_", "~" and "-" are allowed` }];
  if (canonicalUuid(name)) return [{ path: 'name', message: `${name} looks like a uuid: a node name must not, so that nodes can be named by uuid or name` }];
  return [];
}

export interface CreateNodeInput {
  uuid?: string | null;
  name?: string | null;
  resourceClass: string;
  traits?: string[] | null;
  provisionState?: ProvisionState | null;
}

/**
 * Creates a node and its provider (same uuid, named after the node or its uuid) with one unit of
 * inventory of the node's resource class, and the node's traits.
 */
export function createNode(db: Db, input: CreateNodeInput): NodeRow {
  const traits = [...new Set(input.traits ?? [])];
  const provisionState = input.provisionState ?? 'available';
  const issues = [...nodeNameIssues(input.name), ...traitIssues(input.traits ?? [], 'traits')];
  if (input.resourceClass.length === 0 || input.resourceClass.length > MAX_RESOURCE_CLASS_LENGTH) {
    issues.push({ path: 'resourceClass', message: `must have 1 to ${MAX_RESOURCE_CLASS_LENGTH} characters (got ${input.resourceClass.length})` });
  }
  if (provisionState === 'active') issues.push({ path: 'provisionState', message: 'a node becomes active only by deployNode' });
  if (issues.length) throw new InvalidInput(issues);
  const uuid = input.uuid ?? randomUUID();
  assertWithinLimit(input.name ?? uuid, 0, traits);
  if (get(db, 'SELECT 1 FROM baremetal_nodes WHERE uuid = ?', uuid)) throw new DuplicateName('uuid', uuid, `A bare-metal node with uuid ${uuid} already exists.`);
  if (input.name != null && get(db, 'SELECT 1 FROM baremetal_nodes WHERE name = ?', input.name)) {
    throw new DuplicateName('name', input.name, `A bare-metal node named ${input.name} already exists.`);
  }
  const provider = createProvider(db, { uuid, name: input.name ?? uuid });
  run(
    db,
    'INSERT INTO baremetal_nodes (uuid, name, resource_class, provision_state, resource_provider_id) VALUES (?, ?, ?, ?, ?)',
    uuid,
    input.name ?? null,
    input.resourceClass,
    provisionState,
    provider.id,
  );
  const node = requireNode(db, uuid);
  syncProviderInventory(db, node);
  replaceNodeTraits(db, node, traits);
  return node;
}

/** Deletes a node and its provider; refused while deployed, or while its provider has allocations or children. */
export function deleteNode(db: Db, nodeIdent: string): NodeRow {
  const node = requireNode(db, nodeIdent);
  if (node.provisionState === 'active') throw new InvalidProvisionState(ident(node), 'delete', node.provisionState, ['enroll', 'manageable', 'available']);
  deleteProvider(db, node.uuid);
  return node;
}

export interface NodeTraitsInput {
  node: string;
  traits: string[];
}

/** Replaces every trait of a node (PUT /nodes/{node}/traits). */
export function setNodeTraits(db: Db, input: NodeTraitsInput): NodeRow {
  const node = requireNode(db, input.node);
  const issues = traitIssues(input.traits, 'traits');
  if (issues.length) throw new InvalidInput(issues);
  const traits = [...new Set(input.traits)];
  assertWithinLimit(ident(node), 0, traits);
  replaceNodeTraits(db, node, traits);
  return node;
}

/** Adds traits to a node (PUT /nodes/{node}/traits/{trait}, for several at once); traits it has already are kept. */
export function addNodeTraits(db: Db, input: NodeTraitsInput): NodeRow {
  const node = requireNode(db, input.node);
  const issues = traitIssues(input.traits, 'traits');
  if (issues.length) throw new InvalidInput(issues);
  const existing = nodeTraitNames(db, node.id);
  const added = [...new Set(input.traits)].filter((t) => !existing.includes(t));
  assertWithinLimit(ident(node), existing.length, added);
  replaceNodeTraits(db, node, [...existing, ...added]);
  return node;
}

/** Removes traits from a node (DELETE /nodes/{node}/traits/{trait}); each must be on the node. */
export function removeNodeTraits(db: Db, input: NodeTraitsInput): NodeRow {
  const node = requireNode(db, input.node);
  const issues = traitIssues(input.traits, 'traits');
  if (issues.length) throw new InvalidInput(issues);
  const existing = nodeTraitNames(db, node.id);
  const absent = [...new Set(input.traits)].filter((t) => !existing.includes(t));
  if (absent.length) throw new NotFound('node trait', `traits=${absent.join(',')}`, `Node "${ident(node)}" does not have the trait(s) ${absent.join(', ')}.`);
  replaceNodeTraits(db, node, existing.filter((t) => !input.traits.includes(t)));
  return node;
}

/** Removes every trait of a node (DELETE /nodes/{node}/traits). */
export function clearNodeTraits(db: Db, nodeIdent: string): NodeRow {
  const node = requireNode(db, nodeIdent);
  replaceNodeTraits(db, node, []);
  return node;
}

const TRANSITIONS: Record<ProvisionAction | 'deploy' | 'undeploy', { from: ProvisionState[]; to: ProvisionState }> = {
  manage: { from: ['enroll', 'available'], to: 'manageable' },
  provide: { from: ['manageable'], to: 'available' },
  deploy: { from: ['available'], to: 'active' },
  undeploy: { from: ['active'], to: 'available' },
};

function assertTransition(node: NodeRow, action: keyof typeof TRANSITIONS): ProvisionState {
  const { from, to } = TRANSITIONS[action];
  if (!from.includes(node.provisionState)) throw new InvalidProvisionState(ident(node), action, node.provisionState, from);
  return to;
}

function updateNode(db: Db, node: NodeRow, changes: { provisionState: ProvisionState; instanceUuid: string | null; instanceTraits: string[] }): NodeRow {
  run(
    db,
    `UPDATE baremetal_nodes SET provision_state = ?, instance_uuid = ?, instance_traits = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?`,
    changes.provisionState,
    changes.instanceUuid,
    JSON.stringify(changes.instanceTraits),
    node.id,
  );
  const updated = requireNode(db, node.uuid);
  syncProviderInventory(db, updated);
  return updated;
}

/** Ironic's manage (enroll or available to manageable) and provide (manageable to available). */
export function setNodeProvisionState(db: Db, input: { node: string; action: ProvisionAction }): NodeRow {
  const node = requireNode(db, input.node);
  return updateNode(db, node, { provisionState: assertTransition(node, input.action), instanceUuid: null, instanceTraits: [] });
}

export interface DeployCheck {
  node: NodeRow;
  /** Whether the instance traits are a subset of the node's traits (Ironic's deploy validation). */
  valid: boolean;
  missingTraits: string[];
  /** Whether deployNode would go ahead: valid, and the node is available. */
  deployable: boolean;
  reasons: string[];
}

/** Checks a deployment without making it: instance traits a subset of the node's, and the node available. */
export function validateNodeDeploy(db: Db, nodeIdent: string, instanceTraits: readonly string[]): DeployCheck {
  const node = nodeByIdent(db, nodeIdent);
  if (!node) throw new RequestRefused(`No bare-metal node with uuid or name "${nodeIdent}" was found.`, 404);
  const traits = new Set(nodeTraitNames(db, node.id));
  const missingTraits = [...new Set(instanceTraits)].filter((t) => !traits.has(t));
  const reasons = missingTraits.length ? [missingTraitsMessage(ident(node), missingTraits)] : [];
  if (!TRANSITIONS.deploy.from.includes(node.provisionState)) reasons.push(new InvalidProvisionState(ident(node), 'deploy', node.provisionState, TRANSITIONS.deploy.from).message);
  return { node, valid: missingTraits.length === 0, missingTraits, deployable: reasons.length === 0, reasons };
}

export interface DeployNodeInput {
  node: string;
  instanceUuid?: string | null;
  instanceTraits: string[];
  projectId: string;
  userId: string;
}

/**
 * Deploys an instance on an available node: its traits must be a subset of the node's; the
 * node's one unit is allocated to the instance (the consumer) and the node becomes active.
 */
export function deployNode(db: Db, input: DeployNodeInput): NodeRow {
  const node = requireNode(db, input.node);
  const issues = traitIssues(input.instanceTraits, 'instanceTraits');
  if (issues.length) throw new InvalidInput(issues);
  const provisionState = assertTransition(node, 'deploy');
  const check = validateNodeDeploy(db, node.uuid, input.instanceTraits);
  if (!check.valid) throw new MissingNodeTraits(ident(node), check.missingTraits);
  const instanceUuid = input.instanceUuid ?? randomUUID();
  if (consumerByUuid(db, instanceUuid)) throw new InUse(`The instance ${instanceUuid} already holds allocations: a new instance is needed to deploy a node.`);
  setAllocations(db, {
    consumerUuid: instanceUuid,
    consumerGeneration: null,
    projectId: input.projectId,
    userId: input.userId,
    allocations: [{ providerUuid: node.uuid, resources: [{ resourceClass: placementResourceClass(node.resourceClass), amount: 1 }] }],
  });
  return updateNode(db, node, { provisionState, instanceUuid, instanceTraits: [...new Set(input.instanceTraits)] });
}

/** Tears down a deployed node: the instance's allocations are released and the node is available again. Returns the instance released. */
export function undeployNode(db: Db, nodeIdent: string): { node: NodeRow; instanceUuid: string | null } {
  const node = requireNode(db, nodeIdent);
  const provisionState = assertTransition(node, 'undeploy');
  if (node.instanceUuid && consumerByUuid(db, node.instanceUuid)) deleteAllocations(db, node.instanceUuid);
  return { node: updateNode(db, node, { provisionState, instanceUuid: null, instanceTraits: [] }), instanceUuid: node.instanceUuid };
}

export interface NodeFilter {
  /** Has every one of these. */
  traits?: string[] | null;
  /** Has none of these. */
  notTraits?: string[] | null;
  /** Has at least one of these. */
  traitsAny?: string[] | null;
  /** Lacks at least one of these. */
  notTraitsAny?: string[] | null;
  resourceClass?: string | null;
  provisionState?: ProvisionState | null;
}

const TRAIT_FILTERS = ['traits', 'notTraits', 'traitsAny', 'notTraitsAny'] as const;

const matching = (param: string) => `(SELECT COUNT(*) FROM node_traits nt WHERE nt.node_id = n.id AND nt.trait IN (SELECT value FROM json_each(@${param})))`;
const distinctCount = (param: string) => `(SELECT COUNT(DISTINCT value) FROM json_each(@${param}))`;

/** One statement for every filter: absent filters are bound as null. */
const FILTER_WHERE = `WHERE (@resourceClass IS NULL OR n.resource_class = @resourceClass)
  AND (@provisionState IS NULL OR n.provision_state = @provisionState)
  AND (@traits IS NULL OR ${matching('traits')} = ${distinctCount('traits')})
  AND (@notTraits IS NULL OR ${matching('notTraits')} = 0)
  AND (@traitsAny IS NULL OR ${matching('traitsAny')} > 0)
  AND (@notTraitsAny IS NULL OR ${matching('notTraitsAny')} < ${distinctCount('notTraitsAny')})`;

/**
 * One page of the nodes matching a filter, in creation order, and how many match in all.
 * The trait filters follow the API-WG tags guideline the design cites: traits = has all,
 * notTraits = has none, traitsAny = has at least one, notTraitsAny = lacks at least one; they combine with AND.
 */
export function listNodes(db: Db, filter: NodeFilter, page: Page): { rows: NodeRow[]; totalCount: number } {
  for (const key of TRAIT_FILTERS) {
    (filter[key] ?? []).forEach((name, n) => {
      const problem = traitProblem(name, isStandardTrait(name));
      if (problem) throw new RequestRefused(`Invalid trait in filter.${key}.${n}: ${problem}.`);
    });
  }
  const params = {
    resourceClass: filter.resourceClass ?? null,
    provisionState: filter.provisionState ?? null,
    ...Object.fromEntries(TRAIT_FILTERS.map((key) => [key, filter[key] == null ? null : list(filter[key]!)])),
  };
  const rows = all<any>(db, `SELECT ${NODE_COLUMNS}, COUNT(*) OVER () AS totalCount FROM baremetal_nodes n ${FILTER_WHERE} ORDER BY n.id LIMIT @limit OFFSET @offset`, {
    ...params,
    limit: page.limit,
    offset: page.offset,
  });
  const totalCount =
    rows.length > 0 || page.offset === 0 ? (rows[0]?.totalCount ?? 0) : get<{ n: number }>(db, `SELECT COUNT(*) AS n FROM baremetal_nodes n ${FILTER_WHERE}`, params)!.n;
  return { rows: rows.map(({ totalCount: _, ...row }) => toNode(row)), totalCount };
}

export interface TraitDrift {
  node: NodeRow;
  /** Node traits the provider lacks. */
  missingOnProvider: string[];
  /** Provider traits the node lacks. */
  unexpectedOnProvider: string[];
}

/** Nodes whose provider's traits differ from the node's (changed in Placement behind the node's back), with the differences. */
export function nodeTraitDrift(db: Db, nodeIds?: readonly number[]): TraitDrift[] {
  const rows = all<{ nodeId: number; kind: 'missing' | 'unexpected'; trait: string }>(
    db,
    `WITH picked AS (SELECT id, resource_provider_id FROM baremetal_nodes WHERE @ids IS NULL OR id IN (SELECT value FROM json_each(@ids))),
     provider_names AS (SELECT p.id AS node_id, t.name FROM picked p JOIN provider_traits pt ON pt.resource_provider_id = p.resource_provider_id JOIN traits t ON t.id = pt.trait_id)
     SELECT nt.node_id AS nodeId, 'missing' AS kind, nt.trait FROM picked p JOIN node_traits nt ON nt.node_id = p.id
       WHERE NOT EXISTS (SELECT 1 FROM provider_names pn WHERE pn.node_id = nt.node_id AND pn.name = nt.trait)
     UNION ALL
     SELECT pn.node_id, 'unexpected', pn.name FROM provider_names pn
       WHERE NOT EXISTS (SELECT 1 FROM node_traits nt WHERE nt.node_id = pn.node_id AND nt.trait = pn.name)
     ORDER BY 1, 3`,
    { ids: nodeIds ? list(nodeIds) : null },
  );
  if (rows.length === 0) return [];
  const nodes = new Map(
    all<any>(db, `SELECT ${NODE_COLUMNS} FROM baremetal_nodes n WHERE n.id IN (SELECT value FROM json_each(?))`, list([...new Set(rows.map((r) => r.nodeId))])).map((r) => [r.id, toNode(r)]),
  );
  const drifts = new Map<number, TraitDrift>();
  for (const row of rows) {
    let drift = drifts.get(row.nodeId);
    if (!drift) drifts.set(row.nodeId, (drift = { node: nodes.get(row.nodeId)!, missingOnProvider: [], unexpectedOnProvider: [] }));
    (row.kind === 'missing' ? drift.missingOnProvider : drift.unexpectedOnProvider).push(row.trait);
  }
  return [...drifts.values()];
}

/** Pushes node traits to the providers of these nodes (all drifted nodes when absent), as the next Nova sync would; returns the nodes whose provider changed. */
export function syncNodeTraits(db: Db, nodeIdents?: readonly string[] | null): NodeRow[] {
  const nodes = nodeIdents ? nodeIdents.map((n, k) => requireNode(db, n, `nodes.${k}`)) : nodeTraitDrift(db).map((d) => d.node);
  return nodes.filter((node) => syncProviderTraits(db, node));
}

const PROVISION_STATES: readonly ProvisionState[] = ['enroll', 'manageable', 'available', 'active'];

export interface RestoredNode {
  uuid: string;
  name: string | null;
  resourceClass: string;
  provisionState: string;
  instanceUuid: string | null;
  instanceTraits: string[];
  traits: string[];
}

/**
 * Adds a node as a snapshot recorded it, for its provider that exists already (the snapshot brings
 * the provider's inventory, traits and allocations as they were): nothing is synced or bumped.
 */
export function restoreNode(db: Db, providerId: number, node: RestoredNode) {
  const issues = [...nodeNameIssues(node.name), ...traitIssues(node.traits, 'traits'), ...traitIssues(node.instanceTraits, 'instance_traits')];
  if (node.resourceClass.length === 0 || node.resourceClass.length > MAX_RESOURCE_CLASS_LENGTH) issues.push({ path: 'resource_class', message: `must have 1 to ${MAX_RESOURCE_CLASS_LENGTH} characters` });
  if (!PROVISION_STATES.includes(node.provisionState as ProvisionState)) issues.push({ path: 'provision_state', message: `must be one of ${PROVISION_STATES.join(', ')}` });
  if ((node.provisionState === 'active') !== (node.instanceUuid != null)) issues.push({ path: 'instance_uuid', message: 'a node has an instance exactly when it is active' });
  if (node.traits.length > MAX_TRAITS_PER_NODE) issues.push({ path: 'traits', message: `a node may have at most ${MAX_TRAITS_PER_NODE} traits` });
  if (issues.length) throw new InvalidInput(issues);
  if (node.name != null && get(db, 'SELECT 1 FROM baremetal_nodes WHERE name = ?', node.name)) throw new DuplicateName('name', node.name, `A bare-metal node named ${node.name} already exists.`);
  const { lastInsertRowid } = run(
    db,
    'INSERT INTO baremetal_nodes (uuid, name, resource_class, provision_state, instance_uuid, instance_traits, resource_provider_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
    node.uuid,
    node.name,
    node.resourceClass,
    node.provisionState,
    node.instanceUuid,
    JSON.stringify(node.instanceTraits),
    providerId,
  );
  run(db, 'INSERT INTO node_traits (node_id, trait) SELECT DISTINCT ?, value FROM json_each(?)', Number(lastInsertRowid), list(node.traits));
}

/** Every node as restoreNode takes it, in creation order. */
export function nodesForSnapshot(db: Db): RestoredNode[] {
  const traits = new Map<number, string[]>();
  for (const r of all<{ nodeId: number; trait: string }>(db, 'SELECT node_id AS nodeId, trait FROM node_traits ORDER BY node_id, trait')) traits.set(r.nodeId, [...(traits.get(r.nodeId) ?? []), r.trait]);
  return all<any>(db, `SELECT ${NODE_COLUMNS} FROM baremetal_nodes n ORDER BY n.id`).map((row) => {
    const n = toNode(row);
    return { uuid: n.uuid, name: n.name, resourceClass: n.resourceClass, provisionState: n.provisionState, instanceUuid: n.instanceUuid, instanceTraits: n.instanceTraits, traits: traits.get(n.id) ?? [] };
  });
}
