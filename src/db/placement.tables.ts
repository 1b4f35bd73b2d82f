// The tables of Placement itself: providers, classes, traits, aggregates, inventories, consumers and
// allocations. Every foreign key and every filtered column has an index.
import { sql } from 'drizzle-orm';
import { sqliteTable, integer, text, real, index, uniqueIndex, primaryKey } from 'drizzle-orm/sqlite-core';

export const resourceClasses = sqliteTable('resource_classes', {
  id: integer('id').primaryKey(),
  name: text('name').notNull().unique(),
  standard: integer('standard', { mode: 'boolean' }).notNull().default(false),
});

export const traits = sqliteTable('traits', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  standard: integer('standard', { mode: 'boolean' }).notNull().default(false),
});

export const resourceProviders = sqliteTable(
  'resource_providers',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    uuid: text('uuid').notNull().unique(),
    name: text('name').notNull().unique(),
    generation: integer('generation').notNull().default(0),
    parentId: integer('parent_id').references((): any => resourceProviders.id),
    rootId: integer('root_id').references((): any => resourceProviders.id),
    createdAt: text('created_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
    updatedAt: text('updated_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [index('resource_providers_parent_idx').on(t.parentId), index('resource_providers_root_idx').on(t.rootId)],
);

export const inventories = sqliteTable(
  'inventories',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    providerId: integer('resource_provider_id')
      .notNull()
      .references(() => resourceProviders.id),
    resourceClassId: integer('resource_class_id')
      .notNull()
      .references(() => resourceClasses.id),
    total: integer('total').notNull(),
    reserved: integer('reserved').notNull().default(0),
    minUnit: integer('min_unit').notNull().default(1),
    maxUnit: integer('max_unit').notNull().default(2147483647),
    stepSize: integer('step_size').notNull().default(1),
    allocationRatio: real('allocation_ratio').notNull().default(1.0),
  },
  (t) => [
    uniqueIndex('inventories_provider_class_uq').on(t.providerId, t.resourceClassId),
    index('inventories_class_idx').on(t.resourceClassId),
  ],
);

export const providerTraits = sqliteTable(
  'provider_traits',
  {
    providerId: integer('resource_provider_id')
      .notNull()
      .references(() => resourceProviders.id),
    traitId: integer('trait_id')
      .notNull()
      .references(() => traits.id),
  },
  (t) => [primaryKey({ columns: [t.providerId, t.traitId] }), index('provider_traits_trait_idx').on(t.traitId)],
);

export const aggregates = sqliteTable('aggregates', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  uuid: text('uuid').notNull().unique(),
});

export const providerAggregates = sqliteTable(
  'provider_aggregates',
  {
    providerId: integer('resource_provider_id')
      .notNull()
      .references(() => resourceProviders.id),
    aggregateId: integer('aggregate_id')
      .notNull()
      .references(() => aggregates.id),
  },
  (t) => [primaryKey({ columns: [t.providerId, t.aggregateId] }), index('provider_aggregates_aggregate_idx').on(t.aggregateId)],
);

export const consumers = sqliteTable(
  'consumers',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    uuid: text('uuid').notNull().unique(),
    projectId: text('project_id').notNull(),
    userId: text('user_id').notNull(),
    // NULL: no type, as Placement records a consumer written before microversion 1.38 (shown as `unknown`).
    consumerType: text('consumer_type'),
    generation: integer('generation').notNull().default(0),
  },
  (t) => [
    index('consumers_project_idx').on(t.projectId),
    index('consumers_user_idx').on(t.userId),
    index('consumers_type_idx').on(t.consumerType),
  ],
);

export const allocations = sqliteTable(
  'allocations',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    providerId: integer('resource_provider_id')
      .notNull()
      .references(() => resourceProviders.id),
    consumerId: integer('consumer_id')
      .notNull()
      .references(() => consumers.id),
    resourceClassId: integer('resource_class_id')
      .notNull()
      .references(() => resourceClasses.id),
    used: integer('used').notNull(),
  },
  (t) => [
    index('allocations_provider_class_idx').on(t.providerId, t.resourceClassId),
    index('allocations_consumer_idx').on(t.consumerId),
    index('allocations_class_idx').on(t.resourceClassId),
  ],
);
