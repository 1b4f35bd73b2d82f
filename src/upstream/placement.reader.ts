// Reading a live Placement whole, as cheaply as its API allows. Placement has no change feed and no
// paging: the provider listing gives every generation in one answer, and a generation moves on
// inventory, trait, aggregate and allocation writes, but not on DELETE /allocations/{consumer} nor
// on the provider a consumer moved away from. So a refresh re-reads inventories, traits and
// aggregates only where the generation moved, and re-reads the allocations of every provider
// that has inventory (the only way to see usage go down).
import type { PlacementClient } from './placement.client.js';
import { UpstreamError } from './placement.client.js';

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
  type: string;
  generation: number;
}

/** What the mirror knew after its last refresh: generations, which providers have inventory, consumers. */
export interface KnownState {
  generations: Map<string, number>;
  withInventory: Set<string>;
  consumerGenerations: Map<string, number>;
}

export interface PlacementState {
  providers: UpstreamProvider[];
  traits: string[];
  resourceClasses: string[];
  /** Only providers whose generation moved (or new ones). */
  details: Map<string, ProviderDetail>;
  /** Every provider with inventory: consumer -> class -> amount. */
  allocations: Map<string, Map<string, Record<string, number>>>;
  /** Consumers new or changed since the last refresh; the others keep what the mirror has. */
  consumers: Map<string, ConsumerMeta>;
  /** Consumers seen in this refresh, with their generation. */
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
  const details = new Map<string, ProviderDetail>();
  const allocations = new Map<string, Map<string, Record<string, number>>>();
  const seenConsumers = new Map<string, number>();
  const progress = { done: 0, total: providers.length, requests: client.requestCount };
  const tick = () => {
    progress.done++;
    progress.requests = client.requestCount;
    onProgress?.(progress);
  };

  await Promise.all(
    providers.map(async (p) => {
      try {
        let hasInventory = known.withInventory.has(p.uuid);
        if (known.generations.get(p.uuid) !== p.generation) {
          const detail = await readDetail(client, p.uuid);
          details.set(p.uuid, detail);
          hasInventory = Object.keys(detail.inventories).length > 0;
        }
        if (hasInventory) {
          const held = await client.call<{ allocations: Record<string, { resources: Record<string, number>; consumer_generation?: number }> }>(
            'GET',
            `/resource_providers/${p.uuid}/allocations`,
          );
          const byConsumer = new Map<string, Record<string, number>>();
          for (const [consumer, a] of Object.entries(held.allocations)) {
            byConsumer.set(consumer, a.resources);
            seenConsumers.set(consumer, a.consumer_generation ?? 0);
          }
          allocations.set(p.uuid, byConsumer);
        }
      } catch (error) {
        // Deleted since the listing: the next refresh will not list it.
        if (!(error instanceof UpstreamError && error.status === 404)) throw error;
        details.delete(p.uuid);
        allocations.delete(p.uuid);
      }
      tick();
    }),
  );

  const consumers = new Map<string, ConsumerMeta>();
  await Promise.all(
    [...seenConsumers].map(async ([uuid, generation]) => {
      if (known.consumerGenerations.get(uuid) === generation) return;
      try {
        const c = await client.call<any>('GET', `/allocations/${uuid}`);
        consumers.set(uuid, { project: c.project_id, user: c.user_id, type: c.consumer_type ?? 'INSTANCE', generation: c.consumer_generation ?? generation });
      } catch (error) {
        if (!(error instanceof UpstreamError && error.status === 404)) throw error;
      }
    }),
  );

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

export async function readDetail(client: PlacementClient, uuid: string): Promise<ProviderDetail> {
  const [inv, traits, aggs] = await Promise.all([
    client.call<{ inventories: Record<string, UpstreamInventory> }>('GET', `/resource_providers/${uuid}/inventories`),
    client.call<{ traits: string[] }>('GET', `/resource_providers/${uuid}/traits`),
    client.call<{ aggregates: string[] }>('GET', `/resource_providers/${uuid}/aggregates`),
  ]);
  return { inventories: inv.inventories, traits: traits.traits, aggregates: aggs.aggregates };
}
