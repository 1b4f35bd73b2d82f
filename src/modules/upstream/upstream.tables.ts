// What the gateway mirrors and from where: the Placement this database is the mirror of, and the
// services beside it (compute, image, baremetal), written by each refresh and read by the audit (an
// offline database says what it holds); and the records of the upstream's answers that were not
// stored because they broke a rule, with why.
import { sqliteTable, integer, text, index } from 'drizzle-orm/sqlite-core';

export const mirroredServices = sqliteTable('mirrored_services', {
  /** placement (the upstream this database mirrors), compute, image, baremetal or servers. */
  service: text('service').primaryKey(),
  /** The endpoint, without credentials or query (placement: what a mirror of another upstream is refused by). */
  url: text('url').notNull(),
  syncedAt: text('synced_at').notNull(),
  /** What the next incremental read starts from (Glance: the newest updated_at seen). */
  cursor: text('cursor'),
  /** Full reads so far (Glance lists everything every Nth refresh to notice deletions). */
  refreshes: integer('refreshes').notNull().default(0),
});

export const mirrorSkipped = sqliteTable(
  'mirror_skipped',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The service that answered it: placement, compute, image or baremetal. */
    source: text('source').notNull(),
    /** provider, inventory, trait, aggregate, resource class, consumer, allocation, flavor, image, node, server. */
    kind: text('kind').notNull(),
    /** Which record, as shown (values quoted and cut short). */
    record: text('record').notNull(),
    /** The rule it breaks, quoting nothing of the answer. */
    reason: text('reason').notNull(),
    /** The provider whose answers held it: its rows are replaced when that provider is read again. */
    provider: text('provider'),
  },
  (t) => [index('mirror_skipped_source_provider_idx').on(t.source, t.provider)],
);
