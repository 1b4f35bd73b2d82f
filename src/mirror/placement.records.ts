// What the mirror takes from Placement's answers, record by record, before anything is stored or
// used in a request: each record must be valid for what reads it (Placement's own schemas, and
// what the GraphQL API can answer). A bad record is skipped with the rule it breaks; a bad provider
// that others hang from would leave them without a parent, so the refresh is refused instead.
import { MAX_INT } from '../rules/capacity.js';
import { isConsumerType, isPlacementName, NO_CONSUMER_TYPE } from '../rules/names.js';
import { inventoryIssues, type InventoryFields } from '../modules/inventories/inventories.service.js';
import { MAX_PROVIDER_NAME_LENGTH } from '../modules/providers/providers.service.js';
import { MirrorRefused } from '../upstream/failure.js';
import { UnexpectedAnswer } from '../upstream/placement.client.js';
import { isCount, isObject, isUuid, NAME_RULE, shown, Skipped, textProblem, UUID_RULE } from './records.js';

export { Skipped, type SkippedRecord } from './records.js';

export interface UpstreamProvider {
  uuid: string;
  name: string;
  generation: number;
  parent: string | null;
  root: string;
}

export interface UpstreamInventory {
  total: number;
  reserved: number;
  min_unit: number;
  max_unit: number;
  step_size: number;
  allocation_ratio: number;
}

/** Inventories, traits and aggregates of one provider. */
export interface ProviderDetail {
  inventories: Record<string, UpstreamInventory>;
  traits: string[];
  aggregates: string[];
}

export interface ConsumerMeta {
  project: string;
  user: string;
  /** null: no type (Placement shows such a consumer as `unknown` from 1.38). */
  type: string | null;
  generation: number;
}

/** Why a provider name cannot be mirrored, or null: Placement's schema (1 to 200 characters, counted as Python counts them). */
const nameProblem = (name: unknown) => textProblem('name', name, 1, MAX_PROVIDER_NAME_LENGTH);

/** Why an external id (project, user) cannot be mirrored, or null: Placement's 1 to 255 characters. */
const idProblem = (what: string, id: unknown) => textProblem(what, id, 1, 255);

interface Candidate extends UpstreamProvider {
  problem: string | null;
  record: string;
}

/** Where providers already in the mirror hang (partial reads: a parent may be there rather than in the read). */
export type MirrorTree = ReadonlyMap<string, { name: string; parent: string | null; root: string | null }>;

/**
 * The providers of a listing (or of a read back) that can be mirrored. Each needs a canonical uuid,
 * a name, a generation, a parent among the providers accepted (or, for a partial read, in the
 * mirror) and the root of its parent's tree; uuids and names are unique. Throws MirrorRefused when
 * a skipped provider has children in the read: they would be left without a parent.
 */
