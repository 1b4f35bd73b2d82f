// Slow clients cannot hold a connection: headers and whole requests have deadlines, answered 408.
// The deadlines are shortened here (the server's are 10 s and 30 s) so that the test takes a second.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { tempDbFile } from './helpers.js';

const yoga = createServer({ db: openDatabase(tempDbFile()) });
let node: NodeServer;
let port = 0;

beforeAll(async () => {
  node = createNodeServer(yoga, { headersMs: 400, requestMs: 800, keepAliveMs: 300 });
  await new Promise<void>((resolve) => node.http.listen(0, '127.0.0.1', resolve));
  port = (node.http.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => (node.http.closeAllConnections(), node.http.close(() => resolve()))));

/** Writes `parts` to a raw connection, one every `everyMs`, and resolves with what the server sent and when it closed. */
function trickle(parts: string[], everyMs: number) {
  return new Promise<{ text: string; closedAfterMs: number; partsSent: number }>((resolve) => {
    const started = Date.now();
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    let sent = 0;
    socket.on('data', (c) => (text += c));
    socket.on('error', () => {});
    const timer = setInterval(() => {
      if (sent < parts.length && !socket.destroyed) socket.write(parts[sent++]);
    }, everyMs);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, closedAfterMs: Date.now() - started, partsSent: sent });
    });
  });
}

describe('slow clients', () => {
  it('closes a connection whose headers do not arrive in time, with 408', async () => {
    const headers = ['POST /graphql HTTP/1.1\r\n', 'Host: x\r\n', ...Array.from({ length: 100 }, (_, i) => `X-Slow-${i}: y\r\n`)];
    const answer = await trickle(headers, 50);
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.partsSent).toBeLessThan(headers.length);
    expect(answer.closedAfterMs).toBeLessThan(3_000);
  });

  it('closes a connection whose body does not arrive in time, with 408', async () => {
    const body = JSON.stringify({ query: '{ __typename }', pad: 'x'.repeat(200) });
    const parts = [`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, ...body.match(/.{1,4}/g)!];
    const answer = await trickle(parts, 50);
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.partsSent).toBeLessThan(parts.length);
    expect(answer.closedAfterMs).toBeLessThan(3_000);
  });

  it('closes an idle kept-alive connection, and answers a request sent in time', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const answer = await trickle([`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`], 10);
    expect(answer.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.text).toContain('{"data":{"__typename":"Query"}}');
    expect(answer.closedAfterMs).toBeLessThan(3_000);
  });
});
