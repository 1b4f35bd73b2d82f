// The mirror of Nova, Glance and Ironic: what was read written into the flavors, images, nodes and
// servers tables, only what differs, inside the caller's transaction. What the service no longer
// lists is removed.
import type { Db } from '../db/client.js';
import { all, get, list, run } from '../db/sql.js';
import type { MirroredFlavor, MirroredImage, MirroredNode, MirroredServer } from './services-api.source.js';

export interface ServiceChanges {
  added: number;
  updated: number;
  removed: number;
  /** Ironic: nodes not stored (no provider of the same uuid in Placement, or no resource class). */
  skipped: number;
}

const none = (): ServiceChanges => ({ added: 0, updated: 0, removed: 0, skipped: 0 });
const samePairs = (a: readonly (readonly [string, string])[], b: readonly (readonly [string, string])[]) =>
  a.length === b.length && a.every(([k, v], i) => b[i][0] === k && b[i][1] === v);

export function applyFlavors(db: Db, flavors: readonly MirroredFlavor[]): ServiceChanges {
  const changes = none();
  const local = new Map(
    all<{ id: number; name: string; vcpus: number; memoryMb: number; rootGb: number; ephemeralGb: number; swapMb: number; isPublic: number; novaId: string | null }>(
      db,
      'SELECT id, name, vcpus, memory_mb AS memoryMb, root_gb AS rootGb, ephemeral_gb AS ephemeralGb, swap_mb AS swapMb, is_public AS isPublic, nova_id AS novaId FROM flavors',
    ).map((f) => [f.name, f]),
  );
  const specs = new Map<number, [string, string][]>();
  for (const s of all<{ flavorId: number; key: string; value: string }>(db, 'SELECT flavor_id AS flavorId, key, value FROM flavor_extra_specs ORDER BY rowid')) {
    specs.set(s.flavorId, [...(specs.get(s.flavorId) ?? []), [s.key, s.value]]);
  }
  const wanted = new Set(flavors.map((f) => f.name));
  for (const [name, f] of local) {
    if (wanted.has(name)) continue;
    run(db, 'DELETE FROM flavors WHERE id = ?', f.id);
    changes.removed++;
  }
  for (const f of flavors) {
    const mine = local.get(f.name);
    let id: number;
    if (!mine) {
      id = Number(
        run(db, 'INSERT INTO flavors (name, vcpus, memory_mb, root_gb, ephemeral_gb, swap_mb, is_public, nova_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', f.name, f.vcpus, f.memoryMb, f.rootGb, f.ephemeralGb, f.swapMb, Number(f.isPublic), f.id)
          .lastInsertRowid,
      );
      changes.added++;
    } else {
      id = mine.id;
      const same =
        mine.vcpus === f.vcpus &&
        mine.memoryMb === f.memoryMb &&
        mine.rootGb === f.rootGb &&
        mine.ephemeralGb === f.ephemeralGb &&
        mine.swapMb === f.swapMb &&
        !!mine.isPublic === f.isPublic &&
        mine.novaId === f.id;
      if (!same) {
        run(
          db,
          'UPDATE flavors SET vcpus = ?, memory_mb = ?, root_gb = ?, ephemeral_gb = ?, swap_mb = ?, is_public = ?, nova_id = ? WHERE id = ?',
          f.vcpus, f.memoryMb, f.rootGb, f.ephemeralGb, f.swapMb, Number(f.isPublic), f.id, id,
        );
      }
      if (same && samePairs(specs.get(id) ?? [], f.extraSpecs)) continue;
      changes.updated++;
    }
    if (mine && samePairs(specs.get(id) ?? [], f.extraSpecs)) continue;
    run(db, 'DELETE FROM flavor_extra_specs WHERE flavor_id = ?', id);
    for (const [key, value] of f.extraSpecs) run(db, 'INSERT INTO flavor_extra_specs (flavor_id, key, value) VALUES (?, ?, ?)', id, key, value);
  }
  return changes;
}

/**
 * Servers by uuid. `gone` null: the listing is every server, so the others are removed; else it is
 * a listing of changes, and only the servers in `gone` (deleted, or no longer storable) are removed.
 * A server listed again unchanged is left as it is.
 */
