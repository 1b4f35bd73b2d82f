import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { groupBy } from '../../db/sql.js';
import { inventoriesOf, type InventoryRow } from './inventories.service.js';

export function inventoryLoaders(db: Db) {
  return {
    /** Inventories with usage, by provider id. */
    ofProvider: new DataLoader<number, InventoryRow[]>((ids) => Promise.resolve(groupBy(ids, inventoriesOf(db, ids), (r) => r.providerId))),
  };
}
