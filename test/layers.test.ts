// The layering ARCHITECTURE.md states, checked on the import statements of src/: no import cycles,
// and domain code (rules, services, stores, tables, catalogs) that imports no GraphQL, no Pothos,
// no server and no command line. And a refusal of the domain reaches clients as it always has.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { tempDbFile } from './helpers.js';
import { cycles, readImportGraph } from './import-graph.js';

/** The layers above the domain, by file name; every other file of src/ is domain code. */
const LAYERS: Record<string, RegExp[]> = {
  rest: [/^src\/rest\//],
  graphql: [/^src\/(builder|schema|context|loaders)\.ts$/, /\.graphql\.ts$/, /\.loaders\.ts$/, /^src\/modules\/index\.ts$/, /^src\/modules\/common\/(connection|mutation)\.ts$/],
  server: [/^src\/server\.ts$/, /^src\/server\//],
  cli: [/^src\/(main|commands|command)\.ts$/, /\.command\.ts$/, /^src\/cli\//],
};
const layerOf = (file: string) => Object.keys(LAYERS).find((layer) => LAYERS[layer].some((pattern) => pattern.test(file))) ?? 'domain';
/** What each layer may import: the command line and the server everything below them; GraphQL and Placement's REST API, side by side, only the domain. */
const MAY_IMPORT: Record<string, string[]> = {
  cli: ['cli', 'server', 'graphql', 'rest', 'domain'],
  server: ['server', 'graphql', 'rest', 'domain'],
  graphql: ['graphql', 'domain'],
  rest: ['rest', 'domain'],
  domain: ['domain'],
};
/** Packages of the GraphQL and server layers. */
const GRAPHQL_PACKAGES = /^(graphql|graphql-yoga|graphql-jit|@pothos\/.*|@envelop\/.*|@graphql-yoga\/.*|@escape\.tech\/graphql-armor.*)$/;

const graph = readImportGraph();

describe('import rules', () => {
  it('reads the imports of every file', () => {
    expect(graph.files.get('src/server.ts')).toContain('src/schema.ts');
    expect(graph.packages.get('src/builder.ts')).toContain('@pothos/core');
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(layerOf('src/modules/providers/providers.service.ts')).toBe('domain');
    expect(layerOf('src/modules/providers/providers.graphql.ts')).toBe('graphql');
  });

  it('has no import cycle among the files of src/', () => {
    expect(cycles(graph.files)).toEqual([]);
  });

  it('has every import go inwards: the command line and the server over GraphQL and the REST API, those over the domain', () => {
    expect(layerOf('src/rest/api.ts')).toBe('rest');
    const breaches: string[] = [];
    for (const [file, targets] of graph.files) {
      const from = layerOf(file);
      for (const target of targets) if (!MAY_IMPORT[from].includes(layerOf(target))) breaches.push(`${file} (${from}) imports ${target} (${layerOf(target)})`);
      if (from === 'rest') for (const name of graph.packages.get(file) ?? []) if (GRAPHQL_PACKAGES.test(name)) breaches.push(`${file} imports ${name}`);
    }
    expect(breaches).toEqual([]);
  });

  it('keeps the rules free of the rest of the project: they import nothing of src/', () => {
    const breaches = [...graph.files].filter(([file]) => file.startsWith('src/rules/')).flatMap(([file, targets]) => targets.filter((t) => !t.startsWith('src/rules/')).map((t) => `${file} imports ${t}`));
    expect(breaches).toEqual([]);
  });

  it('keeps src/upstream a pure client of OpenStack services: it imports nothing of the database, the mirror or the modules', () => {
    const breaches = [...graph.files]
      .filter(([file]) => file.startsWith('src/upstream/'))
      .flatMap(([file, targets]) => targets.filter((t) => !t.startsWith('src/upstream/')).map((t) => `${file} imports ${t}`));
    expect(breaches).toEqual([]);
  });

  it('reaches the candidate engine through its face (src/modules/candidates/index.ts) from outside it', () => {
    const inside = (file: string) => file.startsWith('src/modules/candidates/');
    const breaches: string[] = [];
    for (const [file, targets] of graph.files) {
      if (inside(file)) continue;
      for (const target of targets) if (inside(target) && layerOf(target) === 'domain' && target !== 'src/modules/candidates/index.ts') breaches.push(`${file} imports ${target}`);
    }
    expect(breaches).toEqual([]);
  });

  it('keeps GraphQL, Pothos, the server and the command line out of domain code', () => {
    const breaches: string[] = [];
    for (const [file, targets] of graph.files) {
      if (layerOf(file) !== 'domain') continue;
      for (const target of targets) if (layerOf(target) !== 'domain') breaches.push(`${file} imports ${target} (${layerOf(target)} layer)`);
      for (const name of graph.packages.get(file) ?? []) if (GRAPHQL_PACKAGES.test(name)) breaches.push(`${file} imports ${name}`);
    }
    expect(breaches).toEqual([]);
  });
});

describe('domain refusals', () => {
  // Services throw RequestRefused (no GraphQL); the GraphQL layer reports it as Placement's 400, masked or not.
  for (const maskErrors of [true, false]) {
    it(`reach the client as BAD_REQUEST with the status (error masking ${maskErrors ? 'on' : 'off'})`, async () => {
      const yoga = createServer({ db: openDatabase(tempDbFile()), maskErrors });
      const response = await yoga.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ resourceProviders(filter: {required: ["CUSTOM_NOPE"]}) { totalCount } }' }),
      });
      expect(await response.json()).toEqual({
        data: null,
        errors: [
          {
            message: 'Invalid trait(s) in "required" parameter: No such trait(s): CUSTOM_NOPE.',
            locations: [{ line: 1, column: 3 }],
            path: ['resourceProviders'],
            extensions: { code: 'BAD_REQUEST', status: 400 },
          },
        ],
      });
    });
  }
});
