// Resource providers: lookups, Placement's GET /resource_providers filters, create, update, delete.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { all, get, list, run } from '../../db/sql.js';
import { fitsSql } from '../../rules/capacity.js';
import { DuplicateName, GenerationConflict, InUse, InvalidInput, NotFound, type Issue } from '../common/errors.js';
import type { Page } from '../common/paging.js';
import { resolveTraitIds, resolveResourceClassIds, type ResourceAmount } from '../common/names.js';

export interface ProviderRow {
  id: number;
  uuid: string;
  name: string;
  generation: number;
  parentId: number | null;
  rootId: number;
  createdAt: string;
  updatedAt: string;
}

export const PROVIDER_COLUMNS = `rp.id, rp.uuid, rp.name, rp.generation, rp.parent_id AS parentId, rp.root_id AS rootId,
  rp.created_at AS createdAt, rp.updated_at AS updatedAt`;

export const MAX_PROVIDER_NAME_LENGTH = 200;

/** A provider with the uuids of its parent and root, as Placement shows one. */
export interface ProviderInTree extends ProviderRow {
  parentUuid: string | null;
  rootUuid: string;
}

const IN_TREE_FROM = `resource_providers rp JOIN resource_providers root ON root.id = rp.root_id LEFT JOIN resource_providers parent ON parent.id = rp.parent_id`;
const IN_TREE_COLUMNS = `${PROVIDER_COLUMNS}, parent.uuid AS parentUuid, root.uuid AS rootUuid`;

/** The provider with this uuid, with its parent's and root's uuids. */
export function providerInTree(db: Db, uuid: string): ProviderInTree | undefined {
  return get<ProviderInTree>(db, `SELECT ${IN_TREE_COLUMNS} FROM ${IN_TREE_FROM} WHERE rp.uuid = ?`, uuid);
}

export function providerByUuid(db: Db, uuid: string): ProviderRow | undefined {
  return get<ProviderRow>(db, `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp WHERE rp.uuid = ?`, uuid);
}

/** The provider with this uuid, or NotFound naming the input field. */
export function requireProvider(db: Db, uuid: string, field = 'uuid'): ProviderRow {
  const provider = providerByUuid(db, uuid);
  if (!provider) throw new NotFound('resource provider', `${field}=${uuid}`, `No resource provider with uuid ${uuid} found (${field}).`);
  return provider;
}

/** Refuses a generation other than the provider's: the guard on every change to a provider. */
export function assertGeneration(provider: ProviderRow, expected: number, field = 'generation') {
  if (expected !== provider.generation) {
    throw new GenerationConflict(
      field,
      expected,
      provider.generation,
      `resource provider generation conflict: ${field} is ${expected} but provider ${provider.uuid} is at generation ${provider.generation}. Read it again and retry.`,
    );
  }
}

/** Checks the caller's generation and bumps it. */
export function bumpGeneration(db: Db, provider: ProviderRow, expected: number, field = 'generation') {
  assertGeneration(provider, expected, field);
  run(db, `UPDATE resource_providers SET generation = generation + 1, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?`, provider.id);
  provider.generation += 1;
}

export interface ProviderFilter {
  name?: string | null;
  uuid?: string | null;
  inTree?: string | null;
  memberOf?: string[][] | null;
  notMemberOf?: string[] | null;
  required?: string[] | null;
  forbidden?: string[] | null;
  anyOf?: string[][] | null;
  resources?: ResourceAmount[] | null;
}

/** A clause no provider matches. */
const NOTHING = { where: 'WHERE 0', params: [] as unknown[] };

/**
 * A WHERE clause over `rp` with its parameters, built from a filter; Placement's listing semantics,
 * in the order Placement applies them: an unknown in_tree, required traits no provider has, or
 * aggregates no provider is in mean no provider, before the names checked after them are looked up.
 */
