// Online backups while another connection writes, and restores that check the file first.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { BackupError, backupDatabase, integrityOf, restoreDatabase } from '../src/db/backup.js';
import { createProvider } from '../src/modules/providers/providers.service.js';
import { exportSnapshot, importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { demoCloud, tempDbFile } from './helpers.js';

const providerCount = (file: string) => {
  const db = openDatabase(file);
  try {
    return (db.sqlite.prepare('SELECT count(*) AS n FROM resource_providers').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('backup and restore', () => {
  it('copies a committed state while another connection keeps writing', async () => {
    const live = tempDbFile('live.db');
    const db = openDatabase(live);
    importSnapshot(db, demoCloud());
    const before = providerCount(live);
    let written = 0;
    const writer = setInterval(() => {
      for (let i = 0; i < 20; i++) db.transaction(() => createProvider(db, { name: `written-${written++}` }));
    }, 1);
    const copy = tempDbFile('copy.db');
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      await backupDatabase(live, copy);
    } finally {
      clearInterval(writer);
    }
    expect(integrityOf(copy)).toEqual(['ok']);
    const copied = providerCount(copy);
    expect(copied).toBeGreaterThanOrEqual(before);
    expect(copied).toBeLessThanOrEqual(before + written);
    // A committed state: the providers present are exactly the first ones written, none half-made.
    const names = openDatabase(copy).sqlite.prepare("SELECT name FROM resource_providers WHERE name LIKE 'written-%'").all() as { name: string }[];
    expect(new Set(names.map((r) => r.name))).toEqual(new Set(Array.from({ length: copied - before }, (_, i) => `written-${i}`)));
    db.close();
  });

  it('never overwrites a file, and restore refuses a damaged or foreign file, changing nothing', async () => {
    const live = tempDbFile('live.db');
    const db = openDatabase(live);
    importSnapshot(db, demoCloud());
    const exported = JSON.stringify(exportSnapshot(db));
    db.close();
    const copy = tempDbFile('copy.db');
    await backupDatabase(live, copy);
    await expect(backupDatabase(live, copy)).rejects.toThrow(/exists; a backup never overwrites/);

    const damaged = tempDbFile('damaged.db');
    writeFileSync(damaged, 'not a database at all, just text'.repeat(200));
    await expect(restoreDatabase(damaged, live)).rejects.toBeInstanceOf(BackupError);
    const foreign = tempDbFile('foreign.db');
    const other = new (await import('better-sqlite3')).default(foreign);
    other.exec('CREATE TABLE t (x)');
    other.close();
    await expect(restoreDatabase(foreign, live)).rejects.toThrow(/not a placement-gql database/);
    const after = openDatabase(live);
    expect(JSON.stringify(exportSnapshot(after))).toBe(exported);
    after.close();
  });

  it('restores a backup from the command line: the database exports as it was', () => {
    const live = tempDbFile('live.db');
    const db = openDatabase(live);
    importSnapshot(db, demoCloud());
    const exported = JSON.stringify(exportSnapshot(db));
    db.close();
    const copy = tempDbFile('copy.db');
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { encoding: 'utf8' });
    const backup = cli('backup', copy, '--db', live);
    expect(backup.status).toBe(0);
    expect(backup.stdout).toContain('integrity_check ok');
    // Nothing beside the backup: no .partial, no -wal or -shm of the check.
    expect(readdirSync(dirname(copy))).toEqual([basename(copy)]);
    const target = tempDbFile('restored.db');
    const restore = cli('restore', copy, '--db', target);
    expect(restore.status).toBe(0);
    expect(readdirSync(dirname(copy))).toEqual([basename(copy)]);
    const restored = openDatabase(target);
    expect(JSON.stringify(exportSnapshot(restored))).toBe(exported);
    restored.close();
    expect(cli('restore', tempDbFile('missing.db'), '--db', target).status).toBe(2);
  });

  it('restore refuses a database that another connection has open, and changes nothing', async () => {
    const live = tempDbFile('live.db');
    const db = openDatabase(live);
    importSnapshot(db, demoCloud());
    const copy = tempDbFile('copy.db');
    await backupDatabase(live, copy);
    db.transaction(() => createProvider(db, { name: 'made-after-the-backup' }));
    await expect(restoreDatabase(copy, live)).rejects.toThrow(`${live} is in use by another process (a running placement-gql serve?): stop it, then restore`);
    expect(exportSnapshot(db).providers.some((p) => p.name === 'made-after-the-backup')).toBe(true);
    db.close();
    await restoreDatabase(copy, live);
    expect(providerCount(live)).toBe(33);
  });

  it('restore refuses the database of a running serve --workers 2 in one line; after the stop it restores', async () => {
    const live = tempDbFile('live.db');
    const db = openDatabase(live);
    importSnapshot(db, demoCloud());
    db.close();
    const copy = tempDbFile('copy.db');
    await backupDatabase(live, copy);
    const port = String(20000 + Math.floor(Math.random() * 20000));
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--quiet', '--workers', '2', '--db', live, '--port', port], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        let output = '';
        server.stdout.on('data', (chunk) => (output += chunk).includes('GraphiQL: ') && resolve());
        void exited.then(() => reject(new Error(`serve exited: ${output}`)));
      });
      const created = await fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { createResourceProvider(input: {name: "made-while-serving"}) { __typename } }' }) });
      expect(await created.json()).toEqual({ data: { createResourceProvider: { __typename: 'ResourceProviderPayload' } } });
      const refused = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'restore', copy, '--db', live], { encoding: 'utf8' });
      expect([refused.status, refused.stderr]).toEqual([2, `placement-gql: ${live} is in use by another process (a running placement-gql serve?): stop it, then restore\n`]);
      expect(providerCount(live)).toBe(34);
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
    const restored = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'restore', copy, '--db', live], { encoding: 'utf8' });
    expect(restored.status, restored.stderr).toBe(0);
    expect(providerCount(live)).toBe(33);
  });
});

