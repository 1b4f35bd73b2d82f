// Custom resource classes in snapshots: `resource_classes: [CUSTOM_...]` (created with the others used).
import { all } from '../../db/sql.js';
import { snapshotSection, type CheckContext } from '../snapshot/snapshot.section.js';

export const resourceClassesSection = snapshotSection({
  keys: ['resource_classes'],
  tables: [],
  check(ctx: CheckContext) {
    (ctx.section<unknown[]>('resource_classes', 'array') ?? []).forEach((name, i) => ctx.checkClass(name, `resource_classes.${i}`));
  },
  // The names checked are created by the import, with every other new name, before any section writes.
  write() {},
  export: (db) => ({ resource_classes: all<{ name: string }>(db, 'SELECT name FROM resource_classes WHERE standard = 0 ORDER BY id').map((r) => r.name) }),
});
