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
    throw new BackupError(`${file} is not a readable SQLite database: ${(error as Error).message}`);
  }
  if (problems.length !== 1 || problems[0] !== 'ok') throw new BackupError(`${file} fails integrity_check: ${problems.slice(0, 5).join('; ')}`);
}

/**
 * Copies the live database `source` to the new file `target`, then checks the copy. The copy is made as
 * `target.partial` and renamed once checked, so a backup cut short (a kill, a full disk) never leaves a
 * file under the backup's name.
 */
export async function backupDatabase(source: string, target: string): Promise<{ pages: number }> {
  if (existsSync(target)) throw new BackupError(`${target} exists; a backup never overwrites a file`);
  const partial = `${target}.partial`;
  // What an earlier cut-short backup to this name left.
  for (const leftover of [partial, `${partial}-journal`]) rmSync(leftover, { force: true });
  const sqlite = new Database(source, { fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 5000');
    const { totalPages } = await sqlite.backup(partial);
    await leavingNoWal(partial, () => requireSound(partial));
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
      const isOurs = backup.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'resource_providers'").get();
      if (!isOurs) throw new BackupError(`${source} is not a placement-gql database (it has no resource_providers table)`);
      const { totalPages } = await backup.backup(target);
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