export function acceptProviders(entries: unknown[], skipped: Skipped, mirror: MirrorTree | null = null): UpstreamProvider[] {
  const candidates: Candidate[] = [];
  entries.forEach((e, i) => {
    if (!isObject(e)) return skipped.add('provider', `entry ${i + 1} of the listing`, 'it is not an object');
    const uuid = e.uuid;
    const parent = e.parent_provider_uuid ?? null;
    const root = e.root_provider_uuid ?? uuid;
    const problem = !isUuid(uuid)
      ? `its uuid is not ${UUID_RULE}`
      : (nameProblem(e.name) ??
        (!isCount(e.generation, 0)
          ? `its generation is not a whole number from 0 to ${MAX_INT}`
          : parent !== null && !isUuid(parent)
            ? `its parent_provider_uuid is not ${UUID_RULE}`
            : !isUuid(root)
              ? `its root_provider_uuid is not ${UUID_RULE}`
              : null));
    const label = isUuid(uuid) ? `provider ${uuid}` : `provider ${shown(uuid)}`;
    const record = problem?.startsWith('its name') ? `${label} named ${shown(e.name)}` : problem?.startsWith('its generation') ? `${label} with generation ${shown(e.generation)}` : label;
    candidates.push({ uuid: uuid as string, name: e.name as string, generation: e.generation as number, parent: parent as string | null, root: root as string, problem, record });
  });

  // Uuids and names are unique: the first listed (Placement lists the oldest first) is kept.
  const uuids = new Set<string>();
  const names = new Set<string>();
  for (const c of candidates) {
    if (c.problem) continue;
    if (uuids.has(c.uuid)) c.problem = 'it is listed more than once';
    else if (names.has(c.name)) {
      c.problem = "its name is also another provider's (names are unique)";
      c.record += ` named ${shown(c.name)}`;
    }
    uuids.add(c.uuid);
    names.add(c.name);
  }
  // A partial read: the mirror's other providers keep their names.
  for (const c of candidates) {
    const other = c.problem ? undefined : [...(mirror ?? [])].find(([u, m]) => m.name === c.name && u !== c.uuid && !uuids.has(u));
    if (other) {
      c.problem = 'its name is also that of another provider in the mirror (names are unique)';
      c.record += ` named ${shown(c.name)} like provider ${other[0]}`;
    }
  }

  // Parents and roots: a parent must be in the read (or, for a partial read, the mirror); the
  // parents may not go round in a cycle; the root is where the parents end.
  const read = new Map(candidates.filter((c) => isUuid(c.uuid)).map((c) => [c.uuid, c]));
  const parentOf = (uuid: string) => (read.has(uuid) ? read.get(uuid)!.parent : (mirror?.get(uuid)?.parent ?? null));
  for (const c of candidates) {
    if (!c.problem && c.parent && !read.has(c.parent) && !mirror?.has(c.parent)) {
      c.problem = 'its parent is not among the providers read';
      c.record += ` with parent ${c.parent}`;
    }
  }
  for (const c of candidates) {
    if (c.problem) continue;
    const seen = new Set<string>([c.uuid]);
    for (let up = c.parent; up; up = parentOf(up)) {
      if (up === c.uuid) {
        c.problem = 'its parents form a cycle';
        break;
      }
      if (seen.has(up)) break; // a cycle above it: its members are marked, and it hangs from them
      seen.add(up);
    }
  }
  for (const c of candidates) {
    if (c.problem) continue;
    let top = c.uuid;
    let clean = true;
    const seen = new Set<string>([c.uuid]);
    for (let up = c.parent; up; up = parentOf(up)) {
      if (read.get(up)?.problem || seen.has(up)) clean = false;
      if (!clean) break;
      seen.add(up);
      top = up;
    }
    if (clean && top !== c.root) {
      c.problem = "its root_provider_uuid is not the root of its parent's tree";
      c.record += ` with root ${c.root} (the tree's is ${top})`;
    }
  }

  const hangsFromSkipped = (c: Candidate) => !c.problem && !!c.parent && !!read.get(c.parent)?.problem;
  if (mirror) {
    // A partial read keeps the mirror's rows of what it skips: their children keep theirs too.
    for (let more = true; more; ) {
      more = false;
      for (const c of candidates) if (hangsFromSkipped(c)) (c.problem = 'its parent is skipped'), (more = true);
    }
  }
  const orphan = candidates.find(hangsFromSkipped);
  if (orphan) {
    const b = read.get(orphan.parent!)!;
    const children = candidates.filter(hangsFromSkipped).filter((c) => c.parent === b.uuid).length;
    throw new MirrorRefused(
      `The refresh was refused, and the mirror keeps its previous state: Placement's ${b.record} cannot be mirrored (${b.problem}), ` +
        `and ${children} provider${children === 1 ? ' hangs' : 's hang'} from it, which would be left without a parent. Correct it in Placement.`,
    );
  }
  for (const b of candidates) if (b.problem) skipped.add('provider', b.record, b.problem, null);
  return candidates.filter((c) => !c.problem).map(({ uuid, name, generation, parent, root }) => ({ uuid, name, generation, parent, root }));
}

/** The trait or resource class names of a listing that can be mirrored. */
export function acceptNames(names: unknown[], kind: 'trait' | 'resource class', skipped: Skipped): string[] {
  const out: string[] = [];
  for (const name of names) {
    if (typeof name === 'string' && isPlacementName(name)) out.push(name);
    else skipped.add(kind, `${kind} ${shown(name)}`, `its name is not ${NAME_RULE}`);
  }
  return [...new Set(out)];
}


