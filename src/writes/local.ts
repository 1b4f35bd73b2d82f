// The write port on this server's own database: each operation in one transaction (all or nothing;
// retried without blocking while another process holds the write lock), then told to subscribers.
import type { Db } from '../db/client.js';
import { publish, SILENT_FEED, type ChangeFeed } from '../modules/changes/changes.feed.js';
import { eventsOf, OPERATIONS, type OperationName, type Writes } from './operations.js';

export function localWrites(db: Db, feed: ChangeFeed = SILENT_FEED): Writes {
  const writes: Partial<Record<OperationName, (input: never) => Promise<unknown>>> = {};
  for (const name of Object.keys(OPERATIONS) as OperationName[]) {
    // Each entry pairs an operation's input and result with itself; TypeScript cannot follow that
    // through a loop over the names, hence the widening to never/unknown here and the cast below.
    const apply: (db: Db, input: never) => never = OPERATIONS[name].apply as never;
    writes[name] = async (input: never) => {
      const result = await db.transactionWhenFree(() => apply(db, input));
      publish(feed, eventsOf(name, result, input));
      return result;
    };
  }
  return writes as Writes;
}
