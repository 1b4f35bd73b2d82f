// Allocation requests kept from one answer to the next (candidates.kept.ts), and the answers' buffers
// reused once sent (json-bytes.ts): what is kept is reused only while it is what a new search makes.
import { describe, expect, it } from 'vitest';
import { searchPlacementQuery, type CandidateRequest, type CandidatesFound } from '../src/modules/candidates/index.js';
import { isReused, KeptRequest, KeptRequests, LayoutRequests, layoutKey } from '../src/modules/candidates/candidates.kept.js';
import { answerSent, JsonBytes, keptCopy } from '../src/modules/common/json-bytes.js';
import { updateProvider } from '../src/modules/providers/providers.service.js';
import type { ProviderRow } from '../src/modules/providers/providers.service.js';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../src/db/client.js';
import { createNodeServer } from '../src/server/http.js';
import { setAllocations } from '../src/modules/allocations/allocations.service.js';
import { fixture, harness } from './helpers.js';

const row = (id: number) => ({ id, uuid: `u${id}` }) as unknown as ProviderRow;
const made = () => new KeptRequest([], []);

describe('kept allocation requests', () => {
  it('gives the same request for the same rows picked, and a new one for a row read again', () => {
    const rows = new Map([1, 2, 3].map((id) => [id, row(id)]));
    const kept = new LayoutRequests();
    const first = kept.request({ picks: [1, 1, 2] }, (id) => rows.get(id)!, made);
    expect(isReused(first)).toBe(false);
    expect(kept.request({ picks: [1, 1, 2] }, (id) => rows.get(id)!, made)).toBe(first);
    expect(isReused(first)).toBe(true);
    expect(kept.request({ picks: [1, 2, 2] }, (id) => rows.get(id)!, made)).not.toBe(first);
    rows.set(2, row(2));
    expect(kept.request({ picks: [1, 1, 2] }, (id) => rows.get(id)!, made)).not.toBe(first);
    expect(kept.size).toBe(3);
  });

  it('keeps at most its limit of requests, dropping the layouts used longest ago', () => {
    const kept = new KeptRequests(4);
    const fill = (layout: LayoutRequests, ids: number[]) => ids.map((id) => layout.request({ picks: [id] }, row, made));
    const a = kept.of('a');
    fill(a, [1, 2]);
    const b = kept.of('b');
    fill(b, [1, 2]);
    expect(kept.of('a')).toBe(a);
    // Room for c's requests: b (used longest ago) goes, a stays.
    fill(kept.of('c'), [1, 2]);
    expect(kept.of('c').size).toBe(2);
    expect(kept.of('a')).toBe(a);
    expect(kept.of('b')).not.toBe(b);
    // One layout past the limit starts again.
    const big = kept.of('big');
    fill(big, [1, 2, 3, 4, 5]);
    expect(kept.of('big')).not.toBe(big);
  });

  it('tells layouts apart by every suffix, class and amount, in order', () => {
    const key = (amount: number, suffix = '') => layoutKey([{ suffix, amounts: [{ resourceClass: 'VCPU', amount }] }]);
    expect(key(1)).toBe(key(1));
    expect(new Set([key(1), key(2), key(1, '1'), layoutKey([{ suffix: '', amounts: [{ resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'MEMORY_MB', amount: 512 }] }])]).size).toBe(4);
  });

  it('reuses a search\'s requests in the next search, except those of a tree that changed', async () => {
    const h = harness(fixture('./golden/generated/seed3_size100.scenario.json'));
    const query = 'resources=VCPU:1,MEMORY_MB:512';
    const search = async () => (await searchPlacementQuery(h.db, query, { microversion: '1.39' })) as CandidatesFound;
    const first = await search();
    const again = await search();
    expect(again.allocationRequests.length).toBeGreaterThan(10);
    again.allocationRequests.forEach((r, i) => expect(r).toBe(first.allocationRequests[i]));
    // Renaming a provider reads its tree again: its requests are made again, with the new name.
    const renamed = first.allocationRequests[0].allocations[0].provider;
    updateProvider(h.db, { uuid: renamed.uuid, name: 'renamed-now' });
    const after = await search();
    expect(after.allocationRequests.length).toBe(first.allocationRequests.length);
    const touched = (r: CandidateRequest) => r.allocations.some((a) => a.provider.rootId === renamed.rootId);
    after.allocationRequests.forEach((r, i) => {
      if (touched(r)) expect(r).not.toBe(first.allocationRequests[i]);
      else expect(r).toBe(first.allocationRequests[i]);
    });
    expect(after.allocationRequests[0].allocations[0].provider.name).toBe('renamed-now');
    h.db.close();
  });
});

