// explainCandidates agrees with the search: over the golden scenarios' allocation-candidate queries
// (Placement's 200 answers, each read at 1.39), the trees it calls candidates are exactly the trees the answer uses.
import { RequestRefused } from '../src/modules/common/errors.js';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { explainCandidates, parsePlacementQuery, searchCandidates } from '../src/modules/candidates/candidates.service.js';
import { tempDbFile } from './helpers.js';
import { goldenPairs, readGolden as read } from './candidates-support.js';
const SHARING = 'MISC_SHARES_VIA_AGGREGATE';

/** Each scenario with the query strings of its allocation-candidate queries that Placement answered with 200. */
function scenarios(folder: string) {
  return goldenPairs(folder)
    .map(({ name, scenario, results }) => {
      const queries: string[] = read(results)
        .results.filter((r: any) => r.kind === 'allocation_candidates' && r.status === 200)
        .map((r: any) => r.query);
      return { name, path: scenario, queries: [...new Set(queries)] };
    })
    .filter((s) => s.queries.length > 0);
}

describe.each(['fixtures', 'generated', 'listing', 'edge'])('explainCandidates agrees with candidates (%s)', (folder) => {
  for (const { name, path, queries } of scenarios(folder)) {
    it(name, async () => {
      const scenario = read(path);
      const db = openDatabase(tempDbFile());
      importSnapshot(db, scenario);
      const parent = new Map<string, string | null>(scenario.providers.map((p: any) => [p.uuid, p.parent ?? null]));
      const rootOf = (uuid: string): string => (parent.get(uuid) ? rootOf(parent.get(uuid)!) : uuid);
      const sharing = new Set(Object.entries(scenario.traits ?? {}).flatMap(([uuid, traits]) => ((traits as string[]).includes(SHARING) ? [uuid] : [])));
      let compared = 0;
      for (const query of queries) {
        // Read at 1.39 whatever microversion the query was recorded at (a few are then refused: skipped).
        const parsed = refused(() => parsePlacementQuery(query, '1.39'));
        if (!parsed) continue;
        const request = { ...parsed, limit: null };
        const found = await searchCandidates(db, request).catch((error) => refused(() => { throw error; }));
        if (!found) continue;
        expect(found.truncated).toBe(false);
        // A candidate's tree: the tree of its providers that are not sharing providers of other trees;
        // a candidate made of sharing providers alone belongs to their own trees.
        const used = new Set<string>();
        for (const r of found.allocationRequests) {
          const providers = [...r.allocations.map((a) => a.provider.uuid), ...r.mappings.flatMap((m) => m.providers.map((p) => p.uuid))];
          const own = providers.filter((u) => !sharing.has(u));
          for (const u of own.length ? own : providers) used.add(rootOf(u));
        }
        const explained = await explainCandidates(db, request);
        const candidates = new Set(explained.trees.filter((t) => t.candidate).map((t) => t.rootUuid));
        expect([...candidates].sort(), query).toEqual([...used].sort());
        expect(explained.candidateTrees).toBe(used.size);
        // Each allocation request is counted in the tree it belongs to (up to 10,000 per tree).
        if (explained.trees.every((t) => t.allocationRequests < 10_000)) {
          expect(explained.trees.reduce((n, t) => n + t.allocationRequests, 0), query).toBe(found.count);
        }
        compared++;
      }
      expect(compared).toBeGreaterThan(0);
      db.close();
    });
  }
});

/** What work gives, or null when Placement refuses the request (such queries are not explained: skipped). */
function refused<T>(work: () => T): T | null {
  try {
    return work();
  } catch (error) {
    if (error instanceof RequestRefused) return null;
    throw error;
  }
}
