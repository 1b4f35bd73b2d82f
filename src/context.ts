// Per-request context: the database, this request's DataLoaders, and the caller.
import type { Db } from './db/client.js';
import { createLoaders, type Loaders } from './loaders.js';

export interface Context {
  db: Db;
  /** DataLoaders of every domain, new for each request. */
  loaders: Loaders;
  /** Drops cached loads after a change, so the payload reads fresh rows. */
  changed(): void;
}

export function createContext(db: Db): Context {
  const context: Context = {
    db,
    loaders: createLoaders(db),
    changed: () => {
      context.loaders = createLoaders(db);
    },
  };
  return context;
}
