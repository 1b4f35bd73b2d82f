// Capacity figures for /metrics: capacity and usage per resource class and per aggregate, and the
// headroom of every stored flavor. Computed on a scrape and kept until the data changes (here or
// by another connection), so repeated scrapes of unchanged data cost nothing.
import type { Db } from '../../db/client.js';
import { keptPerDatabase } from '../../db/changes.js';
import { RequestRejected } from '../common/query-string.js';
import { headroom } from './capacity.headroom.js';
import { capacityRollup, flavorNames, flavorRequest, type CapacityResource } from './capacity.service.js';

export interface CapacitySamples {
  /** Per resource class over the whole cloud. */
  classes: CapacityResource[];
  /** Per aggregate (providers that are members themselves) and resource class. */
  aggregates: { aggregate: string; resources: CapacityResource[] }[];
  /** Per stored flavor (booted from an image without properties); flavors Nova cannot build a request for are left out. */
  flavors: { flavor: string; fits: number; atMost: number; exact: boolean }[];
}

/** Kept until the data changes; a failed computation is not kept. */
const kept = keptPerDatabase((db) => {
  const samples = compute(db);
  samples.catch(() => kept.forget(db));
  return samples;
});

export function capacitySamples(db: Db): Promise<CapacitySamples> {
  return kept(db);
}

async function compute(db: Db): Promise<CapacitySamples> {
  const classes = capacityRollup(db, {}, [])[0].resources;
  const aggregates = capacityRollup(db, {}, ['AGGREGATE'])
    .filter((g) => g.key.aggregate !== null)
    .map((g) => ({ aggregate: g.key.aggregate!, resources: g.resources }));
  const flavors: CapacitySamples['flavors'] = [];
  for (const flavor of flavorNames(db)) {
    const built = flavorRequest(db, flavor);
    if ('error' in built) continue;
    try {
      const h = await headroom(db, built.request);
      flavors.push({ flavor, fits: h.fits, atMost: h.atMost, exact: h.exact });
    } catch (error) {
      // A request Placement refuses (an unknown class or trait) has no headroom to report.
      if (!(error instanceof RequestRejected)) throw error;
    }
  }
  return { classes, aggregates, flavors };
}
