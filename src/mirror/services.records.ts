// What the mirror takes from Nova's, Glance's and Ironic's answers, record by record: each flavor,
// server, image and node must be valid for what reads it (the services' own limits, and what the
// GraphQL API can answer) before it is stored; one that is not is skipped whole, with the rule it
// breaks. Of records that must be unique (flavor and node names, node instances), the first listed is kept.
import { isPlacementName } from '../rules/names.js';
import { isCount, isObject, isUuid, NAME_RULE, shown, textProblem, UUID_RULE, type Skipped } from './records.js';

const MAX_INT = 2147483647;
const COUNT = (min: number) => `a whole number from ${min} to ${MAX_INT}`;

/** A flavor as Nova lists it: why it cannot be mirrored, or null. `specs`: its extra specs (embedded, or asked apart). */
export function flavorProblem(f: Record<string, unknown>, specs: unknown): string | null {
  const id = typeof f.id === 'number' ? String(f.id) : f.id;
  const swap = f.swap === '' || f.swap == null ? 0 : f.swap;
  return (
    textProblem('id', id, 1, 255) ??
    textProblem('name', f.name, 1, 255) ??
    (!isCount(f.vcpus, 1) ? `its vcpus is not ${COUNT(1)}` : null) ??
    (!isCount(f.ram, 1) ? `its ram is not ${COUNT(1)}` : null) ??
    (!isCount(f.disk ?? 0, 0) ? `its disk is not ${COUNT(0)}` : null) ??
    (!isCount(f['OS-FLV-EXT-DATA:ephemeral'] ?? 0, 0) ? `its ephemeral disk is not ${COUNT(0)}` : null) ??
    (!isCount(swap, 0) ? `its swap is not ${COUNT(0)}` : null) ??
    (f['os-flavor-access:is_public'] !== undefined && typeof f['os-flavor-access:is_public'] !== 'boolean' ? 'its is_public is not true or false' : null) ??
    (!isObject(specs ?? {})
      ? 'its extra specs are not an object'
      : Object.entries((specs ?? {}) as Record<string, unknown>)
          .map(([key, value]) => textProblem('extra spec key', key, 1, 255) ?? textProblem(`extra spec ${key}`, typeof value === 'number' || typeof value === 'boolean' ? String(value) : value, 0, 255))
          .find(Boolean) ?? null)
  );
}

export const flavorRecord = (f: Record<string, unknown>) => `flavor ${shown(f.id)} named ${shown(f.name)}`;

/** A server as Nova lists it: why it cannot be mirrored, or null. */
export function serverProblem(s: Record<string, unknown>): string | null {
  const flavor = isObject(s.flavor) ? (s.flavor.original_name ?? s.flavor.id ?? null) : null;
  return (
    (!isUuid(s.id) ? `its id is not ${UUID_RULE}` : null) ??
    textProblem('name', s.name ?? '', 0, 255) ??
    textProblem('status', s.status ?? 'UNKNOWN', 1, 255) ??
    textProblem('project', s.tenant_id ?? s.project_id, 1, 255) ??
    (s['OS-EXT-SRV-ATTR:host'] == null ? null : textProblem('host', s['OS-EXT-SRV-ATTR:host'], 1, 255)) ??
    (flavor === null ? null : textProblem('flavor', typeof flavor === 'number' ? String(flavor) : flavor, 1, 255))
  );
}

/** An image as Glance lists it: why it cannot be mirrored, or null (custom properties are text of at most 65535 characters). */
export function imageProblem(image: Record<string, unknown>, properties: [string, unknown][]): string | null {
  return (
    (!isUuid(image.id) ? `its id is not ${UUID_RULE}` : null) ??
    (image.name == null ? null : textProblem('name', image.name, 0, 255)) ??
    (image.updated_at == null ? null : textProblem('updated_at', image.updated_at, 1, 64)) ??
    properties.map(([key, value]) => textProblem('property name', key, 1, 255) ?? textProblem(`property ${key}`, value, 0, 65535)).find(Boolean) ??
    null
  );
}

/** A node as Ironic lists it: why it cannot be mirrored, or null. */
export function nodeProblem(n: Record<string, unknown>): string | null {
  return (
    (!isUuid(n.uuid) ? `its uuid is not ${UUID_RULE}` : null) ??
    (n.name == null ? null : textProblem('name', n.name, 1, 255)) ??
    textProblem('provision_state', n.provision_state ?? 'enroll', 1, 255) ??
    (n.resource_class == null ? null : textProblem('resource_class', n.resource_class, 1, 80)) ??
    (n.traits != null && (!Array.isArray(n.traits) || !n.traits.every((t) => typeof t === 'string' && isPlacementName(t))) ? `its traits are not all ${NAME_RULE}` : null) ??
    (n.instance_uuid == null || isUuid(n.instance_uuid) ? null : `its instance_uuid is not ${UUID_RULE}`)
  );
}

/** The records that are not skipped, judged in order; `key`s that must be unique keep their first holder. */
export function acceptEach(items: unknown[], kind: string, skipped: Skipped, judge: (item: Record<string, unknown>) => string | null, record: (item: Record<string, unknown>) => string, unique: ((item: Record<string, unknown>) => unknown)[] = []): Record<string, unknown>[] {
  const seen = unique.map(() => new Set<unknown>());
  const out: Record<string, unknown>[] = [];
  items.forEach((item, i) => {
    if (!isObject(item)) return skipped.add(kind, `entry ${i + 1} of the listing`, 'it is not an object');
    let problem = judge(item);
    if (!problem) {
      const taken = unique.findIndex((key, k) => key(item) != null && seen[k].has(key(item)));
      if (taken >= 0) problem = `it has the same ${['name', 'instance'][taken] ?? 'key'} as another ${kind} listed before it`;
    }
    if (problem) return skipped.add(kind, record(item), problem);
    unique.forEach((key, k) => seen[k].add(key(item)));
    out.push(item);
  });
  return out;
}
