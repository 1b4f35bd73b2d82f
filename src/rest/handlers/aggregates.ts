// /resource_providers/{uuid}/aggregates (handlers/aggregate.py): a bare list before 1.19, the list
// with the provider's generation from 1.19.
import { GenerationConflict } from '../../modules/common/errors.js';
import { aggregatesOfProvider } from '../../modules/aggregates/aggregates.service.js';
import { providerByUuid } from '../../modules/providers/providers.service.js';
import { pyJsonDumps } from '../../rules/python-json.js';
import type { PyDict, PyValue } from '../../rules/python.js';
import { PlacementError } from '../errors.js';
import { readPolicy, writePolicy, type Answer, type RestRequest } from '../request.js';
import * as schemas from '../schemas.js';

const LIST = readPolicy('placement:resource_providers:aggregates:list');
const UPDATE = writePolicy('placement:resource_providers:aggregates:update');

function aggregatesAnswer(request: RestRequest, aggregates: string[], generation: number): Answer {
  const body: Record<string, unknown> = { aggregates };
  if (request.atLeast(19)) body.resource_provider_generation = generation;
  // Placement keeps no time for a provider's aggregates: it says "now".
  return { status: 200, body: pyJsonDumps(body as never), lastModified: new Date() };
}

export function list(request: RestRequest): Answer {
  request.acceptJson();
  request.versions(1);
  request.can(LIST);
  const provider = request.provider(request.params.uuid);
  return aggregatesAnswer(request, aggregatesOfProvider(request.db, provider.id), provider.generation);
}

export async function replace(request: RestRequest): Promise<Answer> {
  request.requireJson();
  request.versions(1);
  request.can(UPDATE);
  const withGeneration = request.atLeast(19);
  const uuid = request.params.uuid;
  request.provider(uuid);
  const data = request.json(withGeneration ? schemas.PUT_AGGREGATES_SCHEMA_V1_19 : schemas.PUT_AGGREGATES_SCHEMA_V1_1);
  const aggregates = (withGeneration ? (data as PyDict).get('aggregates') : data) as PyValue[] as string[];
  const generation = withGeneration ? Number((data as PyDict).get('resource_provider_generation')) : null;
  try {
    await request.writes.setProviderAggregates({ providerUuid: uuid, generation, aggregates });
  } catch (error) {
    if (error instanceof GenerationConflict) {
      throw new PlacementError(409, "Resource provider's generation already changed. Please update the generation and try again.", { code: 'placement.concurrent_update' });
    }
    throw error;
  }
  return aggregatesAnswer(request, aggregates, providerByUuid(request.db, uuid)!.generation);
}
