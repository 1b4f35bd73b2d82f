// Snapshot import types every field strictly: a number is a JSON number in range, text is valid
// Unicode read from valid UTF-8; every problem is listed with its path and nothing is stored.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot, SnapshotRejected } from '../src/modules/snapshot/snapshot.service.js';
import { tempDbFile } from './helpers.js';

const RP = 'abcdef00-0000-4000-8000-000000000001';
const C1 = 'cccccccc-0000-4000-8000-000000000001';

function problemsOf(snapshot: unknown) {
  const db = openDatabase(tempDbFile());
  let problems: { path: string; message: string }[] | null = null;
  try {
    importSnapshot(db, snapshot);
  } catch (error) {
    if (!(error instanceof SnapshotRejected)) throw error;
    problems = error.problems;
  }
  const stored = db.sqlite.prepare('SELECT (SELECT count(*) FROM resource_providers) + (SELECT count(*) FROM inventories) + (SELECT count(*) FROM flavors) AS n').get();
  expect(stored, 'nothing stored').toEqual({ n: 0 });
  return problems;
}

const withRatio = (ratio: unknown) => ({ providers: [{ uuid: RP, name: 'cn1', parent: null }], inventories: { [RP]: { VCPU: { total: 8, allocation_ratio: ratio } } } });

describe('snapshot import: types', () => {
  it.each([
    ['"2"', '2', 'text'],
    ['[2]', [2], 'a list'],
    ['"0x10"', '0x10', 'text'],
    ['true', true, 'a boolean'],
    ['null', null, 'null'],
    ['{}', {}, 'an object'],
  ])('refuses allocation_ratio %s, naming the path', (shown, ratio, kind) => {
    expect(problemsOf(withRatio(ratio))).toEqual([{ path: `inventories.${RP}.VCPU.allocation_ratio`, message: `must be a JSON number, not ${kind} (got ${shown})` }]);
  });

  it('lists every problem of every section at once, with its path as the file writes it', () => {
    const snapshot = {
      providers: [
        { uuid: RP, name: 'cn1', parent: null, generation: '1' },
        { uuid: 'abcdef00-0000-4000-8000-000000000002', name: 5, parent: 7 },
      ],
      inventories: {
        [RP]: {
          VCPU: { total: '5', reserved: true, min_unit: 1.5, max_unit: 1e20, step_size: -1 },
          MEMORY_MB: { total: 1024, allocaton_ratio: 1.5 },
          DISK_GB: 'ten',
        },
      },
      allocations: { [C1]: { [RP]: { VCPU: '1', MEMORY_MB: 1e12 } } },
      consumers: { 'not-a-uuid': { project_id: 'p'.repeat(256) }, [C1]: { user_id: 3, consumer_type: 'lower', generation: -1 } },
      flavors: [{ name: 'f', vcpus: '2', memory_mb: 1e10, is_public: 'yes' }],
      provider_config: { inventories: { [RP]: { CUSTOM_X: { document: 'a.yaml', total: 1, allocation_ratio: '2' } } }, traits: {} },
    };
    const problems = problemsOf(snapshot)!;
    const inv = `inventories.${RP}`;
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'providers.0.generation', message: 'must be an integer from 0 to 2147483647 (got "1")' },
        { path: 'providers.1.name', message: 'must be a non-empty string of at most 200 characters (got 5)' },
        { path: 'providers.1.parent', message: 'must be a uuid or null (got 7)' },
        { path: `${inv}.VCPU.total`, message: 'must be a JSON number, not text (got "5")' },
        { path: `${inv}.VCPU.reserved`, message: 'must be a JSON number, not a boolean (got true)' },
        { path: `${inv}.MEMORY_MB.allocaton_ratio`, message: 'is not an inventory field: the fields are total, reserved, min_unit, max_unit, step_size, allocation_ratio' },
        { path: `${inv}.DISK_GB`, message: 'must be a total (an integer) or an object {total, reserved, min_unit, max_unit, step_size, allocation_ratio} (got "ten")' },
        { path: `allocations.${C1}.${RP}.VCPU`, message: 'must be an integer from 1 to 2147483647 (got "1")' },
        { path: `allocations.${C1}.${RP}.MEMORY_MB`, message: 'must be an integer from 1 to 2147483647 (got 1000000000000)' },
        { path: 'consumers.not-a-uuid', message: 'not-a-uuid is not a uuid' },
        { path: 'consumers.not-a-uuid.project_id', message: `must be a string of 1 to 255 characters (got "${'p'.repeat(56)}...)` },
        { path: `consumers.${C1}.user_id`, message: 'must be a string of 1 to 255 characters (got 3)' },
        { path: `consumers.${C1}.consumer_type`, message: 'must match ^[A-Z0-9_]+$ and be at most 255 characters' },
        { path: `consumers.${C1}.generation`, message: 'must be an integer from 0 to 2147483647 (got -1)' },
        { path: 'flavors.0.vcpus', message: 'must be an integer from 1 to 2147483647 (got "2")' },
        { path: 'flavors.0.memory_mb', message: 'must be an integer from 1 to 2147483647 (got 10000000000)' },
        { path: 'flavors.0.is_public', message: 'must be true or false' },
        { path: `provider_config.inventories.${RP}.CUSTOM_X.allocation_ratio`, message: 'must be a JSON number, not text (got "2")' },
      ]),
    );
  });

  it('checks the ranges of numbers given as JSON numbers', () => {
    const problems = problemsOf({ providers: [{ uuid: RP, name: 'cn1', parent: null }], inventories: { [RP]: { VCPU: { total: 8, min_unit: 1.5, max_unit: 1e20, step_size: 0 } } } });
    expect(problems).toEqual([
      { path: `inventories.${RP}.VCPU.min_unit`, message: 'must be an integer from 1 to 2147483647 (got 1.5)' },
      { path: `inventories.${RP}.VCPU.max_unit`, message: 'must be an integer from 1 to 2147483647 (got 100000000000000000000)' },
      { path: `inventories.${RP}.VCPU.step_size`, message: 'must be an integer from 1 to 2147483647 (got 0)' },
    ]);
  });
});

