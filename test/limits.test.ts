// Depth and alias limits (graphql-armor's rules) count as the project always has: root fields at
// depth 1, fragments adding no depth, every alias counted (an aliased __typename too), and the
// refusal names the limit with its value.
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.js';

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
