import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { all, groupBy, indexBy, list } from '../../db/sql.js';
import { ALLOCATION_COLUMNS, CONSUMER_COLUMNS, type AllocationRow, type ConsumerRow } from './allocations.service.js';

export function allocationLoaders(db: Db) {
  const consumerById = new DataLoader<number, ConsumerRow | undefined>((ids) =>
    Promise.resolve(indexBy(ids, all<ConsumerRow>(db, `SELECT ${CONSUMER_COLUMNS} FROM consumers c WHERE c.id IN (SELECT value FROM json_each(?))`, list(ids)), (r) => r.id)),
  );
  const consumerByUuid = new DataLoader<string, ConsumerRow | undefined>((uuids) =>
    Promise.resolve(indexBy(uuids, all<ConsumerRow>(db, `SELECT ${CONSUMER_COLUMNS} FROM consumers c WHERE c.uuid IN (SELECT value FROM json_each(?))`, list(uuids)), (r) => r.uuid)),
  );
  const ofProvider = new DataLoader<number, AllocationRow[]>((ids) => {
    const rows = all<AllocationRow>(
      db,
      `SELECT ${ALLOCATION_COLUMNS} FROM allocations a JOIN resource_classes rc ON rc.id = a.resource_class_id
       WHERE a.resource_provider_id IN (SELECT value FROM json_each(?)) ORDER BY a.consumer_id, rc.id`,
      list(ids),
    );
    return Promise.resolve(groupBy(ids, rows, (r) => r.providerId));
  });
  const ofConsumer = new DataLoader<number, AllocationRow[]>((ids) => {
    const rows = all<AllocationRow>(
      db,
      `SELECT ${ALLOCATION_COLUMNS} FROM allocations a JOIN resource_classes rc ON rc.id = a.resource_class_id
       WHERE a.consumer_id IN (SELECT value FROM json_each(?)) ORDER BY a.resource_provider_id, rc.id`,
      list(ids),
    );
    return Promise.resolve(groupBy(ids, rows, (r) => r.consumerId));
  });
  return { consumerById, consumerByUuid, ofProvider, ofConsumer };
}
