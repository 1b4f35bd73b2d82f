// Batched image reads: one statement per relation, whatever the number of images.
import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { groupBy, indexBy } from '../../db/sql.js';
import { imagesByIds, imagesByNames, propertiesOfImages, type ImageRow, type PropertyRow } from './images.service.js';

export function imageLoaders(db: Db) {
  const byName = new DataLoader<string, ImageRow | undefined>((names) => Promise.resolve(indexBy(names, imagesByNames(db, names), (r) => r.name)));
  const byId = new DataLoader<number, ImageRow | undefined>((ids) => Promise.resolve(indexBy(ids, imagesByIds(db, ids), (r) => r.id)));
  /** Properties of each image, in the order they were set. */
  const properties = new DataLoader<number, PropertyRow[]>((ids) => Promise.resolve(groupBy(ids, propertiesOfImages(db, ids), (r) => r.imageId)));
  return { byName, byId, properties };
}
