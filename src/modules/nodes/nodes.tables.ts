// Tables of bare-metal nodes: the node (Ironic's view) and its traits, the source of truth for its provider's traits.
import { sql } from 'drizzle-orm';
import { sqliteTable, integer, text, index, primaryKey } from 'drizzle-orm/sqlite-core';
import { resourceProviders } from '../../db/placement.tables.js';

export const baremetalNodes = sqliteTable(
  'baremetal_nodes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    uuid: text('uuid').notNull().unique(),
    name: text('name').unique(),
    /** As the operator gave it (e.g. baremetal-gold); the provider's class is its normalized form. */
    resourceClass: text('resource_class').notNull(),
    provisionState: text('provision_state').notNull(),
    instanceUuid: text('instance_uuid').unique(),
    /** JSON list of the traits the deployed instance asked for (Ironic's instance_info.traits). */
    instanceTraits: text('instance_traits').notNull().default('[]'),
    /** The node's provider (same uuid); deleting the provider deletes the node. */
    providerId: integer('resource_provider_id')
      .notNull()
      .unique()
      .references(() => resourceProviders.id, { onDelete: 'cascade' }),
    createdAt: text('created_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
    updatedAt: text('updated_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [index('baremetal_nodes_resource_class_idx').on(t.resourceClass), index('baremetal_nodes_provision_state_idx').on(t.provisionState)],
);

/** Names rather than trait ids, as in Ironic: a node keeps its traits even if the catalog loses one. */
export const nodeTraits = sqliteTable(
  'node_traits',
  {
    nodeId: integer('node_id')
      .notNull()
      .references(() => baremetalNodes.id, { onDelete: 'cascade' }),
    trait: text('trait').notNull(),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.trait] }), index('node_traits_trait_idx').on(t.trait)],
);
