// Aggregates: groups of providers, named by uuid, existing as long as some provider is in them.
import type { Db } from '../../db/client.js';
import { list, run } from '../../db/sql.js';
import { bumpGeneration, requireProvider, type ProviderRow } from '../providers/providers.service.js';

export interface SetProviderAggregatesInput {
  providerUuid: string;
  generation: number;
  aggregates: string[];
}

/** Replaces the aggregates of a provider (Placement's PUT .../aggregates, 1.19+). */
export function setProviderAggregates(db: Db, input: SetProviderAggregatesInput): ProviderRow {
  const provider = requireProvider(db, input.providerUuid, 'providerUuid');
  bumpGeneration(db, provider, input.generation);
  writeProviderAggregates(db, provider.id, input.aggregates);
  return provider;
}

export function writeProviderAggregates(db: Db, providerId: number, uuids: readonly string[]) {
  run(db, 'INSERT OR IGNORE INTO aggregates (uuid) SELECT value FROM json_each(?)', list(uuids));
  run(
    db,
    `DELETE FROM provider_aggregates WHERE resource_provider_id = ?
       AND aggregate_id NOT IN (SELECT a.id FROM aggregates a WHERE a.uuid IN (SELECT value FROM json_each(?)))`,
    providerId,
    list(uuids),
  );
  run(
    db,
    `INSERT OR IGNORE INTO provider_aggregates (resource_provider_id, aggregate_id)
     SELECT ?, a.id FROM aggregates a WHERE a.uuid IN (SELECT value FROM json_each(?))`,
    providerId,
    list(uuids),
  );
}
