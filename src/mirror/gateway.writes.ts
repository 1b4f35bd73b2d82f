// The write port in gateway mode: a change to Placement's data is made in Placement with the caller's
// generation, then what it touched is read back into the mirror, and the answer is read from the
// mirror as in standalone mode. Placement's refusals become the same typed errors, with Placement's
// code. Data of Nova, Glance and Ironic is changed here only while that service is not mirrored.
import { CapacityExceeded, DomainError, DuplicateName, GenerationConflict, InUse, InvalidInput, NotAvailableHere, NotFound, UpstreamUnavailable } from '../modules/common/errors.js';
import { refuseCapacitiesOutOfRange, withDefaults, type AddInventoryInput, type DeleteInventoryInput, type InventoryInput, type PlacementRules, type SetInventoriesInput, type SetInventoryInput, type UpdateInventoryInput } from '../modules/inventories/inventories.service.js';
import type { SetProviderTraitsInput } from '../modules/traits/traits.service.js';
import type { SetProviderAggregatesInput } from '../modules/aggregates/aggregates.service.js';
import type { AllocationsWritten, ConsumerAllocations, SetAllocationsInput, WriteAllocationsInput } from '../modules/allocations/allocations.service.js';
import type { ReshapeInput } from '../modules/allocations/allocations.reshape.js';
import { consumerByUuid } from '../modules/allocations/allocations.service.js';
import { traitByName } from '../modules/traits/traits.service.js';
import { resourceClassByName, type RenameResourceClassInput } from '../modules/resource-classes/resource-classes.service.js';
import { publish, type ChangeFeed } from '../modules/changes/changes.feed.js';
import { localWrites } from '../writes/local.js';
import { eventsOf, OPERATIONS, ownerOf, type OperationName, type Writes } from '../writes/operations.js';
import { providerByUuid, type CreateProviderInput, type ProviderRow, type UpdateProviderInput } from '../modules/providers/providers.service.js';
import { all } from '../db/sql.js';
import type { Gateway } from './gateway.js';
import { UnexpectedAnswer, UpstreamError } from '../upstream/placement.client.js';
import { acceptNames, Skipped } from './placement.records.js';
import { explainFailure, isExplained } from '../upstream/failure.js';
import { syncNames } from './mirror.store.js';
import { checkedPlan, isChanged, plannedState, recordProvenance, type ApplyConfigInput, type ConfigPlan } from '../modules/provider-config/provider-config.service.js';

/** What the caller was doing, to word Placement's refusal as a typed error. */
interface Subject {
  provider?: string;
  generation?: number;
  generationField?: string;
  consumer?: string;
  consumerGeneration?: number | null;
  kind?: string;
  key?: string;
}

/** Placement's answer as the typed error standalone mode gives for the same failure. */
async function refusal(gateway: Gateway, error: unknown, subject: Subject): Promise<DomainError | Error> {
  if (!(error instanceof UpstreamError)) return isExplained(error) ? new UpstreamUnavailable(explainFailure(error)) : (error as Error);
  const { status, code, detail } = error;
  const withCode = <E extends DomainError>(e: E) => ((e.code = code), (e.upstream = { status, text: error.placementText }), e);
  if (status === 404) return withCode(new NotFound(subject.kind ?? 'resource provider', subject.key ?? `uuid=${subject.provider}`, detail));
  if (status === 400) return withCode(new InvalidInput([{ path: '', message: detail }]));
  if (status === 409 && code === 'placement.concurrent_update') {
    if (subject.consumer && /consumer/i.test(detail)) {
      const actual = await gateway.client.call<any>('GET', `/allocations/${subject.consumer}`).then((c) => c?.consumer_generation ?? null, () => null);
      return withCode(new GenerationConflict('consumerGeneration', subject.consumerGeneration ?? null, actual, detail));
    }
    const actual = subject.provider
      ? await gateway.client.call<any>('GET', `/resource_providers/${subject.provider}`).then((p) => (typeof p?.generation === 'number' ? p.generation : null), () => null)
      : null;
    return withCode(new GenerationConflict(subject.generationField ?? 'generation', subject.generation ?? null, actual, detail));
  }
  if (status === 409 && code === 'placement.duplicate_name') return withCode(new DuplicateName('name', subject.key ?? '', detail));
  if (status === 409 && /exceed the capacity|Unable to allocate inventory/i.test(detail)) {
    const m = /for '([A-Z0-9_]+)' on resource provider '([0-9a-f-]+)'/.exec(detail);
    return withCode(new CapacityExceeded('allocations', m?.[2] ?? '', m?.[1] ?? '', 0, 0, 0, detail));
  }
  if (status === 409) return withCode(new InUse(detail, code));
  return new UpstreamUnavailable(explainFailure(error));
}

