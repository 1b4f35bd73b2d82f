import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { all, groupBy, list } from '../../db/sql.js';
import { SHARING_TRAIT } from '../candidates/index.js';
import { PROVIDER_COLUMNS, type ProviderRow } from '../providers/providers.service.js';

export function aggregateLoaders(db: Db) {
  const members = new Map<number, DataLoader<string, ProviderRow[]>>();
  return {
    /**
     * The first `first` providers in each aggregate (by uuid): sharing providers first, then by name.
     * Placement's aggregates have no names; their members are what tells an operator which one it is.
     */
    membersOf(first: number): DataLoader<string, ProviderRow[]> {
      let loader = members.get(first);
      if (!loader) {
        loader = new DataLoader<string, ProviderRow[]>((uuids) => {
          const rows = all<ProviderRow & { aggregateUuid: string }>(
            db,
            `SELECT * FROM (
               SELECT a.uuid AS aggregateUuid, ${PROVIDER_COLUMNS},
                 ROW_NUMBER() OVER (PARTITION BY a.id ORDER BY EXISTS (
                   SELECT 1 FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id WHERE pt.resource_provider_id = rp.id AND t.name = ?
                 ) DESC, rp.name) AS n
               FROM aggregates a JOIN provider_aggregates pa ON pa.aggregate_id = a.id JOIN resource_providers rp ON rp.id = pa.resource_provider_id
               WHERE a.uuid IN (SELECT value FROM json_each(?))
             ) WHERE n <= ? ORDER BY aggregateUuid, n`,
            SHARING_TRAIT,
            list(uuids),
            first,
          );
          return Promise.resolve(groupBy(uuids, rows, (r) => r.aggregateUuid).map((group) => group.map(({ aggregateUuid: _, n: __, ...row }: any) => row as ProviderRow)));
        });
        members.set(first, loader);
      }
      return loader;
    },
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
