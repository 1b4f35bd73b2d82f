// Snapshots: the whole database as one JSON object (the oracle's scenario shape, plus generations,
// flavors, images, bare-metal nodes and provider-config records). Each module contributes the section
// of its own data (`<module>.snapshot.ts`: its keys, checks, writes, tables and export); this file runs
// them in order. Import checks everything first and lists every problem, then writes in one
// transaction; with replace, the old content is removed in the same transaction.
import type { Db } from '../../db/client.js';
import { bulkWrite } from '../../db/changes.js';
import { all, get, run } from '../../db/sql.js';
import { isStandardResourceClass, isStandardTrait } from '../../catalog/index.js';
import { textProblems } from '../../rules/text.js';
import { canonicalUuid, customNameProblem } from '../../rules/names.js';
import type { Issue } from '../common/errors.js';
import { ensureResourceClasses } from '../resource-classes/resource-classes.service.js';
import { ensureTraits } from '../traits/traits.service.js';
import { providersSection } from '../providers/providers.snapshot.js';
import { resourceClassesSection } from '../resource-classes/resource-classes.snapshot.js';
import { inventoriesSection } from '../inventories/inventories.snapshot.js';
import { traitsSection } from '../traits/traits.snapshot.js';
import { aggregatesSection } from '../aggregates/aggregates.snapshot.js';
import { allocationsSection } from '../allocations/allocations.snapshot.js';
import { flavorsSection } from '../flavors/flavors.snapshot.js';
import { imagesSection } from '../images/images.snapshot.js';
import { nodesSection } from '../nodes/nodes.snapshot.js';
import { providerConfigSection } from '../provider-config/provider-config.snapshot.js';
import { isObject, refusalsOf, type CheckContext, type SnapshotSection, type WriteContext } from './snapshot.section.js';
import type { Snapshot } from './snapshot.types.js';

export type { Snapshot, SnapshotFlavor, SnapshotImage, SnapshotNode } from './snapshot.types.js';
export { DEFAULT_PROJECT_ID, DEFAULT_USER_ID } from '../allocations/allocations.snapshot.js';

/**
 * The sections, in the order they are checked and written: each may use what those before it put in
 * the context (the providers, their inventories) and the rows they wrote.
 */
const SECTIONS: readonly SnapshotSection<any>[] = [
  providersSection,
  resourceClassesSection,
  inventoriesSection,
  traitsSection,
  aggregatesSection,
  allocationsSection,
  flavorsSection,
  imagesSection,
  nodesSection,
  providerConfigSection,
];

/** What the database holds besides the catalog's standard names, children before parents. */
const DATA_TABLES = [...SECTIONS].reverse().flatMap((s) => s.tables);

export class SnapshotRejected extends Error {
  constructor(readonly problems: Issue[]) {
    super(`snapshot rejected: ${problems.length} problem(s); first: ${problems[0]?.path}: ${problems[0]?.message}`);
  }
}

export function isEmpty(db: Db): boolean {
  return !get(db, 'SELECT 1 FROM resource_providers LIMIT 1');
}

/**
 * Adds a snapshot to the database: all of it, or nothing with every problem listed. With replace,
 * the database's content is removed first in the same transaction, so readers see either the old
 * content or the new, and a rejected snapshot leaves the old one in place.
 */
export function importSnapshot(db: Db, snapshot: unknown, options: { replace?: boolean } = {}) {
  if (!options.replace) return addSnapshot(db, snapshot);
  return db.transaction(() =>
    bulkWrite(db, () => {
      for (const table of DATA_TABLES) run(db, `DELETE FROM ${table}`);
      run(db, 'DELETE FROM traits WHERE standard = 0');
      run(db, 'DELETE FROM resource_classes WHERE standard = 0');
      return addSnapshot(db, snapshot);
    }),
  );
}

