// Looking up trait and resource class names as Placement does: unknown names are a 400.
import type { Db } from '../../db/client.js';
import { all, list } from '../../db/sql.js';
import { RequestRefused } from './errors.js';

export interface ResourceAmount {
  resourceClass: string;
  amount: number;
}

/** Ids of the named traits; unknown names are Placement's "No such trait(s)". */
export function resolveTraitIds(db: Db, names: readonly string[], parameter = 'required'): Map<string, number> {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return new Map();
  const rows = all<{ id: number; name: string }>(db, 'SELECT id, name FROM traits WHERE name IN (SELECT value FROM json_each(?))', list(wanted));
  const ids = new Map(rows.map((r) => [r.name, r.id]));
  const missing = wanted.filter((n) => !ids.has(n));
  if (missing.length > 0) {
    throw new RequestRefused(`Invalid trait(s) in "${parameter}" parameter: No such trait(s): ${missing.join(', ')}.`);
  }
  return ids;
}

/** Ids of the requested resource classes; checks amounts and names as Placement does. */
export function resolveResourceClassIds(db: Db, resources: readonly ResourceAmount[]): Map<string, number> {
  if (resources.length === 0) return new Map();
  for (const { resourceClass, amount } of resources) {
    if (!Number.isInteger(amount) || amount < 1) throw new RequestRefused(`Requested resource ${resourceClass} requires amount >= 1. Got: ${amount}.`);
  }
  const names = [...new Set(resources.map((r) => r.resourceClass))];
  const rows = all<{ id: number; name: string }>(db, 'SELECT id, name FROM resource_classes WHERE name IN (SELECT value FROM json_each(?))', list(names));
  const ids = new Map(rows.map((r) => [r.name, r.id]));
  const missing = names.find((n) => !ids.has(n));
  if (missing) throw new RequestRefused(`Invalid resource class in resources parameter: No such resource class ${missing}.`);
  return ids;
}
