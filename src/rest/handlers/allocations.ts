// /allocations/{consumer_uuid}, POST /allocations, /resource_providers/{uuid}/allocations and GET
// /usages (handlers/allocation.py and usage.py): the list form of allocations before 1.12 and the
// dict form from 1.12, project and user from 1.8, consumer generations from 1.28, mappings from 1.34,
// consumer types from 1.38.
import { CapacityExceeded, GenerationConflict, InvalidInput, NotFound } from '../../modules/common/errors.js';
import {
  allocationsOfConsumer,
  allocationsOfProvider,
  consumerByUuid,
  usageTotals,
  type ConsumerAllocations,
  type ProviderAllocationInput,
} from '../../modules/allocations/allocations.service.js';
import { providerByUuid } from '../../modules/providers/providers.service.js';
import { isUuidLike, NO_CONSUMER_TYPE, pyUuidString, shownConsumerType } from '../../rules/names.js';
import { pyJsonDumps, type PyJsonWritable } from '../../rules/python-json.js';
import type { PyDict, PyValue } from '../../rules/python.js';
import { firstReason, PlacementError } from '../errors.js';
import { readPolicy, writePolicy, type Answer, type RestRequest } from '../request.js';
import * as schemas from '../allocation-schemas.js';
import type { Schema } from '../json-schema.js';

const ALLOC_LIST = readPolicy('placement:allocations:list');
const ALLOC_MANAGE = writePolicy('placement:allocations:manage');
const ALLOC_UPDATE = writePolicy('placement:allocations:update');
const ALLOC_DELETE = writePolicy('placement:allocations:delete');
const RP_ALLOC_LIST = readPolicy('placement:resource_providers:allocations:list');
const TOTAL_USAGES = readPolicy('placement:usages');

/** A JSON answer; Placement says "now" where allocations have no time of their own here. */
const answer = (body: PyJsonWritable): Answer => ({ status: 200, body: pyJsonDumps(body), lastModified: new Date() });

/** GET /allocations/{consumer_uuid}: by provider, with project, user, consumer generation and type as the microversion shows them. */
export function ofConsumer(request: RestRequest): Answer {
  request.acceptJson();
  request.can(ALLOC_LIST);
  const uuid = request.params.consumer_uuid;
  const rows = allocationsOfConsumer(request.db, uuid);
  const allocations: Record<string, { resources: Record<string, number>; generation: number }> = {};
  for (const row of rows) {
    const entry = (allocations[row.providerUuid] ??= { resources: {}, generation: row.providerGeneration });
    entry.resources[row.resourceClass] = row.used;
  }
  const body: Record<string, PyJsonWritable> = { allocations };
  if (rows.length && request.atLeast(12)) {
    const consumer = consumerByUuid(request.db, uuid)!;
    body.project_id = consumer.projectId;
    body.user_id = consumer.userId;
    if (request.atLeast(28)) body.consumer_generation = consumer.generation;
    if (request.atLeast(38)) body.consumer_type = shownConsumerType(consumer.consumerType);
  }
  return answer(body);
}

/** GET /resource_providers/{uuid}/allocations: by consumer, with their generations from 1.28. */
export function ofProvider(request: RestRequest): Answer {
  request.acceptJson();
  request.can(RP_ALLOC_LIST);
  const uuid = request.params.uuid;
  const provider = providerByUuid(request.db, uuid);
  if (!provider) throw new PlacementError(404, `Resource provider '${uuid}' not found: No resource provider with uuid ${uuid} found`);
  const allocations: Record<string, { resources: Record<string, number>; consumer_generation?: number }> = {};
  for (const row of allocationsOfProvider(request.db, provider.id)) {
    const entry = (allocations[row.consumerUuid] ??= { resources: {} });
    entry.resources[row.resourceClass] = row.used;
    if (request.atLeast(28)) entry.consumer_generation = row.consumerGeneration;
  }
  return answer({ allocations, resource_provider_generation: provider.generation });
}

/** Consumer types as Placement's rows come: none (`unknown`) first. */
const typeOrder = (a: string, b: string) => (a === b ? 0 : a === NO_CONSUMER_TYPE ? -1 : b === NO_CONSUMER_TYPE ? 1 : a < b ? -1 : 1);

/** One consumer's part of a request body, as the microversion has it. */
export function consumerAllocations(request: RestRequest, consumerUuid: string, data: PyDict): ConsumerAllocations {
  const given = data.get('allocations')!;
  let allocations: ProviderAllocationInput[];
  if (Array.isArray(given)) {
    // Before 1.12, a list; a provider listed twice keeps its place and its last resources.
    const byProvider = new Map<string, PyDict>();
    for (const item of given as PyDict[]) byProvider.set((item.get('resource_provider') as PyDict).get('uuid') as string, item.get('resources') as PyDict);
    allocations = [...byProvider].map(([providerUuid, resources]) => ({ providerUuid, resources: amounts(resources) }));
  } else {
    allocations = [...(given as PyDict)].map(([providerUuid, entry]) => ({ providerUuid, resources: amounts((entry as PyDict).get('resources') as PyDict) }));
  }
  const text = (key: string) => (data.has(key) ? (data.get(key) as string) : null);
  const write: ConsumerAllocations = { consumerUuid, projectId: text('project_id'), userId: text('user_id'), allocations };
  if (request.atLeast(28)) write.consumerGeneration = data.get('consumer_generation') === null ? null : Number(data.get('consumer_generation'));
  if (request.atLeast(38)) write.consumerType = data.get('consumer_type') as string;
  return write;
}