async function through<T>(gateway: Gateway, subject: Subject, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    throw await refusal(gateway, error, subject);
  }
}

const mirrored = (gateway: Gateway, uuid: string): ProviderRow => {
  const row = providerByUuid(gateway.db, uuid);
  if (!row) throw new NotFound('resource provider', `uuid=${uuid}`, `No resource provider with uuid ${uuid} found.`);
  return row;
};

/** The microversion a write made for a client of Placement's API is sent at, so Placement applies the same rules. */
const asked = (rules: PlacementRules) => (rules.minor == null ? undefined : `1.${rules.minor}`);

async function setInventories(gateway: Gateway, input: SetInventoriesInput): Promise<ProviderRow> {
  // What this server could not answer is not sent to Placement either.
  refuseCapacitiesOutOfRange(input.inventories.map((inventory, n) => ({ inventory, path: `inventories.${n}` })), input.providerUuid);
  const inventories = Object.fromEntries(input.inventories.map((i) => [i.resourceClass, inventoryFields(i)]));
  await through(gateway, { provider: input.providerUuid, generation: input.generation }, () =>
    gateway.write('PUT', `/resource_providers/${input.providerUuid}/inventories`, { resource_provider_generation: input.generation, inventories }, asked(input)),
  );
  await gateway.readBack([input.providerUuid]);
  return mirrored(gateway, input.providerUuid);
}

/** One class: PUT .../inventories/{rc} when the provider has it; else the whole set with it added (osc-placement's --amend). */
async function setInventory(gateway: Gateway, input: SetInventoryInput): Promise<ProviderRow> {
  refuseCapacitiesOutOfRange([{ inventory: input, path: '' }], input.providerUuid);
  const subject = { provider: input.providerUuid, generation: input.generation };
  const fields = inventoryFields(input);
  const current = await through(gateway, subject, () => gateway.write<{ inventories: Record<string, unknown> }>('GET', `/resource_providers/${input.providerUuid}/inventories`));
  if (!current || typeof current.inventories !== 'object' || current.inventories === null) {
    throw new UpstreamUnavailable(explainFailure(new UnexpectedAnswer('Placement', 'GET', `/resource_providers/${input.providerUuid}/inventories`, 'has no inventories object')));
  }
  if (input.resourceClass in current.inventories) {
    await through(gateway, subject, () =>
      gateway.write('PUT', `/resource_providers/${input.providerUuid}/inventories/${encodeURIComponent(input.resourceClass)}`, { resource_provider_generation: input.generation, ...fields }),
    );
  } else {
    await through(gateway, subject, () =>
      gateway.write('PUT', `/resource_providers/${input.providerUuid}/inventories`, {
        resource_provider_generation: input.generation,
        inventories: { ...current.inventories, [input.resourceClass]: fields },
      }),
    );
  }
  await gateway.readBack([input.providerUuid]);
  return mirrored(gateway, input.providerUuid);
}

async function addInventory(gateway: Gateway, input: AddInventoryInput) {
  refuseCapacitiesOutOfRange([{ inventory: input, path: '' }], input.providerUuid);
  await through(gateway, { provider: input.providerUuid, kind: 'resource class', key: `resourceClass=${input.resourceClass}` }, () =>
    gateway.write('POST', `/resource_providers/${input.providerUuid}/inventories`, { resource_class: input.resourceClass, ...inventoryFields(input) }, asked(input)),
  );
  await gateway.readBack([input.providerUuid]);
  return { provider: mirrored(gateway, input.providerUuid), inventory: withDefaults(input) };
}

