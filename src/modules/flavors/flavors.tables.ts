// Tables of the flavors domain: flavors and their extra specs.
import { sql } from 'drizzle-orm';
import { sqliteTable, integer, text, primaryKey } from 'drizzle-orm/sqlite-core';

export const flavors = sqliteTable('flavors', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  vcpus: integer('vcpus').notNull(),
  memoryMb: integer('memory_mb').notNull(),
  rootGb: integer('root_gb').notNull().default(0),
  ephemeralGb: integer('ephemeral_gb').notNull().default(0),
  swapMb: integer('swap_mb').notNull().default(0),
  isPublic: integer('is_public', { mode: 'boolean' }).notNull().default(true),
  /** Nova's flavor id when the flavor is mirrored from Nova (gateway mode); null for a local flavor. */
  novaId: text('nova_id'),
  createdAt: text('created_at').notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});

// The primary key (flavor_id, key) also serves as the index of the foreign key.
export const flavorExtraSpecs = sqliteTable(
  'flavor_extra_specs',
  {
    flavorId: integer('flavor_id')
      .notNull()
      .references(() => flavors.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: text('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.flavorId, t.key] })],
);
