// Placement's POST /reshaper (1.30; handlers/reshaper.py and objects/reshaper.py): providers'
// inventories and the allocations against them replaced together, all or nothing, as when a class
// of inventory moves from a root provider to a new child.
import type { Db } from '../../db/client.js';
import { all, list } from '../../db/sql.js';
import { GenerationConflict, NotFound } from '../common/errors.js';
import { assertNotInUse, upsertInventory, withDefaults, writeInventories, type InventoryInput } from '../inventories/inventories.service.js';
import { bumpGeneration, providerByUuid, type ProviderRow } from '../providers/providers.service.js';
import { ensureConsumers, planAllocations, replaceAllocations, updateConsumers, type ConsumerAllocations } from './allocations.service.js';

export interface ReshapeInput {
  /** Each provider's whole new inventory, with the generation last read; in the caller's order. */
  inventories: { providerUuid: string; generation: number; inventories: InventoryInput[] }[];
  /** The consumers whose allocations move, each with its complete new set (as POST /allocations has them). */
  allocations: ConsumerAllocations[];
  /** The microversion the request was read at (gateway mode sends it to Placement at the same one). */
  minor: number;
}

/** A provider named among the inventories does not exist: Placement's 400, with its code. */
export class UnknownProvider extends NotFound {
  code = 'placement.resource_provider.not_found';
}

/**
 * Reshapes as Placement does: every provider named is checked (it exists, its generation is the one
 * given), the consumers are checked and created, then in one transaction each provider gets an
 * interim inventory (what it has plus what it will have), the allocations are replaced (checked
 * against the interim inventories), and each provider gets its final inventory (a class still
 * allocated cannot go). Each step moves the generation of the providers it touches, as Placement's do.
 */
export function reshape(db: Db, input: ReshapeInput): { providerUuids: string[]; consumers: { consumerUuid: string; providerUuids: string[] }[] } {
  const providers: { provider: ProviderRow; records: InventoryInput[] }[] = [];
  for (const entry of input.inventories) {
    const provider = providerByUuid(db, entry.providerUuid);
    const uuid = entry.providerUuid;
    if (!provider) throw new UnknownProvider('resource provider', `uuid=${uuid}`, `Resource provider ${uuid} in inventories not found: No resource provider with uuid ${uuid} found`);
    if (provider.generation !== entry.generation) {
      throw new GenerationConflict(
        'generation',
        entry.generation,
        provider.generation,
        `resource provider generation conflict for provider ${uuid}: actual: ${provider.generation}, given: ${entry.generation}`,
      );
    }
    providers.push({ provider, records: entry.inventories });
  }
  const before = new Map(input.allocations.map((c) => [c.consumerUuid, providerUuidsHeldBy(db, c.consumerUuid)]));
  const ensured = ensureConsumers(db, input.allocations);
  const planned = planAllocations(db, ensured);
  updateConsumers(db, ensured);

  const classIds = new Map(all<{ id: number; name: string }>(db, 'SELECT id, name FROM resource_classes').map((r) => [r.name, r.id]));
  const classOf = (name: string) => {
    const id = classIds.get(name);
    if (id === undefined) throw new NotFound('resource class', `resourceClass=${name}`, `No such resource class ${name}.`);
    return id;
  };
  // The interim inventory: what the provider has, with the new records over it (nothing removed yet).
  for (const { provider, records } of providers) {
    if (records.length === 0) continue;
    const ids = records.map((r) => classOf(r.resourceClass));
    records.forEach((r, i) => upsertInventory(db, provider.id, ids[i], withDefaults(r)));
    bumpGeneration(db, provider, provider.generation);
  }
  replaceAllocations(db, planned);
  // The final inventory: exactly the records given.
  for (const { provider, records } of providers) {
    const ids = records.map((r) => classOf(r.resourceClass));
    const removed = all<{ id: number }>(
      db,
      'SELECT resource_class_id AS id FROM inventories WHERE resource_provider_id = ? AND resource_class_id NOT IN (SELECT value FROM json_each(?))',
      provider.id,
      list(ids),
    ).map((r) => r.id);
    assertNotInUse(db, provider, removed, '');
    writeInventories(
      db,
      provider.id,
      records.map((r, i) => ({ classId: ids[i], fields: withDefaults(r) })),
    );
    bumpGeneration(db, provider, provider.generation);
  }
  return {
    providerUuids: providers.map((p) => p.provider.uuid),
    consumers: input.allocations.map((c) => ({ consumerUuid: c.consumerUuid, providerUuids: [...new Set([...before.get(c.consumerUuid)!, ...c.allocations.map((a) => a.providerUuid)])] })),
  };
}

const providerUuidsHeldBy = (db: Db, consumerUuid: string) =>
  all<{ uuid: string }>(
    db,
    'SELECT DISTINCT rp.uuid FROM allocations a JOIN consumers c ON c.id = a.consumer_id JOIN resource_providers rp ON rp.id = a.resource_provider_id WHERE c.uuid = ?',
    consumerUuid,
  ).map((r) => r.uuid);
