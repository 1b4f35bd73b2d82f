// Reading a live Placement, as cheaply as its API allows. Placement has no change feed and no
// paging: the provider listing gives every generation in one answer, and a generation moves on
// inventory, trait, aggregate and allocation writes, but not on DELETE /allocations/{consumer}
// nor on the provider a consumer moved away from. So a refresh:
//  1. re-reads inventories, traits, aggregates and allocations only where the generation moved;
//  2. re-reads every consumer seen there with a new consumer generation (a move shows up here:
//     the consumer's whole allocation replaces what the mirror had, on every provider);
//  3. compares each project's usage totals (GET /usages, one request per project) with the mirror
//     updated by 1 and 2: only a decrease nobody announced can make them differ (a deleted
//     consumer), and then that project's consumers are re-read one by one.
// Every record is judged before it is used or stored (placement.records.ts): what cannot be mirrored
// is skipped, with the rule it breaks, into the state's `skipped`.
import type { KnownState, PlacementSource, PlacementState, ReadProgress } from './source.js';
import type { PlacementClient } from '../upstream/placement.client.js';
import { UnexpectedAnswer, UpstreamError } from '../upstream/placement.client.js';
import { isObject, isUuid } from './records.js';
import { acceptConsumer, acceptDetail, acceptHeld, acceptNames, acceptProviders, Skipped, withInventory, type ConsumerMeta, type ProviderDetail } from './placement.records.js';

export type { ConsumerMeta, ProviderDetail, UpstreamInventory, UpstreamProvider } from './placement.records.js';

/** What the mirror knew after its last refresh. */



/** Placement's API as a refresh's source (the client's own requests: Keystone, retries, bounds). */
export const apiSource = (client: PlacementClient): PlacementSource => ({
  read: (known, onProgress) => readPlacement(client, known, onProgress),
  needsKnownAllocations: true,
  close: () => {},
});

