// Every domain's DataLoaders, created anew for each request.
import type { Db } from './db/client.js';
import { providerLoaders } from './modules/providers/providers.loaders.js';
import { inventoryLoaders } from './modules/inventories/inventories.loaders.js';
import { traitLoaders } from './modules/traits/traits.loaders.js';
import { aggregateLoaders } from './modules/aggregates/aggregates.loaders.js';
import { allocationLoaders } from './modules/allocations/allocations.loaders.js';
import { nodeLoaders } from './modules/nodes/nodes.loaders.js';
import { flavorLoaders } from './modules/flavors/flavors.loaders.js';
import { imageLoaders } from './modules/images/images.loaders.js';
import { providerConfigLoaders } from './modules/provider-config/provider-config.loaders.js';
import { serverLoaders } from './modules/servers/servers.loaders.js';

export function createLoaders(db: Db) {
  return {
    providers: providerLoaders(db),
    inventories: inventoryLoaders(db),
    traits: traitLoaders(db),
    aggregates: aggregateLoaders(db),
    allocations: allocationLoaders(db),
    nodes: nodeLoaders(db),
    flavors: flavorLoaders(db),
    images: imageLoaders(db),
    providerConfig: providerConfigLoaders(db),
    servers: serverLoaders(db),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
