// Depth and alias limits (graphql-armor's rules) count as the project always has: root fields at
// depth 1, fragments adding no depth, every alias counted (an aliased __typename too), and the
// refusal names the limit with its value. Before parsing, a document's nesting and tokens are bounded:
// graphql-js parses recursively, and a deep enough document would overflow its stack. Every refusal is a
// 400, and a client's mistake logs nothing.
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { createNodeServer } from '../src/server/http.js';
import { nestingOf } from '../src/server/limits.js';
import { harness, tempDbFile } from './helpers.js';

const nested = (levels: number) => {
  let selection = 'name';
  for (let i = 0; i < levels; i++) selection = `parent { ${selection} }`;
  return selection;
};

describe('depth and alias limits', () => {
  const h = harness();
  const errors = async (query: string) => (await h.gql(query, {}, { allowErrors: true })).errors?.map((e: any) => e.message) ?? [];

  it('depth 15 passes, 16 is refused with the depth found', async () => {
    // resourceProviders 1, nodes 2, then parent... and name at the bottom.
    expect(await errors(`{ resourceProviders(first: 1) { nodes { ${nested(12)} } } }`)).toEqual([]);
    expect(await errors(`{ resourceProviders(first: 1) { nodes { ${nested(13)} } } }`)).toEqual(['Query depth 16 exceeds the limit maxDepth = 15.']);
  });

  it('fragments add no depth', async () => {
    const query = `{ resourceProviders(first: 1) { nodes { ...F } } } fragment F on ResourceProvider { ... on ResourceProvider { ${nested(12)} } }`;
    expect(await errors(query)).toEqual([]);
  });

  it('counts every alias, __typename included: 50 pass, 51 are refused', async () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `t${i}: __typename`).join(' ');
    expect(await errors(`{ ${aliases(50)} }`)).toEqual([]);
    expect(await errors(`{ ${aliases(51)} }`)).toEqual(['Number of aliases 51 exceeds the limit maxAliases = 50.']);
  });
});

describe('nesting and tokens, before parsing', () => {
  // Production defaults: errors masked, so an unexpected failure would answer "Unexpected error." and log its stack.
  const yoga = createServer({ db: openDatabase(tempDbFile()) });
  const logged: unknown[][] = [];
  for (const method of ['error', 'warn', 'info', 'log'] as const) vi.spyOn(console, method).mockImplementation((...args) => void logged.push(args));
  afterEach(() => expect(logged).toEqual([]));

  const send = async (query: string, base?: string) => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) };
    const response = base ? await fetch(`${base}/graphql`, init) : await yoga.fetch('http://test/graphql', init);
    return { status: response.status, body: (await response.json()) as any };
  };
  const refusal = (limit: string, value: number, allowed: number, message: string) => ({ errors: [{ message, extensions: { code: 'LIMIT_EXCEEDED', limit, value, allowed } }] });
  const deep = (levels: number) => `{ ${'resourceProviders { nodes { '.repeat(levels / 2)}name${' } }'.repeat(levels / 2)} }`;

  it('a document 5,000 deep is refused with 400 before it is parsed, in yoga and in the fast lane', async () => {
    const node = createNodeServer(yoga);
    await new Promise<void>((resolve) => node.http.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(node.http.address() as AddressInfo).port}`;
      for (const query of [deep(5_000), `{ placementCandidates(query: ${'['.repeat(5_000)}${']'.repeat(5_000)}) { __typename } }`]) {
        for (const via of [undefined, base]) {
          const answer = await send(query, via);
          expect(answer.status).toBe(400);
          expect(answer.body).toEqual(refusal('maxNesting', query.startsWith('{ place') ? 5_002 : 5_001, 64, `Nesting of brackets ${query.startsWith('{ place') ? 5_002 : 5_001} exceeds the limit maxNesting = 64.`));
        }
      }
    } finally {
      await new Promise((resolve) => node.http.close(resolve));
    }
  });

  it('a depth past maxDepth is a 400 too, and a document of more than maxTokens tokens', async () => {
    const tooDeep = await send(deep(20));
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.errors[0].message).toBe('Query depth 21 exceeds the limit maxDepth = 15.');
    const many = await send(`{ ${'__typename '.repeat(20_001)}}`);
    expect(many.status).toBe(400);
    expect(many.body).toEqual(refusal('maxTokens', 20_001, 20_000, 'Document of more than 20000 tokens exceeds the limit maxTokens = 20000.'));
  });

  it('counts the brackets of the document, not those inside strings, block strings and comments', () => {
    expect(nestingOf('{ a { b(x: [[1]]) } }')).toBe(5);
    expect(nestingOf('{ a(s: "{{{{\\"{{{", t: "[") }')).toBe(2);
    expect(nestingOf('{ a(s: """{{{ \\""" {{{""") # {{{{{\n { b } }')).toBe(2);
    expect(nestingOf('')).toBe(0);
  });
});