async function updateInventory(gateway: Gateway, input: UpdateInventoryInput) {
  refuseCapacitiesOutOfRange([{ inventory: input, path: '' }], input.providerUuid);
  await through(gateway, { provider: input.providerUuid, generation: input.generation, kind: 'resource class', key: `resourceClass=${input.resourceClass}` }, () =>
    gateway.write(
      'PUT',
      `/resource_providers/${input.providerUuid}/inventories/${encodeURIComponent(input.resourceClass)}`,
      { resource_provider_generation: input.generation, ...inventoryFields(input) },
      asked(input),
    ),
  );
  await gateway.readBack([input.providerUuid]);
  return { provider: mirrored(gateway, input.providerUuid), inventory: withDefaults(input) };
}

async function deleteInventory(gateway: Gateway, input: DeleteInventoryInput) {
  await through(gateway, { provider: input.providerUuid, kind: 'inventory', key: `resourceClass=${input.resourceClass}` }, () =>
    gateway.write('DELETE', `/resource_providers/${input.providerUuid}/inventories/${encodeURIComponent(input.resourceClass)}`),
  );
  await gateway.readBack([input.providerUuid]);
  return mirrored(gateway, input.providerUuid);
}

async function deleteInventories(gateway: Gateway, providerUuid: string) {
  await through(gateway, { provider: providerUuid }, () => gateway.write('DELETE', `/resource_providers/${providerUuid}/inventories`));
  await gateway.readBack([providerUuid]);
  return mirrored(gateway, providerUuid);
}

async function deleteProviderTraits(gateway: Gateway, providerUuid: string) {
  await through(gateway, { provider: providerUuid }, () => gateway.write('DELETE', `/resource_providers/${providerUuid}/traits`));
  await gateway.readBack([providerUuid]);
  return mirrored(gateway, providerUuid);
}

/** An inventory as Placement's JSON has it; omitted fields stay omitted (Placement's defaults). */
function inventoryFields(i: InventoryInput) {
  return Object.fromEntries(
    Object.entries({ total: i.total, reserved: i.reserved, min_unit: i.minUnit, max_unit: i.maxUnit, step_size: i.stepSize, allocation_ratio: i.allocationRatio }).filter(([, v]) => v != null),
  );
}

async function setProviderTraits(gateway: Gateway, input: SetProviderTraitsInput): Promise<ProviderRow> {
  await through(gateway, { provider: input.providerUuid, generation: input.generation }, () =>
    gateway.write('PUT', `/resource_providers/${input.providerUuid}/traits`, { resource_provider_generation: input.generation, traits: input.traits }),
  );
  await gateway.readBack([input.providerUuid]);
  return mirrored(gateway, input.providerUuid);
}

async function setProviderAggregates(gateway: Gateway, input: SetProviderAggregatesInput): Promise<ProviderRow> {
  await through(gateway, { provider: input.providerUuid, generation: input.generation ?? undefined }, () =>
    // Without a generation, Placement's older form: the list alone, which leaves the generation as it is.
    input.generation === null
      ? gateway.write('PUT', `/resource_providers/${input.providerUuid}/aggregates`, input.aggregates, '1.18')
      : gateway.write('PUT', `/resource_providers/${input.providerUuid}/aggregates`, { resource_provider_generation: input.generation, aggregates: input.aggregates }),
  );
  await gateway.readBack([input.providerUuid]);
  return mirrored(gateway, input.providerUuid);
}

async function createProvider(gateway: Gateway, input: CreateProviderInput): Promise<ProviderRow> {
  const body: Record<string, unknown> = { name: input.name };
  if (input.uuid) body.uuid = input.uuid;
  if (input.parentUuid) body.parent_provider_uuid = input.parentUuid;
  const created = await through(gateway, { kind: 'resource provider', key: input.name }, () => gateway.write<any>('POST', '/resource_providers', body));
  await gateway.readBack([created.uuid]);
  return mirrored(gateway, created.uuid);
}

