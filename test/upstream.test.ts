// Gateway mode against answers recorded from Placement 8.0.0: the mirror after a full sync and
// after changes by another client (the generation trap: a delete and a move that move no
// generation), writes through with Placement's refusals as typed errors, retries of 5xx, a new
// token after a 401, and an upstream that dies during a refresh.
import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openDatabase, type Db } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { Gateway } from '../src/mirror/gateway.js';
import { explainFailure } from '../src/upstream/failure.js';
import { fixedTokenSession, type UpstreamSession } from '../src/upstream/session.js';
import { expectedListing, listing, recording, startFakePlacement } from './fake-placement.js';
import { errorSelection, tempDbFile } from './helpers.js';

const rec = recording();
const CN1 = 'c0000000-0000-0000-0000-000000000001';
const CN2 = 'c0000000-0000-0000-0000-000000000002';
const E3 = 'e0000000-0000-0000-0000-000000000003';
const P1 = '11111111-1111-1111-1111-111111111111';
const U1 = '22222222-2222-2222-2222-222222222222';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(options: { session?: (url: string) => UpstreamSession; db?: Db } = {}) {
  const fake = await startFakePlacement(rec);
  const db = options.db ?? openDatabase(tempDbFile());
  const session = options.session ? options.session(fake.url) : fixedTokenSession(fake.url, 'admin');
  const gateway = new Gateway(db, session, { interval: 15, retryDelayMs: 1 });
  const yoga = createServer({ db, gateway, maskErrors: false });
  cleanups.push(() => fake.close(), () => gateway.stop(), () => db.close());
  const gql = async (query: string) => {
    const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    return (await response.json()) as any;
  };
  return { fake, db, gateway, yoga, gql };
}

const phase = (name: string) => rec.phases.find((p) => p.name === name)!;

