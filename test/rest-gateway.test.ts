// Placement's REST API in gateway mode, against the real Placement 8.0.0 (Debian's placement-api,
// started by bench/placement.py; skipped when it is not installed): a write through /placement is
// made in Placement, at the client's microversion, and read back into the mirror; a write Placement
// refuses is answered as Placement answered it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { Gateway } from '../src/upstream/gateway.js';
import { fixedTokenSession } from '../src/upstream/session.js';
import { tempDbFile } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const installed = existsSync('/usr/bin/placement-api') && spawnSync('/usr/bin/python3', ['-c', 'import placement'], { stdio: 'ignore' }).status === 0;

const RP = 'c0000000-0000-4000-8000-000000000001';
const CONSUMER = 'a0000000-0000-4000-8000-000000000001';
const SCENARIO = {
  providers: [{ uuid: RP, name: 'cn1', parent: null }],
  inventories: { [RP]: { VCPU: { total: 8 }, DISK_GB: { total: 100 } } },
  allocations: { [CONSUMER]: { [RP]: { VCPU: 2 } } },
  consumers: { [CONSUMER]: { project_id: 'p', user_id: 'u', consumer_type: 'INSTANCE' } },
};

let placement: ChildProcess;
let placementUrl: string;
let node: NodeServer;
let ours: string;
let gateway: Gateway;

interface Answer {
  status: number;
  body: string;
}

function send(base: string, method: string, path: string, minor: number, body?: unknown): Promise<Answer> {
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { 'x-auth-token': 'admin', 'openstack-api-version': `placement 1.${minor}`, accept: 'application/json' };
  if (data) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(data.length) });
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8').replace(/req-[0-9a-f-]{36}/g, 'req-<id>') }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

beforeAll(async () => {
  if (!installed) return;
  const dir = mkdtempSync(join(tmpdir(), 'rest-gateway-'));
  const scenario = join(dir, 'scenario.json');
  writeFileSync(scenario, JSON.stringify(SCENARIO));
  placement = spawn('/usr/bin/python3', [join(ROOT, 'bench/placement.py'), '--dir', dir, '--snapshot', join(dir, 'snapshot.sqlite'), '--load', scenario], { stdio: ['pipe', 'pipe', 'ignore'] });
  placementUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    placement.stdout!.on('data', (c) => {
      seen += c;
      const match = seen.match(/ready (http:\/\/\S+)/);
      if (match) resolve(match[1]);
    });
    placement.once('exit', (code) => reject(new Error(`placement.py exited with ${code}`)));
  });
  const db = openDatabase(tempDbFile());
  gateway = new Gateway(db, fixedTokenSession(placementUrl, 'admin'), { interval: 3600, retryDelayMs: 1 });
  await gateway.refresh();
  node = createNodeServer(createServer({ db, gateway, maskErrors: false }));
  ours = await new Promise((resolve) => node.http.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(node.http.address() as AddressInfo).port}/placement`)));
}, 120_000);

afterAll(async () => {
  gateway?.stop();
  await node?.stop(100, 0);
  placement?.stdin?.end();
  placement?.kill('SIGTERM');
});

describe.skipIf(!installed)('/placement in gateway mode, against Placement 8.0.0', () => {
  it('a write is made in Placement and read back; a refused one is answered as Placement answers it', async () => {
    // Refused by Placement for what it alone knows: an inventory in use, removed.
    const generation = JSON.parse((await send(placementUrl, 'GET', `/resource_providers/${RP}`, 39)).body).generation;
    const removal = { resource_provider_generation: generation, inventories: { DISK_GB: { total: 100 } } };
    const refused = await send(ours, 'PUT', `/resource_providers/${RP}/inventories`, 39, removal);
    expect(refused.status).toBe(409);
    expect(refused).toEqual(await send(placementUrl, 'PUT', `/resource_providers/${RP}/inventories`, 39, removal));

    // Made there at the client's microversion: before 1.26 a reserved amount may not equal the total.
    const full = { resource_class: 'MEMORY_MB', total: 1024, reserved: 1024 };
    const old = await send(ours, 'POST', `/resource_providers/${RP}/inventories`, 25, full);
    expect(old.status).toBe(400);
    expect(old.body).toContain('The reserved value is greater than or equal to total.');
    const made = await send(ours, 'POST', `/resource_providers/${RP}/inventories`, 26, full);
    expect(made.status).toBe(201);

    // Read back: the mirror answers what Placement answers.
    const inventories = `/resource_providers/${RP}/inventories`;
    expect((await send(ours, 'GET', inventories, 39)).body).toBe((await send(placementUrl, 'GET', inventories, 39)).body);
    const provider = `/resource_providers/${RP}`;
    expect((await send(ours, 'GET', provider, 39)).body).toBe((await send(placementUrl, 'GET', provider, 39)).body);

    // The aggregates of the older form leave the generation as it is, in Placement too.
    const before = JSON.parse((await send(placementUrl, 'GET', provider, 39)).body).generation;
    expect((await send(ours, 'PUT', `/resource_providers/${RP}/aggregates`, 18, ['b0000000-0000-4000-8000-000000000001'])).status).toBe(200);
    expect(JSON.parse((await send(placementUrl, 'GET', provider, 39)).body).generation).toBe(before);
    expect((await send(ours, 'GET', `${provider}/aggregates`, 39)).body).toBe((await send(placementUrl, 'GET', `${provider}/aggregates`, 39)).body);
  }, 60_000);
});

if (!installed) console.info("test/rest-gateway.test.ts skipped: Debian's placement-api is not installed (apt-get install python3-placement)");
