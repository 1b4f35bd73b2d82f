// Resource classes: the 21 standard ones and CUSTOM_ ones.
import type { Db } from '../../db/client.js';
import { all, get, run } from '../../db/sql.js';
import { FIRST_CUSTOM_CLASS_ID, isStandardResourceClass } from '../../catalog/index.js';
import { customNameProblem } from '../../rules/names.js';
import { DuplicateName, InUse, InvalidInput, NotFound } from '../common/errors.js';

export interface ResourceClassRow {
  id: number;
  name: string;
  standard: boolean;
}

export function listResourceClasses(db: Db, custom?: boolean | null): ResourceClassRow[] {
  return all<ResourceClassRow>(db, 'SELECT id, name, standard FROM resource_classes WHERE (@custom IS NULL OR standard = NOT @custom) ORDER BY id', { custom: custom == null ? null : Number(custom) }).map(
    (r) => ({ ...r, standard: !!r.standard }),
  );
}

export function resourceClassByName(db: Db, name: string): ResourceClassRow | undefined {
  const row = get<ResourceClassRow>(db, 'SELECT id, name, standard FROM resource_classes WHERE name = ?', name);
  return row && { ...row, standard: !!row.standard };
}

/** Creates a custom class; an existing one is returned as it is (Placement's PUT /resource_classes/{name}). */
export function createResourceClass(db: Db, name: string): { resourceClass: ResourceClassRow; created: boolean } {
  const existing = resourceClassByName(db, name);
  if (existing) return { resourceClass: existing, created: false };
  const problem = isStandardResourceClass(name) ? null : customNameProblem(name);
  if (problem) throw new InvalidInput([{ path: 'name', message: `a custom resource class name ${problem}` }]);
  insertClass(db, name);
  return { resourceClass: resourceClassByName(db, name)!, created: true };
}

/**
 * Creates the classes among names that do not exist yet (imports, provider config, the mirror of a
 * live Placement). A name without CUSTOM_ is a standard class of a newer catalog than this one.
 */
export function ensureResourceClasses(db: Db, names: readonly string[]) {
  for (const name of new Set(names)) if (!resourceClassByName(db, name)) insertClass(db, name);
}

function insertClass(db: Db, name: string) {
  // Classes added after the built-in catalog get ids from 10000 on, as in Placement.
  run(db, 'INSERT INTO resource_classes (id, name, standard) SELECT MAX(?, COALESCE(MAX(id) + 1, 0)), ?, ? FROM resource_classes', FIRST_CUSTOM_CLASS_ID, name, Number(!name.startsWith('CUSTOM_')));
}

export interface RenameResourceClassInput {
  name: string;
  newName: string;
}

/** Renames a custom class (Placement's PUT /resource_classes/{name} from 1.2 to 1.6); standard classes keep their names. */
export function renameResourceClass(db: Db, input: RenameResourceClassInput): ResourceClassRow {
  const rc = resourceClassByName(db, input.name);
  if (!rc) throw new NotFound('resource class', `name=${input.name}`, `No such resource class ${input.name}.`);
  if (rc.standard) throw new InvalidInput([{ path: 'name', message: `Cannot update standard resource class ${input.name}.` }]);
  const problem = customNameProblem(input.newName);
  if (problem) throw new InvalidInput([{ path: 'newName', message: `a custom resource class name ${problem}` }]);
  if (input.newName !== input.name && resourceClassByName(db, input.newName)) {
    throw new DuplicateName('name', input.newName, `Resource class already exists: ${input.newName}`);
  }
  run(db, 'UPDATE resource_classes SET name = ? WHERE id = ?', input.newName, rc.id);
  return resourceClassByName(db, input.newName)!;
}

export function deleteResourceClass(db: Db, name: string): ResourceClassRow {
  const rc = resourceClassByName(db, name);
  if (!rc) throw new NotFound('resource class', `name=${name}`, `No such resource class ${name}.`);
  if (rc.standard) throw new InvalidInput([{ path: 'name', message: `Cannot delete standard resource class ${name}.` }]);
  if (get(db, 'SELECT 1 FROM inventories WHERE resource_class_id = ? LIMIT 1', rc.id)) {
    throw new InUse(`Unable to delete resource class ${name}. Class is in use in inventory.`, 'placement.resource_class.inuse');
  }
  run(db, 'DELETE FROM resource_classes WHERE id = ?', rc.id);
  return rc;
}
