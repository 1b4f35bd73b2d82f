// Access control, limits, live updates over SSE, health, metrics and request ids.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { createServer } from '../src/server.js';
import { loadAccessConfig, roleOf } from '../src/server/access.js';
import { demoCloud, tempDbFile } from './helpers.js';

const ADMIN = 'admin-token-0123456789';
const READER = 'reader-token-0123456789';

function server(options: Partial<Parameters<typeof createServer>[0]> = {}) {
  const db = openDatabase(tempDbFile());
  importSnapshot(db, demoCloud());
  const logs: any[] = [];
  const yoga = createServer({ db, access: loadAccessConfig(undefined, `admin:${ADMIN},reader:${READER}`), log: (e) => logs.push(e), ...options });
  const post = async (query: string, token?: string, variables?: object, headers: Record<string, string> = {}) => {
    const response = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  return { db, yoga, post, logs };
}

const CREATE = `mutation { createResourceProvider(input: {name: "new-one"}) { __typename } }`;

describe('access control', () => {
  it('needs a token for reads, and admin for mutations', async () => {
    const { post } = server();
    expect((await post('{ resourceProviders { totalCount } }')).status).toBe(401);
    expect((await post('{ resourceProviders { totalCount } }', 'wrong-token-0123456789')).status).toBe(401);
    expect((await post('{ resourceProviders { totalCount } }', READER)).body).toEqual({ data: { resourceProviders: { totalCount: 33 } } });
    const denied = await post(CREATE, READER);
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0].message).toContain('needs the admin role');
    expect((await post(CREATE, ADMIN)).body.data.createResourceProvider.__typename).toBe('ResourceProviderPayload');
    expect((await post('{ resourceProviders { totalCount } }', ADMIN)).body.data.resourceProviders.totalCount).toBe(34);
  });

  it('node(id) and introspection cannot bypass the check', async () => {
    const { post } = server();
    const id = (await post('{ resourceProviders(first: 1) { nodes { id } } }', READER)).body.data.resourceProviders.nodes[0].id;
    const anonymous = await post('query($id: ID!) { node(id: $id) { id ... on ResourceProvider { name } } }', undefined, { id });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.data).toBeUndefined();
    expect((await post('{ __schema { types { name } } }')).status).toBe(401);
    expect((await post('query($id: ID!) { node(id: $id) { id } }', READER, { id })).body.data.node.id).toBe(id);
  });

  it('reads token files and refuses bad configuration', () => {
    expect(() => loadAccessConfig(undefined, 'root:abcdefghijklmnopqrstuvwxyz')).toThrow(/the role must be reader or admin/);
    expect(() => loadAccessConfig(undefined, 'admin:short')).toThrow(/at least 16 characters/);
    const config = loadAccessConfig(undefined, `reader:${READER}`);
    expect(roleOf(config, `Bearer ${READER}`)).toBe('reader');
    expect(roleOf(config, `Basic ${READER}`)).toBeNull();
    expect(roleOf(loadAccessConfig(undefined, undefined), null)).toBe('admin');
  });
});

