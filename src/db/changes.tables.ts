// The change log: which providers changed, and how, written by triggers on the tables whoever writes
// them (a mutation, an import, the mirror, another process on the same file). Caches kept per
// database read it to redo only what changed (src/db/changes.ts).
import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core';

export const changeLog = sqliteTable('change_log', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  /** usage, inventory, traits, aggregates, provider, consumer, names, flavors, or all (a bulk write). */
  kind: text('kind').notNull(),
  /** The provider changed; null for the kinds that concern no provider. */
  providerId: integer('provider_id'),
});

/** One row: while `bulk` is 1 (only ever inside a bulk write's transaction) the triggers write nothing. */
export const changeLogMode = sqliteTable('change_log_mode', {
  id: integer('id').primaryKey(),
  bulk: integer('bulk').notNull().default(0),
});

/** Rows the log keeps (the oldest are pruned now and then by db/client.ts). */
export const CHANGE_LOG_KEPT = 100_000;
