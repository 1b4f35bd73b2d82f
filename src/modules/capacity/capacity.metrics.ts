// Capacity figures for /metrics: capacity and usage per resource class and per aggregate, and the
// headroom of every stored flavor with the capacity it strands. Computed on a scrape and kept until the data changes (here or
// by another connection), so repeated scrapes of unchanged data cost nothing.
import type { Db } from '../../db/client.js';
import { changeSince, dataVersion, type DataVersion } from '../candidates/candidates.data.js';
import { RequestRejected } from '../candidates/candidates.request.js';
import { headroom, type StrandedReason } from './capacity.headroom.js';
import { capacityRollup, flavorNames, flavorRequest, type CapacityResource } from './capacity.service.js';

export interface CapacitySamples {
  /** Per resource class over the whole cloud. */
  classes: CapacityResource[];
  /** Per aggregate (providers that are members themselves) and resource class. */
  aggregates: { aggregate: string; resources: CapacityResource[] }[];
  /** Per stored flavor (booted from an image without properties); flavors Nova cannot build a request for are left out. */
  flavors: { flavor: string; fits: number; atMost: number; exact: boolean; stranded: () => StrandedSample[] }[];
}

/** Free capacity of one class stranded for one reason; computed on first asking (the history never asks). */
export interface StrandedSample {
  resourceClass: string;
  reason: StrandedReason;
  amount: number;
}

const cache = new WeakMap<Db, { version: DataVersion; samples: Promise<CapacitySamples> }>();

export function capacitySamples(db: Db): Promise<CapacitySamples> {
  const version = dataVersion(db);
  const known = cache.get(db);
  if (known && changeSince(known.version, version) === 'same') return known.samples;
  const samples = compute(db);
  cache.set(db, { version, samples });
  samples.catch(() => cache.delete(db));
  return samples;
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
      // h.stranded is worked out when first read, and kept with h (which headroom keeps for this data too).
      const stranded = () => h.stranded.flatMap((c) => c.reasons.map((r) => ({ resourceClass: c.resourceClass, reason: r.reason, amount: r.amount })));
      flavors.push({ flavor, fits: h.fits, atMost: h.atMost, exact: h.exact, stranded });
    } catch (error) {
      // A request Placement refuses (an unknown class or trait) has no headroom to report.
      if (!(error instanceof RequestRejected)) throw error;
    }
  }
  return { classes, aggregates, flavors };
}
