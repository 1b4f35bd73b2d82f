// `placement-gql capacity show` and `capacity headroom` on the demo cloud: the rows equal sums
// computed here from the snapshot itself (Placement's capacity formula, inventory by inventory)
// and the headroom the API gives; bad flags are one-line usage errors.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { runOscCommand } from '../src/cli/osc.command.js';
import { createServer } from '../src/server.js';
import { demoCloud, tempDbFile } from './helpers.js';

const cloud = demoCloud();
const dbFile = tempDbFile();
{
  const db = openDatabase(dbFile);
  importSnapshot(db, cloud);
  db.close();
}

async function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await runOscCommand([...args, '--db', dbFile], 'unused.db', { out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { stdout, stderr, status };
}

/** Sums per resource class over the demo snapshot's inventories, with Placement's defaults. */
function expectedByClass(include: (rp: string) => boolean = () => true) {
  const sums = new Map<string, { total: number; reserved: number; capacity: number; used: number; providers: number }>();
  const used = new Map<string, number>();
  for (const allocation of Object.values<Record<string, Record<string, number>>>(cloud.allocations))
    for (const [rp, resources] of Object.entries(allocation)) for (const [rc, n] of Object.entries(resources)) used.set(`${rp}/${rc}`, (used.get(`${rp}/${rc}`) ?? 0) + n);
  for (const [rp, inventories] of Object.entries<Record<string, any>>(cloud.inventories)) {
    if (!include(rp)) continue;
    for (const [rc, inv] of Object.entries(inventories)) {
      const i = typeof inv === 'number' ? { total: inv } : inv;
      const reserved = i.reserved ?? 0;
      const s = sums.get(rc) ?? { total: 0, reserved: 0, capacity: 0, used: 0, providers: 0 };
      s.total += i.total;
      s.reserved += reserved;
      s.capacity += Math.floor((i.total - reserved) * (i.allocation_ratio ?? 1));
      s.used += used.get(`${rp}/${rc}`) ?? 0;
      s.providers += 1;
      sums.set(rc, s);
    }
  }
  return sums;
}

describe('placement-gql capacity show', () => {
  it('sums every inventory per resource class, as computed from the snapshot', async () => {
    const { stdout, status } = await run(['capacity', 'show', '-f', 'json']);
    expect(status).toBe(0);
    const rows: any[] = JSON.parse(stdout);
    const expected = expectedByClass();
    expect(rows.map((r) => r.resource_class).sort()).toEqual([...expected.keys()].sort());
    for (const row of rows) {
      const e = expected.get(row.resource_class)!;
      expect(row).toEqual({ resource_class: row.resource_class, total: e.total, reserved: e.reserved, capacity: e.capacity, used: e.used, free: e.capacity - e.used, providers: e.providers });
    }
  });

  it('takes the provider filter of `resource provider list` and groups by aggregate', async () => {
    const compute = (rp: string) => (cloud.traits[rp] ?? []).includes('COMPUTE_NODE');
    const filtered = await run(['capacity', 'show', '--required', 'COMPUTE_NODE', '-f', 'json']);
    expect(filtered.status).toBe(0);
    const expected = expectedByClass(compute);
    for (const row of JSON.parse(filtered.stdout)) expect(row.capacity).toBe(expected.get(row.resource_class)!.capacity);

    const grouped = await run(['capacity', 'show', '--group-by', 'aggregate', '-f', 'json']);
    const rows: any[] = JSON.parse(grouped.stdout);
    const aggregate = Object.values<string[]>(cloud.aggregates).flat()[0];
    const members = (rp: string) => (cloud.aggregates[rp] ?? []).includes(aggregate);
    for (const [rc, e] of expectedByClass(members)) expect(rows.find((r) => r.aggregate === aggregate && r.resource_class === rc)?.free).toBe(e.capacity - e.used);
  });

  it('refuses an unknown grouping in one line, exit 1', async () => {
    const { stderr, status } = await run(['capacity', 'show', '--group-by', 'zone']);
    expect(status).toBe(1);
    expect(stderr).toMatch(/--group-by <key>' argument 'zone' is invalid/);
  });
});

describe('placement-gql capacity headroom', () => {
  it("gives each stored flavor's headroom as the API does", async () => {
    const db = openDatabase(dbFile);
    const yoga = createServer({ db, log: null });
    const response = await yoga.fetch('http://local/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ flavorHeadroom { flavor { name } headroom { fits atMost exact } } }' }),
    });
    const api = ((await response.json()) as any).data.flavorHeadroom;
    db.close();
    const { stdout, status } = await run(['capacity', 'headroom', '-f', 'json']);
    expect(status).toBe(0);
    const rows: any[] = JSON.parse(stdout);
    expect(rows.map((r) => [r.flavor, r.fits, r.at_most, r.exact])).toEqual(api.map((f: any) => [f.flavor.name, f.headroom.fits, f.headroom.atMost, f.headroom.exact]));
    expect(rows.length).toBe(cloud.flavors.length);
    expect(rows.find((r) => r.flavor === 'demo.baremetal-gold')).toMatchObject({ fits: 2, exact: true });
  });

  it('names a flavor that does not exist', async () => {
    const { stderr, status } = await run(['capacity', 'headroom', '--flavor', 'no.such']);
    expect(status).toBe(1);
    expect(stderr).toContain('no.such');
  });
});

describe('placement-gql allocation candidate list --explain', () => {
  it('marks as candidates exactly the trees of the allocation requests, and says why the others are not', async () => {
    const db = openDatabase(dbFile);
    const yoga = createServer({ db, log: null });
    const response = await yoga.fetch('http://local/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ placementCandidates(query: "resources=VCPU:4,MEMORY_MB:8192") { ... on Candidates { allocationRequests { allocations { provider { root { uuid } } } } } } }',
      }),
    });
    const answer = ((await response.json()) as any).data.placementCandidates;
    db.close();
    const roots = new Set<string>(answer.allocationRequests.flatMap((r: any) => r.allocations.map((a: any) => a.provider.root.uuid)));
    const { stdout, status } = await run(['allocation', 'candidate', 'list', '--resource', 'VCPU=4', '--resource', 'MEMORY_MB=8192', '--explain', '-f', 'json']);
    expect(status).toBe(0);
    const rows: any[] = JSON.parse(stdout);
    expect(new Set(rows.filter((r) => r.candidate).map((r) => r.root_uuid))).toEqual(roots);
    for (const row of rows) expect(row.why_not === '').toBe(row.candidate);
  });

  it('answers "why not here?" for one provider, and --provider needs --explain', async () => {
    const compute01 = '6a8f40e8-5319-5d5e-8a89-ecb6de64c990';
    const { stdout } = await run(['allocation', 'candidate', 'list', '--resource', 'VCPU=4', '--required', 'HW_CPU_X86_AVX512F', '--explain', '--provider', compute01, '-f', 'json']);
    expect(JSON.parse(stdout)).toEqual([
      { root: 'compute-01', root_uuid: compute01, candidate: false, allocation_requests: 0, why_not: 'In the tree of compute-01, no provider with VCPU (compute-01) has trait HW_CPU_X86_AVX512F.' },
    ]);
    const alone = await run(['allocation', 'candidate', 'list', '--resource', 'VCPU=4', '--provider', compute01]);
    expect(alone).toMatchObject({ status: 1, stderr: '--provider goes with --explain\n' });
  });
});
