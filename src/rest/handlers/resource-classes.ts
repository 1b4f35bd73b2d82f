// /resource_classes and /resource_classes/{name} (handlers/resource_class.py), from 1.2: a PUT
// renames a custom class up to 1.6, and from 1.7 creates the class it names (201) or finds it (204).
import { DuplicateName, InUse, InvalidInput, NotFound } from '../../modules/common/errors.js';
import { listResourceClasses, resourceClassByName } from '../../modules/resource-classes/resource-classes.service.js';
import { pyJsonDumps } from '../../rules/python-json.js';
import type { PyDict } from '../../rules/python.js';
import { PlacementError } from '../errors.js';
import { readPolicy, writePolicy, type Answer, type RestRequest } from '../request.js';
import * as schemas from '../schemas.js';

const LIST = readPolicy('placement:resource_classes:list');
const CREATE = writePolicy('placement:resource_classes:create');
const SHOW = readPolicy('placement:resource_classes:show');
const UPDATE = writePolicy('placement:resource_classes:update');
const DELETE = writePolicy('placement:resource_classes:delete');

const serialize = (name: string) => ({ name, links: [{ rel: 'self', href: `/resource_classes/${name}` }] });

/** ResourceClass.get_by_name: an unknown class gets past Placement's handler as its NotFound. */
function requireClass(request: RestRequest, name: string) {
  const rc = resourceClassByName(request.db, name);
  if (!rc) throw new PlacementError(404, `No such resource class ${name}.`, { outsideHandler: true });
  return rc;
}

export function list(request: RestRequest): Answer {
  request.versions(2);
  request.acceptJson();
  request.can(LIST);
  const classes = listResourceClasses(request.db).map((rc) => serialize(rc.name));
  return { status: 200, body: pyJsonDumps({ resource_classes: classes }), lastModified: new Date() };
}

export async function create(request: RestRequest): Promise<Answer> {
  request.versions(2);
  request.requireJson();
  request.can(CREATE);
  const name = (request.json(schemas.POST_RC_SCHEMA_V1_2) as PyDict).get('name') as string;
  const { created } = await request.writes.createResourceClass(name);
  if (!created) throw new PlacementError(409, `Conflicting resource class already exists: ${name}`);
  return { status: 201, location: `/resource_classes/${name}` };
}

export function show(request: RestRequest): Answer {
  request.versions(2);
  request.acceptJson();
  const name = request.params.name;
  request.can(SHOW);
  const rc = requireClass(request, name);
  return { status: 200, body: pyJsonDumps(serialize(rc.name)), lastModified: new Date() };
}

export async function update(request: RestRequest): Promise<Answer> {
  request.versions(2);
  const name = request.params.name;
  if (!request.atLeast(7)) {
    request.requireJson();
    request.can(UPDATE);
    const newName = (request.json(schemas.PUT_RC_SCHEMA_V1_2) as PyDict).get('name') as string;
    requireClass(request, name);
    try {
      await request.writes.renameResourceClass({ name, newName });
    } catch (error) {
      if (error instanceof InvalidInput) throw new PlacementError(400, `Cannot update standard resource class ${name}`);
      if (error instanceof DuplicateName) throw new PlacementError(409, `Resource class already exists: ${newName}`);
      throw error;
    }
    return { status: 200, body: pyJsonDumps(serialize(newName)) };
  }
  request.can(UPDATE);
  // Placement checks the name by reading it into a JSON document of its own making.
  request.jsonText(`{"name": "${name}"}`, schemas.PUT_RC_SCHEMA_V1_2);
  const { created } = await request.writes.createResourceClass(name);
  return { status: created ? 201 : 204, location: `/resource_classes/${name}` };
}

export async function remove(request: RestRequest): Promise<Answer> {
  request.versions(2);
  const name = request.params.name;
  request.can(DELETE);
  requireClass(request, name);
  try {
    await request.writes.deleteResourceClass(name);
  } catch (error) {
    if (error instanceof NotFound) throw new PlacementError(404, error.message, { outsideHandler: true });
    if (error instanceof InvalidInput) throw new PlacementError(400, `Error in delete resource class: Cannot delete standard resource class ${name}.`);
    if (error instanceof InUse) throw new PlacementError(409, `Error in delete resource class: Cannot delete resource class ${name}. Class is in use in inventory.`);
    throw error;
  }
  return { status: 204 };
}
