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
import type { PlacementClient } from './placement.client.js';
import { UpstreamError } from './placement.client.js';
import { NO_CONSUMER_TYPE } from '../rules/names.js';

export interface UpstreamProvider {
  uuid: string;
  name: string;
  generation: number;
  parent: string | null;
  root: string;
}

export interface UpstreamInventory {
  total: number;
  reserved: number;
  min_unit: number;
  max_unit: number;
  step_size: number;
  allocation_ratio: number;
}

/** Inventories, traits and aggregates of one provider. */
export interface ProviderDetail {
  inventories: Record<string, UpstreamInventory>;
  traits: string[];
  aggregates: string[];
}

export interface ConsumerMeta {
  project: string;
  user: string;
  /** null: no type (Placement shows such a consumer as `unknown` from 1.38). */
  type: string | null;
  generation: number;
}

/** What the mirror knew after its last refresh. */
export interface KnownState {
  generations: Map<string, number>;
  withInventory: Set<string>;
  consumers: Map<string, ConsumerMeta>;
  /** consumer -> provider -> class -> amount. */
  allocations: Map<string, Map<string, Record<string, number>>>;
}

export interface PlacementState {
  providers: UpstreamProvider[];
  traits: string[];
  resourceClasses: string[];
  /** Only providers whose generation moved (or new ones). */
  details: Map<string, ProviderDetail>;
  /** provider -> consumer -> class -> amount, for every provider whose allocations may have changed. */
  allocations: Map<string, Map<string, Record<string, number>>>;
  /** Consumers new or changed since the last refresh; the others keep what the mirror has. */
  consumers: Map<string, ConsumerMeta>;
  /** Every consumer Placement has, with its generation (a full read only). */
  seenConsumers: Map<string, number>;
}

export interface ReadProgress {
  done: number;
  total: number;
  requests: number;
}

export async function readPlacement(client: PlacementClient, known: KnownState, onProgress?: (p: ReadProgress) => void): Promise<PlacementState> {
  const [listing, traitList, classList] = await Promise.all([
    client.call<{ resource_providers: any[] }>('GET', '/resource_providers'),
    client.call<{ traits: string[] }>('GET', '/traits'),
    client.call<{ resource_classes: { name: string }[] }>('GET', '/resource_classes'),
  ]);
  const providers: UpstreamProvider[] = listing.resource_providers.map((p) => ({
    uuid: p.uuid,
    name: p.name,
    generation: p.generation,
    parent: p.parent_provider_uuid ?? null,
    root: p.root_provider_uuid ?? p.uuid,
  }));
  const listed = new Set(providers.map((p) => p.uuid));
  const details = new Map<string, ProviderDetail>();
  // The mirror's allocations, brought up to date step by step: consumer -> provider -> resources.
  const model = new Map([...known.allocations].map(([c, byProvider]) => [c, new Map([...byProvider].filter(([p]) => listed.has(p)))]));
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
  await Promise.all(
    providers.map(async (p) => {
      try {
        if (known.generations.get(p.uuid) === p.generation) return;
        const detail = await readDetail(client, p.uuid, traitsOf ? (traitsOf.get(p.uuid) ?? []) : undefined);
        details.set(p.uuid, detail);
        changedProviders.add(p.uuid);
        for (const byProvider of model.values()) byProvider.delete(p.uuid);
        if (Object.keys(detail.inventories).length === 0) return;
        const held = await client.call<{ allocations: Record<string, { resources: Record<string, number>; consumer_generation?: number }> }>('GET', `/resource_providers/${p.uuid}/allocations`);
        for (const [consumer, a] of Object.entries(held.allocations)) {
          let byProvider = model.get(consumer);
          if (!byProvider) model.set(consumer, (byProvider = new Map()));
          byProvider.set(p.uuid, a.resources);
          seenGenerations.set(consumer, a.consumer_generation ?? 0);
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
    const c = await client.call<any>('GET', `/allocations/${uuid}`);
    const byProvider = new Map<string, Record<string, number>>();
    for (const [provider, a] of Object.entries<any>(c.allocations ?? {})) {
      if (listed.has(provider)) byProvider.set(provider, a.resources);
      changedProviders.add(provider);
    }
    for (const provider of model.get(uuid)?.keys() ?? []) changedProviders.add(provider);
    if (byProvider.size === 0) {
      model.delete(uuid);
      metas.delete(uuid);
      return;
    }
    model.set(uuid, byProvider);
    const meta = consumerMeta(c);
    metas.set(uuid, meta);
    consumers.set(uuid, meta);
  };
  await Promise.all([...seenGenerations].filter(([uuid, g]) => known.consumers.get(uuid)?.generation !== g).map(([uuid]) => rereadConsumer(uuid)));

  // 3. Usage per project, against the mirror so updated: a difference is a consumer deleted
  // unannounced. It is narrowed to the project's users, then the consumers of a user that differs
  // are read again, those whose allocation fits in the difference first, until it is explained.
  const usage = async (project: string, user?: string) => {
    const query = `project_id=${encodeURIComponent(project)}${user ? `&user_id=${encodeURIComponent(user)}` : ''}`;
    return placementTotals((await client.call<{ usages: Record<string, any> }>('GET', `/usages?${query}`)).usages);
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
  for (const [consumer, byProvider] of model) {
    for (const [provider, resources] of byProvider) allocations.get(provider)?.set(consumer, resources);
  }
  const seenConsumers = new Map([...model.keys()].map((c) => [c, metas.get(c)?.generation ?? 0]));
  return {
    providers,
    traits: traitList.traits,
    resourceClasses: classList.resource_classes.map((c) => c.name),
    details,
    allocations,
    consumers,
    seenConsumers,
  };
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

/** Inventories, aggregates and (unless already known) traits of one provider. */
/** A consumer's project, user, type and generation from its GET /allocations/{consumer} answer. */
export function consumerMeta(c: any): ConsumerMeta {
  const type = typeof c.consumer_type === 'string' && c.consumer_type !== NO_CONSUMER_TYPE ? c.consumer_type : null;
  return { project: c.project_id, user: c.user_id, type, generation: c.consumer_generation ?? 0 };
}

export async function readDetail(client: PlacementClient, uuid: string, knownTraits?: string[]): Promise<ProviderDetail> {
  const [inv, traits, aggs] = await Promise.all([
    client.call<{ inventories: Record<string, UpstreamInventory> }>('GET', `/resource_providers/${uuid}/inventories`),
    knownTraits ? { traits: knownTraits } : client.call<{ traits: string[] }>('GET', `/resource_providers/${uuid}/traits`),
    client.call<{ aggregates: string[] }>('GET', `/resource_providers/${uuid}/aggregates`),
  ]);
  return { inventories: inv.inventories, traits: traits.traits, aggregates: aggs.aggregates };
}

/** Every provider's traits from one listing per trait in use (GET /resource_providers?required=T); null when that would cost more than asking each provider. */
async function traitsByProvider(client: PlacementClient, providers: number): Promise<Map<string, string[]> | null> {
  const used = (await client.call<{ traits: string[] }>('GET', '/traits?associated=true')).traits;
  if (used.length >= providers) return null;
  const byProvider = new Map<string, string[]>();
  await Promise.all(
    used.map(async (trait) => {
      const holders = await client.call<{ resource_providers: { uuid: string }[] }>('GET', `/resource_providers?required=${encodeURIComponent(trait)}`);
      for (const { uuid } of holders.resource_providers) byProvider.set(uuid, [...(byProvider.get(uuid) ?? []), trait]);
    }),
  );
  return byProvider;
}
