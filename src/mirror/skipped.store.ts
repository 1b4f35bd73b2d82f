// The records of the upstream's answers that the mirror did not store (mirror_skipped), kept with the
// database so that a restarted server (or `serve` after `sync`) still says what is missing and why.
// A provider's records are replaced when that provider is read again, so an unchanged provider keeps
// its own without being read at every refresh.
import type { Db } from '../db/client.js';
import { all, get, list, run } from '../db/sql.js';
import type { PlacementState } from './source.js';
import type { SkippedRecord } from './records.js';

/** Kinds judged with a provider's holdings (its allocations listing) rather than with its detail. */
const HOLDING_KINDS = JSON.stringify(['consumer', 'allocation']);

/**
 * Replaces Placement's skipped records by those of this read, inside the refresh's transaction: a
 * full read replaces the listings' records and those of every provider judged again (and drops those
 * of providers no longer listed); a partial read only those of the providers it read.
 */
export function recordPlacementSkips(db: Db, state: PlacementState, partial: boolean) {
  const details = list([...state.judged.details]);
  const holdings = list([...state.judged.allocations]);
  run(
    db,
    `DELETE FROM mirror_skipped WHERE source = 'placement' AND (provider IN (SELECT value FROM json_each(?))
       OR (provider IN (SELECT value FROM json_each(?)) AND kind IN (SELECT value FROM json_each(?))))`,
    details,
    holdings,
    HOLDING_KINDS,
  );
  if (!partial) {
    run(db, "DELETE FROM mirror_skipped WHERE source = 'placement' AND (provider IS NULL OR provider NOT IN (SELECT value FROM json_each(?)))", list(state.providers.map((p) => p.uuid)));
  }
  insert(db, 'placement', state.skipped);
}

/** Replaces a service's skipped records (Nova, Glance, Ironic) after a whole listing; after a partial one, adds those of the records it listed. */
export function recordServiceSkips(db: Db, source: string, skipped: readonly SkippedRecord[], whole: boolean) {
  if (whole) run(db, 'DELETE FROM mirror_skipped WHERE source = ?', source);
  else run(db, 'DELETE FROM mirror_skipped WHERE source = ? AND record IN (SELECT value FROM json_each(?))', source, list(skipped.map((s) => s.record)));
  insert(db, source, skipped);
}

/** Nova after a listing of servers' changes: the flavors' records are replaced, and those of the servers it listed. */
export function recordComputeSkips(db: Db, skipped: readonly SkippedRecord[], judgedServers: readonly string[]) {
  run(
    db,
    "DELETE FROM mirror_skipped WHERE source = 'compute' AND (kind <> 'server' OR record LIKE 'entry %' OR record IN (SELECT value FROM json_each(?)))",
    list(judgedServers),
  );
  insert(db, 'compute', skipped);
}

function insert(db: Db, source: string, skipped: readonly SkippedRecord[]) {
  for (const s of skipped) run(db, 'INSERT INTO mirror_skipped (source, kind, record, reason, provider) VALUES (?, ?, ?, ?, ?)', source, s.kind, s.record, s.reason, s.provider);
}

export interface SkippedReason {
  kind: string;
  reason: string;
  count: number;
}

/** How many records were skipped, and for which reasons (most frequent first). */
export function skippedSummary(db: Db): { count: number; reasons: SkippedReason[] } {
  const count = get<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM mirror_skipped')!.n;
  if (count === 0) return { count, reasons: [] };
  const reasons = all<SkippedReason>(db, 'SELECT kind, reason, COUNT(*) AS count FROM mirror_skipped GROUP BY kind, reason ORDER BY count DESC, kind, reason LIMIT 20');
  return { count, reasons };
}

/** The first records that were skipped, with why. */
export function skippedRecords(db: Db, limit: number): Omit<SkippedRecord, 'provider'>[] {
  return all(db, 'SELECT kind, record, reason FROM mirror_skipped ORDER BY id LIMIT ?', limit);
}

/** "3 providers: its name is longer than 200 characters": a reason as /health and the CLI show it. */
export const reasonLine = (r: SkippedReason) => `${r.count} ${r.kind}${r.count === 1 ? '' : r.kind.endsWith('s') ? 'es' : 's'}: ${r.reason}`;
