// Which OpenStack services beside Placement the gateway mirrors (compute, image, baremetal), from
// where, and how far: written by each refresh, read by the audit (an offline database says what it holds).
import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core';

export const mirroredServices = sqliteTable('mirrored_services', {
  /** compute, image or baremetal. */
  service: text('service').primaryKey(),
  url: text('url').notNull(),
  syncedAt: text('synced_at').notNull(),
  /** What the next incremental read starts from (Glance: the newest updated_at seen). */
  cursor: text('cursor'),
  /** Full reads so far (Glance lists everything every Nth refresh to notice deletions). */
  refreshes: integer('refreshes').notNull().default(0),
});
