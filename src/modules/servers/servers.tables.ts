// Tables of Nova's servers (gateway mode): the instances behind the allocations, mirrored from
// GET /servers/detail?all_tenants=True, read-only.
import { sqliteTable, text, index } from 'drizzle-orm/sqlite-core';

export const servers = sqliteTable(
  'servers',
  {
    uuid: text('uuid').primaryKey(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    /** The flavor's name (original_name since compute 2.47), else its id. */
    flavor: text('flavor'),
    /** OS-EXT-SRV-ATTR:host; null while unscheduled or when policy hides it. */
    host: text('host'),
    projectId: text('project_id').notNull(),
  },
  (t) => [index('servers_project_idx').on(t.projectId)],
);
