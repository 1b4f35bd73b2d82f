// Flavors in snapshots: `flavors: [{name, vcpus, memory_mb, root_gb, ephemeral_gb, swap_mb, is_public,
// extra_specs}]`, created through the flavor rules (extra specs were checked when they were set).
import { all } from '../../db/sql.js';
import { checkInteger, isObject, snapshotSection, type CheckContext, type Report } from '../snapshot/snapshot.section.js';
import type { SnapshotFlavor } from '../snapshot/snapshot.types.js';
import { createFlavor, extraSpecsOfFlavors } from './flavors.service.js';

/** An object of text values, when given. */
export function checkStringMap(value: unknown, path: string, problem: Report) {
  if (value !== undefined && (!isObject(value) || Object.values(value).some((v) => typeof v !== 'string'))) problem(path, 'must be an object of strings {key: value}');
}

export const flavorsSection = snapshotSection({
  keys: ['flavors'],
  tables: ['flavor_extra_specs', 'flavors'],
  check(ctx: CheckContext) {
    const flavors = ctx.section<SnapshotFlavor[]>('flavors', 'array') ?? [];
    const { problem } = ctx;
    flavors.forEach((f, i) => {
      if (!isObject(f)) return problem(`flavors.${i}`, 'must be an object {name, vcpus, memory_mb, root_gb, ephemeral_gb, swap_mb, is_public, extra_specs}');
      if (typeof f.name !== 'string') problem(`flavors.${i}.name`, 'must be a string');
      for (const [key, min] of [['vcpus', 1], ['memory_mb', 1], ['root_gb', 0], ['ephemeral_gb', 0], ['swap_mb', 0]] as const) {
        if (f[key] !== undefined || key === 'vcpus' || key === 'memory_mb') checkInteger(f[key], `flavors.${i}.${key}`, min, problem);
      }
      if (f.is_public !== undefined && typeof f.is_public !== 'boolean') problem(`flavors.${i}.is_public`, 'must be true or false');
      checkStringMap(f.extra_specs, `flavors.${i}.extra_specs`, problem);
    });
    return flavors;
  },
  write({ db, attempt }, flavors) {
    flavors.forEach((f, i) =>
      attempt(`flavors.${i}`, () =>
        createFlavor(db, {
          name: f.name,
          vcpus: f.vcpus,
          memoryMb: f.memory_mb,
          rootGb: f.root_gb ?? 0,
          ephemeralGb: f.ephemeral_gb,
          swapMb: f.swap_mb,
          isPublic: f.is_public,
          extraSpecs: Object.entries(f.extra_specs ?? {}).map(([key, value]) => ({ key, value })),
          // Checked when they were set, perhaps against operators' validators not loaded here.
          validation: 'OFF',
        }),
      ),
    );
    return flavors.length;
  },
  export(db) {
    const rows = all<{ id: number; name: string; vcpus: number; memory_mb: number; root_gb: number; ephemeral_gb: number; swap_mb: number; is_public: number }>(
      db,
      'SELECT id, name, vcpus, memory_mb, root_gb, ephemeral_gb, swap_mb, is_public FROM flavors ORDER BY id',
    );
    const specs = new Map<number, Record<string, string>>();
    for (const r of extraSpecsOfFlavors(db, rows.map((f) => f.id))) (specs.get(r.flavorId) ?? specs.set(r.flavorId, {}).get(r.flavorId)!)[r.key] = r.value;
    return { flavors: rows.map(({ id, is_public, ...f }) => ({ ...f, is_public: is_public === 1, extra_specs: specs.get(id) ?? {} })) };
  },
});
