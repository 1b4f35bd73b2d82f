// Snapshots: import/export round trip, rejected imports that change nothing, and the CLI.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { exportSnapshot, importSnapshot, SnapshotRejected } from '../src/modules/snapshot/snapshot.service.js';
import { demoCloud, fixture, tempDbFile } from './helpers.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The data part of a snapshot, with Placement's defaults written out, for comparison. */
function normalized(snapshot: any) {
  const full = (inv: any) => ({ reserved: 0, min_unit: 1, max_unit: 2147483647, step_size: 1, allocation_ratio: 1, ...(typeof inv === 'number' ? { total: inv } : inv) });
  const sortObj = (o: any) => Object.fromEntries(Object.entries(o ?? {}).sort(([a], [b]) => a.localeCompare(b)));
  return {
    providers: [...snapshot.providers].map((p: any) => ({ uuid: p.uuid, name: p.name, parent: p.parent ?? null })).sort((a, b) => a.uuid.localeCompare(b.uuid)),
    inventories: sortObj(Object.fromEntries(Object.entries(snapshot.inventories ?? {}).filter(([, v]: any) => Object.keys(v).length).map(([k, v]: any) => [k, sortObj(Object.fromEntries(Object.entries(v).map(([rc, inv]) => [rc, full(inv)])))]))),
    traits: sortObj(Object.fromEntries(Object.entries(snapshot.traits ?? {}).filter(([, v]: any) => v.length).map(([k, v]: any) => [k, [...new Set(v)].sort()]))),
    aggregates: sortObj(Object.fromEntries(Object.entries(snapshot.aggregates ?? {}).filter(([, v]: any) => v.length).map(([k, v]: any) => [k, [...new Set(v)].sort()]))),
    allocations: sortObj(snapshot.allocations),
  };
}

describe('snapshots', () => {
  it('export after import gives back the same data (a generated cloud of 200 roots)', () => {
    const scenario = fixture('./golden/generated/seed4_size200.scenario.json');
    const db = openDatabase(tempDbFile());
    const summary = importSnapshot(db, scenario);
    expect(summary.providers).toBe(scenario.providers.length);
    const exported = exportSnapshot(db);
    expect(normalized(exported)).toEqual(normalized(scenario));
    // And again: importing the export into another database exports identically.
    const again = openDatabase(tempDbFile());
    importSnapshot(again, exported);
    expect(exportSnapshot(again)).toEqual(exported);
  });

  it('rejects a bad snapshot whole, listing every problem, and changes nothing', () => {
    const db = openDatabase(tempDbFile());
    importSnapshot(db, demoCloud());
    const before = exportSnapshot(db);
    const bad = {
      providers: [
        { uuid: U(1), name: 'ok', parent: null },
        { uuid: U(2), name: 'ok', parent: U(99) },
        { uuid: 'nope', name: 'x' },
        { uuid: U(3), name: 'loop-a', parent: U(4) },
        { uuid: U(4), name: 'loop-b', parent: U(3) },
      ],
      inventories: { [U(1)]: { VCPU: { total: 4, reserved: 5 }, bogus: 1, DISK_GB: 10 } },
      traits: { [U(1)]: ['HW_CPU_X86_AVX2', 'lower_case', 'CUSTOM_NEW'] },
      aggregates: { [U(1)]: ['not-a-uuid'] },
      allocations: { [U(50)]: { [U(1)]: { DISK_GB: 11 } }, [U(51)]: { [U(1)]: { MEMORY_MB: 1 } } },
    };
    let problems: { path: string; message: string }[] = [];
    try {
      importSnapshot(db, bad);
    } catch (error) {
      expect(error).toBeInstanceOf(SnapshotRejected);
      problems = (error as SnapshotRejected).problems;
    }
    const paths = problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'providers.1.name',
        'providers.1.parent',
        'providers.2.uuid',
        'inventories.00000000-0000-4000-8000-000000000001.VCPU.reserved',
        'inventories.00000000-0000-4000-8000-000000000001.bogus',
        'traits.00000000-0000-4000-8000-000000000001.1',
        'aggregates.00000000-0000-4000-8000-000000000001.0',
        'allocations.00000000-0000-4000-8000-000000000051.00000000-0000-4000-8000-000000000001.MEMORY_MB',
        'allocations',
      ]),
    );
    expect(problems.some((p) => p.message.includes('parent loop'))).toBe(true);
    expect(problems.find((p) => p.path === 'allocations')!.message).toContain('above its capacity 10');
    expect(exportSnapshot(db)).toEqual(before);
  });

  it('creates the custom classes and traits a snapshot uses', () => {
    const db = openDatabase(tempDbFile());
    importSnapshot(db, {
      providers: [{ uuid: U(1), name: 'ironic-1', parent: null }],
      inventories: { [U(1)]: { CUSTOM_BAREMETAL_GOLD: { total: 1, max_unit: 1 } } },
      traits: { [U(1)]: ['CUSTOM_RAID_5'] },
      custom_traits: ['CUSTOM_UNUSED'],
    });
    const exported = exportSnapshot(db);
    expect(exported.resource_classes).toEqual(['CUSTOM_BAREMETAL_GOLD']);
    expect(exported.custom_traits).toEqual(['CUSTOM_RAID_5', 'CUSTOM_UNUSED']);
  });
});

describe('CLI import and export', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { encoding: 'utf8' });

  it('imports a file into a database and exports it back', () => {
    const dbFile = tempDbFile();
    const imported = cli('import', 'demo/demo-cloud.json', '--db', dbFile);
    expect(imported.status).toBe(0);
    expect(imported.stdout).toContain('"providers":33');
    const exported = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'export', '--db', dbFile], { encoding: 'utf8' }));
    expect(normalized(exported)).toEqual(normalized(demoCloud()));
  });

  it('rejects a bad file with every problem, exit code 2, and changes nothing', () => {
    const dbFile = tempDbFile();
    const file = tempDbFile('bad.json');
    writeFileSync(file, JSON.stringify({ providers: [{ uuid: U(1), name: 'a' }, { uuid: U(2), name: 'a' }], traits: { [U(1)]: ['nope'] } }));
    const result = cli('import', file, '--db', dbFile);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('nothing was changed. 2 problem(s)');
    expect(result.stderr).toContain('providers.1.name');
    expect(result.stderr).toContain('traits.00000000-0000-4000-8000-000000000001.0');
    const exported = JSON.parse(cli('export', '--db', dbFile).stdout);
    expect(exported.providers).toEqual([]);
  });
});
