// Provider config: Nova's merge of checked documents into the providers (resource_tracker.py
// _merge_provider_configs), as a plan of changes per provider, applied in one transaction.
//
// Beyond Nova, what each document set is remembered (provider_config_* tables), so that applying a
// changed set of documents removes what they no longer declare and leaves alone what other means set:
// - an inventory belongs to config while it still has the values config wrote; changed by other means
//   (setInventories with other values), it is theirs: config no longer removes it, and a document that
//   still declares it is a conflict;
// - an inventory or trait config set and other means removed is added again while a document declares it
//   (Nova re-applies its files on every pass);
// - a trait the provider had before a document declared it is not config's and is never removed by it.
import type { Db } from '../../db/client.js';
import { all, get, list, run } from '../../db/sql.js';
import { GenerationConflict } from '../common/errors.js';
import { bumpGeneration, PROVIDER_COLUMNS, type ProviderRow } from '../providers/providers.service.js';
import { capacityOf } from '../../rules/capacity.js';
import { inventoriesOf, writeInventories, type InventoryFields, type InventoryRow } from '../inventories/inventories.service.js';
import { ensureTraits, writeProviderTraits } from '../traits/traits.service.js';
import { ensureResourceClasses } from '../resource-classes/resource-classes.service.js';
import { checkDocuments, COMPUTE_NODE, type ConfigDocument, type ConfigEntry, type Problem } from './provider-config.documents.js';

export interface PlannedInventory {
  resourceClass: string;
  /** The document that sets it; for a removal, the one that had set it. */
  document: string;
  before: InventoryFields | null;
  after: InventoryFields | null;
  /** Units allocated now. */
  used: number;
}

export interface PlannedTrait {
  trait: string;
  document: string;
}

export interface ProviderPlan {
  provider: ProviderRow;
  /** The entry that configures it now, if any. */
  entry: ConfigEntry | null;
  /** The entries that apply to it: `document: identification`, e.g. `10-default.yaml: $COMPUTE_NODE`. */
  configuredBy: string[];
  /** The generation the changes expect (the provider's generation when planned). */
  generation: number;
  addInventories: PlannedInventory[];
  changeInventories: PlannedInventory[];
  removeInventories: PlannedInventory[];
  addTraits: PlannedTrait[];
  removeTraits: PlannedTrait[];
}

export interface ConfigPlan {
  documents: string[];
  providers: ProviderPlan[];
  /** Custom traits and resource classes the apply creates. */
  newTraits: string[];
  newResourceClasses: string[];
  errors: Problem[];
  warnings: Problem[];
  dryRun: boolean;
  applied: boolean;
}

export interface ExpectedGeneration {
  providerUuid: string;
  generation: number;
}

export interface ApplyConfigInput {
  documents: ConfigDocument[];
  dryRun?: boolean | null;
  /** Generations read from an earlier dry run: the apply is refused when a provider changed since. */
  expectedGenerations?: ExpectedGeneration[] | null;
}

export const isChanged = (p: ProviderPlan) =>
  p.addInventories.length + p.changeInventories.length + p.removeInventories.length + p.addTraits.length + p.removeTraits.length > 0;

interface InventoryRecord extends InventoryFields {
  providerId: number;
  resourceClass: string;
  document: string;
}

interface TraitRecord {
  providerId: number;
  trait: string;
  document: string;
}

const FIELDS = ['total', 'reserved', 'minUnit', 'maxUnit', 'stepSize', 'allocationRatio'] as const;
const sameFields = (a: InventoryFields, b: InventoryFields) => FIELDS.every((f) => a[f] === b[f]);
const fieldsOf = (row: InventoryFields): InventoryFields => Object.fromEntries(FIELDS.map((f) => [f, row[f]])) as unknown as InventoryFields;

const describeProvider = (p: ProviderRow) => `${p.name} (${p.uuid})`;

