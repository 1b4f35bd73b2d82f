// Images in snapshots: `images: [{uuid, name, properties}]`, created through the image rules.
import { all } from '../../db/sql.js';
import { canonicalUuid } from '../../rules/names.js';
import { checkStringMap } from '../flavors/flavors.snapshot.js';
import { isObject, snapshotSection, type CheckContext } from '../snapshot/snapshot.section.js';
import type { SnapshotImage } from '../snapshot/snapshot.types.js';
import { createImage, propertiesOfImages } from './images.service.js';

export const imagesSection = snapshotSection({
  keys: ['images'],
  tables: ['image_properties', 'images'],
  check(ctx: CheckContext) {
    const images = ctx.section<SnapshotImage[]>('images', 'array') ?? [];
    images.forEach((image, i) => {
      if (!isObject(image)) return ctx.problem(`images.${i}`, 'must be an object {uuid, name, properties}');
      if (typeof image.uuid !== 'string' || !canonicalUuid(image.uuid)) ctx.problem(`images.${i}.uuid`, `must be a uuid (got ${JSON.stringify(image.uuid)})`);
      if (typeof image.name !== 'string') ctx.problem(`images.${i}.name`, 'must be a string');
      checkStringMap(image.properties, `images.${i}.properties`, ctx.problem);
    });
    return images;
  },
  write({ db, attempt }, images) {
    images.forEach((image, i) => attempt(`images.${i}`, () => createImage(db, { uuid: canonicalUuid(image.uuid), name: image.name, properties: Object.entries(image.properties ?? {}).map(([key, value]) => ({ key, value })) })));
    return images.length;
  },
  export(db) {
    const rows = all<{ id: number; uuid: string; name: string }>(db, 'SELECT id, uuid, name FROM images ORDER BY id');
    const properties = new Map<number, Record<string, string>>();
    for (const r of propertiesOfImages(db, rows.map((i) => i.id))) (properties.get(r.imageId) ?? properties.set(r.imageId, {}).get(r.imageId)!)[r.key] = r.value;
    return { images: rows.map(({ id, ...image }) => ({ ...image, properties: properties.get(id) ?? {} })) };
  },
});
