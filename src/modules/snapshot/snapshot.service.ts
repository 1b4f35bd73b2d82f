// Snapshots: the whole database as one JSON object (the oracle's scenario shape, plus generations,
// flavors, images and bare-metal nodes). Import checks everything first and lists every problem,
// then writes in one transaction; with replace, the old content is removed in the same transaction.
import type { Db } from '../../db/client.js';
import { bulkWrite } from '../../db/changes.js';
import { all, get, run } from '../../db/sql.js';
import { isStandardResourceClass, isStandardTrait } from '../../catalog/index.js';
import { canonicalUuid, customNameProblem, DEFAULT_CONSUMER_TYPE, isConsumerType } from '../../rules/names.js';
import { DomainError, InvalidInput, type Issue } from '../common/errors.js';
import { createFlavor, extraSpecsOfFlavors } from '../flavors/flavors.service.js';
import { createImage, propertiesOfImages } from '../images/images.service.js';
import { nodesForSnapshot, restoreNode, type RestoredNode } from '../nodes/nodes.service.js';
import { configRecordsForSnapshot, restoreConfigRecords, type ConfigRecords } from '../provider-config/provider-config.service.js';
import { capacityOf, fitsUnits } from '../../rules/capacity.js';
import { inventoryIssues, upsertInventory, withDefaults, type InventoryFields } from '../inventories/inventories.service.js';
import { MAX_PROVIDER_NAME_LENGTH } from '../providers/providers.service.js';
import { ensureResourceClasses } from '../resource-classes/resource-classes.service.js';
import { ensureTraits } from '../traits/traits.service.js';

type InventorySpec = number | Partial<{ total: number; reserved: number; min_unit: number; max_unit: number; step_size: number; allocation_ratio: number }>;

export interface SnapshotFlavor {
  name: string;
  vcpus: number;
  memory_mb: number;
  root_gb: number;
  ephemeral_gb?: number;
  swap_mb?: number;
  is_public?: boolean;
  extra_specs?: Record<string, string>;
}

export interface SnapshotImage {
  uuid: string;
  name: string;
  properties?: Record<string, string>;
}

export interface SnapshotNode {
  uuid: string;
  name?: string | null;
  resource_class: string;
  provision_state: string;
  instance_uuid?: string | null;
  instance_traits?: string[];
  traits?: string[];
}

export interface Snapshot {
  providers?: { uuid: string; name?: string; parent?: string | null; generation?: number }[];
  inventories?: Record<string, Record<string, InventorySpec>>;
  traits?: Record<string, string[]>;
  aggregates?: Record<string, string[]>;
  allocations?: Record<string, Record<string, Record<string, number>>>;
  /** A consumer's type defaults to INSTANCE, as in the oracle's scenarios; null is no type (written before Placement 1.38). */
  consumers?: Record<string, { project_id?: string; user_id?: string; consumer_type?: string | null; generation?: number }>;
  resource_classes?: string[];
  custom_traits?: string[];
  flavors?: SnapshotFlavor[];
  images?: SnapshotImage[];
  baremetal_nodes?: SnapshotNode[];
  /** What provider-config documents set (see applyProviderConfig): inventories and traits per provider, with the document. */
  provider_config?: ConfigRecords;
}

export const DEFAULT_PROJECT_ID = '11111111-1111-1111-1111-111111111111';
export const DEFAULT_USER_ID = '22222222-2222-2222-2222-222222222222';

export class SnapshotRejected extends Error {
  constructor(readonly problems: Issue[]) {
    super(`snapshot rejected: ${problems.length} problem(s); first: ${problems[0]?.path}: ${problems[0]?.message}`);
  }
}

