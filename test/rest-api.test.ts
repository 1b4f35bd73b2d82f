// Placement's REST API as a part of this server: over a real socket beside GraphQL, one write port
// (GraphQL subscribers hear REST writes, and the reverse), the server's bearer tokens in X-Auth-Token
// (a reader reads, an admin writes, anything else is refused as Keystone and Placement refuse it), the
// framing refusals Node's parser would otherwise answer in its own words, and body limits.
import { Agent, request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { demoCloud, tempDbFile } from './helpers.js';

const READER = 'reader-token-0123456789';
const ADMIN = 'admin-token-0123456789ab';
const COMPUTE_01 = '6a8f40e8-5319-5d5e-8a89-ecb6de64c990';

const servers: NodeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop(100, 0)));
});

async function start(options: Partial<Parameters<typeof createServer>[0]> = {}) {
  const db = openDatabase(tempDbFile());
  importSnapshot(db, demoCloud());
  const node = createNodeServer(createServer({ db, maskErrors: false, ...options }));
  servers.push(node);
  const port = await new Promise<number>((resolve) => node.http.listen(0, '127.0.0.1', () => resolve((node.http.address() as AddressInfo).port)));
  return { port, db };
}

function call(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const data = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string; json: () => any }>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: data ? { 'content-type': 'application/json', 'content-length': String(data.length), ...headers } : headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** A GraphQL subscription over server-sent events; its events as they come. */
function subscribe(port: number, query: string) {
  const events: any[] = [];
  let stop = () => {};
  const opened = new Promise<void>((resolve, reject) => {
    const text = JSON.stringify({ query });
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/graphql', method: 'POST', agent: new Agent({ keepAlive: false }), headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(text) } },
      (res) => {
        let buffer = '';
        res.on('data', (c) => {
          buffer += c;
          const blocks = buffer.split('\n\n');
          buffer = blocks.pop()!;
          for (const block of blocks) {
            const data = block.split('\n').find((l) => l.startsWith('data: '));
            if (data) events.push(JSON.parse(data.slice(6)));
          }
        });
        res.on('error', () => {});
        resolve();
      },
    );
    req.on('error', reject);
    stop = () => req.destroy();
    req.end(text);
  });
  return { events, opened, stop: () => stop() };
}

const until = async (done: () => boolean) => {
  const deadline = Date.now() + 10_000;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
};

describe('one write port for both APIs', () => {
  it('GraphQL subscribers hear the writes made through /placement', async () => {
    const { port } = await start();
    const subscription = subscribe(port, 'subscription { providerChanged { kind mutation providerUuid } }');
    await subscription.opened;
    await new Promise((r) => setTimeout(r, 200));
    const admin = { 'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.39' };
    const provider = (await call(port, 'GET', `/placement/resource_providers/${COMPUTE_01}`, admin)).json();
    expect((await call(port, 'PUT', `/placement/resource_providers/${COMPUTE_01}/traits`, admin, { resource_provider_generation: provider.generation, traits: ['COMPUTE_NODE'] })).status).toBe(200);
    expect((await call(port, 'DELETE', `/placement/resource_providers/${COMPUTE_01}/inventories/VGPU`, admin)).status).toBe(404);
    expect((await call(port, 'POST', '/placement/resource_providers', admin, { name: 'made-over-rest', uuid: '00000000-0000-4000-8000-0000000000aa' })).status).toBe(200);
    await until(() => subscription.events.length >= 2);
    subscription.stop();
    expect(subscription.events.map((e) => e.data.providerChanged)).toEqual([
      { kind: 'TRAITS', mutation: 'setProviderTraits', providerUuid: COMPUTE_01 },
      { kind: 'PROVIDER', mutation: 'createResourceProvider', providerUuid: '00000000-0000-4000-8000-0000000000aa' },
    ]);
  });

  it('what GraphQL wrote, /placement reads, and the reverse', async () => {
    const { port } = await start();
    const gql = async (query: string) => (await call(port, 'POST', '/graphql', {}, { query })).json();
    await gql(`mutation { setProviderAggregates(input: {providerUuid: "${COMPUTE_01}", generation: 0, aggregates: ["00000000-0000-4000-8000-0000000000bb"]}) { __typename } }`);
    const aggregates = (await call(port, 'GET', `/placement/resource_providers/${COMPUTE_01}/aggregates`, { 'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.19' })).json();
    expect(aggregates).toEqual({ aggregates: ['00000000-0000-4000-8000-0000000000bb'], resource_provider_generation: 1 });
    expect((await call(port, 'PUT', '/placement/resource_classes/CUSTOM_FROM_REST', { 'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.7' })).status).toBe(201);
    expect((await gql('{ resourceClass(name: "CUSTOM_FROM_REST") { name } }')).data.resourceClass).toEqual({ name: 'CUSTOM_FROM_REST' });
  });
});

