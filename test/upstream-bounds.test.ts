// What the gateway takes from the network is bounded, and what it shows is plain and secret-free:
// an answer that trickles in fails within the deadline, one larger than the cap is refused as it
// streams in, the token goes only to the hosts the flags or the catalog name (a `next` link or a
// redirect elsewhere is not followed), and no URL credential, query secret or token appears in the
// startup line, the logs, /health, `upstream.url` or `lastError`, which says in plain words what
// failed — never a raw JavaScript message or a piece of the answer.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { Gateway, type GatewayOptions } from '../src/mirror/gateway.js';
import { fixedTokenSession, withServiceUrls } from '../src/upstream/session.js';
import { ServiceClient } from '../src/upstream/service.client.js';
import { ForeignOrigin } from '../src/upstream/discipline.js';
import { recording, startFakePlacement } from './fake-placement.js';
import { fakeGlance, fakeIronic, fakePlacement } from './fake-openstack.js';
import { tempDbFile } from './helpers.js';

const rec = recording();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function gatewayOver(url: string, options: GatewayOptions = {}, services: Parameters<typeof withServiceUrls>[1] = {}) {
  const db = openDatabase(tempDbFile());
  const gateway = new Gateway(db, withServiceUrls(fixedTokenSession(url, 'admin'), services), { interval: 15, retryDelayMs: 1, ...options });
  const yoga = createServer({ db, gateway, maskErrors: false });
  cleanups.push(() => gateway.stop(), () => db.close());
  const health = async () => (await (await yoga.fetch('http://test/health')).json()) as any;
  return { db, gateway, health };
}