export function filterClause(db: Db, filter: ProviderFilter): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const { required = [], forbidden = [], anyOf = [], resources = [] } = filter;

  // As in Placement, an empty name filters nothing.
  if (filter.name) conditions.push('rp.name = ?'), params.push(filter.name);
  if (filter.uuid != null) conditions.push('rp.uuid = ?'), params.push(filter.uuid);
  if (filter.inTree != null) {
    const tree = get<{ rootId: number }>(db, 'SELECT root_id AS rootId FROM resource_providers WHERE uuid = ?', filter.inTree);
    if (!tree) return NOTHING;
    conditions.push('rp.root_id = ?');
    params.push(tree.rootId);
  }
  const hasTraits = `SELECT COUNT(*) FROM provider_traits pt WHERE pt.resource_provider_id = rp.id AND pt.trait_id IN (SELECT value FROM json_each(?))`;
  const wanted = resolveTraitIds(db, [...(required ?? []), ...(anyOf ?? []).flat()], 'required');
  const traitConditions: string[] = [];
  const traitParams: unknown[] = [];
  if (required?.length) {
    const ids = [...new Set(required.map((t) => wanted.get(t)!))];
    traitConditions.push(`(${hasTraits}) = ?`);
    traitParams.push(list(ids), ids.length);
  }
  for (const anyTraits of anyOf ?? []) {
    traitConditions.push(`(${hasTraits}) > 0`);
    traitParams.push(list(anyTraits.map((t) => wanted.get(t)!)));
  }
  if (traitConditions.length) {
    if (!get(db, `SELECT 1 FROM resource_providers rp WHERE ${traitConditions.join(' AND ')} LIMIT 1`, ...traitParams)) return NOTHING;
    conditions.push(...traitConditions);
    params.push(...traitParams);
  }
  if (forbidden?.length) {
    const ids = resolveTraitIds(db, forbidden, 'required');
    conditions.push(`(${hasTraits}) = 0`);
    params.push(list(forbidden.map((t) => ids.get(t)!)));
  }
  const inAggregates = `SELECT pa.resource_provider_id FROM provider_aggregates pa JOIN aggregates a ON a.id = pa.aggregate_id
    WHERE a.uuid IN (SELECT value FROM json_each(?))`;
  if (filter.memberOf?.length) {
    const aggregateConditions = filter.memberOf.map(() => `rp.id IN (${inAggregates})`);
    const aggregateParams = filter.memberOf.map((anyAggregate) => list(anyAggregate));
    if (!get(db, `SELECT 1 FROM resource_providers rp WHERE ${aggregateConditions.join(' AND ')} LIMIT 1`, ...aggregateParams)) return NOTHING;
    conditions.push(...aggregateConditions);
    params.push(...aggregateParams);
  }
  if (filter.notMemberOf?.length) {
    conditions.push(`rp.id NOT IN (${inAggregates})`);
    params.push(list(filter.notMemberOf));
  }
  const classIds = resolveResourceClassIds(db, resources ?? []);
  for (const { resourceClass, amount } of resources ?? []) {
    conditions.push(`EXISTS (SELECT 1 FROM inventories i WHERE i.resource_provider_id = rp.id AND i.resource_class_id = ?
      AND ${fitsSql('i', '(SELECT COALESCE(SUM(a.used), 0) FROM allocations a WHERE a.resource_provider_id = rp.id AND a.resource_class_id = i.resource_class_id)')})`);
    params.push(classIds.get(resourceClass), amount, amount, amount);
  }
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/** One page of the providers matching a filter, in creation order, and how many match in all. */
export function listProviders(db: Db, filter: ProviderFilter, page: Page): { rows: ProviderRow[]; totalCount: number } {
  const { where, params } = filterClause(db, filter);
  const rows = all<ProviderRow>(db, `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp ${where} ORDER BY rp.id LIMIT ? OFFSET ?`, ...params, page.limit, page.offset);
  // A separate count: a window count over the page query would materialise every matching row.
  const totalCount = get<{ n: number }>(db, `SELECT COUNT(*) AS n FROM resource_providers rp ${where}`, ...params)!.n;
  return { rows, totalCount };
}

