// Batched flavor reads: one statement per relation, whatever the number of flavors.
import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { groupBy, indexBy } from '../../db/sql.js';
import { extraSpecsOfFlavors, flavorsByIds, flavorsByNames, type ExtraSpecRow, type FlavorRow } from './flavors.service.js';

export function flavorLoaders(db: Db) {
  const byName = new DataLoader<string, FlavorRow | undefined>((names) => Promise.resolve(indexBy(names, flavorsByNames(db, names), (r) => r.name)));
  const byId = new DataLoader<number, FlavorRow | undefined>((ids) => Promise.resolve(indexBy(ids, flavorsByIds(db, ids), (r) => r.id)));
  /** Extra specs of each flavor, in the order they were set. */
  const extraSpecs = new DataLoader<number, ExtraSpecRow[]>((ids) => Promise.resolve(groupBy(ids, extraSpecsOfFlavors(db, ids), (r) => r.flavorId)));
  return { byName, byId, extraSpecs };
}
