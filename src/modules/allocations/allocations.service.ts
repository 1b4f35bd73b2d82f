// Consumers and their allocations, with Placement's rules (handlers/allocation.py, handlers/util.py
// ensure_consumer, objects/allocation.py replace_all): PUT and DELETE /allocations/{consumer} and
// POST /allocations at every microversion, the GraphQL setAllocations, and usage totals.
import type { Db } from '../../db/client.js';
import { all, get, list, run } from '../../db/sql.js';
import { CapacityExceeded, GenerationConflict, InvalidInput, NotFound, type Issue } from '../common/errors.js';
import { capacityOf } from '../../rules/capacity.js';
import { DEFAULT_CONSUMER_TYPE, isConsumerType, NO_CONSUMER_TYPE } from '../../rules/names.js';
import type { ResourceAmount } from '../common/names.js';

export interface ConsumerRow {
  id: number;
  uuid: string;
  projectId: string;
  userId: string;
  /** null: none (written before Placement 1.38; shown as `unknown`). */
  consumerType: string | null;
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

/** Placement's project and user for a consumer written without them (before 1.8): its incomplete_consumer_*_id defaults. */
export const INCOMPLETE_CONSUMER_ID = '00000000-0000-0000-0000-000000000000';

export function consumerByUuid(db: Db, uuid: string): ConsumerRow | undefined {
  return get<ConsumerRow>(db, `SELECT ${CONSUMER_COLUMNS} FROM consumers c WHERE c.uuid = ?`, uuid);
}

export interface ProviderAllocationInput {
  providerUuid: string;
  resources: ResourceAmount[];
}

/** One consumer's allocations as Placement's API receives them at some microversion. */
export interface ConsumerAllocations {
  consumerUuid: string;
  /** null: not given (before 1.8): Placement's incomplete-consumer project and user. */
  projectId: string | null;
  userId: string | null;
  /** The generation last read, null for a new consumer; undefined: not checked (before 1.28). */
  consumerGeneration?: number | null;
  /** undefined or null: not given (before 1.38): a new consumer has none, an existing one keeps its own. */
  consumerType?: string | null;
  /** The complete new set, per provider, in the caller's order; empty removes them all. */
  allocations: ProviderAllocationInput[];
}

/** One allocation to write; amount 0 marks one of the consumer's allocations to remove (Placement's `used = 0`). */
export interface PlannedAllocation {
  consumer: ConsumerRow;
  providerId: number;
  providerUuid: string;
  resourceClass: string;
  amount: number;
  /** Where it came from in the caller's input (for GraphQL's error paths). */
  path: string;
}

/** A consumer as ensure_consumer leaves it: found or created, with what the request asks of it. */
export interface EnsuredConsumer {
  consumer: ConsumerRow;
  request: ConsumerAllocations;
  projectId: string;
  userId: string;
}

const pyStr = (value: number | null | undefined) => (value === null || value === undefined ? 'None' : String(value));

/**
 * ensure_consumer for every consumer, in order: the consumer generation checked (from 1.28), a
 * missing consumer created (generation 0, its type only when given).
 */
export function ensureConsumers(db: Db, requests: readonly ConsumerAllocations[]): EnsuredConsumer[] {
  return requests.map((request) => {
    const projectId = request.projectId ?? INCOMPLETE_CONSUMER_ID;
    const userId = request.projectId === null ? INCOMPLETE_CONSUMER_ID : (request.userId ?? INCOMPLETE_CONSUMER_ID);
    const given = request.consumerGeneration;
    let consumer = consumerByUuid(db, request.consumerUuid);
    if (given !== undefined) {
      const actual = consumer ? consumer.generation : null;
      if (actual !== given) {
        throw new GenerationConflict(
          'consumerGeneration',
          given,
          actual,
          `consumer generation conflict - expected ${given ?? 'null'} but got ${actual ?? 'null'}` + (actual === null ? ' (the consumer does not exist: send null to create it)' : ''),
          // Placement's "expected" is the generation it holds.
          consumer ? `consumer generation conflict - expected ${actual} but got ${pyStr(given)}` : `consumer generation conflict - expected null but got ${given}`,
        );
      }
    }
    if (!consumer) {
      run(db, 'INSERT INTO consumers (uuid, project_id, user_id, consumer_type, generation) VALUES (?, ?, ?, ?, 0)', request.consumerUuid, projectId, userId, request.consumerType ?? null);
      consumer = consumerByUuid(db, request.consumerUuid)!;
    }
    return { consumer, request, projectId, userId };
  });
}

/**
 * create_allocation_list: the allocations to write, consumer by consumer. Every provider named must
 * exist; a consumer given no allocations has each of its current ones listed with amount 0.
 */
export function planAllocations(db: Db, ensured: readonly EnsuredConsumer[]): PlannedAllocation[] {
  const planned: PlannedAllocation[] = [];
  for (const { consumer, request } of ensured) {
    if (request.allocations.length === 0) {
      for (const row of currentAllocations(db, consumer.id)) planned.push({ consumer, ...row, amount: 0, path: 'allocations' });
      continue;
    }
    const ids = providerIdsOf(
      db,
      request.allocations.map((a) => a.providerUuid),
    );
    request.allocations.forEach((alloc, n) => {
      const providerId = ids.get(alloc.providerUuid);
      if (providerId === undefined) {
        throw new InvalidInput([
          {
            path: `allocations.${n}.providerUuid`,
            message: `resource provider ${alloc.providerUuid} does not exist`,
            placement: `Allocation for resource provider '${alloc.providerUuid}' that does not exist.`,
          },
        ]);
      }
      alloc.resources.forEach((r, k) =>
        planned.push({ consumer, providerId, providerUuid: alloc.providerUuid, resourceClass: r.resourceClass, amount: r.amount, path: `allocations.${n}.resources.${k}` }),
      );
    });
  }
  return planned;
}

const providerIdsOf = (db: Db, uuids: readonly string[]) =>
  new Map(all<{ id: number; uuid: string }>(db, 'SELECT id, uuid FROM resource_providers WHERE uuid IN (SELECT value FROM json_each(?))', list(uuids)).map((r) => [r.uuid, r.id]));

function currentAllocations(db: Db, consumerId: number) {
  return all<{ providerId: number; providerUuid: string; resourceClass: string }>(
    db,
    `SELECT a.resource_provider_id AS providerId, rp.uuid AS providerUuid, rc.name AS resourceClass FROM allocations a
     JOIN resource_providers rp ON rp.id = a.resource_provider_id JOIN resource_classes rc ON rc.id = a.resource_class_id
     WHERE a.consumer_id = ? ORDER BY a.id`,
    consumerId,
  );
}

/**
 * update_consumers: a consumer's project and user become the request's (its generation is bumped
 * with its allocations), and its type too when the request names one (from 1.38).
 */
export function updateConsumers(db: Db, ensured: readonly EnsuredConsumer[]) {
  for (const { consumer, request, projectId, userId } of ensured) {
    const type = request.consumerType ?? null;
    if (projectId === consumer.projectId && userId === consumer.userId && (type === null || type === consumer.consumerType)) continue;
    const consumerType = type ?? consumer.consumerType;
    run(db, 'UPDATE consumers SET project_id = ?, user_id = ?, consumer_type = ? WHERE id = ?', projectId, userId, consumerType, consumer.id);
    Object.assign(consumer, { projectId, userId, consumerType });
  }
}

interface InventoryCheck {
  providerId: number;
  classId: number;
  total: number;
  reserved: number;
  minUnit: number;
  maxUnit: number;
  stepSize: number;
  allocationRatio: number;
  used: number;
}

/**
 * replace_all: the consumers' allocations are replaced by the planned ones, checked as Placement
 * checks them once the consumers' own allocations are gone: every class must exist, every provider
 * must have an inventory of some class asked for, then each amount (in order) must have an
 * inventory, fit min_unit, max_unit and step_size, and fit the capacity with what others use and
 * what this write takes from the same inventory. Every provider and consumer listed gets a new
 * generation; a consumer left without allocations is removed.
 */
export function replaceAllocations(db: Db, planned: readonly PlannedAllocation[]) {
  const consumers = [...new Map(planned.map((a) => [a.consumer.id, a.consumer])).values()];
  for (const consumer of consumers) run(db, 'DELETE FROM allocations WHERE consumer_id = ?', consumer.id);

  const classIds = new Map<string, number>();
  for (const alloc of planned) {
    if (classIds.has(alloc.resourceClass)) continue;
    const row = get<{ id: number }>(db, 'SELECT id FROM resource_classes WHERE name = ?', alloc.resourceClass);
    if (!row) throw new NotFound('resource class', `resourceClass=${alloc.resourceClass}`, `No such resource class ${alloc.resourceClass}.`);
    classIds.set(alloc.resourceClass, row.id);
  }
  const providers = new Map(planned.map((a) => [a.providerId, a.providerUuid]));
  const rows = all<InventoryCheck>(
    db,
    `SELECT i.resource_provider_id AS providerId, i.resource_class_id AS classId, i.total, i.reserved, i.min_unit AS minUnit, i.max_unit AS maxUnit,
       i.step_size AS stepSize, i.allocation_ratio AS allocationRatio,
       COALESCE((SELECT SUM(a.used) FROM allocations a WHERE a.resource_provider_id = i.resource_provider_id AND a.resource_class_id = i.resource_class_id), 0) AS used
     FROM inventories i
     WHERE i.resource_provider_id IN (SELECT value FROM json_each(?)) AND i.resource_class_id IN (SELECT value FROM json_each(?))`,
    list([...providers.keys()]),
    list([...classIds.values()]),
  );
  const inventory = new Map(rows.map((r) => [`${r.providerId}/${r.classId}`, r]));
  const withInventory = new Set(rows.map((r) => r.providerId));
  const missing = [...providers].filter(([id]) => !withInventory.has(id)).map(([, uuid]) => uuid);
  if (missing.length) {
    const classes = [...classIds].sort((a, b) => a[1] - b[1]).map(([name]) => name);
    const first = planned.find((a) => !withInventory.has(a.providerId))!;
    throw noInventory(first, `Inventory for '${classes.join(', ')}' on resource provider '${missing.join(', ')}' invalid.`);
  }

  const taken = new Map<string, number>();
  for (const alloc of planned) {
    const key = `${alloc.providerId}/${classIds.get(alloc.resourceClass)}`;
    taken.set(key, (taken.get(key) ?? 0) + alloc.amount);
    if (alloc.amount === 0) continue;
    const inv = inventory.get(key);
    if (!inv) throw noInventory(alloc, `Inventory for '${alloc.resourceClass}' on resource provider '${alloc.providerUuid}' invalid.`);
    const capacity = capacityOf(inv);
    const refuse = (rule: string, placement: string) =>
      new CapacityExceeded(
        `${alloc.path}.amount`,
        alloc.providerUuid,
        alloc.resourceClass,
        alloc.amount,
        inv.used,
        capacity,
        `Unable to allocate ${alloc.amount} ${alloc.resourceClass} on resource provider ${alloc.providerUuid}: ${rule}.`,
        `Unable to create allocation for '${alloc.resourceClass}' on resource provider '${alloc.providerUuid}'. The requested amount would ${placement}.`,
      );
    const constraints = 'violate inventory constraints';
    if (alloc.amount < inv.minUnit) throw refuse(`the amount is below min_unit ${inv.minUnit}`, constraints);
    if (alloc.amount > inv.maxUnit) throw refuse(`the amount is above max_unit ${inv.maxUnit}`, constraints);
    if (alloc.amount % inv.stepSize !== 0) throw refuse(`the amount is not a multiple of step_size ${inv.stepSize}`, constraints);
    const wanted = Math.max(alloc.amount, taken.get(key)!);
    if (inv.used + wanted > capacity) {
      throw refuse(`the requested amount would exceed the capacity (used ${inv.used} + ${wanted} > capacity ${capacity})`, 'exceed the capacity');
    }
  }

  for (const alloc of planned) {
    if (alloc.amount === 0) continue;
    run(db, 'INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used) VALUES (?, ?, ?, ?)', alloc.providerId, alloc.consumer.id, classIds.get(alloc.resourceClass), alloc.amount);
  }
  run(db, `UPDATE resource_providers SET generation = generation + 1, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id IN (SELECT value FROM json_each(?))`, list([...providers.keys()]));
  run(db, 'UPDATE consumers SET generation = generation + 1 WHERE id IN (SELECT value FROM json_each(?))', list(consumers.map((c) => c.id)));
  run(db, 'DELETE FROM consumers WHERE id IN (SELECT value FROM json_each(?)) AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.consumer_id = consumers.id)', list(consumers.map((c) => c.id)));
}

/** A provider without the inventory asked for: Placement's InvalidInventory (a 409 there, like a capacity refusal). */
const noInventory = (alloc: PlannedAllocation, placement: string) =>
  new CapacityExceeded(`${alloc.path}.resourceClass`, alloc.providerUuid, alloc.resourceClass, alloc.amount, 0, 0, `Resource provider ${alloc.providerUuid} has no inventory of ${alloc.resourceClass}.`, placement);

/** What a write of allocations changed: the consumers as they are now (null when removed) and the providers whose usage changed. */
export interface AllocationsWritten {
  consumers: { consumerUuid: string; consumer: ConsumerRow | null; providerUuids: string[] }[];
}

/** Providers a consumer holds allocations on now, by uuid. */
function providerUuidsOf(db: Db, consumerUuid: string): string[] {
  return all<{ uuid: string }>(
    db,
    `SELECT DISTINCT rp.uuid FROM allocations a JOIN consumers c ON c.id = a.consumer_id JOIN resource_providers rp ON rp.id = a.resource_provider_id WHERE c.uuid = ?`,
    consumerUuid,
  ).map((r) => r.uuid);
}

/**
 * Writes the allocations of one or more consumers, all or nothing, as Placement's PUT
 * /allocations/{consumer} (one) and POST /allocations (several) do at the microversion the
 * requests were read at: consumer generations and creation, providers, then classes, inventories,
 * units and capacity, each refusal being Placement's first.
 */
export interface WriteAllocationsInput {
  consumers: ConsumerAllocations[];
  /** The microversion the request was read at (gateway mode sends it to Placement at the same one). */
  minor: number;
  /** Several consumers at once (POST /allocations) rather than one (PUT /allocations/{consumer}). */
  several: boolean;
}

export function writeAllocations(db: Db, input: WriteAllocationsInput): AllocationsWritten {
  const requests = input.consumers;
  const before = new Map(requests.map((r) => [r.consumerUuid, providerUuidsOf(db, r.consumerUuid)]));
  const ensured = ensureConsumers(db, requests);
  const planned = planAllocations(db, ensured);
  updateConsumers(db, ensured);
  replaceAllocations(db, planned);
  return {
    consumers: requests.map((r) => ({
      consumerUuid: r.consumerUuid,
      consumer: consumerByUuid(db, r.consumerUuid) ?? null,
      providerUuids: [...new Set([...before.get(r.consumerUuid)!, ...r.allocations.map((a) => a.providerUuid)])],
    })),
  };
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
 * Replaces all allocations of one consumer, as Placement's PUT /allocations/{consumer} at 1.38
 * (GraphQL's setAllocations): every problem of the input is listed first (fields, unknown
 * providers, classes without inventory); then the consumer generation, units and capacity are
 * checked as Placement checks them. An empty list removes the consumer's allocations.
 */
export function setAllocations(db: Db, input: SetAllocationsInput): { consumer: ConsumerRow | null; providerUuids: string[] } {
  const consumerType = input.consumerType ?? DEFAULT_CONSUMER_TYPE;
  const issues: Issue[] = [];
  if (!input.projectId) issues.push({ path: 'projectId', message: 'must not be empty' });
  if (!input.userId) issues.push({ path: 'userId', message: 'must not be empty' });
  if (!isConsumerType(consumerType)) issues.push({ path: 'consumerType', message: 'must match ^[A-Z0-9_]+$ and be at most 255 characters' });

  const providerIds = providerIdsOf(
    db,
    input.allocations.map((a) => a.providerUuid),
  );
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

  const held = new Set(
    all<{ key: string }>(
      db,
      `SELECT i.resource_provider_id || '/' || rc.name AS key FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id
       WHERE i.resource_provider_id IN (SELECT value FROM json_each(?))`,
      list([...providerIds.values()]),
    ).map((r) => r.key),
  );
  input.allocations.forEach((alloc, n) =>
    alloc.resources.forEach((r, k) => {
      if (!held.has(`${providerIds.get(alloc.providerUuid)}/${r.resourceClass}`)) {
        issues.push({ path: `allocations.${n}.resources.${k}.resourceClass`, message: `resource provider ${alloc.providerUuid} has no inventory of ${r.resourceClass}` });
      }
    }),
  );
  if (issues.length) throw new InvalidInput(issues);

  const [written] = writeAllocations(db, { consumers: [{ ...input, consumerType }], minor: 38, several: false }).consumers;
  return { consumer: written.consumer, providerUuids: written.providerUuids };
}

/**
 * Removes every allocation of a consumer, and the consumer (Placement's DELETE
 * /allocations/{consumer}); as there, no provider's generation changes.
 */
export function deleteAllocations(db: Db, consumerUuid: string): { providerUuids: string[] } {
  const consumer = consumerByUuid(db, consumerUuid);
  const providerUuids = consumer ? providerUuidsOf(db, consumerUuid) : [];
  if (!consumer || providerUuids.length === 0) throw new NotFound('consumer', `consumerUuid=${consumerUuid}`, `No allocations for consumer '${consumerUuid}'`);
  run(db, 'DELETE FROM allocations WHERE consumer_id = ?', consumer.id);
  run(db, 'DELETE FROM consumers WHERE id = ?', consumer.id);
  return { providerUuids };
}

/** A consumer's allocations with its providers' generations, in the order they were written (GET /allocations/{consumer}). */
export function allocationsOfConsumer(db: Db, consumerUuid: string) {
  return all<{ providerUuid: string; providerGeneration: number; resourceClass: string; used: number }>(
    db,
    `SELECT rp.uuid AS providerUuid, rp.generation AS providerGeneration, rc.name AS resourceClass, a.used FROM consumers c
     JOIN allocations a ON a.consumer_id = c.id JOIN resource_providers rp ON rp.id = a.resource_provider_id
     JOIN resource_classes rc ON rc.id = a.resource_class_id WHERE c.uuid = ? ORDER BY a.id`,
    consumerUuid,
  );
}

/**
 * The allocations against a provider with their consumers' generations (GET
 * /resource_providers/{uuid}/allocations), in the order Placement reads them: through its index on
 * provider, class and amount.
 */
export function allocationsOfProvider(db: Db, providerId: number) {
  return all<{ consumerUuid: string; consumerGeneration: number; resourceClass: string; used: number }>(
    db,
    `SELECT c.uuid AS consumerUuid, c.generation AS consumerGeneration, rc.name AS resourceClass, a.used FROM allocations a
     JOIN consumers c ON c.id = a.consumer_id JOIN resource_classes rc ON rc.id = a.resource_class_id
     WHERE a.resource_provider_id = ? ORDER BY a.resource_class_id, a.used, a.id`,
    providerId,
  );
}

export type UsageGrouping = 'PROJECT' | 'USER' | 'CONSUMER_TYPE';

export interface UsageTotal {
  key: string;
  consumerCount: number;
  resources: { resourceClass: string; classId: number; used: number }[];
}

const GROUP_COLUMN: Record<UsageGrouping, string> = { PROJECT: 'c.project_id', USER: 'c.user_id', CONSUMER_TYPE: `COALESCE(c.consumer_type, '${NO_CONSUMER_TYPE}')` };

/**
 * Usage totals grouped by project, user or consumer type (consumers without one under `unknown`),
 * optionally narrowed (Placement's GET /usages, generalised): consumerType `unknown` picks the
 * consumers without a type.
 */
export function usageTotals(db: Db, groupBy: UsageGrouping, where: { projectId?: string | null; userId?: string | null; consumerType?: string | null }): UsageTotal[] {
  const column = GROUP_COLUMN[groupBy];
  const rows = all<{ key: string; resourceClass: string; classId: number; used: number; consumerCount: number }>(
    db,
    `WITH picked AS (SELECT c.id, ${column} AS key FROM consumers c
        WHERE (@projectId IS NULL OR c.project_id = @projectId) AND (@userId IS NULL OR c.user_id = @userId)
          AND (@consumerType IS NULL OR COALESCE(c.consumer_type, '${NO_CONSUMER_TYPE}') = @consumerType))
     SELECT p.key, rc.name AS resourceClass, rc.id AS classId, SUM(a.used) AS used,
       (SELECT COUNT(*) FROM picked q WHERE q.key = p.key AND EXISTS (SELECT 1 FROM allocations x WHERE x.consumer_id = q.id)) AS consumerCount
     FROM picked p JOIN allocations a ON a.consumer_id = p.id JOIN resource_classes rc ON rc.id = a.resource_class_id
     GROUP BY p.key, rc.id ORDER BY p.key, rc.id`,
    { projectId: where.projectId ?? null, userId: where.userId ?? null, consumerType: where.consumerType ?? null },
  );
  const totals = new Map<string, UsageTotal>();
  for (const row of rows) {
    let total = totals.get(row.key);
    if (!total) totals.set(row.key, (total = { key: row.key, consumerCount: row.consumerCount, resources: [] }));
    total.resources.push({ resourceClass: row.resourceClass, classId: row.classId, used: row.used });
  }
  return [...totals.values()];
}