export function isEmpty(db: Db): boolean {
  return !get(db, 'SELECT 1 FROM resource_providers LIMIT 1');
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

function inventoryFields(spec: InventorySpec): InventoryFields {
  if (typeof spec === 'number') return withDefaults({ resourceClass: '', total: spec });
  return withDefaults({
    resourceClass: '',
    total: spec.total as number,
    reserved: spec.reserved,
    minUnit: spec.min_unit,
    maxUnit: spec.max_unit,
    stepSize: spec.step_size,
    allocationRatio: spec.allocation_ratio,
  });
}

/** What the database holds besides the catalog's standard names, children before parents. */
const DATA_TABLES = [
  'allocations',
  'consumers',
  'provider_config_inventories',
  'provider_config_traits',
  'node_traits',
  'baremetal_nodes',
  'provider_traits',
  'provider_aggregates',
  'inventories',
  'aggregates',
  'resource_providers',
  'flavor_extra_specs',
  'flavors',
  'image_properties',
  'images',
];

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
  const problems: Issue[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });
  if (!isObject(snapshot)) throw new SnapshotRejected([{ path: '', message: 'a snapshot is a JSON object' }]);
  const s = snapshot as Snapshot;
  const section = <T>(key: keyof Snapshot, kind: 'array' | 'object'): T | undefined => {
    const value = s[key];
    if (value === undefined) return undefined;
    if (kind === 'array' ? !Array.isArray(value) : !isObject(value)) {
      problem(key, `must be a JSON ${kind}`);
      return undefined;
    }
    return value as T;
  };
  const providers = section<NonNullable<Snapshot['providers']>>('providers', 'array') ?? [];
  const inventories = section<NonNullable<Snapshot['inventories']>>('inventories', 'object') ?? {};
  const traits = section<NonNullable<Snapshot['traits']>>('traits', 'object') ?? {};
  const aggregates = section<NonNullable<Snapshot['aggregates']>>('aggregates', 'object') ?? {};
  const allocations = section<NonNullable<Snapshot['allocations']>>('allocations', 'object') ?? {};
  const consumers = section<NonNullable<Snapshot['consumers']>>('consumers', 'object') ?? {};
  const extraClasses = section<string[]>('resource_classes', 'array') ?? [];
  const extraTraits = section<string[]>('custom_traits', 'array') ?? [];
  const flavors = section<SnapshotFlavor[]>('flavors', 'array') ?? [];
  const images = section<SnapshotImage[]>('images', 'array') ?? [];
  const nodes = section<SnapshotNode[]>('baremetal_nodes', 'array') ?? [];
  const generation = (value: unknown, path: string) => {
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 2147483647)) problem(path, `a generation is an integer from 0 to 2147483647 (got ${JSON.stringify(value)})`);
  };

  // Providers: uuids, names, parents; existing rows count as taken.
  const existingUuids = new Set(all<{ uuid: string }>(db, 'SELECT uuid FROM resource_providers').map((r) => r.uuid));
  const existingNames = new Set(all<{ name: string }>(db, 'SELECT name FROM resource_providers').map((r) => r.name));
  const byUuid = new Map<string, { uuid: string; name: string; parent: string | null; index: number; generation: number }>();
  const names = new Set<string>();
  providers.forEach((p, i) => {
    const path = `providers.${i}`;
    if (!isObject(p)) return problem(path, 'must be an object {uuid, name, parent}');
    const uuid = typeof p.uuid === 'string' ? canonicalUuid(p.uuid) : null;
    if (!uuid) return problem(`${path}.uuid`, `must be a uuid (got ${JSON.stringify(p.uuid)})`);
    const name = p.name ?? uuid;
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_PROVIDER_NAME_LENGTH) problem(`${path}.name`, `must be a non-empty string of at most ${MAX_PROVIDER_NAME_LENGTH} characters`);
    if (byUuid.has(uuid) || existingUuids.has(uuid)) problem(`${path}.uuid`, `provider ${uuid} appears twice (or exists already)`);
    if (names.has(name) || existingNames.has(name)) problem(`${path}.name`, `provider name ${name} appears twice (or exists already)`);
    names.add(name);
    const parent = p.parent == null ? null : typeof p.parent === 'string' ? canonicalUuid(p.parent) : null;
    if (p.parent != null && !parent) problem(`${path}.parent`, `must be a uuid or null (got ${JSON.stringify(p.parent)})`);
    generation(p.generation, `${path}.generation`);
    byUuid.set(uuid, { uuid, name, parent, index: i, generation: p.generation ?? 0 });
  });
  const existingProviders = new Map(all<{ uuid: string; id: number; rootId: number }>(db, 'SELECT uuid, id, root_id AS rootId FROM resource_providers').map((r) => [r.uuid, r]));
  // Parents must exist, without cycles; order parents first.
  const ordered: string[] = [];
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
    else if (parent && !existingProviders.has(parent)) {
      problem(`providers.${byUuid.get(uuid)!.index}.parent`, `parent provider ${parent} does not exist`);
      ok = false;
    }
    state.set(uuid, 'done');
    if (ok) ordered.push(uuid);
    return ok;
  };
  for (const uuid of byUuid.keys()) visit(uuid, []);

  // Names of classes and traits: standard ones, or valid CUSTOM_ names (created).
  const knownClasses = new Set(all<{ name: string }>(db, 'SELECT name FROM resource_classes').map((r) => r.name));
  const knownTraits = new Set(all<{ name: string }>(db, 'SELECT name FROM traits').map((r) => r.name));
  const newClasses = new Set<string>();
  const newTraits = new Set<string>();
  const checkClass = (name: unknown, path: string) => {
    if (typeof name !== 'string') return problem(path, 'a resource class name must be a string');
    if (knownClasses.has(name) || isStandardResourceClass(name)) return;
    const why = customNameProblem(name);
    if (why) problem(path, `unknown resource class ${name}: a custom class ${why}`);
    else newClasses.add(name);
  };
  const checkTrait = (name: unknown, path: string) => {
    if (typeof name !== 'string') return problem(path, 'a trait name must be a string');
    if (knownTraits.has(name) || isStandardTrait(name)) return;
    const why = customNameProblem(name);
    if (why) problem(path, `unknown trait ${name}: a custom trait ${why}`);
    else newTraits.add(name);
  };
  extraClasses.forEach((name, i) => checkClass(name, `resource_classes.${i}`));
  extraTraits.forEach((name, i) => checkTrait(name, `custom_traits.${i}`));

  const providerKey = (raw: string, path: string): string | null => {
    const uuid = canonicalUuid(raw);
    if (!uuid) problem(path, `${raw} is not a uuid`);
    else if (!byUuid.has(uuid)) problem(path, existingProviders.has(uuid) ? `provider ${uuid} exists already; a snapshot only describes the providers it adds` : `provider ${uuid} is not in providers`);
    else return uuid;
    return null;
  };

  const inventoryOf = new Map<string, Map<string, InventoryFields>>();
  for (const [raw, classes] of Object.entries(inventories)) {
    const uuid = providerKey(raw, `inventories.${raw}`);
    if (!isObject(classes)) {
      problem(`inventories.${raw}`, 'must be an object {RESOURCE_CLASS: inventory}');
      continue;
    }
    const records = new Map<string, InventoryFields>();
    for (const [rc, spec] of Object.entries(classes)) {
      const path = `inventories.${raw}.${rc}`;
      checkClass(rc, path);
      if (typeof spec !== 'number' && !isObject(spec)) {
        problem(path, 'must be a total (integer) or {total, reserved, min_unit, max_unit, step_size, allocation_ratio}');
        continue;
      }
      const fields = inventoryFields(spec);
      const issues = inventoryIssues(fields, path);
      problems.push(...issues);
      if (issues.length === 0) records.set(rc, fields);
    }
    if (uuid) inventoryOf.set(uuid, records);
  }
  for (const [raw, list] of Object.entries(traits)) {
    providerKey(raw, `traits.${raw}`);
    if (!Array.isArray(list)) problem(`traits.${raw}`, 'must be a list of trait names');
    else list.forEach((t, i) => checkTrait(t, `traits.${raw}.${i}`));
  }
  for (const [raw, list] of Object.entries(aggregates)) {
    providerKey(raw, `aggregates.${raw}`);
    if (!Array.isArray(list)) problem(`aggregates.${raw}`, 'must be a list of aggregate uuids');
    else list.forEach((a, i) => typeof a === 'string' && canonicalUuid(a) ? null : problem(`aggregates.${raw}.${i}`, `${JSON.stringify(a)} is not a uuid`));
  }

  // Allocations: every amount fits its inventory, and the sums fit capacity.
  const existingConsumers = new Set(all<{ uuid: string }>(db, 'SELECT uuid FROM consumers').map((r) => r.uuid));
  const usage = new Map<string, number>();
  for (const [rawConsumer, byProvider] of Object.entries(allocations)) {
    const path = `allocations.${rawConsumer}`;
    const consumer = canonicalUuid(rawConsumer);
    if (!consumer) problem(path, `${rawConsumer} is not a uuid`);
    else if (existingConsumers.has(consumer)) problem(path, `consumer ${consumer} exists already`);
    if (!isObject(byProvider) || Object.keys(byProvider).length === 0) {
      problem(path, 'must be a non-empty object {provider_uuid: {RESOURCE_CLASS: amount}}');
      continue;
    }
    for (const [rawProvider, amounts] of Object.entries(byProvider)) {
      const ppath = `${path}.${rawProvider}`;
      const uuid = providerKey(rawProvider, ppath);
      if (!isObject(amounts) || Object.keys(amounts).length === 0) {
        problem(ppath, 'must be a non-empty object {RESOURCE_CLASS: amount}');
        continue;
      }
      for (const [rc, amount] of Object.entries(amounts)) {
        const apath = `${ppath}.${rc}`;
        if (!Number.isInteger(amount) || amount < 1) {
          problem(apath, `amount must be an integer of at least 1 (got ${JSON.stringify(amount)})`);
          continue;
        }
        if (!uuid) continue;
        const inv = inventoryOf.get(uuid)?.get(rc);
        if (!inv) {
          problem(apath, `provider ${uuid} has no inventory of ${rc}`);
          continue;
        }
        if (!fitsUnits(inv, amount)) {
          problem(apath, `amount ${amount} breaks min_unit ${inv.minUnit} / max_unit ${inv.maxUnit} / step_size ${inv.stepSize}`);
        }
        usage.set(`${uuid}/${rc}`, (usage.get(`${uuid}/${rc}`) ?? 0) + amount);
      }
    }
  }
  for (const [key, used] of usage) {
    const [uuid, rc] = key.split('/');
    const inventory = inventoryOf.get(uuid)!.get(rc)!;
    const capacity = capacityOf(inventory);
    // Usage above capacity because of `reserved` is a state Placement holds: a bare-metal node's unit
    // is reserved while its instance holds it, and reserved may be raised under running consumers.
    if (used > capacity && used > capacityOf({ ...inventory, reserved: 0 })) problem(`allocations`, `allocations of ${rc} on provider ${uuid} add up to ${used}, above its capacity ${capacity}`);
  }
  for (const [rawConsumer, meta] of Object.entries(consumers)) {
    const path = `consumers.${rawConsumer}`;
    if (!isObject(meta)) problem(path, 'must be an object {project_id, user_id, consumer_type}');
    else {
      for (const key of ['project_id', 'user_id', 'consumer_type'] as const) {
        if (key === 'consumer_type' && meta[key] === null) continue;
        if (meta[key] !== undefined && (typeof meta[key] !== 'string' || meta[key] === '')) problem(`${path}.${key}`, key === 'consumer_type' ? 'must be a non-empty string, or null for no type' : 'must be a non-empty string');
      }
      if (typeof meta.consumer_type === 'string' && !isConsumerType(meta.consumer_type)) problem(`${path}.consumer_type`, 'must match ^[A-Z0-9_]+$ and be at most 255 characters');
      generation(meta.generation, `${path}.generation`);
    }
  }
  const stringMap = (value: unknown, path: string) => {
    if (value !== undefined && (!isObject(value) || Object.values(value).some((v) => typeof v !== 'string'))) problem(path, 'must be an object of strings {key: value}');
  };
  flavors.forEach((f, i) => {
    if (!isObject(f)) return problem(`flavors.${i}`, 'must be an object {name, vcpus, memory_mb, root_gb, ephemeral_gb, swap_mb, is_public, extra_specs}');
    if (typeof f.name !== 'string') problem(`flavors.${i}.name`, 'must be a string');
    for (const key of ['vcpus', 'memory_mb', 'root_gb', 'ephemeral_gb', 'swap_mb'] as const) {
      if ((f[key] !== undefined || key === 'vcpus' || key === 'memory_mb') && !Number.isInteger(f[key])) problem(`flavors.${i}.${key}`, 'must be an integer');
    }
    if (f.is_public !== undefined && typeof f.is_public !== 'boolean') problem(`flavors.${i}.is_public`, 'must be true or false');
    stringMap(f.extra_specs, `flavors.${i}.extra_specs`);
  });
  images.forEach((image, i) => {
    if (!isObject(image)) return problem(`images.${i}`, 'must be an object {uuid, name, properties}');
    if (typeof image.uuid !== 'string' || !canonicalUuid(image.uuid)) problem(`images.${i}.uuid`, `must be a uuid (got ${JSON.stringify(image.uuid)})`);
    if (typeof image.name !== 'string') problem(`images.${i}.name`, 'must be a string');
    stringMap(image.properties, `images.${i}.properties`);
  });
  nodes.forEach((node, i) => {
    const path = `baremetal_nodes.${i}`;
    if (!isObject(node)) return problem(path, 'must be an object {uuid, name, resource_class, provision_state, instance_uuid, instance_traits, traits}');
    const uuid = typeof node.uuid === 'string' ? canonicalUuid(node.uuid) : null;
    if (!uuid) problem(`${path}.uuid`, `must be a uuid (got ${JSON.stringify(node.uuid)})`);
    else if (!byUuid.has(uuid)) problem(`${path}.uuid`, `a node's provider (same uuid) must be in providers: ${uuid} is not`);
    if (node.name != null && typeof node.name !== 'string') problem(`${path}.name`, 'must be a string or null');
    for (const key of ['resource_class', 'provision_state'] as const) if (typeof node[key] !== 'string') problem(`${path}.${key}`, 'must be a string');
    if (node.instance_uuid != null && !(typeof node.instance_uuid === 'string' && canonicalUuid(node.instance_uuid))) problem(`${path}.instance_uuid`, 'must be a uuid or null');
    for (const key of ['traits', 'instance_traits'] as const) {
      if (node[key] !== undefined && !(Array.isArray(node[key]) && node[key].every((t: unknown) => typeof t === 'string'))) problem(`${path}.${key}`, 'must be a list of trait names');
    }
  });
  const config = s.provider_config === undefined ? { inventories: {}, traits: {} } : s.provider_config;
  if (!isObject(config) || !isObject(config.inventories ?? {}) || !isObject(config.traits ?? {})) problem('provider_config', 'must be an object {inventories, traits}');
  else {
    config.inventories ??= {};
    config.traits ??= {};
    for (const [raw, classes] of Object.entries(config.inventories)) {
      const uuid = providerKey(raw, `provider_config.inventories.${raw}`);
      if (!isObject(classes)) problem(`provider_config.inventories.${raw}`, 'must be an object {RESOURCE_CLASS: record}');
      else
        for (const [rc, record] of Object.entries(classes)) {
          const path = `provider_config.inventories.${raw}.${rc}`;
          const fields = isObject(record) ? inventoryFields(record) : null;
          if (!isObject(record) || typeof record.document !== 'string' || inventoryIssues(fields!, path).length) problem(path, 'must be {document, total, reserved, min_unit, max_unit, step_size, allocation_ratio}');
          else if (uuid) config.inventories[raw][rc] = { document: record.document, total: fields!.total, reserved: fields!.reserved, min_unit: fields!.minUnit, max_unit: fields!.maxUnit, step_size: fields!.stepSize, allocation_ratio: fields!.allocationRatio };
        }
    }
    for (const [raw, traitDocs] of Object.entries(config.traits)) {
      providerKey(raw, `provider_config.traits.${raw}`);
      if (!isObject(traitDocs) || Object.values(traitDocs).some((d) => typeof d !== 'string')) problem(`provider_config.traits.${raw}`, 'must be an object {TRAIT: document}');
    }
  }
  if (problems.length > 0) throw new SnapshotRejected(problems);

  // One change logged for the whole import (caches start again), not one per row.
  return db.transaction(() => bulkWrite(db, () => {
    ensureResourceClasses(db, [...newClasses].sort());
    ensureTraits(db, [...newTraits]);
    const classIds = new Map(all<{ id: number; name: string }>(db, 'SELECT id, name FROM resource_classes').map((r) => [r.name, r.id]));
    const traitIds = new Map(all<{ id: number; name: string }>(db, 'SELECT id, name FROM traits').map((r) => [r.name, r.id]));
    const ids = new Map<string, { id: number; rootId: number }>(existingProviders);
    for (const uuid of ordered) {
      const p = byUuid.get(uuid)!;
      const parent = p.parent ? ids.get(p.parent)! : null;
      const id = Number(run(db, 'INSERT INTO resource_providers (uuid, name, parent_id, root_id) VALUES (?, ?, ?, ?)', uuid, p.name, parent?.id ?? null, parent?.rootId ?? null).lastInsertRowid);
      if (!parent) run(db, 'UPDATE resource_providers SET root_id = id WHERE id = ?', id);
      if (p.generation) run(db, 'UPDATE resource_providers SET generation = ? WHERE id = ?', p.generation, id);
      ids.set(uuid, { id, rootId: parent?.rootId ?? id });
    }
    for (const [uuid, records] of inventoryOf) {
      for (const [rc, fields] of records) upsertInventory(db, ids.get(uuid)!.id, classIds.get(rc)!, fields);
    }
    for (const [raw, list] of Object.entries(traits)) {
      for (const name of new Set(list)) run(db, 'INSERT INTO provider_traits (resource_provider_id, trait_id) VALUES (?, ?)', ids.get(canonicalUuid(raw)!)!.id, traitIds.get(name));
    }
    const aggregateIds = new Map<string, number>();
    for (const [raw, list] of Object.entries(aggregates)) {
      for (const agg of new Set(list.map((a) => canonicalUuid(a)!))) {
        let aggId = aggregateIds.get(agg);
        if (aggId === undefined) {
          run(db, 'INSERT OR IGNORE INTO aggregates (uuid) VALUES (?)', agg);
          aggId = get<{ id: number }>(db, 'SELECT id FROM aggregates WHERE uuid = ?', agg)!.id;
          aggregateIds.set(agg, aggId);
        }
        run(db, 'INSERT INTO provider_aggregates (resource_provider_id, aggregate_id) VALUES (?, ?)', ids.get(canonicalUuid(raw)!)!.id, aggId);
      }
    }
    let consumerCount = 0;
    for (const [rawConsumer, byProvider] of Object.entries(allocations)) {
      const uuid = canonicalUuid(rawConsumer)!;
      const meta = consumers[rawConsumer] ?? consumers[uuid] ?? {};
      const consumerId = Number(
        run(
          db,
          'INSERT INTO consumers (uuid, project_id, user_id, consumer_type, generation) VALUES (?, ?, ?, ?, ?)',
          uuid,
          meta.project_id ?? DEFAULT_PROJECT_ID,
          meta.user_id ?? DEFAULT_USER_ID,
          meta.consumer_type === undefined ? DEFAULT_CONSUMER_TYPE : meta.consumer_type,
          meta.generation ?? 1,
        ).lastInsertRowid,
      );
      consumerCount++;
      for (const [rawProvider, amounts] of Object.entries(byProvider)) {
        const providerId = ids.get(canonicalUuid(rawProvider)!)!.id;
        for (const [rc, amount] of Object.entries(amounts)) {
          run(db, 'INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used) VALUES (?, ?, ?, ?)', providerId, consumerId, classIds.get(rc), amount);
        }
      }
    }
    // Flavors, images and nodes go through their own modules' rules; what they refuse is listed
    // with the others, and the transaction then writes nothing.
    const late: Issue[] = [];
    const attempt = (path: string, write: () => unknown) => {
      try {
        write();
      } catch (error) {
        if (error instanceof InvalidInput) late.push(...error.issues.map((i) => ({ path: `${path}.${i.path}`, message: i.message })));
        else if (error instanceof DomainError) late.push({ path, message: error.message });
        else throw error;
      }
    };
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
    images.forEach((image, i) => attempt(`images.${i}`, () => createImage(db, { uuid: canonicalUuid(image.uuid), name: image.name, properties: Object.entries(image.properties ?? {}).map(([key, value]) => ({ key, value })) })));
    nodes.forEach((node, i) => {
      const uuid = canonicalUuid(node.uuid)!;
      const restored: RestoredNode = {
        uuid,
        name: node.name ?? null,
        resourceClass: node.resource_class,
        provisionState: node.provision_state,
        instanceUuid: node.instance_uuid == null ? null : canonicalUuid(node.instance_uuid),
        instanceTraits: node.instance_traits ?? [],
        traits: node.traits ?? [],
      };
      attempt(`baremetal_nodes.${i}`, () => restoreNode(db, ids.get(uuid)!.id, restored));
    });
    restoreConfigRecords(db, new Map([...byUuid.keys()].map((uuid) => [uuid, ids.get(uuid)!.id])), {
      inventories: Object.fromEntries(Object.entries(config.inventories).map(([raw, v]) => [canonicalUuid(raw)!, v])),
      traits: Object.fromEntries(Object.entries(config.traits).map(([raw, v]) => [canonicalUuid(raw)!, v])),
    });
    if (late.length) throw new SnapshotRejected(late);
    return { providers: ordered.length, consumers: consumerCount, resourceClasses: newClasses.size, traits: newTraits.size, flavors: flavors.length, images: images.length, baremetalNodes: nodes.length };
  }));
}

