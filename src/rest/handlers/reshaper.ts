// POST /reshaper (handlers/reshaper.py, from 1.30): inventories and allocations replaced together.
import { CapacityExceeded, GenerationConflict, InUse, InvalidInput, NotFound } from '../../modules/common/errors.js';
import { UnknownProvider } from '../../modules/allocations/allocations.reshape.js';
import type { InventoryInput } from '../../modules/inventories/inventories.service.js';
import { PyFloat, type PyDict, type PyValue } from '../../rules/python.js';
import { firstReason, PlacementError } from '../errors.js';
import { writePolicy, type Answer, type RestRequest } from '../request.js';
import * as schemas from '../allocation-schemas.js';
import { consumerAllocations } from './allocations.js';

const RESHAPE = writePolicy('placement:reshaper:reshape');

const FIELDS = [
  ['reserved', 'reserved'],
  ['min_unit', 'minUnit'],
  ['max_unit', 'maxUnit'],
  ['step_size', 'stepSize'],
  ['allocation_ratio', 'allocationRatio'],
] as const;

const number = (value: PyValue) => Number(value instanceof PyFloat ? value.value : (value as number | bigint));

/** An inventory record of the body: Placement's defaults for what it leaves out. */
function record(resourceClass: string, data: PyDict): InventoryInput {
  const input: InventoryInput = { resourceClass, total: number(data.get('total')!) };
  for (const [name, key] of FIELDS) if (data.has(name)) input[key] = number(data.get(name)!);
  return input;
}

export async function reshape(request: RestRequest): Promise<Answer> {
  request.versions(30);
  request.requireJson();
  request.can(RESHAPE);
  const schema = request.atLeast(38) ? schemas.POST_RESHAPER_SCHEMA_V1_38 : request.atLeast(34) ? schemas.POST_RESHAPER_SCHEMA_V1_34 : schemas.POST_RESHAPER_SCHEMA;
  const data = request.json(schema) as PyDict;
  const inventories = [...(data.get('inventories') as PyDict)].map(([providerUuid, entry]) => {
    const e = entry as PyDict;
    return {
      providerUuid,
      generation: number(e.get('resource_provider_generation')!),
      inventories: [...(e.get('inventories') as PyDict)].map(([rc, fields]) => record(rc, fields as PyDict)),
    };
  });
  const allocations = [...(data.get('allocations') as PyDict)].map(([consumerUuid, consumer]) => consumerAllocations(request, consumerUuid, consumer as PyDict));
  try {
    await request.writes.reshape({ inventories, allocations, minor: request.minor });
  } catch (error) {
    if (error instanceof UnknownProvider) throw new PlacementError(400, error.message, { code: error.code });
    if (error instanceof GenerationConflict) throw new PlacementError(409, error.placement ?? error.message, { code: 'placement.concurrent_update' });
    if (error instanceof InvalidInput) throw new PlacementError(400, firstReason(error));
    if (error instanceof NotFound) throw new PlacementError(400, `malformed reshaper data: ${error.message}`);
    if (error instanceof InUse) throw new PlacementError(409, `update conflict: ${error.message}`, { code: error.code });
    if (error instanceof CapacityExceeded) throw new PlacementError(409, `Unable to allocate inventory: ${error.placement ?? error.message}`);
    throw error;
  }
  return { status: 204 };
}
