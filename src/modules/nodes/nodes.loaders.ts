// Batched node reads: one statement per relation, whatever the number of nodes.
import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { all, groupBy, indexBy, list } from '../../db/sql.js';
import { NODE_COLUMNS, toNode, type NodeRow } from './nodes.service.js';

export function nodeLoaders(db: Db) {
  const byUuid = new DataLoader<string, NodeRow | undefined>((uuids) =>
    Promise.resolve(indexBy(uuids, all<any>(db, `SELECT ${NODE_COLUMNS} FROM baremetal_nodes n WHERE n.uuid IN (SELECT value FROM json_each(?))`, list(uuids)).map(toNode), (r) => r.uuid)),
  );
  /** The node a provider belongs to, if any. */
  const ofProvider = new DataLoader<number, NodeRow | undefined>((ids) =>
    Promise.resolve(
      indexBy(ids, all<any>(db, `SELECT ${NODE_COLUMNS} FROM baremetal_nodes n WHERE n.resource_provider_id IN (SELECT value FROM json_each(?))`, list(ids)).map(toNode), (r) => r.providerId),
    ),
  );
  /** Trait names of each node, sorted. */
  const traitsOf = new DataLoader<number, string[]>((ids) => {
    const rows = all<{ nodeId: number; trait: string }>(db, 'SELECT node_id AS nodeId, trait FROM node_traits WHERE node_id IN (SELECT value FROM json_each(?)) ORDER BY trait', list(ids));
    return Promise.resolve(groupBy(ids, rows, (r) => r.nodeId).map((group) => group.map((r) => r.trait)));
  });
  return {
    byUuid,
    ofProvider,
    traitsOf,
    /** Makes rows already read (a page) available to the loaders without another statement. */
    prime(rows: readonly NodeRow[]) {
      for (const row of rows) {
        byUuid.prime(row.uuid, row);
        ofProvider.prime(row.providerId, row);
      }
    },
  };
}