async function updateProvider(gateway: Gateway, input: UpdateProviderInput): Promise<ProviderRow> {
  const current = await through(gateway, { provider: input.uuid }, () => gateway.write<any>('GET', `/resource_providers/${input.uuid}`));
  const body = {
    name: input.name ?? current.name,
    parent_provider_uuid: input.parentUuid === undefined ? current.parent_provider_uuid : input.parentUuid,
  };
  // Before 1.37 Placement refuses to move a provider that has a parent: the write is sent at 1.36 then.
  await through(gateway, { provider: input.uuid, key: input.name ?? undefined }, () => gateway.write('PUT', `/resource_providers/${input.uuid}`, body, input.allowReparenting === false ? '1.36' : undefined));
  // Moving a provider moves its subtree: every provider of the old and new tree is read back.
  const trees = all<{ uuid: string }>(gateway.db, 'SELECT uuid FROM resource_providers WHERE root_id = (SELECT root_id FROM resource_providers WHERE uuid = ?)', input.uuid).map((r) => r.uuid);
  await gateway.readBack([input.uuid, ...trees]);
  return mirrored(gateway, input.uuid);
}

async function deleteProvider(gateway: Gateway, uuid: string): Promise<ProviderRow> {
  const before = mirrored(gateway, uuid);
  await through(gateway, { provider: uuid }, () => gateway.write('DELETE', `/resource_providers/${uuid}`));
  await gateway.readBack([uuid]);
  return before;
}

async function setAllocations(gateway: Gateway, input: SetAllocationsInput): Promise<string[]> {
  const allocations = Object.fromEntries(
    input.allocations.map((a) => [a.providerUuid, { resources: Object.fromEntries(a.resources.map((r) => [r.resourceClass, r.amount])) }]),
  );
  const body: Record<string, unknown> = {
    allocations,
    project_id: input.projectId,
    user_id: input.userId,
    consumer_generation: input.consumerGeneration,
  };
  // Required from 1.38; the same default as standalone mode.
  if (Number(gateway.client.microversion.split('.')[1]) >= 38) body.consumer_type = input.consumerType ?? 'INSTANCE';
  const before = providersOfConsumer(gateway, input.consumerUuid);
  await through(gateway, { consumer: input.consumerUuid, consumerGeneration: input.consumerGeneration }, () =>
    gateway.write('PUT', `/allocations/${input.consumerUuid}`, body),
  );
  const touched = [...new Set([...before, ...Object.keys(allocations)])];
  await gateway.readBack(touched, [input.consumerUuid]);
  return touched;
}

async function deleteAllocations(gateway: Gateway, consumerUuid: string): Promise<string[]> {
  const before = providersOfConsumer(gateway, consumerUuid);
  await through(gateway, { consumer: consumerUuid, kind: 'consumer', key: `consumerUuid=${consumerUuid}` }, () => gateway.write('DELETE', `/allocations/${consumerUuid}`));
  await gateway.readBack(before, [consumerUuid]);
  return before;
}

/** One consumer's allocations as Placement's request body has them at 1.minor (what was not given stays out). */
function consumerBody(c: ConsumerAllocations, minor: number): Record<string, unknown> {
  const amounts = (resources: { resourceClass: string; amount: number }[]) => Object.fromEntries(resources.map((r) => [r.resourceClass, r.amount]));
  const body: Record<string, unknown> = {
    allocations:
      minor >= 12
        ? Object.fromEntries(c.allocations.map((a) => [a.providerUuid, { resources: amounts(a.resources) }]))
        : c.allocations.map((a) => ({ resource_provider: { uuid: a.providerUuid }, resources: amounts(a.resources) })),
  };
  if (c.projectId !== null) Object.assign(body, { project_id: c.projectId, user_id: c.userId });
  if (c.consumerGeneration !== undefined) body.consumer_generation = c.consumerGeneration;
  if (c.consumerType) body.consumer_type = c.consumerType;
  return body;
}

/** The providers whose usage a consumer's new allocations change: those it held (in the mirror) and those it will hold. */
const touchedBy = (gateway: Gateway, consumers: readonly ConsumerAllocations[]) =>
  new Map(consumers.map((c) => [c.consumerUuid, [...new Set([...providersOfConsumer(gateway, c.consumerUuid), ...c.allocations.map((a) => a.providerUuid)])]]));