describe('the server’s tokens in X-Auth-Token', () => {
  const tokens = new Map([
    [READER, 'reader' as const],
    [ADMIN, 'admin' as const],
  ]);

  it('a reader reads, an admin writes; a reader’s write is refused as Placement’s policy refuses it', async () => {
    const { port } = await start({ access: { tokens } });
    const v = { 'openstack-api-version': 'placement 1.39' };
    expect((await call(port, 'GET', `/placement/resource_providers/${COMPUTE_01}`, { ...v, 'x-auth-token': READER })).status).toBe(200);
    const refused = await call(port, 'PUT', '/placement/traits/CUSTOM_READER', { ...v, 'x-auth-token': READER });
    expect(refused.status).toBe(403);
    expect(refused.json().errors[0]).toMatchObject({ status: 403, title: 'Forbidden', detail: 'Access was denied to this resource.\n\n Policy does not allow placement:traits:update to be performed.  ', code: 'placement.undefined_code' });
    expect((await call(port, 'PUT', '/placement/traits/CUSTOM_ADMIN', { ...v, 'x-auth-token': ADMIN })).status).toBe(201);
  });

  it('no token, or one the server does not know, is refused as Keystone’s middleware refuses it; the root needs none', async () => {
    const { port } = await start({ access: { tokens } });
    for (const headers of [{}, { 'x-auth-token': 'admin' }, { authorization: `Bearer ${ADMIN}` }] as Record<string, string>[]) {
      const refused = await call(port, 'GET', '/placement/resource_providers', headers);
      expect(refused.status).toBe(401);
      expect(refused.json()).toEqual({ error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } });
    }
    expect((await call(port, 'GET', '/placement/')).status).toBe(200);
    expect((await call(port, 'GET', '/placement')).status).toBe(200);
  });
});

describe('requests Node’s parser refuses, and bodies past the limit', () => {
  it('a Content-Length that is no number under /placement gets Placement’s 400; elsewhere Node’s', async () => {
    const { port } = await start();
    const raw = (path: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nx-auth-token: admin\r\nopenstack-api-version: placement 1.23\r\ncontent-type: application/json\r\ncontent-length: hi mom\r\n\r\n{}`),
        );
        let text = '';
        socket.on('data', (c) => (text += c));
        socket.on('close', () => resolve(text));
      });
    const placement = await raw('/placement/resource_providers');
    expect(placement).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(placement).toMatch(/\r\nopenstack-api-version: placement 1\.23\r\n/);
    expect(placement).toMatch(/content-length header must be an integer/);
    expect(placement).toMatch(/"code": "placement.undefined_code"/);
    expect(await raw('/graphql')).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });

  it('a body past the server’s limit is refused with 413 before it is read whole', async () => {
    const { port } = await start({ limits: { maxBodyBytes: 1000 } });
    const answer = await call(port, 'POST', '/placement/resource_providers', { 'x-auth-token': 'admin' }, { name: 'x'.repeat(2000) });
    expect(answer.status).toBe(413);
    expect(answer.json().errors[0]).toMatchObject({ status: 413, title: 'Request Entity Too Large' });
  });
});
