// A server with tokens reads nothing of a request before its token is checked: no parse, no validation,
// no cache, in yoga's path and in the HTTP fast lane alike. A caller without a token sees 401, never a
// syntax error or a "did you mean" hint, and unique large documents cannot grow the server's memory.
// With a token, the parsed documents kept are bounded in bytes (the sum of their lengths), not in entries.
import { connect, type AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { createServer } from '../src/server.js';
import { loadAccessConfig } from '../src/server/access.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { demoCloud, tempDbFile } from './helpers.js';

const ADMIN = 'admin-token-0123456789';
const READER = 'reader-token-0123456789';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Heap in use once garbage is collected: what the server keeps. */
const heapKept = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const db = openDatabase(tempDbFile());
importSnapshot(db, demoCloud());
const yoga = createServer({ db, access: loadAccessConfig(undefined, `admin:${ADMIN},reader:${READER}`), limits: { documentCacheBytes: 50_000 } });
let node: NodeServer;
let port = 0;

beforeAll(async () => {
  node = createNodeServer(yoga);
  await new Promise<void>((resolve) => node.http.listen(0, '127.0.0.1', resolve));
  port = (node.http.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => (node.http.closeAllConnections(), node.http.close(() => resolve()))));

async function post(query: string, token: string | null, transport: 'in process' | 'over HTTP') {
  const init = { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify({ query }) };
  const response = transport === 'in process' ? await yoga.fetch('http://test/graphql', init) : await fetch(`http://127.0.0.1:${port}/graphql`, init);
  return { status: response.status, text: await response.text() };
}

/** A unique document of about `bytes` bytes, most of it fields: its parsed form is far larger than its text. */
const bigDocument = (bytes: number, id: number) => `query Q${id} { ${'__typename '.repeat(Math.ceil(bytes / 11))}}`;

describe.each(['in process', 'over HTTP'] as const)('without a valid token (%s)', (transport) => {
  it.each([
    ['a document that does not parse', '{ resourceProviders { '],
    ['a misspelt field', '{ resourceProvder(uuid: "x") { name } }'],
    ['a valid query', '{ resourceProviders { totalCount } }'],
  ])('%s is answered 401, and nothing of the document is shown', async (_what, query) => {
    for (const token of [null, 'not-a-known-token-0123456789']) {
      const answer = await post(query, token, transport);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.text)).toEqual({ errors: [{ message: 'A valid bearer token is required (Authorization: Bearer TOKEN).', extensions: { code: 'UNAUTHENTICATED' } }] });
    }
  });
});

describe('the token comes first', () => {
  it('is checked before the body is read: a request without a token is answered while its body has not been sent', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
        if (text.includes('\r\n\r\n')) resolve(text), socket.destroy();
      });
      socket.on('error', reject);
      // Headers only: the 900 kB body announced never comes.
      socket.write(`POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n`);
      setTimeout(() => resolve(text || 'no answer'), 3_000);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('unique documents of about 300 kB without a token do not grow the memory', async () => {
    const before = heapKept();
    for (let i = 0; i < 6; i++) expect((await post(bigDocument(300_000, i), null, 'over HTTP')).status).toBe(401);
    expect(heapKept() - before).toBeLessThan(20_000_000);
  });

  it('with a token, unique large documents do not grow the memory either', async () => {
    const before = heapKept();
    for (let i = 0; i < 6; i++) expect((await post(bigDocument(300_000, 100 + i), READER, 'over HTTP')).status).toBe(400);
    expect(heapKept() - before).toBeLessThan(20_000_000);
  });

  it('with a token, the documents kept parsed stay within documentCacheBytes, the most recent first', async () => {
    const queries = Array.from({ length: 40 }, (_, i) => `query Page${i} { resourceProviders(first: 1) { totalCount } } # ${'x'.repeat(2_000)}`);
    for (const query of queries) expect(JSON.parse((await post(query, READER, 'over HTTP')).text).data.resourceProviders.totalCount).toBe(33);
    const cache = yoga.documentCache;
    expect(cache.bytes).toBeLessThanOrEqual(50_000);
    expect(cache.has(queries.at(-1)!)).toBe(true);
    expect(cache.has(queries[0]!)).toBe(false);
  });
});