export async function readPlacement(client: PlacementClient, known: KnownState, onProgress?: (p: ReadProgress) => void): Promise<PlacementState> {
  const [listing, traitList, classList] = await Promise.all([
    client.call<unknown>('GET', '/resource_providers'),
    client.call<unknown>('GET', '/traits'),
    client.call<unknown>('GET', '/resource_classes'),
  ]);
  const skipped = new Skipped();
  const providers = acceptProviders(listOf(listing, 'resource_providers', '/resource_providers'), skipped);
  const traits = acceptNames(listOf(traitList, 'traits', '/traits'), 'trait', skipped);
  const resourceClasses = acceptNames(
    listOf(classList, 'resource_classes', '/resource_classes').map((c) => (c && typeof c === 'object' ? (c as { name?: unknown }).name : c)),
    'resource class',
    skipped,
  );
  const listed = new Set(providers.map((p) => p.uuid));
  const details = new Map<string, ProviderDetail>();
  // The mirror's allocations, brought up to date step by step: consumer -> provider -> resources.
  // (Consumers with nothing left on a listed provider are gone: no usage of theirs is asked for.)
  const model = new Map(
    [...known.allocations].map(([c, byProvider]) => [c, new Map([...byProvider].filter(([p]) => listed.has(p)))] as const).filter(([, byProvider]) => byProvider.size > 0),
  );
  const metas = new Map(known.consumers);
  const consumers = new Map<string, ConsumerMeta>();
  const changedProviders = new Set<string>();
  const progress = { done: 0, total: providers.length, requests: client.requestCount };
  const tick = () => {
    progress.done++;
    progress.requests = client.requestCount;
    onProgress?.(progress);
  };

  // 1. Providers whose generation moved. When many did (a first sync), their traits come from one
  // listing per trait in use instead of one request per provider.
  const changing = providers.filter((p) => known.generations.get(p.uuid) !== p.generation);
  const traitsOf = changing.length > 50 ? await traitsByProvider(client, changing.length) : null;
  const seenGenerations = new Map<string, number>();
  /** Where each consumer was seen: the provider its skipped records belong to. */
  const seenAt = new Map<string, string>();
  await Promise.all(
    providers.map(async (p) => {
      try {
        if (known.generations.get(p.uuid) === p.generation) return;
        const detail = await readDetail(client, p.uuid, skipped, traitsOf ? (traitsOf.get(p.uuid) ?? []) : undefined);
        details.set(p.uuid, detail);
        changedProviders.add(p.uuid);
        for (const byProvider of model.values()) byProvider.delete(p.uuid);
        if (Object.keys(detail.inventories).length === 0) return;
        const held = await readHeld(client, p.uuid, skipped);
        for (const [consumer, a] of held) {
          let byProvider = model.get(consumer);
          if (!byProvider) model.set(consumer, (byProvider = new Map()));
          byProvider.set(p.uuid, a.resources);
          seenGenerations.set(consumer, a.generation);
          seenAt.set(consumer, p.uuid);
        }
      } catch (error) {
        // Deleted since the listing: the next refresh will not list it.
        if (!(error instanceof UpstreamError && error.status === 404)) throw error;
        details.delete(p.uuid);
      } finally {
        tick();
      }
    }),
  );

  // 2. Consumers that changed: their whole allocation, wherever it is.
  const reread = new Set<string>();
  const rereadConsumer = async (uuid: string) => {
    reread.add(uuid);
    const owner = seenAt.get(uuid) ?? [...(model.get(uuid)?.keys() ?? [])][0] ?? null;
    const c = acceptConsumer(uuid, await client.call<unknown>('GET', `/allocations/${uuid}`), skipped, owner);
    const byProvider = new Map<string, Record<string, number>>();
    for (const [provider, resources] of c?.allocations ?? []) {
      if (listed.has(provider)) byProvider.set(provider, resources);
      changedProviders.add(provider);
    }
    for (const provider of model.get(uuid)?.keys() ?? []) changedProviders.add(provider);
    // No allocations left, or a consumer that cannot be mirrored (skipped whole).
    if (byProvider.size === 0 || !c?.meta) {
      model.delete(uuid);
      metas.delete(uuid);
      return;
    }
    model.set(uuid, byProvider);
    metas.set(uuid, c.meta);
    consumers.set(uuid, c.meta);
  };
  await Promise.all([...seenGenerations].filter(([uuid, g]) => known.consumers.get(uuid)?.generation !== g).map(([uuid]) => rereadConsumer(uuid)));

  // 3. Usage per project, against the mirror so updated: a difference is a consumer deleted
  // unannounced. It is narrowed to the project's users, then the consumers of a user that differs
  // are read again, those whose allocation fits in the difference first, until it is explained.
  const usage = async (project: string, user?: string) => {
    const query = `project_id=${encodeURIComponent(project)}${user ? `&user_id=${encodeURIComponent(user)}` : ''}`;
    const answer = await client.call<{ usages?: unknown }>('GET', `/usages?${query}`);
    if (!isObject(answer?.usages)) throw new UnexpectedAnswer('Placement', 'GET', '/usages', 'has no usages object');
    return placementTotals(answer.usages);
  };
  const members = (project: string, user?: string) => [...model.keys()].filter((c) => metas.get(c)?.project === project && (!user || metas.get(c)?.user === user));
  const projects = new Set([...model.keys()].map((c) => metas.get(c)?.project).filter((p): p is string => !!p));
  await Promise.all(
    [...projects].map(async (project) => {
      if (sameTotals(await usage(project), mirrorTotals(model, members(project)))) return;
      const users = new Set(members(project).map((c) => metas.get(c)!.user));
      await Promise.all(
        [...users].map(async (user) => {
          const delta = difference(mirrorTotals(model, members(project, user)), await usage(project, user));
          const fits = (c: string) => [...consumerTotals(model.get(c)!)].every(([rc, n]) => n <= (delta.get(rc) ?? 0));
          const suspects = members(project, user)
            .filter((c) => !reread.has(c))
            .sort((a, b) => Number(fits(b)) - Number(fits(a)));
          for (const c of suspects) {
            if ([...delta.values()].every((n) => n === 0)) break;
            const before = consumerTotals(model.get(c)!);
            await rereadConsumer(c);
            const after = model.has(c) ? consumerTotals(model.get(c)!) : new Map<string, number>();
            for (const rc of new Set([...before.keys(), ...after.keys()])) delta.set(rc, (delta.get(rc) ?? 0) - (before.get(rc) ?? 0) + (after.get(rc) ?? 0));
          }
        }),
      );
    }),
  );
  for (const [uuid, byProvider] of model) if (byProvider.size === 0) model.delete(uuid);

  const allocations = new Map<string, Map<string, Record<string, number>>>();
  for (const p of changedProviders) if (listed.has(p)) allocations.set(p, new Map());
  const classesOf = (p: string) => (details.has(p) ? new Set(Object.keys(details.get(p)!.inventories)) : (known.inventoryClasses.get(p) ?? new Set<string>()));
  for (const [consumer, byProvider] of model) {
    for (const [provider, resources] of byProvider) {
      const held = allocations.get(provider);
      if (!held) continue;
      // The usage totals above count what Placement counts; only what has a mirrored inventory is stored.
      const kept = withInventory(provider, consumer, resources, classesOf(provider), skipped);
      if (Object.keys(kept).length) held.set(consumer, kept);
    }
  }
  const seenConsumers = new Map([...model.keys()].map((c) => [c, metas.get(c)?.generation ?? 0]));
  return {
    providers,
    traits,
    resourceClasses,
    details,
    allocations,
    consumers,
    seenConsumers,
    skipped: skipped.records,
    judged: { details: new Set(details.keys()), allocations: new Set(allocations.keys()) },
  };
}