describe('the mirror', () => {
  it('equals Placement after a full sync, and after a delete and a move that move no generation', async () => {
    const { fake, gql } = await setup();
    expect((await gql('{ upstream { stale lastSyncAt } }')).data.upstream).toEqual({ stale: true, lastSyncAt: null });
    for (const name of ['initial', 'consumer deleted by another client', 'consumer moved by another client', 'provider renamed and moved by another client']) {
      fake.setPhase(name);
      const sync = await gql('mutation { syncUpstream { stale lastError providers microversion } }');
      expect(sync.data.syncUpstream).toEqual({ stale: false, lastError: null, providers: 4, microversion: '1.39' });
      expect(await listing(gql)).toEqual(expectedListing(phase(name)));
    }
  });

  it('reads only what changed: an unchanged cloud costs the listings and one usage request per project', async () => {
    const { fake, gateway } = await setup();
    await gateway.refresh();
    fake.requests.length = 0;
    await gateway.refresh();
    expect(fake.requests.sort()).toEqual(['GET /resource_classes', 'GET /resource_providers', 'GET /traits', `GET /usages?project_id=${P1}`, 'GET /usages?project_id=33333333-3333-3333-3333-333333333333'].sort());
    // The deleted consumer shows only as a usage difference: its project's consumers are read again.
    fake.setPhase('consumer deleted by another client');
    fake.requests.length = 0;
    await gateway.refresh();
    expect(fake.requests).toContain('GET /allocations/e0000000-0000-0000-0000-000000000001');
    expect(fake.requests.filter((r) => r.includes('/inventories'))).toEqual([]);
  });

  it('retries 5xx and connection errors with backoff, and keeps the last state when Placement stays down', async () => {
    const { fake, gateway, gql, yoga } = await setup();
    fake.failNext(2, 503);
    await gateway.refresh();
    expect(gateway.client.requests.get(503)).toBe(2);
    const before = await listing(gql);
    fake.setPhase('consumer deleted by another client');
    fake.dieAfter = 3; // killed during the refresh
    await expect(gateway.refresh()).rejects.toThrow(/unreachable/);
    expect(await listing(gql)).toEqual(before);
    const status = (await gql('{ upstream { lastError stale } }')).data.upstream;
    expect(status.lastError).toMatch(/Placement at http:\/\/127\.0\.0\.1:\d+ is unreachable: ECONNRESET/);
    // Reads keep being answered; /health says why they may be old once the mirror is stale.
    expect(gateway.stale(Date.now() + 46_000)).toBe(true);
    const health = await (await yoga.fetch('http://test/health')).json();
    expect(health.status).toBe('ok');
    expect(health.upstream.lastError).toMatch(/unreachable/);
    const metrics = await (await yoga.fetch('http://test/metrics')).text();
    expect(metrics).toMatch(/placement_gql_upstream_requests_total\{status="503"\} 2/);
    expect(metrics).toMatch(/placement_gql_upstream_sync_seconds \d/);
  });

  it("exports the mirror's refreshes by result, the time of the last success and the interval on /metrics", async () => {
    const { fake, gateway, yoga } = await setup();
    const sample = async (name: string) => {
      const text = await (await yoga.fetch('http://test/metrics')).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? undefined : Number(line.slice(name.length + 1));
    };
    expect(await sample('placement_gql_upstream_last_success_timestamp_seconds')).toBeNaN();
    expect(await sample('placement_gql_upstream_stale')).toBe(1);
    const before = Date.now() / 1000;
    await gateway.refresh();
    const after = Date.now() / 1000;
    const at = (await sample('placement_gql_upstream_last_success_timestamp_seconds'))!;
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    expect(await sample('placement_gql_upstream_interval_seconds')).toBe(15);
    expect(await sample('placement_gql_upstream_stale')).toBe(0);
    expect(await sample('placement_gql_upstream_refreshes_total{result="success"}')).toBe(1);
    expect(await sample('placement_gql_upstream_refreshes_total{result="failure"}')).toBe(0);
    fake.dieAfter = 0;
    await expect(gateway.refresh()).rejects.toThrow(/unreachable/);
    expect(await sample('placement_gql_upstream_refreshes_total{result="failure"}')).toBe(1);
    // A failed refresh leaves the time of the last success as it was.
    expect(await sample('placement_gql_upstream_last_success_timestamp_seconds')).toBe(at);
  });

  it('asks for a new token after a 401, once', async () => {
    let renewals = 0;
    const { fake, gateway } = await setup({
      session: (url) => ({ ...fixedTokenSession(url, 'x'), token: async (renew?: boolean) => (renew ? (renewals++, 'admin') : renewals ? 'admin' : 'expired') }),
    });
    await gateway.refresh();
    expect(renewals).toBe(1);
    expect(gateway.client.requests.get(401)).toBe(1);
    // A token refused again after renewal is not retried forever: each request renews once.
    fake.validToken = 'another';
    await expect(gateway.client.call('GET', '/traits')).rejects.toMatchObject({ status: 401 });
    expect(gateway.client.requests.get(401)).toBe(1 + 2);
    expect(renewals).toBe(2);
  });

  it('names the role it needs when Placement answers 403', async () => {
    const { gateway } = await setup({ session: (url) => fixedTokenSession(url, 'someone') });
    const error = await gateway.refresh().catch((e) => e);
    expect(error.status).toBe(403);
    // The policy rule Placement names is shown; nothing else of its answer.
    expect(explainFailure(error)).toBe(
      'Placement refused access (403) to GET / (policy placement:resource_providers:list): the gateway reads every provider and consumer, which needs the admin role (or a role the placement policy allows for all of them).',
    );
  });
});