/** The whole database as a snapshot; importing it into an empty database gives back the same data. */
export function exportSnapshot(db: Db): Required<Omit<Snapshot, 'consumers'>> & { format: string; consumers: NonNullable<Snapshot['consumers']> } {
  const providers = all<{ uuid: string; name: string; parent: string | null; generation: number }>(
    db,
    'SELECT rp.uuid, rp.name, p.uuid AS parent, rp.generation FROM resource_providers rp LEFT JOIN resource_providers p ON p.id = rp.parent_id ORDER BY rp.id',
  );
  const inventories: NonNullable<Snapshot['inventories']> = {};
  for (const r of all<any>(
    db,
    `SELECT rp.uuid, rc.name AS rc, i.total, i.reserved, i.min_unit, i.max_unit, i.step_size, i.allocation_ratio
     FROM inventories i JOIN resource_providers rp ON rp.id = i.resource_provider_id JOIN resource_classes rc ON rc.id = i.resource_class_id ORDER BY rp.id, rc.id`,
  )) {
    const { uuid, rc, ...fields } = r;
    (inventories[uuid] ??= {})[rc] = fields;
  }
  const traits: Record<string, string[]> = {};
  for (const r of all<{ uuid: string; name: string }>(db, 'SELECT rp.uuid, t.name FROM provider_traits pt JOIN resource_providers rp ON rp.id = pt.resource_provider_id JOIN traits t ON t.id = pt.trait_id ORDER BY rp.id, t.name')) {
    (traits[r.uuid] ??= []).push(r.name);
  }
  const aggregates: Record<string, string[]> = {};
  for (const r of all<{ uuid: string; agg: string }>(db, 'SELECT rp.uuid, a.uuid AS agg FROM provider_aggregates pa JOIN resource_providers rp ON rp.id = pa.resource_provider_id JOIN aggregates a ON a.id = pa.aggregate_id ORDER BY rp.id, a.uuid')) {
    (aggregates[r.uuid] ??= []).push(r.agg);
  }
  const allocations: NonNullable<Snapshot['allocations']> = {};
  for (const r of all<{ consumer: string; provider: string; rc: string; used: number }>(
    db,
    `SELECT c.uuid AS consumer, rp.uuid AS provider, rc.name AS rc, a.used FROM allocations a JOIN consumers c ON c.id = a.consumer_id
     JOIN resource_providers rp ON rp.id = a.resource_provider_id JOIN resource_classes rc ON rc.id = a.resource_class_id ORDER BY c.id, rp.id, rc.id`,
  )) {
    ((allocations[r.consumer] ??= {})[r.provider] ??= {})[r.rc] = r.used;
  }
  const consumers: NonNullable<Snapshot['consumers']> = {};
  for (const c of all<{ uuid: string; project_id: string; user_id: string; consumer_type: string | null; generation: number }>(db, 'SELECT uuid, project_id, user_id, consumer_type, generation FROM consumers ORDER BY id')) {
    consumers[c.uuid] = { project_id: c.project_id, user_id: c.user_id, consumer_type: c.consumer_type, generation: c.generation };
  }
  const flavorRows = all<{ id: number; name: string; vcpus: number; memory_mb: number; root_gb: number; ephemeral_gb: number; swap_mb: number; is_public: number }>(
    db,
    'SELECT id, name, vcpus, memory_mb, root_gb, ephemeral_gb, swap_mb, is_public FROM flavors ORDER BY id',
  );
  const specs = new Map<number, Record<string, string>>();
  for (const r of extraSpecsOfFlavors(db, flavorRows.map((f) => f.id))) (specs.get(r.flavorId) ?? specs.set(r.flavorId, {}).get(r.flavorId)!)[r.key] = r.value;
  const flavors = flavorRows.map(({ id, is_public, ...f }) => ({ ...f, is_public: is_public === 1, extra_specs: specs.get(id) ?? {} }));
  const imageRows = all<{ id: number; uuid: string; name: string }>(db, 'SELECT id, uuid, name FROM images ORDER BY id');
  const properties = new Map<number, Record<string, string>>();
  for (const r of propertiesOfImages(db, imageRows.map((i) => i.id))) (properties.get(r.imageId) ?? properties.set(r.imageId, {}).get(r.imageId)!)[r.key] = r.value;
  const images = imageRows.map(({ id, ...image }) => ({ ...image, properties: properties.get(id) ?? {} }));
  const baremetalNodes = nodesForSnapshot(db).map((n) => ({
    uuid: n.uuid,
    name: n.name,
    resource_class: n.resourceClass,
    provision_state: n.provisionState,
    instance_uuid: n.instanceUuid,
    instance_traits: n.instanceTraits,
    traits: n.traits,
  }));
  return {
    format: 'placement-oracle-scenario/1',
    providers,
    inventories,
    traits,
    aggregates,
    allocations,
    consumers,
    resource_classes: all<{ name: string }>(db, 'SELECT name FROM resource_classes WHERE standard = 0 ORDER BY id').map((r) => r.name),
    custom_traits: all<{ name: string }>(db, 'SELECT name FROM traits WHERE standard = 0 ORDER BY name').map((r) => r.name),
    flavors,
    images,
    baremetal_nodes: baremetalNodes,
    provider_config: configRecordsForSnapshot(db),
  };
}
