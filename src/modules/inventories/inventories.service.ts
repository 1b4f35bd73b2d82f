// Inventories: Placement's PUT /resource_providers/{uuid}/inventories.
import type { Db } from '../../db/client.js';
import { all, get, list, run } from '../../db/sql.js';
import { GenerationConflict, InUse, InvalidInput, NotFound, type Issue } from '../common/errors.js';
import { bumpGeneration, requireProvider, type ProviderRow } from '../providers/providers.service.js';
import { capacityInRange, capacityOf, MAX_INT } from '../../rules/capacity.js';

export interface InventoryFields {
  total: number;
  reserved: number;
  minUnit: number;
  maxUnit: number;
  stepSize: number;
  allocationRatio: number;
}

export interface InventoryRow extends InventoryFields {
  providerId: number;
  resourceClass: string;
  /** Sum of allocations against this provider and class. */
  used: number;
}

type Nullable<T> = { [K in keyof T]?: T[K] | null };

export const INVENTORY_DEFAULTS: Omit<InventoryFields, 'total'> = { reserved: 0, minUnit: 1, maxUnit: MAX_INT, stepSize: 1, allocationRatio: 1.0 };

/** An inventory record as given: a field omitted or null takes Placement's default (withDefaults). */
export interface InventoryInput extends Nullable<Omit<InventoryFields, 'total'>> {
  resourceClass: string;
  total: number;
}

/** Problems with one inventory record: Placement's schema and rules, then the capacity the API can answer. */
export function inventoryIssues(inv: InventoryFields, path: string): Issue[] {
  const issues = placementInventoryIssues(inv, path);
  const capacity = issues.length === 0 ? capacityIssue(inv, path) : null;
  return capacity ? [capacity] : issues;
}

/**
 * A capacity the API cannot answer (capacityInRange), named on the field that multiplies it. With the
 * class and the provider, it carries the words Placement's REST API answers here (Placement 8.0.0
 * itself would store it).
 */
export function capacityIssue(inv: InventoryFields, path: string, of?: { resourceClass: string; providerUuid: string }): Issue | null {
  if (capacityInRange(inv)) return null;
  return {
    path: `${path}.allocationRatio`,
    message: `gives a capacity floor((total - reserved) * allocation_ratio) of ${capacityOf(inv)}, above ${MAX_INT}, the largest the API can answer: lower allocation_ratio or total`,
    ...(of && {
      placement: `Invalid inventory for '${of.resourceClass}' on resource provider '${of.providerUuid}'. Its capacity, int((total - reserved) * allocation_ratio), is ${capacityOf(inv)}: above ${MAX_INT}, the largest this service stores.`,
    }),
  };
}

/**
 * Gateway mode: Placement checks its own rules when the change reaches it, but takes capacities the
 * API cannot answer; those are refused before anything is sent.
 */
export function refuseCapacitiesOutOfRange(records: { inventory: InventoryInput; path: string }[], providerUuid: string) {
  const issues: Issue[] = [];
  for (const { inventory, path } of records) {
    const fields = withDefaults(inventory);
    const issue = placementInventoryIssues(fields, path).length === 0 ? capacityIssue(fields, path, { resourceClass: inventory.resourceClass, providerUuid }) : null;
    if (issue) issues.push({ ...issue, path: issue.path.replace(/^\./, '') });
  }
  if (issues.length) throw new InvalidInput(issues);
}

/** Problems with one inventory record, by Placement's schema and rules. */
export function placementInventoryIssues(inv: InventoryFields, path: string): Issue[] {
  const issues: Issue[] = [];
  const intField = (name: keyof InventoryFields, value: number, min: number) => {
    if (!Number.isInteger(value) || value < min || value > MAX_INT) issues.push({ path: `${path}.${name}`, message: `must be an integer from ${min} to ${MAX_INT} (got ${value})` });
  };
  intField('total', inv.total, 1);
  intField('reserved', inv.reserved, 0);
  intField('minUnit', inv.minUnit, 1);
  intField('maxUnit', inv.maxUnit, 1);
  intField('stepSize', inv.stepSize, 1);
  if (!(inv.allocationRatio > 0) || inv.allocationRatio > 3.40282e38) issues.push({ path: `${path}.allocationRatio`, message: `must be a number above 0 (got ${inv.allocationRatio})` });
  if (issues.length === 0) {
    if (inv.reserved > inv.total) issues.push({ path: `${path}.reserved`, message: `the reserved value (${inv.reserved}) is greater than total (${inv.total})` });
    if (inv.minUnit > inv.maxUnit) issues.push({ path: `${path}.minUnit`, message: `min_unit (${inv.minUnit}) is greater than max_unit (${inv.maxUnit})` });
  }
  return issues;
}

