// /resource_providers and /resource_providers/{uuid} (handlers/resource_provider.py).
import { randomUUID } from 'node:crypto';
import { DomainError, DuplicateName, InUse, InvalidInput, NotFound } from '../../modules/common/errors.js';
import { parseMemberOf, parseResources, parseTraits } from '../../modules/common/query-string.js';
import { providerInTree, providersInTreeMatching, type ProviderFilter, type ProviderInTree } from '../../modules/providers/providers.service.js';
import { pyUuidString } from '../../rules/names.js';
import { pyJsonDumps } from '../../rules/python-json.js';
import type { PyDict } from '../../rules/python.js';
import { firstReason, PlacementError } from '../errors.js';
import { placementRefusal, readPolicy, writePolicy, type Answer, type RestRequest } from '../request.js';
import * as schemas from '../schemas.js';
import { modifiedAt } from './times.js';

const LIST = readPolicy('placement:resource_providers:list');
const CREATE = writePolicy('placement:resource_providers:create');
const SHOW = readPolicy('placement:resource_providers:show');
const UPDATE = writePolicy('placement:resource_providers:update');
const DELETE = writePolicy('placement:resource_providers:delete');

/** The links of a provider at this microversion; hrefs are relative to the API's root. */
function links(request: RestRequest, uuid: string) {
  const self = `/resource_providers/${uuid}`;
  const rels = ['inventories', 'usages'];
  if (request.atLeast(1)) rels.push('aggregates');
  if (request.atLeast(6)) rels.push('traits');
  if (request.atLeast(11)) rels.push('allocations');
  return [{ rel: 'self', href: self }, ...rels.map((rel) => ({ rel, href: `${self}/${rel}` }))];
}

/** _serialize_provider. */
export function serializeProvider(request: RestRequest, p: ProviderInTree) {
  const data: Record<string, unknown> = { uuid: p.uuid, name: p.name, generation: p.generation, links: links(request, p.uuid) };
  if (request.atLeast(14)) Object.assign(data, { parent_provider_uuid: p.parentUuid, root_provider_uuid: p.rootUuid });
  return data;
}

const providerAnswer = (request: RestRequest, provider: ProviderInTree, status = 200): Answer => ({
  status,
  body: pyJsonDumps(serializeProvider(request, provider) as never),
  lastModified: modifiedAt(provider),
});

export function list(request: RestRequest): Answer {
  request.acceptJson();
  request.can(LIST);
  const schema = request.atLeast(18)
    ? schemas.GET_RPS_SCHEMA_1_18
    : request.atLeast(14)
      ? schemas.GET_RPS_SCHEMA_1_14
      : request.atLeast(4)
        ? schemas.GET_RPS_SCHEMA_1_4
        : request.atLeast(3)
          ? schemas.GET_RPS_SCHEMA_1_3
          : schemas.GET_RPS_SCHEMA_1_0;
  request.validateQuery(schema);
  const filter: ProviderFilter = {};
  try {
    if (request.has('member_of')) {
      const { memberOf, forbidden } = parseMemberOf(request.all('member_of'), '', request.minor);
      Object.assign(filter, { memberOf, notMemberOf: forbidden });
    }
    if (request.has('required')) {
      const values = request.atLeast(39) ? request.all('required') : request.all('required').slice(-1);
      const required: string[] = [];
      const anyOf: string[][] = [];
      const forbidden = new Set<string>();
      for (const value of values) {
        const parsed = parseTraits(value, request.atLeast(22), request.atLeast(39));
        for (const group of parsed.required) (group.length === 1 ? required.push(group[0]) : anyOf.push(group));
        parsed.forbidden.forEach((t) => forbidden.add(t));
      }
      Object.assign(filter, { required, anyOf, forbidden: [...forbidden] });
    }
    if (request.has('uuid')) filter.uuid = request.last('uuid')!;
    if (request.has('name')) filter.name = request.last('name')!;
    if (request.has('in_tree')) filter.inTree = request.last('in_tree')!;
    if (request.has('resources')) filter.resources = parseResources(request.last('resources')!).map(([resourceClass, amount]) => ({ resourceClass, amount }));
  } catch (error) {
    throw placementRefusal(error);
  }
  let rows: ProviderInTree[];
  try {
    rows = providersInTreeMatching(request.db, filter);
  } catch (error) {
    throw placementRefusal(error);
  }
  const body = { resource_providers: rows.map((p) => serializeProvider(request, p)) };
  const latest = rows.reduce<Date | undefined>((max, p) => {
    const at = modifiedAt(p);
    return !max || at > max ? at : max;
  }, undefined);
  return { status: 200, body: pyJsonDumps(body as never), lastModified: latest ?? new Date() };
}

