// Consumers and their allocations: Placement's PUT/DELETE /allocations/{consumer} and usage totals.
import type { Db } from '../../db/client.js';
import { all, get, list, run } from '../../db/sql.js';
import { CapacityExceeded, GenerationConflict, InvalidInput, NotFound, type Issue } from '../common/errors.js';
import { capacityOf } from '../../rules/capacity.js';
import { DEFAULT_CONSUMER_TYPE, isConsumerType } from '../../rules/names.js';
import type { ResourceAmount } from '../common/names.js';

export interface ConsumerRow {
  id: number;
  uuid: string;
  projectId: string;
  userId: string;
  consumerType: string;
  generation: number;
}

export interface AllocationRow {
  consumerId: number;
  providerId: number;
  resourceClass: string;
  used: number;
}

export const CONSUMER_COLUMNS = 'c.id, c.uuid, c.project_id AS projectId, c.user_id AS userId, c.consumer_type AS consumerType, c.generation';
export const ALLOCATION_COLUMNS = 'a.consumer_id AS consumerId, a.resource_provider_id AS providerId, rc.name AS resourceClass, a.used';

export function consumerByUuid(db: Db, uuid: string): ConsumerRow | undefined {
  return get<ConsumerRow>(db, `SELECT ${CONSUMER_COLUMNS} FROM consumers c WHERE c.uuid = ?`, uuid);
}

export interface ProviderAllocationInput {
  providerUuid: string;
  resources: ResourceAmount[];
}

export interface SetAllocationsInput {
  consumerUuid: string;
  /** The consumer's generation as last read; null when the caller expects a new consumer. */
  consumerGeneration: number | null;
  projectId: string;
  userId: string;
  consumerType?: string | null;
  allocations: ProviderAllocationInput[];
}

/**
 * Replaces all allocations of one consumer, as Placement's PUT /allocations/{consumer} (1.38):
 * consumer generation checked, every amount checked against capacity, min_unit, max_unit and
 * step_size (the consumer's own previous allocations do not count as used), provider generations bumped.
 * An empty list removes the consumer's allocations and the consumer.
 */
