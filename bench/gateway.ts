// Gateway mode against the real Placement 8.0.0 over HTTP: a full sync into an empty database, a
// refresh with nothing changed, and a refresh after 100 changes made by another client (consumers
// deleted and shrunk, providers renamed, traits set). Placement here is Debian's placement-api
// (wsgiref, one request at a time): its time per request is most of these figures, and
// --upstream-concurrency only helps a Placement that runs several workers.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/client.js';
import { Gateway } from '../src/mirror/gateway.js';
import { PlacementClient } from '../src/upstream/placement.client.js';
import { fixedTokenSession } from '../src/upstream/session.js';
import { startPlacement } from './services.js';

export async function gatewayBench(size: number, scenarioFile: string, snapshot: string) {
  const dir = mkdtempSync(join(tmpdir(), 'placement-gql-gateway-'));
  mkdirSync(join(dir, 'placement'));
  const placement = await startPlacement(join(dir, 'placement'), scenarioFile, snapshot);
  const db = openDatabase(join(dir, 'mirror.db'));
  const gateway = new Gateway(db, fixedTokenSession(placement.url, 'admin'));
  const timed = async () => {
    const requests = gateway.client.requestCount;
    const started = performance.now();
    const changes = await gateway.refresh();
    return { seconds: (performance.now() - started) / 1000, requests: gateway.client.requestCount - requests, changes };
  };
  try {
    const full = await timed();
    const unchanged = await timed();
    const made = await makeChanges(placement.url, db);
    const after = await timed();
    console.log(`\n# Gateway mode (${size} roots): mirroring the real Placement 8.0.0 over HTTP (one request at a time on its side)\n`);
    console.log('| refresh | seconds | upstream requests |');
    console.log('|---|---:|---:|');
    console.log(`| full sync into an empty database (${full.changes.providers} providers) | ${full.seconds.toFixed(1)} | ${full.requests} |`);
    console.log(`| nothing changed | ${unchanged.seconds.toFixed(2)} | ${unchanged.requests} |`);
    console.log(`| after ${made} changes by another client | ${after.seconds.toFixed(2)} | ${after.requests} |`);
  } finally {
    gateway.stop();
    db.close();
    await placement.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 100 changes through Placement's API, as Nova and operators make them: 40 deletes, 30 resizes, 20 renames, 10 trait sets. */
export async function makeChanges(url: string, db: ReturnType<typeof openDatabase>): Promise<number> {
  const client = new PlacementClient(fixedTokenSession(url, 'admin'), { concurrency: 1 });
  const consumers = db.sqlite.prepare('SELECT uuid FROM consumers ORDER BY uuid').all() as { uuid: string }[];
  const roots = db.sqlite.prepare('SELECT uuid, name, generation FROM resource_providers WHERE parent_id IS NULL ORDER BY uuid').all() as { uuid: string; name: string }[];
  let made = 0;
  for (const { uuid } of consumers.filter((_, i) => i % 7 === 0).slice(0, 40)) {
    await client.call('DELETE', `/allocations/${uuid}`);
    made++;
  }
  for (const { uuid } of consumers.filter((_, i) => i % 7 === 3).slice(0, 30)) {
    const a = await client.call<any>('GET', `/allocations/${uuid}`);
    const allocations = Object.fromEntries(
      Object.entries<any>(a.allocations).map(([rp, x]) => [rp, { resources: Object.fromEntries(Object.entries<number>(x.resources).map(([rc, n]) => [rc, rc === 'MEMORY_MB' ? Math.max(1, Math.floor(n / 2)) : n])) }]),
    );
    await client.call('PUT', `/allocations/${uuid}`, { allocations, project_id: a.project_id, user_id: a.user_id, consumer_generation: a.consumer_generation, consumer_type: a.consumer_type });
    made++;
  }
  for (const { uuid, name } of roots.slice(0, 20)) {
    await client.call('PUT', `/resource_providers/${uuid}`, { name: `${name}-renamed` });
    made++;
  }
  await client.call('PUT', '/traits/CUSTOM_BENCH_CHANGED');
  for (const { uuid } of roots.slice(20, 30)) {
    const t = await client.call<any>('GET', `/resource_providers/${uuid}/traits`);
    await client.call('PUT', `/resource_providers/${uuid}/traits`, { resource_provider_generation: t.resource_provider_generation, traits: [...t.traits, 'CUSTOM_BENCH_CHANGED'] });
    made++;
  }
  client.close();
  return made;
}