const amounts = (resources: PyDict) => [...resources].map(([resourceClass, amount]) => ({ resourceClass, amount: Number(amount as PyValue as number) }));

/** Placement's answer to a refused write of allocations (`notFound` words a missing class). */
function refusal(error: unknown, notFound: (message: string) => string): unknown {
  if (error instanceof GenerationConflict) return new PlacementError(409, error.placement ?? error.message, { code: 'placement.concurrent_update' });
  if (error instanceof InvalidInput) return new PlacementError(400, firstReason(error));
  if (error instanceof NotFound) return new PlacementError(400, notFound(error.message));
  if (error instanceof CapacityExceeded) return new PlacementError(409, `Unable to allocate inventory: ${error.placement ?? error.message}`);
  return error;
}

const PUT_SCHEMAS: [number, Schema][] = [
  [38, schemas.ALLOCATION_SCHEMA_V1_38],
  [34, schemas.ALLOCATION_SCHEMA_V1_34],
  [28, schemas.ALLOCATION_SCHEMA_V1_28],
  [12, schemas.ALLOCATION_SCHEMA_V1_12],
  [8, schemas.ALLOCATION_SCHEMA_V1_8],
  [0, schemas.ALLOCATION_SCHEMA],
];

/** PUT /allocations/{consumer_uuid}: replaces the consumer's allocations. */
export async function replace(request: RestRequest): Promise<Answer> {
  request.requireJson();
  request.can(ALLOC_UPDATE);
  const raw = request.params.consumer_uuid;
  if (!isUuidLike(raw)) throw new PlacementError(400, `Malformed consumer_uuid: ${raw}`);
  const consumerUuid = pyUuidString(raw)!;
  const data = request.json(PUT_SCHEMAS.find(([minor]) => request.atLeast(minor))![1]) as PyDict;
  try {
    await request.writes.writeAllocations({ consumers: [consumerAllocations(request, consumerUuid, data)], minor: request.minor, several: false });
  } catch (error) {
    throw refusal(error, (message) => `Unable to allocate inventory for consumer ${consumerUuid}: ${message}`);
  }
  return { status: 204 };
}

/** POST /allocations (1.13): the allocations of several consumers, all or nothing. */
export async function replaceMany(request: RestRequest): Promise<Answer> {
  request.versions(13);
  request.requireJson();
  request.can(ALLOC_MANAGE);
  const schema = request.atLeast(38)
    ? schemas.POST_ALLOCATIONS_V1_38
    : request.atLeast(34)
      ? schemas.POST_ALLOCATIONS_V1_34
      : request.atLeast(28)
        ? schemas.POST_ALLOCATIONS_V1_28
        : schemas.POST_ALLOCATIONS_V1_13;
  const data = request.json(schema) as PyDict;
  try {
    const consumers = [...data].map(([consumerUuid, consumer]) => consumerAllocations(request, consumerUuid, consumer as PyDict));
    await request.writes.writeAllocations({ consumers, minor: request.minor, several: true });
  } catch (error) {
    throw refusal(error, (message) => `Unable to allocate inventory ${message}`);
  }
  return { status: 204 };
}

/** DELETE /allocations/{consumer_uuid}. */
export async function remove(request: RestRequest): Promise<Answer> {
  request.can(ALLOC_DELETE);
  try {
    await request.writes.deleteAllocations(request.params.consumer_uuid);
  } catch (error) {
    if (error instanceof NotFound) throw new PlacementError(404, error.message);
    throw error;
  }
  return { status: 204 };
}

/**
 * GET /usages (1.9): what a project (or one of its users) uses per class; from 1.38 per consumer
 * type, with the number of consumers (`all`: every type together, `unknown`: consumers without one).
 */
export function totals(request: RestRequest): Answer {
  request.versions(9);
  request.acceptJson();
  const projectId = request.last('project_id');
  const userId = request.last('user_id');
  request.can(TOTAL_USAGES);
  const byType = request.atLeast(38);
  request.validateQuery(byType ? schemas.GET_USAGES_SCHEMA_V1_38 : schemas.GET_USAGES_SCHEMA_1_9);
  const where = { projectId, userId };
  if (!byType) {
    const [total] = usageTotals(request.db, 'PROJECT', where);
    return answer({ usages: Object.fromEntries((total?.resources ?? []).map((r) => [r.resourceClass, r.used])) });
  }
  const consumerType = request.last('consumer_type');
  const groups =
    consumerType === 'all'
      ? usageTotals(request.db, 'PROJECT', where).map((t) => ({ ...t, key: 'all' }))
      : usageTotals(request.db, 'CONSUMER_TYPE', { ...where, consumerType: consumerType === 'unknown' ? NO_CONSUMER_TYPE : consumerType });
  // Placement builds the answer from rows by class, then by type (none first): keys in that order,
  // and consumer_count set after each class, so just after the first.
  const rows = groups.flatMap((group) => group.resources.map((r) => ({ group, ...r })));
  rows.sort((a, b) => a.classId - b.classId || typeOrder(a.group.key, b.group.key));
  const usages: Record<string, Record<string, number>> = {};
  for (const { group, resourceClass, used } of rows) {
    const entry = (usages[group.key] ??= {});
    entry[resourceClass] = used;
    entry.consumer_count = group.consumerCount;
  }
  return answer({ usages });
}