export function withDefaults(input: InventoryInput): InventoryFields {
  return {
    total: input.total,
    reserved: input.reserved ?? INVENTORY_DEFAULTS.reserved,
    minUnit: input.minUnit ?? INVENTORY_DEFAULTS.minUnit,
    maxUnit: input.maxUnit ?? INVENTORY_DEFAULTS.maxUnit,
    stepSize: input.stepSize ?? INVENTORY_DEFAULTS.stepSize,
    allocationRatio: input.allocationRatio ?? INVENTORY_DEFAULTS.allocationRatio,
  };
}

export const INVENTORY_COLUMNS = `i.resource_provider_id AS providerId, rc.name AS resourceClass, i.total, i.reserved, i.min_unit AS minUnit,
  i.max_unit AS maxUnit, i.step_size AS stepSize, i.allocation_ratio AS allocationRatio`;

/** Inventories with their usage for many providers in one statement. */
export function inventoriesOf(db: Db, providerIds: readonly number[]): InventoryRow[] {
  return all<InventoryRow>(
    db,
    `SELECT ${INVENTORY_COLUMNS},
       COALESCE((SELECT SUM(a.used) FROM allocations a WHERE a.resource_provider_id = i.resource_provider_id AND a.resource_class_id = i.resource_class_id), 0) AS used
     FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id
     WHERE i.resource_provider_id IN (SELECT value FROM json_each(?)) ORDER BY i.resource_provider_id, rc.id`,
    list(providerIds),
  );
}

/**
 * Placement's own check of an inventory it is given at a microversion (_validate_inventory_capacity):
 * the capacity, int((total - reserved) * allocation_ratio), must be above zero, or from 1.26 at least
 * zero. Its text, or null. Placement checks nothing else beyond its JSON schema (a ratio of 0, a
 * min_unit above max_unit are accepted).
 */
export function placementCapacityProblem(fields: InventoryFields, resourceClass: string, providerUuid: string, minor: number): string | null {
  const capacity = capacityOf(fields);
  if (minor >= 26 ? capacity >= 0 : capacity > 0) return null;
  return `Invalid inventory for '${resourceClass}' on resource provider '${providerUuid}'. The reserved value is greater than ${minor >= 26 ? '' : 'or equal to '}total.`;
}

/** Checked as Placement's REST API checks it at this microversion (its capacity rule: its JSON schema checked the fields); absent: this API's own checks. */
export interface PlacementRules {
  minor?: number | null;
}

/** The problems of an inventory record by the rules asked for. */
function recordIssues(fields: InventoryFields, path: string, resourceClass: string, provider: ProviderRow, rules: PlacementRules): Issue[] {
  if (rules.minor == null) return inventoryIssues(fields, path);
  const problem = placementCapacityProblem(fields, resourceClass, provider.uuid, rules.minor);
  if (problem) return [{ path: `${path}.reserved`, message: `the reserved value (${fields.reserved}) leaves no capacity (total ${fields.total})`, placement: problem }];
  const capacity = capacityIssue(fields, path, { resourceClass, providerUuid: provider.uuid });
  return capacity ? [capacity] : [];
}

export interface SetInventoriesInput extends PlacementRules {
  providerUuid: string;
  generation: number;
  inventories: InventoryInput[];
}

/** Ids of resource classes by name. */
const classIdsOf = (db: Db, names: readonly string[]) =>
  new Map(all<{ id: number; name: string }>(db, 'SELECT id, name FROM resource_classes WHERE name IN (SELECT value FROM json_each(?))', list(names)).map((r) => [r.name, r.id]));

/** A class that still has allocations cannot lose its inventory: Placement's refusal names every such class. */
export function assertNotInUse(db: Db, provider: ProviderRow, classIds: readonly number[], prefix: string) {
  const used = all<{ name: string }>(
    db,
    `SELECT rc.name FROM allocations a JOIN resource_classes rc ON rc.id = a.resource_class_id
     WHERE a.resource_provider_id = ? AND a.resource_class_id IN (SELECT value FROM json_each(?)) GROUP BY rc.id ORDER BY rc.id`,
    provider.id,
    list(classIds),
  );
  if (used.length) throw new InUse(`${prefix}Inventory for '${used.map((u) => u.name).join(', ')}' on resource provider '${provider.uuid}' in use.`, 'placement.inventory.inuse');
}