/** A server that answers nothing and records every request it gets, with its token. */
async function spy() {
  const requests: string[] = [];
  const server = createHttpServer((req, res) => {
    requests.push(`${req.method} ${req.url} token=${req.headers['x-auth-token']}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** Writes `total` bytes of `piece`, as fast as the reader takes them; resolves with the bytes written when done or cut. */
function stream(res: ServerResponse, head: string, piece: string, total: number, tail: string): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(head);
    const chunk = piece.repeat(Math.ceil(65536 / piece.length));
    const pump = () => {
      while (written < total) {
        written += chunk.length;
        if (!res.write(chunk)) return;
      }
      res.end(tail, () => resolve(written));
    };
    res.on('drain', pump);
    res.on('close', () => resolve(written));
    pump();
  });
}

describe('answers are bounded', () => {
  it('an answer that trickles in a byte at a time fails its request at the deadline, and the refresh says so', async () => {
    const fake = await startFakePlacement(rec);
    cleanups.push(() => fake.close());
    fake.intercept = (key, res) => {
      if (key !== 'GET /traits') return false;
      const body = JSON.stringify(rec.phases[0].routes['GET /traits'].body);
      res.writeHead(200, { 'content-type': 'application/json' });
      let at = 0;
      const timer = setInterval(() => res.write(body[at++]), 100);
      res.on('close', () => clearInterval(timer));
      return true;
    };
    const { gateway, health } = await gatewayOver(fake.url, { timeoutMs: 1000 });
    await expect(gateway.refresh()).rejects.toThrow(/did not arrive whole/);
    expect(gateway.status().lastError).toBe(`The answer from ${fake.url}/traits did not arrive whole within 1 s: check the service and the network to it (--upstream-timeout sets the limit).`);
    expect((await health()).upstream).toMatchObject({ stale: true, lastError: gateway.status().lastError });
  }, 20_000);

  it('an answer larger than the cap is refused as it streams in, not read whole', async () => {
    const fake = await startFakePlacement(rec);
    cleanups.push(() => fake.close());
    let sent: Promise<number> | null = null;
    const total = 16 * 1024 * 1024;
    fake.intercept = (key, res) => {
      if (key !== 'GET /resource_providers') return false;
      // Valid JSON: an empty listing padded with 16 MB of spaces.
      sent = stream(res, '{"resource_providers": [', ' ', total, ']}');
      return true;
    };
    const { gateway } = await gatewayOver(fake.url, { maxBodyBytes: 1024 * 1024 });
    await expect(gateway.refresh()).rejects.toThrow(/larger than/);
    expect(gateway.status().lastError).toBe(`The answer from ${fake.url}/resource_providers is larger than 1 MB and was refused as it arrived (--upstream-max-body sets the limit).`);
    expect(await sent!).toBeLessThan(total);
  }, 20_000);
});

describe('the token goes only to the hosts named', () => {
  it('a next link to another host (Glance, Ironic) or a redirect (Nova) is not followed; that host gets nothing', async () => {
    const elsewhere = await spy();
    const placement = await fakePlacement({ providers: [], consumers: {} });
    const images = [0, 1, 2].map((n) => ({ id: `f0000000-0000-4000-8000-00000000000${n}`, name: `image-${n}`, updatedAt: `2026-01-01T00:00:0${n}Z`, properties: {} }));
    const glance = await fakeGlance({ images, maxLimit: 1, nextLink: (query) => `${elsewhere.url}/v2/images?${query}` });
    const nodes = [0, 1].map((n) => ({ uuid: `b0000000-0000-4000-8000-00000000000${n}`, name: `node-${n}`, provisionState: 'available', resourceClass: 'baremetal', traits: [], instanceUuid: null }));
    const ironic = await fakeIronic({ nodes, maxLimit: 1, nextLink: (query) => `${elsewhere.url}/nodes?${query}` });
    const nova = createHttpServer((_req: IncomingMessage, res: ServerResponse) => res.writeHead(302, { location: `${elsewhere.url}/v2.1/flavors/detail` }).end());
    await new Promise<void>((resolve) => nova.listen(0, '127.0.0.1', resolve));
    const novaUrl = `http://127.0.0.1:${(nova.address() as AddressInfo).port}`;
    cleanups.push(() => placement.close(), () => glance.close(), () => ironic.close(), () => new Promise<void>((resolve) => (nova.closeAllConnections(), nova.close(() => resolve()))));
    const { gateway } = await gatewayOver(placement.url, {}, { compute: `${novaUrl}/v2.1`, image: glance.url, baremetal: ironic.url });
    await gateway.refresh();
    const errors = Object.fromEntries(gateway.services.status().map((s) => [s.service, s.lastError]));
    expect(errors).toEqual({
      compute: "Nova answered 302 (a redirect) to GET /flavors/detail, which is not followed: give the endpoint the redirect leads to.",
      image: `An answer links to ${elsewhere.url}/v2/images?visibility=***&limit=***&marker=***, another host than the endpoint ${glance.url}: it was not followed, as the token goes only to the endpoints the service catalog or the flags name.`,
      baremetal: `An answer links to ${elsewhere.url}/nodes?fields=***&limit=***&marker=***, another host than the endpoint ${ironic.url}: it was not followed, as the token goes only to the endpoints the service catalog or the flags name.`,
    });
    // A relative link that makes the URL name another host (userinfo before it) is refused the same way.
    const client = new ServiceClient(fixedTokenSession(placement.url, 'admin'), 'image', glance.url);
    cleanups.push(() => client.close());
    await expect(client.get(`@${elsewhere.url.slice('http://'.length)}/v2/images`)).rejects.toBeInstanceOf(ForeignOrigin);
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('plain words, never a raw message or a piece of the answer', () => {
  it('an answer that is not JSON, one without its list, and a 500 are each said in plain words', async () => {
    const fake = await startFakePlacement(rec);
    cleanups.push(() => fake.close());
    const { gateway, health } = await gatewayOver(fake.url);
    const attempt = async (answer: (res: ServerResponse) => void) => {
      fake.intercept = (key, res) => (key === 'GET /traits' ? (answer(res), true) : false);
      await gateway.refresh().catch(() => {});
      const lastError = gateway.status().lastError!;
      expect((await health()).upstream.lastError).toBe(lastError);
      expect(lastError).not.toMatch(/internal-detail|Unexpected token|Cannot read|undefined|SQLITE|at .*\.ts/);
      return lastError;
    };
    expect(await attempt((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>internal-detail: Traceback</html>'))).toBe(
      "Placement's answer to GET /traits is not JSON: check that the URL is Placement's endpoint, and any proxy in front of it.",
    );
    expect(await attempt((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"internal-detail": []}'))).toBe(
      "Placement's answer to GET /traits has no traits list: check that the URL is Placement's endpoint, and any proxy in front of it.",
    );
    expect(await attempt((res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"errors": [{"detail": "internal-detail: Traceback"}]}'))).toBe(
      "Placement answered 500 (a server error) to GET /traits, after retries: check Placement's health and logs.",
    );
  });
});

describe('no secret is shown', () => {
  it("an error answer that echoes the token reaches the caller with the token replaced", async () => {
    const fake = await startFakePlacement(rec);
    cleanups.push(() => fake.close());
    fake.validToken = 't0ken-s3cret';
    const db = openDatabase(tempDbFile());
    const gateway = new Gateway(db, fixedTokenSession(fake.url, 't0ken-s3cret'), { interval: 15, retryDelayMs: 1 });
    const yoga = createServer({ db, gateway, maskErrors: false });
    cleanups.push(() => gateway.stop(), () => db.close());
    await gateway.refresh();
    fake.intercept = (key, res) => {
      if (!key.startsWith('PUT ')) return false;
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ status: 400, code: 'placement.undefined_code', detail: 'token t0ken-s3cret is not allowed to do that' }] }));
      return true;
    };
    const query = 'mutation { setProviderTraits(input: { providerUuid: "c0000000-0000-0000-0000-000000000002", generation: 2, traits: [] }) { __typename ... on InvalidInput { issues { message } } } }';
    const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    expect(((await response.json()) as any).data.setProviderTraits).toEqual({ __typename: 'InvalidInput', issues: [{ message: 'token *** is not allowed to do that' }] });
  });

  it('serve --upstream with a password and a query secret in the URL and a token: none in the startup line, the logs, /health, upstream.url or lastError', async () => {
    const fake = await startFakePlacement(rec);
    cleanups.push(() => fake.close());
    fake.validToken = 't0ken-s3cret';
    const port = String(20000 + Math.floor(Math.random() * 20000));
    const upstream = fake.url.replace('http://', 'http://admin:pw-s3cret@') + '/?sig=q-s3cret';
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--db', tempDbFile(), '--port', port, '--upstream', upstream, '--upstream-token', 't0ken-s3cret', '--sync-interval', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OS_CLOUD: '', OS_AUTH_URL: '' },
    });
    cleanups.push(() => server.kill('SIGTERM'));
    let output = '';
    server.stdout.on('data', (chunk) => (output += chunk));
    server.stderr.on('data', (chunk) => (output += chunk));
    await new Promise<void>((resolve, reject) => {
      server.stdout.on('data', () => output.includes('GraphiQL: ') && resolve());
      server.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
    });
    const shown = `${fake.url}/?sig=***`;
    expect(output).toContain(`Gateway mode: mirroring Placement at ${shown} (fixed token)`);
    // The upstream answers 404 under that path: a refresh fails, is logged, and lands in /health.
    const health = async () => (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as any;
    while (!(await health()).upstream.lastError) await new Promise((resolve) => setTimeout(resolve, 100));
    const status = await health();
    expect(status.upstream.url).toBe(shown);
    expect(status.upstream.lastError).toBe("Placement answered 404 (not found) to GET /: check that the URL is Placement's endpoint.");
    const graphql = await fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ upstream { url lastError } }' }) });
    const answer = await graphql.text();
    expect(JSON.parse(answer).data.upstream).toEqual({ url: shown, lastError: status.upstream.lastError });
    while (!output.includes('failed after')) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const text of [output, JSON.stringify(status), answer]) for (const secret of ['pw-s3cret', 'q-s3cret', 't0ken-s3cret']) expect(text).not.toContain(secret);
  }, 30_000);
});
