// A process killed with SIGKILL in the middle of an import leaves the database consistent,
// with the data of committed mutations intact.
import { spawn } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { exportSnapshot, importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { demoCloud, tempDbFile } from './helpers.js';

/** A snapshot of n root providers with inventories and traits: seconds of writing. */
function bigSnapshot(n: number) {
  const uuid = (i: number) => `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const providers = Array.from({ length: n }, (_, i) => ({ uuid: uuid(i), name: `bulk-${i}`, parent: null }));
  return {
    providers,
    inventories: Object.fromEntries(providers.map((p) => [p.uuid, { VCPU: 64, MEMORY_MB: { total: 262144, reserved: 2048 }, DISK_GB: 2000 }])),
    traits: Object.fromEntries(providers.map((p) => [p.uuid, ['COMPUTE_NODE', 'HW_CPU_X86_AVX2', 'CUSTOM_BULK']])),
  };
}

describe('durability', () => {
  it('SIGKILL in the middle of an import changes nothing that was committed', async () => {
    const dbFile = tempDbFile();
    const db = openDatabase(dbFile);
    importSnapshot(db, demoCloud());
    const before = exportSnapshot(db);
    db.close();
    const file = tempDbFile('big.json');
    writeFileSync(file, JSON.stringify(bigSnapshot(60_000)));

    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'import', file, '--db', dbFile], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // The write-ahead log grows once the import's transaction writes: kill it then.
    const wal = `${dbFile}-wal`;
    const started = Date.now();
    let walSize = 0;
    while (Date.now() - started < 60_000) {
      walSize = existsSync(wal) ? statSync(wal).size : 0;
      if (walSize > 4_000_000) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(walSize).toBeGreaterThan(4_000_000);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const reopened = openDatabase(dbFile);
    expect(reopened.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(reopened.sqlite.pragma('foreign_key_check')).toEqual([]);
    expect(exportSnapshot(reopened)).toEqual(before);
    reopened.close();
  });
});
