// The OpenStack client itself (python-openstackclient with osc-placement, Debian's) pointed at
// placement-gql's /placement, holding the demo cloud: its provider, inventory, usage, trait, allocation and candidate commands
// print what it printed against the real Placement 8.0.0 holding the same cloud (test/golden/osc).
// `--os-auth-type admin_token --os-token admin` is what noauth2 wants; `--os-auth-type none` sends the
// token "notused", a caller without roles, refused as Placement refuses it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { createServer } from '../src/server.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { demoCloud, fixture, tempDbFile } from './helpers.js';
import { comparable, parse } from './osc-compare.js';

const OPENSTACK = '/usr/bin/openstack';
const available = existsSync(OPENSTACK);
const golden: { cases: { args: string[]; stdout: string; stderr: string; status: number }[] } = fixture('golden/osc/osc-placement.json');

// Every command recorded: providers, inventories, traits, usages, allocations and allocation candidates.
const CASES = [
  'resource provider list',
  'resource provider list --resource VCPU=8 --required HW_CPU_X86_AVX2',
  'resource provider list --required HW_CPU_X86_AVX2,HW_CPU_X86_AVX --forbidden CUSTOM_LICENSED_WINDOWS',
  'resource provider list --member-of ec299c0e-295e-5892-9d78-9bdd5c38c819',
  'resource provider list --in-tree fb291677-1a37-5b59-8a1b-8c257bb4e41e',
  'resource provider list --uuid 84d7bdab-7a38-57d4-b3cc-9ac008009065 -f json',
  'resource provider list --resource FOO=1',
  'resource provider show 00000000-0000-0000-0000-000000000000',
  'resource provider inventory list 84d7bdab-7a38-57d4-b3cc-9ac008009065 -f json',
  'resource provider inventory show 6a8f40e8-5319-5d5e-8a89-ecb6de64c990 VGPU',
  'trait list --name startswith:HW_CPU_X86_AV --associated',
  'resource provider trait list 6a8f40e8-5319-5d5e-8a89-ecb6de64c990 -f json',
  'resource provider usage show 6a8f40e8-5319-5d5e-8a89-ecb6de64c990',
  'resource provider show 6a8f40e8-5319-5d5e-8a89-ecb6de64c990 --allocations -f json',
  'resource provider allocation show 909035a2-a8e3-5f43-89a7-1f28e11e6e2d',
  'resource provider allocation show 909035a2-a8e3-5f43-89a7-1f28e11e6e2d -f json',
  'resource provider allocation show 00000000-0000-0000-0000-000000000000',
  'resource usage show project-web',
  'resource usage show project-web --user-id demo-user -f json',
  'resource usage show nobody',
  'allocation candidate list --resource VCPU=2 --resource MEMORY_MB=1024',
  'allocation candidate list --resource VCPU=2 --resource DISK_GB=10 --required HW_CPU_X86_AVX2 -f json',
  'allocation candidate list --resource VCPU=1 --forbidden CUSTOM_LICENSED_WINDOWS --member-of ec299c0e-295e-5892-9d78-9bdd5c38c819',
  'allocation candidate list --group 1 --resource VCPU=2 --group 2 --resource SRIOV_NET_VF=1 --group-policy isolate',
  'allocation candidate list --resource VCPU=1 --limit 2',
  'allocation candidate list --resource VCPU=100000',
  'allocation candidate list --resource FOO=1',
  'allocation candidate list --resource VCPU=1 --limit 0',
  'allocation candidate list --required HW_CPU_X86_AVX2',
];

let node: NodeServer;
let endpoint: string;

beforeAll(async () => {
  if (!available) return;
  const db = openDatabase(tempDbFile());
  importSnapshot(db, demoCloud());
  node = createNodeServer(createServer({ db, maskErrors: false }));
  endpoint = await new Promise((resolve) => node.http.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(node.http.address() as AddressInfo).port}/placement`)));
});
afterAll(() => node?.stop(100, 0));

function openstack(args: string[], auth = ['--os-auth-type', 'admin_token', '--os-token', 'admin']): Promise<{ stdout: string; stderr: string; status: number }> {
  return new Promise((resolve) => {
    execFile(
      OPENSTACK,
      [...auth, '--os-endpoint', endpoint, '--os-placement-api-version', '1.39', ...args],
      { env: { PATH: '/usr/bin:/bin', COLUMNS: '1000', LANG: 'C.UTF-8', HOME: '/nonexistent' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ stdout, stderr, status: error ? ((error.code as number) ?? 1) : 0 }),
    );
  });
}

describe.skipIf(!available)('the openstack client (osc-placement) against /placement', () => {
  it(
    'prints what it printed against Placement 8.0.0',
    async () => {
      // A few at a time: each command starts a Python interpreter.
      const results: { line: string; ours: Awaited<ReturnType<typeof openstack>> }[] = [];
      for (let i = 0; i < CASES.length; i += 4) results.push(...(await Promise.all(CASES.slice(i, i + 4).map(async (line) => ({ line, ours: await openstack(line.split(' ')) })))));
      for (const { line, ours } of results) {
        const recorded = golden.cases.find((c) => c.args.join(' ') === line)!;
        expect(ours.status, `${line}: ${ours.stderr}`).toBe(recorded.status);
        if (recorded.status !== 0) {
          expect(ours.stderr, line).toBe(recorded.stderr);
          continue;
        }
        const json = recorded.args.includes('json');
        if (recorded.args.includes('--limit')) {
          // Which candidates a limit keeps follows the order of Placement's candidates; how many is the same.
          const requests = (text: string) => new Set(parse(text, json).rows.map((r) => r['#'])).size;
          expect(requests(ours.stdout), line).toBe(requests(recorded.stdout));
          continue;
        }
        expect(comparable(ours.stdout, json), line).toEqual(comparable(recorded.stdout, json));
      }
    },
    300_000,
  );

  it('refuses --os-auth-type none as noauth2 does: its token "notused" has no role', async () => {
    const ours = await openstack(['resource', 'provider', 'list'], ['--os-auth-type', 'none']);
    expect(ours).toMatchObject({ status: 1, stderr: 'Policy does not allow placement:resource_providers:list to be performed. (HTTP 403)\n' });
  }, 60_000);
});

if (!available) console.info(`test/rest-osc.test.ts skipped: ${OPENSTACK} is missing (apt-get install python3-openstackclient python3-osc-placement)`);
