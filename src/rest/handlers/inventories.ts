// /resource_providers/{uuid}/inventories and /resource_providers/{uuid}/inventories/{resource_class}
// (handlers/inventory.py).
import { GenerationConflict, InUse, InvalidInput, NotFound } from '../../modules/common/errors.js';
import { inventoriesOf, INVENTORY_DEFAULTS, type InventoryFields, type InventoryInput } from '../../modules/inventories/inventories.service.js';
import { providerByUuid } from '../../modules/providers/providers.service.js';
import { pyJsonDumps, type PyJsonWritable } from '../../rules/python-json.js';
import { PyFloat, type PyDict, type PyValue } from '../../rules/python.js';
import { firstReason, PlacementError } from '../errors.js';
import { readPolicy, writePolicy, type Answer, type RestRequest } from '../request.js';
import * as schemas from '../schemas.js';

const LIST = readPolicy('placement:resource_providers:inventories:list');
const CREATE = writePolicy('placement:resource_providers:inventories:create');
const SHOW = readPolicy('placement:resource_providers:inventories:show');
const UPDATE = writePolicy('placement:resource_providers:inventories:update');
const DELETE = writePolicy('placement:resource_providers:inventories:delete');

const FIELDS = [
  ['total', 'total'],
  ['reserved', 'reserved'],
  ['min_unit', 'minUnit'],
  ['max_unit', 'maxUnit'],
  ['step_size', 'stepSize'],
  ['allocation_ratio', 'allocationRatio'],
] as const;

/** A stored inventory as Placement shows it: its ratio is a float. */
const stored = (i: InventoryFields): Record<string, PyJsonWritable> =>
  Object.fromEntries(FIELDS.map(([name, key]) => [name, key === 'allocationRatio' ? new PyFloat(i[key]) : i[key]]));

/**
 * An inventory as the client sent it, Placement's defaults filled in: Placement answers a write with
 * the values it was given (a ratio sent as 2 comes back as 2, stored as 2.0).
 */
function given(data: PyDict): { fields: Record<string, PyValue>; input: Omit<InventoryInput, 'resourceClass'> } {
  const fields: Record<string, PyValue> = {};
  for (const [name, key] of FIELDS) fields[name] = data.has(name) ? data.get(name)! : key === 'allocationRatio' ? new PyFloat(INVENTORY_DEFAULTS.allocationRatio) : INVENTORY_DEFAULTS[key as keyof typeof INVENTORY_DEFAULTS];
  const number = (value: PyValue) => Number(value instanceof PyFloat ? value.value : value);
  const input = Object.fromEntries(FIELDS.map(([name, key]) => [key, number(fields[name])])) as unknown as Omit<InventoryInput, 'resourceClass'>;
  return { fields, input };
}

/** A list of inventories was modified now; an empty one has no time (Placement sends only cache-control). */
const modified = (count: number): Pick<Answer, 'lastModified' | 'noCache'> => (count ? { lastModified: new Date() } : { noCache: true });

/** ResourceProvider.get_by_uuid where the handler catches it: "No resource provider with uuid X found : ...". */
function providerOrNotFound(request: RestRequest, uuid: string) {
  const provider = providerByUuid(request.db, uuid);
  if (!provider) throw new PlacementError(404, `No resource provider with uuid ${uuid} found : No resource provider with uuid ${uuid} found`);
  return provider;
}

/** An answer with one inventory: its fields, and the provider's generation unless it is 0 (Placement leaves a false value out). */
function inventoryAnswer(fields: Record<string, PyJsonWritable>, generation: number, status = 200): Answer {
  const body = generation ? { ...fields, resource_provider_generation: generation } : fields;
  return { status, body: pyJsonDumps(body), lastModified: new Date() };
}

export function list(request: RestRequest): Answer {
  request.acceptJson();
  request.can(LIST);
  const provider = providerOrNotFound(request, request.params.uuid);
  const rows = inventoriesOf(request.db, [provider.id]);
  const inventories = Object.fromEntries(rows.map((i) => [i.resourceClass, stored(i)]));
  return { status: 200, body: pyJsonDumps({ resource_provider_generation: provider.generation, inventories }), ...modified(rows.length) };
}

export function show(request: RestRequest): Answer {
  request.acceptJson();
  request.can(SHOW);
  const { uuid, resource_class: resourceClass } = request.params;
  const provider = providerOrNotFound(request, uuid);
  const inventory = inventoriesOf(request.db, [provider.id]).find((i) => i.resourceClass === resourceClass);
  if (!inventory) throw new PlacementError(404, `No inventory of class ${resourceClass} for ${uuid}`);
  return inventoryAnswer(stored(inventory), provider.generation);
}

