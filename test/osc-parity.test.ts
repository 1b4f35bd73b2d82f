// osc-placement's output formats, microversions and write commands, compared byte for byte with
// what `openstack` (osc-placement 4.0.0) printed against the real Placement 8.0.0 holding the demo
// cloud (test/golden/osc-more, recorded by scripts/golden/osc_commands.py): stdout, stderr and the
// exit status. The write commands run in the recorded order on a fresh copy of the cloud, so each
// one sees what the ones before it wrote, as they did in Placement.
import { spawnSync } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { runOscCommand } from '../src/cli/osc.command.js';
import { createServer } from '../src/server.js';
import { nodeListener } from '../src/server/http.js';
import { demoCloud, fixture, tempDbFile } from './helpers.js';

interface Case {
  args: string[];
  stdout: string;
  stderr: string;
  status: number;
}

function demoDb(): string {
  const file = tempDbFile();
  const db = openDatabase(file);
  importSnapshot(db, demoCloud());
  db.close();
  return file;
}

async function run(args: string[], dbFile: string, target = ['--db', dbFile]) {
  let stdout = '';
  let stderr = '';
  const status = await runOscCommand([...args, ...target], 'unused.db', { out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { stdout, stderr, status };
}

const recorded = (name: string) => (fixture(`golden/osc-more/${name}`) as { cases: Case[] }).cases;
const label = (c: Case) => c.args.join(' ');

describe('read commands: formats, columns, sorting, widths, microversions, ! and in:', () => {
  const dbFile = demoDb();
  it.each(recorded('reads.recorded.json').map((c) => [label(c), c] as const))('%s', async (_, c) => {
    expect(await run(c.args, dbFile)).toEqual({ stdout: c.stdout, stderr: c.stderr, status: c.status });
  });
});

describe('--os-placement-api-version before the command, as openstack takes it', () => {
  it('placement-gql --os-placement-api-version 1.13 resource provider show ... prints what openstack printed', () => {
    const args = ['resource', 'provider', 'show', '6a8f40e8-5319-5d5e-8a89-ecb6de64c990', '--os-placement-api-version', '1.13', '-f', 'json', '-c', 'uuid', '-c', 'name', '-c', 'root_provider_uuid'];
    const c = recorded('reads.recorded.json').find((r) => label(r) === args.join(' '))!;
    const leading = ['--os-placement-api-version', '1.13', ...args.slice(0, 4), ...args.slice(6)];
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...leading, '--db', demoDb()], { encoding: 'utf8', timeout: 60_000 });
    expect({ stdout: result.stdout, stderr: result.stderr, status: result.status }).toEqual({ stdout: c.stdout, stderr: c.stderr, status: c.status });
  });
});

describe('write commands, in order, through the write port', () => {
  it.each(['writes', 'allocations'])('%s: prints what openstack printed, command after command', async (name) => {
    const dbFile = demoDb();
    for (const c of recorded(`${name}.recorded.json`)) expect.soft(await run(c.args, dbFile), label(c)).toEqual({ stdout: c.stdout, stderr: c.stderr, status: c.status });
  });
});

describe('write commands through a running server (--url, --token)', () => {
  const admin = 'admin-token-0123456789';
  const reader = 'reader-token-0123456789';
  const dbFile = demoDb();
  let url = '';
  let close = () => {};
  beforeAll(async () => {
    const db = openDatabase(dbFile);
    const yoga = createServer({ db, access: { tokens: new Map([[admin, 'admin'], [reader, 'reader']]) } });
    const http = createHttpServer(nodeListener(yoga));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    close = () => (http.close(), db.close());
  });
  afterAll(() => close());

  it('prints what openstack printed, the changes made by the server in its database', async () => {
    for (const c of [...recorded('writes.recorded.json'), ...recorded('allocations.recorded.json')])
      expect.soft(await run(c.args, dbFile, ['--url', url, '--token', admin]), label(c)).toEqual({ stdout: c.stdout, stderr: c.stderr, status: c.status });
    // The last command deleted the provider; the server's file says so too.
    expect(await run(['resource', 'provider', 'show', '11111111-2222-3333-4444-555555555555'], dbFile)).toMatchObject({ status: 1 });
  });

  it("refuses a reader's write as Placement's policy does, and changes nothing", async () => {
    expect(await run(['trait', 'create', 'CUSTOM_READER_WROTE'], dbFile, ['--url', url, '--token', reader])).toEqual({
      stdout: '',
      stderr: 'Policy does not allow placement:traits:update to be performed. (HTTP 403)\n',
      status: 1,
    });
    expect(await run(['trait', 'show', 'CUSTOM_READER_WROTE'], dbFile)).toEqual({ stdout: '', stderr: 'No such trait(s): CUSTOM_READER_WROTE. (HTTP 404)\n', status: 1 });
  });
});
