// Pages of a listing: the window a service reads, and the sizes every connection uses.

/** How many objects a connection gives when `first` is absent, and the most it gives. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 1000;

/** The rows of one page: skip `offset`, read at most `limit`. */
export interface Page {
  offset: number;
  limit: number;
}
