// What changed in the database since a cache was made, read from the change log that triggers write
// (changes.tables.ts): the same for a write made here, by the mirror, or by another process on the
// file (serve --workers). One place for "kept per database until the data changes".
import type { Db } from './client.js';
import { all, get, run } from './sql.js';

/** What a row of the log says changed; `all` is a bulk write (an import), which lists nothing. */
export type ChangeKind = 'usage' | 'inventory' | 'traits' | 'aggregates' | 'provider' | 'consumer' | 'names' | 'flavors' | 'all';

/** A point in the log: the last change seen. */
export interface DataVersion {
  seq: number;
}

export interface Changes {
  /** Nothing was logged since. */
  none: boolean;
  /** Anything may have changed: a bulk write, a stretch no longer in the log, or too many changes to list. */
  all: boolean;
  /** The providers changed, per kind (consumer, names and flavors concern none: an empty set says they changed). */
  kinds: Map<ChangeKind, Set<number>>;
}

/** Changes further apart than this are not listed: redoing everything is then as cheap. */
const MOST_LISTED = 20_000;

/**
 * The version of the data this connection sees. Inside a transaction (which may still roll back and take
 * its log rows with it) no version is given: what is made there is not kept as of any point.
 */
export function dataVersion(db: Db): DataVersion {
  if (db.sqlite.inTransaction) return { seq: -1 };
  return { seq: get<{ seq: number | null }>(db, 'SELECT MAX(seq) AS seq FROM change_log')!.seq ?? 0 };
}

const NONE: Changes = { none: true, all: false, kinds: new Map() };
const ALL: Changes = { none: false, all: true, kinds: new Map() };

/** What changed between two versions of this database. */
export function changesBetween(db: Db, before: DataVersion, now: DataVersion): Changes {
  if (before.seq === now.seq && before.seq >= 0) return NONE;
  // A version made inside a transaction, a log rolled back past it, or a stretch too long to list.
  if (before.seq < 0 || now.seq < before.seq || now.seq - before.seq > MOST_LISTED) return ALL;
  const rows = all<{ seq: number; kind: ChangeKind; providerId: number | null }>(
    db,
    'SELECT seq, kind, provider_id AS providerId FROM change_log WHERE seq > ? AND seq <= ? ORDER BY seq',
    before.seq,
    now.seq,
  );
  // Rows pruned since: the first one after `before` is missing.
  if (rows.length === 0 || rows[0].seq !== before.seq + 1) return ALL;
  const kinds = new Map<ChangeKind, Set<number>>();
  for (const { kind, providerId } of rows) {
    if (kind === 'all') return ALL;
    let ids = kinds.get(kind);
    if (!ids) kinds.set(kind, (ids = new Set()));
    if (providerId !== null) ids.add(providerId);
  }
  return { none: false, all: false, kinds };
}

/** What changed, by provider: what a kept structure redoes. */
export interface ProviderDelta {
  /** Every provider named below. */
  ids: Set<number>;
  usage: Set<number>;
  inventory: Set<number>;
  traits: Set<number>;
  aggregates: Set<number>;
  /** Created, deleted, renamed or moved (a move names every provider of the subtree moved). */
  provider: Set<number>;
  /** Custom traits or resource classes were created or deleted. */
  names: boolean;
}

/**
 * Changes naming more providers than this, and more than a tenth of them, are not redone provider by
 * provider: reading everything again then costs about as much. Below it, redoing is cheap on any cloud.
 */
const FEW_PROVIDERS = 100;

const deltas = new WeakMap<Db, { before: number; now: number; delta: ProviderDelta | null }>();

/**
 * What changed between two versions, by provider, for a kept structure to redo what those providers
 * touch; null when it should start again instead: a bulk write (an import), a stretch no longer in the
 * log, or more than a tenth of the providers changed. Consumers' own fields and flavors change nothing
 * a provider-based structure keeps. The last answer is kept: every structure asks the same after a write.
 */
export function providerDelta(db: Db, before: DataVersion, now: DataVersion): ProviderDelta | null {
  const known = deltas.get(db);
  if (known && known.before === before.seq && known.now === now.seq && now.seq >= 0) return known.delta;
  const changes = changesBetween(db, before, now);
  let delta: ProviderDelta | null = null;
  if (!changes.all) {
    const kind = (k: ChangeKind) => changes.kinds.get(k) ?? new Set<number>();
    delta = { ids: new Set(), usage: kind('usage'), inventory: kind('inventory'), traits: kind('traits'), aggregates: kind('aggregates'), provider: kind('provider'), names: changes.kinds.has('names') };
    for (const ids of [delta.usage, delta.inventory, delta.traits, delta.aggregates, delta.provider]) for (const id of ids) delta.ids.add(id);
    if (delta.ids.size > FEW_PROVIDERS && delta.ids.size * 10 > get<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM resource_providers')!.n) delta = null;
  }
  deltas.set(db, { before: before.seq, now: now.seq, delta });
  return delta;
}

/** The providers changed in any of these ways. */
export const changedBy = (delta: ProviderDelta, ...kinds: ('usage' | 'inventory' | 'traits' | 'aggregates' | 'provider')[]): Set<number> => {
  if (kinds.length === 1) return delta[kinds[0]];
  const ids = new Set<number>();
  for (const kind of kinds) for (const id of delta[kind]) ids.add(id);
  return ids;
};

/**
 * Runs a write of many rows (an import) inside the caller's transaction with the triggers quiet, and logs
 * it once as `all`: caches then start again rather than read a change per row.
 */
export function bulkWrite<T>(db: Db, fn: () => T): T {
  if (!db.sqlite.inTransaction) throw new Error('bulkWrite runs inside a transaction');
  if (get<{ bulk: number }>(db, 'SELECT bulk FROM change_log_mode WHERE id = 1')!.bulk) return fn();
  run(db, 'UPDATE change_log_mode SET bulk = 1 WHERE id = 1');
  const result = fn();
  run(db, 'UPDATE change_log_mode SET bulk = 0 WHERE id = 1');
  run(db, "INSERT INTO change_log (kind) VALUES ('all')");
  return result;
}

/**
 * A value kept per database until the data changes. On each use the log is read since the value was
 * made: nothing changed, it is returned; otherwise `update` may redo what changed (returning null to
 * start again), or it is made again with `make`. Nothing is kept when made inside a transaction;
 * `forget(db)` drops the value (one that turned out to be a failure).
 */
export function keptPerDatabase<T>(make: (db: Db, version: DataVersion) => T, update?: (db: Db, kept: T, changes: Changes, version: DataVersion) => T | null) {
  const kept = new WeakMap<Db, { version: DataVersion; value: T }>();
  const get = (db: Db): T => {
    const version = dataVersion(db);
    if (version.seq < 0) return make(db, version);
    const known = kept.get(db);
    if (known && known.version.seq === version.seq) return known.value;
    let value: T | null = null;
    if (known && update) {
      const changes = changesBetween(db, known.version, version);
      value = changes.none ? known.value : update(db, known.value, changes, version);
    }
    value ??= make(db, version);
    kept.set(db, { version, value });
    return value;
  };
  return Object.assign(get, { forget: (db: Db) => void kept.delete(db) });
}