export function applyServers(db: Db, servers: readonly MirroredServer[], gone: readonly string[] | null = null): ServiceChanges {
  const changes = none();
  const local = new Map(
    (gone === null
      ? all<MirroredServer>(db, 'SELECT uuid, name, status, flavor, host, project_id AS projectId FROM servers')
      : all<MirroredServer>(db, 'SELECT uuid, name, status, flavor, host, project_id AS projectId FROM servers WHERE uuid IN (SELECT value FROM json_each(?))', list([...servers.map((s) => s.uuid), ...gone]))
    ).map((s) => [s.uuid, s]),
  );
  const wanted = new Set(servers.map((s) => s.uuid));
  for (const uuid of gone ?? local.keys()) {
    if (wanted.has(uuid) || !local.has(uuid)) continue;
    run(db, 'DELETE FROM servers WHERE uuid = ?', uuid);
    changes.removed++;
  }
  for (const s of servers) {
    const mine = local.get(s.uuid);
    if (mine && mine.name === s.name && mine.status === s.status && mine.flavor === s.flavor && mine.host === s.host && mine.projectId === s.projectId) continue;
    run(
      db,
      `INSERT INTO servers (uuid, name, status, flavor, host, project_id) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (uuid) DO UPDATE SET name = excluded.name, status = excluded.status, flavor = excluded.flavor, host = excluded.host, project_id = excluded.project_id`,
      s.uuid, s.name, s.status, s.flavor, s.host, s.projectId,
    );
    if (mine) changes.updated++;
    else changes.added++;
  }
  return changes;
}

/**
 * Images by uuid. Glance names are neither unique nor required: an image without a name is named by
 * its uuid, and of images sharing a name the first by uuid keeps it, the others are `name (uuid)`.
 * `full`: the listing is every image, so the others are removed.
 */
export function applyImages(db: Db, images: readonly MirroredImage[], full: boolean): ServiceChanges {
  const changes = none();
  const local = new Map(all<{ id: number; uuid: string; name: string }>(db, 'SELECT id, uuid, name FROM images').map((i) => [i.uuid, i]));
  const listed = new Set(images.map((i) => i.uuid));
  if (full) {
    for (const [uuid, i] of local) {
      if (listed.has(uuid)) continue;
      run(db, 'DELETE FROM images WHERE id = ?', i.id);
      local.delete(uuid);
      changes.removed++;
    }
  }
  // Names held by images this listing does not touch.
  const taken = new Map<string, string>();
  for (const i of local.values()) if (!listed.has(i.uuid)) taken.set(i.name, i.uuid);
  const names = new Map<string, string>();
  for (const image of [...images].sort((a, b) => (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0))) {
    const base = image.name ?? image.uuid;
    const name = taken.has(base) ? `${base} (${image.uuid})` : base;
    taken.set(name, image.uuid);
    names.set(image.uuid, name);
  }
  const props = new Map<number, [string, string][]>();
  for (const p of all<{ imageId: number; key: string; value: string }>(db, 'SELECT image_id AS imageId, key, value FROM image_properties ORDER BY rowid')) {
    props.set(p.imageId, [...(props.get(p.imageId) ?? []), [p.key, p.value]]);
  }
  // Renames first move out of the way, so two images may swap names.
  for (const image of images) {
    const mine = local.get(image.uuid);
    if (mine && mine.name !== names.get(image.uuid)) run(db, 'UPDATE images SET name = ? WHERE id = ?', `\u0000${image.uuid}`, mine.id);
  }
  for (const image of images) {
    const name = names.get(image.uuid)!;
    const mine = local.get(image.uuid);
    let id: number;
    if (!mine) {
      id = Number(run(db, 'INSERT INTO images (uuid, name) VALUES (?, ?)', image.uuid, name).lastInsertRowid);
      changes.added++;
    } else {
      id = mine.id;
      const renamed = mine.name !== name;
      if (renamed) run(db, 'UPDATE images SET name = ? WHERE id = ?', name, id);
      if (!renamed && samePairs(props.get(id) ?? [], image.properties)) continue;
      changes.updated++;
      if (samePairs(props.get(id) ?? [], image.properties)) continue;
    }
    run(db, 'DELETE FROM image_properties WHERE image_id = ?', id);
    for (const [key, value] of image.properties) run(db, 'INSERT INTO image_properties (image_id, key, value) VALUES (?, ?, ?)', id, key, value);
  }
  return changes;
}

/**
 * Ironic's provision states as the four this project models: a node with an instance is active,
 * available is available, enroll (and verifying) is enroll, every other state (manageable,
 * cleaning, inspecting, deploying without an instance yet, failures...) is manageable.
 */
export function modelledState(node: MirroredNode): 'enroll' | 'manageable' | 'available' | 'active' {
  if (node.instanceUuid) return 'active';
  if (node.provisionState === 'available') return 'available';
  if (node.provisionState === 'enroll' || node.provisionState === 'verifying') return 'enroll';
  return 'manageable';
}

