// The body limit over a real socket: a chunked body has no Content-Length, so the bytes are counted as they arrive.
import { createServer as createHttpServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { nodeListener } from '../src/server/http.js';
import { tempDbFile } from './helpers.js';

let http: HttpServer;
let port = 0;
const yoga = createServer({ db: openDatabase(tempDbFile()), limits: { maxBodyBytes: 10_000 } });

beforeAll(async () => {
  http = createHttpServer(nodeListener(yoga));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

/** POSTs a chunked body, writing `chunks` pieces of `size` bytes while the server lets it; counts what was written. */
function postChunked(chunks: number, size: number, body?: string) {
  return new Promise<{ status: number; text: string; written: number }>((resolve, reject) => {
    let written = 0;
    const req = httpRequest({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text, written }));
    });
    req.on('error', reject);
    if (body) {
      req.end(body);
      return;
    }
    req.write('{"query": "{ __typename }", "pad": "');
    const piece = 'x'.repeat(size);
    const pump = () => {
      while (written < chunks && !req.destroyed) {
        written++;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (!req.destroyed) req.end('"}');
    };
    pump();
  });
}

describe('body limit over HTTP', () => {
  it('refuses a chunked body past the limit with 413, naming the limit, before reading it all', async () => {
    const answer = await postChunked(5_000, 1_000).catch((error) => ({ status: 0, text: String(error), written: -1 }));
    if (answer.status === 0) {
      // The server may close before the client sees the answer; it must not have read the whole 5 MB.
      expect(answer.text).toMatch(/ECONNRESET|EPIPE|socket hang up/);
    } else {
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.text).errors[0].message).toContain('maxBodyBytes = 10000');
      expect(answer.written).toBeLessThan(5_000);
    }
    expect(await yoga.metrics.render()).toMatch(/placement_gql_refused_total\{reason="maxBodyBytes"\} [1-9]/);
  });

  it('answers a chunked body within the limit, and keeps serving after a refusal', async () => {
    const answer = await postChunked(0, 0, JSON.stringify({ query: '{ __typename }' }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ data: { __typename: 'Query' } });
  });
});
