// Traits in snapshots: `traits: {provider: [TRAIT]}` and `custom_traits: [CUSTOM_...]` (created).
import { all, run } from '../../db/sql.js';
import { snapshotSection, type CheckContext } from '../snapshot/snapshot.section.js';

export const traitsSection = snapshotSection({
  keys: ['custom_traits', 'traits'],
  tables: ['provider_traits'],
  check(ctx: CheckContext) {
    (ctx.section<unknown[]>('custom_traits', 'array') ?? []).forEach((name, i) => ctx.checkTrait(name, `custom_traits.${i}`));
    const traits = ctx.section<Record<string, unknown>>('traits', 'object') ?? {};
    const held = new Map<string, Set<string>>();
    for (const [raw, list] of Object.entries(traits)) {
      const uuid = ctx.providerKey(raw, `traits.${raw}`);
      if (!Array.isArray(list)) ctx.problem(`traits.${raw}`, 'must be a list of trait names');
      else {
        list.forEach((t, i) => ctx.checkTrait(t, `traits.${raw}.${i}`));
        if (uuid) held.set(uuid, new Set(list as string[]));
      }
    }
    return held;
  },
  write({ db, providerIds, traitIds }, held) {
    for (const [uuid, names] of held) for (const name of names) run(db, 'INSERT INTO provider_traits (resource_provider_id, trait_id) VALUES (?, ?)', providerIds.get(uuid)!.id, traitIds.get(name));
  },
  export(db) {
    const traits: Record<string, string[]> = {};
    for (const r of all<{ uuid: string; name: string }>(db, 'SELECT rp.uuid, t.name FROM provider_traits pt JOIN resource_providers rp ON rp.id = pt.resource_provider_id JOIN traits t ON t.id = pt.trait_id ORDER BY rp.id, t.name')) {
      (traits[r.uuid] ??= []).push(r.name);
    }
    return { traits, custom_traits: all<{ name: string }>(db, 'SELECT name FROM traits WHERE standard = 0 ORDER BY name').map((r) => r.name) };
  },
});
