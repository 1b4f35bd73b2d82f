// explainCandidates beyond the examples in candidates.test.ts: what an operator's first queries cost,
// and what the explanations say on the demo cloud.
import { describe, expect, it } from 'vitest';
import { demoCloud, harness } from './helpers.js';

/** An operator's natural first query: every tree, with groups, providers, checks and problems. */
const DETAILED = (page = '') => `query($request: CandidatesRequest!) {
  explainCandidates(request: $request${page}) { ... on CandidatesExplanation {
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
  } }
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

const SUMMARY = `query($request: CandidatesRequest!) {
  explainCandidates(request: $request, candidate: false, first: 3) { ... on CandidatesExplanation {
    totalCount explainedTrees candidateTrees summary
    closest { root { name } problems { kind message } }
    reasons { kind group resourceClass traits aggregates description trees roots(first: 3) { name } example }
    nodes { root { name } candidate }
  } }
}`;

describe('what an operator reads when nothing fits (demo cloud)', () => {
  const h = harness(demoCloud());
  const AGG_GPU = '1d0f032c-9b2b-5296-aaf3-794d077c7983';
  const explainOf = async (request: unknown) => (await h.gql(SUMMARY, { request })).data.explainCandidates;
  const vm = (vcpu: number, extra: object = {}) => ({ groups: [{ resources: [{ resourceClass: 'VCPU', amount: vcpu }, { resourceClass: 'MEMORY_MB', amount: 2048 }], ...extra }] });

  it('too much VCPU: the reasons per class with the most free, and the closest trees with their numbers', async () => {
    const e = await explainOf(vm(200));
    expect(e).toMatchObject({ explainedTrees: 20, candidateTrees: 0, totalCount: 20 });
    expect(e.reasons[0]).toMatchObject({ kind: 'CAPACITY_EXCEEDED', group: '', resourceClass: 'VCPU', trees: 11, description: 'not 200 VCPU free on one provider, 120 at most' });
    expect(e.reasons[0].roots.map((r: any) => r.name)).toEqual(['compute-01', 'compute-02', 'compute-03']);
    expect(e.summary).toMatch(/^No tree is a candidate \(20 trees explained\)\. Why: 11 trees, not 200 VCPU free on one provider, 120 at most \(compute-01, compute-02, compute-03 and 8 more\); 9 trees, no provider with VCPU and no provider with MEMORY_MB \(ceph-pool-01, ironic-01, ironic-02 and 6 more\)\. Closest: /);
    expect(e.closest[0]).toMatchObject({ root: { name: 'compute-06' }, problems: [{ kind: 'CAPACITY_EXCEEDED', message: 'compute-06: VCPU used 0 + requested 200 > capacity 120 (120 free).' }] });
  });

  it('member_of an aggregate without room: the tree in it comes first, the others are told once per tree', async () => {
    const e = await explainOf(vm(30, { memberOf: [[AGG_GPU]] }));
    expect(e.candidateTrees).toBe(0);
    expect(e.closest[0].root.name).toBe('compute-11');
    expect(e.closest[0].problems.map((p: any) => p.message)).toEqual([
      'compute-11_numa0: VCPU used 16 + requested 30 > capacity 24 (8 free).',
      'compute-11_numa1: VCPU used 0 + requested 30 > capacity 24 (24 free).',
    ]);
    const outside = e.reasons.find((r: any) => r.kind === 'NOT_IN_AGGREGATE');
    expect(outside).toMatchObject({ trees: 10, aggregates: [AGG_GPU], description: `not in aggregate ${AGG_GPU}` });
    const numa = await h.gql(`query($request: CandidatesRequest!, $provider: UUID) { explainCandidates(request: $request, provider: $provider) { ... on CandidatesExplanation { nodes { problems { kind message } } } } }`, {
      request: vm(30, { memberOf: [[AGG_GPU]] }),
      provider: 'fb291677-1a37-5b59-8a1b-8c257bb4e41e',
    });
    const problems = numa.data.explainCandidates.nodes[0].problems.filter((p: any) => p.kind === 'NOT_IN_AGGREGATE');
    expect(problems.map((p: any) => p.message)).toEqual([
      `Neither the root compute-09 nor its providers with the resources (compute-09_numa0 and compute-09_numa1) are in aggregate ${AGG_GPU} (member_of of the unsuffixed group).`,
    ]);
  });

  it('a trait nobody giving resources has: the trees holding it on their root come closest, and say so', async () => {
    const e = await explainOf(vm(2, { required: ['HW_CPU_X86_AVX512F'] }));
    expect(e.reasons[0]).toMatchObject({ kind: 'REQUIRED_TRAIT_MISSING', trees: 11, traits: ['HW_CPU_X86_AVX512F'], description: 'no provider with the resources has HW_CPU_X86_AVX512F' });
    expect(e.closest.map((t: any) => t.root.name)).toEqual(['compute-09', 'compute-10', 'compute-11']);
    expect(e.closest[0].problems[0].message).toBe(
      'In the tree of compute-09, no provider with VCPU or MEMORY_MB (compute-09_numa0 and compute-09_numa1) has trait HW_CPU_X86_AVX512F ' +
        '(the root compute-09 has HW_CPU_X86_AVX512F but gives none of the resources, so it does not count).',
    );
  });

  it('isolate with one matching PF per tree names where each group could go', async () => {
    const vf = (suffix: string) => ({ suffix, resources: [{ resourceClass: 'SRIOV_NET_VF', amount: 1 }], required: ['CUSTOM_PHYSNET_PUBLIC'] });
    const e = await explainOf({ groups: [{ resources: [{ resourceClass: 'VCPU', amount: 2 }] }, vf('1'), vf('2')], groupPolicy: 'ISOLATE' });
    expect(e.closest.map((t: any) => t.root.name)).toEqual(['compute-09', 'compute-10', 'compute-11']);
    expect(e.closest[0].problems).toEqual([
      {
        kind: 'ISOLATE',
        message:
          'In the tree of compute-09, group_policy=isolate needs a different provider for each suffixed group, but group 1 can only use compute-09_numa0_pf0 and group 2 can only use compute-09_numa0_pf0 (2 combinations refused).',
      },
    ]);
  });

  it('lists only the trees that are (or are not) candidates, with totals over every tree', async () => {
    const request = { ...vm(100), rootRequired: ['CUSTOM_LICENSED_WINDOWS'], rootForbidden: ['COMPUTE_STATUS_DISABLED'] };
    const e = await explainOf(request);
    expect(e).toMatchObject({ explainedTrees: 20, candidateTrees: 2, totalCount: 18, closest: [] });
    expect(e.nodes.every((n: any) => !n.candidate)).toBe(true);
    expect(e.summary).toMatch(/^2 of 20 trees are candidates: compute-01 and compute-02\. The other 18 are not: 18 trees, the root lacks CUSTOM_LICENSED_WINDOWS, required by root_required/);
    const only = await h.gql(`query($request: CandidatesRequest!) { explainCandidates(request: $request, candidate: true) { ... on CandidatesExplanation { totalCount nodes { root { name } allocationRequests } } } }`, { request });
    expect(only.data.explainCandidates).toEqual({ totalCount: 2, nodes: [{ root: { name: 'compute-01' }, allocationRequests: 1 }, { root: { name: 'compute-02' }, allocationRequests: 1 }] });
  });
});