describe('token values are never printed', () => {
  const SECRET = 'secret-token-value-0123456789';
  const message = (load: () => unknown) => {
    try {
      load();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('accepted');
  };
  const file = (text: string, mode = 0o600) => {
    const path = join(mkdtempSync(join(tmpdir(), 'tokens-')), 'tokens.json');
    writeFileSync(path, text, { mode });
    chmodSync(path, mode);
    return path;
  };

  it('not when the tokens file is not JSON: where it stops is said by line and column', () => {
    const path = file(`{"tokens": [\n  {"role": "admin", "token": "${SECRET}" x}\n]}`);
    const text = message(() => loadAccessConfig(path, undefined));
    expect(text).toBe(`cannot read the tokens file ${path}: it is not valid JSON (line 2, column 62)`);
    const quoted = file(`${SECRET}`);
    expect(message(() => loadAccessConfig(quoted, undefined))).not.toContain('secret');
  });

  it('not when an entry is malformed: no role or value is quoted back', () => {
    for (const env of [SECRET, `${SECRET}:admin`, `admin:${SECRET},${SECRET}`]) expect(message(() => loadAccessConfig(undefined, env))).not.toContain('secret');
    const swapped = file(JSON.stringify({ tokens: [{ role: SECRET, token: 'admin' }] }));
    expect(message(() => loadAccessConfig(swapped, undefined))).toBe(`${swapped}: tokens.0: the role must be reader or admin`);
  });

  it('a tokens file other users may read is accepted with a one-line warning naming it and chmod 600', () => {
    const warnings: string[] = [];
    const loose = file(JSON.stringify({ tokens: [{ role: 'admin', token: SECRET }] }), 0o644);
    expect(loadAccessConfig(loose, undefined, (w) => warnings.push(w)).tokens.get(SECRET)).toBe('admin');
    expect(warnings).toEqual([`Warning: the tokens file ${loose} is open to other users (mode 644); restrict it with chmod 600 ${loose}`]);
    loadAccessConfig(file(JSON.stringify({ tokens: [{ role: 'admin', token: SECRET }] }), 0o600), undefined, (w) => warnings.push(w));
    expect(warnings).toHaveLength(1);
  });

  it('serve prints neither, and warns once under --workers', async () => {
    const broken = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--db', tempDbFile(), '--tokens', file(`{"tokens": [{"role": "admin", "token": "${SECRET}"]}`)], { encoding: 'utf8' });
    expect(broken.status).toBe(1);
    expect(broken.stderr).toContain('it is not valid JSON');
    expect(broken.stderr + broken.stdout).not.toContain('secret');
    const loose = file(JSON.stringify({ tokens: [{ role: 'admin', token: SECRET }] }), 0o644);
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--quiet', '--workers', '2', '--port', '0', '--db', tempDbFile(), '--tokens', loose], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    server.stderr!.on('data', (c) => (err += c));
    try {
      await new Promise<void>((resolve, reject) => {
        server.stdout!.on('data', (c) => (out += c).includes('GraphiQL:') && resolve());
        server.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
      });
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
    expect(err.trim().split('\n')).toEqual([`Warning: the tokens file ${loose} is open to other users (mode 644); restrict it with chmod 600 ${loose}`]);
    expect(out + err).not.toContain('secret');
  });
});

describe('limits', () => {
  it('refuses deep, aliased and costly queries, naming the limit and its value', async () => {
    const { post, yoga } = server();
    let deep = 'name';
    for (let i = 0; i < 16; i++) deep = `children { ${deep} }`;
    const tooDeep = await post(`{ resourceProviders(first: 1) { nodes { ${deep} } } }`, READER);
    expect(tooDeep.body.errors[0].message).toMatch(/Query depth \d+ exceeds the limit maxDepth = 15/);
    const aliases = Array.from({ length: 60 }, (_, i) => `a${i}: resourceClasses { totalCount }`).join(' ');
    expect((await post(`{ ${aliases} }`, READER)).body.errors.map((e: any) => e.message)).toContain('Number of aliases 60 exceeds the limit maxAliases = 50.');
    const costly = await post('{ resourceProviders(first: 1000) { nodes { tree { children { children { allocations { consumer { allocations { resources { amount } } } } } } } } } }', READER);
    expect(costly.body.errors[0].message).toMatch(/Estimated query cost \d+ exceeds the limit maxCost = 200000/);
    const pageTooBig = await post('{ resourceProviders(first: 5000) { totalCount } }', READER);
    expect(pageTooBig.body.errors[0].message).toBe('first must be between 0 and 1000 (got 5000).');
    const huge = await post(`{ resourceProviders { totalCount } } # ${'x'.repeat(1_100_000)}`, READER);
    expect(huge.status).toBe(413);
    expect(huge.body.errors[0].message).toContain('maxBodyBytes = 1000000');
    expect(await yoga.metrics.render()).toMatch(/placement_gql_refused_total\{reason="maxDepth"\} 1/);
  });

  it('lets a dashboard page through', async () => {
    const { post } = server();
    const page = await post(
      '{ resourceProviders(first: 100) { totalCount nodes { uuid name parent { name } children { name } inventories { resourceClass capacity used free } traits aggregates } } }',
      READER,
    );
    expect(page.body.errors).toBeUndefined();
  });
});

describe('observability', () => {
  it('serves health and Prometheus metrics, logs each operation with its request id', async () => {
    const { post, yoga, logs } = server();
    expect((await yoga.fetch('http://test/health')).status).toBe(200);
    const answer = await post('query Dash { resourceProviders { totalCount } }', READER, undefined, { 'x-request-id': 'req-42' });
    expect(answer.headers.get('x-request-id')).toBe('req-42');
    await post('query Dash { resourceProviders { totalCount } }', READER);
    expect(logs.at(-2)).toMatchObject({ level: 'info', requestId: 'req-42', operation: 'Dash', type: 'query' });
    expect(logs.at(-1).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(logs)).not.toContain(READER);
    const refused = await yoga.fetch('http://test/metrics');
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('needs a bearer token');
    expect((await yoga.fetch('http://test/metrics', { headers: { authorization: 'Bearer not-a-known-token-000' } })).status).toBe(401);
    const metrics = await (await yoga.fetch('http://test/metrics', { headers: { authorization: `Bearer ${READER}` } })).text();
    expect(metrics).toContain('placement_gql_requests_total{operation="Dash",type="query"} 2');
    expect(metrics).toMatch(/placement_gql_request_duration_seconds_count\{operation="Dash",type="query"\} 2/);
    expect(metrics).toMatch(/placement_gql_sql_statements_total [1-9]\d*/);
  });

  it('writes the Prometheus text format through prom-client, with the process\'s own metrics when asked', async () => {
    const { yoga, post } = server({ access: undefined, processMetrics: true });
    await post('{ candidates(request: {groups: [{resources: [{resourceClass: "VCPU", amount: 1}]}]}) { ... on Candidates { count } } }');
    const response = await yoga.fetch('http://test/metrics');
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    expect(text).toContain('# TYPE placement_gql_requests_total counter');
    expect(text).toContain('# TYPE placement_gql_request_duration_seconds histogram');
    expect(text).toContain('placement_gql_request_duration_seconds_bucket{le="+Inf",operation="anonymous",type="query"} 1');
    expect(text).toContain('placement_gql_candidate_searches_total 1');
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    // Statements are counted, not re-added, from one scrape to the next: a scrape of unchanged data runs
    // one (the capacity figures' check that the data is unchanged).
    const statements = async () => Number((await (await yoga.fetch('http://test/metrics')).text()).match(/placement_gql_sql_statements_total (\d+)/)![1]);
    const first = await statements();
    expect(await statements()).toBe(first + 1);
    expect(await statements()).toBe(first + 2);
  });
});

describe('answers show no internals', () => {
  it.each([undefined, 'application/json', 'application/graphql-response+json'])('a body that is not JSON is a 400 without the parser\'s error (accept %s)', async (accept) => {
    const { yoga } = server({ access: undefined });
    const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) }, body: '{bad json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ errors: [{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }] });
  });
});

