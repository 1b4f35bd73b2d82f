// A process killed with SIGKILL in the middle of an import leaves the database consistent,
// with the data of committed mutations intact.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** Starts a CLI command, kills it with SIGKILL once its transaction has written `bytes` to the WAL, and waits for it. */
async function killDuringWrite(args: string[], dbFile: string, bytes: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const wal = `${dbFile}-wal`;
  const started = Date.now();
  let walSize = 0;
  while (Date.now() - started < 60_000) {
    walSize = existsSync(wal) ? statSync(wal).size : 0;
    if (walSize > bytes) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(walSize).toBeGreaterThan(bytes);
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

function expectConsistent(dbFile: string, before: unknown) {
  const reopened = openDatabase(dbFile);
  expect(reopened.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(reopened.sqlite.pragma('foreign_key_check')).toEqual([]);
  expect(exportSnapshot(reopened)).toEqual(before);
  reopened.close();
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

    // The write-ahead log grows once the import's transaction writes: kill it then.
    await killDuringWrite(['import', file, '--db', dbFile], dbFile, 4_000_000);
    expectConsistent(dbFile, before);
  });

  it('SIGKILL in the middle of a provider-config apply changes nothing that was committed', async () => {
    const dbFile = tempDbFile();
    const db = openDatabase(dbFile);
    importSnapshot(db, bigSnapshot(40_000));
    const before = exportSnapshot(db);
    db.close();
    const dir = mkdtempSync(join(tmpdir(), 'provider-config-'));
    chmodSync(dir, 0o700);
    const document = join(dir, '10-all.yaml');
    writeFileSync(
      document,
      `meta:\n  schema_version: '1.0'\nproviders:\n  - identification:\n      uuid: $COMPUTE_NODE\n    inventories:\n      additional:\n        - CUSTOM_LLC:\n            total: 22\n    traits:\n      additional: [CUSTOM_P_STATE]\n`,
    );
    chmodSync(document, 0o644);
    await killDuringWrite(['apply-config', dir, '--db', dbFile], dbFile, 2_000_000);
    expectConsistent(dbFile, before);
  });
});
