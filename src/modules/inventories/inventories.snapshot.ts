// Inventories in snapshots: `inventories: {provider: {CLASS: total | {total, reserved, min_unit,
// max_unit, step_size, allocation_ratio}}}`, Placement's defaults for the omitted fields.
import { all } from '../../db/sql.js';
import { isObject, kindOf, shown, snapshotSection, type CheckContext, type Report } from '../snapshot/snapshot.section.js';
import { inventoryIssues, upsertInventory, withDefaults, type InventoryFields } from './inventories.service.js';

// An inventory record's fields as the file writes them, and as the inventory rules name them.
const INVENTORY_FIELDS = { total: 'total', reserved: 'reserved', min_unit: 'minUnit', max_unit: 'maxUnit', step_size: 'stepSize', allocation_ratio: 'allocationRatio' } as const;
const FILE_NAMES: Record<string, string> = Object.fromEntries(Object.entries(INVENTORY_FIELDS).map(([file, field]) => [field, file]));

/**
 * The inventory a snapshot record gives (a total, or an object of fields; Placement's defaults for
 * the omitted ones), or null with every problem reported: each field a JSON number, no unknown field,
 * Placement's ranges and the capacity the API can answer. `extra` names other keys the record may hold.
 */
export function checkedInventory(spec: unknown, path: string, problem: Report, extra: string[] = []): InventoryFields | null {
  const record = typeof spec === 'number' ? { total: spec } : spec;
  if (!isObject(record)) {
    problem(path, `must be a total (an integer) or an object {${Object.keys(INVENTORY_FIELDS).join(', ')}} (got ${shown(spec)})`);
    return null;
  }
  let typed = true;
  for (const [key, value] of Object.entries(record)) {
    if (extra.includes(key)) continue;
    if (!Object.hasOwn(INVENTORY_FIELDS, key)) {
      problem(`${path}.${key}`, `is not an inventory field: the fields are ${Object.keys(INVENTORY_FIELDS).join(', ')}`);
      typed = false;
    } else if (typeof value !== 'number') {
      problem(`${path}.${key}`, `must be a JSON number, not ${kindOf(value)} (got ${shown(value)})`);
      typed = false;
    }
  }
  if (record.total === undefined) {
    problem(`${path}.total`, 'is required');
    typed = false;
  }
  if (!typed) return null;
  const fields = withDefaults({
    resourceClass: '',
    total: record.total,
    reserved: record.reserved,
    minUnit: record.min_unit,
    maxUnit: record.max_unit,
    stepSize: record.step_size,
    allocationRatio: record.allocation_ratio,
  });
  const issues = inventoryIssues(fields, path);
  for (const issue of issues) {
    const field = issue.path.slice(path.length + 1);
    problem(`${path}.${FILE_NAMES[field] ?? field}`, issue.message);
  }
  return issues.length ? null : fields;
}

export const inventoriesSection = snapshotSection({
  keys: ['inventories'],
  tables: ['inventories'],
  /** Fills the context's inventories (what allocations are checked against). */
  check(ctx: CheckContext) {
    const inventories = ctx.section<Record<string, unknown>>('inventories', 'object') ?? {};
    for (const [raw, classes] of Object.entries(inventories)) {
      const uuid = ctx.providerKey(raw, `inventories.${raw}`);
      if (!isObject(classes)) {
        ctx.problem(`inventories.${raw}`, 'must be an object {RESOURCE_CLASS: inventory}');
        continue;
      }
      const records = new Map<string, InventoryFields>();
      for (const [rc, spec] of Object.entries(classes)) {
        const path = `inventories.${raw}.${rc}`;
        ctx.checkClass(rc, path);
        const fields = checkedInventory(spec, path, ctx.problem);
        if (fields) records.set(rc, fields);
      }
      if (uuid) ctx.inventories.set(uuid, records);
    }
    return ctx.inventories;
  },
  write({ db, providerIds, classIds }, inventories) {
    for (const [uuid, records] of inventories) for (const [rc, fields] of records) upsertInventory(db, providerIds.get(uuid)!.id, classIds.get(rc)!, fields);
  },
  export(db) {
    const inventories: Record<string, Record<string, InventoryFields & Record<string, number>>> = {};
    for (const r of all<any>(
      db,
      `SELECT rp.uuid, rc.name AS rc, i.total, i.reserved, i.min_unit, i.max_unit, i.step_size, i.allocation_ratio
       FROM inventories i JOIN resource_providers rp ON rp.id = i.resource_provider_id JOIN resource_classes rc ON rc.id = i.resource_class_id ORDER BY rp.id, rc.id`,
    )) {
      const { uuid, rc, ...fields } = r;
      (inventories[uuid] ??= {})[rc] = fields;
    }
    return { inventories };
  },
});