describe('metrics labels', () => {
  it('folds operation names past the first 100 distinct ones, and over-long ones, into "other"', async () => {
    const { yoga } = server({ access: undefined });
    const run = (name: string) => yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: `query ${name} { __typename }` }) });
    for (let i = 0; i < 120; i++) await run(`Op${i}`);
    await run('L' + 'x'.repeat(80));
    const text = await (await yoga.fetch('http://test/metrics')).text();
    const names = new Set([...text.matchAll(/placement_gql_requests_total\{operation="([^"]+)"/g)].map((m) => m[1]));
    expect(names.size).toBe(101);
    expect(text).toContain('placement_gql_requests_total{operation="Op99",type="query"} 1');
    expect(text).toContain('placement_gql_requests_total{operation="other",type="query"} 21');
    expect(text).not.toContain('Op100');
  });
});

describe('metrics access', () => {
  it('serves /metrics without a token when told to (--metrics-open), and always on open access', async () => {
    expect((await server({ metricsOpen: true }).yoga.fetch('http://test/metrics')).status).toBe(200);
    expect((await server({ access: undefined }).yoga.fetch('http://test/metrics')).status).toBe(200);
  });
});

describe('live updates', () => {
  it('streams provider and usage changes to a subscribed dashboard over SSE', async () => {
    const { post, yoga } = server();
    const target = (await post('{ resourceProviders(first: 1, filter: {name: "compute-01"}) { nodes { uuid generation } } }', READER)).body.data.resourceProviders.nodes[0];
    const response = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${READER}` },
      body: JSON.stringify({ query: `subscription { providerChanged(uuids: ["${target.uuid}"]) { kind mutation providerUuid provider { name traits generation } } }` }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const events: any[] = [];
    const reading = (async () => {
      let buffer = '';
      while (events.length < 1) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += new TextDecoder().decode(value);
        for (const block of buffer.split('\n\n').slice(0, -1)) {
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) events.push(JSON.parse(data.slice(6)));
        }
        buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 2);
      }
    })();
    await new Promise((r) => setTimeout(r, 50));
    // A change to another provider is not sent; the change to this one is.
    await post(CREATE, ADMIN);
    await post(`mutation { setProviderTraits(input: {providerUuid: "${target.uuid}", generation: ${target.generation}, traits: ["COMPUTE_NODE"]}) { __typename } }`, ADMIN);
    await reading;
    await reader.cancel();
    expect(events[0].data.providerChanged).toEqual({ kind: 'TRAITS', mutation: 'setProviderTraits', providerUuid: target.uuid, provider: { name: 'compute-01', traits: ['COMPUTE_NODE'], generation: target.generation + 1 } });
  });

  it('refuses a subscription without a token', async () => {
    const { yoga } = server();
    const response = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { usageChanged { consumerUuid } }' }),
    });
    const text = await response.text();
    expect(text).toContain('A valid bearer token is required');
  });
});
