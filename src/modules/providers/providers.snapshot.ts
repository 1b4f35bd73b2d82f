// Providers in snapshots: `providers: [{uuid, name, parent, generation}]`, parents before children.
import { all, run } from '../../db/sql.js';
import { canonicalUuid } from '../../rules/names.js';
import { checkGeneration, isObject, shown, snapshotSection, type CheckContext, type NewProvider } from '../snapshot/snapshot.section.js';
import { MAX_PROVIDER_NAME_LENGTH } from './providers.service.js';

export const providersSection = snapshotSection({
  keys: ['providers'],
  tables: ['resource_providers'],
  /** Fills the context's providers (and reports uuids, names, parents and loops); returns them parents first. */
  check(ctx: CheckContext): NewProvider[] {
    const { problem, providers: byUuid } = ctx;
    const providers = ctx.section<unknown[]>('providers', 'array') ?? [];
    // Existing rows count as taken.
    const existingUuids = new Set(ctx.existingProviders.keys());
    const existingNames = new Set(all<{ name: string }>(ctx.db, 'SELECT name FROM resource_providers').map((r) => r.name));
    const names = new Set<string>();
    providers.forEach((p, i) => {
      const path = `providers.${i}`;
      if (!isObject(p)) return problem(path, 'must be an object {uuid, name, parent}');
      const uuid = typeof p.uuid === 'string' ? canonicalUuid(p.uuid) : null;
      if (!uuid) return problem(`${path}.uuid`, `must be a uuid (got ${JSON.stringify(p.uuid)})`);
      const name = p.name ?? uuid;
      if (typeof name !== 'string' || name.length === 0 || name.length > MAX_PROVIDER_NAME_LENGTH) problem(`${path}.name`, `must be a non-empty string of at most ${MAX_PROVIDER_NAME_LENGTH} characters (got ${shown(p.name)})`);
      if (byUuid.has(uuid) || existingUuids.has(uuid)) problem(`${path}.uuid`, `provider ${uuid} appears twice (or exists already)`);
      if (names.has(name) || existingNames.has(name)) problem(`${path}.name`, `provider name ${name} appears twice (or exists already)`);
      names.add(name);
      const parent = p.parent == null ? null : typeof p.parent === 'string' ? canonicalUuid(p.parent) : null;
      if (p.parent != null && !parent) problem(`${path}.parent`, `must be a uuid or null (got ${JSON.stringify(p.parent)})`);
      checkGeneration(p.generation, `${path}.generation`, problem);
      byUuid.set(uuid, { uuid, name, parent, index: i, generation: p.generation ?? 0 });
    });
    // Parents must exist, without cycles; parents first.
    const ordered: NewProvider[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (uuid: string, path: string[]): boolean => {
      if (state.get(uuid) === 'done') return true;
      if (state.get(uuid) === 'visiting') {
        problem(`providers.${byUuid.get(uuid)!.index}.parent`, `parent loop: ${[...path, uuid].join(' -> ')}`);
        return false;
      }
      state.set(uuid, 'visiting');
      const parent = byUuid.get(uuid)!.parent;
      let ok = true;
      if (parent && byUuid.has(parent)) ok = visit(parent, [...path, uuid]);
      else if (parent && !ctx.existingProviders.has(parent)) {
        problem(`providers.${byUuid.get(uuid)!.index}.parent`, `parent provider ${parent} does not exist`);
        ok = false;
      }
      state.set(uuid, 'done');
      if (ok) ordered.push(byUuid.get(uuid)!);
      return ok;
    };
    for (const uuid of byUuid.keys()) visit(uuid, []);
    return ordered;
  },
  write({ db, providerIds }, ordered) {
    for (const p of ordered) {
      const parent = p.parent ? providerIds.get(p.parent)! : null;
      const id = Number(run(db, 'INSERT INTO resource_providers (uuid, name, parent_id, root_id) VALUES (?, ?, ?, ?)', p.uuid, p.name, parent?.id ?? null, parent?.rootId ?? null).lastInsertRowid);
      if (!parent) run(db, 'UPDATE resource_providers SET root_id = id WHERE id = ?', id);
      if (p.generation) run(db, 'UPDATE resource_providers SET generation = ? WHERE id = ?', p.generation, id);
      providerIds.set(p.uuid, { id, rootId: parent?.rootId ?? id });
    }
    return ordered.length;
  },
  export: (db) => ({
    providers: all<{ uuid: string; name: string; parent: string | null; generation: number }>(
      db,
      'SELECT rp.uuid, rp.name, p.uuid AS parent, rp.generation FROM resource_providers rp LEFT JOIN resource_providers p ON p.id = rp.parent_id ORDER BY rp.id',
    ),
  }),
});