/** PUT /allocations/{consumer} or POST /allocations, at the microversion the client asked for, then read back. */
async function writeAllocations(gateway: Gateway, input: WriteAllocationsInput): Promise<AllocationsWritten> {
  const touched = touchedBy(gateway, input.consumers);
  const version = `1.${input.minor}`;
  const [first] = input.consumers;
  await through(gateway, { consumer: first.consumerUuid, consumerGeneration: first.consumerGeneration ?? null }, () =>
    input.several
      ? gateway.write('POST', '/allocations', Object.fromEntries(input.consumers.map((c) => [c.consumerUuid, consumerBody(c, input.minor)])), version)
      : gateway.write('PUT', `/allocations/${first.consumerUuid}`, consumerBody(first, input.minor), version),
  );
  await gateway.readBack(
    [...touched.values()].flat(),
    input.consumers.map((c) => c.consumerUuid),
  );
  return { consumers: input.consumers.map((c) => ({ consumerUuid: c.consumerUuid, consumer: consumerByUuid(gateway.db, c.consumerUuid) ?? null, providerUuids: touched.get(c.consumerUuid)! })) };
}

/** POST /reshaper at the client's microversion, then every provider and consumer it names read back. */
async function reshape(gateway: Gateway, input: ReshapeInput) {
  const touched = touchedBy(gateway, input.allocations);
  const body = {
    inventories: Object.fromEntries(
      input.inventories.map((p) => [p.providerUuid, { resource_provider_generation: p.generation, inventories: Object.fromEntries(p.inventories.map((i) => [i.resourceClass, inventoryFields(i)])) }]),
    ),
    allocations: Object.fromEntries(input.allocations.map((c) => [c.consumerUuid, consumerBody(c, input.minor)])),
  };
  const [first] = input.inventories;
  await through(gateway, { provider: first?.providerUuid, generation: first?.generation }, () => gateway.write('POST', '/reshaper', body, `1.${input.minor}`));
  const providerUuids = input.inventories.map((p) => p.providerUuid);
  await gateway.readBack(
    [...providerUuids, ...[...touched.values()].flat()],
    input.allocations.map((c) => c.consumerUuid),
  );
  return { providerUuids, consumers: input.allocations.map((c) => ({ consumerUuid: c.consumerUuid, providerUuids: touched.get(c.consumerUuid)! })) };
}

async function createName(gateway: Gateway, table: 'traits' | 'resource_classes', name: string): Promise<boolean> {
  const created = await gatewayPutName(gateway, table, name);
  await refreshNames(gateway, table);
  return created;
}

async function deleteName(gateway: Gateway, table: 'traits' | 'resource_classes', name: string): Promise<void> {
  const kind = table === 'traits' ? 'trait' : 'resource class';
  await through(gateway, { kind, key: `name=${name}` }, () => gateway.write('DELETE', `/${table}/${encodeURIComponent(name)}`));
  await refreshNames(gateway, table);
}

async function renameResourceClass(gateway: Gateway, input: RenameResourceClassInput) {
  // From 1.7 a PUT creates the class it names; the rename is the older form.
  await through(gateway, { kind: 'resource class', key: `name=${input.name}` }, () =>
    gateway.write('PUT', `/resource_classes/${encodeURIComponent(input.name)}`, { name: input.newName }, '1.6'),
  );
  await refreshNames(gateway, 'resource_classes');
  return resourceClassByName(gateway.db, input.newName)!;
}

async function gatewayPutName(gateway: Gateway, table: 'traits' | 'resource_classes', name: string): Promise<boolean> {
  const kind = table === 'traits' ? 'trait' : 'resource class';
  const existed = await gateway.client.call('GET', `/${table}/${encodeURIComponent(name)}`).then(
    () => true,
    () => false,
  );
  await through(gateway, { kind, key: `name=${name}` }, () => gateway.write('PUT', `/${table}/${encodeURIComponent(name)}`));
  return !existed;
}

