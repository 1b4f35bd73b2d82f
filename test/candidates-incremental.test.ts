// The kept candidate index against a new one: after each random write of any kind (usage, inventories,
// traits with the sharing trait gained and lost, aggregates, providers created, deleted, renamed and
// moved, custom traits and classes created and deleted, several at once), made here or by another
// connection, every candidate search and explanation answers exactly what a new connection answers
// (same query strings, same allocation requests in the same order, with their providers as they are
// now, same summaries).
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { fixture, harness } from './helpers.js';
import { CANDIDATES_SELECTION, readGolden } from './candidates-support.js';
import { randomWriter, WRITE_KINDS, type WriteKind } from './writes-support.js';

const GOLDEN = new URL('./golden/generated/', import.meta.url).pathname;
const SHARED_STORAGE = '8cfe9de5-afff-4d6e-9a73-93ebc7559d59';
const NEW_AGGREGATE = 'a0000000-0000-4000-8000-00000000000b';
const AGGREGATES = [SHARED_STORAGE, '9650be55-000e-4686-b5ad-5ef407dd5f4c', 'bb27e247-3a7e-4290-bfdb-bfc3b58b91f2', '3969f9ba-d5c6-45be-82a5-62ff33a8cff6', NEW_AGGREGATE];
/** Providers asked about by uuid, which the writes move, rename, delete and create more often (the last does not exist yet). */
const FOCUS = ['3cc4afbb-1484-4623-b4ec-852e14646fab', '6faae41b-6361-40b4-8eb6-351f052c7bfc', 'f0000000-0000-4000-8000-000000000001'];

/** The cloud's own allocation-candidate queries (Placement answered them on it; the first of each tag), at their microversions, and some on what the writes make. */
const QUERIES: { query: string; microversion: string }[] = [
  ...readGolden(`${GOLDEN}seed3_size100.results.json`)
    .results.filter((r: any) => r.kind === 'allocation_candidates' && r.id.endsWith('_00'))
    .map((r: any) => ({ query: r.query, microversion: r.microversion })),
  ...FOCUS.map((uuid) => ({ query: `resources=VCPU:1&in_tree=${uuid}`, microversion: '1.39' })),
  { query: 'resources=VCPU:1,MEMORY_MB:512&required=CUSTOM_INC_T1', microversion: '1.39' },
  { query: 'resources=CUSTOM_INC_C1:1', microversion: '1.39' },
  { query: `resources=VCPU:1&member_of=${NEW_AGGREGATE}`, microversion: '1.39' },
];

const SEARCH = `query($query: String!, $microversion: String) {
  placementCandidates(query: $query, microversion: $microversion) { ${CANDIDATES_SELECTION}
    ... on Candidates {
      allocationRequests { allocations { provider { name generation } } mappings { providers { name generation } } }
      providerSummaries { provider { name generation } }
    } }
}`;
const EXPLAIN = `query($request: CandidatesRequest!, $provider: UUID) {
  explainCandidates(request: $request, provider: $provider, first: 1000) {
    ... on RequestError { status message }
    ... on CandidatesExplanation { candidateTrees explainedTrees summary reasons { kind description trees }
      nodes { root { uuid name } candidate allocationRequests problems { kind message } groups { suffix satisfied choices } } }
  }
}`;
const EXPLAINED = [
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 4 }, { resourceClass: 'MEMORY_MB', amount: 4096 }, { resourceClass: 'DISK_GB', amount: 100 }] }] },
  { groups: [{ resources: [{ resourceClass: 'VCPU', amount: 2 }], required: ['HW_CPU_X86_AVX2'], memberOf: [[AGGREGATES[2], AGGREGATES[3]]] }, { suffix: '1', resources: [{ resourceClass: 'SRIOV_NET_VF', amount: 1 }] }] },
];

const servers = new WeakMap<Db, ReturnType<typeof createServer>>();

async function answers(db: Db, provider: string) {
  let yoga = servers.get(db);
  if (!yoga) servers.set(db, (yoga = createServer({ db, maskErrors: false })));
  const ask = async (query: string, variables: object) => {
    const response = await yoga!.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data: unknown; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return body.data;
  };
  const out: unknown[] = [];
  for (const { query, microversion } of QUERIES) out.push(await ask(SEARCH, { query, microversion }));
  for (const request of EXPLAINED) {
    out.push(await ask(EXPLAIN, { request, provider: null }));
    out.push(await ask(EXPLAIN, { request, provider }));
  }
  return out;
}

/** What a new connection answers: nothing kept, the index read from scratch. */
async function fromScratch(file: string, provider: string) {
  const fresh = openDatabase(file);
  try {
    return await answers(fresh, provider);
  } finally {
    fresh.close();
  }
}

describe('the candidate index kept across writes', () => {
  it('answers every search as a new connection does after every write, whatever was written and by whom', async () => {
    const h = harness(fixture('./golden/generated/seed3_size100.scenario.json'));
    const db = h.db;
    const writer = randomWriter(29, AGGREGATES, FOCUS);
    // Read once before any write: the index (and the catalog of every tree, for the large answers) is kept from then on.
    await answers(db, FOCUS[0]);
    const applied = new Set<string>();
    let steps = 0;
    const step = async (kind: WriteKind, elsewhere: boolean) => {
      const label = `${kind}${elsewhere ? ' by another connection' : ''}`;
      const done = elsewhere ? writer.writeElsewhere(db.file, kind) : writer.write(db, kind);
      if (done) applied.add(label);
      const provider = writer.pick(FOCUS);
      expect(await answers(db, provider), `step ${steps++}: ${label}`).toEqual(await fromScratch(db.file, provider));
      return done;
    };
    // Each kind here and by another connection (tried again when refused), then at random.
    for (const kind of WRITE_KINDS) for (const elsewhere of [false, true]) for (let tries = 0; tries < 5 && !(await step(kind, elsewhere)); tries++);
    for (let i = 0; i < 30; i++) await step(writer.pick(WRITE_KINDS), writer.next() < 0.4);
    for (const kind of WRITE_KINDS) expect([applied.has(kind), applied.has(`${kind} by another connection`)], kind).toEqual([true, true]);
  }, 300_000);
});
