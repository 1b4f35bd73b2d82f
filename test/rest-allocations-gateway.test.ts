// Allocations and the reshaper through /placement in gateway mode, against the real Placement 8.0.0
// (Debian's placement-api; skipped when it is not installed): PUT /allocations/{consumer} at an old
// microversion, POST /allocations and POST /reshaper are made in Placement at the client's
// microversion and read back, so that the mirror then answers what Placement answers; a write
// Placement refuses is answered as Placement answered it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placementInstalled, startPlacement, type Service } from '../bench/services.js';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { Gateway } from '../src/mirror/gateway.js';
import { fixedTokenSession } from '../src/upstream/session.js';
import { tempDbFile } from './helpers.js';

const installed = placementInstalled();

const ROOT_RP = 'c0000000-0000-4000-8000-000000000001';
const CHILD_RP = 'c0000000-0000-4000-8000-000000000002';
const HELD = 'a0000000-0000-4000-8000-000000000001';
const OLD = 'a0000000-0000-4000-8000-000000000002';
const NEW1 = 'a0000000-0000-4000-8000-000000000003';
const NEW2 = 'a0000000-0000-4000-8000-000000000004';
const SCENARIO = {
  providers: [
    { uuid: ROOT_RP, name: 'cn1', parent: null },
    { uuid: CHILD_RP, name: 'cn1-numa0', parent: ROOT_RP },
  ],
  inventories: { [ROOT_RP]: { VCPU: { total: 8 }, DISK_GB: { total: 100 } } },
  allocations: { [HELD]: { [ROOT_RP]: { VCPU: 2, DISK_GB: 10 } } },
  consumers: { [HELD]: { project_id: 'p', user_id: 'u', consumer_type: 'INSTANCE' } },
};

let placement: Service;
let node: NodeServer;
let ours: string;
let gateway: Gateway;

