// Cursor connections over offset pages, with a default and a maximum page size.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './paging.js';
import { RequestRefused } from './errors.js';

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** Resolves a connection from a page loader that returns the rows and the total count. */
export async function offsetConnection<T>(args: ConnectionArgs, load: (page: { offset: number; limit: number }) => { rows: readonly T[]; totalCount: number }) {
  if (args.first != null && (args.first < 0 || args.first > MAX_PAGE_SIZE)) {
    throw new RequestRefused(`first must be between 0 and ${MAX_PAGE_SIZE} (got ${args.first}).`);
  }
  if (args.last != null && (args.last < 0 || args.last > MAX_PAGE_SIZE)) {
    throw new RequestRefused(`last must be between 0 and ${MAX_PAGE_SIZE} (got ${args.last}).`);
  }
  let totalCount = 0;
  const connection = await resolveOffsetConnection({ args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE }, (page) => {
    const result = load(page);
    totalCount = result.totalCount;
    return result.rows;
  });
  return { ...connection, totalCount };
}

/** A connection over rows already in memory. */
export function arrayPage<T>(rows: readonly T[]) {
  return ({ offset, limit }: { offset: number; limit: number }) => ({ rows: rows.slice(offset, offset + limit), totalCount: rows.length });
}

export const connectionOptions = (name: string, what: string) => ({
  name: `${name}Connection`,
  description: `A page of ${what}.`,
  fields: (t: any) => ({
    totalCount: t.int({ description: `How many ${what} there are in all.`, resolve: (parent: { totalCount: number }) => parent.totalCount }),
  }),
});

export const edgeOptions = (name: string, what: string) => ({
  name: `${name}Edge`,
  description: `One of the ${what} in a page, with its cursor.`,
});
