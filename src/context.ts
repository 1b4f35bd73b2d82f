// Per-request context: the database, this request's DataLoaders, the caller, and the change feed.
import type { Db } from './db/client.js';
import type { CapacityHistory } from './modules/capacity/capacity.history.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { Role } from './server/access.js';
import { createChangeFeed, type ChangeFeed } from './server/events.js';
import { DEFAULT_LIMITS, type Limits } from './server/limits.js';
import type { Gateway } from './upstream/gateway.js';

export interface Context {
  db: Db;
  /** DataLoaders of every domain, new for each request. */
  loaders: Loaders;
  /** The caller's role; null when the request carries no valid token. */
  role: Role | null;
  /** Where committed changes are published for subscribers. */
  feed: ChangeFeed;
  limits: Limits;
  /** The live Placement this server mirrors and writes through to; null in standalone mode. */
  gateway: Gateway | null;
  /** The capacity of the last hour, sampled by a serving process; null when none is kept. */
  history: CapacityHistory | null;
  /** Drops cached loads after a change, so the payload reads fresh rows. */
  changed(): void;
}

export function createContext(db: Db, options: { role?: Role | null; feed?: ChangeFeed; limits?: Limits; gateway?: Gateway | null; history?: CapacityHistory | null } = {}): Context {
  const context: Context = {
    db,
    loaders: createLoaders(db),
    role: options.role === undefined ? 'admin' : options.role,
    feed: options.feed ?? createChangeFeed(),
    limits: options.limits ?? DEFAULT_LIMITS,
    gateway: options.gateway ?? null,
    history: options.history ?? null,
    changed: () => {
      context.loaders = createLoaders(db);
    },
  };
  return context;
}