async function refreshNames(gateway: Gateway, table: 'traits' | 'resource_classes') {
  const answer = await gateway.client.call<any>('GET', `/${table}`);
  const list = answer?.[table];
  // The write is made: an answer that is not a list leaves the names to the next refresh, which says why.
  if (!Array.isArray(list)) return;
  // Judged as a refresh judges them (the next one records what is skipped).
  const names = acceptNames(table === 'traits' ? list : list.map((c) => c?.name), table === 'traits' ? 'trait' : 'resource class', new Skipped());
  syncNames(gateway.db, table, names);
}

function providersOfConsumer(gateway: Gateway, consumerUuid: string): string[] {
  const consumer = consumerByUuid(gateway.db, consumerUuid);
  if (!consumer) return [];
  return all<{ uuid: string }>(
    gateway.db,
    'SELECT DISTINCT rp.uuid FROM allocations a JOIN resource_providers rp ON rp.id = a.resource_provider_id WHERE a.consumer_id = ?',
    consumer.id,
  ).map((r) => r.uuid);
}

/**
 * Provider config through the gateway: planned on the mirror, then written provider by provider,
 * each with the generation the plan read. Placement has no transaction across providers, so a
 * refusal half-way stops the apply: the providers done so far keep their changes (and their
 * provenance records), the refusal says which they are, and the same apply run again plans only
 * what is left and converges.
 */
async function applyProviderConfig(gateway: Gateway, input: ApplyConfigInput): Promise<ConfigPlan> {
  const plan = gateway.db.transaction(() => checkedPlan(gateway.db, input));
  if (plan.dryRun || plan.errors.length > 0) return plan;
  for (const name of plan.newTraits) await through(gateway, { kind: 'trait', key: `name=${name}` }, () => gateway.write('PUT', `/traits/${encodeURIComponent(name)}`));
  for (const name of plan.newResourceClasses) {
    await through(gateway, { kind: 'resource class', key: `name=${name}` }, () => gateway.write('PUT', `/resource_classes/${encodeURIComponent(name)}`));
  }
  if (plan.newTraits.length) await refreshNames(gateway, 'traits');
  if (plan.newResourceClasses.length) await refreshNames(gateway, 'resource_classes');
  const changed = plan.providers.filter(isChanged);
  const next = plannedState(gateway.db, changed);
  const done: typeof changed = [];
  try {
    for (const p of changed) {
      const uuid = p.provider.uuid;
      const { inventories, traits } = next.get(p.provider.id)!;
      let generation = p.generation;
      const subject = { provider: uuid, generation, generationField: 'expectedGenerations' };
      if (p.addInventories.length || p.changeInventories.length || p.removeInventories.length) {
        const answer = await through(gateway, subject, () =>
          gateway.write<any>('PUT', `/resource_providers/${uuid}/inventories`, {
            resource_provider_generation: generation,
            inventories: Object.fromEntries([...inventories].map(([rc, f]) => [rc, inventoryFields({ resourceClass: rc, ...f })])),
          }),
        );
        generation = answer.resource_provider_generation;
      }
      if (p.addTraits.length || p.removeTraits.length) {
        await through(gateway, { ...subject, generation }, () => gateway.write('PUT', `/resource_providers/${uuid}/traits`, { resource_provider_generation: generation, traits }));
      }
      done.push(p);
    }
  } catch (error) {
    if (done.length) await settle(gateway, done);
    if (error instanceof DomainError && done.length) {
      error.message = `${error.message} Applied before the refusal: ${done.map((p) => `${p.provider.name} (${p.provider.uuid})`).join(', ')}; nothing on the others. Run the same apply again to finish it.`;
    }
    throw error;
  }
  await settle(gateway, done, plan.providers);
  plan.applied = true;
  return plan;
}

/** Reads back the providers written, then records what the documents set (on `recorded`, those written by default). */
async function settle(gateway: Gateway, written: ConfigPlan['providers'], recorded = written) {
  await gateway.readBack(written.map((p) => p.provider.uuid));
  gateway.db.transaction(() => recordProvenance(gateway.db, recorded));
}

