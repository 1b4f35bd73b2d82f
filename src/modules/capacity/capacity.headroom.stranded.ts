// Headroom's stranded capacity: the free capacity of the asked classes that no further instance can use
// once the plan is placed, and why.
import type { GroupPlan, SearchFacts } from '../candidates/index.js';
import { fitsUnits } from '../../rules/capacity.js';
import type { ClassDemand, Keys, StrandedClass, StrandedPart, StrandedReason } from './capacity.headroom.types.js';

export const STRANDED_REASONS: Record<StrandedReason, string> = {
  OTHER_CLASS: 'enough is free, but another class or group of the request is exhausted on that tree',
  TOO_SMALL: 'less is free than one instance asks',
  MAX_UNIT: "the amount asked is above the inventory's max_unit",
  MIN_UNIT: "the amount asked is below the inventory's min_unit",
  STEP_SIZE: "the amount asked is not a multiple of the inventory's step_size",
  NOT_ELIGIBLE: 'the provider is ruled out by traits, aggregates, root or tree filters, or its tree lacks another class asked',
};

/** Free capacity of the asked classes left after the plan, with why no further instance can use it. */
export function strandedAfter(facts: SearchFacts, plans: GroupPlan[], demands: ClassDemand[], keys: Keys, after: number[]): StrandedClass[] {
  // Providers in some tree's options for each class position.
  const eligible = demands.map(() => new Set<number>());
  const posOf = new Map(demands.map((d, pos) => [d.classId, pos]));
  for (const plan of plans) {
    for (const lists of plan.optionsByAnchor.values()) {
      if (plan.group.suffix === '') lists.forEach((ids, k) => ids.forEach((id) => eligible[posOf.get(plan.classIds[k])!].add(id)));
      else for (const id of lists[0]) plan.classIds.forEach((classId) => eligible[posOf.get(classId)!].add(id));
    }
  }
  return demands.map((d, pos) => {
    const parts = new Map<StrandedReason, StrandedPart>();
    let free = 0;
    let left = 0;
    for (const row of facts.classes.get(d.classId)?.rows ?? []) {
      const before = row.capacity - row.used;
      if (before <= 0) continue;
      const k = keys.index.get(row.id * Math.max(1, demands.length) + pos);
      // A key made after `after` (by a later solve) was used by no tree of this one.
      const now = k === undefined || k >= after.length ? before : after[k];
      free += before;
      if (now <= 0) continue;
      left += now;
      let reason: StrandedReason;
      const usable = d.pieces.filter((a) => fitsUnits(row, a));
      if (!usable.length) reason = d.pieces.every((a) => a > row.maxUnit) ? 'MAX_UNIT' : d.pieces.every((a) => a < row.minUnit) ? 'MIN_UNIT' : 'STEP_SIZE';
      else if (now < Math.min(...usable)) reason = 'TOO_SMALL';
      else if (eligible[pos].has(row.id)) reason = 'OTHER_CLASS';
      else reason = 'NOT_ELIGIBLE';
      const part = parts.get(reason) ?? { reason, amount: 0, providerCount: 0 };
      part.amount += now;
      part.providerCount++;
      parts.set(reason, part);
    }
    return { resourceClass: d.name, free, left, reasons: [...parts.values()].sort((a, b) => b.amount - a.amount) };
  });
}
