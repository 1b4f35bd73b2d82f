// Placement's REST API under /placement answers as Placement 8.0.0 does, byte for byte, for the
// requests its gabbi files do not make: framework behaviour (microversion headers, Accept and error
// formats, 404/405, tokens, policies, malformed JSON), every resource-provider route with the
// filters and refusals of each microversion, inventories, usages, traits, aggregates, resource
// classes and CORS. test/golden/rest/exchanges.json holds Placement's answers (recorded by
// scripts/golden/rest_exchanges.py, each session on a fresh Placement); each session is replayed
// here on a fresh database loaded with the same cloud, over a real socket.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { tempDbFile } from './helpers.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}
interface Exchange {
  /** The body as the bytes sent, written as latin-1 text. */
  request: { method: string; path: string; headers: Record<string, string>; body?: string };
  answer: Answer;
  /** Why placement-gql answers otherwise: then only the status and the error code are compared, or only placement-gql's own status when given. */
  differs?: string;
  ourStatus?: number;
}
interface Session {
  name: string;
  cors: string | null;
  snapshot: unknown;
  exchanges: Exchange[];
}

// exchanges.json (the framework and providers' routes) and allocation-exchanges.json (allocations, usages, candidates, the reshaper).
const GOLDEN = new URL('./golden/rest/', import.meta.url);
const golden: { sessions: Session[] } = {
  sessions: readdirSync(GOLDEN)
    .filter((name) => name.endsWith('exchanges.json'))
    .flatMap((name) => JSON.parse(readFileSync(new URL(name, GOLDEN), 'utf8')).sessions),
};

const KEPT = [
  'content-length',
  'content-type',
  'openstack-api-version',
  'vary',
  'allow',
  'location',
  'cache-control',
  'last-modified',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-expose-headers',
];

/** As the recorder keeps an answer: request ids and times as markers, Location as a path below the API's root. */
function normalized(status: number, headers: Record<string, string | string[] | undefined>, body: string): Answer {
  const kept: Record<string, string> = {};
  for (const name of KEPT) {
    const value = headers[name];
    if (value === undefined) continue;
    const text = String(value);
    kept[name] = name === 'last-modified' ? '<time>' : name === 'location' ? text.replace(/^https?:\/\/[^/]+/, '').replace(/^\/placement/, '') : text;
  }
  return { status, headers: kept, body: body.replace(/req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'req-<id>') };
}

/** A uuid the server made up (the recorder's own have one digit repeated): the same marker on both sides. */
const madeUp = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (u) => (/^([0-9a-f])\1{7}-\1{4}-4\1{3}-8\1{3}-(\1{12}|0{12})$/.test(u) ? u : '<uuid>'));

/**
 * What is compared: made-up uuids as a marker, lists of traits in name order, allocation requests as a set. Placement lists
 * traits in its database's order, which follows the order os-traits' names were first synced in (a
 * Python set's); placement-gql lists them by name.
 */
function comparable(answer: Answer): Answer {
  let body = madeUp(answer.body);
  if (body.startsWith('{"traits"')) body = body.replace(/\[[^\]]*\]/, (list) => JSON.stringify(JSON.parse(list).sort()).replace(/","/g, '", "'));
  // Allocation requests with several providers come in the order of Placement's sets of candidates:
  // compared as a set (the length of the body, kept in content-length, is still compared).
  if (body.startsWith('{"allocation_requests": [')) {
    const answer = JSON.parse(body);
    answer.allocation_requests = answer.allocation_requests.map((r: unknown) => JSON.stringify(r)).sort();
    body = JSON.stringify(answer);
  }
  const headers = { ...answer.headers };
  if (headers.location) headers.location = madeUp(headers.location);
  return { ...answer, headers, body };
}

function send(base: string, exchange: Exchange): Promise<Answer> {
  const { method, path, headers, body } = exchange.request;
  const data = body === undefined ? undefined : Buffer.from(body, 'latin1');
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/placement${path}`, { method, headers: data ? { ...headers, 'content-length': String(data.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(normalized(res.statusCode!, res.headers, Buffer.concat(chunks).toString('utf8'))));
    });
    req.on('error', reject);
    req.end(data);
  });
}

const servers: NodeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop(100, 0)));
});

describe("Placement's REST API answers as Placement 8.0.0 (recorded)", () => {
  for (const session of golden.sessions) {
    it(`${session.name}: ${session.exchanges.length} exchanges`, async () => {
      const db = openDatabase(tempDbFile());
      if (session.snapshot) importSnapshot(db, session.snapshot);
      const node = createNodeServer(createServer({ db, maskErrors: false, browsers: { corsOrigins: session.cors ? [session.cors] : [] } }));
      servers.push(node);
      const base = await new Promise<string>((resolve) => node.http.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(node.http.address() as AddressInfo).port}`)));
      const mismatches: string[] = [];
      for (const exchange of session.exchanges) {
        const got = await send(base, exchange);
        const { method, path } = exchange.request;
        const label = `${method} ${path} ${JSON.stringify(exchange.request.headers)}${exchange.request.body === undefined ? '' : ` ${exchange.request.body}`}`;
        if (exchange.ourStatus !== undefined) {
          if (got.status !== exchange.ourStatus) mismatches.push(`${label}\n  got ${got.status} ${got.body}\n want ${exchange.ourStatus} (${exchange.differs})`);
          continue;
        }
        if (exchange.differs) {
          const code = (answer: Answer) => (answer.body.startsWith('{"errors"') ? JSON.parse(answer.body).errors[0].code : null);
          if (got.status !== exchange.answer.status || code(got) !== code(exchange.answer)) mismatches.push(`${label}\n  got ${got.status} ${got.body}\n want ${exchange.answer.status} ${exchange.answer.body}`);
          continue;
        }
        try {
          expect(comparable(got)).toEqual(comparable(exchange.answer));
        } catch {
          mismatches.push(`${label}\n  got  ${JSON.stringify(got)}\n  want ${JSON.stringify(exchange.answer)}`);
        }
      }
      expect(mismatches, mismatches.join('\n\n')).toEqual([]);
    }, 60_000);
  }
});
