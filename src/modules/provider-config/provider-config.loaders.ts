// Which provider-config document set each inventory and trait of a provider, batched by provider.
import DataLoader from 'dataloader';
import type { Db } from '../../db/client.js';
import { all, groupBy, list } from '../../db/sql.js';

export interface ConfigSourceRow {
  providerId: number;
  kind: 'INVENTORY' | 'TRAIT';
  name: string;
  document: string;
  appliedAt: string;
}

/**
 * Records that still hold: the inventory still has the values the document wrote, the trait is still there.
 * (An inventory changed by other means since is theirs, and no longer shown as config's.)
 */
export function configSourcesOf(db: Db, providerIds: readonly number[]): ConfigSourceRow[] {
  return all<ConfigSourceRow>(
    db,
    `SELECT c.resource_provider_id AS providerId, 'INVENTORY' AS kind, c.resource_class AS name, c.document, c.applied_at AS appliedAt
     FROM provider_config_inventories c
     JOIN resource_classes rc ON rc.name = c.resource_class
     JOIN inventories i ON i.resource_provider_id = c.resource_provider_id AND i.resource_class_id = rc.id
       AND i.total = c.total AND i.reserved = c.reserved AND i.min_unit = c.min_unit AND i.max_unit = c.max_unit
       AND i.step_size = c.step_size AND i.allocation_ratio = c.allocation_ratio
     WHERE c.resource_provider_id IN (SELECT value FROM json_each(?))
     UNION ALL
     SELECT c.resource_provider_id, 'TRAIT', c.trait, c.document, c.applied_at
     FROM provider_config_traits c
     JOIN traits t ON t.name = c.trait
     JOIN provider_traits pt ON pt.resource_provider_id = c.resource_provider_id AND pt.trait_id = t.id
     WHERE c.resource_provider_id IN (SELECT value FROM json_each(?))
     ORDER BY 1, 2, 3`,
    list(providerIds),
    list(providerIds),
  );
}

export function providerConfigLoaders(db: Db) {
  return {
    /** Config sources of each provider: inventories first, then traits, each by name. */
    sourcesOfProvider: new DataLoader<number, ConfigSourceRow[]>((ids) => Promise.resolve(groupBy(ids, configSourcesOf(db, ids), (r) => r.providerId))),
  };
}