/** The list under `key` of a listing's answer; an answer without one is not Placement's. */
function listOf(answer: unknown, key: string, path: string): unknown[] {
  const list = isObject(answer) ? answer[key] : undefined;
  if (!Array.isArray(list)) throw new UnexpectedAnswer('Placement', 'GET', path, `has no ${key} list`);
  return list;
}

/** A provider's allocations (GET /resource_providers/{uuid}/allocations), judged. */
async function readHeld(client: PlacementClient, uuid: string, skipped: Skipped) {
  const answer = await client.call<{ allocations?: unknown }>('GET', `/resource_providers/${uuid}/allocations`);
  return acceptHeld(uuid, isObject(answer) ? answer.allocations : undefined, skipped);
}

/**
 * Reads back what a write touched (the providers, whole; gone ones listed apart) and the consumers
 * asked for or seen there with a new generation; the mirror's other providers stay as they are.
 */
export async function readBack(client: PlacementClient, known: KnownState, providerUuids: Iterable<string>, consumerUuids: Iterable<string>): Promise<{ state: PlacementState; gone: string[]; emptied: string[] }> {
  const skipped = new Skipped();
  const found: unknown[] = [];
  const gone: string[] = [];
  await Promise.all(
    // (A uuid Placement answered a creation with is used in a path only once it is canonical.)
    [...new Set(providerUuids)].filter(isUuid).map(async (uuid) => {
      try {
        found.push(await client.call<unknown>('GET', `/resource_providers/${uuid}`));
      } catch (error) {
        if (!(error instanceof UpstreamError && error.status === 404)) throw error;
        gone.push(uuid);
      }
    }),
  );
  const providers = acceptProviders(found, skipped, known.tree);
  const state: PlacementState = {
    providers,
    traits: [],
    resourceClasses: [],
    details: new Map(),
    allocations: new Map(),
    consumers: new Map(),
    seenConsumers: new Map(),
    skipped: skipped.records,
    judged: { details: new Set(providers.map((p) => p.uuid)), allocations: new Set(providers.map((p) => p.uuid)) },
  };
  const seenAt = new Map<string, string>();
  await Promise.all(
    providers.map(async ({ uuid }) => {
      const detail = await readDetail(client, uuid, skipped);
      const byConsumer = new Map<string, Record<string, number>>();
      for (const [consumer, a] of await readHeld(client, uuid, skipped)) {
        const kept = withInventory(uuid, consumer, a.resources, new Set(Object.keys(detail.inventories)), skipped);
        if (Object.keys(kept).length) byConsumer.set(consumer, kept);
        state.seenConsumers.set(consumer, a.generation);
        seenAt.set(consumer, uuid);
      }
      state.details.set(uuid, detail);
      state.allocations.set(uuid, byConsumer);
    }),
  );
  const emptied: string[] = [];
  const wanted = new Set([...consumerUuids, ...[...state.seenConsumers].filter(([c, g]) => known.consumers.get(c)?.generation !== g).map(([c]) => c)]);
  await Promise.all(
    [...wanted].map(async (uuid) => {
      const c = acceptConsumer(uuid, await client.call<unknown>('GET', `/allocations/${uuid}`), skipped, seenAt.get(uuid) ?? null);
      if (!c) return; // cannot be mirrored: left as the mirror has it
      if (!c.meta) emptied.push(uuid);
      else state.consumers.set(uuid, c.meta);
    }),
  );
  return { state, gone, emptied };
}

