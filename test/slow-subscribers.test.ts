// A subscriber that never reads its stream cannot make the server hold its events without bound: once
// more than maxStreamBufferBytes of answers wait for it, it is dropped (its connection closed, its
// subscription ended) and the memory is given back. A change that publishes many events at once is
// delivered whole to a subscriber that reads. The bound is set low here so that a few hundred kilobytes
// reach it; the server's own is 1 MB.
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { createServer } from '../src/server.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { demoCloud, tempDbFile } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapKept = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const db = openDatabase(tempDbFile());
importSnapshot(db, demoCloud());
// Many aliases allowed, so that each event's answer is large (about 100 kB) and a socket's buffers fill in a few events.
const yoga = createServer({ db, limits: { maxStreamBufferBytes: 200_000, maxAliases: 2_000, maxStreamsPerAddress: 50 } });
let node: NodeServer;
let port = 0;
beforeAll(async () => {
  node = createNodeServer(yoga);
  await new Promise<void>((resolve) => node.http.listen(0, '127.0.0.1', resolve));
  port = (node.http.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => (node.http.closeAllConnections(), node.http.close(() => resolve()))));

const uuid = demoCloud().providers[0].uuid;
const LARGE = `subscription { providerChanged { ${Array.from({ length: 2_000 }, (_, i) => `u${i}: providerUuid`).join(' ')} } }`;

/** A committed change to one provider, sent over HTTP as a client would (so the server's sockets are served meanwhile). */
async function change(i: number) {
  const generation = (db.sqlite.prepare('SELECT generation FROM resource_providers WHERE uuid = ?').get(uuid) as { generation: number }).generation;
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'mutation($input: SetProviderTraitsInput!) { setProviderTraits(input: $input) { __typename } }', variables: { input: { providerUuid: uuid, generation, traits: [i % 2 ? 'COMPUTE_NODE' : 'HW_CPU_X86_AVX2'] } } }),
  });
  expect(((await response.json()) as any).data.setProviderTraits.__typename).toBe('ResourceProviderPayload');
}

/** A subscriber over a raw socket that sends its request and never reads a byte of the answer. */
function neverReads(query: string): Socket {
  const body = JSON.stringify({ query });
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => {});
  socket.write(`POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  socket.pause();
  return socket;
}

/** The events of an SSE answer read in process, until it completes or `wanted` arrive. */
async function readEvents(response: Response, wanted = Infinity) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: { event: string; data: any }[] = [];
  let text = '';
  while (events.length < wanted) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    const blocks = text.split('\n\n');
    text = blocks.pop()!;
    for (const block of blocks) {
      const event = /^event: (\w+)/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event) events.push({ event, data: data ? JSON.parse(data) : null });
    }
    if (events.at(-1)?.event === 'complete') break;
  }
  await reader.cancel().catch(() => {});
  return events;
}

describe('slow subscribers', () => {
  it('subscribers that never read are dropped once their unread answers pass the bound, and the memory is given back', async () => {
    const before = heapKept();
    const sockets = Array.from({ length: 10 }, () => neverReads(LARGE));
    for (let waited = 0; node.open().streams < 10 && waited < 200; waited++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 100));
    // Each event's answer (about 90 kB) fills the sockets' buffers (a few MB on loopback), then the server's own.
    let events = 0;
    while (node.open().streams > 0 && events < 300) await change(events++);
    expect(node.open().streams).toBe(0);
    expect(yoga.feed.subscriptions()).toBe(0);
    for (const socket of sockets) socket.destroy();
    expect(heapKept() - before).toBeLessThan(10_000_000);
    expect(await yoga.metrics.render()).toContain('placement_gql_refused_total{reason="maxStreamBufferBytes"} 10');
  });

  it('a reader that comes back late finds why its stream was dropped, and that it ended', async () => {
    const response = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: LARGE }),
    });
    for (let waited = 0; yoga.feed.subscriptions() < 1 && waited < 200; waited++) await new Promise((r) => setTimeout(r, 25));
    // About 90 kB an event: two fit in 200 kB, the third is one too many.
    for (let i = 0; i < 3; i++) await change(i);
    expect(yoga.feed.subscriptions()).toBe(0);
    const events = await readEvents(response);
    expect(events.map((e) => e.event)).toEqual(['next', 'complete']);
    expect(events[0]!.data).toEqual({
      errors: [
        {
          message: 'This stream was dropped: it left more than 200000 bytes unread (the limit maxStreamBufferBytes). Subscribe again, and read events as they come.',
          extensions: { code: 'SLOW_SUBSCRIBER', limit: 'maxStreamBufferBytes', allowed: 200_000 },
        },
      ],
    });
  });

  it('a change that publishes thousands of events at once reaches a subscriber that reads, whole', async () => {
    // The server's own bound (1 MB): 3,000 small events fit in it.
    const server = createServer({ db });
    const response = await server.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { providerChanged { providerUuid kind } }' }),
    });
    for (let waited = 0; server.feed.subscriptions() < 1 && waited < 200; waited++) await new Promise((r) => setTimeout(r, 25));
    // As syncNodeTraits does for every drifted node of a large cloud, in one go.
    for (let i = 0; i < 3_000; i++) server.feed.publish('providerChanged', { mutation: 'syncNodeTraits', providerUuid: uuid, kind: 'TRAITS' });
    const events = await readEvents(response, 3_000);
    expect(events).toHaveLength(3_000);
    expect(events.every((e) => e.data.data.providerChanged.kind === 'TRAITS')).toBe(true);
  });
});