/** Every provider matching a filter, in creation order, with its parent's and root's uuids (Placement's GET /resource_providers). */
export function providersInTreeMatching(db: Db, filter: ProviderFilter): ProviderInTree[] {
  const { where, params } = filterClause(db, filter);
  return all<ProviderInTree>(db, `SELECT ${IN_TREE_COLUMNS} FROM ${IN_TREE_FROM} ${where} ORDER BY rp.id`, ...params);
}

function nameIssues(name: string | null | undefined, field = 'name'): Issue[] {
  if (name == null) return [];
  if (name.length === 0) return [{ path: field, message: 'must not be empty', placement: 'name is required' }];
  if (name.length > MAX_PROVIDER_NAME_LENGTH) return [{ path: field, message: `must be at most ${MAX_PROVIDER_NAME_LENGTH} characters (got ${name.length})` }];
  return [];
}

function assertNameFree(db: Db, name: string, exceptId?: number) {
  const other = get<{ id: number; uuid: string }>(db, 'SELECT id, uuid FROM resource_providers WHERE name = ?', name);
  if (other && other.id !== exceptId) {
    throw new DuplicateName('name', name, `Conflicting resource provider name: ${name} already exists (provider ${other.uuid}).`);
  }
}

export interface CreateProviderInput {
  name: string;
  uuid?: string | null;
  parentUuid?: string | null;
}

export function createProvider(db: Db, input: CreateProviderInput): ProviderRow {
  // Placement's order: the name, the parent (not the provider itself, existing), then the uuid and the name unused.
  const issues = nameIssues(input.name);
  if (issues.length) throw new InvalidInput(issues);
  const uuid = input.uuid ?? randomUUID();
  let parent: ProviderRow | undefined;
  if (input.parentUuid != null) {
    if (input.parentUuid === uuid) {
      throw new InvalidInput([{ path: 'parentUuid', message: 'a provider cannot be its own parent', placement: 'parent provider UUID cannot be same as UUID. Please set parent provider UUID to None if there is no parent.' }]);
    }
    parent = providerByUuid(db, input.parentUuid);
    if (!parent) throw new InvalidInput([{ path: 'parentUuid', message: `parent provider ${input.parentUuid} does not exist`, placement: PARENT_MISSING }]);
  }
  if (providerByUuid(db, uuid)) throw new DuplicateName('uuid', uuid, `Conflicting resource provider uuid: ${uuid} already exists.`);
  assertNameFree(db, input.name);
  const { lastInsertRowid } = run(db, 'INSERT INTO resource_providers (uuid, name, parent_id, root_id) VALUES (?, ?, ?, ?)', uuid, input.name, parent?.id ?? null, parent?.rootId ?? null);
  if (!parent) run(db, 'UPDATE resource_providers SET root_id = id WHERE id = ?', lastInsertRowid);
  return providerByUuid(db, uuid)!;
}

const PARENT_MISSING = 'parent provider UUID does not exist.';

export interface UpdateProviderInput {
  uuid: string;
  name?: string | null;
  /** A provider uuid to re-parent under, null to make it a root; absent keeps the parent. */
  parentUuid?: string | null;
  /**
   * Whether a provider that has a parent may move to another or become a root (Placement 1.37 and
   * later; default true). A root may always get a parent.
   */
  allowReparenting?: boolean;
}

/**
 * Renames and/or re-parents a provider, as Placement's PUT /resource_providers/{uuid} does: the parent
 * is checked first (it exists, the move is allowed, no loop: never below itself or one of its
 * descendants), then the name. The generation stays: it guards inventories, traits, aggregates and
 * allocations, not the name or the place in the tree.
 */
