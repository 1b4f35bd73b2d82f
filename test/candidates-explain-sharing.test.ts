// explainCandidates on small clouds where candidates of sharing providers alone are anchored in other
// trees, and on requests Placement answers empty before it reaches a bad name: explain agrees with the search.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { explainCandidates, parsePlacementQuery, searchCandidates } from '../src/modules/candidates/candidates.service.js';
import { tempDbFile } from './helpers.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const AGG_A = U(101);
const AGG_B = U(102);
const SHARES = 'MISC_SHARES_VIA_AGGREGATE';

function cloud(snapshot: { providers: { uuid: string; name: string; parent: null }[]; [key: string]: unknown }) {
  const db = openDatabase(tempDbFile());
  importSnapshot(db, snapshot);
  const ask = async (query: string, provider: string | null = null) => {
    const request = parsePlacementQuery(query, '1.39');
    const found = await searchCandidates(db, request);
    const explained = await explainCandidates(db, request, provider);
    const name = (uuid: string) => snapshot.providers.find((p) => p.uuid === uuid)!.name;
    return { found, explained, candidates: explained.trees.filter((t) => t.candidate).map((t) => name(t.rootUuid)), counts: Object.fromEntries(explained.trees.map((t) => [name(t.rootUuid), t.allocationRequests])) };
  };
  return ask;
}

describe('candidates of sharing providers alone', () => {
  it('reached only from a third tree: they belong to the sharing providers trees, not to the anchor', async () => {
    // cn shares aggregate A with ss0 (VCPU) and aggregate B with ss1 (IPV4_ADDRESS); ss0 and ss1 share none.
    const ask = cloud({
      providers: [
        { uuid: U(1), name: 'cn', parent: null },
        { uuid: U(2), name: 'ss0', parent: null },
        { uuid: U(3), name: 'ss1', parent: null },
      ],
      inventories: { [U(1)]: { MEMORY_MB: { total: 1024 } }, [U(2)]: { VCPU: { total: 8 } }, [U(3)]: { IPV4_ADDRESS: { total: 8 } } },
      traits: { [U(2)]: [SHARES], [U(3)]: [SHARES] },
      aggregates: { [U(1)]: [AGG_A, AGG_B], [U(2)]: [AGG_A], [U(3)]: [AGG_B] },
    });
    const { found, explained, candidates, counts } = await ask('resources=VCPU:1,IPV4_ADDRESS:1');
    expect(found.kind === 'candidates' && found.count).toBe(1);
    expect(candidates).toEqual(['ss0', 'ss1']);
    // Counted once, in the first of their trees; the anchor's tree gives nothing itself.
    expect(counts).toEqual({ cn: 0, ss0: 1, ss1: 0 });
    expect(explained.trees.find((t) => t.rootUuid === U(1))!.problems.map((p) => p.kind)).toEqual(['SHARING_ONLY']);
    // Explaining one sharing provider's tree finds the candidate anchored in cn too.
    expect((await ask('resources=VCPU:1,IPV4_ADDRESS:1', U(3))).candidates).toEqual(['ss1']);
  });

  it('root_required is met by the anchor, not by the sharing provider root', async () => {
    const ask = cloud({
      providers: [
        { uuid: U(1), name: 'cn', parent: null },
        { uuid: U(2), name: 'ss0', parent: null },
      ],
      inventories: { [U(1)]: { MEMORY_MB: { total: 1024 } }, [U(2)]: { VCPU: { total: 8 } } },
      traits: { [U(1)]: ['HW_CPU_X86_AVX2'], [U(2)]: [SHARES] },
      aggregates: { [U(1)]: [AGG_A], [U(2)]: [AGG_A] },
    });
    const { found, candidates, counts, explained } = await ask('resources=VCPU:1&root_required=HW_CPU_X86_AVX2');
    expect(found.kind === 'candidates' && found.count).toBe(1);
    expect(candidates).toEqual(['ss0']);
    expect(counts).toEqual({ cn: 0, ss0: 1 });
    expect(explained.trees.find((t) => t.rootUuid === U(2))!.problems).toEqual([]);
    // Forbidden: cn is no anchor, ss0 still is (its own root lacks the trait).
    const none = await ask('resources=VCPU:1&root_required=!HW_CPU_X86_AVX2');
    expect(none.found.kind === 'candidates' && none.found.count).toBe(1);
    expect(none.candidates).toEqual(['ss0']);
  });

  it('reached from two sharing trees: one candidate, counted once', async () => {
    const ask = cloud({
      providers: [
        { uuid: U(1), name: 'ss1', parent: null },
        { uuid: U(2), name: 'ss2', parent: null },
      ],
      inventories: { [U(1)]: { VCPU: { total: 8 }, DISK_GB: { total: 100 } }, [U(2)]: { DISK_GB: { total: 100 } } },
      traits: { [U(1)]: [SHARES], [U(2)]: [SHARES] },
      aggregates: { [U(1)]: [AGG_A], [U(2)]: [AGG_A] },
    });
    const { found, candidates, counts } = await ask('resources=VCPU:1,DISK_GB:1');
    expect(found.kind === 'candidates' && found.count).toBe(2);
    expect(candidates).toEqual(['ss1', 'ss2']);
    expect(counts).toEqual({ ss1: 2, ss2: 0 });
  });
});

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