/** Providers Nova's ProviderTree.data(uuid_or_name) finds: an exact uuid or name (a uuid match first). */
function providersByKey(db: Db, keys: string[]): Map<string, ProviderRow> {
  const rows = all<ProviderRow>(
    db,
    `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp
     WHERE rp.uuid IN (SELECT value FROM json_each(?)) OR rp.name IN (SELECT value FROM json_each(?)) ORDER BY rp.id`,
    list(keys),
    list(keys),
  );
  const byUuid = new Map<string, ProviderRow>();
  const byName = new Map<string, ProviderRow>();
  for (const row of rows) {
    if (!byUuid.has(row.uuid)) byUuid.set(row.uuid, row);
    if (!byName.has(row.name)) byName.set(row.name, row);
  }
  const found = new Map<string, ProviderRow>();
  for (const key of keys) {
    const match = byUuid.get(key) ?? byName.get(key);
    if (match) found.set(key, match);
  }
  return found;
}

function computeNodeRoots(db: Db): ProviderRow[] {
  return all<ProviderRow>(
    db,
    `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp
     JOIN provider_traits pt ON pt.resource_provider_id = rp.id JOIN traits t ON t.id = pt.trait_id AND t.name = 'COMPUTE_NODE'
     WHERE rp.parent_id IS NULL ORDER BY rp.id`,
  );
}

function groupByProvider<R extends { providerId: number }>(rows: R[]): Map<number, R[]> {
  const groups = new Map<number, R[]>();
  for (const row of rows) {
    const group = groups.get(row.providerId);
    if (group) group.push(row);
    else groups.set(row.providerId, [row]);
  }
  return groups;
}

interface Target {
  provider: ProviderRow;
  entry: ConfigEntry;
}

/** Which entry configures which provider, as _merge_provider_configs decides; problems go to the plan. */
function resolveTargets(db: Db, entries: ConfigEntry[], plan: ConfigPlan): Target[] {
  const keys = entries.map((e) => e.key);
  const explicit = providersByKey(db, keys.filter((k) => k !== COMPUTE_NODE));
  const keySet = new Set(keys);
  const targets: Target[] = [];
  const processed = new Map<number, ConfigEntry>();
  for (const entry of entries) {
    let providers: ProviderRow[];
    if (entry.key === COMPUTE_NODE) {
      const roots = computeNodeRoots(db);
      if (roots.length === 0) {
        plan.warnings.push({
          document: entry.document,
          path: entry.path,
          key: entry.key,
          rule: 'compute_node_matches_nothing',
          message: 'No root provider carries the COMPUTE_NODE trait: this $COMPUTE_NODE entry applies to nothing.',
        });
      }
      // An explicit entry for a provider replaces the $COMPUTE_NODE one entirely.
      providers = roots.filter((p) => !keySet.has(p.name) && !keySet.has(p.uuid));
    } else {
      const provider = explicit.get(entry.key);
      if (!provider) {
        const other = get<{ uuid: string }>(db, 'SELECT uuid FROM resource_providers WHERE uuid = lower(?)', entry.key);
        const hint = other ? ` (uuids are matched exactly: write it in lower case, ${other.uuid})` : '';
        plan.warnings.push({
          document: entry.document,
          path: `${entry.path}.identification`,
          key: entry.key,
          rule: 'unknown_provider',
          message: `Provider '${entry.key}' does not exist${hint}: this entry is ignored, as Nova ignores it.`,
        });
      }
      providers = provider ? [provider] : [];
    }
    for (const provider of providers) {
      const earlier = processed.get(provider.id);
      if (earlier) {
        plan.errors.push({
          document: entry.document,
          path: `${entry.path}.identification`,
          key: entry.key,
          rule: 'same_provider_twice',
          message: `Provider ${describeProvider(provider)} is configured twice: as '${earlier.key}' in ${earlier.document} and as '${entry.key}' here. Configure it once, by name or by uuid.`,
        });
        continue;
      }
      processed.set(provider.id, entry);
      targets.push({ provider, entry });
    }
  }
  return targets;
}

/**
 * The plan for a set of documents, the complete provider configuration: what to add, change and
 * remove on each provider, with the problems that prevent applying it. Reads only.
 */