export function updateProvider(db: Db, input: UpdateProviderInput): ProviderRow {
  const provider = requireProvider(db, input.uuid);
  const issues = nameIssues(input.name);
  if (issues.length) throw new InvalidInput(issues);
  const allowReparenting = input.allowReparenting ?? true;
  let newParent: ProviderRow | null | undefined;
  if (input.parentUuid != null) {
    const parent = providerByUuid(db, input.parentUuid);
    if (!parent) throw new InvalidInput([{ path: 'parentUuid', message: `parent provider ${input.parentUuid} does not exist`, placement: PARENT_MISSING }]);
    if (provider.parentId !== null && provider.parentId !== parent.id && !allowReparenting) {
      throw new InvalidInput([{ path: 'parentUuid', message: 'moving a provider to another parent needs microversion 1.37', placement: 're-parenting a provider is not currently allowed.' }]);
    }
    if (parent.id === provider.id || isDescendant(db, parent.id, provider.id)) {
      throw new InvalidInput([
        { path: 'parentUuid', message: 'creating a loop in the provider tree is not allowed: the new parent is the provider itself or one of its descendants', placement: 'creating loop in the provider tree is not allowed.' },
      ]);
    }
    newParent = parent;
  } else if (input.parentUuid === null && provider.parentId !== null) {
    if (!allowReparenting) throw new InvalidInput([{ path: 'parentUuid', message: 'making a child provider a root needs microversion 1.37', placement: 'un-parenting a provider is not currently allowed.' }]);
    newParent = null;
  }
  if (input.name != null && input.name !== provider.name) {
    assertNameFree(db, input.name, provider.id);
    run(db, 'UPDATE resource_providers SET name = ? WHERE id = ?', input.name, provider.id);
  }
  if (newParent !== undefined && (newParent?.id ?? null) !== provider.parentId) {
    run(db, 'UPDATE resource_providers SET parent_id = ? WHERE id = ?', newParent?.id ?? null, provider.id);
    // The whole subtree moves to the new root.
    run(
      db,
      `WITH RECURSIVE subtree(id) AS (SELECT ? UNION ALL SELECT rp.id FROM resource_providers rp JOIN subtree s ON rp.parent_id = s.id)
       UPDATE resource_providers SET root_id = ? WHERE id IN (SELECT id FROM subtree)`,
      provider.id,
      newParent ? newParent.rootId : provider.id,
    );
  }
  run(db, `UPDATE resource_providers SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?`, provider.id);
  return providerByUuid(db, input.uuid)!;
}

function isDescendant(db: Db, candidateId: number, ancestorId: number): boolean {
  return !!get(
    db,
    `WITH RECURSIVE up(id, parent_id) AS (SELECT id, parent_id FROM resource_providers WHERE id = ?
       UNION ALL SELECT rp.id, rp.parent_id FROM resource_providers rp JOIN up ON rp.id = up.parent_id)
     SELECT 1 FROM up WHERE id = ?`,
    candidateId,
    ancestorId,
  );
}

/** Deletes a provider with its inventories, traits and aggregates; refused while it has children or allocations. */
export function deleteProvider(db: Db, uuid: string): ProviderRow {
  const provider = requireProvider(db, uuid);
  if (get(db, 'SELECT 1 FROM resource_providers WHERE parent_id = ? LIMIT 1', provider.id)) {
    throw new InUse(`Unable to delete parent resource provider ${uuid}: It has child resource providers.`, 'placement.resource_provider.cannot_delete_parent');
  }
  if (get(db, 'SELECT 1 FROM allocations WHERE resource_provider_id = ? LIMIT 1', provider.id)) {
    throw new InUse(`Unable to delete resource provider ${uuid}: Resource provider has allocations.`, 'placement.resource_provider.inuse');
  }
  run(db, 'DELETE FROM inventories WHERE resource_provider_id = ?', provider.id);
  run(db, 'DELETE FROM provider_traits WHERE resource_provider_id = ?', provider.id);
  run(db, 'DELETE FROM provider_aggregates WHERE resource_provider_id = ?', provider.id);
  run(db, 'DELETE FROM resource_providers WHERE id = ?', provider.id);
  return provider;
}
