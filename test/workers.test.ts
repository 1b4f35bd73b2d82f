// serve --workers 2: two processes on one port. A change written through one worker reaches subscribers
// on every worker, /metrics counts the operations of all workers whichever answers, candidates see a
// write made through another worker, and SIGTERM stops them all with exit code 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest, Agent } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDbFile } from './helpers.js';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
let child: ChildProcess;
let port = 0;
let output = '';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

/** One request on a connection of its own (the primary hands connections to the workers in turn). */
function post(body: object, accept = 'application/json') {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/graphql', method: 'POST', agent: new Agent({ keepAlive: false }), headers: { 'content-type': 'application/json', accept, 'content-length': Buffer.byteLength(text) } },
      (res) => {
        let out = '';
        res.on('data', (c) => (out += c));
        res.on('end', () => resolve({ status: res.statusCode!, text: out }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** A subscription over SSE on its own connection: the events it receives. */
function subscribe(query: string) {
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

async function metric(name: string) {
  const res = await new Promise<string>((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path: '/metrics', agent: new Agent({ keepAlive: false }) }, (r) => {
      let out = '';
      r.on('data', (c) => (out += c));
      r.on('end', () => resolve(out));
    })
      .on('error', reject)
      .end();
  });
  return Number(res.match(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\d+)`, 'm'))?.[1] ?? 0);
}

beforeAll(async () => {
  port = await freePort();
  child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', '--db', tempDbFile(), '--demo', '--port', String(port), '--workers', '2', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => output.includes('GraphiQL:') && (clearInterval(check), resolve()), 50);
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
});
afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

describe('serve --workers 2', () => {
  it('announces the workers once', () => {
    expect(output.match(/GraphiQL:/g)).toHaveLength(1);
    expect(output).toContain('with 2 workers');
  });

  it('a change written through one worker reaches the subscribers of every worker', async () => {
    // Four connections, handed to the two workers in turn: both have subscribers.
    const subscriptions = Array.from({ length: 4 }, () => subscribe('subscription { providerChanged { kind mutation providerUuid } }'));
    await Promise.all(subscriptions.map((s) => s.opened));
    await new Promise((r) => setTimeout(r, 300));
    const created = JSON.parse((await post({ query: 'mutation { createResourceProvider(input: {name: "made-in-one-worker"}) { ... on ResourceProviderPayload { provider { uuid } } } }' })).text);
    const uuid = created.data.createResourceProvider.provider.uuid;
    const deadline = Date.now() + 10_000;
    while (subscriptions.some((s) => s.events.length === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const s of subscriptions) {
      s.stop();
      expect(s.events.map((e) => e.data.providerChanged)).toEqual([{ kind: 'PROVIDER', mutation: 'createResourceProvider', providerUuid: uuid }]);
    }
  });

  it('/metrics counts the operations of both workers, whichever answers', async () => {
    const before = await metric('placement_gql_requests_total{operation="Probe",type="query"}');
    for (let i = 0; i < 6; i++) expect((await post({ query: 'query Probe { __typename }' })).status).toBe(200);
    expect(await metric('placement_gql_requests_total{operation="Probe",type="query"}')).toBe(before + 6);
    expect(await metric('placement_gql_requests_total{operation="Probe",type="query"}')).toBe(before + 6);
  });

  it('candidates on either worker see an allocation written through the other', async () => {
    const query = 'query { placementCandidates(query: "resources=VCPU:1") { ... on Candidates { providerSummaries { provider { name } resources { resourceClass used } } } } }';
    const used = async () => {
      const answers = await Promise.all([post({ query }), post({ query })]);
      return answers.map((a) => JSON.parse(a.text).data.placementCandidates.providerSummaries.flatMap((s: any) => s.resources).filter((r: any) => r.resourceClass === 'VCPU').reduce((n: number, r: any) => n + r.used, 0));
    };
    const [a, b] = await used();
    expect(a).toBe(b);
    const target = JSON.parse((await post({ query: '{ placementCandidates(query: "resources=VCPU:1&limit=1") { ... on Candidates { allocationRequests { allocations { provider { uuid } } } } } }' })).text).data.placementCandidates.allocationRequests[0].allocations[0].provider.uuid;
    const written = await post({ query: `mutation { setAllocations(input: {consumerUuid: "00000000-0000-4000-8000-00000000cafe", projectId: "p", userId: "u", allocations: [{providerUuid: "${target}", resources: [{resourceClass: "VCPU", amount: 1}]}]}) { __typename } }` });
    expect(JSON.parse(written.text).data.setAllocations.__typename).not.toMatch(/Error|Conflict|Exceeded|NotFound|Invalid/);
    expect(await used()).toEqual([a + 1, a + 1]);
  });

  it('SIGTERM stops every worker and the primary exits 0', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('serve --workers 2 on a port already taken', () => {
  it('stops every worker and exits 1, saying once which port is taken', async () => {
    const taken = createNetServer();
    const busy = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as AddressInfo).port)));
    try {
      const server = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', '--quiet', '--workers', '2', '--db', tempDbFile(), '--port', String(busy)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let errors = '';
      server.stderr!.on('data', (chunk) => (errors += chunk));
      const code = await new Promise<number | null>((resolve) => server.once('exit', (c) => resolve(c)));
      expect(code, errors).toBe(1);
      expect(errors).toBe(`placement-gql: port ${busy} on 127.0.0.1 is in use by another program (another placement-gql?); stop it, or serve on another port with --port N\n`);
    } finally {
      taken.close();
    }
  });
});