export function planProviderConfig(db: Db, documents: ConfigDocument[], dryRun = true): ConfigPlan {
  const checked = checkDocuments(documents);
  const plan: ConfigPlan = {
    documents: checked.documents,
    providers: [],
    newTraits: [],
    newResourceClasses: [],
    errors: [...checked.errors],
    warnings: [...checked.warnings],
    dryRun,
    applied: false,
  };
  if (checked.errors.length > 0) return plan;
  plan.errors.push(...checked.applyProblems);

  const targets = resolveTargets(db, checked.entries, plan);
  const inventoryRecords = all<InventoryRecord>(
    db,
    `SELECT resource_provider_id AS providerId, resource_class AS resourceClass, document, total, reserved, min_unit AS minUnit,
       max_unit AS maxUnit, step_size AS stepSize, allocation_ratio AS allocationRatio FROM provider_config_inventories ORDER BY resource_provider_id, resource_class`,
  );
  const traitRecords = all<TraitRecord>(db, 'SELECT resource_provider_id AS providerId, trait, document FROM provider_config_traits ORDER BY resource_provider_id, trait');

  // Every provider configured now or earlier, in the order of the entries, then by id.
  const providers = new Map<number, ProviderRow>(targets.map((t) => [t.provider.id, t.provider]));
  const recordedOnly = [...new Set([...inventoryRecords, ...traitRecords].map((r) => r.providerId))].filter((id) => !providers.has(id)).sort((a, b) => a - b);
  for (const row of all<ProviderRow>(db, `SELECT ${PROVIDER_COLUMNS} FROM resource_providers rp WHERE rp.id IN (SELECT value FROM json_each(?)) ORDER BY rp.id`, list(recordedOnly))) {
    providers.set(row.id, row);
  }
  const ids = [...providers.keys()];
  const inventories = new Map<number, Map<string, InventoryRow>>(ids.map((id) => [id, new Map()]));
  for (const row of inventoriesOf(db, ids)) inventories.get(row.providerId)!.set(row.resourceClass, row);
  const traits = new Map<number, Set<string>>(ids.map((id) => [id, new Set()]));
  for (const row of all<{ providerId: number; name: string }>(
    db,
    `SELECT pt.resource_provider_id AS providerId, t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id
     WHERE pt.resource_provider_id IN (SELECT value FROM json_each(?))`,
    list(ids),
  )) {
    traits.get(row.providerId)!.add(row.name);
  }

  const inventoryRecordsOf = groupByProvider(inventoryRecords);
  const traitRecordsOf = groupByProvider(traitRecords);
  const entryOf = new Map(targets.map((t) => [t.provider.id, t.entry]));

  for (const provider of providers.values()) {
    const entry = entryOf.get(provider.id);
    const current = inventories.get(provider.id)!;
    const currentTraits = traits.get(provider.id)!;
    const problem = (rule: Problem['rule'], message: string, path: string | null = entry?.path ?? null): Problem => ({
      document: entry?.document ?? null,
      path,
      key: entry?.key ?? null,
      rule,
      message,
    });
    const providerPlan: ProviderPlan = {
      provider,
      entry: entry ?? null,
      configuredBy: entry ? [`${entry.document}: ${entry.key}`] : [],
      generation: provider.generation,
      addInventories: [],
      changeInventories: [],
      removeInventories: [],
      addTraits: [],
      removeTraits: [],
    };

    // Inventories config set and that still hold the values it wrote.
    const owned = new Map<string, InventoryRecord>();
    const changedElsewhere = new Map<string, InventoryRecord>();
    for (const record of inventoryRecordsOf.get(provider.id) ?? []) {
      const row = current.get(record.resourceClass);
      if (row && sameFields(row, record)) owned.set(record.resourceClass, record);
      else if (row) changedElsewhere.set(record.resourceClass, record);
    }
    for (const [resourceClass, { fields, path }] of entry?.inventories ?? []) {
      const row = current.get(resourceClass);
      const planned = { resourceClass, document: entry!.document, before: row ? fieldsOf(row) : null, after: fields, used: row?.used ?? 0 };
      if (!row) providerPlan.addInventories.push(planned);
      else if (owned.has(resourceClass)) {
        if (!sameFields(row, fields)) {
          providerPlan.changeInventories.push(planned);
          if (capacityOf(fields) < row.used) {
            plan.warnings.push(problem('capacity_below_usage', `${resourceClass} on ${describeProvider(provider)}: the new capacity ${capacityOf(fields)} is below the ${row.used} units allocated now.`, path));
          }
        }
      } else {
        const earlier = changedElsewhere.get(resourceClass);
        const source = earlier ? `was set by ${earlier.document} but has since been changed by other means` : 'was set by other means, not by a provider config document';
        plan.errors.push(
          problem(
            'inventory_conflict',
            `Provider ${describeProvider(provider)} already has inventory of ${resourceClass}, which ${source}: ${entry!.document} may not define it. Remove it from the document, or remove that inventory first.`,
            path,
          ),
        );
      }
    }
    for (const [resourceClass, record] of owned) {
      if (entry?.inventories.has(resourceClass)) continue;
      const row = current.get(resourceClass)!;
      providerPlan.removeInventories.push({ resourceClass, document: record.document, before: fieldsOf(row), after: null, used: row.used });
      if (row.used > 0) {
        plan.errors.push(
          problem(
            'inventory_in_use',
            `${resourceClass} on ${describeProvider(provider)} is no longer declared (it was set by ${record.document}), but ${row.used} units of it are allocated: it cannot be removed while in use.`,
            null,
          ),
        );
      }
    }
    for (const [resourceClass, record] of changedElsewhere) {
      if (entry?.inventories.has(resourceClass)) continue;
      plan.warnings.push({
        ...problem('released', `${resourceClass} on ${describeProvider(provider)} was set by ${record.document} and has since been changed by other means: it is left as it is and no longer managed by provider config.`, null),
        document: record.document,
      });
    }

    // Traits config added and the provider still has.
    const ownedTraits = new Map((traitRecordsOf.get(provider.id) ?? []).filter((r) => currentTraits.has(r.trait)).map((r) => [r.trait, r]));
    for (const trait of entry?.traits ?? []) {
      if (!currentTraits.has(trait)) providerPlan.addTraits.push({ trait, document: entry!.document });
    }
    for (const [trait, record] of ownedTraits) {
      if (!entry?.traits.includes(trait)) providerPlan.removeTraits.push({ trait, document: record.document });
    }
    if (entry || isChanged(providerPlan)) plan.providers.push(providerPlan);
  }

  const wantedTraits = [...new Set(plan.providers.flatMap((p) => p.addTraits.map((t) => t.trait)))];
  const knownTraits = new Set(all<{ name: string }>(db, 'SELECT name FROM traits WHERE name IN (SELECT value FROM json_each(?))', list(wantedTraits)).map((r) => r.name));
  plan.newTraits = wantedTraits.filter((t) => !knownTraits.has(t)).sort();
  const wantedClasses = [...new Set(plan.providers.flatMap((p) => p.addInventories.map((i) => i.resourceClass)))];
  const knownClasses = new Set(all<{ name: string }>(db, 'SELECT name FROM resource_classes WHERE name IN (SELECT value FROM json_each(?))', list(wantedClasses)).map((r) => r.name));
  plan.newResourceClasses = wantedClasses.filter((c) => !knownClasses.has(c)).sort();
  return plan;
}