const INVENTORY_FIELDS: [keyof InventoryFields, keyof UpstreamInventory][] = [
  ['total', 'total'],
  ['reserved', 'reserved'],
  ['minUnit', 'min_unit'],
  ['maxUnit', 'max_unit'],
  ['stepSize', 'step_size'],
  ['allocationRatio', 'allocation_ratio'],
];

/** Why one inventory cannot be mirrored, or null: Placement's schema and a capacity the API can answer (inventoryIssues holds both). */
function inventoryProblem(raw: unknown): string | null {
  if (!isObject(raw)) return 'it is not an object';
  const fields = {} as InventoryFields;
  for (const [mine, theirs] of INVENTORY_FIELDS) {
    const value = raw[theirs];
    if (typeof value !== 'number' || !Number.isFinite(value)) return `its ${theirs} is missing or not a number`;
    fields[mine] = value;
  }
  const issues = inventoryIssues(fields, '');
  if (issues.length) {
    const field = (path: string) => INVENTORY_FIELDS.find(([mine]) => path === `.${mine}`)?.[1] ?? path;
    return issues.map((i) => `its ${field(i.path)} ${i.message.replace(/ \(got [^)]*\)$/, '')}`).join('; ');
  }
  return null;
}

/** The inventories, traits and aggregates of one provider that can be mirrored. */
export function acceptDetail(uuid: string, inventories: unknown, traits: unknown, aggregates: unknown, skipped: Skipped): ProviderDetail {
  if (!isObject(inventories)) throw new UnexpectedAnswer('Placement', 'GET', `/resource_providers/${uuid}/inventories`, 'has no inventories object');
  if (!Array.isArray(traits)) throw new UnexpectedAnswer('Placement', 'GET', `/resource_providers/${uuid}/traits`, 'has no traits list');
  if (!Array.isArray(aggregates)) throw new UnexpectedAnswer('Placement', 'GET', `/resource_providers/${uuid}/aggregates`, 'has no aggregates list');
  const detail: ProviderDetail = { inventories: {}, traits: [], aggregates: [] };
  for (const [rc, inv] of Object.entries(inventories)) {
    const problem = isPlacementName(rc) ? inventoryProblem(inv) : `its resource class is not ${NAME_RULE}`;
    if (problem) {
      const values = isObject(inv) ? ` (${INVENTORY_FIELDS.map(([, f]) => `${f} ${shown(inv[f])}`).join(', ')})` : '';
      skipped.add('inventory', `inventory ${shown(rc)} of provider ${uuid}${isPlacementName(rc) ? values : ''}`, problem, uuid);
    } else detail.inventories[rc] = inv as UpstreamInventory;
  }
  for (const t of new Set(traits)) {
    if (typeof t === 'string' && isPlacementName(t)) detail.traits.push(t);
    else skipped.add('trait', `trait ${shown(t)} of provider ${uuid}`, `its name is not ${NAME_RULE}`, uuid);
  }
  for (const a of new Set(aggregates)) {
    if (isUuid(a)) detail.aggregates.push(a);
    else skipped.add('aggregate', `aggregate ${shown(a)} of provider ${uuid}`, `it is not ${UUID_RULE}`, uuid);
  }
  return detail;
}

/** One consumer's resources on one provider: classes and amounts (1 to 2147483647) that can be mirrored. */
export function acceptResources(consumer: string, provider: string, resources: unknown, skipped: Skipped): Record<string, number> {
  const out: Record<string, number> = {};
  if (!isObject(resources)) {
    skipped.add('allocation', `allocation of consumer ${consumer} on provider ${provider}`, 'its resources are not an object', provider);
    return out;
  }
  for (const [rc, amount] of Object.entries(resources)) {
    if (!isPlacementName(rc)) skipped.add('allocation', `${shown(rc)} of consumer ${consumer} on provider ${provider}`, `its resource class is not ${NAME_RULE}`, provider);
    else if (!isCount(amount, 1)) skipped.add('allocation', `${rc} ${shown(amount)} of consumer ${consumer} on provider ${provider}`, `its amount is not a whole number from 1 to ${MAX_INT}`, provider);
    else out[rc] = amount;
  }
  return out;
}