/** Class totals of a GET /usages answer: grouped by consumer type from 1.38, flat before. */
function placementTotals(usages: Record<string, any>): Map<string, number> {
  const totals = new Map<string, number>();
  const add = (rc: string, n: number) => n && totals.set(rc, (totals.get(rc) ?? 0) + n);
  for (const [key, value] of Object.entries(usages)) {
    if (typeof value === 'number') add(key, value);
    else for (const [rc, n] of Object.entries<number>(value)) if (rc !== 'consumer_count') add(rc, n);
  }
  return totals;
}

function mirrorTotals(model: Map<string, Map<string, Record<string, number>>>, consumers: string[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const c of consumers) for (const [rc, n] of consumerTotals(model.get(c)!)) totals.set(rc, (totals.get(rc) ?? 0) + n);
  return totals;
}

function consumerTotals(byProvider: Map<string, Record<string, number>>): Map<string, number> {
  const totals = new Map<string, number>();
  for (const resources of byProvider.values()) for (const [rc, n] of Object.entries(resources)) n && totals.set(rc, (totals.get(rc) ?? 0) + n);
  return totals;
}

/** What the mirror holds beyond Placement, per class (what unannounced deletions took away). */
function difference(mirror: Map<string, number>, placement: Map<string, number>): Map<string, number> {
  const delta = new Map<string, number>();
  for (const rc of new Set([...mirror.keys(), ...placement.keys()])) delta.set(rc, (mirror.get(rc) ?? 0) - (placement.get(rc) ?? 0));
  return delta;
}

const sameTotals = (a: Map<string, number>, b: Map<string, number>) => a.size === b.size && [...a].every(([rc, n]) => b.get(rc) === n);

/** Inventories, aggregates and (unless already known) traits of one provider, judged. */
async function readDetail(client: PlacementClient, uuid: string, skipped: Skipped, knownTraits?: string[]): Promise<ProviderDetail> {
  const [inv, traits, aggs] = await Promise.all([
    client.call<{ inventories?: unknown }>('GET', `/resource_providers/${uuid}/inventories`),
    knownTraits ? { traits: knownTraits } : client.call<{ traits?: unknown }>('GET', `/resource_providers/${uuid}/traits`),
    client.call<{ aggregates?: unknown }>('GET', `/resource_providers/${uuid}/aggregates`),
  ]);
  return acceptDetail(uuid, inv?.inventories, traits?.traits, aggs?.aggregates, skipped);
}

/** Every provider's traits from one listing per trait in use (GET /resource_providers?required=T); null when that would cost more than asking each provider. */
async function traitsByProvider(client: PlacementClient, providers: number): Promise<Map<string, string[]> | null> {
  const used = acceptNames(listOf(await client.call<unknown>('GET', '/traits?associated=true'), 'traits', '/traits'), 'trait', new Skipped());
  if (used.length >= providers) return null;
  const byProvider = new Map<string, string[]>();
  await Promise.all(
    used.map(async (trait) => {
      const holders = listOf(await client.call<unknown>('GET', `/resource_providers?required=${encodeURIComponent(trait)}`), 'resource_providers', '/resource_providers');
      for (const holder of holders) {
        const uuid = isObject(holder) && typeof holder.uuid === 'string' ? holder.uuid : null;
        if (uuid) byProvider.set(uuid, [...(byProvider.get(uuid) ?? []), trait]);
      }
    }),
  );
  return byProvider;
}
