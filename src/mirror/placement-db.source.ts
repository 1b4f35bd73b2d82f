// Reading Placement from its own database, with a SELECT-only account: one consistent snapshot per
// refresh and a fixed number of statements, whatever the size of the cloud or its number of projects.
// What changed is found exactly, without the API's blind spots: every provider's generation, and every
// consumer's generation, project, user and type (the set of consumer rows with allocations), against
// what the mirror knows. A deletion of allocations, which moves no provider generation, shows as a
// consumer gone; a move as a consumer generation moved. Only the rows of what changed are read:
// the inventories, traits and aggregates of providers whose generation moved, and the allocations of
// every provider a changed or gone consumer is or was on.
//
// The rows are put in the shapes of Placement's API answers and judged by the same checks
// (placement.records.ts), so a refresh from the database gives the same PlacementState as one from
// the API. Placement's tables are read as its migrations create them (8.0.0 and later); another
// schema version is refused, naming it.
import { KNOWN_SCHEMA_VERSIONS, PlacementDbClient, PlacementDbError, type PlacementDbTarget, type Row, type Snapshot } from '../upstream/placement-db.client.js';
import { acceptConsumer, acceptDetail, acceptHeld, acceptNames, acceptProviders, Skipped, withInventory, type ConsumerMeta, type ProviderDetail } from './placement.records.js';
import { NO_CONSUMER_TYPE } from '../rules/names.js';
import type { KnownState, PlacementSource, PlacementState, ReadProgress } from './source.js';

/** Above this share of the providers, their rows are read whole rather than named one by one. */
const WHOLE_READ_SHARE = 0.5;

export function databaseSource(target: PlacementDbTarget, timeoutMs?: number): PlacementSource & { client: PlacementDbClient } {
  const client = new PlacementDbClient(target, timeoutMs);
  return {
    client,
    identity: target.identity,
    describe: target.shown,
    read: (known, onProgress) => client.snapshot((snapshot) => readDatabase(snapshot, target, known, onProgress)),
    needsKnownAllocations: true,
    statementCount: () => client.statements,
    close: () => client.close(),
  };
}

/** `IN (...)` of ids: MySQL refuses an empty list, and no id is NULL. */
const ids = (values: Iterable<number | string>) => {
  const list = [...values];
  return list.length ? list : [null];
};

