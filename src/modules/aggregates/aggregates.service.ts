// Aggregates: groups of providers, named by uuid, existing as long as some provider is in them.
import type { Db } from '../../db/client.js';
import { all, list, run } from '../../db/sql.js';
import { bumpGeneration, requireProvider, type ProviderRow } from '../providers/providers.service.js';

export interface SetProviderAggregatesInput {
  providerUuid: string;
  /** The generation last read (1.19 and later); null: unguarded, and the generation stays (Placement before 1.19). */
  generation: number | null;
  aggregates: string[];
}

/** Replaces the aggregates of a provider (Placement's PUT .../aggregates). */
export function setProviderAggregates(db: Db, input: SetProviderAggregatesInput): ProviderRow {
  const provider = requireProvider(db, input.providerUuid, 'providerUuid');
  if (input.generation !== null) bumpGeneration(db, provider, input.generation);
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

/** The aggregates of a provider, in the order they were first seen (Placement's GET .../aggregates). */
export function aggregatesOfProvider(db: Db, providerId: number): string[] {
  return all<{ uuid: string }>(db, 'SELECT a.uuid FROM provider_aggregates pa JOIN aggregates a ON a.id = pa.aggregate_id WHERE pa.resource_provider_id = ? ORDER BY a.id', providerId).map((r) => r.uuid);
}
