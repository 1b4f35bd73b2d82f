// Batched server reads: one statement whatever the number of consumers.
import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { indexBy } from '../../db/sql.js';
import { serversByUuids, type ServerRow } from './servers.service.js';

export function serverLoaders(db: Db) {
  const byUuid = new DataLoader<string, ServerRow | undefined>((uuids) => Promise.resolve(indexBy(uuids, serversByUuids(db, uuids), (r) => r.uuid)));
  return { byUuid };
}
