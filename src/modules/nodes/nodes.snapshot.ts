// Bare-metal nodes in snapshots: `baremetal_nodes: [{uuid, name, resource_class, provision_state,
// instance_uuid, instance_traits, traits}]`; a node's provider (same uuid) is one of the snapshot's.
import { canonicalUuid } from '../../rules/names.js';
import { isObject, snapshotSection, type CheckContext } from '../snapshot/snapshot.section.js';
import type { SnapshotNode } from '../snapshot/snapshot.types.js';
import { nodesForSnapshot, restoreNode } from './nodes.service.js';

export const nodesSection = snapshotSection({
  keys: ['baremetal_nodes'],
  tables: ['node_traits', 'baremetal_nodes'],
  check(ctx: CheckContext) {
    const nodes = ctx.section<SnapshotNode[]>('baremetal_nodes', 'array') ?? [];
    const { problem } = ctx;
    nodes.forEach((node, i) => {
      const path = `baremetal_nodes.${i}`;
      if (!isObject(node)) return problem(path, 'must be an object {uuid, name, resource_class, provision_state, instance_uuid, instance_traits, traits}');
      const uuid = typeof node.uuid === 'string' ? canonicalUuid(node.uuid) : null;
      if (!uuid) problem(`${path}.uuid`, `must be a uuid (got ${JSON.stringify(node.uuid)})`);
      else if (!ctx.providers.has(uuid)) problem(`${path}.uuid`, `a node's provider (same uuid) must be in providers: ${uuid} is not`);
      if (node.name != null && typeof node.name !== 'string') problem(`${path}.name`, 'must be a string or null');
      for (const key of ['resource_class', 'provision_state'] as const) if (typeof node[key] !== 'string') problem(`${path}.${key}`, 'must be a string');
      if (node.instance_uuid != null && !(typeof node.instance_uuid === 'string' && canonicalUuid(node.instance_uuid))) problem(`${path}.instance_uuid`, 'must be a uuid or null');
      for (const key of ['traits', 'instance_traits'] as const) {
        if (node[key] !== undefined && !(Array.isArray(node[key]) && node[key].every((t: unknown) => typeof t === 'string'))) problem(`${path}.${key}`, 'must be a list of trait names');
      }
    });
    return nodes;
  },
  write({ db, providerIds, attempt }, nodes) {
    nodes.forEach((node, i) => {
      const uuid = canonicalUuid(node.uuid)!;
      attempt(`baremetal_nodes.${i}`, () =>
        restoreNode(db, providerIds.get(uuid)!.id, {
          uuid,
          name: node.name ?? null,
          resourceClass: node.resource_class,
          provisionState: node.provision_state,
          instanceUuid: node.instance_uuid == null ? null : canonicalUuid(node.instance_uuid),
          instanceTraits: node.instance_traits ?? [],
          traits: node.traits ?? [],
        }),
      );
    });
    return nodes.length;
  },
  export: (db) => ({
    baremetal_nodes: nodesForSnapshot(db).map((n) => ({
      uuid: n.uuid,
      name: n.name,
      resource_class: n.resourceClass,
      provision_state: n.provisionState,
      instance_uuid: n.instanceUuid,
      instance_traits: n.instanceTraits,
      traits: n.traits,
    })),
  }),
});
