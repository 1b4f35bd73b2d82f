// Images: Glance-style additional properties, the traits Nova reads from them, and what Nova ignores.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { all, get, list, run } from '../../db/sql.js';
import { isStandardTrait } from '../../catalog/index.js';
import { customNameProblem, nameLengthProblem } from '../../rules/names.js';
import type { Problem } from '../../catalog/extra-specs.js';
import { DuplicateName, InvalidInput, NotFound, type Issue } from '../common/errors.js';
import { ImageMetaError, parseImageMeta } from './nova-image-meta.js';

export interface ImageRow {
  id: number;
  uuid: string;
  name: string;
  createdAt: string;
}

export interface ImageProperty {
  key: string;
  value: string;
}

export interface PropertyRow extends ImageProperty {
  imageId: number;
}

const IMAGE_COLUMNS = 'i.id, i.uuid, i.name, i.created_at AS createdAt';
/** Glance's limits: property keys of at most 255 characters, values of at most 65535. */
const MAX_KEY_LENGTH = 255;
const MAX_VALUE_LENGTH = 65535;
const SUFFIXED_TRAIT_KEY = /^trait[^:]+:/;

export function imageByName(db: Db, name: string): ImageRow | undefined {
  return get<ImageRow>(db, `SELECT ${IMAGE_COLUMNS} FROM images i WHERE i.name = ?`, name);
}

export function imagesByNames(db: Db, names: readonly string[]): ImageRow[] {
  return all<ImageRow>(db, `SELECT ${IMAGE_COLUMNS} FROM images i WHERE i.name IN (SELECT value FROM json_each(?))`, list(names));
}

export function imagesByIds(db: Db, ids: readonly number[]): ImageRow[] {
  return all<ImageRow>(db, `SELECT ${IMAGE_COLUMNS} FROM images i WHERE i.id IN (SELECT value FROM json_each(?))`, list(ids));
}

/** The image with this name, or NotFound naming the input field. */
export function requireImage(db: Db, name: string, field = 'name'): ImageRow {
  const image = imageByName(db, name);
  if (!image) throw new NotFound('image', `${field}=${name}`, `Image ${name} could not be found.`);
  return image;
}

export function listImages(db: Db, filter: { search?: string | null; trait?: string | null }, page: { offset: number; limit: number }) {
  const where = `WHERE (@search IS NULL OR instr(lower(i.name), lower(@search)) > 0)
      AND (@trait IS NULL OR EXISTS (SELECT 1 FROM image_properties p WHERE p.image_id = i.id AND p.key = 'trait:' || @trait AND p.value = 'required'))`;
  const params = { search: filter.search ?? null, trait: filter.trait ?? null };
  const rows = all<ImageRow>(db, `SELECT ${IMAGE_COLUMNS} FROM images i ${where} ORDER BY i.name LIMIT @limit OFFSET @offset`, { ...params, ...page });
  const { n } = get<{ n: number }>(db, `SELECT COUNT(*) AS n FROM images i ${where}`, params)!;
  return { rows, totalCount: n };
}

/** Properties of each image, in the order they were first set. */
export function propertiesOfImages(db: Db, ids: readonly number[]): PropertyRow[] {
  return all<PropertyRow>(db, 'SELECT image_id AS imageId, key, value FROM image_properties WHERE image_id IN (SELECT value FROM json_each(?)) ORDER BY rowid', list(ids));
}

/** The traits Nova requires for this image: `trait:NAME` keys whose value is exactly `required`, sorted. */
export const requiredTraits = (properties: readonly ImageProperty[]) =>
  [...new Set(properties.filter((p) => p.key.startsWith('trait:') && p.value === 'required').map((p) => p.key.slice(6)))].sort();

/**
 * What Nova ignores or refuses among these properties: forbidden or unknown trait values, suffixed
 * trait keys (only the unnumbered `trait:` group is read from images), trait names Placement cannot
 * know, and typed properties Nova cannot convert (it refuses a server create with them).
 */