/** Placement's own operations, made in Placement and read back. */
function throughPlacement(gateway: Gateway) {
  const db = gateway.db;
  return {
    createProvider: (input: CreateProviderInput) => createProvider(gateway, input),
    updateProvider: (input: UpdateProviderInput) => updateProvider(gateway, input),
    deleteProvider: (uuid: string) => deleteProvider(gateway, uuid),
    setInventories: (input: SetInventoriesInput) => setInventories(gateway, input),
    setInventory: (input: SetInventoryInput) => setInventory(gateway, input),
    addInventory: (input: AddInventoryInput) => addInventory(gateway, input),
    updateInventory: (input: UpdateInventoryInput) => updateInventory(gateway, input),
    deleteInventory: (input: DeleteInventoryInput) => deleteInventory(gateway, input),
    deleteInventories: (providerUuid: string) => deleteInventories(gateway, providerUuid),
    setProviderTraits: (input: SetProviderTraitsInput) => setProviderTraits(gateway, input),
    deleteProviderTraits: (providerUuid: string) => deleteProviderTraits(gateway, providerUuid),
    renameResourceClass: (input: RenameResourceClassInput) => renameResourceClass(gateway, input),
    setProviderAggregates: (input: SetProviderAggregatesInput) => setProviderAggregates(gateway, input),
    setAllocations: async (input: SetAllocationsInput) => {
      const providerUuids = await setAllocations(gateway, input);
      return { consumer: consumerByUuid(db, input.consumerUuid) ?? null, providerUuids };
    },
    deleteAllocations: async (consumerUuid: string) => ({ providerUuids: await deleteAllocations(gateway, consumerUuid) }),
    writeAllocations: (input: WriteAllocationsInput) => writeAllocations(gateway, input),
    reshape: (input: ReshapeInput) => reshape(gateway, input),
    createTrait: async (name: string) => {
      const created = await createName(gateway, 'traits', name);
      return { trait: traitByName(db, name)!, created };
    },
    deleteTrait: async (name: string) => {
      const trait = traitByName(db, name) ?? { id: 0, name, standard: false };
      await deleteName(gateway, 'traits', name);
      return trait;
    },
    createResourceClass: async (name: string) => {
      const created = await createName(gateway, 'resource_classes', name);
      return { resourceClass: resourceClassByName(db, name)!, created };
    },
    deleteResourceClass: async (name: string) => {
      const resourceClass = resourceClassByName(db, name) ?? { id: 0, name, standard: false };
      await deleteName(gateway, 'resource_classes', name);
      return resourceClass;
    },
    applyProviderConfig: (input: ApplyConfigInput) => applyProviderConfig(gateway, input),
  } satisfies Partial<Writes>;
}

const SERVICE_NAMES = { compute: 'Nova', image: 'Glance', baremetal: 'Ironic' } as const;

/**
 * The write port in gateway mode. Placement's operations go through Placement; the data of Nova,
 * Glance and Ironic is changed here only while that service is not mirrored (a node's provider,
 * which is Placement's, never is).
 */
export function gatewayWrites(gateway: Gateway, feed: ChangeFeed): Writes {
  const local = localWrites(gateway.db, feed);
  const upstream: Partial<Record<OperationName, (input: never) => Promise<unknown>>> = throughPlacement(gateway);
  const writes: Partial<Record<OperationName, (input: never) => Promise<unknown>>> = {};
  for (const name of Object.keys(OPERATIONS) as OperationName[]) {
    const through = upstream[name];
    if (through) {
      writes[name] = async (input: never) => {
        const result = await through(input);
        publish(feed, eventsOf(name, result as never, input));
        return result;
      };
      continue;
    }
    const { owner, placementToo } = ownerOf(name);
    writes[name] = async (input: never) => {
      const url = owner ? await gateway.services.url(owner.service) : null;
      if (owner && url) {
        throw new NotAvailableHere(`${name} is not available in gateway mode: ${owner.what} are mirrored from ${SERVICE_NAMES[owner.service]} at ${url}; ${owner.use}`, owner.service);
      }
      if (!owner || placementToo) {
        throw new NotAvailableHere(
          `${name} is not available in gateway mode: this server mirrors Placement at ${gateway.status().url}, and the change would be lost at the next refresh. Make it in the service that owns the data.`,
        );
      }
      return local[name](input);
    };
  }
  return writes as Writes;
}
