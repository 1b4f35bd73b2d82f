// Every error path an answer can take, with the server's production defaults (errors masked): none may
// show an originalError, a stack, a file path or an internal name, and a client's mistake logs nothing. Besides the paths named below, every
// query and mutation field of the schema is called with hostile arguments built from its types.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  isUnionType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { createServer } from '../src/server.js';
import { loadAccessConfig } from '../src/server/access.js';
import { createNodeServer, type NodeServer } from '../src/server/http.js';
import { getSchema } from '../src/schema.js';
import { demoCloud, tempDbFile } from './helpers.js';

const ADMIN = 'admin-token-0123456789';
const READER = 'reader-token-0123456789';

/** What an answer must never contain: parser and driver internals, stack frames, paths, our own code's names. */
const INTERNALS: [string, RegExp][] = [
  ['originalError', /originalError/],
  ['a stack', /"stack"|\n\s*at \S.*:\d+:\d+|\(\S+:\d+:\d+\)/],
  ['a file path', /\/work\/|\/src\/|\/home\/|\/usr\/|node_modules|file:\/\/|\.(ts|js|mjs|cjs):\d+|[A-Za-z]:\\\\/],
  ['an internal name', /SqliteError|SQLITE_[A-Z]|better-sqlite3|drizzle|sqlite_master|TypeError|ReferenceError|RangeError|Cannot read propert|is not a function|undefined is not|\bZodError|JSON\.parse|Unexpected token|yoga|envelop|pothos/i],
];

/** Answers seen, so the last test can say how many were checked. */
const checked: string[] = [];

function expectClean(what: string, text: string) {
  checked.push(what);
  for (const [name, pattern] of INTERNALS) {
    const found = text.match(pattern);
    expect(found, `${what}: the answer shows ${name} (${found?.[0]}): ${text.slice(0, 400)}`).toBeNull();
  }
}

type Transport = 'in process' | 'over HTTP';
const servers: NodeServer[] = [];
afterAll(() => Promise.all(servers.map((n) => new Promise((r) => (n.http.closeAllConnections(), n.http.close(r))))));