export async function create(request: RestRequest): Promise<Answer> {
  request.requireJson();
  request.can(CREATE);
  const data = request.json(request.atLeast(14) ? schemas.POST_RP_SCHEMA_V1_14 : schemas.POST_RESOURCE_PROVIDER_SCHEMA) as PyDict;
  const name = data.get('name') as string;
  const asked = data.get('uuid') as string | undefined;
  // Placement writes a uuid given without dashes (or in braces) in its canonical form.
  const uuid = asked ? pyUuidString(asked)! : randomUUID();
  const parentUuid = (data.get('parent_provider_uuid') as string | null | undefined) ?? null;
  try {
    await request.writes.createProvider({ name, uuid, parentUuid });
  } catch (error) {
    if (error instanceof DuplicateName) {
      throw new PlacementError(409, `Conflicting resource provider ${error.field}: ${error.field === 'uuid' ? uuid : name} already exists.`, { code: 'placement.duplicate_name' });
    }
    if (error instanceof InvalidInput) {
      throw new PlacementError(400, `Unable to create resource provider "${name}", ${uuid}: Object action create failed because: ${reason(error)}`);
    }
    throw error;
  }
  const created = providerInTree(request.db, uuid)!;
  const location = `/resource_providers/${uuid}`;
  if (request.atLeast(20)) return { ...providerAnswer(request, created), location };
  return { status: 201, location };
}

const reason = firstReason;

export function show(request: RestRequest): Answer {
  request.acceptJson();
  const uuid = request.params.uuid;
  request.can(SHOW);
  const provider = providerInTree(request.db, uuid);
  if (!provider) request.provider(uuid);
  return providerAnswer(request, provider!);
}

export async function update(request: RestRequest): Promise<Answer> {
  request.requireJson();
  const uuid = request.params.uuid;
  request.can(UPDATE);
  request.provider(uuid);
  const data = request.json(request.atLeast(14) ? schemas.PUT_RP_SCHEMA_V1_14 : schemas.PUT_RESOURCE_PROVIDER_SCHEMA) as PyDict;
  const name = data.get('name') as string;
  try {
    await request.writes.updateProvider({
      uuid,
      name,
      parentUuid: data.has('parent_provider_uuid') ? (data.get('parent_provider_uuid') as string | null) : undefined,
      allowReparenting: request.atLeast(37),
    });
  } catch (error) {
    if (error instanceof DuplicateName) throw new PlacementError(409, `Conflicting resource provider ${name} already exists.`, { code: 'placement.duplicate_name' });
    if (error instanceof InvalidInput) {
      // Placement names its object action "create" when the parent is missing, "update" otherwise.
      const action = error.issues.some((i) => i.placement === 'parent provider UUID does not exist.') ? 'create' : 'update';
      throw new PlacementError(400, `Unable to save resource provider ${uuid}: Object action ${action} failed because: ${reason(error)}`);
    }
    throw error;
  }
  return providerAnswer(request, providerInTree(request.db, uuid)!);
}

export async function remove(request: RestRequest): Promise<Answer> {
  const uuid = request.params.uuid;
  request.can(DELETE);
  try {
    await request.writes.deleteProvider(uuid);
  } catch (error) {
    if (error instanceof NotFound) throw new PlacementError(404, `No resource provider with uuid ${uuid} found for delete`);
    if (error instanceof InUse && error.code === 'placement.resource_provider.inuse') {
      throw new PlacementError(409, `Unable to delete resource provider ${uuid}: Resource provider has allocations.`, { code: error.code });
    }
    if (error instanceof InUse) throw new PlacementError(409, `Unable to delete parent resource provider ${uuid}: It has child resource providers.`, { code: error.code });
    if (error instanceof DomainError) throw new PlacementError(409, error.message, { code: error.code });
    throw error;
  }
  return { status: 204 };
}