describe('answers with kept requests', () => {
  it('are the same bytes the first time, the second (their JSON kept) and after, over both APIs', async () => {
    const h = harness(fixture('./golden/generated/seed3_size100.scenario.json'));
    const query = 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10';
    const node = createNodeServer(h.yoga);
    const base = await new Promise<string>((resolve) => node.http.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(node.http.address() as AddressInfo).port}`)));
    const ask = async (path: string, init: RequestInit) => (await fetch(`${base}${path}`, init)).text();
    const graphql = () =>
      ask('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ placementCandidates(query: "${query}") { ... on Candidates { allocationRequests { allocations { provider { uuid name } resources { resourceClass amount } } mappings { suffix providers { uuid } } } } } }` }),
      });
    for (const version of ['1.10', '1.21', '1.34', '1.39']) {
      const rest = () => ask(`/placement/allocation_candidates?${query}`, { headers: { 'x-auth-token': 'admin', 'openstack-api-version': `placement ${version}` } });
      const answers = [await rest(), await rest(), await rest()];
      expect(answers[0]).toContain('"allocation_requests": [{');
      expect(new Set(answers).size, version).toBe(1);
    }
    const answers = [await graphql(), await graphql(), await graphql()];
    expect(answers[0]).toContain('"allocationRequests":[{');
    expect(new Set(answers).size).toBe(1);
    await node.stop(100, 0);
  });
});

describe('summaries showing only the classes asked for (before 1.27)', () => {
  it('show usage as it is after a write, as a new connection does', async () => {
    const h = harness(fixture('./golden/generated/seed3_size100.scenario.json'));
    const query = 'resources=VCPU:1,MEMORY_MB:512';
    const search = async (db: typeof h.db) => (await searchPlacementQuery(db, query, { microversion: '1.21' })) as CandidatesFound;
    const before = await search(h.db);
    const provider = before.allocationRequests[0].allocations[0].provider;
    setAllocations(h.db, { consumerUuid: 'c0000000-0000-4000-8000-000000000001', consumerGeneration: null, projectId: 'p', userId: 'u', allocations: [{ providerUuid: provider.uuid, resources: [{ resourceClass: 'VCPU', amount: 1 }] }] });
    const after = await search(h.db);
    const fresh = openDatabase(h.db.file);
    const used = (found: CandidatesFound) => found.providerSummaries.find((s) => s.provider.uuid === provider.uuid)!.resources;
    expect(used(after)).toEqual(used(await search(fresh)));
    expect(used(after)).not.toEqual(used(before));
    expect(used(after).map((r) => r.resourceClass).sort()).toEqual(['MEMORY_MB', 'VCPU']);
    fresh.close();
    h.db.close();
  });
});

describe('answer buffers', () => {
  it('reuses a sent answer\'s buffer for the next answer, once', () => {
    const answer = new JsonBytes(1 << 20);
    answer.text('{"a":1}');
    const sent = answer.done();
    answerSent(sent);
    answerSent(sent);
    const next = new JsonBytes(1 << 20);
    const other = new JsonBytes(1 << 20);
    next.text('x');
    other.text('y');
    expect(next.done().buffer).toBe(sent.buffer);
    expect(other.done().buffer).not.toBe(sent.buffer);
    expect([next.done().toString(), other.done().toString()]).toEqual(['x', 'y']);
  });

  it('leaves alone buffers it did not make', () => {
    const foreign = Buffer.alloc(1 << 20, 1);
    answerSent(foreign);
    const answer = new JsonBytes(1 << 20);
    answer.text('z');
    expect(answer.done().buffer).not.toBe(foreign.buffer);
    expect(foreign.every((b) => b === 1)).toBe(true);
  });

  it('keeps copies of pieces whatever is written after', () => {
    const scratch = new JsonBytes(512);
    const keep = (text: string) => {
      scratch.reset().text(text);
      return keptCopy(scratch.done());
    };
    const pieces = ['{"uuid":"a"}', '{"uuid":"b"}', 'x'.repeat(20_000)].map(keep);
    expect(pieces.map((p) => p.toString())).toEqual(['{"uuid":"a"}', '{"uuid":"b"}', 'x'.repeat(20_000)]);
  });
});
