// What provider-config documents set, in snapshots: `provider_config: {inventories: {provider: {CLASS:
// {document, ...inventory}}}, traits: {provider: {TRAIT: document}}}` (see applyProviderConfig).
import { checkedInventory } from '../inventories/inventories.snapshot.js';
import { isObject, shown, snapshotSection, type CheckContext } from '../snapshot/snapshot.section.js';
import { configRecordsForSnapshot, restoreConfigRecords, type ConfigRecords } from './provider-config.service.js';

export const providerConfigSection = snapshotSection({
  keys: ['provider_config'],
  tables: ['provider_config_inventories', 'provider_config_traits'],
  check(ctx: CheckContext): ConfigRecords {
    const { problem } = ctx;
    const given: unknown = ctx.snapshot.provider_config ?? { inventories: {}, traits: {} };
    const records: ConfigRecords = { inventories: {}, traits: {} };
    if (!isObject(given) || !isObject(given.inventories ?? {}) || !isObject(given.traits ?? {})) {
      problem('provider_config', 'must be an object {inventories, traits}');
      return records;
    }
    for (const [raw, classes] of Object.entries<unknown>(given.inventories ?? {})) {
      const uuid = ctx.providerKey(raw, `provider_config.inventories.${raw}`);
      if (!isObject(classes)) {
        problem(`provider_config.inventories.${raw}`, 'must be an object {RESOURCE_CLASS: record}');
        continue;
      }
      for (const [rc, record] of Object.entries(classes)) {
        const path = `provider_config.inventories.${raw}.${rc}`;
        if (!isObject(record) || typeof record.document !== 'string') {
          problem(path, `must be {document, total, reserved, min_unit, max_unit, step_size, allocation_ratio} with the document's name as text (got ${shown(record)})`);
          continue;
        }
        const fields = checkedInventory(record, path, problem, ['document']);
        if (fields && uuid) {
          (records.inventories[uuid] ??= {})[rc] = { document: record.document, total: fields.total, reserved: fields.reserved, min_unit: fields.minUnit, max_unit: fields.maxUnit, step_size: fields.stepSize, allocation_ratio: fields.allocationRatio };
        }
      }
    }
    for (const [raw, traitDocs] of Object.entries<unknown>(given.traits ?? {})) {
      const uuid = ctx.providerKey(raw, `provider_config.traits.${raw}`);
      if (!isObject(traitDocs) || Object.values(traitDocs).some((d) => typeof d !== 'string')) problem(`provider_config.traits.${raw}`, 'must be an object {TRAIT: document}');
      else if (uuid) records.traits[uuid] = traitDocs as Record<string, string>;
    }
    return records;
  },
  write({ db, providerIds }, records) {
    const uuids = new Set([...Object.keys(records.inventories), ...Object.keys(records.traits)]);
    restoreConfigRecords(db, new Map([...uuids].map((uuid) => [uuid, providerIds.get(uuid)!.id])), records);
  },
  export: (db) => ({ provider_config: configRecordsForSnapshot(db) }),
});