/** Nodes by uuid, each tied to the provider of the same uuid; a node without one is skipped and counted. */
export function applyNodes(db: Db, nodes: readonly MirroredNode[]): ServiceChanges {
  const changes = none();
  const providers = new Map(all<{ id: number; uuid: string }>(db, 'SELECT id, uuid FROM resource_providers WHERE uuid IN (SELECT value FROM json_each(?))', list(nodes.map((n) => n.uuid))).map((p) => [p.uuid, p.id]));
  const storable = nodes.filter((n) => providers.has(n.uuid) && n.resourceClass);
  changes.skipped = nodes.length - storable.length;
  const local = new Map(
    all<{ id: number; uuid: string; name: string | null; resourceClass: string; provisionState: string; instanceUuid: string | null }>(
      db,
      'SELECT id, uuid, name, resource_class AS resourceClass, provision_state AS provisionState, instance_uuid AS instanceUuid FROM baremetal_nodes',
    ).map((n) => [n.uuid, n]),
  );
  const traits = new Map<number, string[]>();
  for (const t of all<{ nodeId: number; trait: string }>(db, 'SELECT node_id AS nodeId, trait FROM node_traits ORDER BY trait')) traits.set(t.nodeId, [...(traits.get(t.nodeId) ?? []), t.trait]);
  const wanted = new Set(storable.map((n) => n.uuid));
  for (const [uuid, n] of local) {
    if (wanted.has(uuid)) continue;
    run(db, 'DELETE FROM baremetal_nodes WHERE id = ?', n.id);
    local.delete(uuid);
    changes.removed++;
  }
  // Names and instances move out of the way first (both are unique).
  for (const n of storable) {
    const mine = local.get(n.uuid);
    if (mine && (mine.name !== n.name || mine.instanceUuid !== n.instanceUuid)) run(db, 'UPDATE baremetal_nodes SET name = NULL, instance_uuid = NULL WHERE id = ?', mine.id);
  }
  for (const n of storable) {
    const state = modelledState(n);
    const mine = local.get(n.uuid);
    const wantedTraits = [...new Set(n.traits)].sort();
    let id: number;
    if (!mine) {
      id = Number(
        run(
          db,
          'INSERT INTO baremetal_nodes (uuid, name, resource_class, provision_state, instance_uuid, resource_provider_id) VALUES (?, ?, ?, ?, ?, ?)',
          n.uuid, n.name, n.resourceClass, state, n.instanceUuid, providers.get(n.uuid),
        ).lastInsertRowid,
      );
      changes.added++;
    } else {
      id = mine.id;
      const same = mine.name === n.name && mine.resourceClass === n.resourceClass && mine.provisionState === state && mine.instanceUuid === n.instanceUuid;
      const sameTraits = JSON.stringify(traits.get(id) ?? []) === JSON.stringify(wantedTraits);
      if (mine.name !== n.name || mine.instanceUuid !== n.instanceUuid) run(db, 'UPDATE baremetal_nodes SET name = ?, instance_uuid = ? WHERE id = ?', n.name, n.instanceUuid, id);
      if (same && sameTraits) continue;
      changes.updated++;
      if (!same) {
        run(
          db,
          `UPDATE baremetal_nodes SET resource_class = ?, provision_state = ?,
             updated_at = CASE WHEN provision_state = ? THEN updated_at ELSE strftime('%Y-%m-%dT%H:%M:%fZ','now') END WHERE id = ?`,
          n.resourceClass, state, state, id,
        );
      }
      if (sameTraits) continue;
    }
    run(db, 'DELETE FROM node_traits WHERE node_id = ?', id);
    run(db, 'INSERT INTO node_traits (node_id, trait) SELECT DISTINCT ?, value FROM json_each(?)', id, list(wantedTraits));
  }
  return changes;
}

export interface ServiceMark {
  url: string;
  syncedAt: string;
  cursor: string | null;
  refreshes: number;
}

export function serviceMark(db: Db, service: string): ServiceMark | undefined {
  return get<ServiceMark>(db, 'SELECT url, synced_at AS syncedAt, cursor, refreshes FROM mirrored_services WHERE service = ?', service);
}

/** Records that this service was mirrored from url now (and where the next incremental read starts). */
export function markService(db: Db, service: string, url: string, cursor: string | null = null) {
  run(
    db,
    `INSERT INTO mirrored_services (service, url, synced_at, cursor, refreshes) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'), ?, 1)
     ON CONFLICT (service) DO UPDATE SET url = excluded.url, synced_at = excluded.synced_at, cursor = excluded.cursor, refreshes = refreshes + 1`,
    service, url, cursor,
  );
}

/** The service is not mirrored (any more): its mark goes; what it held stays as local data. */
export function unmarkService(db: Db, service: string) {
  run(db, 'DELETE FROM mirrored_services WHERE service = ?', service);
}
