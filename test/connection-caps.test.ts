// Caps on connections and subscription streams, in total and per client address, over real sockets.
// Loopback has many addresses (127.0.0.1, 127.0.0.2, ...): each stands for one client.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { tempDbFile } from './helpers.js';

const yoga = createServer({ db: openDatabase(tempDbFile()), limits: { maxConnections: 3, maxConnectionsPerAddress: 2, maxStreams: 2, maxStreamsPerAddress: 1 } });
let node: NodeServer;
let port = 0;

beforeAll(async () => {
  node = createNodeServer(yoga);
  await new Promise<void>((resolve) => node.http.listen(0, '127.0.0.1', resolve));
  port = (node.http.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => (node.http.closeAllConnections(), node.http.close(() => resolve()))));

const opened: Socket[] = [];
/** A connection from `from` that stays open and idle until closed. */
async function hold(from: string) {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  opened.push(socket);
  // The server counts it once it has accepted it: ask it.
  await until(() => node.open().connections >= opened.filter((s) => !s.destroyed).length);
  return socket;
}

async function until(condition: () => boolean) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}

/** One request on a new connection from `from`; the status and the parsed body (JSON when it is). */
function ask(from: string, options: { path?: string; accept?: string; body?: string } = {}) {
  return new Promise<{ status: number; body: any; headers: IncomingMessage['headers']; response: IncomingMessage; request: ClientRequest }>((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        localAddress: from,
        agent: false,
        path: options.path ?? '/health',
        method: options.body ? 'POST' : 'GET',
        headers: { ...(options.body ? { 'content-type': 'application/json' } : {}), ...(options.accept ? { accept: options.accept } : {}) },
      },
      (response) => {
        if ((response.headers['content-type'] ?? '').includes('event-stream')) return resolve({ status: response.statusCode!, body: null, headers: response.headers, response, request });
        let text = '';
        response.on('data', (c) => (text += c));
        response.on('end', () => {
          let body: any = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: response.statusCode!, body, headers: response.headers, response, request });
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('connection caps', () => {
  it('refuses one address past its share with 429, the server past its total with 503, each naming the limit', async () => {
    await hold('127.0.0.1');
    await hold('127.0.0.1');
    const perAddress = await ask('127.0.0.1');
    expect(perAddress.status).toBe(429);
    expect(perAddress.headers.connection).toBe('close');
    expect(perAddress.body.errors[0]).toEqual({
      message: '127.0.0.1 has 2 connections open: the limit maxConnectionsPerAddress = 2 is reached; reuse them (keep-alive) or close some.',
      extensions: { code: 'LIMIT_EXCEEDED', limit: 'maxConnectionsPerAddress', allowed: 2 },
    });
    // Another client is not held back by the first one's share.
    expect((await ask('127.0.0.2')).status).toBe(200);
    await hold('127.0.0.2');
    const total = await ask('127.0.0.3');
    expect(total.status).toBe(503);
    expect(total.headers['retry-after']).toBe('1');
    expect(total.body.errors[0].message).toBe('The server has 3 connections open: the limit maxConnections = 3 is reached; retry later.');
    expect(total.body.errors[0].extensions.limit).toBe('maxConnections');

    // Closed connections give their places back.
    for (const socket of opened.splice(0)) socket.destroy();
    await until(() => node.open().connections === 0);
    expect((await ask('127.0.0.3')).status).toBe(200);
    expect((await ask('127.0.0.1')).status).toBe(200);
    const metrics = await ask('127.0.0.1', { path: '/metrics' });
    expect(metrics.body).toMatch(/placement_gql_refused_total\{reason="maxConnectionsPerAddress"\} 1/);
    expect(metrics.body).toMatch(/placement_gql_refused_total\{reason="maxConnections"\} 1/);
  });

  it('closes a refused connection that sends nothing', async () => {
    await hold('127.0.0.1');
    await hold('127.0.0.1');
    const silent = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.1' });
    const closed = await new Promise<number>((resolve) => {
      const started = Date.now();
      silent.on('close', () => resolve(Date.now() - started));
      silent.on('error', () => {});
    });
    expect(closed).toBeLessThan(5_000);
    for (const socket of opened.splice(0)) socket.destroy();
    await until(() => node.open().connections === 0);
  });
});

describe('stream caps', () => {
  const subscribe = (from: string) =>
    ask(from, { path: '/graphql', accept: 'text/event-stream', body: JSON.stringify({ query: 'subscription { providerChanged { providerUuid kind } }' }) });

  it('refuses subscription streams past one address share (429) and past the total (503), naming the limit; a closed stream frees its place', async () => {
    const first = await subscribe('127.0.0.1');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toContain('text/event-stream');
    await until(() => node.open().streams === 1);
    const perAddress = await subscribe('127.0.0.1');
    expect(perAddress.status).toBe(429);
    expect(perAddress.body.errors[0].message).toBe('127.0.0.1 has 1 subscription streams open: the limit maxStreamsPerAddress = 1 is reached; close one first.');
    const second = await subscribe('127.0.0.2');
    expect(second.status).toBe(200);
    await until(() => node.open().streams === 2);
    const total = await subscribe('127.0.0.3');
    expect(total.status).toBe(503);
    expect(total.body.errors[0]).toMatchObject({ message: 'The server has 2 subscription streams open: the limit maxStreams = 2 is reached; retry later.', extensions: { limit: 'maxStreams', allowed: 2 } });
    // A plain query from the same address is no stream and is answered.
    const query = await ask('127.0.0.1', { path: '/graphql', body: JSON.stringify({ query: '{ __typename }' }) });
    expect(query.body).toEqual({ data: { __typename: 'Query' } });

    first.request.destroy();
    await until(() => node.open().streams === 1);
    expect((await subscribe('127.0.0.3')).status).toBe(200);
  });
});

describe('a connection flood', () => {
  it('serves no more than the cap at once, refuses or drops the rest, and serves again once they are gone', async () => {
    const flooded = createNodeServer(createServer({ db: openDatabase(tempDbFile()), limits: { maxConnections: 4, maxConnectionsPerAddress: 100 } }));
    await new Promise<void>((resolve) => flooded.http.listen(0, '127.0.0.1', resolve));
    const floodPort = (flooded.http.address() as AddressInfo).port;
    try {
      // 40 connections at once, each holding still until all are open, then asking /health.
      const flood = Array.from({ length: 40 }, () => {
        const socket = connect({ host: '127.0.0.1', port: floodPort });
        socket.on('error', () => {});
        let text = '';
        socket.on('data', (c) => (text += c));
        const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
        const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()).once('close', () => resolve()));
        return { socket, closed, ready };
      });
      await Promise.all(flood.map((f) => f.ready));
      await new Promise((r) => setTimeout(r, 100));
      for (const { socket } of flood) {
        if (!socket.destroyed) socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        setTimeout(() => socket.destroy(), 3_000);
      }
      const answers = await Promise.all(flood.map((f) => f.closed));
      const statuses = answers.map((a) => a.match(/^HTTP\/1\.1 (\d+)/)?.[1] ?? 'dropped');
      expect(statuses.filter((s) => s === '200').length).toBeLessThanOrEqual(4);
      expect(statuses.filter((s) => s === '503').length).toBeGreaterThan(0);
      expect(new Set(statuses)).toEqual(new Set(statuses.filter((s) => ['200', '503', 'dropped'].includes(s))));
      for (const answer of answers.filter((a) => a.startsWith('HTTP/1.1 503'))) expect(answer).toContain('the limit maxConnections = 4 is reached');
      // Past twice the cap, connections are dropped unanswered rather than held.
      expect(statuses.filter((s) => s === 'dropped').length).toBeGreaterThanOrEqual(40 - 8);
      await until(() => flooded.open().connections === 0);
      const after = await fetch(`http://127.0.0.1:${floodPort}/health`);
      expect(after.status).toBe(200);
    } finally {
      flooded.http.closeAllConnections();
      await new Promise((r) => flooded.http.close(r));
    }
  });
});