/** Replaces every inventory of a provider (Placement's PUT .../inventories): the generation first, then each record, then the classes. */
export function setInventories(db: Db, input: SetInventoriesInput): ProviderRow {
  const provider = requireProvider(db, input.providerUuid, 'providerUuid');
  bumpGeneration(db, provider, input.generation);
  const issues: Issue[] = [];
  const seen = new Set<string>();
  const classIds = classIdsOf(
    db,
    input.inventories.map((i) => i.resourceClass),
  );
  const records = input.inventories.map((inv, n) => {
    const path = `inventories.${n}`;
    // This API lists an unknown class among the other problems; Placement refuses it after them.
    if (input.minor == null && !classIds.has(inv.resourceClass)) issues.push({ path: `${path}.resourceClass`, message: `unknown resource class ${inv.resourceClass}` });
    if (seen.has(inv.resourceClass)) issues.push({ path: `${path}.resourceClass`, message: `${inv.resourceClass} is listed twice` });
    seen.add(inv.resourceClass);
    const fields = withDefaults(inv);
    issues.push(...recordIssues(fields, path, inv.resourceClass, provider, input));
    return { classId: classIds.get(inv.resourceClass)!, resourceClass: inv.resourceClass, fields };
  });
  if (issues.length) throw new InvalidInput(issues);
  const unknown = records.find((r) => r.classId === undefined);
  if (unknown) throw new NotFound('resource class', `resourceClass=${unknown.resourceClass}`, `No such resource class ${unknown.resourceClass}.`);
  const removed = all<{ id: number }>(
    db,
    'SELECT resource_class_id AS id FROM inventories WHERE resource_provider_id = ? AND resource_class_id NOT IN (SELECT value FROM json_each(?))',
    provider.id,
    list(records.map((r) => r.classId)),
  );
  assertNotInUse(
    db,
    provider,
    removed.map((r) => r.id),
    'update conflict: ',
  );
  writeInventories(db, provider.id, records);
  return provider;
}

export interface SetInventoryInput extends InventoryInput {
  providerUuid: string;
  generation: number;
}

/**
 * Creates or replaces the inventory of one class, leaving the others as they are (omitted fields take
 * Placement's defaults). Placement's PUT .../inventories/{rc} refuses a class the provider has no
 * inventory of yet (updateInventory); here it is added, as osc-placement's --amend does.
 */
export function setInventory(db: Db, input: SetInventoryInput): ProviderRow {
  const fields = withDefaults(input);
  const issues = inventoryIssues(fields, '');
  if (issues.length) throw new InvalidInput(issues.map((i) => ({ ...i, path: i.path.slice(1) })));
  const provider = requireProvider(db, input.providerUuid, 'providerUuid');
  // Placement's order: the generation is checked before the class is looked up.
  bumpGeneration(db, provider, input.generation);
  const classId = requireClass(db, input.resourceClass);
  upsertInventory(db, provider.id, classId, fields);
  return provider;
}

function requireClass(db: Db, name: string): number {
  const rc = get<{ id: number }>(db, 'SELECT id FROM resource_classes WHERE name = ?', name);
  if (!rc) throw new NotFound('resource class', `resourceClass=${name}`, `No such resource class ${name}.`);
  return rc.id;
}

/** A class's inventory on a provider. */
const hasInventory = (db: Db, providerId: number, classId: number) => !!get(db, 'SELECT 1 FROM inventories WHERE resource_provider_id = ? AND resource_class_id = ?', providerId, classId);

export interface AddInventoryInput extends InventoryInput, PlacementRules {
  providerUuid: string;
}