export async function create(request: RestRequest): Promise<Answer> {
  request.requireJson();
  request.can(CREATE);
  const uuid = request.params.uuid;
  request.provider(uuid);
  const data = request.json(schemas.POST_INVENTORY_SCHEMA) as PyDict;
  const resourceClass = data.get('resource_class') as string;
  const { fields, input } = given(data);
  try {
    await request.writes.addInventory({ providerUuid: uuid, resourceClass, ...input, minor: request.minor });
  } catch (error) {
    if (error instanceof InvalidInput || error instanceof NotFound) {
      throw new PlacementError(400, `Unable to create inventory for resource provider ${uuid}: ${placementReason(error)}`);
    }
    if (error instanceof GenerationConflict) throw new PlacementError(409, error.message, { code: 'placement.concurrent_update' });
    throw error;
  }
  return { ...inventoryAnswer(fields, providerByUuid(request.db, uuid)!.generation, 201), location: `/resource_providers/${uuid}/inventories/${resourceClass}` };
}

/** Placement's words for a refusal of the domain (it stops at the first problem). */
const placementReason = (error: InvalidInput | NotFound) => (error instanceof InvalidInput ? firstReason(error) : error.message);

const conflict = () => new PlacementError(409, 'resource provider generation conflict', { code: 'placement.concurrent_update' });

export async function replaceAll(request: RestRequest): Promise<Answer> {
  request.requireJson();
  request.can(UPDATE);
  const uuid = request.params.uuid;
  request.provider(uuid);
  const data = request.json(schemas.PUT_INVENTORY_SCHEMA) as PyDict;
  const generation = Number(data.get('resource_provider_generation'));
  const records = [...(data.get('inventories') as PyDict)].map(([resourceClass, record]) => ({ resourceClass, ...given(record as PyDict) }));
  try {
    await request.writes.setInventories({ providerUuid: uuid, generation, inventories: records.map((r) => ({ resourceClass: r.resourceClass, ...r.input })), minor: request.minor });
  } catch (error) {
    if (error instanceof GenerationConflict) throw conflict();
    if (error instanceof InvalidInput) throw new PlacementError(400, `Unable to update inventory for resource provider ${uuid}: ${placementReason(error)}`);
    if (error instanceof NotFound) throw new PlacementError(400, `Unknown resource class in inventory for resource provider ${uuid}: ${error.message}`);
    if (error instanceof InUse) throw new PlacementError(409, error.message, { code: error.code });
    throw error;
  }
  const inventories = Object.fromEntries(records.map((r) => [r.resourceClass, r.fields as Record<string, PyJsonWritable>]));
  return { status: 200, body: pyJsonDumps({ resource_provider_generation: providerByUuid(request.db, uuid)!.generation, inventories }), ...modified(records.length) };
}

export async function update(request: RestRequest): Promise<Answer> {
  request.requireJson();
  request.can(UPDATE);
  const { uuid, resource_class: resourceClass } = request.params;
  request.provider(uuid);
  const data = request.json(schemas.BASE_INVENTORY_SCHEMA) as PyDict;
  const generation = Number(data.get('resource_provider_generation'));
  const { fields, input } = given(data);
  try {
    await request.writes.updateInventory({ providerUuid: uuid, generation, resourceClass, ...input, minor: request.minor });
  } catch (error) {
    if (error instanceof GenerationConflict) throw conflict();
    // An unknown class gets past Placement's handler as its NotFound: a 404 from its dispatcher.
    if (error instanceof NotFound) throw new PlacementError(404, error.message, { outsideHandler: true });
    if (error instanceof InvalidInput && error.issues.some((i) => i.path === 'resourceClass')) {
      throw new PlacementError(400, `No inventory record with resource class for resource provider ${uuid}: ${placementReason(error)}`);
    }
    if (error instanceof InvalidInput) throw new PlacementError(400, `Unable to update inventory for resource provider ${uuid}: ${placementReason(error)}`);
    throw error;
  }
  return inventoryAnswer(fields as Record<string, PyJsonWritable>, providerByUuid(request.db, uuid)!.generation);
}

export async function remove(request: RestRequest): Promise<Answer> {
  request.can(DELETE);
  const { uuid, resource_class: resourceClass } = request.params;
  request.provider(uuid);
  try {
    await request.writes.deleteInventory({ providerUuid: uuid, resourceClass });
  } catch (error) {
    if (error instanceof NotFound) throw new PlacementError(404, `No inventory of class ${resourceClass} found for delete: ${error.message}`);
    // Placement reports an allocated inventory with its concurrent-update code here.
    if (error instanceof InUse) throw new PlacementError(409, `Unable to delete inventory of class ${resourceClass}: ${error.message}`, { code: 'placement.concurrent_update' });
    throw error;
  }
  return { status: 204 };
}

export async function removeAll(request: RestRequest): Promise<Answer> {
  request.versions(5, Infinity, 405);
  request.can(DELETE);
  const uuid = request.params.uuid;
  request.provider(uuid);
  try {
    await request.writes.deleteInventories(uuid);
  } catch (error) {
    if (error instanceof InUse) throw new PlacementError(409, error.message, { code: error.code });
    throw error;
  }
  return { status: 204 };
}