describe('restore takes only finished backups', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { encoding: 'utf8' });

  it('refuses what a backup cut short during its check leaves (a complete, unchecked copy), changing nothing', async () => {
    const live = tempDbFile('live.db');
    const db = openDatabase(live);
    importSnapshot(db, demoCloud());
    db.close();
    // What backup has done when it is killed during its final check: the copy, not yet checked nor renamed.
    const partial = `${tempDbFile('copy.db')}.partial`;
    const source = new Database(live);
    await source.backup(partial);
    source.close();
    expect(integrityOf(partial)).toEqual(['ok']);
    const target = tempDbFile('target.db');
    const restore = cli('restore', partial, '--db', target);
    expect(restore.status).toBe(2);
    expect(restore.stderr.trim()).toBe(
      `placement-gql: ${partial} is not a finished backup: placement-gql backup marks a backup once it has copied and checked it, and this file has no mark (a backup cut short leaves such a file, named *.partial). Take the backup again.`,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('a restored database does not pass for a backup; a backup of it does', async () => {
    const live = tempDbFile('live.db');
    const db = openDatabase(live);
    importSnapshot(db, demoCloud());
    db.close();
    const copy = tempDbFile('copy.db');
    await backupDatabase(live, copy);
    const restored = tempDbFile('restored.db');
    await restoreDatabase(copy, restored);
    await expect(restoreDatabase(restored, tempDbFile('again.db'))).rejects.toThrow(/is not a finished backup/);
    const second = tempDbFile('second.db');
    await backupDatabase(restored, second);
    await restoreDatabase(second, tempDbFile('again.db'));
    expect(providerCount(restored)).toBe(providerCount(live));
  });

  it('names a file that is not a database without SQLite words', async () => {
    const damaged = tempDbFile('damaged.db');
    writeFileSync(damaged, 'not a database at all, just text'.repeat(200));
    await expect(restoreDatabase(damaged, tempDbFile())).rejects.toThrow(new BackupError(`${damaged} is not a readable SQLite database: it is not an SQLite database`));
  });
});
