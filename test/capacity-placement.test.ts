// Headroom plans checked against the real Placement 8.0.0: test/golden/headroom holds cases (clouds,
// requests, our counts and plans; make-cases.ts) and what Placement answered when each plan was applied
// with PUT /allocations in order, then GET /allocation_candidates asked again (record.py). Today's
// answers must still be the recorded ones, every PUT accepted, and nothing left after an exact plan.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { harness } from './helpers.js';

const read = (name: string) => JSON.parse(readFileSync(new URL(`./golden/headroom/${name}`, import.meta.url), 'utf8'));
const { cases } = read('cases.json');
const { results } = read('results.json');

const QUERY = `query($r: CandidatesRequest!) { headroom(request: $r) { fits atMost exact plan { allocations { provider { uuid } resources { resourceClass amount } } } } }`;

describe('headroom plans applied to Placement 8.0.0', () => {
  it('has a recorded answer for every case', () => {
    expect(results.map((r: any) => r.name)).toEqual(cases.map((c: any) => c.name));
  });

  for (const c of cases) {
    it(`${c.name} (${c.query}): our plan is the recorded one, Placement accepted it, nothing left when exact`, async () => {
      const h = harness(c.scenario);
      const { data } = await h.gql(QUERY, { r: c.request });
      const plan = data.headroom.plan.map((r: any) => Object.fromEntries(r.allocations.map((a: any) => [a.provider.uuid, Object.fromEntries(a.resources.map((x: any) => [x.resourceClass, x.amount]))])));
      expect({ fits: data.headroom.fits, atMost: data.headroom.atMost, exact: data.headroom.exact }).toEqual({ fits: c.fits, atMost: c.atMost, exact: c.exact });
      expect(plan).toEqual(c.plan);
      const recorded = results.find((r: any) => r.name === c.name);
      expect(recorded.puts).toBe(c.plan.length);
      if (c.plan.length) expect(recorded.putStatuses).toEqual([204]);
      expect(recorded.afterStatus).toBe(200);
      if (c.exact) expect(recorded.candidatesAfter).toBe(0);
    });
  }
});