function send(base: string, method: string, path: string, minor: number, body?: unknown): Promise<{ status: number; body: string }> {
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

/** The same read from both: the mirror must answer what Placement answers. */
async function sameRead(path: string, minor = 39) {
  const theirs = await send(placement.url, 'GET', path, minor);
  expect(theirs.status).toBe(200);
  expect((await send(ours, 'GET', path, minor)).body).toBe(theirs.body);
}

beforeAll(async () => {
  if (!installed) return;
  const dir = mkdtempSync(join(tmpdir(), 'rest-allocations-gateway-'));
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify(SCENARIO));
  placement = await startPlacement(dir, join(dir, 'scenario.json'), join(dir, 'snapshot.sqlite'));
  const db = openDatabase(tempDbFile());
  gateway = new Gateway(db, fixedTokenSession(placement.url, 'admin'), { interval: 3600, retryDelayMs: 1 });
  await gateway.refresh();
  node = createNodeServer(createServer({ db, gateway, maskErrors: false }));
  ours = await new Promise((resolve) => node.http.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(node.http.address() as AddressInfo).port}/placement`)));
}, 120_000);

afterAll(async () => {
  gateway?.stop();
  await node?.stop(100, 0);
  await placement?.stop();
});

describe.skipIf(!installed)('allocations and the reshaper through /placement in gateway mode, against Placement 8.0.0', () => {
  it('PUT /allocations at 1.7 (no project, the list form) and at 1.28 (a consumer generation) are made in Placement and read back', async () => {
    const put = { allocations: [{ resource_provider: { uuid: ROOT_RP }, resources: { VCPU: 1 } }] };
    expect((await send(ours, 'PUT', `/allocations/${OLD}`, 7, put)).status).toBe(204);
    await sameRead(`/allocations/${OLD}`, 38);
    expect(JSON.parse((await send(ours, 'GET', `/allocations/${OLD}`, 38)).body)).toMatchObject({ project_id: '00000000-0000-0000-0000-000000000000', consumer_type: 'unknown' });

    const stale = { allocations: { [ROOT_RP]: { resources: { VCPU: 2 } } }, project_id: 'p', user_id: 'u', consumer_generation: 7 };
    const refused = await send(ours, 'PUT', `/allocations/${OLD}`, 28, stale);
    expect(refused.status).toBe(409);
    expect(refused).toEqual(await send(placement.url, 'PUT', `/allocations/${OLD}`, 28, stale));
    expect((await send(ours, 'PUT', `/allocations/${OLD}`, 28, { ...stale, consumer_generation: 1 })).status).toBe(204);
    await sameRead(`/allocations/${OLD}`, 38);
    await sameRead(`/resource_providers/${ROOT_RP}/allocations`);
  }, 60_000);

  it('POST /allocations writes several consumers at once; an over-capacity one is refused as Placement refuses it', async () => {
    const both = {
      [NEW1]: { allocations: { [ROOT_RP]: { resources: { VCPU: 1 } } }, project_id: 'p', user_id: 'u', consumer_generation: null, consumer_type: 'MIGRATION' },
      [NEW2]: { allocations: { [ROOT_RP]: { resources: { DISK_GB: 5 } } }, project_id: 'p', user_id: 'u2', consumer_generation: null, consumer_type: 'INSTANCE' },
    };
    const tooMuch = { ...both, [NEW2]: { ...both[NEW2], allocations: { [ROOT_RP]: { resources: { DISK_GB: 500 } } } } };
    const refused = await send(ours, 'POST', '/allocations', 38, tooMuch);
    expect(refused.status).toBe(409);
    expect(refused).toEqual(await send(placement.url, 'POST', '/allocations', 38, tooMuch));
    expect((await send(ours, 'POST', '/allocations', 38, both)).status).toBe(204);
    await sameRead(`/allocations/${NEW1}`, 38);
    await sameRead(`/allocations/${NEW2}`, 38);
    await sameRead('/usages?project_id=p', 38);
  }, 60_000);

  it('POST /reshaper moves inventory and allocations to a child in Placement; a stale generation is refused as Placement refuses it', async () => {
    const root = JSON.parse((await send(placement.url, 'GET', `/resource_providers/${ROOT_RP}`, 39)).body).generation;
    const consumer = JSON.parse((await send(placement.url, 'GET', `/allocations/${HELD}`, 39)).body);
    const body = (generation: number) => ({
      inventories: {
        [ROOT_RP]: { resource_provider_generation: generation, inventories: { DISK_GB: { total: 100 } } },
        [CHILD_RP]: { resource_provider_generation: 0, inventories: { VCPU: { total: 8 } } },
      },
      allocations: {
        [HELD]: { allocations: { [ROOT_RP]: { resources: { DISK_GB: 10 } }, [CHILD_RP]: { resources: { VCPU: 2 } } }, project_id: 'p', user_id: 'u', consumer_generation: consumer.consumer_generation, consumer_type: 'INSTANCE' },
        [OLD]: { allocations: { [CHILD_RP]: { resources: { VCPU: 2 } } }, project_id: 'p', user_id: 'u', consumer_generation: 2, consumer_type: 'INSTANCE' },
        [NEW1]: { allocations: { [CHILD_RP]: { resources: { VCPU: 1 } } }, project_id: 'p', user_id: 'u', consumer_generation: 1, consumer_type: 'MIGRATION' },
      },
    });
    const stale = await send(ours, 'POST', '/reshaper', 38, body(root - 1));
    expect(stale.status).toBe(409);
    expect(stale).toEqual(await send(placement.url, 'POST', '/reshaper', 38, body(root - 1)));
    expect((await send(ours, 'POST', '/reshaper', 38, body(root))).status).toBe(204);
    for (const rp of [ROOT_RP, CHILD_RP]) {
      await sameRead(`/resource_providers/${rp}`);
      await sameRead(`/resource_providers/${rp}/inventories`);
      await sameRead(`/resource_providers/${rp}/allocations`);
    }
    for (const c of [HELD, OLD, NEW1]) await sameRead(`/allocations/${c}`, 38);
  }, 60_000);
});

if (!installed) console.info("test/rest-allocations-gateway.test.ts skipped: Debian's placement-api is not installed (apt-get install python3-placement)");
