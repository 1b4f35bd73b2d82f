// A provider row's parent and root rows, when whoever read the row had its whole tree at hand (the
// candidate search's catalog). Answers then show a provider's parent and root without another query,
// and the candidate JSON writer can write them directly.
import type { ProviderRow } from './providers.service.js';

const links = new WeakMap<ProviderRow, { parent: ProviderRow | null; root: ProviderRow }>();

/** Links the rows of whole trees, given by id. */
export function linkTrees(byId: ReadonlyMap<number, ProviderRow>): void {
  for (const row of byId.values()) {
    const parent = row.parentId === null ? null : byId.get(row.parentId);
    const root = byId.get(row.rootId);
    if (parent !== undefined && root !== undefined) links.set(row, { parent, root });
  }
}

/** The parent row (null for a root), or undefined when it is not at hand. */
export const knownParent = (row: ProviderRow): ProviderRow | null | undefined => links.get(row)?.parent;

/** The root row, or undefined when it is not at hand. */
export const knownRoot = (row: ProviderRow): ProviderRow | undefined => links.get(row)?.root;
