// The mirror read from Placement's own database (--placement-db) on a real MariaDB, with Placement
// 8.0.0's tables as its migrations create them and rows Placement wrote itself
// (test/fixtures/placement-db, recorded by scripts/record-placement-db.py). Through every phase of
// changes another client made through Placement's API, the database mirror must equal, row for row,
// the mirror read from the API (its answers recorded in the same phases) and a full read from
// scratch; with a SELECT-only account, a bounded number of statements, and no request to the API.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openDatabase, type Db } from '../src/db/client.js';
import { createServer } from '../src/server.js';
import { Gateway } from '../src/mirror/gateway.js';
import { fixedTokenSession } from '../src/upstream/session.js';
import { databaseOnlySession, NO_API_FOR_WRITES } from '../src/mirror/gateway.options.js';
import { databaseSource } from '../src/mirror/placement-db.source.js';
import { parsePlacementDbUrl } from '../src/upstream/placement-db.client.js';
import { exportSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { startFakePlacement, type Phase, type Recording } from './fake-placement.js';
import { fixture, tempDbFile } from './helpers.js';
import { mariadbMissing, startMariaDb, type TestMariaDb } from './mariadb.js';

const cloud = fixture('./fixtures/placement-db/cloud.json') as Omit<Recording, 'phases'> & { phases: (Phase & { rows: string })[] };
const schema = readFileSync(fileURLToPath(new URL('./fixtures/placement-db/schema.sql', import.meta.url)), 'utf8');
const PASSWORD = 'p@ss:w/rd s3cret';
const missing = mariadbMissing();
if (missing) console.log(`test/placement-db.test.ts skipped: ${missing}`);

let maria: TestMariaDb;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Placement's rows of a phase, as Placement wrote them, replacing whatever the database held. */
function loadPhase(name: string) {
  const phase = cloud.phases.find((p) => p.name === name)!;
  const tables = maria.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'placement'").trim().split('\n');
  maria.sql(`USE placement; SET FOREIGN_KEY_CHECKS = 0; SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO';
    ${tables.map((t) => `DELETE FROM \`${t}\`;`).join(' ')} ${phase.rows}`);
}

/** The mirror's rows, each table in a stable order: what two mirrors of one cloud must share. */
function rows(db: Db) {
  const q = (sql: string) => db.sqlite.prepare(sql).all();
  return {
    snapshot: exportSnapshot(db),
    providers: q(`SELECT rp.uuid, rp.name, rp.generation, p.uuid AS parent, r.uuid AS root FROM resource_providers rp
      LEFT JOIN resource_providers p ON p.id = rp.parent_id LEFT JOIN resource_providers r ON r.id = rp.root_id ORDER BY rp.uuid`),
    inventories: q(`SELECT rp.uuid, rc.name, i.total, i.reserved, i.min_unit, i.max_unit, i.step_size, i.allocation_ratio FROM inventories i
      JOIN resource_providers rp ON rp.id = i.resource_provider_id JOIN resource_classes rc ON rc.id = i.resource_class_id ORDER BY rp.uuid, rc.name`),
    consumers: q('SELECT uuid, project_id, user_id, consumer_type, generation FROM consumers ORDER BY uuid'),
    allocations: q(`SELECT rp.uuid, c.uuid AS consumer, rc.name, a.used FROM allocations a JOIN resource_providers rp ON rp.id = a.resource_provider_id
      JOIN consumers c ON c.id = a.consumer_id JOIN resource_classes rc ON rc.id = a.resource_class_id ORDER BY rp.uuid, c.uuid, rc.name`),
    traits: q('SELECT name FROM traits ORDER BY name'),
    classes: q('SELECT name FROM resource_classes ORDER BY name'),
    skipped: q('SELECT kind, record, reason FROM mirror_skipped ORDER BY record'),
  };
}

function databaseGateway(options: { password?: string; db?: Db; api?: string } = {}) {
  const db = options.db ?? openDatabase(tempDbFile());
  const target = parsePlacementDbUrl(maria.url('reader', options.password ?? PASSWORD));
  const source = databaseSource(target);
  const session = options.api ? fixedTokenSession(options.api, 'admin') : databaseOnlySession(source.describe!);
  const gateway = new Gateway(db, session, { source, interval: 15, retryDelayMs: 1 });
  cleanups.push(() => gateway.stop(), () => db.close());
  return { db, gateway, source };
}

describe.skipIf(missing)("the mirror read from Placement's database", () => {
  beforeAll(async () => {
    maria = await startMariaDb();
    maria.sql(`CREATE DATABASE placement CHARACTER SET utf8mb4; USE placement; ${schema}
      CREATE USER 'reader'@'localhost' IDENTIFIED BY '${PASSWORD}'; GRANT SELECT ON placement.* TO 'reader'@'localhost';`);
  }, 120_000);
  afterAll(() => maria?.stop(), 60_000);

  it('equals the mirror read through the API, row for row, before and after changes of every kind, with a few statements and no request', async () => {
    const fake = await startFakePlacement(cloud);
    cleanups.push(() => fake.close());
    const { db, gateway, source } = databaseGateway();
    const apiDb = openDatabase(tempDbFile());
    const api = new Gateway(apiDb, fixedTokenSession(fake.url, 'admin'), { interval: 15, retryDelayMs: 1 });
    cleanups.push(() => api.stop(), () => apiDb.close());
    for (const phase of cloud.phases) {
      loadPhase(phase.name);
      fake.setPhase(phase.name);
      await api.refresh();
      const requests = fake.requests.length;
      const before = source.client.statements;
      const changes = await gateway.refresh();
      // START TRANSACTION, names, providers, consumers and COMMIT; with changes, inventories, traits and aggregates, allocations.
      expect(source.client.statements - before, phase.name).toBeLessThanOrEqual(phase.name === 'initial' ? 9 : 8);
      expect(fake.requests.length).toBe(requests);
      expect(rows(db), phase.name).toEqual(rows(apiDb));
      // A full read from scratch gives the same.
      const fresh = databaseGateway();
      await fresh.gateway.refresh();
      expect(rows(fresh.db), phase.name).toEqual(rows(db));
      // Nothing changed since: nothing is read but the lists, nothing is written.
      const quiet = source.client.statements;
      const again = await gateway.refresh();
      expect(source.client.statements - quiet).toBe(5);
      expect(again).toMatchObject({ added: 0, removed: 0, detailed: 0, allocationsRewritten: 0, consumers: 0 });
      if (phase.name !== 'initial') expect(changes.detailed + changes.allocationsRewritten + changes.removed + changes.added, phase.name).toBeGreaterThan(0);
    }
  }, 120_000);

  it('finds a deletion of allocations, which moves no generation, and a move, exactly', async () => {
    const { db, gateway } = databaseGateway();
    loadPhase('initial');
    await gateway.refresh();
    const consumers = () => (db.sqlite.prepare('SELECT uuid FROM consumers ORDER BY uuid').all() as { uuid: string }[]).map((r) => r.uuid);
    const before = consumers();
    loadPhase('allocations deleted');
    const changes = await gateway.refresh();
    expect(before.length - consumers().length).toBe(2);
    // Only the providers the deleted consumers were on are rewritten; none is read in detail.
    expect(changes.detailed).toBe(0);
    expect(changes.allocationsRewritten).toBeGreaterThan(0);
  }, 60_000);

  it('mirrors a consumer written without a type (before 1.38) as one, and finds nothing changed after', async () => {
    const { db, gateway } = databaseGateway();
    loadPhase('initial');
    await gateway.refresh();
    const [uuid] = maria.sql('SELECT uuid FROM placement.consumers ORDER BY id LIMIT 1').trim().split('\n');
    maria.sql(`UPDATE placement.consumers SET consumer_type_id = NULL, generation = generation + 1 WHERE uuid = '${uuid}'`);
    expect(await gateway.refresh()).toMatchObject({ consumers: 1 });
    expect(db.sqlite.prepare('SELECT consumer_type FROM consumers WHERE uuid = ?').get(uuid)).toEqual({ consumer_type: null });
    expect(await gateway.refresh()).toMatchObject({ added: 0, removed: 0, detailed: 0, allocationsRewritten: 0, consumers: 0 });
  }, 60_000);

  it('refuses a schema it does not know, naming its version, and keeps the mirror', async () => {
    const { db, gateway } = databaseGateway();
    loadPhase('initial');
    await gateway.refresh();
    const before = rows(db);
    maria.sql("UPDATE placement.alembic_version SET version_num = 'feedfacecafe'");
    try {
      await expect(gateway.refresh()).rejects.toThrow(/schema version feedfacecafe \(alembic_version\), which this mirror does not know: it reads the schema of Placement 8\.0\.0 and later \(422ece571366\)/);
      expect(gateway.status().lastError).toMatch(/feedfacecafe/);
      expect(rows(db)).toEqual(before);
    } finally {
      maria.sql("UPDATE placement.alembic_version SET version_num = '422ece571366'");
    }
  }, 60_000);

  it('refuses writes without an API, naming what to add; with one, writes go to it', async () => {
    loadPhase('initial');
    const uuid = (cloud.phases[0] as any).routes['GET /resource_providers'].body.resource_providers[0].uuid;
    const mutation = `mutation { setProviderTraits(input: { providerUuid: "${uuid}", generation: 0, traits: ["CUSTOM_X"] }) { __typename } }`;
    const ask = async (gateway: Gateway, db: Db) => {
      const yoga = createServer({ db, gateway, maskErrors: false });
      const response = await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: mutation }) });
      return (await response.json()) as any;
    };
    const alone = databaseGateway();
    await alone.gateway.refresh();
    const refused = await ask(alone.gateway, alone.db);
    expect(refused.errors[0].message).toContain(NO_API_FOR_WRITES);
    expect(refused.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');

    const fake = await startFakePlacement(cloud);
    cleanups.push(() => fake.close());
    const beside = databaseGateway({ api: fake.url });
    await beside.gateway.refresh();
    expect(fake.requests).toEqual([]);
    await ask(beside.gateway, beside.db);
    expect(fake.requests).toContain(`PUT /resource_providers/${uuid}/traits`);
  }, 60_000);

  it('placement-gql sync --placement-db (or PLACEMENT_DB_URL) mirrors the database and never shows the password', async () => {
    loadPhase('initial');
    const file = tempDbFile();
    const run = promisify(execFile);
    const cli = (args: string[], env: Record<string, string> = {}) =>
      run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { env: { ...process.env, ...env, OS_CLOUD: '', OS_AUTH_URL: '' }, timeout: 60_000 }).then(
        (r) => ({ code: 0, out: r.stdout + r.stderr }),
        (e) => ({ code: e.code as number, out: `${e.stdout}${e.stderr}` }),
      );
    const synced = await cli(['sync', '--db', file, '--placement-db', maria.url('reader', PASSWORD)]);
    expect(synced.code).toBe(0);
    expect(synced.out).toMatch(/^Mirrored mysql:\/\/localhost\/placement \(socket \S+\) as reader into \S+ in [\d.]+ s with 9 SQL statements and 0 requests to the API: 30 providers \(30 added/);
    const again = await cli(['sync', '--db', file], { PLACEMENT_DB_URL: maria.url('reader', PASSWORD) });
    expect(again.out).toContain('0 added, 0 removed, 0 read in detail');
    const wrong = await cli(['sync', '--db', file, '--placement-db', maria.url('reader', 'not-the-password')]);
    expect(wrong.code).toBe(2);
    expect(wrong.out).toContain(`sync failed; ${file} keeps its previous state. Placement's database mysql://localhost/placement (socket ${maria.socket}) as reader refused the credentials of user reader (access denied): check the user and password of --placement-db`);
    for (const out of [synced.out, again.out, wrong.out]) {
      expect(out).not.toContain('s3cret');
      expect(out).not.toContain(encodeURIComponent(PASSWORD));
    }
  }, 120_000);

  // Last: it stops the database.
  it('with the database gone, reads are answered from the mirror and upstream, /health and /metrics say what is wrong, without the password', async () => {
    loadPhase('initial');
    const { db, gateway } = databaseGateway();
    await gateway.refresh();
    const yoga = createServer({ db, gateway, maskErrors: false });
    const gql = async (query: string) => (await (await yoga.fetch('http://test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) })).json()) as any;
    await maria.stop();
    await expect(gateway.refresh()).rejects.toThrow();
    const { data } = await gql('{ upstream { url database statements lastError stale } resourceProviders(first: 100) { totalCount } }');
    expect(data.resourceProviders.totalCount).toBe(30);
    expect(data.upstream.database).toBe(`mysql://localhost/placement (socket ${maria.socket}) as reader`);
    expect(data.upstream.lastError).toMatch(/^Placement's database mysql:\/\/localhost\/placement \(socket \S+\) as reader is unreachable: there is no socket at|the connection was cut/);
    const health = await (await yoga.fetch('http://test/health')).text();
    const metrics = await (await yoga.fetch('http://test/metrics')).text();
    for (const text of [JSON.stringify(data), health, metrics]) {
      expect(text).not.toContain('s3cret');
      expect(text).not.toContain(encodeURIComponent(PASSWORD));
    }
  }, 60_000);
});

describe('the --placement-db URL', () => {
  it("takes mysql:// and placement.conf's SQLAlchemy form, with a socket, options and an encoded password, and never shows the password", () => {
    expect(parsePlacementDbUrl('mysql://reader:secret@db.example:3307/placement')).toMatchObject({
      user: 'reader', password: 'secret', host: 'db.example', port: 3307, socketPath: null, database: 'placement',
      shown: 'mysql://db.example:3307/placement as reader', identity: 'mysql://db.example:3307/placement',
    });
    expect(parsePlacementDbUrl('mysql+pymysql://placement:p%40ss%2Fw@192.0.2.10/placement?charset=utf8&plugin=dbcounter')).toMatchObject({
      user: 'placement', password: 'p@ss/w', host: '192.0.2.10', port: 3306, database: 'placement', shown: 'mysql://192.0.2.10:3306/placement as placement',
    });
    expect(parsePlacementDbUrl('mysql+pymysql://reader:x@/placement?unix_socket=/var/run/mysqld/mysqld.sock')).toMatchObject({ host: null, socketPath: '/var/run/mysqld/mysqld.sock', shown: 'mysql://localhost/placement (socket /var/run/mysqld/mysqld.sock) as reader' });
    expect(parsePlacementDbUrl('mysql://reader:x@[2001:db8::1]:3306/placement').shown).toBe('mysql://[2001:db8::1]:3306/placement as reader');
    const refused = (url: string) => {
      try {
        parsePlacementDbUrl(url);
      } catch (error) {
        return (error as Error).message;
      }
      return null;
    };
    expect(refused('postgresql://u:secret@h/placement')).toBe('--placement-db must be a MySQL or MariaDB URL (mysql:// or mysql+pymysql://), not postgresql://');
    expect(refused('mysql://h/placement')).toBe('--placement-db needs a user: mysql://USER:PASSWORD@HOST/placement');
    expect(refused('mysql://u:secret@h')).toBe("--placement-db needs the database's name after the host: mysql://USER:PASSWORD@HOST/placement");
    expect(refused('mysql://u:secret@h/placement?sslmode=require')).toMatch(/^--placement-db: the option sslmode is not known/);
    expect(refused('mysql://u:secret@h:99999/placement')).toBe('--placement-db: the port must be a whole number from 1 to 65535, not 99999');
    for (const url of ['postgresql://u:secret@h/placement', 'mysql://u:secret@h', 'mysql://u:secret@h/placement?sslmode=require']) expect(refused(url)).not.toContain('secret');
  });
});