describe('writes go through', () => {
  it('sets traits in Placement with the caller generation; a stale generation is a GenerationConflict and changes nothing', async () => {
    const { fake, gateway, gql } = await setup();
    fake.setPhase('provider renamed and moved by another client');
    await gateway.refresh();
    const mutation = `mutation { setProviderTraits(input: { providerUuid: "${CN2}", generation: 3, traits: ["HW_CPU_X86_AVX2", "COMPUTE_STATUS_DISABLED"] }) {
      ${errorSelection('setProviderTraits')} ... on ResourceProviderPayload { provider { generation traits } } } }`;
    const ok = (await gql(mutation)).data.setProviderTraits;
    expect(ok).toEqual({ __typename: 'ResourceProviderPayload', provider: { generation: 4, traits: ['COMPUTE_STATUS_DISABLED', 'HW_CPU_X86_AVX2'] } });
    expect(fake.phase).toBe('traits set through the gateway');
    // The next query sees it, with no refresh in between.
    expect(await listing(gql)).toEqual(expectedListing(phase('traits set through the gateway')));
    const stale = (await gql(mutation)).data.setProviderTraits;
    expect(stale).toMatchObject({ __typename: 'GenerationConflict', code: 'placement.concurrent_update', field: 'generation', expected: 3, actual: 4 });
    expect(stale.message).toMatch(/Resource provider's generation already changed/);
    expect(await listing(gql)).toEqual(expectedListing(phase('traits set through the gateway')));
  });

  it('sets and deletes allocations in Placement; over capacity is refused with its words', async () => {
    const { fake, gateway, gql } = await setup();
    fake.setPhase('traits set through the gateway');
    await gateway.refresh();
    const set = (generation: string, resources: string) => `mutation { setAllocations(input: { consumerUuid: "${E3}", consumerGeneration: ${generation}, projectId: "${P1}", userId: "${U1}",
      allocations: ${resources} }) { ${errorSelection('setAllocations')} ... on ConsumerPayload { consumer { generation projectId allocations { provider { name } resources { resourceClass amount } } } providerUuids } } }`;
    const ok = (await gql(set('null', `[{ providerUuid: "${CN1}", resources: [{ resourceClass: "VCPU", amount: 1 }, { resourceClass: "MEMORY_MB", amount: 512 }] }, { providerUuid: "5a000000-0000-0000-0000-000000000001", resources: [{ resourceClass: "DISK_GB", amount: 10 }] }]`))).data.setAllocations;
    expect(ok.__typename).toBe('ConsumerPayload');
    expect(ok.consumer.generation).toBe(1);
    expect(fake.phase).toBe('allocations set through the gateway');
    expect(await listing(gql)).toEqual(expectedListing(phase('allocations set through the gateway')));
    const over = (await gql(set('1', `[{ providerUuid: "${CN1}", resources: [{ resourceClass: "VCPU", amount: 100 }] }]`))).data.setAllocations;
    expect(over).toMatchObject({ __typename: 'CapacityExceeded', providerUuid: CN1, resourceClass: 'VCPU' });
    expect(over.message).toMatch(/Unable to allocate inventory/);
    const deleted = (await gql(`mutation { deleteAllocations(input: { consumerUuid: "${E3}" }) { __typename ... on ConsumerPayload { providerUuids } } }`)).data.deleteAllocations;
    expect(deleted.__typename).toBe('ConsumerPayload');
    expect(await listing(gql)).toEqual(expectedListing(phase('allocations deleted through the gateway')));
  });

  it('answers a refusal to delete a parent with Placement code, and refuses what belongs to another service', async () => {
    const { fake, gateway, gql } = await setup();
    fake.setPhase('allocations deleted through the gateway');
    await gateway.refresh();
    const refused = (await gql(`mutation { deleteResourceProvider(input: { uuid: "${CN2}" }) { ${errorSelection('deleteResourceProvider')} } }`)).data.deleteResourceProvider;
    expect(refused).toMatchObject({ __typename: 'InUse', code: 'placement.resource_provider.cannot_delete_parent' });
    const node = await gql('mutation { deleteNode(input: { node: "n1" }) { __typename } }');
    expect(node.errors[0].extensions.code).toBe('NOT_AVAILABLE_IN_GATEWAY_MODE');
    expect(node.errors[0].message).toMatch(/not available in gateway mode/);
    expect(fake.requests.filter((r) => !r.startsWith('GET'))).toEqual([`DELETE /resource_providers/${CN2}`]);
  });
});

describe('provider config through the gateway', () => {
  const DOCUMENT = ["meta:", "  schema_version: '1.0'", 'providers:', '  - identification:', '      name: cn2', '    traits:', '      additional:', '        - CUSTOM_GOLD',
    '  - identification:', '      name: nfs', '    traits:', '      additional:', '        - CUSTOM_GOLD'].join('\n');
  const APPLY = `mutation($d: [ProviderConfigDocument!]!) { applyProviderConfig(input: { documents: $d }) {
    ${errorSelection('applyProviderConfig')} ... on ProviderConfigPlan { applied providers { provider { name traits } } } } }`;

  it('stops at a refusal half-way, says what was applied, and converges when run again', async () => {
    const { fake, gateway, yoga } = await setup();
    fake.setPhase('allocations deleted through the gateway');
    await gateway.refresh();
    fake.setPhase('nfs changed by another client'); // the mirror has not seen it
    const apply = async () => {
      const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: APPLY, variables: { d: [{ name: '10-gold.yaml', content: DOCUMENT }] } }) });
      return ((await response.json()) as any).data.applyProviderConfig;
    };
    const first = await apply();
    expect(first).toMatchObject({ __typename: 'GenerationConflict', code: 'placement.concurrent_update', expected: 5, actual: 6 });
    expect(first.message).toMatch(/Applied before the refusal: cn2 \(c0000000-0000-0000-0000-000000000002\); nothing on the others\. Run the same apply again/);
    expect(fake.phase).toBe('config: cn2 written');
    await gateway.refresh();
    const second = await apply();
    expect(second.applied).toBe(true);
    expect(fake.phase).toBe('config: nfs written');
    // Only nfs was written the second time.
    expect(fake.requests.filter((r) => !r.startsWith('GET'))).toEqual([
      'PUT /traits/CUSTOM_GOLD',
      'PUT /resource_providers/c0000000-0000-0000-0000-000000000002/traits',
      'PUT /resource_providers/5a000000-0000-0000-0000-000000000001/traits',
      'PUT /resource_providers/5a000000-0000-0000-0000-000000000001/traits',
    ]);
    const third = await apply();
    expect(third.applied).toBe(true);
    expect(fake.requests.filter((r) => !r.startsWith('GET'))).toHaveLength(4);
  });
});

