// Opening the database: pragmas, migrations, the built-in catalog, and a count of executed statements.
import Database from 'better-sqlite3';
import './native-objects.js';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fileURLToPath } from 'node:url';
import * as schema from './schema.js';
import { CHANGE_LOG_KEPT } from './changes.tables.js';
import { STANDARD_RESOURCE_CLASSES, STANDARD_TRAITS } from '../catalog/index.js';

export type Sqlite = Database.Database;
export type Drizzle = BetterSQLite3Database<typeof schema>;

/** Counts SQL statements executed, for tests and metrics. */
export interface StatementCounter {
  count: number;
}

export interface Db {
  sqlite: Sqlite;
  orm: Drizzle;
  statements: StatementCounter;
  file: string;
  /** Runs fn in one transaction (IMMEDIATE): all or nothing. Waits up to 5 s for the write lock, blocking. */
  transaction<T>(fn: () => T): T;
  /**
   * The same, for a server: while another connection holds the write lock, each attempt waits for it only
   * briefly (blocking) and the attempts are spaced by waits that do not block, so other requests are
   * answered meanwhile; after the last, DatabaseBusy. Nothing is written by an attempt that fails.
   */
  transactionWhenFree<T>(fn: () => T): Promise<T>;
  close(): void;
}

/** Transactions between two prunings of the change log. */
const PRUNE_EVERY = 500;

export const DEFAULT_DB_FILE = './placement.db';

/** How long a blocking wait for the write lock may last (busy_timeout), for the CLI and for one attempt of a server. */
const CLI_LOCK_WAIT_MS = 5_000;
const ATTEMPT_LOCK_WAIT_MS = 25;
/** The waits between a server's attempts: about a second in all before it answers DatabaseBusy. */
const RETRY_DELAYS_MS = [10, 20, 40, 80, 160, 320, 400];

/** Another connection (another process: a worker, a backup, a script) held the write lock through every attempt. */
export class DatabaseBusy extends Error {
  constructor() {
    super('The database is busy: another process holds its write lock. Nothing was changed; retry in a moment.');
  }
}

/** SQLite's answer while another connection holds a lock it needs. */
export const isBusy = (error: unknown) => /^SQLITE_BUSY/.test(String((error as { code?: unknown })?.code));
const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Wraps prepare() so that each execution of a statement is counted. */
function countStatements(sqlite: Sqlite, counter: StatementCounter) {
  const prepare = sqlite.prepare.bind(sqlite);
  (sqlite as any).prepare = (source: string) => {
    const stmt = prepare(source);
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const original = (stmt as any)[method].bind(stmt);
      (stmt as any)[method] = (...args: unknown[]) => {
        counter.count++;
        return original(...args);
      };
    }
    return stmt;
  };
}

export function openDatabase(file: string = DEFAULT_DB_FILE): Db {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`busy_timeout = ${CLI_LOCK_WAIT_MS}`);
  // Foreign keys are off while migrating (table rebuilds), checked afterwards, then on.
  sqlite.pragma('foreign_keys = OFF');
  const orm = drizzle(sqlite, { schema });
  migrate(orm, { migrationsFolder: MIGRATIONS });
  const violations = sqlite.pragma('foreign_key_check') as unknown[];
  if (violations.length > 0) throw new Error(`database ${file} violates foreign keys: ${JSON.stringify(violations.slice(0, 5))}`);
  sqlite.pragma('foreign_keys = ON');
  seedCatalog(sqlite);

  const statements: StatementCounter = { count: 0 };
  countStatements(sqlite, statements);
  let commits = 0;
  const prune = sqlite.prepare('DELETE FROM change_log WHERE seq <= (SELECT MAX(seq) FROM change_log) - ?');
  // Now and then, after a commit outside any transaction: the change log keeps only its newest rows (a
  // cache older than those starts again anyway).
  const pruned = <T>(result: T): T => {
    if (++commits % PRUNE_EVERY === 0 && !sqlite.inTransaction) prune.run(CHANGE_LOG_KEPT);
    return result;
  };
  const db: Db = {
    sqlite,
    orm,
    statements,
    file,
    transaction: <T>(fn: () => T) => pruned(sqlite.transaction(fn).immediate()),
    transactionWhenFree: async <T>(fn: () => T) => {
      for (let attempt = 0; ; attempt++) {
        sqlite.pragma(`busy_timeout = ${ATTEMPT_LOCK_WAIT_MS}`);
        try {
          return pruned(sqlite.transaction(fn).immediate());
        } catch (error) {
          if (!isBusy(error)) throw error;
          if (attempt === RETRY_DELAYS_MS.length) throw new DatabaseBusy();
        } finally {
          sqlite.pragma(`busy_timeout = ${CLI_LOCK_WAIT_MS}`);
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]! * (0.5 + Math.random())));
      }
    },
    // The WAL is folded into the file and emptied first: SQLite removes it only when the last
    // connection closes, and connections closing together (serve --workers) may each see another.
    close: () => {
      if (sqlite.open) sqlite.pragma('wal_checkpoint(TRUNCATE)');
      sqlite.close();
    },
  };
  return db;
}

/**
 * Standard resource classes (id = Placement's index) and standard traits; idempotent. A database that
 * has them all is only read: processes opening it together (serve --workers) need no write lock to start.
 */
function seedCatalog(sqlite: Sqlite) {
  const has = (table: string, names: readonly string[]) =>
    (sqlite.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE name IN (SELECT value FROM json_each(?))`).get(JSON.stringify(names)) as { n: number }).n === names.length;
  if (has('resource_classes', STANDARD_RESOURCE_CLASSES) && has('traits', STANDARD_TRAITS)) return;
  const insertClass = sqlite.prepare('INSERT OR IGNORE INTO resource_classes (id, name, standard) VALUES (?, ?, 1)');
  const insertTrait = sqlite.prepare('INSERT OR IGNORE INTO traits (name, standard) VALUES (?, 1)');
  sqlite.transaction(() => {
    STANDARD_RESOURCE_CLASSES.forEach((name, id) => insertClass.run(id, name));
    for (const name of STANDARD_TRAITS) insertTrait.run(name);
  })();
}