export function setAllocations(db: Db, input: SetAllocationsInput): { consumer: ConsumerRow | null; providerUuids: string[] } {
  const consumerType = input.consumerType ?? DEFAULT_CONSUMER_TYPE;
  const issues: Issue[] = [];
  if (!input.projectId) issues.push({ path: 'projectId', message: 'must not be empty' });
  if (!input.userId) issues.push({ path: 'userId', message: 'must not be empty' });
  if (!isConsumerType(consumerType)) issues.push({ path: 'consumerType', message: 'must match ^[A-Z0-9_]+$ and be at most 255 characters' });

  const providerRows = all<{ id: number; uuid: string }>(db, 'SELECT id, uuid FROM resource_providers WHERE uuid IN (SELECT value FROM json_each(?))', list(input.allocations.map((a) => a.providerUuid)));
  const providerIds = new Map(providerRows.map((r) => [r.uuid, r.id]));
  const seenProviders = new Set<string>();
  input.allocations.forEach((alloc, n) => {
    const path = `allocations.${n}`;
    if (!providerIds.has(alloc.providerUuid)) issues.push({ path: `${path}.providerUuid`, message: `resource provider ${alloc.providerUuid} does not exist` });
    if (seenProviders.has(alloc.providerUuid)) issues.push({ path: `${path}.providerUuid`, message: `provider ${alloc.providerUuid} is listed twice` });
    seenProviders.add(alloc.providerUuid);
    if (alloc.resources.length === 0) issues.push({ path: `${path}.resources`, message: 'must list at least one resource class' });
    const seenClasses = new Set<string>();
    alloc.resources.forEach((r, k) => {
      if (!Number.isInteger(r.amount) || r.amount < 1) issues.push({ path: `${path}.resources.${k}.amount`, message: `must be an integer of at least 1 (got ${r.amount})` });
      if (seenClasses.has(r.resourceClass)) issues.push({ path: `${path}.resources.${k}.resourceClass`, message: `${r.resourceClass} is listed twice for this provider` });
      seenClasses.add(r.resourceClass);
    });
  });
  if (issues.length) throw new InvalidInput(issues);

  const consumer = consumerByUuid(db, input.consumerUuid);
  const actual = consumer ? consumer.generation : null;
  if (actual !== input.consumerGeneration) {
    throw new GenerationConflict(
      'consumerGeneration',
      input.consumerGeneration,
      actual,
      `consumer generation conflict - expected ${input.consumerGeneration ?? 'null'} but got ${actual ?? 'null'}` +
        (actual === null ? ' (the consumer does not exist: send null to create it)' : ''),
    );
  }

  // Inventory and usage (without this consumer) of every provider and class asked for, in one statement.
  const wanted = input.allocations.flatMap((a) => a.resources.map((r) => [providerIds.get(a.providerUuid)!, r.resourceClass]));
  const inventoryRows = all<{ providerId: number; resourceClass: string; classId: number; total: number; reserved: number; minUnit: number; maxUnit: number; stepSize: number; allocationRatio: number; used: number }>(
    db,
    `SELECT i.resource_provider_id AS providerId, rc.name AS resourceClass, rc.id AS classId, i.total, i.reserved, i.min_unit AS minUnit, i.max_unit AS maxUnit,
       i.step_size AS stepSize, i.allocation_ratio AS allocationRatio,
       COALESCE((SELECT SUM(a.used) FROM allocations a WHERE a.resource_provider_id = i.resource_provider_id AND a.resource_class_id = i.resource_class_id
                 AND a.consumer_id IS NOT ?), 0) AS used
     FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id
     JOIN json_each(?) w ON i.resource_provider_id = w.value ->> 0 AND rc.name = w.value ->> 1`,
    consumer?.id ?? null,
    JSON.stringify(wanted),
  );
  const inventory = new Map(inventoryRows.map((r) => [`${r.providerId}/${r.resourceClass}`, r]));
  const inserts: { providerId: number; classId: number; amount: number }[] = [];
  input.allocations.forEach((alloc, n) => {
    const providerId = providerIds.get(alloc.providerUuid)!;
    alloc.resources.forEach((r, k) => {
      const field = `allocations.${n}.resources.${k}.amount`;
      const inv = inventory.get(`${providerId}/${r.resourceClass}`);
      if (!inv) {
        issues.push({ path: `allocations.${n}.resources.${k}.resourceClass`, message: `resource provider ${alloc.providerUuid} has no inventory of ${r.resourceClass}` });
        return;
      }
      const capacity = capacityOf(inv);
      const fail = (rule: string) => {
        throw new CapacityExceeded(field, alloc.providerUuid, r.resourceClass, r.amount, inv.used, capacity, `Unable to allocate ${r.amount} ${r.resourceClass} on resource provider ${alloc.providerUuid}: ${rule}.`);
      };
      if (r.amount < inv.minUnit) fail(`amount is below min_unit ${inv.minUnit}`);
      if (r.amount > inv.maxUnit) fail(`amount is above max_unit ${inv.maxUnit}`);
      if (r.amount % inv.stepSize !== 0) fail(`amount is not a multiple of step_size ${inv.stepSize}`);
      if (inv.used + r.amount > capacity) fail(`the requested amount would exceed the capacity (used ${inv.used} + ${r.amount} > capacity ${capacity})`);
      inserts.push({ providerId, classId: inv.classId, amount: r.amount });
    });
  });
  if (issues.length) throw new InvalidInput(issues);

  // Providers whose usage changes: those the consumer held before and those it holds now.
  const previous = consumer ? providersOfConsumer(db, consumer.id) : [];
  const providerUuids = [...new Set([...previous.map((p) => p.uuid), ...input.allocations.map((a) => a.providerUuid)])];
  if (consumer) run(db, 'DELETE FROM allocations WHERE consumer_id = ?', consumer.id);
  if (inserts.length === 0) {
    if (consumer) run(db, 'DELETE FROM consumers WHERE id = ?', consumer.id);
    return { consumer: null, providerUuids };
  }
  let consumerId: number;
  if (consumer) {
    run(db, 'UPDATE consumers SET project_id = ?, user_id = ?, consumer_type = ?, generation = generation + 1 WHERE id = ?', input.projectId, input.userId, consumerType, consumer.id);
    consumerId = consumer.id;
  } else {
    consumerId = Number(run(db, 'INSERT INTO consumers (uuid, project_id, user_id, consumer_type, generation) VALUES (?, ?, ?, ?, 1)', input.consumerUuid, input.projectId, input.userId, consumerType).lastInsertRowid);
  }
  for (const ins of inserts) run(db, 'INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used) VALUES (?, ?, ?, ?)', ins.providerId, consumerId, ins.classId, ins.amount);
  run(db, `UPDATE resource_providers SET generation = generation + 1 WHERE id IN (SELECT value FROM json_each(?))`, list([...new Set(inserts.map((i) => i.providerId))]));
  return { consumer: consumerByUuid(db, input.consumerUuid)!, providerUuids };
}

