// explainCandidates beyond the examples in candidates.test.ts: what an operator's first queries cost,
// and what the explanations say on the demo cloud.
import { describe, expect, it } from 'vitest';
import { demoCloud, harness } from './helpers.js';

/** An operator's natural first query: every tree, with groups, providers, checks and problems. */
const DETAILED = (page = '') => `query($request: CandidatesRequest!) {
  explainCandidates(request: $request${page}) {
    totalCount candidateTrees
    reasons { kind group trees example }
    pageInfo { hasNextPage endCursor }
    nodes {
      root { name uuid } candidate allocationRequests
      problems { kind message group provider { name } resourceClass amount capacity used traits aggregates }
      groups {
        suffix satisfied choices
        problems { kind message provider { name } }
        providers {
          provider { name uuid } sharing usable
          resources { resourceClass amount capacity used minUnit maxUnit stepSize fits }
          problems { kind message resourceClass amount capacity used traits aggregates }
        }
      }
    }
  }
}`;

const VM = { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 500 }, { resourceClass: 'MEMORY_MB', amount: 2048 }] }] };

describe('the cost of explaining', () => {
  it('lets the detailed query through at the default page size and at 50 and 100 trees', async () => {
    const h = harness(demoCloud());
    for (const page of ['', ', first: 50', ', first: 100']) {
      const { data } = await h.gql(DETAILED(page), { request: VM });
      expect(data.explainCandidates.totalCount).toBe(20);
    }
  });

  it('still refuses a page of 1,000 detailed trees, and counts a connection without first as its default page', async () => {
    const h = harness(demoCloud());
    const refused = await h.gql(DETAILED(', first: 1000'), { request: VM }, { allowErrors: true });
    expect(refused.errors?.[0].message).toMatch(/Estimated query cost \d+ exceeds the limit maxCost = 200000/);
    // The default page of 20 providers, each with 10 x 10 x 10 x 10 descendants: over the limit.
    const deep = await h.gql('{ resourceProviders { nodes { children { children { children { children { name } } } } } } }', undefined, { allowErrors: true });
    expect(deep.errors?.[0].message).toMatch(/Estimated query cost \d+ exceeds the limit maxCost/);
  });
});
