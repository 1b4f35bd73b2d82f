// Last-Modified, as Placement picks it: a row's update time, else its creation time.

/** util.pick_last_modified for one row. */
export const modifiedAt = (row: { updatedAt?: string | null; createdAt?: string | null }) => new Date(row.updatedAt ?? row.createdAt ?? Date.now());