/** Plans and, unless it is a dry run or has errors, applies: call inside one transaction. */
export function applyProviderConfig(db: Db, input: ApplyConfigInput): ConfigPlan {
  const plan = checkedPlan(db, input);
  if (plan.dryRun || plan.errors.length > 0) return plan;
  writePlan(db, plan);
  plan.applied = true;
  return plan;
}

/** The plan of an apply, refused when a provider changed since the generations the caller read. */
export function checkedPlan(db: Db, input: ApplyConfigInput): ConfigPlan {
  const plan = planProviderConfig(db, input.documents, !!input.dryRun);
  const plannedByUuid = new Map(plan.providers.map((p) => [p.provider.uuid, p]));
  for (const expected of input.expectedGenerations ?? []) {
    const planned = plannedByUuid.get(expected.providerUuid);
    const actual = planned?.generation ?? get<{ generation: number }>(db, 'SELECT generation FROM resource_providers WHERE uuid = ?', expected.providerUuid)?.generation ?? null;
    if (actual !== expected.generation) {
      throw new GenerationConflict(
        'expectedGenerations',
        expected.generation,
        actual,
        `resource provider generation conflict: provider ${expected.providerUuid} is at generation ${actual ?? '(deleted)'}, not ${expected.generation}, since the plan was made. Plan again.`,
      );
    }
  }
  return plan;
}

