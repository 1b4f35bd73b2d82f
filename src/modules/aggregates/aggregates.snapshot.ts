// Aggregates in snapshots: `aggregates: {provider: [aggregate uuid]}`.
import { all, get, run } from '../../db/sql.js';
import { canonicalUuid } from '../../rules/names.js';
import { snapshotSection, type CheckContext } from '../snapshot/snapshot.section.js';

export const aggregatesSection = snapshotSection({
  keys: ['aggregates'],
  tables: ['provider_aggregates', 'aggregates'],
  check(ctx: CheckContext) {
    const aggregates = ctx.section<Record<string, unknown>>('aggregates', 'object') ?? {};
    const members = new Map<string, Set<string>>();
    for (const [raw, list] of Object.entries(aggregates)) {
      const uuid = ctx.providerKey(raw, `aggregates.${raw}`);
      if (!Array.isArray(list)) {
        ctx.problem(`aggregates.${raw}`, 'must be a list of aggregate uuids');
        continue;
      }
      const uuids = list.map((a, i) => (typeof a === 'string' && canonicalUuid(a)) || (ctx.problem(`aggregates.${raw}.${i}`, `${JSON.stringify(a)} is not a uuid`), null));
      if (uuid) members.set(uuid, new Set(uuids.filter((a): a is string => a !== null)));
    }
    return members;
  },
  write({ db, providerIds }, members) {
    const aggregateIds = new Map<string, number>();
    for (const [uuid, aggregates] of members) {
      for (const agg of aggregates) {
        let aggId = aggregateIds.get(agg);
        if (aggId === undefined) {
          run(db, 'INSERT OR IGNORE INTO aggregates (uuid) VALUES (?)', agg);
          aggId = get<{ id: number }>(db, 'SELECT id FROM aggregates WHERE uuid = ?', agg)!.id;
          aggregateIds.set(agg, aggId);
        }
        run(db, 'INSERT INTO provider_aggregates (resource_provider_id, aggregate_id) VALUES (?, ?)', providerIds.get(uuid)!.id, aggId);
      }
    }
  },
  export(db) {
    const aggregates: Record<string, string[]> = {};
    for (const r of all<{ uuid: string; agg: string }>(db, 'SELECT rp.uuid, a.uuid AS agg FROM provider_aggregates pa JOIN resource_providers rp ON rp.id = pa.resource_provider_id JOIN aggregates a ON a.id = pa.aggregate_id ORDER BY rp.id, a.uuid')) {
      (aggregates[r.uuid] ??= []).push(r.agg);
    }
    return { aggregates };
  },
});