function addSnapshot(db: Db, snapshot: unknown) {
  if (!isObject(snapshot)) throw new SnapshotRejected([{ path: '', message: 'a snapshot is a JSON object' }]);
  const problems: Issue[] = [];
  const ctx = checkContext(db, snapshot as Snapshot, (path, message) => problems.push({ path, message }));
  for (const { path, message } of textProblems(snapshot)) ctx.problem(path, message);
  const plans = SECTIONS.map((section) => section.check(ctx));
  if (problems.length > 0) throw new SnapshotRejected(problems);

  // One change logged for the whole import (caches start again), not one per row.
  return db.transaction(() =>
    bulkWrite(db, () => {
      ensureResourceClasses(db, [...ctx.newClasses].sort());
      ensureTraits(db, [...ctx.newTraits]);
      // What the modules' own rules refuse while writing (flavors, images, nodes) is listed with the
      // others, and the transaction then writes nothing.
      const late: Issue[] = [];
      const write: WriteContext = {
        db,
        providerIds: new Map(ctx.existingProviders),
        classIds: new Map(all<{ id: number; name: string }>(db, 'SELECT id, name FROM resource_classes').map((r) => [r.name, r.id])),
        traitIds: new Map(all<{ id: number; name: string }>(db, 'SELECT id, name FROM traits').map((r) => [r.name, r.id])),
        attempt(path, fn) {
          try {
            fn();
          } catch (error) {
            const refused = refusalsOf(error, path);
            if (!refused) throw error;
            late.push(...refused);
          }
        },
      };
      const counts = SECTIONS.map((section, i) => section.write(write, plans[i]) ?? 0);
      if (late.length) throw new SnapshotRejected(late);
      const count = (section: SnapshotSection<any>) => counts[SECTIONS.indexOf(section)];
      return {
        providers: count(providersSection),
        consumers: count(allocationsSection),
        resourceClasses: ctx.newClasses.size,
        traits: ctx.newTraits.size,
        flavors: count(flavorsSection),
        images: count(imagesSection),
        baremetalNodes: count(nodesSection),
      };
    }),
  );
}

/** The context the sections check against, with the names they find to be created. */
function checkContext(db: Db, snapshot: Snapshot, problem: CheckContext['problem']): CheckContext & { newClasses: Set<string>; newTraits: Set<string> } {
  const existingProviders = new Map(all<{ uuid: string; id: number; rootId: number }>(db, 'SELECT uuid, id, root_id AS rootId FROM resource_providers').map((r) => [r.uuid, { id: r.id, rootId: r.rootId }]));
  const knownClasses = new Set(all<{ name: string }>(db, 'SELECT name FROM resource_classes').map((r) => r.name));
  const knownTraits = new Set(all<{ name: string }>(db, 'SELECT name FROM traits').map((r) => r.name));
  const newClasses = new Set<string>();
  const newTraits = new Set<string>();
  const providers: CheckContext['providers'] = new Map();
  return {
    db,
    snapshot,
    problem,
    providers,
    existingProviders,
    inventories: new Map(),
    newClasses,
    newTraits,
    section<T>(key: keyof Snapshot, kind: 'array' | 'object'): T | undefined {
      const value = snapshot[key];
      if (value === undefined) return undefined;
      if (kind === 'array' ? !Array.isArray(value) : !isObject(value)) {
        problem(key, `must be a JSON ${kind}`);
        return undefined;
      }
      return value as T;
    },
    providerKey(raw, path) {
      const uuid = canonicalUuid(raw);
      if (!uuid) problem(path, `${raw} is not a uuid`);
      else if (!providers.has(uuid)) problem(path, existingProviders.has(uuid) ? `provider ${uuid} exists already; a snapshot only describes the providers it adds` : `provider ${uuid} is not in providers`);
      else return uuid;
      return null;
    },
    checkClass(name, path) {
      if (typeof name !== 'string') return problem(path, 'a resource class name must be a string');
      if (knownClasses.has(name) || isStandardResourceClass(name)) return;
      const why = customNameProblem(name);
      if (why) problem(path, `unknown resource class ${name}: a custom class ${why}`);
      else newClasses.add(name);
    },
    checkTrait(name, path) {
      if (typeof name !== 'string') return problem(path, 'a trait name must be a string');
      if (knownTraits.has(name) || isStandardTrait(name)) return;
      const why = customNameProblem(name);
      if (why) problem(path, `unknown trait ${name}: a custom trait ${why}`);
      else newTraits.add(name);
    },
  };
}

/** The whole database as a snapshot; importing it into an empty database gives back the same data. */
export function exportSnapshot(db: Db): Required<Snapshot> & { format: string } {
  const parts = Object.assign({}, ...SECTIONS.map((section) => section.export(db))) as Required<Snapshot>;
  // The format's keys in their usual order.
  const keys: (keyof Snapshot)[] = ['providers', 'inventories', 'traits', 'aggregates', 'allocations', 'consumers', 'resource_classes', 'custom_traits', 'flavors', 'images', 'baremetal_nodes', 'provider_config'];
  return { format: 'placement-oracle-scenario/1', ...(Object.fromEntries(keys.map((k) => [k, parts[k]])) as Required<Snapshot>) };
}