/** Writes a plan without errors: inventories, traits, generations and the provenance records. */
function writePlan(db: Db, plan: ConfigPlan) {
  ensureTraits(db, plan.newTraits);
  ensureResourceClasses(db, plan.newResourceClasses);
  const classIds = new Map(all<{ id: number; name: string }>(db, 'SELECT id, name FROM resource_classes').map((r) => [r.name, r.id]));
  const traitIds = new Map(all<{ id: number; name: string }>(db, 'SELECT id, name FROM traits').map((r) => [r.name, r.id]));
  const changed = plan.providers.filter(isChanged);
  const next = plannedState(db, changed);
  for (const p of changed) {
    bumpGeneration(db, p.provider, p.generation);
    const { inventories, traits } = next.get(p.provider.id)!;
    writeInventories(db, p.provider.id, [...inventories].map(([name, fields]) => ({ classId: classIds.get(name)!, fields })));
    writeProviderTraits(db, p.provider.id, traits.map((t) => traitIds.get(t)!));
  }
  recordProvenance(db, plan.providers);
}

/** What the changed providers of a plan hold once it is applied: every inventory and trait. */
export function plannedState(db: Db, providers: ProviderPlan[]): Map<number, { inventories: Map<string, InventoryFields>; traits: string[] }> {
  const current = groupByProvider(inventoriesOf(db, providers.map((p) => p.provider.id)));
  const state = new Map<number, { inventories: Map<string, InventoryFields>; traits: string[] }>();
  for (const p of providers) {
    const id = p.provider.id;
    const removed = new Set(p.removeInventories.map((i) => i.resourceClass));
    const inventories = new Map<string, InventoryFields>((current.get(id) ?? []).filter((r) => !removed.has(r.resourceClass)).map((r) => [r.resourceClass, fieldsOf(r)]));
    for (const inv of [...p.addInventories, ...p.changeInventories]) inventories.set(inv.resourceClass, inv.after!);
    const removedTraits = new Set(p.removeTraits.map((t) => t.trait));
    const held = all<{ name: string }>(db, 'SELECT t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id WHERE pt.resource_provider_id = ?', id).map((t) => t.name);
    state.set(id, { inventories, traits: [...held.filter((t) => !removedTraits.has(t)), ...p.addTraits.map((t) => t.trait)] });
  }
  return state;
}

/**
 * The provenance records of the providers of a plan, once their changes are written: records that
 * no longer hold (removed, or changed by other means) go; the declared ones are written.
 */
export function recordProvenance(db: Db, providers: ProviderPlan[]) {
  run(
    db,
    `DELETE FROM provider_config_inventories WHERE NOT EXISTS (SELECT 1 FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id
       WHERE i.resource_provider_id = provider_config_inventories.resource_provider_id AND rc.name = provider_config_inventories.resource_class
         AND i.total = provider_config_inventories.total AND i.reserved = provider_config_inventories.reserved
         AND i.min_unit = provider_config_inventories.min_unit AND i.max_unit = provider_config_inventories.max_unit
         AND i.step_size = provider_config_inventories.step_size AND i.allocation_ratio = provider_config_inventories.allocation_ratio)`,
  );
  run(
    db,
    `DELETE FROM provider_config_traits WHERE NOT EXISTS (SELECT 1 FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id
       WHERE pt.resource_provider_id = provider_config_traits.resource_provider_id AND t.name = provider_config_traits.trait)`,
  );
  for (const p of providers) {
    for (const inv of p.removeInventories) run(db, 'DELETE FROM provider_config_inventories WHERE resource_provider_id = ? AND resource_class = ?', p.provider.id, inv.resourceClass);
    for (const t of p.removeTraits) run(db, 'DELETE FROM provider_config_traits WHERE resource_provider_id = ? AND trait = ?', p.provider.id, t.trait);
  }
  for (const p of providers) writeRecords(db, p);
}

