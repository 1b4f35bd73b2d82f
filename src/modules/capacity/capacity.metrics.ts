// Capacity figures for /metrics: capacity and usage per resource class and per aggregate, and the
// headroom of every stored flavor with the capacity it strands. Computed on a scrape and kept until the
// data changes (here or by another connection), so repeated scrapes of unchanged data cost nothing.
import type { Db } from '../../db/client.js';
import { keptPerDatabase } from '../../db/changes.js';
import { RequestRefused } from '../common/errors.js';
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
    try {
      const h = await headroom(db, flavorRequest(db, flavor));
      // h.stranded is worked out when first read, and kept with h (which headroom keeps for this data too).
      const stranded = () => h.stranded.flatMap((c) => c.reasons.map((r) => ({ resourceClass: c.resourceClass, reason: r.reason, amount: r.amount })));
      flavors.push({ flavor, fits: h.fits, atMost: h.atMost, exact: h.exact, stranded });
    } catch (error) {
      // A flavor Nova builds no request for, or one Placement refuses (an unknown class or trait), has no headroom to report.
      if (!(error instanceof RequestRefused)) throw error;
    }
  }
  return { classes, aggregates, flavors };
}
