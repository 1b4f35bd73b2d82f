// /traits, /traits/{name} and /resource_providers/{uuid}/traits (handlers/trait.py), from 1.6.
import { GenerationConflict, InUse, InvalidInput, NotFound } from '../../modules/common/errors.js';
import { providerByUuid } from '../../modules/providers/providers.service.js';
import { listTraits, traitByName, traitsOfProvider, type TraitFilter } from '../../modules/traits/traits.service.js';
import { pyJsonDumps } from '../../rules/python-json.js';
import type { PyDict, PyValue } from '../../rules/python.js';
import { firstReason, PlacementError } from '../errors.js';
import { schemaProblem } from '../json-schema.js';
import { readPolicy, writePolicy, type Answer, type RestRequest } from '../request.js';
import * as schemas from '../schemas.js';

const RP_TRAIT_LIST = readPolicy('placement:resource_providers:traits:list');
const RP_TRAIT_UPDATE = writePolicy('placement:resource_providers:traits:update');
const RP_TRAIT_DELETE = writePolicy('placement:resource_providers:traits:delete');
const TRAITS_LIST = readPolicy('placement:traits:list');
const TRAITS_SHOW = readPolicy('placement:traits:show');
const TRAITS_UPDATE = writePolicy('placement:traits:update');
const TRAITS_DELETE = writePolicy('placement:traits:delete');

const TRAIT_RULE =
  'The trait is invalid. A valid trait must be no longer than 255 characters, start with the prefix "CUSTOM_" and use following characters: "A"-"Z", "0"-"9" and "_"';

/** GET /traits?name=in:A,B|startswith:P&associated=true|false */
export function list(request: RestRequest): Answer {
  request.versions(6);
  request.acceptJson();
  request.can(TRAITS_LIST);
  request.validateQuery(schemas.LIST_TRAIT_SCHEMA);
  const filter: TraitFilter = {};
  const name = request.last('name');
  if (name !== undefined) {
    const colon = name.indexOf(':');
    if (colon < 0) {
      throw new PlacementError(400, `Badly formatted name parameter. Expected name query string parameter in form: ?name=[in|startswith]:[name1,name2|prefix]. Got: "${name}"`);
    }
    const [op, value] = [name.slice(0, colon), name.slice(colon + 1)];
    // Any other operator filters nothing, as in Placement.
    if (op === 'in') filter.names = value.split(',');
    else if (op === 'startswith') filter.prefix = value;
  }
  const associated = request.last('associated');
  if (associated !== undefined) {
    const lower = associated.toLowerCase();
    if (lower !== 'true' && lower !== 'false') throw new PlacementError(400, 'The query parameter "associated" only accepts "true" or "false"');
    filter.associated = lower === 'true';
  }
  const traits = listTraits(request.db, filter).map((t) => t.name);
  return { status: 200, body: pyJsonDumps({ traits }), lastModified: new Date() };
}

export function show(request: RestRequest): Answer {
  request.versions(6);
  request.can(TRAITS_SHOW);
  const name = request.params.name;
  if (!traitByName(request.db, name)) throw new PlacementError(404, `No such trait(s): ${name}.`);
  return { status: 204, lastModified: new Date() };
}

export async function create(request: RestRequest): Promise<Answer> {
  request.versions(6);
  request.can(TRAITS_UPDATE);
  const name = request.params.name;
  if (schemaProblem(name, schemas.CUSTOM_TRAIT)) throw new PlacementError(400, TRAIT_RULE);
  const { created } = await request.writes.createTrait(name);
  return { status: created ? 201 : 204, location: `/traits/${name}`, lastModified: new Date() };
}

export async function remove(request: RestRequest): Promise<Answer> {
  request.versions(6);
  request.can(TRAITS_DELETE);
  const name = request.params.name;
  try {
    await request.writes.deleteTrait(name);
  } catch (error) {
    if (error instanceof NotFound) throw new PlacementError(404, error.message);
    if (error instanceof InvalidInput) throw new PlacementError(400, firstReason(error));
    if (error instanceof InUse) throw new PlacementError(409, error.message);
    throw error;
  }
  return { status: 204 };
}

function providerTraitsAnswer(request: RestRequest, uuid: string): Answer {
  const provider = providerByUuid(request.db, uuid)!;
  return { status: 200, body: pyJsonDumps({ traits: traitsOfProvider(request.db, provider.id), resource_provider_generation: provider.generation }), lastModified: new Date() };
}

export function ofProvider(request: RestRequest): Answer {
  request.versions(6);
  request.acceptJson();
  request.can(RP_TRAIT_LIST);
  const uuid = request.params.uuid;
  if (!providerByUuid(request.db, uuid)) throw new PlacementError(404, `No resource provider with uuid ${uuid} found: No resource provider with uuid ${uuid} found`);
  return providerTraitsAnswer(request, uuid);
}

export async function replaceOfProvider(request: RestRequest): Promise<Answer> {
  request.versions(6);
  request.requireJson();
  request.can(RP_TRAIT_UPDATE);
  const uuid = request.params.uuid;
  const data = request.json(schemas.SET_TRAITS_FOR_RP_SCHEMA) as PyDict;
  const generation = Number(data.get('resource_provider_generation'));
  const traits = data.get('traits') as PyValue[] as string[];
  request.provider(uuid);
  try {
    await request.writes.setProviderTraits({ providerUuid: uuid, generation, traits, bumpOnlyOnChange: true });
  } catch (error) {
    if (error instanceof GenerationConflict) {
      throw new PlacementError(409, "Resource provider's generation already changed. Please update the generation and try again.", { code: 'placement.concurrent_update' });
    }
    if (error instanceof InvalidInput) throw new PlacementError(400, firstReason(error));
    throw error;
  }
  return providerTraitsAnswer(request, uuid);
}

export async function removeOfProvider(request: RestRequest): Promise<Answer> {
  request.versions(6);
  request.can(RP_TRAIT_DELETE);
  const uuid = request.params.uuid;
  request.provider(uuid);
  await request.writes.deleteProviderTraits(uuid);
  return { status: 204 };
}