function providersOfConsumer(db: Db, consumerId: number): { id: number; uuid: string }[] {
  return all<{ id: number; uuid: string }>(
    db,
    'SELECT DISTINCT rp.id, rp.uuid FROM allocations a JOIN resource_providers rp ON rp.id = a.resource_provider_id WHERE a.consumer_id = ?',
    consumerId,
  );
}

/** Removes every allocation of a consumer, and the consumer (Placement's DELETE /allocations/{consumer}). */
export function deleteAllocations(db: Db, consumerUuid: string): { providerUuids: string[] } {
  const consumer = consumerByUuid(db, consumerUuid);
  if (!consumer) throw new NotFound('consumer', `consumerUuid=${consumerUuid}`, `No allocations for consumer '${consumerUuid}'.`);
  run(
    db,
    'UPDATE resource_providers SET generation = generation + 1 WHERE id IN (SELECT DISTINCT resource_provider_id FROM allocations WHERE consumer_id = ?)',
    consumer.id,
  );
  const providers = providersOfConsumer(db, consumer.id);
  const providerUuids = providers.map((p) => p.uuid);
  run(db, 'DELETE FROM allocations WHERE consumer_id = ?', consumer.id);
  run(db, 'DELETE FROM consumers WHERE id = ?', consumer.id);
  return { providerUuids };
}

export type UsageGrouping = 'PROJECT' | 'USER' | 'CONSUMER_TYPE';

export interface UsageTotal {
  key: string;
  consumerCount: number;
  resources: { resourceClass: string; used: number }[];
}

const GROUP_COLUMN: Record<UsageGrouping, string> = { PROJECT: 'c.project_id', USER: 'c.user_id', CONSUMER_TYPE: 'c.consumer_type' };

/** Usage totals grouped by project, user or consumer type, optionally narrowed (Placement's GET /usages, generalised). */
export function usageTotals(db: Db, groupBy: UsageGrouping, where: { projectId?: string | null; userId?: string | null; consumerType?: string | null }): UsageTotal[] {
  const column = GROUP_COLUMN[groupBy];
  const rows = all<{ key: string; resourceClass: string; used: number; consumerCount: number }>(
    db,
    `WITH picked AS (SELECT c.id, ${column} AS key FROM consumers c
        WHERE (@projectId IS NULL OR c.project_id = @projectId) AND (@userId IS NULL OR c.user_id = @userId) AND (@consumerType IS NULL OR c.consumer_type = @consumerType))
     SELECT p.key, rc.name AS resourceClass, SUM(a.used) AS used,
       (SELECT COUNT(*) FROM picked q WHERE q.key = p.key) AS consumerCount
     FROM picked p JOIN allocations a ON a.consumer_id = p.id JOIN resource_classes rc ON rc.id = a.resource_class_id
     GROUP BY p.key, rc.id ORDER BY p.key, rc.id`,
    { projectId: where.projectId ?? null, userId: where.userId ?? null, consumerType: where.consumerType ?? null },
  );
  const totals = new Map<string, UsageTotal>();
  for (const row of rows) {
    let total = totals.get(row.key);
    if (!total) totals.set(row.key, (total = { key: row.key, consumerCount: row.consumerCount, resources: [] }));
    total.resources.push({ resourceClass: row.resourceClass, used: row.used });
  }
  return [...totals.values()];
}