export function propertyWarnings(properties: readonly ImageProperty[], path = 'properties'): Problem[] {
  const warnings: Problem[] = [];
  properties.forEach(({ key, value }, n) => {
    const at = `${path}.${n}`;
    if (key.startsWith('trait:')) {
      const trait = key.slice(6);
      if (value === 'forbidden') warnings.push({ path: `${at}.value`, key, message: `Nova ignores forbidden traits on images: ${key}=forbidden is not sent to Placement (only =required is).` });
      else if (value !== 'required') warnings.push({ path: `${at}.value`, key, message: `Nova ignores ${key}=${value}: the only value it reads on images is 'required'.` });
      else if (!isStandardTrait(trait) && customNameProblem(trait)) {
        warnings.push({ path: `${at}.key`, key, message: `${trait} is neither a standard trait nor a valid CUSTOM_ trait: Placement rejects every request that requires it.` });
      }
    } else if (SUFFIXED_TRAIT_KEY.test(key)) {
      warnings.push({ path: `${at}.key`, key, message: `Nova ignores ${key}: images cannot use request groups, only unnumbered trait:NAME=required keys are read.` });
    }
  });
  try {
    parseImageMeta(properties.map((p) => [p.key, p.value] as const));
  } catch (error) {
    if (!(error instanceof ImageMetaError)) throw error;
    warnings.push({ path, message: `Nova refuses to boot servers from this image: Invalid image metadata. Error: ${error.message}` });
  }
  return warnings;
}

function propertyIssues(properties: readonly ImageProperty[], path: string): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  properties.forEach(({ key, value }, n) => {
    if (key.length < 1 || key.length > MAX_KEY_LENGTH) issues.push({ path: `${path}.${n}.key`, message: `must be 1 to ${MAX_KEY_LENGTH} characters long` });
    if (value.length > MAX_VALUE_LENGTH) issues.push({ path: `${path}.${n}.value`, message: `must be at most ${MAX_VALUE_LENGTH} characters long` });
    if (seen.has(key)) issues.push({ path: `${path}.${n}.key`, message: `${key} is given more than once` });
    seen.add(key);
  });
  return issues;
}

function writeProperties(db: Db, imageId: number, properties: readonly ImageProperty[]) {
  for (const { key, value } of properties) {
    run(db, 'INSERT INTO image_properties (image_id, key, value) VALUES (?, ?, ?) ON CONFLICT (image_id, key) DO UPDATE SET value = excluded.value', imageId, key, value);
  }
}

export interface ImageChange {
  image: ImageRow;
  /** What Nova would ignore or refuse among all the image's properties. */
  warnings: Problem[];
}

const change = (db: Db, image: ImageRow): ImageChange => ({
  image,
  warnings: propertyWarnings(propertiesOfImages(db, [image.id])),
});

export function createImage(db: Db, input: { name: string; uuid?: string | null; properties?: ImageProperty[] | null }): ImageChange {
  const properties = input.properties ?? [];
  const issues = propertyIssues(properties, 'properties');
  const nameProblem = nameLengthProblem(input.name);
  if (nameProblem) issues.unshift({ path: 'name', message: nameProblem });
  if (issues.length) throw new InvalidInput(issues);
  if (imageByName(db, input.name)) throw new DuplicateName('name', input.name, `Image with name ${input.name} already exists.`);
  const uuid = input.uuid ?? randomUUID();
  if (get(db, 'SELECT 1 FROM images WHERE uuid = ?', uuid)) throw new DuplicateName('uuid', uuid, `Image with uuid ${uuid} already exists.`);
  const { lastInsertRowid } = run(db, 'INSERT INTO images (uuid, name) VALUES (?, ?)', uuid, input.name);
  writeProperties(db, Number(lastInsertRowid), properties);
  return change(db, requireImage(db, input.name));
}

export function deleteImage(db: Db, name: string): ImageRow {
  const image = requireImage(db, name);
  run(db, 'DELETE FROM images WHERE id = ?', image.id);
  return image;
}

/** Sets (adds or replaces) and removes properties; a key to remove must be set. */
export function setImageProperties(db: Db, input: { name: string; properties?: ImageProperty[] | null; remove?: string[] | null }): ImageChange {
  const image = requireImage(db, input.name);
  const properties = input.properties ?? [];
  const remove = input.remove ?? [];
  const issues = propertyIssues(properties, 'properties');
  const present = new Set(propertiesOfImages(db, [image.id]).map((p) => p.key));
  remove.forEach((key, n) => {
    if (!present.has(key)) issues.push({ path: `remove.${n}`, message: `Image ${image.name} has no property ${key}.` });
    if (properties.some((p) => p.key === key)) issues.push({ path: `remove.${n}`, message: `${key} is both set and removed` });
  });
  if (issues.length) throw new InvalidInput(issues);
  run(db, 'DELETE FROM image_properties WHERE image_id = ? AND key IN (SELECT value FROM json_each(?))', image.id, list(remove));
  writeProperties(db, image.id, properties);
  return change(db, image);
}
