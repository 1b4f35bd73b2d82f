// A short, bounded load on loopback: no lost update, no failed read.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { exportSnapshot, importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { runLoad } from '../bench/load.js';
import { demoCloud, tempDbFile } from './helpers.js';

describe('concurrent readers and writers over HTTP', () => {
  it('loses no update and fails no read; conflicts come back as data', async () => {
    const db = openDatabase(tempDbFile());
    importSnapshot(db, demoCloud());
    const providers = exportSnapshot(db).providers.slice(0, 3).map((p) => p.uuid);
    const report = await runLoad(db, { readers: 4, writers: 6, seconds: 2, providers });
    expect(report.failedReads).toBe(0);
    expect(report.failedWrites).toBe(0);
    expect(report.lostUpdates).toBe(0);
    expect(report.reads).toBeGreaterThan(0);
    expect(report.writes).toBeGreaterThan(0);
    // Six writers on three providers read-then-write: some of them must have been turned away.
    expect(report.conflicts).toBeGreaterThan(0);
  });
});
