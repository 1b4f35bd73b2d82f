// Batched provider reads: one statement per relation, whatever the number of providers.
import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { all, groupBy, indexBy, list } from '../../db/sql.js';
import { PROVIDER_COLUMNS, type ProviderRow } from './providers.service.js';

export function providerLoaders(db: Db) {
  const byId = new DataLoader<number, ProviderRow | undefined>((ids) =>
    Promise.resolve(
      indexBy(ids, all<ProviderRow>(db, `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp WHERE rp.id IN (SELECT value FROM json_each(?))`, list(ids)), (r) => r.id),
    ),
  );
  const byUuid = new DataLoader<string, ProviderRow | undefined>(async (uuids) => {
    const rows = all<ProviderRow>(db, `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp WHERE rp.uuid IN (SELECT value FROM json_each(?))`, list(uuids));
    for (const row of rows) byId.prime(row.id, row);
    return indexBy(uuids, rows, (r) => r.uuid);
  });
  const childrenOf = new DataLoader<number, ProviderRow[]>(async (ids) => {
    const rows = all<ProviderRow>(db, `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp WHERE rp.parent_id IN (SELECT value FROM json_each(?)) ORDER BY rp.id`, list(ids));
    for (const row of rows) byId.prime(row.id, row);
    return groupBy(ids, rows, (r) => r.parentId!);
  });
  /** Every provider of the trees with these roots, in creation order. */
  const treeOf = new DataLoader<number, ProviderRow[]>(async (rootIds) => {
    const rows = all<ProviderRow>(db, `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp WHERE rp.root_id IN (SELECT value FROM json_each(?)) ORDER BY rp.id`, list(rootIds));
    for (const row of rows) byId.prime(row.id, row);
    return groupBy(rootIds, rows, (r) => r.rootId);
  });
  return {
    byId,
    byUuid,
    childrenOf,
    treeOf,
    /** Makes rows already read (a page) available to the id loader without another statement. */
    prime(rows: readonly ProviderRow[]) {
      for (const row of rows) byId.prime(row.id, row);
    },
  };
}
