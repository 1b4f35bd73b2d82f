// explainCandidates on small clouds: explain agrees with the search.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { explainCandidates, parsePlacementQuery, searchCandidates } from '../src/modules/candidates/candidates.service.js';
import { tempDbFile } from './helpers.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function cloud(snapshot: { providers: { uuid: string; name: string; parent: null }[]; [key: string]: unknown }) {
  const db = openDatabase(tempDbFile());
  importSnapshot(db, snapshot);
  const ask = async (query: string, provider: string | null = null) => {
    const parsed = parsePlacementQuery(query, '1.39');
    if (parsed.kind !== 'request') throw new Error(query);
    const found = await searchCandidates(db, parsed.request);
    const explained = await explainCandidates(db, parsed.request, provider);
    const name = (uuid: string) => snapshot.providers.find((p) => p.uuid === uuid)!.name;
    return { found, explained, candidates: explained.trees.filter((t) => t.candidate).map((t) => name(t.rootUuid)), counts: Object.fromEntries(explained.trees.map((t) => [name(t.rootUuid), t.allocationRequests])) };
  };
  return ask;
}

describe('a request Placement answers empty before it reaches a bad name', () => {
  const ask = cloud({ providers: [{ uuid: U(1), name: 'cn', parent: null }], inventories: { [U(1)]: { VCPU: { total: 8 } } } });

  it('is explained (the unknown trait or class held by nobody) rather than refused', async () => {
    for (const query of ['resources=VCPU:100000&resources1=VCPU:1&required1=CUSTOM_NOPE', 'resources=VCPU:100000&resources1=CUSTOM_NOPE:1']) {
      const { found, explained } = await ask(query);
      expect(found.kind === 'candidates' && found.count).toBe(0);
      expect(explained.candidateTrees).toBe(0);
      expect(explained.trees[0].problems.map((p) => p.kind)).toContain('CAPACITY_EXCEEDED');
    }
  });

  it('is still refused when the bad name comes first, as the search refuses it', async () => {
    await expect(ask('resources=VCPU:1&required=CUSTOM_NOPE')).rejects.toThrow('No such trait(s): CUSTOM_NOPE.');
  });
});
