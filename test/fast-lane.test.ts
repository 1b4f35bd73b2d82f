// Plain GraphQL POSTs over a real socket take the fast lane (Node's request straight to Node's response);
// every answer must be what yoga gives for the same request: status, media type and body, errors included.
import { createServer as createHttpServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { nodeListener } from '../src/server/http.js';
import { takesFastLane } from '../src/server/fast-lane.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { demoCloud, fixture, tempDbFile } from './helpers.js';

const ADMIN = 'admin-token-0123456789';
const READER = 'reader-token-0123456789';
const db = openDatabase(tempDbFile());
importSnapshot(db, demoCloud());
const yoga = createServer({ db, access: { tokens: new Map([[ADMIN, 'admin'], [READER, 'reader']]) } });
let http: HttpServer;
let port = 0;

beforeAll(async () => {
  http = createHttpServer(nodeListener(yoga));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

function overHttp(body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; type: string; id: string; text: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), id: String(res.headers['x-request-id']), text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function inProcess(body: string, headers: Record<string, string>) {
  const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers, body });
  return { status: response.status, type: String(response.headers.get('content-type')), text: await response.text() };
}

const uuid = demoCloud().providers[0].uuid;
const CANDIDATES = `query($q: String!) { placementCandidates(query: $q) { __typename ... on RequestError { status message }
  ... on Candidates { count allocationRequests { allocations { provider { uuid } resources { resourceClass amount } } }
  providerSummaries { provider { uuid name parent { uuid name } root { uuid name } } resources { resourceClass capacity used } traits } } } }`;

const cases: [string, object | string, string | null][] = [
  ['a small query', { query: '{ __typename }' }, READER],
  ['one provider', { query: `query($u: UUID!) { resourceProvider(uuid: $u) { uuid name generation parent { uuid } root { uuid } } }`, variables: { u: uuid } }, READER],
  ['candidates written straight to JSON', { query: CANDIDATES, variables: { q: 'resources=VCPU:1,MEMORY_MB:512' } }, READER],
  ['a candidate request Placement refuses', { query: CANDIDATES, variables: { q: 'resources=VCPU:0' } }, READER],
  ['an operation chosen by name', { query: 'query A { __typename } query B { resourceProviders(first: 1) { totalCount } }', operationName: 'B' }, READER],
  ['a field that does not exist', { query: '{ nope }' }, READER],
  ['a document that does not parse', { query: '{ nope ' }, READER],
  ['a variable of the wrong type', { query: 'query($u: UUID!) { resourceProvider(uuid: $u) { name } }', variables: { u: 5 } }, READER],
  ['a missing variable', { query: 'query($u: UUID!) { resourceProvider(uuid: $u) { name } }' }, READER],
  ['no token', { query: '{ __typename }' }, null],
  ['a wrong token', { query: '{ __typename }' }, 'not-a-token-at-all-xx'],
  ['a mutation with a reader token', { query: 'mutation { createTrait(input: {name: "CUSTOM_FAST"}) { __typename } }' }, READER],
  ['a depth past the limit', { query: `{ resourceProviders { nodes { ${'children { '.repeat(20)}name${' }'.repeat(20)} } } }` }, READER],
  ['an unknown key in the body', { query: '{ __typename }', foo: 1 }, READER],
  ['variables that are not an object', { query: '{ __typename }', variables: [1] }, READER],
  ['a body that is not JSON', '{"query": ', READER],
];

describe('the HTTP fast lane', () => {
  it.each(cases)('%s: the same answer as yoga', async (_name, body, token) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const [http, yogaAnswer] = [await overHttp(text, headers), await inProcess(text, headers)];
    expect({ status: http.status, type: http.type, text: http.text }).toEqual(yogaAnswer);
    expect(http.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('echoes the caller\'s request id and counts the operation in the metrics', async () => {
    const before = (await yoga.metrics.render()).match(/operation="Probe"[^\n]*\} (\d+)/)?.[1] ?? '0';
    const answer = await overHttp(JSON.stringify({ query: 'query Probe { __typename }' }), { 'content-type': 'application/json', authorization: `Bearer ${READER}`, 'x-request-id': 'my-request-7' });
    expect(answer.id).toBe('my-request-7');
    const after = (await yoga.metrics.render()).match(/operation="Probe"[^\n]*\} (\d+)/)?.[1];
    expect(Number(after)).toBe(Number(before) + 1);
  });

  it('a mutation with an admin token is applied once', async () => {
    const answer = await overHttp(JSON.stringify({ query: 'mutation { createTrait(input: {name: "CUSTOM_FAST_LANE"}) { __typename ... on TraitPayload { created } } }' }), {
      'content-type': 'application/json',
      authorization: `Bearer ${ADMIN}`,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ data: { createTrait: { __typename: "TraitPayload", created: true } } });
    expect(db.sqlite.prepare("SELECT count(*) AS n FROM traits WHERE name = 'CUSTOM_FAST_LANE'").get()).toEqual({ n: 1 });
  });

  it('leaves to yoga what is not a plain JSON POST: GET, streams, CORS, other media types, no length', () => {
    const req = (method: string, url: string, headers: Record<string, string>) => ({ method, url, headers }) as any;
    const json = { 'content-type': 'application/json', 'content-length': '20' };
    expect(takesFastLane(req('POST', '/graphql', json), 1000)).toBe(true);
    expect(takesFastLane(req('POST', '/graphql', { ...json, accept: 'application/json, text/plain' }), 1000)).toBe(true);
    expect(takesFastLane(req('GET', '/graphql?query={__typename}', {}), 1000)).toBe(false);
    expect(takesFastLane(req('POST', '/graphql', { ...json, accept: 'text/event-stream' }), 1000)).toBe(false);
    expect(takesFastLane(req('POST', '/graphql', { ...json, accept: 'application/graphql-response+json' }), 1000)).toBe(false);
    expect(takesFastLane(req('POST', '/graphql', { ...json, origin: 'http://elsewhere' }), 1000)).toBe(false);
    expect(takesFastLane(req('POST', '/graphql', { 'content-type': 'application/json' }), 1000)).toBe(false);
    expect(takesFastLane(req('POST', '/graphql', { ...json, 'content-length': '2000' }), 1000)).toBe(false);
    expect(takesFastLane(req('POST', '/graphql', { ...json, 'content-type': 'application/graphql' }), 1000)).toBe(false);
  });
});

describe('large answers at once', () => {
  it('each reads whole and right while others are written and sent (answer buffers are reused once sent)', async () => {
    const big = openDatabase(tempDbFile());
    importSnapshot(big, fixture('./golden/generated/seed5_size500.scenario.json'));
    const server = createServer({ db: big, maskErrors: false });
    const listener = createHttpServer(nodeListener(server));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const at = (listener.address() as AddressInfo).port;
    // A client may stop reading for a while (`until`): its answer waits in the server meanwhile.
    const get = (method: string, path: string, headers: Record<string, string>, body?: string, until?: Promise<unknown>) =>
      new Promise<string>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: at, path, method, headers: body ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers }, (res) => {
          if (until) {
            res.pause();
            void until.then(() => res.resume());
          }
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        });
        req.on('error', reject);
        req.end(body);
      });
    const queries = ['resources=VCPU:1', 'resources=VCPU:1,MEMORY_MB:512', 'resources=DISK_GB:10', 'resources=VCPU:2,MEMORY_MB:1024,DISK_GB:20'];
    const asks = queries.flatMap((q) => [
      (until?: Promise<unknown>) => get('POST', '/graphql', { 'content-type': 'application/json' }, JSON.stringify({ query: CANDIDATES, variables: { q } }), until),
      (until?: Promise<unknown>) => get('GET', `/placement/allocation_candidates?${q}`, { 'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.39' }, undefined, until),
    ]);
    try {
      const alone: string[] = [];
      for (const ask of asks) alone.push(await ask());
      expect(Math.min(...alone.map((a) => a.length))).toBeGreaterThan(64 * 1024);
      for (let round = 0; round < 3; round++) expect(await Promise.all([...asks, ...asks].map((ask) => ask()))).toEqual([...alone, ...alone]);
      // The largest answers not read until the others are done.
      let othersDone = () => {};
      const done = new Promise((resolve) => (othersDone = () => resolve(null)));
      const slow = [asks[6](done), asks[7](done)];
      expect(await Promise.all(asks.map((ask) => ask()))).toEqual(alone);
      othersDone();
      expect(await Promise.all(slow)).toEqual([alone[6], alone[7]]);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      big.close();
    }
  }, 60_000);
});
