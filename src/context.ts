// Per-request context: the database, this request's DataLoaders, the caller, and the change feed.
import type { Db } from './db/client.js';
import type { CapacityHistory } from './modules/capacity/capacity.history.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { Role } from './modules/common/caller.js';
import { SILENT_FEED, type ChangeFeed } from './modules/changes/changes.feed.js';
import { DEFAULT_LIMITS, type Limits } from './modules/common/limits.js';
import type { Gateway } from './upstream/gateway.js';
import { localWrites } from './writes/local.js';
import type { Writes } from './writes/operations.js';

export interface Context {
  db: Db;
  /** DataLoaders of every domain, new for each request. */
  loaders: Loaders;
  /** The caller's role; null when the request carries no valid token. */
  role: Role | null;
  /** Where committed changes are published for subscribers. */
  feed: ChangeFeed;
  limits: Limits;
  /** Every change goes through here: to this database, or in gateway mode to the services that own the data. */
  writes: Writes;
  /** The live Placement this server mirrors (its status, a refresh on demand); null in standalone mode. */
  gateway: Gateway | null;
  /** The capacity of the last hour, sampled by a serving process; null when none is kept. */
  history: CapacityHistory | null;
  /** Drops cached loads after a change, so the payload reads fresh rows. */
  changed(): void;
}

export function createContext(db: Db, options: { role?: Role | null; feed?: ChangeFeed; limits?: Limits; writes?: Writes; gateway?: Gateway | null; history?: CapacityHistory | null } = {}): Context {
  const feed = options.feed ?? SILENT_FEED;
  const context: Context = {
    db,
    loaders: createLoaders(db),
    role: options.role === undefined ? 'admin' : options.role,
    feed,
    writes: options.writes ?? localWrites(db, feed),
    limits: options.limits ?? DEFAULT_LIMITS,
    gateway: options.gateway ?? null,
    history: options.history ?? null,
    changed: () => {
      context.loaders = createLoaders(db);
    },
  };
  return context;
}
