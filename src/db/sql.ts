// Prepared statements, cached per database, and list parameters passed as one JSON value.
import type Database from 'better-sqlite3';
import type { Db } from './client.js';

const caches = new WeakMap<Db, Map<string, Database.Statement>>();

/** The prepared statement for this SQL text (prepared once per database). */
export function statement(db: Db, source: string): Database.Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let stmt = cache.get(source);
  if (!stmt) cache.set(source, (stmt = db.sqlite.prepare(source)));
  return stmt;
}

export function all<T>(db: Db, source: string, ...params: unknown[]): T[] {
  return statement(db, source).all(...params) as T[];
}

export function get<T>(db: Db, source: string, ...params: unknown[]): T | undefined {
  return statement(db, source).get(...params) as T | undefined;
}

export function run(db: Db, source: string, ...params: unknown[]) {
  return statement(db, source).run(...params);
}

/** Writes of usage whose providers are kept in db.usageLog; older ones are forgotten (caches made before them start again). */
const USAGE_LOG = 1000;

/**
 * Runs a write that changes only usage (allocations, consumers, provider generations), and counts its row
 * changes as such. `fn` names, through `touch`, every provider whose usage it changes. A write that throws
 * is not counted as one of usage (caches then start again, whatever it changed).
 */
export function usageWrite<T>(db: Db, fn: (touch: (providerIds: Iterable<number>) => void) => T): T {
  const changes = () => get<{ n: number }>(db, 'SELECT total_changes() AS n')!.n;
  const before = changes();
  const touched = new Set<number>();
  const result = fn((ids) => {
    for (const id of ids) touched.add(id);
  });
  const after = changes();
  if (after > before) {
    db.usageChanges += after - before;
    const log = db.usageLog;
    log.writes.push({ changes: after, providers: [...touched] });
    if (log.writes.length > USAGE_LOG) log.from = log.writes.splice(0, log.writes.length - USAGE_LOG).pop()!.changes;
  }
  return result;
}

/**
 * A list bound as a single parameter: use `IN (SELECT value FROM json_each(?))`,
 * so that one prepared statement serves any number of values.
 */
export const list = (values: readonly unknown[]) => JSON.stringify(values);

/** Groups rows by a key, keeping the order of keys asked for (DataLoader's contract). */
export function groupBy<K, R>(keys: readonly K[], rows: readonly R[], keyOf: (row: R) => K): R[][] {
  const groups = new Map<K, R[]>();
  for (const row of rows) {
    const key = keyOf(row);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(row);
  }
  return keys.map((key) => groups.get(key) ?? []);
}

export function indexBy<K, R>(keys: readonly K[], rows: readonly R[], keyOf: (row: R) => K): (R | undefined)[] {
  const byKey = new Map<K, R>();
  for (const row of rows) byKey.set(keyOf(row), row);
  return keys.map((key) => byKey.get(key));
}
