// Online backup and checked restore of the database file. A plain copy of a WAL database taken
// while the server writes can be torn; SQLite's backup API copies a consistent committed state.
import Database from 'better-sqlite3';
import './native-objects.js';
import { existsSync, renameSync, rmSync } from 'node:fs';

export class BackupError extends Error {}

/** The result of PRAGMA integrity_check: 'ok' or the problems SQLite lists. */
export function integrityOf(file: string): string[] {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (sqlite.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
  } finally {
    sqlite.close();
  }
}

function requireSound(file: string) {
  // A rollback journal beside the file: a write (a copy) was cut before it ended.
  if (existsSync(`${file}-journal`)) throw new BackupError(`${file} is an interrupted copy (${file}-journal is beside it): it is not a backup; take the backup again`);
  let problems: string[];
  try {
    problems = integrityOf(file);
  } catch (error) {
    const why: Record<string, string> = { SQLITE_NOTADB: 'it is not an SQLite database', SQLITE_CORRUPT: 'it is damaged', SQLITE_CANTOPEN: 'it does not exist or cannot be opened' };
    throw new BackupError(`${file} is not a readable SQLite database: ${why[(error as { code?: string }).code ?? ''] ?? 'SQLite cannot read it'}`);
  }
  if (problems.length !== 1 || problems[0] !== 'ok') throw new BackupError(`${file} fails integrity_check: ${problems.slice(0, 5).join('; ')}`);
}

// Written into a backup last, once integrity_check passed: restore takes only a file that has it, so a
// backup cut short at any point (during the copy, the check, or before its rename) is never restored.
const CHECKED = 'placement_gql_backup_checked';

// SQLite starts a backup again when another connection writes between its steps, so steps of 100
// pages may never end while a server keeps writing: once a copy has started again, the rest goes in
// one step. Until then the steps stay small, so a backup of a quiet database yields between them.
const steppedUntilRestart = () => {
  let remaining = Infinity;
  let pagesPerStep = 100;
  return {
    progress: ({ remainingPages }: { remainingPages: number }) => {
      if (remainingPages > remaining) pagesPerStep = 0x7fffffff;
      remaining = remainingPages;
      return pagesPerStep;
    },
  };
};

function writable<T>(file: string, f: (sqlite: Database.Database) => T): T {
  const sqlite = new Database(file, { fileMustExist: true });
  try {
    return f(sqlite);
  } finally {
    sqlite.close();
  }
}

/**
 * Copies the live database `source` to the new file `target`, then checks the copy and marks it checked.
 * The copy is made as `target.partial` and renamed once marked, so a backup cut short (a kill, a full
 * disk) never leaves a file under the backup's name, and what it leaves is not a backup restore takes.
 */
export async function backupDatabase(source: string, target: string): Promise<{ pages: number }> {
  if (existsSync(target)) throw new BackupError(`${target} exists; a backup never overwrites a file`);
  const partial = `${target}.partial`;
  // What an earlier cut-short backup to this name left.
  for (const leftover of [partial, `${partial}-journal`]) rmSync(leftover, { force: true });
  const sqlite = new Database(source, { fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 5000');
    const { totalPages } = await sqlite.backup(partial, steppedUntilRestart());
    await leavingNoWal(partial, () => {
      // A database restored from a backup still carries that backup's mark: it says nothing of this copy.
      writable(partial, (copy) => copy.exec(`DROP TABLE IF EXISTS ${CHECKED}`));
      requireSound(partial);
      writable(partial, (copy) => {
        copy.exec(`CREATE TABLE ${CHECKED} (checked_at TEXT NOT NULL, pages INTEGER NOT NULL)`);
        copy.prepare(`INSERT INTO ${CHECKED} (checked_at, pages) VALUES (?, ?)`).run(new Date().toISOString(), totalPages);
      });
    });
    renameSync(partial, target);
    return { pages: totalPages };
  } finally {
    sqlite.close();
  }
}

/**
 * Whether another process has the database open (a server, a worker, a command running): in WAL mode
 * each connection holds a shared lock on the file, so this connection cannot take the exclusive one.
 */
export function inUse(file: string): boolean {
  if (!existsSync(file)) return false;
  const sqlite = new Database(file, { fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 0');
    sqlite.pragma('locking_mode = EXCLUSIVE');
    sqlite.exec('BEGIN EXCLUSIVE; COMMIT');
    return false;
  } catch (error) {
    // Any other refusal (the file is not a database) is the restore's to judge.
    return (error as { code?: string }).code === 'SQLITE_BUSY';
  } finally {
    sqlite.close();
  }
}

/** Replaces the database `target` with the backup `source`, after checking the backup. The server must be stopped. */
export async function restoreDatabase(source: string, target: string): Promise<{ pages: number }> {
  if (inUse(target)) throw new BackupError(`${target} is in use by another process (a running placement-gql serve?): stop it, then restore`);
  return leavingNoWal(source, async () => {
    requireSound(source);
    const backup = new Database(source, { readonly: true, fileMustExist: true });
    try {
      const has = (table: string) => backup.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
      if (!has('resource_providers')) throw new BackupError(`${source} is not a placement-gql database (it has no resource_providers table)`);
      if (!has(CHECKED)) {
        throw new BackupError(
          `${source} is not a finished backup: placement-gql backup marks a backup once it has copied and checked it, and this file has no mark (a backup cut short leaves such a file, named *.partial). Take the backup again.`,
        );
      }
      const { totalPages } = await backup.backup(target);
      writable(target, (restored) => restored.exec(`DROP TABLE IF EXISTS ${CHECKED}`));
      return { pages: totalPages };
    } finally {
      backup.close();
    }
  });
}

/**
 * Runs `read`, which only reads the database `file`, then removes the -wal and -shm files that reading
 * created: a read-only connection to a WAL database (a backup is one: its header says so) leaves them
 * behind, empty. Those that were there before belong to another connection and stay.
 */
async function leavingNoWal<T>(file: string, read: () => T | Promise<T>): Promise<T> {
  const created = [`${file}-wal`, `${file}-shm`].filter((f) => !existsSync(f));
  try {
    return await read();
  } finally {
    for (const f of created) rmSync(f, { force: true });
  }
}
