import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { all, groupBy, list } from '../../db/sql.js';

export function traitLoaders(db: Db) {
  return {
    /** Trait names of each provider, sorted. */
    namesOfProvider: new DataLoader<number, string[]>((ids) => {
      const rows = all<{ providerId: number; name: string }>(
        db,
        `SELECT pt.resource_provider_id AS providerId, t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id
         WHERE pt.resource_provider_id IN (SELECT value FROM json_each(?)) ORDER BY t.name`,
        list(ids),
      );
      return Promise.resolve(groupBy(ids, rows, (r) => r.providerId).map((group) => group.map((r) => r.name)));
    }),
  };
}