describe('placement-gql sync', () => {
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { env: { ...process.env, OS_CLOUD: '', OS_AUTH_URL: '' } }).then(
      (r) => ({ code: 0, ...r }),
      (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
    );

  it('mirrors once and says what it did; an unreachable or refusing upstream exits non-zero and changes nothing', async () => {
    const fake = await startFakePlacement(rec);
    cleanups.push(() => fake.close());
    const file = tempDbFile();
    const ok = await run(['sync', '--db', file, '--upstream', fake.url, '--upstream-token', 'admin']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Mirrored http:\/\/127\.0\.0\.1:\d+ \(microversion 1\.39\) into .* with \d+ requests: 4 providers \(4 added, 0 removed, 4 read in detail\)/);
    const refused = await run(['sync', '--db', file, '--upstream', fake.url, '--upstream-token', 'wrong']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/sync failed; .* keeps its previous state\. Placement refused the token \(401\)/);
    await fake.close();
    const down = await run(['sync', '--db', file, '--upstream', fake.url, '--upstream-token', 'admin']);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/is unreachable: ECONNREFUSED/);
    const db = openDatabase(file);
    expect(db.sqlite.prepare('SELECT COUNT(*) AS n FROM resource_providers').get()).toEqual({ n: 4 });
    db.close();
  });
});