async function readDatabase(db: Snapshot, target: PlacementDbTarget, known: KnownState, onProgress?: (p: ReadProgress) => void): Promise<PlacementState> {
  // 1. The schema version and every trait and class name (in one statement: a refresh counts them).
  let names: Row[];
  try {
    names = await db.query(
      `SELECT 'schema' AS kind, version_num AS name FROM alembic_version
       UNION ALL SELECT 'trait', name FROM traits UNION ALL SELECT 'class', name FROM resource_classes`,
    );
  } catch (error) {
    // Tables this schema does not have: its version says why, when it has one.
    const version = await db.query('SELECT version_num FROM alembic_version').catch(() => []);
    if (version.length) refuseSchema(target, version.map((r) => String(r.version_num)));
    throw error;
  }
  refuseSchema(target, names.filter((r) => r.kind === 'schema').map((r) => String(r.name)));
  const skipped = new Skipped();
  const traits = acceptNames(names.filter((r) => r.kind === 'trait').map((r) => r.name), 'trait', skipped);
  const resourceClasses = acceptNames(names.filter((r) => r.kind === 'class').map((r) => r.name), 'resource class', skipped);

  // 2. Every provider, as the API lists them (oldest first).
  const providerRows = await db.query(
    `SELECT rp.id, rp.uuid, rp.name, rp.generation, p.uuid AS parent_provider_uuid, r.uuid AS root_provider_uuid
     FROM resource_providers rp LEFT JOIN resource_providers p ON p.id = rp.parent_provider_id
     LEFT JOIN resource_providers r ON r.id = rp.root_provider_id ORDER BY rp.id`,
  );
  const providers = acceptProviders(
    providerRows.map((r) => ({ uuid: r.uuid, name: r.name, generation: r.generation, parent_provider_uuid: r.parent_provider_uuid, root_provider_uuid: r.root_provider_uuid })),
    skipped,
  );
  const listed = new Set(providers.map((p) => p.uuid));
  const idOf = new Map<string, number>(providerRows.map((r) => [r.uuid, r.id]));
  const uuidOf = new Map<number, string>(providerRows.map((r) => [r.id, r.uuid]));

  // 3. Every consumer that has allocations: its generation, project, user and type.
  const consumerRows = await db.query(
    `SELECT c.uuid, c.generation, p.external_id AS project_id, u.external_id AS user_id, ct.name AS consumer_type
     FROM consumers c JOIN projects p ON p.id = c.project_id JOIN users u ON u.id = c.user_id
     LEFT JOIN consumer_types ct ON ct.id = c.consumer_type_id
     WHERE EXISTS (SELECT 1 FROM allocations a WHERE a.consumer_id = c.uuid)`,
  );
  const rowOf = new Map<string, Row>(consumerRows.map((r) => [r.uuid, r]));
  // A consumer without a type (written before 1.38) has none in the mirror either; the API shows it as `unknown`.
  const changedConsumers = consumerRows.filter((r) => {
    const mine = known.consumers.get(r.uuid);
    return !mine || mine.generation !== r.generation || mine.project !== r.project_id || mine.user !== r.user_id || mine.type !== (r.consumer_type ?? null);
  });
  const goneConsumers = [...known.consumers.keys()].filter((c) => !rowOf.has(c));

  // Providers whose generation moved (or new ones): read in detail. Providers whose allocations may have
  // changed: those, and every provider a changed or gone consumer was on (the mirror knows where).
  const changing = providers.filter((p) => known.generations.get(p.uuid) !== p.generation);
  const touched = new Set(changing.map((p) => p.uuid));
  for (const c of [...changedConsumers.map((r) => r.uuid as string), ...goneConsumers]) for (const p of known.allocations.get(c)?.keys() ?? []) touched.add(p);
  const wholeDetails = changing.length > providerRows.length * WHOLE_READ_SHARE;
  const wholeAllocations = touched.size + changedConsumers.length > providerRows.length * WHOLE_READ_SHARE;

  // 4. The inventories, traits and aggregates of the providers that changed.
  const details = new Map<string, ProviderDetail>();
  if (changing.length) {
    const filter = (column: string) => (wholeDetails ? '' : `WHERE ${column} IN (?)`);
    const changingIds = [ids(changing.map((p) => idOf.get(p.uuid)!))];
    const inventoryRows = await db.query(
      `SELECT i.resource_provider_id AS provider, rc.name AS rc, i.total, i.reserved, i.min_unit, i.max_unit, i.step_size, i.allocation_ratio
       FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id ${filter('i.resource_provider_id')}`,
      changingIds,
    );
    const tagRows = await db.query(
      `SELECT 'trait' AS kind, rpt.resource_provider_id AS provider, t.name AS name FROM resource_provider_traits rpt JOIN traits t ON t.id = rpt.trait_id ${filter('rpt.resource_provider_id')}
       UNION ALL SELECT 'aggregate', rpa.resource_provider_id, pa.uuid FROM resource_provider_aggregates rpa JOIN placement_aggregates pa ON pa.id = rpa.aggregate_id ${filter('rpa.resource_provider_id')}`,
      wholeDetails ? [] : [...changingIds, ...changingIds],
    );
    const raw = new Map(changing.map((p) => [p.uuid, { inventories: {} as Record<string, unknown>, traits: [] as unknown[], aggregates: [] as unknown[] }]));
    for (const r of inventoryRows) {
      const { provider, rc, ...fields } = r;
      const d = raw.get(uuidOf.get(provider)!);
      if (d) d.inventories[rc] = fields;
    }
    for (const r of tagRows) {
      const d = raw.get(uuidOf.get(r.provider)!);
      if (d) (r.kind === 'trait' ? d.traits : d.aggregates).push(r.name);
    }
    for (const [uuid, d] of raw) details.set(uuid, acceptDetail(uuid, d.inventories, d.traits, d.aggregates, skipped));
  }

  // 5. The allocations of every provider touched, and of every provider a changed consumer is on now.
  const held = new Map<string, Map<string, Record<string, number>>>();
  if (touched.size || changedConsumers.length) {
    const rows = await db.query(
      `SELECT a.resource_provider_id AS provider, a.consumer_id AS consumer, rc.name AS rc, a.used
       FROM allocations a JOIN resource_classes rc ON rc.id = a.resource_class_id
       ${wholeAllocations ? '' : 'WHERE a.resource_provider_id IN (?) OR a.resource_provider_id IN (SELECT resource_provider_id FROM allocations WHERE consumer_id IN (?))'}`,
      wholeAllocations ? [] : [ids([...touched].map((p) => idOf.get(p)).filter((id) => id !== undefined)), ids(changedConsumers.map((r) => r.uuid))],
    );
    for (const uuid of touched) held.set(uuid, new Map());
    for (const r of rows) {
      const uuid = uuidOf.get(r.provider)!;
      let byConsumer = held.get(uuid);
      if (!byConsumer) held.set(uuid, (byConsumer = new Map()));
      const resources = byConsumer.get(r.consumer) ?? {};
      resources[r.rc] = (resources[r.rc] ?? 0) + Number(r.used);
      byConsumer.set(r.consumer, resources);
    }
  }

  // Each provider's allocations as GET /resource_providers/{uuid}/allocations answers them (consumers
  // without a record are not listed there), judged; then each changed consumer as GET /allocations/{uuid}.
  const judgedHeld = new Map<string, Map<string, { resources: Record<string, number>; generation: number }>>();
  const whereNow = new Map<string, Map<string, Record<string, number>>>();
  for (const [provider, byConsumer] of held) {
    if (!listed.has(provider)) continue;
    const answer = Object.fromEntries([...byConsumer].filter(([c]) => rowOf.has(c)).map(([c, resources]) => [c, { resources, consumer_generation: rowOf.get(c)!.generation }]));
    const accepted = acceptHeld(provider, answer, skipped);
    judgedHeld.set(provider, accepted);
    for (const [c, a] of accepted) {
      if (!whereNow.has(c)) whereNow.set(c, new Map());
      whereNow.get(c)!.set(provider, a.resources);
    }
  }
  const consumers = new Map<string, ConsumerMeta>();
  const refused = new Set<string>();
  for (const r of changedConsumers) {
    const on = whereNow.get(r.uuid) ?? new Map<string, Record<string, number>>();
    const answer = {
      allocations: Object.fromEntries([...on].map(([provider, resources]) => [provider, { resources }])),
      project_id: r.project_id,
      user_id: r.user_id,
      consumer_type: r.consumer_type ?? NO_CONSUMER_TYPE,
      consumer_generation: r.generation,
    };
    const c = acceptConsumer(r.uuid, answer, skipped, [...on.keys()][0] ?? null);
    // Skipped whole, or nothing left on a provider mirrored: not in the mirror.
    if (!c?.meta) refused.add(r.uuid);
    else consumers.set(r.uuid, c.meta);
  }

  const classesOf = (p: string) => (details.has(p) ? new Set(Object.keys(details.get(p)!.inventories)) : (known.inventoryClasses.get(p) ?? new Set<string>()));
  const allocations = new Map<string, Map<string, Record<string, number>>>();
  for (const [provider, accepted] of judgedHeld) {
    const byConsumer = new Map<string, Record<string, number>>();
    for (const [consumer, a] of accepted) {
      if (refused.has(consumer)) continue;
      const kept = withInventory(provider, consumer, a.resources, classesOf(provider), skipped);
      if (Object.keys(kept).length) byConsumer.set(consumer, kept);
    }
    allocations.set(provider, byConsumer);
  }
  // Every consumer with allocations is still there, but those refused, or changed and left with nothing on a mirrored provider.
  const seenConsumers = new Map<string, number>();
  for (const r of consumerRows) {
    if (refused.has(r.uuid)) continue;
    const isChanged = consumers.has(r.uuid) || !known.consumers.has(r.uuid);
    if (isChanged && !consumers.has(r.uuid)) continue;
    seenConsumers.set(r.uuid, r.generation);
  }
  onProgress?.({ done: providers.length, total: providers.length, requests: 0 });
  return {
    providers,
    traits,
    resourceClasses,
    details,
    allocations,
    consumers,
    seenConsumers,
    skipped: skipped.records,
    judged: { details: new Set(details.keys()), allocations: new Set(allocations.keys()) },
  };
}

/** Refuses a schema this mirror does not know: its tables could mean something else. */
function refuseSchema(target: PlacementDbTarget, versions: string[]) {
  if (versions.length === 1 && KNOWN_SCHEMA_VERSIONS.includes(versions[0])) return;
  const found = versions.length ? `schema version ${versions.join(', ')} (alembic_version)` : 'no schema version (alembic_version is empty)';
  throw new PlacementDbError(
    `Placement's database ${target.shown} has ${found}, which this mirror does not know: it reads the schema of Placement 8.0.0 and later (${KNOWN_SCHEMA_VERSIONS.join(', ')}). ` +
      'Mirror this Placement through its API instead (--upstream or --os-cloud without --placement-db), or use a placement-gql that knows this schema.',
  );
}
