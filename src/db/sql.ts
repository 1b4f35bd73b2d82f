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
