// resourceProviders(filter) compared with the real Placement 8.0.0's GET /resource_providers
// (golden answers in test/golden/listing, recorded with ../shared/oracle).
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixture, harness } from './helpers.js';
import type { ProviderFilter } from '../src/modules/providers/providers.service.js';

const LIST = `query($filter: ResourceProviderFilter, $after: String) {
  resourceProviders(filter: $filter, first: 1000, after: $after) { totalCount nodes { uuid } pageInfo { hasNextPage endCursor } }
}`;

const minor = (microversion: string) => Number(microversion.split('.')[1]);

// Why a recorded query is not compared: syntax Placement's parser judges before filtering (the GraphQL filter is
// typed: it has no query string to parse), and uuids that Placement's SQLite compares as exact text.
const PARSER = (what: string) => `tests Placement's query-string parser (${what}); the GraphQL filter is typed and has no query string`;
const UUID_SPELLING = 'a uuid in capitals or without dashes: Placement compares the text exactly, this API accepts any form of a uuid';

/**
 * The structured filter for one of Placement's listing query strings, with Placement's
 * microversion rules (1.39: repeated `required` is ANDed; before, the last one wins).
 * Returns the reason instead when the query cannot be compared.
 */
export function filterFromQuery(query: string, microversion: string): ProviderFilter | { skip: string } {
  if (!/^1\.\d+$/.test(microversion) || minor(microversion) > 39) return { skip: PARSER(`microversion ${microversion}`) };
  const params = new URLSearchParams(query);
  const known = new Set(['name', 'uuid', 'in_tree', 'member_of', 'required', 'resources']);
  for (const key of params.keys()) if (!known.has(key)) return { skip: PARSER(`parameter ${key}`) };
  const filter = { name: null as string | null, uuid: null as string | null, inTree: null as string | null, memberOf: [] as string[][], notMemberOf: [] as string[], required: [] as string[], forbidden: [] as string[], anyOf: [] as string[][], resources: [] as { resourceClass: string; amount: number }[] };
  const uuidLike = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const uuid = (value: string) => {
    if (uuidLike.test(value)) return value;
    throw new Error(/^[0-9a-f]{32}$/i.test(value) || uuidLike.test(value.toLowerCase()) ? UUID_SPELLING : 'malformed');
  };
  try {
    if (params.has('name')) filter.name = params.getAll('name').at(-1)!;
    if (params.has('uuid')) filter.uuid = uuid(params.getAll('uuid').at(-1)!);
    if (params.has('in_tree')) filter.inTree = uuid(params.getAll('in_tree').at(-1)!);
    for (const value of params.getAll('member_of')) {
      const negated = value.startsWith('!');
      const body = negated ? value.slice(1) : value;
      const list = body.startsWith('in:') ? body.slice(3).split(',') : [body];
      if (!body.startsWith('in:') && body.includes(',')) throw new Error('skip');
      if (negated) filter.notMemberOf.push(...list.map(uuid));
      else filter.memberOf.push(list.map(uuid));
    }
    const requiredValues = params.getAll('required');
    for (const value of minor(microversion) >= 39 ? requiredValues : requiredValues.slice(-1)) {
      if (value.startsWith('in:')) {
        const names = value.slice(3).split(',');
        if (names.some((n) => n === '' || n.startsWith('!'))) throw new Error('skip');
        filter.anyOf.push(names);
        continue;
      }
      for (const name of value.split(',')) {
        if (name === '') throw new Error('skip');
        if (name.startsWith('!')) filter.forbidden.push(name.replace(/^!+/, ''));
        else filter.required.push(name);
      }
    }
    if (params.has('resources')) {
      const amounts = new Map<string, number>();
      for (const part of params.getAll('resources').at(-1)!.split(',')) {
        const [rc, amount] = part.split(':');
        if (!rc || amount === undefined || !/^-?\d+$/.test(amount)) throw new Error('skip');
        amounts.set(rc, Number(amount));
      }
      filter.resources = [...amounts].map(([resourceClass, amount]) => ({ resourceClass, amount }));
    }
  } catch (error) {
    return { skip: (error as Error).message === UUID_SPELLING ? UUID_SPELLING : PARSER('a malformed value') };
  }
  return filter;
}

const goldenDir = new URL('./golden/', import.meta.url);
const scenarios = ['listing', 'fixtures', 'generated'].flatMap((dir) =>
  readdirSync(new URL(dir, goldenDir))
    .filter((f) => f.endsWith('.results.json'))
    .map((f) => `${dir}/${f.replace('.results.json', '')}`),
);

for (const name of scenarios) {
  const results = fixture(`./golden/${name}.results.json`).results.filter((r: any) => r.kind === 'resource_providers');
  // A scenario recorded without listing queries has nothing to compare here.
  if (results.length === 0) continue;
  describe(`listing filters on ${name}`, async () => {
    const scenario = fixture(`./golden/${name}.scenario.json`);
    const h = harness(scenario);
    let compared = 0;

    for (const golden of results) {
      const filter = filterFromQuery(golden.query, golden.microversion);
      const skip =
        'skip' in filter
          ? filter.skip
          : golden.tag === 'lq_case' || /uuid=[0-9a-f]{32}(&|$)/.test(golden.query)
            ? UUID_SPELLING
            : golden.status !== 200 && /^(Invalid query string parameters|Badly formed|Multiple|Forbidden member_of|The resource could not)|expected positive integer/.test(golden.error.message)
              ? PARSER(`refused with ${golden.status} before filtering`)
              : null;
      it(`${golden.id} ${golden.query} @${golden.microversion}`, async (ctx) => {
        if (skip) return ctx.skip(skip);
        compared++;
        const body = await h.gql(LIST, { filter }, { allowErrors: true });
        if (golden.status === 200) {
          expect(body.errors).toBeUndefined();
          const uuids = body.data.resourceProviders.nodes.map((n: any) => n.uuid).sort();
          expect(uuids).toEqual(golden.providers);
          expect(body.data.resourceProviders.totalCount).toBe(golden.count);
        } else {
          expect(body.errors?.[0]?.extensions?.status).toBe(golden.status);
          expect(body.errors![0].message).toBe(golden.error.message);
        }
      });
    }

    it('compares most of the recorded queries', () => {
      expect(compared).toBeGreaterThan(results.length * 0.5);
    });
  });
}
