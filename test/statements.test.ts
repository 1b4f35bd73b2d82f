// The number of SQL statements of a request depends on the relations selected, never on the rows.
import { describe, expect, it } from 'vitest';
import { fixture, harness } from './helpers.js';

const DASHBOARD = `query($first: Int) {
  resourceProviders(first: $first) {
    totalCount
    nodes {
      uuid name generation
      parent { uuid name }
      children { uuid name }
      inventories { resourceClass total capacity used free }
      traits
      aggregates
    }
  }
}`;

describe('statements per request', () => {
  const h = harness(fixture('./golden/generated/seed3_size100.scenario.json'));

  it('a 100-provider dashboard page runs at most 8 statements, and a 10-provider page the same number', async () => {
    const hundred = await h.countStatements(DASHBOARD, { first: 100 });
    const ten = await h.countStatements(DASHBOARD, { first: 10 });
    expect(hundred).toBeLessThanOrEqual(8);
    expect(ten).toBe(hundred);
  });

  it('the page really holds 100 providers with their relations', async () => {
    const { data } = await h.gql(DASHBOARD, { first: 100 });
    const nodes = data.resourceProviders.nodes;
    expect(nodes).toHaveLength(100);
    expect(nodes.some((n: any) => n.children.length > 0)).toBe(true);
    expect(nodes.some((n: any) => n.parent !== null)).toBe(true);
    expect(nodes.every((n: any) => n.inventories.every((i: any) => i.free === i.capacity - i.used))).toBe(true);
  });

  it('allocations and consumers of a page are batched too', async () => {
    const query = (first: number) => `{ resourceProviders(first: ${first}) { nodes { root { name } tree { name } descendants { name } usages { resourceClass used }
      allocations { consumer { uuid projectId generation } resources { resourceClass amount } } } } }`;
    expect(await h.countStatements(query(100))).toBe(await h.countStatements(query(10)));
  });
});
