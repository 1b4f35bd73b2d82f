import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { all, groupBy, list } from '../../db/sql.js';

export function aggregateLoaders(db: Db) {
  return {
    /** Aggregate uuids of each provider, sorted. */
    uuidsOfProvider: new DataLoader<number, string[]>((ids) => {
      const rows = all<{ providerId: number; uuid: string }>(
        db,
        `SELECT pa.resource_provider_id AS providerId, a.uuid FROM provider_aggregates pa JOIN aggregates a ON a.id = pa.aggregate_id
         WHERE pa.resource_provider_id IN (SELECT value FROM json_each(?)) ORDER BY a.uuid`,
        list(ids),
      );
      return Promise.resolve(groupBy(ids, rows, (r) => r.providerId).map((group) => group.map((r) => r.uuid)));
    }),
  };
}