/** Records what the entry of a provider declares and config owns: added or changed now, or owned already (maybe by another document). */
function writeRecords(db: Db, p: ProviderPlan) {
  const id = p.provider.id;
  if (!p.entry) return;
  for (const resourceClass of p.entry.inventories.keys()) {
    run(db, 'UPDATE provider_config_inventories SET document = ? WHERE resource_provider_id = ? AND resource_class = ? AND document <> ?', p.entry.document, id, resourceClass, p.entry.document);
  }
  for (const trait of p.entry.traits) {
    run(db, 'UPDATE provider_config_traits SET document = ? WHERE resource_provider_id = ? AND trait = ? AND document <> ?', p.entry.document, id, trait, p.entry.document);
  }
  for (const inv of [...p.addInventories, ...p.changeInventories]) {
    const f = inv.after!;
    run(
      db,
      `INSERT INTO provider_config_inventories (resource_provider_id, resource_class, document, total, reserved, min_unit, max_unit, step_size, allocation_ratio)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (resource_provider_id, resource_class) DO UPDATE SET document = excluded.document, total = excluded.total, reserved = excluded.reserved,
         min_unit = excluded.min_unit, max_unit = excluded.max_unit, step_size = excluded.step_size, allocation_ratio = excluded.allocation_ratio,
         applied_at = excluded.applied_at`,
      id,
      inv.resourceClass,
      inv.document,
      f.total,
      f.reserved,
      f.minUnit,
      f.maxUnit,
      f.stepSize,
      f.allocationRatio,
    );
  }
  for (const t of p.addTraits) {
    run(db, 'INSERT INTO provider_config_traits (resource_provider_id, trait, document) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET document = excluded.document, applied_at = excluded.applied_at', id, t.trait, t.document);
  }
}

/** What provider-config documents set, per provider uuid: the snapshot form of the provenance records. */
export interface ConfigRecords {
  inventories: Record<string, Record<string, { document: string; total: number; reserved: number; min_unit: number; max_unit: number; step_size: number; allocation_ratio: number }>>;
  traits: Record<string, Record<string, string>>;
}

export function configRecordsForSnapshot(db: Db): ConfigRecords {
  const records: ConfigRecords = { inventories: {}, traits: {} };
  for (const r of all<any>(
    db,
    `SELECT rp.uuid, c.resource_class AS rc, c.document, c.total, c.reserved, c.min_unit, c.max_unit, c.step_size, c.allocation_ratio
     FROM provider_config_inventories c JOIN resource_providers rp ON rp.id = c.resource_provider_id ORDER BY rp.id, c.resource_class`,
  )) {
    const { uuid, rc, ...fields } = r;
    (records.inventories[uuid] ??= {})[rc] = fields;
  }
  for (const r of all<{ uuid: string; trait: string; document: string }>(
    db,
    'SELECT rp.uuid, c.trait, c.document FROM provider_config_traits c JOIN resource_providers rp ON rp.id = c.resource_provider_id ORDER BY rp.id, c.trait',
  )) {
    (records.traits[r.uuid] ??= {})[r.trait] = r.document;
  }
  return records;
}

/** Writes provenance records as a snapshot holds them (providers given by uuid → id); the shapes were checked by the caller. */
export function restoreConfigRecords(db: Db, providerIds: Map<string, number>, records: ConfigRecords) {
  for (const [uuid, classes] of Object.entries(records.inventories)) {
    for (const [rc, f] of Object.entries(classes)) {
      run(
        db,
        `INSERT INTO provider_config_inventories (resource_provider_id, resource_class, document, total, reserved, min_unit, max_unit, step_size, allocation_ratio)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        providerIds.get(uuid),
        rc,
        f.document,
        f.total,
        f.reserved,
        f.min_unit,
        f.max_unit,
        f.step_size,
        f.allocation_ratio,
      );
    }
  }
  for (const [uuid, traits] of Object.entries(records.traits)) {
    for (const [trait, document] of Object.entries(traits)) run(db, 'INSERT INTO provider_config_traits (resource_provider_id, trait, document) VALUES (?, ?, ?)', providerIds.get(uuid), trait, document);
  }
}
