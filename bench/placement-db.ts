// Gateway mode reading Placement's own database (--placement-db): the real Placement 8.0.0 on a real
// MariaDB (Debian's mariadb-server, in a temporary folder), holding the bench's cloud as Placement
// wrote it. Timed: a full sync into an empty mirror, a refresh with nothing changed, one after 100
// changes made through Placement's API by another client (as the API bench makes them), and one
// after a single deletion of allocations (which moves no provider generation); each with its SQL
// statements and its requests to Placement's API (none expected), then the dashboard's query over HTTP.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as httpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/client.js';
import { Gateway } from '../src/mirror/gateway.js';
import { databaseSource } from '../src/mirror/placement-db.source.js';
import { parsePlacementDbUrl } from '../src/upstream/placement-db.client.js';
import { PlacementClient } from '../src/upstream/placement.client.js';
import { fixedTokenSession } from '../src/upstream/session.js';
import { createServer } from '../src/server.js';
import { mariadbMissing, startMariaDb } from '../test/mariadb.js';
import { makeChanges } from './gateway.js';
import { DASHBOARD } from './capacity.js';
import { startPlacement } from './services.js';

export async function placementDbBench(size: number, scenarioFile: string, snapshot: string) {
  const missing = mariadbMissing();
  if (missing) {
    console.log(`\nGateway mode from Placement's database not timed: ${missing}.`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'placement-gql-gateway-db-'));
  mkdirSync(join(dir, 'placement'));
  const maria = await startMariaDb();
  maria.sql(`CREATE DATABASE placement CHARACTER SET utf8mb4;
    CREATE USER 'placement'@'localhost' IDENTIFIED BY 'placement'; GRANT ALL ON placement.* TO 'placement'@'localhost';
    CREATE USER 'reader'@'localhost' IDENTIFIED BY 'reader'; GRANT SELECT ON placement.* TO 'reader'@'localhost';`);
  const placement = await startPlacement(join(dir, 'placement'), scenarioFile, snapshot, maria.url('placement', 'placement'));
  const db = openDatabase(join(dir, 'mirror.db'));
  const source = databaseSource(parsePlacementDbUrl(maria.url('reader', 'reader')));
  // Writes (none here) would go to the API beside the database.
  const gateway = new Gateway(db, fixedTokenSession(placement.url, 'admin'), { source });
  // The dashboard's query over HTTP on loopback, as a user's page sends it.
  const http = httpServer(createServer({ db, gateway, maskErrors: false }));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const graphql = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
  const dashboard = async () => {
    const started = performance.now();
    const response = await fetch(graphql, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: DASHBOARD }) });
    const body = (await response.json()) as { errors?: unknown };
    if (body.errors) throw new Error(`the dashboard's query failed: ${JSON.stringify(body.errors)}`);
    return (performance.now() - started) / 1000;
  };
  const timed = async () => {
    const requests = gateway.client.requestCount;
    const statements = source.client.statements;
    const started = performance.now();
    const changes = await gateway.refresh();
    const seconds = (performance.now() - started) / 1000;
    return { seconds, statements: source.client.statements - statements, requests: gateway.client.requestCount - requests, changes, dashboard: await dashboard() };
  };
  try {
    const full = await timed();
    // Nothing changed: the median of 5 refreshes.
    const quiet = [];
    for (let i = 0; i < 5; i++) quiet.push(await timed());
    const unchanged = quiet.sort((a, b) => a.seconds - b.seconds)[2];
    const made = await makeChanges(placement.url, db);
    const after = await timed();
    const client = new PlacementClient(fixedTokenSession(placement.url, 'admin'), { concurrency: 1 });
    const { uuid } = db.sqlite.prepare('SELECT uuid FROM consumers ORDER BY uuid LIMIT 1').get() as { uuid: string };
    await client.call('DELETE', `/allocations/${uuid}`);
    client.close();
    const deletion = await timed();
    const row = (what: string, t: typeof full, digits: number) =>
      `| ${what} | ${t.seconds.toFixed(digits)} | ${t.statements} | ${t.requests} | ${t.changes.detailed} / ${t.changes.allocationsRewritten} / ${t.changes.consumers} | ${t.dashboard.toFixed(2)} |`;
    console.log(`\n# Gateway mode (${size} roots): mirroring Placement 8.0.0's own database on MariaDB (--placement-db, a SELECT-only account)\n`);
    console.log("| refresh | seconds | SQL statements | requests to Placement's API | providers read in detail / allocations rewritten / consumers | dashboard's query after, s |");
    console.log('|---|---:|---:|---:|---:|---:|');
    console.log(row(`full sync into an empty database (${full.changes.providers} providers)`, full, 2));
    console.log(row('nothing changed (median of 5)', unchanged, 3));
    console.log(row(`after ${made} changes by another client`, after, 3));
    console.log(row('after one deletion of allocations', deletion, 3));
  } finally {
    http.close();
    gateway.stop();
    db.close();
    await placement.stop();
    await maria.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