/** A server with tokens; requests through yoga.fetch, or over a real socket (the path `serve` takes, fast lane included). */
function setup(options: Partial<Parameters<typeof createServer>[0]> = {}, transport: Transport = 'in process') {
  const db = openDatabase(tempDbFile());
  importSnapshot(db, demoCloud());
  const yoga = createServer({ db, access: loadAccessConfig(undefined, `admin:${ADMIN},reader:${READER}`), ...options });
  let base: Promise<string> | null = null;
  if (transport === 'over HTTP') {
    const node = createNodeServer(yoga);
    servers.push(node);
    base = new Promise((resolve) => node.http.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(node.http.address() as AddressInfo).port}`)));
  }
  const fetchFrom = async (path: string, init: RequestInit) => (base ? fetch(`${await base}${path}`, init) : yoga.fetch(`http://test${path}`, init));
  const send = async (what: string, init: RequestInit & { path?: string; token?: string | null } = {}) => {
    const { path = '/graphql', token = ADMIN, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (rest.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
    const response = await fetchFrom(path, { ...rest, headers });
    const text = await response.text();
    expectClean(what, `${response.status} ${[...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${text}`);
    return { status: response.status, text, json: () => JSON.parse(text) };
  };
  const gql = (what: string, query: string, variables?: object, token: string | null = ADMIN) => send(what, { method: 'POST', body: JSON.stringify({ query, variables }), token });
  return { db, yoga, send, gql };
}

const UUID = 'c0ffee00-0000-4000-8000-000000000001';

describe.each(['in process', 'over HTTP'] as const)('error answers show nothing of the inside (%s)', (transport) => {
  const { send, gql } = setup({}, transport);
  // A client's mistake is answered, not logged: only an unexpected failure inside logs (its stack, for the operator).
  const logged: unknown[][] = [];
  beforeEach(() => {
    logged.length = 0;
    for (const method of ['error', 'warn', 'info', 'log'] as const) vi.spyOn(console, method).mockImplementation((...args) => void logged.push(args));
  });
  afterEach((context) => {
    vi.restoreAllMocks();
    if (context.task.name !== 'an unexpected failure inside is masked') expect(logged, 'logged for a client mistake').toEqual([]);
  });

  it('requests the server cannot read', async () => {
    expect((await send('invalid JSON', { method: 'POST', body: '{bad json' })).status).toBe(400);
    expect((await send('JSON that is not an object', { method: 'POST', body: '[1,2' })).status).toBe(400);
    await send('a JSON array of nonsense', { method: 'POST', body: '[{"query": 1}]' });
    await send('no query', { method: 'POST', body: '{}' });
    expect((await send('query not a string', { method: 'POST', body: '{"query": {"a": 1}}' })).status).toBe(400);
    expect((await send('variables not an object', { method: 'POST', body: '{"query": "{ __typename }", "variables": "x"}' })).status).toBe(400);
    expect((await send('extensions not an object', { method: 'POST', body: '{"query": "{ __typename }", "extensions": 3}' })).status).toBe(400);
    await send('an unknown content type', { method: 'POST', body: 'query=1', headers: { 'content-type': 'text/plain' } });
    await send('a form body', { method: 'POST', body: 'query=%7B', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await send('a multipart body', { method: 'POST', body: '--x\r\n\r\n--x--', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expect((await send('bad UTF-8', { method: 'POST', body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) })).status).toBe(400);
    expect((await send('a body over the limit (Content-Length)', { method: 'POST', body: `{"query": "{ __typename }", "pad": "${'x'.repeat(1_100_000)}"}` })).status).toBe(413);
    expect((await send('an unknown path', { path: '/nothing-here' })).status).toBe(404);
    await send('a path traversal', { path: '/graphql/../../etc/passwd' });
    expect((await send('PUT', { method: 'PUT', body: '{"query": "{ __typename }"}' })).status).toBe(405);
    expect((await send('DELETE', { method: 'DELETE' })).status).toBe(405);
    expect((await send('a mutation over GET', { path: '/graphql?query=' + encodeURIComponent('mutation { createTrait(input: {name: "CUSTOM_X"}) { __typename } }') })).status).toBe(405);
    await send('GET without a query', { path: '/graphql', headers: { accept: 'application/json' } });
    const badVariables = await send('GET with bad variables', { path: '/graphql?query=%7B__typename%7D&variables=%7Bbad', headers: { accept: 'application/json' } });
    expect([badVariables.status, badVariables.json().errors[0].message]).toEqual([400, 'The variables or extensions of the query string are not valid JSON.']);
    expect((await send('a form body with bad variables', { method: 'POST', body: 'query=%7B__typename%7D&variables=%7Bbad', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    expect((await send('an unknown accept', { method: 'POST', body: '{"query": "{ __typename }"}', headers: { accept: 'image/png' } })).status).toBe(406);
  });

  it('access', async () => {
    expect((await gql('no token', '{ resourceProviders { totalCount } }', undefined, null)).status).toBe(401);
    expect((await gql('an unknown token', '{ resourceProviders { totalCount } }', undefined, 'x'.repeat(40))).status).toBe(401);
    expect((await gql('a reader sending a mutation', 'mutation { createTrait(input: {name: "CUSTOM_X"}) { __typename } }', undefined, READER)).status).toBe(403);
    expect((await send('/metrics without a token', { path: '/metrics', token: null })).status).toBe(401);
    expect((await send('a Basic authorization', { path: '/graphql?query=%7B__typename%7D', token: null, headers: { authorization: 'Basic YTpi', accept: 'application/json' } })).status).toBe(401);
  });

  it('documents that do not parse or validate, and limits', async () => {
    await gql('a syntax error', '{ resourceProviders { ');
    await gql('an unknown field', '{ nothing }');
    await gql('an unknown argument', '{ resourceProviders(bogus: 1) { totalCount } }');
    await gql('a missing selection', '{ resourceProviders }');
    await gql('an unknown fragment', '{ ...Nope }');
    await gql('a fragment cycle', 'fragment A on Query { ...B } fragment B on Query { ...A } { ...A }');
    await gql('two anonymous operations', '{ __typename } { __typename }');
    await send('an unknown operation name', { method: 'POST', body: JSON.stringify({ query: 'query A { __typename }', operationName: 'B' }) });
    await gql('a variable of the wrong type', 'query($n: Int) { resourceProviders(first: $n) { totalCount } }', { n: 'many' });
    await gql('a variable out of Int range', 'query($n: Int) { resourceProviders(first: $n) { totalCount } }', { n: 2 ** 40 });
    await gql('a variable missing', 'query($u: UUID!) { resourceProvider(uuid: $u) { name } }');
    await gql('a bad UUID literal', `{ resourceProvider(uuid: "not-a-uuid") { name } }`);
    await gql('a bad UUID variable', 'query($u: UUID!) { resourceProvider(uuid: $u) { name } }', { u: { $gt: '' } });
    await gql('a bad global id', '{ node(id: "not-an-id") { id } }');
    await gql('a global id of another shape', `{ node(id: "${Buffer.from('Nothing:1').toString('base64')}") { id } }`);
    await gql('a bad cursor', '{ resourceProviders(after: "%%%") { totalCount } }');
    await gql('a negative page', '{ resourceProviders(first: -1) { totalCount } }');
    await gql('a page too large', '{ resourceProviders(first: 5000) { totalCount } }');
    let deep = 'name';
    for (let i = 0; i < 16; i++) deep = `children { ${deep} }`;
    await gql('too deep', `{ resourceProviders(first: 1) { nodes { ${deep} } } }`);
    await gql('too many aliases', `{ ${Array.from({ length: 60 }, (_, i) => `a${i}: __typename`).join(' ')} }`);
    await gql('too costly', '{ resourceProviders(first: 1000) { nodes { tree { children { children { allocations { consumer { allocations { resources { amount } } } } } } } } } }');
    await gql('a bad Placement query string', '{ placementCandidates(query: "resources=VCPU:x&required=!!") { __typename ... on RequestError { status message } } }');
    await gql('a bad microversion', '{ placementCandidates(query: "resources=VCPU:1", microversion: "9.99") { __typename ... on RequestError { status message } } }');
    const subscription = await gql('a subscription over plain JSON', 'subscription { providerChanged { kind } }');
    expect(subscription.status).toBe(406);
    expect(subscription.json().errors[0].message).toContain('Accept: text/event-stream');
  });

  it('domain errors of mutations', async () => {
    const rp = JSON.parse((await gql('a read', '{ resourceProviders(first: 1, filter: {name: "compute-01"}) { nodes { uuid generation } } }')).text).data.resourceProviders.nodes[0];
    await gql('a name taken', 'mutation { createResourceProvider(input: {name: "compute-01"}) { __typename ... on DomainError { message code } } }');
    await gql('a generation conflict', `mutation { setProviderTraits(input: {uuid: "${rp.uuid}", generation: ${rp.generation + 7}, traits: []}) { __typename ... on DomainError { message code } } }`);
    await gql('not found', `mutation { deleteResourceProvider(input: {uuid: "${UUID}"}) { __typename ... on DomainError { message code } } }`);
    await gql('in use', `mutation { deleteResourceProvider(input: {uuid: "${rp.uuid}"}) { __typename ... on DomainError { message code } } }`);
    await gql('over capacity', `mutation { setAllocations(input: {consumerUuid: "${UUID}", projectId: "p", userId: "u", allocations: [{providerUuid: "${rp.uuid}", resources: [{resourceClass: "VCPU", amount: 100000}]}]}) { __typename ... on DomainError { message code } } }`);
    await gql('bad provider config YAML', 'query { validateProviderConfig(documents: [{name: "a.yaml", content: "meta: [&a\\n x: *b"}]) { valid errors { message } } }');
    await gql('an alias bomb', `query { validateProviderConfig(documents: [{name: "b.yaml", content: ${JSON.stringify(bomb())}}]) { valid errors { message } } }`);
  });

  it('an unexpected failure inside is masked, and logged for the operator with its cause', async () => {
    const broken = setup({}, transport);
    broken.db.close();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const answer = await broken.gql('a closed database', '{ resourceProviders { totalCount } }');
      expect(answer.json().errors[0].message).toBe('Unexpected error.');
      await broken.gql('a closed database under a mutation', 'mutation { createTrait(input: {name: "CUSTOM_Y"}) { __typename } }');
      expect(logged.mock.calls.map((args) => String(args.at(-1)))).toEqual([expect.stringContaining('The database connection is not open'), expect.stringContaining('The database connection is not open')]);
    } finally {
      logged.mockRestore();
    }
  });

  it('every query and mutation field, called with hostile arguments', async () => {
    const schema = getSchema();
    let calls = 0;
    for (const [operation, type] of [['query', schema.getQueryType()!], ['mutation', schema.getMutationType()!]] as const) {
      for (const field of Object.values(type.getFields())) {
        for (const variant of [0, 1, 2]) {
          const args = field.args.filter((a) => isNonNullType(a.type) || variant > 0);
          const text = args.length ? `(${args.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
          const declared = args.length ? `(${args.map((a) => `$${a.name}: ${a.type}`).join(', ')})` : '';
          const variables = Object.fromEntries(args.map((a) => [a.name, hostile(a.type, variant, 0)]));
          const document = `${operation} Sweep${declared} { ${field.name}${text} ${selection(field)} }`;
          await gql(`${operation} ${field.name} #${variant}`, document, variables);
          calls++;
        }
      }
    }
    expect(calls).toBeGreaterThan(150);
  });

  afterAll(() => {
    // The sweep is only worth what it covered.
    expect(checked.length).toBeGreaterThan(200);
    console.log(`error sweep: ${checked.length} answers checked so far, none shows internals`);
  });
});

describe('over HTTP', () => {
  it('refusals at the socket show nothing of the inside either', async () => {
    const { yoga } = setup({ limits: { maxBodyBytes: 1_000, maxConnectionsPerAddress: 1, maxStreams: 1, maxStreamsPerAddress: 1 } });
    const node = createNodeServer(yoga);
    await new Promise<void>((resolve) => node.http.listen(0, '127.0.0.1', resolve));
    const port = (node.http.address() as AddressInfo).port;
    const raw = (headers: Record<string, string>, body: string, localAddress = '127.0.0.1') =>
      new Promise<string>((resolve, reject) => {
        const request = httpRequest({ host: '127.0.0.1', port, localAddress, path: '/graphql', method: 'POST', agent: false, headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}`, ...headers } }, (response) => {
          let text = `${response.statusCode} ${JSON.stringify(response.headers)}\n`;
          response.on('data', (c) => (text += c));
          response.on('end', () => resolve(text));
        });
        request.on('error', reject);
        request.end(body);
      });
    try {
      expectClean('a chunked body over the limit', await raw({ 'transfer-encoding': 'chunked' }, `{"query": "{ __typename }", "pad": "${'x'.repeat(5_000)}"}`));
      expectClean('a malformed chunked body', await raw({ 'transfer-encoding': 'chunked', 'content-length': '5' }, 'zz').catch((e) => String(e.code)));
      const held = httpRequest({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', agent: false, headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` } });
      held.on('error', () => {});
      held.end(JSON.stringify({ query: 'subscription { providerChanged { kind } }' }));
      await new Promise((r) => held.once('response', r));
      const refused = await raw({}, '{"query": "{ __typename }"}');
      expect(refused).toMatch(/^429 /);
      expectClean('a connection past the per-address cap', refused);
      const stream = await raw({ accept: 'text/event-stream' }, JSON.stringify({ query: 'subscription { providerChanged { kind } }' }), '127.0.0.2');
      expect(stream).toMatch(/^503 /);
      expectClean('a stream past the total cap', stream);
      held.destroy();
    } finally {
      node.http.closeAllConnections();
      await new Promise((r) => node.http.close(r));
    }
  });
});

/** A YAML document whose aliases expand to billions of nodes. */
function bomb() {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
  return lines.join('\n');
}

/** The smallest selection a field's type accepts, with the message and code of domain errors. */
function selection(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (isUnionType(type)) return `{ __typename ... on DomainError { message code } }`;
  if (isObjectType(type)) return '{ __typename }';
  return '';
}

/** A value of an input type that a careless or hostile client might send: empty, huge, non-finite, malformed. */
function hostile(type: GraphQLInputType, variant: number, depth: number): unknown {
  const inner = getNullableType(type) as GraphQLInputType;
  if (isListType(inner)) return depth > 3 ? [] : variant === 2 ? Array.from({ length: 3 }, () => hostile(inner.ofType, variant, depth + 1)) : [hostile(inner.ofType, variant, depth + 1)];
  if (isEnumType(inner)) return inner.getValues()[variant % inner.getValues().length].name;
  if (isInputObjectType(inner)) {
    return Object.fromEntries(
      Object.values(inner.getFields())
        .filter((f) => isNonNullType(f.type) || variant > 0)
        .map((f) => [f.name, depth > 4 ? null : hostile(f.type, variant, depth + 1)]),
    );
  }
  if (isScalarType(inner)) {
    switch (inner.name) {
      case 'Int':
        return [-1, 2_147_483_647, 0][variant];
      case 'Float':
        return [-1e308, 1.7976931348623157e308, 5e-324][variant];
      case 'Boolean':
        return variant === 1;
      case 'UUID':
        return ['not-a-uuid', UUID, 'C0FFEE00000040008000000000000001'][variant];
      case 'ID':
        return ['', Buffer.from('ResourceProvider:' + UUID).toString('base64'), '\u0000'][variant];
      default:
        return ['', 'CUSTOM_' + 'X'.repeat(300), '../../../etc/passwd\u0000"\'<script>'][variant];
    }
  }
  return null;
}
