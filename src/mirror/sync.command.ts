// placement-gql sync: one full mirror of a live Placement into the SQLite file.
import type { CommandOptions } from '../command.js';
import { openDatabase } from '../db/client.js';
import { Gateway, type GatewayOptions } from './gateway.js';
import { DatabaseRefused, explainFailure, isExplained } from '../upstream/failure.js';
import type { ReadProgress } from './source.js';
import { databaseOnlySession, gatewayOptions, placementDbSource, upstreamSession, UpstreamConfigError } from './gateway.options.js';
import type { PlacementSource } from './source.js';
import { reasonLine } from './skipped.store.js';

export async function syncCommand({ dbFile, values }: CommandOptions): Promise<number> {
  let session;
  let options: GatewayOptions;
  let source: PlacementSource | null;
  try {
    source = placementDbSource(values);
    session = (await upstreamSession(values)) ?? (source ? databaseOnlySession(source.describe!) : null);
    options = { ...gatewayOptions(values), source: source ?? undefined };
  } catch (error) {
    if (!(error instanceof UpstreamConfigError)) throw error;
    console.error(`placement-gql: ${error.message}\nSee 'placement-gql --help'.`);
    return 1;
  }
  if (!session) {
    console.error("placement-gql: sync needs an upstream: --placement-db URL, --upstream URL --upstream-token TOKEN, --os-cloud NAME or the OS_* variables\nSee 'placement-gql --help'.");
    return 1;
  }
  const db = openDatabase(dbFile);
  const gateway = new Gateway(db, session, options);
  const started = Date.now();
  const bar = process.stderr.isTTY ? progressBar(started, () => gateway.client.requestCount) : null;
  try {
    const changes = await gateway.refresh(bar ?? undefined, { full: true });
    bar?.done();
    const status = gateway.status();
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const from = status.database ? `${status.database}` : `${status.url} (microversion ${status.microversion})`;
    const cost = status.statements === null ? `${status.requests} requests` : `${status.statements} SQL statements and ${status.requests} requests to the API`;
    console.log(
      `Mirrored ${from} into ${dbFile} in ${seconds} s with ${cost}: ` +
        `${changes.providers} providers (${changes.added} added, ${changes.removed} removed, ${changes.detailed} read in detail), ` +
        `allocations rewritten on ${changes.allocationsRewritten}, ${changes.consumers} consumers updated.`,
    );
    for (const feature of status.disabledFeatures) console.log(`Off with this Placement: ${feature}.`);
    if (status.skipped.count) {
      console.error(`Not mirrored: ${status.skipped.count} record${status.skipped.count === 1 ? '' : 's'} of the upstream answers that break a rule (upstream { skipped { records } } lists them): ${status.skipped.reasons.map(reasonLine).join('; ')}.`);
    }
    let failed = false;
    const apiGiven = !!(await session.endpoint('placement').catch(() => null));
    if (!apiGiven) console.log("Nova, Glance and Ironic are not mirrored: they are read through their APIs, and no API is configured beside --placement-db.");
    for (const service of gateway.services.status()) {
      if (!service.mirrored) {
        if (apiGiven) console.log(`${service.name} (${service.service}): ${service.note}.`);
        continue;
      }
      if (service.lastError) {
        failed = true;
        console.error(`placement-gql: ${service.name} at ${service.url} was not mirrored; ${dbFile} keeps what it had of it. ${service.lastError}`);
        continue;
      }
      const what = service.service === 'compute' ? `${service.items} flavors${service.servers === null ? '' : `, ${service.servers} servers`}` : service.service === 'image' ? `${service.items} images` : `${service.items} nodes`;
      console.log(`Mirrored ${service.name} at ${service.url}: ${what}${service.note ? ` (${service.note})` : ''}.`);
    }
    return failed ? 2 : 0;
  } catch (error) {
    bar?.done();
    if (error instanceof DatabaseRefused) {
      console.error(`placement-gql: ${error.message}`);
      return 1;
    }
    console.error(`placement-gql: sync failed; ${dbFile} keeps its previous state. ${explainFailure(error)}`);
    // A fault of the gateway itself: its details for whoever reads the log (no secret is in them).
    if (!isExplained(error)) console.error(error);
    return 2;
  } finally {
    gateway.stop();
    db.close();
  }
}

/** A one-line bar on the terminal: providers done / total, requests, rate, time left. */
function progressBar(started: number, requests: () => number) {
  let last = 0;
  const draw = (p: ReadProgress) => {
    const now = Date.now();
    if (now - last < 100 && p.done < p.total) return;
    last = now;
    const seconds = (now - started) / 1000;
    const rate = requests() / Math.max(seconds, 0.001);
    const eta = p.done > 0 ? ((p.total - p.done) * seconds) / p.done : 0;
    const width = 30;
    const filled = p.total ? Math.round((width * p.done) / p.total) : width;
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} providers, ${requests()} requests, ${rate.toFixed(0)}/s, ${eta.toFixed(0)} s left `);
  };
  return Object.assign(draw, { done: () => process.stderr.write('\n') });
}
