// What a page of another site can make of a server on loopback in the default open mode: nothing. A
// request from a foreign Origin is refused (preflight included) and never answered with that origin or
// with credentials; a POST must carry JSON, so no form (urlencoded, multipart, plain text) runs a
// mutation; a Host header other than the server's own names is refused (DNS rebinding). Named origins
// (serve --cors-origin) are let in without credentials, and named hosts (serve --allowed-host). Checked
// in process, over HTTP (the fast lane included), through the command line, and in Chromium.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { createServer } from '../src/server.js';
import { loopbackHosts } from '../src/server/browsers.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { launchChromium } from './browser.js';
import { demoCloud, tempDbFile } from './helpers.js';

const FRIEND = 'http://dashboard.example:8080';
const db = openDatabase(tempDbFile());
importSnapshot(db, demoCloud());
const allowedHosts = new Set<string>();
const yoga = createServer({ db, browsers: { allowedHosts, corsOrigins: [FRIEND] } });
let node: NodeServer;
let port = 0;

beforeAll(async () => {
  node = createNodeServer(yoga);
  await new Promise<void>((resolve) => node.http.listen(0, '127.0.0.1', resolve));
  port = (node.http.address() as AddressInfo).port;
  for (const host of loopbackHosts('127.0.0.1', port, ['placement.internal'])) allowedHosts.add(host);
});
afterAll(() => new Promise<void>((resolve) => (node.http.closeAllConnections(), node.http.close(() => resolve()))));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request over a real socket, with the headers given as they are (Host and Origin included). */
function send(method: string, path: string, headers: Record<string, string>, body?: string, to = port) {
  return new Promise<Answer>((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: to, method, path, agent: false, headers: { host: `127.0.0.1:${to}`, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (response) => {
      let text = '';
      response.on('data', (c) => (text += c));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const mutation = (name: string) => JSON.stringify({ query: `mutation { createTrait(input: {name: "${name}"}) { __typename } }` });
const traitExists = (name: string) => (db.sqlite.prepare('SELECT count(*) AS n FROM traits WHERE name = ?').get(name) as { n: number }).n > 0;
const corsHeaders = (answer: Answer) => Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'));

describe('other sites', () => {
  it('a foreign origin is refused, its preflight too, and never named back or given credentials', async () => {
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${port + 1}`]) {
      const preflight = await send('OPTIONS', '/graphql', { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
      expect(preflight.status).toBe(403);
      expect(corsHeaders(preflight)).toEqual([]);
      const post = await send('POST', '/graphql', { origin, 'content-type': 'application/json' }, mutation('CUSTOM_FROM_ELSEWHERE'));
      expect(post.status).toBe(403);
      expect(JSON.parse(post.text).errors[0].extensions.code).toBe('ORIGIN_NOT_ALLOWED');
      expect(corsHeaders(post)).toEqual([]);
      const read = await send('GET', '/graphql?query=%7B__typename%7D', { origin, accept: 'application/json' });
      expect(read.status).toBe(403);
    }
    expect(traitExists('CUSTOM_FROM_ELSEWHERE')).toBe(false);
  });

  it('forms are refused whatever their encoding, and change nothing', async () => {
    const query = 'mutation { createTrait(input: {name: "CUSTOM_BY_FORM"}) { __typename } }';
    const forms: [string, string][] = [
      ['application/x-www-form-urlencoded', `query=${encodeURIComponent(query)}`],
      ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n${query}\r\n--x--\r\n`],
      ['text/plain', JSON.stringify({ query, pad: '=' })],
      ['application/graphql', query],
    ];
    for (const [type, body] of forms) {
      for (const origin of [undefined, `http://127.0.0.1:${port}`]) {
        const answer = await send('POST', '/graphql', { 'content-type': type, ...(origin ? { origin } : {}) }, body);
        expect(answer.status, type).toBe(415);
        expect(JSON.parse(answer.text).errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      }
    }
    expect(traitExists('CUSTOM_BY_FORM')).toBe(false);
  });

  it("the server's own pages call it as before, without CORS headers", async () => {
    const answer = await send('POST', '/graphql', { origin: `http://127.0.0.1:${port}`, 'content-type': 'application/json' }, mutation('CUSTOM_SAME_ORIGIN'));
    expect(answer.status).toBe(200);
    expect(corsHeaders(answer)).toEqual([]);
    expect(traitExists('CUSTOM_SAME_ORIGIN')).toBe(true);
  });

  it('a named origin is let in, answered with its own name and no credentials', async () => {
    const preflight = await send('OPTIONS', '/graphql', { origin: FRIEND, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(FRIEND);
    expect(preflight.headers['access-control-allow-headers']).toContain('authorization');
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    const read = await send('POST', '/graphql', { origin: FRIEND, 'content-type': 'application/json' }, JSON.stringify({ query: '{ resourceProviders { totalCount } }' }));
    expect(read.status).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBe(FRIEND);
    expect(read.headers['access-control-allow-credentials']).toBeUndefined();
    expect(read.headers.vary).toContain('Origin');
  });
});

describe('the Host header on loopback', () => {
  it('answers to localhost, 127.0.0.1, [::1] and the names given, with the port', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`, `placement.internal:${port}`]) {
      expect((await send('POST', '/graphql', { host, 'content-type': 'application/json' }, JSON.stringify({ query: '{ __typename }' }))).status, host).toBe(200);
    }
  });

  it('refuses any other name, in the fast lane, through yoga and for the pages', async () => {
    for (const host of [`rebind.example:${port}`, 'localhost', `localhost:${port + 1}`, `127.0.0.1.nip.io:${port}`]) {
      const fast = await send('POST', '/graphql', { host, 'content-type': 'application/json' }, JSON.stringify({ query: '{ resourceProviders { nodes { name } } }' }));
      expect(fast.status, host).toBe(403);
      expect(JSON.parse(fast.text).errors[0].extensions.code).toBe('HOST_NOT_ALLOWED');
      expect(fast.text).not.toContain('compute-');
      // Same origin as far as a browser is concerned: the page and the server share the rebound name.
      const write = await send('POST', '/graphql', { host, origin: `http://${host}`, 'content-type': 'application/json' }, mutation('CUSTOM_REBOUND'));
      expect(write.status).toBe(403);
      expect((await send('GET', '/graphql', { host, accept: 'text/html' })).status).toBe(403);
      expect((await send('GET', '/dashboard', { host })).status).toBe(403);
    }
    expect(traitExists('CUSTOM_REBOUND')).toBe(false);
  });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

describe('serve, and a page of another site in Chromium', () => {
  let server: ChildProcess;
  let servePort = 0;
  let attacker: HttpServer;
  let attackerPort = 0;
  const serveDb = tempDbFile();
  const gql = async (query: string) => JSON.parse((await send('POST', '/graphql', { 'content-type': 'application/json' }, JSON.stringify({ query }), servePort)).text);

  beforeAll(async () => {
    servePort = await freePort();
    server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--demo', '--quiet', '--db', serveDb, '--port', String(servePort), '--cors-origin', FRIEND, '--allowed-host', 'placement.internal'], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let output = '';
      server.stdout!.on('data', (chunk) => (output += chunk) && output.includes('GraphiQL: ') && resolve());
      server.stderr!.on('data', (chunk) => (output += chunk));
      server.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
    });
    // The other site: its own origin (another port), with a page anyone may have opened.
    attacker = createHttpServer((_request, response) => response.end('<!doctype html><title>elsewhere</title><body></body>'));
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerPort = (attacker.address() as AddressInfo).port;
  });
  afterAll(() => {
    server?.kill('SIGTERM');
    attacker?.close();
  });

  it('serve checks Host and Origin by default, and takes --cors-origin and --allowed-host', async () => {
    expect((await send('POST', '/graphql', { host: `evil.example:${servePort}`, 'content-type': 'application/json' }, JSON.stringify({ query: '{ __typename }' }), servePort)).status).toBe(403);
    expect((await send('POST', '/graphql', { host: `placement.internal:${servePort}`, 'content-type': 'application/json' }, JSON.stringify({ query: '{ __typename }' }), servePort)).status).toBe(200);
    expect((await send('POST', '/graphql', { origin: 'http://evil.example', 'content-type': 'application/json' }, JSON.stringify({ query: '{ __typename }' }), servePort)).status).toBe(403);
    const friend = await send('POST', '/graphql', { origin: FRIEND, 'content-type': 'application/json' }, JSON.stringify({ query: '{ __typename }' }), servePort);
    expect(friend.headers['access-control-allow-origin']).toBe(FRIEND);
    const refused = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--db', tempDbFile(), '--cors-origin', 'http://a.example/path'], { encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("--cors-origin must be an origin: scheme://host[:port], no path, not 'http://a.example/path'");
  });

  it('cannot create a trait or read the providers, by fetch, by form, or by rebinding a name to 127.0.0.1', async () => {
    // Chromium's own guard against public pages calling loopback (Private Network Access) is turned off:
    // other browsers, and older ones, have none; what is tested is the server's.
    const browser = await launchChromium([
      '--host-resolver-rules=MAP rebind.example 127.0.0.1',
      '--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults',
    ]);
    try {
      const page = await browser.newPage();
      const target = `http://127.0.0.1:${servePort}/graphql`;
      await page.goto(`http://127.0.0.1:${attackerPort}/`);
      const tried = await page.evaluate(async (target) => {
        const outcome = async (attempt: () => Promise<unknown>) => {
          try {
            return String(await attempt());
          } catch (error) {
            return `failed: ${(error as Error).message}`;
          }
        };
        const create = (name: string) => JSON.stringify({ query: `mutation { createTrait(input: {name: "${name}"}) { __typename } }` });
        const submit = (enctype: string, fields: Record<string, string>) =>
          new Promise<string>((resolve) => {
            const frame = document.createElement('iframe');
            frame.name = `sink-${enctype}`;
            document.body.append(frame);
            const form = document.createElement('form');
            Object.assign(form, { method: 'post', action: target, target: frame.name, enctype });
            for (const [name, value] of Object.entries(fields)) form.append(Object.assign(document.createElement('input'), { type: 'hidden', name, value }));
            document.body.append(form);
            frame.addEventListener('load', () => resolve('submitted'), { once: true });
            form.submit();
          });
        const formQuery = (name: string) => `mutation { createTrait(input: {name: "${name}"}) { __typename } }`;
        return {
          json: await outcome(async () => (await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: create('CUSTOM_XS_JSON') })).text()),
          plain: await outcome(async () => (await fetch(target, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: create('CUSTOM_XS_PLAIN') })).type),
          urlencoded: await submit('application/x-www-form-urlencoded', { query: formQuery('CUSTOM_XS_URLENCODED') }),
          multipart: await submit('multipart/form-data', { query: formQuery('CUSTOM_XS_MULTIPART') }),
          textForm: await submit('text/plain', { [`{"query": "${formQuery('CUSTOM_XS_TEXT_FORM').replace(/"/g, '\\"')}", "x": "`]: '"}' }),
          read: await outcome(async () => (await fetch(`${target}?query=${encodeURIComponent('{ resourceProviders { nodes { name } } }')}`)).text()),
        };
      }, target);
      expect(tried.json).toMatch(/^failed/);
      expect(tried.read).toMatch(/^failed/);
      // DNS rebinding: the other site's page, then its name pointed at 127.0.0.1 (the page is served as the
      // other site's server would; its requests reach this server under the other site's name).
      const rebound = `http://rebind.example:${servePort}`;
      await page.route(`${rebound}/`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>rebound</title>' }));
      await page.goto(`${rebound}/`);
      const sameOrigin = await page.evaluate(async () => {
        const write = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { createTrait(input: {name: "CUSTOM_XS_REBOUND"}) { __typename } }' }) });
        const read = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ resourceProviders { nodes { name } } }' }) });
        return { write: write.status, read: read.status, text: await read.text() };
      });
      expect(sameOrigin.write).toBe(403);
      expect(sameOrigin.read).toBe(403);
      expect(sameOrigin.text).not.toContain('compute-');
      const traits = await gql('{ traits(filter: {prefix: "CUSTOM_XS_"}) { totalCount } }');
      expect(traits.errors ?? traits.data).toEqual({ traits: { totalCount: 0 } });
    } finally {
      await browser.close();
    }
  });
});