describe('snapshot import: text', () => {
  it('refuses a lone surrogate (a \\ud800 escape) in any string or key, naming where', () => {
    const text = JSON.stringify({ providers: [{ uuid: RP, name: 'cn\ud8001', parent: null }], traits: { [RP]: ['CUSTOM_\udc00'] }, custom_traits: [] }).replace('"custom_traits"', '"x\\ud800"');
    const problems = problemsOf(JSON.parse(text));
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'providers.0.name', message: 'is not valid Unicode text: a lone surrogate (\\uD800, which has no UTF-8 form) at character 3' },
        { path: `traits.${RP}.0`, message: 'is not valid Unicode text: a lone surrogate (\\uDC00, which has no UTF-8 form) at character 8' },
        { path: '"x\\ud800"', message: 'the key is not valid Unicode text: a lone surrogate (\\uD800, which has no UTF-8 form) at character 2' },
      ]),
    );
  });
});

describe('placement-gql import: the file', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { encoding: 'utf8' });

  it.each([
    ['bytes that are not UTF-8', Buffer.concat([Buffer.from('{"providers": [{"uuid": "x", "name": "caf'), Buffer.from([0xe9]), Buffer.from('"}]}')]), 'is not UTF-8 text: byte 41 (line 1, column 42) is not part of a UTF-8 character'],
    ['a JSON syntax error', Buffer.from('{\n  "providers": [1,]\n}'), 'is not valid JSON at line 2, column 19: Unexpected token \']\''],
    ['a truncated file', Buffer.from('{"providers": ['), 'is not valid JSON at line 1, column 16: Unexpected end of JSON input'],
  ])('refuses %s in one line, naming where, without a stack or the content; nothing is stored', (_what, bytes, reason) => {
    const file = tempDbFile('snapshot.json');
    writeFileSync(file, bytes);
    const dbFile = tempDbFile();
    const result = cli('import', file, '--db', dbFile);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(`placement-gql: ${file} ${reason}\n`);
    expect(existsSync(dbFile)).toBe(false);
  });

  it('refuses allocation_ratio true with the path, not a crash', () => {
    const file = tempDbFile('snapshot.json');
    writeFileSync(file, JSON.stringify(withRatio(true)));
    const result = cli('import', file, '--db', tempDbFile());
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`inventories.${RP}.VCPU.allocation_ratio: must be a JSON number, not a boolean (got true)`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
