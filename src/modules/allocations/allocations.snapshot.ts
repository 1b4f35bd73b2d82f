// Allocations in snapshots: `allocations: {consumer: {provider: {CLASS: amount}}}` and
// `consumers: {consumer: {project_id, user_id, consumer_type, generation}}`. Every amount fits its
// inventory's units, and what a provider holds adds up within its capacity.
import { all, run } from '../../db/sql.js';
import { capacityOf, fitsUnits, MAX_INT } from '../../rules/capacity.js';
import { canonicalUuid, DEFAULT_CONSUMER_TYPE, isConsumerType } from '../../rules/names.js';
import { checkGeneration, checkInteger, isObject, shown, snapshotSection, type CheckContext } from '../snapshot/snapshot.section.js';
import type { Snapshot } from '../snapshot/snapshot.types.js';

/** The project and user of a consumer the snapshot gives none for. */
export const DEFAULT_PROJECT_ID = '11111111-1111-1111-1111-111111111111';
export const DEFAULT_USER_ID = '22222222-2222-2222-2222-222222222222';

type Consumers = NonNullable<Snapshot['consumers']>;
type Allocations = NonNullable<Snapshot['allocations']>;

export const allocationsSection = snapshotSection({
  keys: ['allocations', 'consumers'],
  tables: ['allocations', 'consumers'],
  check(ctx: CheckContext) {
    const { problem } = ctx;
    const allocations = ctx.section<Allocations>('allocations', 'object') ?? {};
    const consumers = ctx.section<Consumers>('consumers', 'object') ?? {};
    const existingConsumers = new Set(all<{ uuid: string }>(ctx.db, 'SELECT uuid FROM consumers').map((r) => r.uuid));
    const usage = new Map<string, number>();
    for (const [rawConsumer, byProvider] of Object.entries(allocations)) {
      const path = `allocations.${rawConsumer}`;
      const consumer = canonicalUuid(rawConsumer);
      if (!consumer) problem(path, `${rawConsumer} is not a uuid`);
      else if (existingConsumers.has(consumer)) problem(path, `consumer ${consumer} exists already`);
      if (!isObject(byProvider) || Object.keys(byProvider).length === 0) {
        problem(path, 'must be a non-empty object {provider_uuid: {RESOURCE_CLASS: amount}}');
        continue;
      }
      for (const [rawProvider, amounts] of Object.entries(byProvider)) {
        const ppath = `${path}.${rawProvider}`;
        const uuid = ctx.providerKey(rawProvider, ppath);
        if (!isObject(amounts) || Object.keys(amounts).length === 0) {
          problem(ppath, 'must be a non-empty object {RESOURCE_CLASS: amount}');
          continue;
        }
        for (const [rc, amount] of Object.entries(amounts)) {
          const apath = `${ppath}.${rc}`;
          if (!checkInteger(amount, apath, 1, problem)) continue;
          if (!uuid) continue;
          const inv = ctx.inventories.get(uuid)?.get(rc);
          if (!inv) {
            problem(apath, `provider ${uuid} has no inventory of ${rc}`);
            continue;
          }
          if (!fitsUnits(inv, amount)) problem(apath, `amount ${amount} breaks min_unit ${inv.minUnit} / max_unit ${inv.maxUnit} / step_size ${inv.stepSize}`);
          usage.set(`${uuid}/${rc}`, (usage.get(`${uuid}/${rc}`) ?? 0) + amount);
        }
      }
    }
    for (const [key, used] of usage) {
      const [uuid, rc] = key.split('/');
      const inventory = ctx.inventories.get(uuid)!.get(rc)!;
      const capacity = capacityOf(inventory);
      // Usage above capacity because of `reserved` is a state Placement holds: a bare-metal node's unit
      // is reserved while its instance holds it, and reserved may be raised under running consumers.
      if (used > capacity && used > capacityOf({ ...inventory, reserved: 0 })) problem(`allocations`, `allocations of ${rc} on provider ${uuid} add up to ${used}, above its capacity ${capacity}`);
      else if (used > MAX_INT) problem('allocations', `allocations of ${rc} on provider ${uuid} add up to ${used}, above ${MAX_INT}, the largest usage the API can answer`);
    }
    for (const [rawConsumer, meta] of Object.entries(consumers)) {
      const path = `consumers.${rawConsumer}`;
      if (!canonicalUuid(rawConsumer)) problem(path, `${rawConsumer} is not a uuid`);
      if (!isObject(meta)) problem(path, 'must be an object {project_id, user_id, consumer_type}');
      else {
        for (const key of ['project_id', 'user_id', 'consumer_type'] as const) {
          if (key === 'consumer_type' && meta[key] === null) continue;
          if (meta[key] !== undefined && (typeof meta[key] !== 'string' || meta[key] === '' || meta[key].length > 255)) {
            problem(`${path}.${key}`, `must be a string of 1 to 255 characters${key === 'consumer_type' ? ', or null for no type' : ''} (got ${shown(meta[key])})`);
          }
        }
        if (typeof meta.consumer_type === 'string' && !isConsumerType(meta.consumer_type)) problem(`${path}.consumer_type`, 'must match ^[A-Z0-9_]+$ and be at most 255 characters');
        checkGeneration(meta.generation, `${path}.generation`, problem);
      }
    }
    return { allocations, consumers };
  },
  write({ db, providerIds, classIds }, { allocations, consumers }) {
    let count = 0;
    for (const [rawConsumer, byProvider] of Object.entries(allocations)) {
      const uuid = canonicalUuid(rawConsumer)!;
      const meta = consumers[rawConsumer] ?? consumers[uuid] ?? {};
      const consumerId = Number(
        run(
          db,
          'INSERT INTO consumers (uuid, project_id, user_id, consumer_type, generation) VALUES (?, ?, ?, ?, ?)',
          uuid,
          meta.project_id ?? DEFAULT_PROJECT_ID,
          meta.user_id ?? DEFAULT_USER_ID,
          meta.consumer_type === undefined ? DEFAULT_CONSUMER_TYPE : meta.consumer_type,
          meta.generation ?? 1,
        ).lastInsertRowid,
      );
      count++;
      for (const [rawProvider, amounts] of Object.entries(byProvider)) {
        const providerId = providerIds.get(canonicalUuid(rawProvider)!)!.id;
        for (const [rc, amount] of Object.entries(amounts)) {
          run(db, 'INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used) VALUES (?, ?, ?, ?)', providerId, consumerId, classIds.get(rc), amount);
        }
      }
    }
    return count;
  },
  export(db) {
    const allocations: Allocations = {};
    for (const r of all<{ consumer: string; provider: string; rc: string; used: number }>(
      db,
      `SELECT c.uuid AS consumer, rp.uuid AS provider, rc.name AS rc, a.used FROM allocations a JOIN consumers c ON c.id = a.consumer_id
       JOIN resource_providers rp ON rp.id = a.resource_provider_id JOIN resource_classes rc ON rc.id = a.resource_class_id ORDER BY c.id, rp.id, rc.id`,
    )) {
      ((allocations[r.consumer] ??= {})[r.provider] ??= {})[r.rc] = r.used;
    }
    const consumers: Consumers = {};
    for (const c of all<{ uuid: string; project_id: string; user_id: string; consumer_type: string | null; generation: number }>(db, 'SELECT uuid, project_id, user_id, consumer_type, generation FROM consumers ORDER BY id')) {
      consumers[c.uuid] = { project_id: c.project_id, user_id: c.user_id, consumer_type: c.consumer_type, generation: c.generation };
    }
    return { allocations, consumers };
  },
});