/** Adds the inventory of a class the provider has none of (Placement's POST .../inventories, which takes no generation). */
export function addInventory(db: Db, input: AddInventoryInput): { provider: ProviderRow; inventory: InventoryFields } {
  const provider = requireProvider(db, input.providerUuid, 'providerUuid');
  const fields = withDefaults(input);
  const issues = recordIssues(fields, '', input.resourceClass, provider, input);
  if (issues.length) throw new InvalidInput(issues.map((i) => ({ ...i, path: i.path.slice(1) })));
  const classId = requireClass(db, input.resourceClass);
  if (hasInventory(db, provider.id, classId)) {
    throw new GenerationConflict('resourceClass', null, provider.generation, `Update conflict: provider ${provider.uuid} already has an inventory of ${input.resourceClass}.`);
  }
  upsertInventory(db, provider.id, classId, fields);
  bumpGeneration(db, provider, provider.generation);
  return { provider, inventory: fields };
}

export interface UpdateInventoryInput extends SetInventoryInput, PlacementRules {}

/** Replaces the inventory of a class the provider has (Placement's PUT .../inventories/{rc}): the generation, the record, then the class. */
export function updateInventory(db: Db, input: UpdateInventoryInput): { provider: ProviderRow; inventory: InventoryFields } {
  const provider = requireProvider(db, input.providerUuid, 'providerUuid');
  bumpGeneration(db, provider, input.generation);
  const fields = withDefaults(input);
  const issues = recordIssues(fields, '', input.resourceClass, provider, input);
  if (issues.length) throw new InvalidInput(issues.map((i) => ({ ...i, path: i.path.slice(1) })));
  const classId = requireClass(db, input.resourceClass);
  if (!hasInventory(db, provider.id, classId)) {
    throw new InvalidInput([{ path: 'resourceClass', message: `provider ${provider.uuid} has no inventory of ${input.resourceClass}`, placement: `No inventory of class ${input.resourceClass} found.` }]);
  }
  upsertInventory(db, provider.id, classId, fields);
  return { provider, inventory: fields };
}

export interface DeleteInventoryInput {
  providerUuid: string;
  resourceClass: string;
}

/** Deletes the inventory of one class (Placement's DELETE .../inventories/{rc}, which takes no generation): refused while allocated. */
export function deleteInventory(db: Db, input: DeleteInventoryInput): ProviderRow {
  const provider = requireProvider(db, input.providerUuid, 'providerUuid');
  const classId = requireClass(db, input.resourceClass);
  assertNotInUse(db, provider, [classId], '');
  if (!hasInventory(db, provider.id, classId)) {
    throw new NotFound('inventory', `resourceClass=${input.resourceClass}`, `No inventory of class ${input.resourceClass} found for delete`);
  }
  run(db, 'DELETE FROM inventories WHERE resource_provider_id = ? AND resource_class_id = ?', provider.id, classId);
  bumpGeneration(db, provider, provider.generation);
  return provider;
}

/** Deletes every inventory of a provider (Placement's DELETE .../inventories, 1.5): refused while any is allocated. */
export function deleteInventories(db: Db, providerUuid: string): ProviderRow {
  const provider = requireProvider(db, providerUuid, 'providerUuid');
  const classes = all<{ id: number }>(db, 'SELECT resource_class_id AS id FROM inventories WHERE resource_provider_id = ?', provider.id);
  assertNotInUse(
    db,
    provider,
    classes.map((c) => c.id),
    '',
  );
  writeInventories(db, provider.id, []);
  bumpGeneration(db, provider, provider.generation);
  return provider;
}

/** Replaces the inventory rows of a provider (no checks: callers validate). */
export function writeInventories(db: Db, providerId: number, records: { classId: number; fields: InventoryFields }[]) {
  run(db, 'DELETE FROM inventories WHERE resource_provider_id = ? AND resource_class_id NOT IN (SELECT value FROM json_each(?))', providerId, list(records.map((r) => r.classId)));
  for (const { classId, fields } of records) upsertInventory(db, providerId, classId, fields);
}

/** Creates or replaces one inventory row. */
export function upsertInventory(db: Db, providerId: number, classId: number, f: InventoryFields) {
  run(
    db,
    `INSERT INTO inventories (resource_provider_id, resource_class_id, total, reserved, min_unit, max_unit, step_size, allocation_ratio)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (resource_provider_id, resource_class_id) DO UPDATE SET total = excluded.total, reserved = excluded.reserved,
       min_unit = excluded.min_unit, max_unit = excluded.max_unit, step_size = excluded.step_size, allocation_ratio = excluded.allocation_ratio`,
    providerId,
    classId,
    f.total,
    f.reserved,
    f.minUnit,
    f.maxUnit,
    f.stepSize,
    f.allocationRatio,
  );
}
