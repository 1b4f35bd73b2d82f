// What a field declares for the cost limit (the server's cost rule reads it).

/** The extension key holding a list field's expected size. */
export const LIST_SIZE = 'listSize';

/**
 * A field's declared expected list size, for the cost rule: `extensions: listSize(3)` on a list field
 * whose answers are usually short (a tree's request groups, a provider's problems). Without it a plain
 * list counts as 10 and a connection as its `first` (or the default page).
 */
export const listSize = (size: number) => ({ [LIST_SIZE]: size });
