// osc-placement's read commands compared with what `openstack` (osc-placement 4.0.0) printed
// against the real Placement 8.0.0 holding the demo cloud (test/golden/osc, see its README):
// the same columns, the same rows, the same errors. Placement prints traits, classes and
// candidates in Python's set order, and this cloud was loaded through its API (generations 2-4,
// 0 after a snapshot import without them), so rows are compared as sets, lists inside a cell
// sorted, and generations left out.
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { createServer } from '../src/server.js';
import { nodeListener } from '../src/server/http.js';
import { runOscCommand } from '../src/cli/osc.command.js';
import { demoCloud, fixture, tempDbFile } from './helpers.js';
import { comparable, parse } from './osc-compare.js';

interface Case {
  args: string[];
  stdout: string;
  stderr: string;
  status: number;
}
const golden: { cases: Case[] } = fixture('golden/osc/osc-placement.json');

const dbFile = tempDbFile();
{
  const db = openDatabase(dbFile);
  importSnapshot(db, demoCloud());
  db.close();
}

// The recordings were made at --os-placement-api-version 1.39.
async function run(args: string[], target: string[] = ['--db', dbFile]) {
  let stdout = '';
  let stderr = '';
  const status = await runOscCommand([...args, '--os-placement-api-version', '1.39', ...target], 'unused.db', { out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { stdout, stderr, status };
}

describe('osc-placement read commands against the database file', () => {
  it.each(golden.cases.map((c) => [c.args.join(' '), c] as const))('%s', async (_, recorded) => {
    const ours = await run(recorded.args);
    expect(ours.status).toBe(recorded.status);
    const json = recorded.args.includes('json');
    if (recorded.status !== 0) {
      if (recorded.args.includes('--limit')) {
        // Placement also prints jsonschema's account of the failed rule; the first sentence is the same.
        expect(recorded.stderr.startsWith(ours.stderr.replace(/ \(HTTP 400\)\n$/, ''))).toBe(true);
      } else if (recorded.stderr.startsWith("('")) {
        // osc-placement 4.0.0 prints a Python tuple here (a bug); ours says the same in words.
        expect(ours.stderr).toBe('At least one --resource must be specified.\n');
      } else expect(ours.stderr).toBe(recorded.stderr);
      return;
    }
    expect(ours.stderr).toBe('');
    if (recorded.args.includes('--limit')) {
      // Which candidates a limit keeps is Placement's choice; how many is not.
      expect(new Set(parse(ours.stdout, json).rows.map((r) => r['#'])).size).toBe(new Set(parse(recorded.stdout, json).rows.map((r) => r['#'])).size);
      return;
    }
    expect(comparable(ours.stdout, json)).toEqual(comparable(recorded.stdout, json));
  });

  it('draws the table as openstack does, byte for byte where Placement has no set order', async () => {
    for (const args of [
      ['resource', 'provider', 'list', '--in-tree', 'fb291677-1a37-5b59-8a1b-8c257bb4e41e'],
      ['resource', 'provider', 'inventory', 'list', '6a8f40e8-5319-5d5e-8a89-ecb6de64c990'],
      ['resource', 'provider', 'inventory', 'list', '84d7bdab-7a38-57d4-b3cc-9ac008009065', '-f', 'json'],
      ['resource', 'provider', 'usage', 'show', '6a8f40e8-5319-5d5e-8a89-ecb6de64c990'],
    ]) {
      const recorded = golden.cases.find((c) => c.args.join(' ') === args.join(' '))!;
      const ours = await run(args);
      expect(ours.stdout.replace(/\| +\d \|/g, '| G |'), args.join(' ')).toBe(recorded.stdout.replace(/\| +\d \|/g, '| G |'));
    }
  });

  it('keeps the columns asked for with -c, and prints values alone with -f value', async () => {
    const ours = await run(['resource', 'provider', 'list', '--name', 'compute-01', '-f', 'value', '-c', 'uuid', '-c', 'name']);
    expect(ours).toEqual({ stdout: '6a8f40e8-5319-5d5e-8a89-ecb6de64c990 compute-01\n', stderr: '', status: 0 });
    const bad = await run(['trait', 'list', '-c', 'nom']);
    expect(bad).toMatchObject({ status: 1, stderr: "No recognized column names in ['nom']. Recognized columns are ('name',).\n" });
  });

  it('refuses a missing database file instead of creating one', async () => {
    const ours = await run(['trait', 'list'], ['--db', '/nonexistent/placement.db']);
    expect(ours).toMatchObject({ status: 1, stdout: '' });
    expect(ours.stderr).toContain('no database at /nonexistent/placement.db');
  });

  it('names a bad flag and a bad value in one line, exit 1', async () => {
    expect(await run(['resource', 'provider', 'list', '--bogus'])).toMatchObject({ status: 1, stderr: expect.stringContaining("placement-gql: unknown option '--bogus'") });
    expect(await run(['allocation', 'candidate', 'list', '--resource', 'VCPU'])).toMatchObject({ status: 1, stderr: '--resource VCPU: must be of the form <resource_class>=<value>, the value a whole number\n' });
    expect(await run(['trait', 'list', '-f', 'shell'])).toMatchObject({ status: 1, stderr: expect.stringContaining("argument 'shell' is invalid. Allowed choices are csv, json, table, value, yaml") });
  });
});

describe('osc-placement read commands against a running server (--url, --token)', () => {
  const token = 'reader-token-0123456789';
  let url = '';
  let close = () => {};
  beforeAll(async () => {
    const db = openDatabase(dbFile);
    const yoga = createServer({ db, access: { tokens: new Map([[token, 'reader']]) } });
    const http = createHttpServer(nodeListener(yoga));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    close = () => (http.close(), db.close());
  });
  afterAll(() => close());

  it.each(
    [
      ['resource', 'provider', 'show', '6a8f40e8-5319-5d5e-8a89-ecb6de64c990', '--allocations'],
      ['allocation', 'candidate', 'list', '--resource', 'VCPU=1', '--required', 'HW_CPU_X86_AVX,HW_CPU_X86_AVX512F'],
      ['resource', 'usage', 'show', 'project-web', '-f', 'json'],
      ['resource', 'provider', 'list', '--required', 'HW_NOPE'],
    ].map((args) => [args.join(' '), args] as const),
  )('%s prints what the database file gives', async (_, args) => {
    expect(await run(args, ['--url', url, '--token', token])).toEqual(await run(args));
  });

  it('says when the token is refused or the server cannot be reached', async () => {
    const refused = await run(['trait', 'list'], ['--url', url, '--token', 'wrong-token-0123456789']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/token/i);
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await run(['trait', 'list'], ['--url', `http://127.0.0.1:${port}`]);
    expect(unreachable).toMatchObject({ status: 1, stderr: `cannot reach http://127.0.0.1:${port}/placement: ECONNREFUSED\n` });
  });
});

describe('per-command help', () => {
  it('placement-gql allocation candidate list --help lists its flags, exit 0', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'allocation', 'candidate', 'list', '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: placement-gql allocation candidate list [options]');
    for (const flag of ['--resource', '--required', '--forbidden', '--member-of', '--group', '--group-policy', '--limit', '--url', '--token', '--format']) expect(result.stdout).toContain(flag);
  });
});
