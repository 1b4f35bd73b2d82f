// Provenance of provider config: which document set which inventory and trait of a provider.
// Resource classes and traits by name: a record only holds while the provider still has what it names.
import { sql } from 'drizzle-orm';
import { sqliteTable, integer, text, real, primaryKey } from 'drizzle-orm/sqlite-core';
import { resourceProviders } from '../../db/placement.tables.js';

/**
 * An inventory written by a provider-config document, with the values written: when the provider's
 * inventory no longer has these values, something else changed it and the record no longer holds.
 * The primary key (resource_provider_id, resource_class) also serves as the index of the foreign key.
 */
export const providerConfigInventories = sqliteTable(
  'provider_config_inventories',
  {
    providerId: integer('resource_provider_id')
      .notNull()
      .references(() => resourceProviders.id, { onDelete: 'cascade' }),
    resourceClass: text('resource_class').notNull(),
    document: text('document').notNull(),
    total: integer('total').notNull(),
    reserved: integer('reserved').notNull(),
    minUnit: integer('min_unit').notNull(),
    maxUnit: integer('max_unit').notNull(),
    stepSize: integer('step_size').notNull(),
    allocationRatio: real('allocation_ratio').notNull(),
    appliedAt: text('applied_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [primaryKey({ columns: [t.providerId, t.resourceClass] })],
);

/** A trait added by a provider-config document (traits the provider had already are not recorded). */
export const providerConfigTraits = sqliteTable(
  'provider_config_traits',
  {
    providerId: integer('resource_provider_id')
      .notNull()
      .references(() => resourceProviders.id, { onDelete: 'cascade' }),
    trait: text('trait').notNull(),
    document: text('document').notNull(),
    appliedAt: text('applied_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [primaryKey({ columns: [t.providerId, t.trait] })],
);