/**
 * The allocations of a provider's listing (GET /resource_providers/{uuid}/allocations) that can be
 * mirrored: consumer -> resources and consumer generation. A consumer whose uuid is not canonical is skipped whole.
 */
export function acceptHeld(provider: string, allocations: unknown, skipped: Skipped): Map<string, { resources: Record<string, number>; generation: number }> {
  if (!isObject(allocations)) throw new UnexpectedAnswer('Placement', 'GET', `/resource_providers/${provider}/allocations`, 'has no allocations object');
  const out = new Map<string, { resources: Record<string, number>; generation: number }>();
  for (const [consumer, a] of Object.entries(allocations)) {
    if (!isUuid(consumer)) {
      skipped.add('consumer', `consumer ${shown(consumer)} on provider ${provider}`, `its uuid is not ${UUID_RULE}`, provider);
      continue;
    }
    const generation = isObject(a) ? (a.consumer_generation ?? 0) : null;
    if (!isCount(generation, 0)) {
      skipped.add('consumer', `consumer ${consumer} on provider ${provider}`, `its consumer_generation is not a whole number from 0 to ${MAX_INT}`, provider);
      continue;
    }
    out.set(consumer, { resources: acceptResources(consumer, provider, (a as Record<string, unknown>).resources, skipped), generation });
  }
  return out;
}

/**
 * A consumer as GET /allocations/{uuid} answers it: its project, user, type and generation, and its
 * resources by provider; null when its project, user, type or generation cannot be mirrored (then
 * skipped whole, for `provider`). An answer without a project is a consumer with no allocations.
 */
export function acceptConsumer(uuid: string, answer: unknown, skipped: Skipped, provider: string | null): { meta: ConsumerMeta | null; allocations: Map<string, Record<string, number>> } | null {
  if (!isObject(answer) || !isObject(answer.allocations ?? {})) throw new UnexpectedAnswer('Placement', 'GET', `/allocations/${uuid}`, 'has no allocations object');
  const held = (answer.allocations ?? {}) as Record<string, unknown>;
  if (answer.project_id == null || Object.keys(held).length === 0) return { meta: null, allocations: new Map() };
  // Before 1.38, and for a consumer written without one, there is no type: Placement shows it as `unknown`.
  const type = answer.consumer_type == null || answer.consumer_type === NO_CONSUMER_TYPE ? null : answer.consumer_type;
  const generation = answer.consumer_generation ?? 0;
  const problem =
    idProblem('project_id', answer.project_id) ??
    idProblem('user_id', answer.user_id) ??
    (type !== null && (typeof type !== 'string' || !isConsumerType(type)) ? `its consumer_type is not ${NAME_RULE}` : !isCount(generation, 0) ? `its consumer_generation is not a whole number from 0 to ${MAX_INT}` : null);
  if (problem) {
    skipped.add('consumer', `consumer ${uuid}`, problem, provider);
    return null;
  }
  const allocations = new Map<string, Record<string, number>>();
  for (const [rp, a] of Object.entries(held)) {
    if (!isUuid(rp)) continue; // not a provider the mirror has
    allocations.set(rp, acceptResources(uuid, rp, isObject(a) ? a.resources : undefined, skipped));
  }
  return { meta: { project: answer.project_id as string, user: answer.user_id as string, type: type as string | null, generation: generation as number }, allocations };
}

/** Drops the allocations whose provider has no mirrored inventory of their class (it was skipped): Placement never has such. */
export function withInventory(provider: string, consumer: string, resources: Record<string, number>, classes: ReadonlySet<string>, skipped: Skipped): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [rc, amount] of Object.entries(resources)) {
    if (classes.has(rc)) out[rc] = amount;
    else skipped.add('allocation', `${rc} ${amount} of consumer ${consumer} on provider ${provider}`, 'the provider has no inventory of that class in the mirror', provider);
  }
  return out;
}
