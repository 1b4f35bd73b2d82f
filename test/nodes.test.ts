// Bare-metal nodes: creation with their provider, node traits and their sync, drift, provision states,
// deploy validation, deployment and deletion — every mutation and its error paths.
import { beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';
import { getNamedType, type GraphQLUnionType } from 'graphql';
import { getSchema } from '../src/schema.js';
import { placementResourceClass } from '../src/modules/nodes/nodes.service.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const I = (n: number) => `11111111-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Nova 26's utils.normalize_rc_name, recorded with /usr/bin/python3 (what the ironic driver reports). */
const NOVA_NORMALIZED: Record<string, string> = {
  baremetal: 'CUSTOM_BAREMETAL',
  'baremetal-gold': 'CUSTOM_BAREMETAL_GOLD',
  BAREMETAL_GOLD: 'CUSTOM_BAREMETAL_GOLD',
  'bm.large/v2': 'CUSTOM_BM_LARGE_V2',
  a__b: 'CUSTOM_A_B',
  '  spaced  out ': 'CUSTOM__SPACED_OUT_',
  CUSTOM_GOLD: 'CUSTOM_CUSTOM_GOLD',
  gold_: 'CUSTOM_GOLD_',
  'Ünïcode-node': 'CUSTOM__N_CODE_NODE',
  x1: 'CUSTOM_X1',
  'ab--__--cd': 'CUSTOM_AB_CD',
  _: 'CUSTOM__',
};

/** Nova 26's IronicDriver.update_provider_tree for a node of class baremetal-gold, by provision state (instance set when active). */
const NOVA_INVENTORY = (reserved: number) => ({ resourceClass: 'CUSTOM_BAREMETAL_GOLD', total: 1, reserved, minUnit: 1, maxUnit: 1, stepSize: 1, allocationRatio: 1 });
const NOVA_RESERVED = { AVAILABLE: 0, ENROLL: 1, MANAGEABLE: 1, ACTIVE: 1 };

const NODE = `uuid name resourceClass placementResourceClass traits provisionState instanceUuid instanceTraits
  provider { uuid name generation traits inventories { resourceClass total reserved minUnit maxUnit stepSize allocationRatio used }
    allocations { consumer { uuid projectId } resources { resourceClass amount } } }`;

/** What to read of each member of a result union. */
const MEMBER_FIELDS: Record<string, string> = {
  InvalidInput: 'issues { path message }',
  NotFound: 'kind key',
  DuplicateName: 'field value',
  CapacityExceeded: 'providerUuid resourceClass requested used capacity',
  TraitLimitExceeded: 'nodeIdent limit count overLimit',
  MissingNodeTraits: 'nodeIdent missing',
  InvalidProvisionState: 'nodeIdent action provisionState allowedStates',
  BaremetalNodePayload: `node { ${NODE} }`,
  DeleteBaremetalNodePayload: 'uuid name',
  SyncNodeTraitsPayload: 'synced { uuid traits provider { traits } }',
};

/** The selection of every member of this mutation's result union (a spread of a non-member is invalid). */
function resultSelection(mutation: string): string {
  const union = getNamedType(getSchema().getMutationType()!.getFields()[mutation].type) as GraphQLUnionType;
  const members = union.getTypes().map((t) => t.name);
  return ['__typename', '... on DomainError { message code }', ...members.filter((m) => MEMBER_FIELDS[m]).map((m) => `... on ${m} { ${MEMBER_FIELDS[m]} }`)].join('\n');
}

async function mutate(h: Harness, name: string, input: Record<string, unknown>) {
  const { data } = await h.gql(`mutation($input: ${name[0].toUpperCase()}${name.slice(1)}Input!) { ${name}(input: $input) { ${resultSelection(name)} } }`, { input });
  return data[name];
}

const nodeQuery = async (h: Harness, node: string) => (await h.gql(`query($node: String!) { baremetalNode(node: $node) { ${NODE} } }`, { node })).data.baremetalNode;
const providerOf = async (h: Harness, uuid: string) =>
  (await h.gql(`query($uuid: UUID!) { resourceProvider(uuid: $uuid) { uuid name generation traits } }`, { uuid })).data.resourceProvider;
const drift = async (h: Harness) => (await h.gql(`{ nodeTraitDrift { node { name } provider { uuid } missingOnProvider unexpectedOnProvider } }`)).data.nodeTraitDrift;

const CUSTOM = (n: number) => `CUSTOM_T${n}`;

describe('bare-metal nodes', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  describe('createNode', () => {
    it("creates the node's provider with the inventory Nova's ironic driver reports, and the custom class", async () => {
      const created = await mutate(h, 'createNode', { uuid: U(1), name: 'node-1', resourceClass: 'baremetal-gold', traits: ['HW_CPU_X86_AVX2', 'CUSTOM_RAID5'] });
      expect(created.__typename).toBe('BaremetalNodePayload');
      expect(created.node).toMatchObject({
        uuid: U(1),
        name: 'node-1',
        resourceClass: 'baremetal-gold',
        placementResourceClass: 'CUSTOM_BAREMETAL_GOLD',
        traits: ['CUSTOM_RAID5', 'HW_CPU_X86_AVX2'],
        provisionState: 'AVAILABLE',
        instanceUuid: null,
        instanceTraits: [],
      });
      expect(created.node.provider).toMatchObject({ uuid: U(1), name: 'node-1', traits: ['CUSTOM_RAID5', 'HW_CPU_X86_AVX2'], allocations: [] });
      expect(created.node.provider.inventories).toEqual([{ ...NOVA_INVENTORY(0), used: 0 }]);
      const catalog = (await h.gql(`{ resourceClass(name: "CUSTOM_BAREMETAL_GOLD") { standard } trait(name: "CUSTOM_RAID5") { standard } }`)).data;
      expect(catalog).toEqual({ resourceClass: { standard: false }, trait: { standard: false } });
    });

    it('names the provider after the uuid when the node has no name, and generates a uuid when none is given', async () => {
      const { node } = await mutate(h, 'createNode', { resourceClass: 'baremetal' });
      expect(node.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(node.name).toBeNull();
      expect(node.provider).toMatchObject({ uuid: node.uuid, name: node.uuid });
      expect((await nodeQuery(h, node.uuid)).uuid).toBe(node.uuid);
    });

    it("normalizes resource classes exactly as Nova's normalize_rc_name", async () => {
      for (const [name, normalized] of Object.entries(NOVA_NORMALIZED)) expect(placementResourceClass(name)).toBe(normalized);
      const { node } = await mutate(h, 'createNode', { uuid: U(1), resourceClass: 'bm.large/v2' });
      expect(node.provider.inventories[0].resourceClass).toBe('CUSTOM_BM_LARGE_V2');
    });

    it('reserves the unit in every state but available, as Nova does', async () => {
      for (const [n, state] of (['ENROLL', 'MANAGEABLE', 'AVAILABLE'] as const).entries()) {
        const { node } = await mutate(h, 'createNode', { uuid: U(n + 1), resourceClass: 'baremetal-gold', provisionState: state });
        expect(node.provisionState).toBe(state);
        expect(node.provider.inventories).toEqual([{ ...NOVA_INVENTORY(NOVA_RESERVED[state]), used: 0 }]);
      }
    });

    it('refuses bad names, classes, traits and states, listing every problem, and creates nothing', async () => {
      const bad = await mutate(h, 'createNode', { name: 'has space', resourceClass: '', traits: ['HW_CPU_X86_AVX2', 'custom_lower'], provisionState: 'ACTIVE' });
      expect(bad.__typename).toBe('InvalidInput');
      expect(bad.issues.map((i: any) => i.path)).toEqual(['name', 'traits.1', 'resourceClass', 'provisionState']);
      expect(bad.issues[1].message).toContain('custom_lower');
      expect(bad.issues[1].message).toContain('CUSTOM_');
      const uuidLike = await mutate(h, 'createNode', { name: U(9), resourceClass: 'x' });
      expect(uuidLike).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'name' }] });
      expect(uuidLike.issues[0].message).toContain('uuid');
      const tooLongClass = await mutate(h, 'createNode', { resourceClass: 'x'.repeat(81) });
      expect(tooLongClass).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'resourceClass' }] });
      const tooMany = await mutate(h, 'createNode', { name: 'big', resourceClass: 'x', traits: Array.from({ length: 51 }, (_, n) => CUSTOM(n)) });
      expect(tooMany).toMatchObject({ __typename: 'TraitLimitExceeded', nodeIdent: 'big', limit: 50, count: 51, overLimit: [CUSTOM(50)] });
      const counts = (await h.gql('{ baremetalNodes { totalCount } resourceProviders { totalCount } traits(filter: { custom: true }) { totalCount } }')).data;
      expect(counts).toEqual({ baremetalNodes: { totalCount: 0 }, resourceProviders: { totalCount: 0 }, traits: { totalCount: 0 } });
    });

    it('refuses a duplicate node name or uuid, and a name or uuid a provider already has', async () => {
      await mutate(h, 'createNode', { uuid: U(1), name: 'n1', resourceClass: 'x' });
      expect(await mutate(h, 'createNode', { uuid: U(2), name: 'n1', resourceClass: 'x' })).toMatchObject({ __typename: 'DuplicateName', field: 'name', value: 'n1' });
      expect(await mutate(h, 'createNode', { uuid: U(1), name: 'n2', resourceClass: 'x' })).toMatchObject({ __typename: 'DuplicateName', field: 'uuid', value: U(1) });
      await h.gql(`mutation { createResourceProvider(input: { name: "cn1", uuid: "${U(5)}" }) { __typename } }`);
      expect(await mutate(h, 'createNode', { uuid: U(6), name: 'cn1', resourceClass: 'x' })).toMatchObject({ __typename: 'DuplicateName', field: 'name' });
      expect(await mutate(h, 'createNode', { uuid: U(5), name: 'n5', resourceClass: 'x' })).toMatchObject({ __typename: 'DuplicateName', field: 'uuid' });
      expect((await h.gql('{ baremetalNodes { totalCount } }')).data.baremetalNodes.totalCount).toBe(1);
    });
  });

  describe('node traits', () => {
    beforeEach(async () => {
      await mutate(h, 'createNode', { uuid: U(1), name: 'n1', resourceClass: 'baremetal-gold', traits: ['CUSTOM_A'] });
    });

    it('setNodeTraits replaces them all, syncs the provider, bumps its generation, and creates custom traits', async () => {
      const before = await providerOf(h, U(1));
      const { node } = await mutate(h, 'setNodeTraits', { node: 'n1', traits: ['CUSTOM_B', 'STORAGE_DISK_SSD', 'CUSTOM_B'] });
      expect(node.traits).toEqual(['CUSTOM_B', 'STORAGE_DISK_SSD']);
      expect(node.provider.traits).toEqual(node.traits);
      expect(node.provider.generation).toBe(before.generation + 1);
      expect((await h.gql('{ trait(name: "CUSTOM_B") { name standard } }')).data.trait).toEqual({ name: 'CUSTOM_B', standard: false });
      // By uuid too, in any case.
      const byUuid = await mutate(h, 'setNodeTraits', { node: U(1).toUpperCase(), traits: [] });
      expect(byUuid.node).toMatchObject({ traits: [], provider: { traits: [], generation: before.generation + 2 } });
    });

    it('setNodeTraits accepts exactly 50 and refuses 51, naming the traits over the limit; nothing is applied', async () => {
      const fifty = Array.from({ length: 50 }, (_, n) => CUSTOM(n));
      expect((await mutate(h, 'setNodeTraits', { node: 'n1', traits: fifty })).node.provider.traits).toHaveLength(50);
      await mutate(h, 'setNodeTraits', { node: 'n1', traits: ['CUSTOM_A'] });
      const before = await providerOf(h, U(1));
      const result = await mutate(h, 'setNodeTraits', { node: 'n1', traits: [...fifty, 'CUSTOM_X', 'CUSTOM_Y'] });
      expect(result).toMatchObject({ __typename: 'TraitLimitExceeded', nodeIdent: 'n1', limit: 50, count: 52, overLimit: ['CUSTOM_X', 'CUSTOM_Y'] });
      expect(result.message).toContain('at most 50');
      expect(result.message).toContain('CUSTOM_X, CUSTOM_Y');
      expect((await nodeQuery(h, 'n1')).traits).toEqual(['CUSTOM_A']);
      expect(await providerOf(h, U(1))).toEqual(before);
    });

    it('an invalid trait is named with the rule it breaks, and nothing is applied', async () => {
      const before = await providerOf(h, U(1));
      const cases: [string, string][] = [
        ['HW_NOT_A_TRAIT', 'must start with CUSTOM_'],
        ['custom_lower', 'must start with CUSTOM_'],
        ['CUSTOM_bad-chars', '^CUSTOM_[A-Z0-9_]+$'],
        ['CUSTOM_', '^CUSTOM_[A-Z0-9_]+$'],
        [`CUSTOM_${'X'.repeat(249)}`, 'at most 255'],
        ['', 'must start with CUSTOM_'],
      ];
      for (const mutation of ['setNodeTraits', 'addNodeTraits', 'removeNodeTraits']) {
        for (const [trait, rule] of cases) {
          const result = await mutate(h, mutation, { node: 'n1', traits: ['CUSTOM_OK', trait] });
          expect(result.__typename).toBe('InvalidInput');
          expect(result.issues).toHaveLength(1);
          expect(result.issues[0].path).toBe('traits.1');
          expect(result.issues[0].message).toContain(trait);
          expect(result.issues[0].message).toContain(rule);
        }
      }
      expect((await nodeQuery(h, 'n1')).traits).toEqual(['CUSTOM_A']);
      expect(await providerOf(h, U(1))).toEqual(before);
      expect((await h.gql('{ trait(name: "CUSTOM_OK") { name } }')).data.trait).toBeNull();
    });

    it('a 255-character custom trait is valid', async () => {
      const longest = `CUSTOM_${'X'.repeat(248)}`;
      expect((await mutate(h, 'addNodeTraits', { node: 'n1', traits: [longest] })).node.provider.traits).toContain(longest);
    });

    it('addNodeTraits adds, keeps what is there, and bumps the generation only when the traits change', async () => {
      const g = (await providerOf(h, U(1))).generation;
      const { node } = await mutate(h, 'addNodeTraits', { node: 'n1', traits: ['CUSTOM_B', 'CUSTOM_A', 'HW_CPU_X86_AVX2'] });
      expect(node.traits).toEqual(['CUSTOM_A', 'CUSTOM_B', 'HW_CPU_X86_AVX2']);
      expect(node.provider).toMatchObject({ traits: node.traits, generation: g + 1 });
      const again = await mutate(h, 'addNodeTraits', { node: 'n1', traits: ['CUSTOM_B'] });
      expect(again.node.provider).toMatchObject({ traits: node.traits, generation: g + 1 });
    });

    it('addNodeTraits past the limit names the traits that do not fit, and applies none', async () => {
      await mutate(h, 'setNodeTraits', { node: 'n1', traits: Array.from({ length: 48 }, (_, n) => CUSTOM(n)) });
      const result = await mutate(h, 'addNodeTraits', { node: 'n1', traits: [CUSTOM(0), 'CUSTOM_X', 'CUSTOM_Y', 'CUSTOM_Z'] });
      expect(result).toMatchObject({ __typename: 'TraitLimitExceeded', limit: 50, count: 51, overLimit: ['CUSTOM_Z'] });
      const node = await nodeQuery(h, 'n1');
      expect(node.traits).toHaveLength(48);
      expect(node.provider.traits).toEqual(node.traits);
      expect((await mutate(h, 'addNodeTraits', { node: 'n1', traits: ['CUSTOM_X', 'CUSTOM_Y'] })).node.traits).toHaveLength(50);
    });

    it('removeNodeTraits removes; a trait the node lacks is NotFound, and nothing is applied', async () => {
      await mutate(h, 'setNodeTraits', { node: 'n1', traits: ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'] });
      const missing = await mutate(h, 'removeNodeTraits', { node: 'n1', traits: ['CUSTOM_A', 'CUSTOM_Q'] });
      expect(missing).toMatchObject({ __typename: 'NotFound', kind: 'node trait' });
      expect(missing.message).toContain('CUSTOM_Q');
      expect((await nodeQuery(h, 'n1')).traits).toEqual(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C']);
      const { node } = await mutate(h, 'removeNodeTraits', { node: 'n1', traits: ['CUSTOM_A', 'CUSTOM_C'] });
      expect(node).toMatchObject({ traits: ['CUSTOM_B'], provider: { traits: ['CUSTOM_B'] } });
    });

    it('clearNodeTraits removes them all', async () => {
      const { node } = await mutate(h, 'clearNodeTraits', { node: 'n1' });
      expect(node).toMatchObject({ traits: [], provider: { traits: [] } });
    });

    it('every node mutation answers NotFound for an unknown node', async () => {
      const inputs: Record<string, Record<string, unknown>> = {
        setNodeTraits: { traits: [] },
        addNodeTraits: { traits: ['CUSTOM_A'] },
        removeNodeTraits: { traits: ['CUSTOM_A'] },
        clearNodeTraits: {},
        deleteNode: {},
        setNodeProvisionState: { action: 'MANAGE' },
        deployNode: { instanceTraits: [], projectId: 'p', userId: 'u' },
        undeployNode: {},
      };
      for (const [mutation, input] of Object.entries(inputs)) {
        for (const node of ['nope', U(99)]) {
          const result = await mutate(h, mutation, { node, ...input });
          expect(result).toMatchObject({ __typename: 'NotFound', kind: 'bare-metal node', key: `node=${node}` });
        }
      }
      expect(await mutate(h, 'syncNodeTraits', { nodes: ['n1', 'nope'] })).toMatchObject({ __typename: 'NotFound', key: 'nodes.1=nope' });
    });
  });

  describe('drift between node and provider traits', () => {
    beforeEach(async () => {
      await mutate(h, 'createNode', { uuid: U(1), name: 'n1', resourceClass: 'x', traits: ['CUSTOM_A', 'CUSTOM_B'] });
      await mutate(h, 'createNode', { uuid: U(2), name: 'n2', resourceClass: 'x', traits: ['CUSTOM_A'] });
    });

    const setProviderTraits = async (uuid: string, traits: string[]) => {
      const { generation } = await providerOf(h, uuid);
      const { data } = await h.gql(`mutation($input: SetProviderTraitsInput!) { setProviderTraits(input: $input) { __typename } }`, {
        input: { providerUuid: uuid, generation, traits },
      });
      expect(data.setProviderTraits.__typename).toBe('ResourceProviderPayload');
    };

    it('is empty while providers follow their nodes', async () => {
      expect(await drift(h)).toEqual([]);
    });

    it('lists providers changed behind the node, with the differences', async () => {
      await setProviderTraits(U(1), ['CUSTOM_B', 'HW_CPU_X86_AVX2', 'STORAGE_DISK_SSD']);
      await setProviderTraits(U(2), []);
      expect(await drift(h)).toEqual([
        { node: { name: 'n1' }, provider: { uuid: U(1) }, missingOnProvider: ['CUSTOM_A'], unexpectedOnProvider: ['HW_CPU_X86_AVX2', 'STORAGE_DISK_SSD'] },
        { node: { name: 'n2' }, provider: { uuid: U(2) }, missingOnProvider: ['CUSTOM_A'], unexpectedOnProvider: [] },
      ]);
      // The node keeps its own traits.
      expect((await nodeQuery(h, 'n1')).traits).toEqual(['CUSTOM_A', 'CUSTOM_B']);
    });

    it("any change to a node's traits rewrites its provider's, ending its drift", async () => {
      await setProviderTraits(U(1), ['HW_CPU_X86_AVX2']);
      await setProviderTraits(U(2), ['HW_CPU_X86_AVX2']);
      const { node } = await mutate(h, 'addNodeTraits', { node: 'n1', traits: ['CUSTOM_C'] });
      expect(node.provider.traits).toEqual(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C']);
      expect((await drift(h)).map((d: any) => d.node.name)).toEqual(['n2']);
    });

    it('syncNodeTraits restores the drifted providers (the named ones, or all) and bumps their generation', async () => {
      await setProviderTraits(U(1), []);
      await setProviderTraits(U(2), ['CUSTOM_A', 'CUSTOM_B']);
      const g2 = (await providerOf(h, U(2))).generation;
      const one = await mutate(h, 'syncNodeTraits', { nodes: ['n1', 'n1'] });
      expect(one.synced).toEqual([{ uuid: U(1), traits: ['CUSTOM_A', 'CUSTOM_B'], provider: { traits: ['CUSTOM_A', 'CUSTOM_B'] } }]);
      expect((await drift(h)).map((d: any) => d.node.name)).toEqual(['n2']);
      const all = await mutate(h, 'syncNodeTraits', {});
      expect(all.synced).toEqual([{ uuid: U(2), traits: ['CUSTOM_A'], provider: { traits: ['CUSTOM_A'] } }]);
      expect((await providerOf(h, U(2))).generation).toBe(g2 + 1);
      expect(await drift(h)).toEqual([]);
      expect((await mutate(h, 'syncNodeTraits', {})).synced).toEqual([]);
    });

    it('recreates a custom trait deleted from the catalog when syncing it back', async () => {
      await setProviderTraits(U(1), ['CUSTOM_A']);
      await setProviderTraits(U(2), []);
      const deleted = (await h.gql('mutation { deleteTrait(input: { name: "CUSTOM_B" }) { __typename } }')).data.deleteTrait;
      expect(deleted.__typename).toBe('DeleteTraitPayload');
      expect((await drift(h))[0]).toMatchObject({ node: { name: 'n1' }, missingOnProvider: ['CUSTOM_B'] });
      await mutate(h, 'syncNodeTraits', {});
      expect((await providerOf(h, U(1))).traits).toEqual(['CUSTOM_A', 'CUSTOM_B']);
    });
  });

  describe('provision states', () => {
    it('manage and provide move the node as in Ironic, and the unit is reserved unless available', async () => {
      await mutate(h, 'createNode', { uuid: U(1), name: 'n1', resourceClass: 'baremetal-gold', provisionState: 'ENROLL' });
      const provide = await mutate(h, 'setNodeProvisionState', { node: 'n1', action: 'PROVIDE' });
      expect(provide).toMatchObject({ __typename: 'InvalidProvisionState', nodeIdent: 'n1', action: 'provide', provisionState: 'ENROLL', allowedStates: ['MANAGEABLE'] });
      const g = (await providerOf(h, U(1))).generation;
      const managed = await mutate(h, 'setNodeProvisionState', { node: 'n1', action: 'MANAGE' });
      expect(managed.node.provisionState).toBe('MANAGEABLE');
      expect(managed.node.provider.generation).toBe(g); // still reserved: the inventory did not change
      expect(await mutate(h, 'setNodeProvisionState', { node: 'n1', action: 'MANAGE' })).toMatchObject({ __typename: 'InvalidProvisionState', provisionState: 'MANAGEABLE' });
      const available = await mutate(h, 'setNodeProvisionState', { node: 'n1', action: 'PROVIDE' });
      expect(available.node).toMatchObject({ provisionState: 'AVAILABLE', provider: { generation: g + 1, inventories: [{ ...NOVA_INVENTORY(0), used: 0 }] } });
      const back = await mutate(h, 'setNodeProvisionState', { node: 'n1', action: 'MANAGE' });
      expect(back.node).toMatchObject({ provisionState: 'MANAGEABLE', provider: { inventories: [{ reserved: 1 }] } });
    });

    it('a node that is not available is not a candidate for its resource class', async () => {
      await mutate(h, 'createNode', { uuid: U(1), name: 'n1', resourceClass: 'gold', provisionState: 'MANAGEABLE' });
      await mutate(h, 'createNode', { uuid: U(2), name: 'n2', resourceClass: 'gold' });
      const { data } = await h.gql(`{ resourceProviders(filter: { resources: [{ resourceClass: "CUSTOM_GOLD", amount: 1 }] }) { nodes { uuid } } }`);
      expect(data.resourceProviders.nodes).toEqual([{ uuid: U(2) }]);
    });
  });

  describe('deployment', () => {
    beforeEach(async () => {
      await mutate(h, 'createNode', { uuid: U(1), name: 'n1', resourceClass: 'baremetal-gold', traits: ['CUSTOM_RAID5', 'HW_CPU_X86_AVX2'] });
    });

    const validate = async (node: string, instanceTraits: string[]) =>
      (await h.gql(`query($node: String!, $traits: [String!]!) { validateNodeDeploy(node: $node, instanceTraits: $traits) { node { uuid } valid missingTraits deployable reasons } }`, { node, traits: instanceTraits }))
        .data.validateNodeDeploy;

    it('validateNodeDeploy checks the instance traits are a subset of the node traits and names the missing ones', async () => {
      expect(await validate('n1', [])).toEqual({ node: { uuid: U(1) }, valid: true, missingTraits: [], deployable: true, reasons: [] });
      expect(await validate('n1', ['CUSTOM_RAID5'])).toMatchObject({ valid: true, deployable: true });
      const missing = await validate(U(1), ['CUSTOM_RAID5', 'CUSTOM_GPU', 'STORAGE_DISK_SSD']);
      expect(missing).toMatchObject({ valid: false, missingTraits: ['CUSTOM_GPU', 'STORAGE_DISK_SSD'], deployable: false });
      expect(missing.reasons[0]).toContain('CUSTOM_GPU, STORAGE_DISK_SSD');
      const unknown = await h.gql(`{ validateNodeDeploy(node: "nope", instanceTraits: []) { valid } }`, undefined, { allowErrors: true });
      expect(unknown.errors![0].message).toContain('nope');
    });

    it('validateNodeDeploy reports a node that is not available as valid but not deployable', async () => {
      await mutate(h, 'setNodeProvisionState', { node: 'n1', action: 'MANAGE' });
      const check = await validate('n1', ['CUSTOM_RAID5']);
      expect(check).toMatchObject({ valid: true, missingTraits: [], deployable: false });
      expect(check.reasons[0]).toContain('manageable');
    });

    it("deployNode records the instance traits, allocates the node's unit to the instance, and makes it active", async () => {
      const g = (await providerOf(h, U(1))).generation;
      const { node } = await mutate(h, 'deployNode', { node: 'n1', instanceUuid: I(1), instanceTraits: ['CUSTOM_RAID5'], projectId: 'p1', userId: 'u1' });
      expect(node).toMatchObject({ provisionState: 'ACTIVE', instanceUuid: I(1), instanceTraits: ['CUSTOM_RAID5'] });
      expect(node.provider.allocations).toEqual([{ consumer: { uuid: I(1), projectId: 'p1' }, resources: [{ resourceClass: 'CUSTOM_BAREMETAL_GOLD', amount: 1 }] }]);
      expect(node.provider.inventories).toEqual([{ ...NOVA_INVENTORY(NOVA_RESERVED.ACTIVE), used: 1 }]);
      expect(node.provider.generation).toBe(g + 2); // the allocation, then the reserved unit
      const filtered = (await h.gql(`{ baremetalNodes(filter: { provisionState: ACTIVE }) { nodes { name } } }`)).data.baremetalNodes.nodes;
      expect(filtered).toEqual([{ name: 'n1' }]);
    });

    it('deployNode generates the instance uuid when none is given', async () => {
      const { node } = await mutate(h, 'deployNode', { node: 'n1', instanceTraits: [], projectId: 'p1', userId: 'u1' });
      expect(node.instanceUuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(node.provider.allocations[0].consumer.uuid).toBe(node.instanceUuid);
    });

    it('deployNode refuses missing traits, invalid traits, a node not available, a used instance, a full provider; nothing is applied', async () => {
      const before = await nodeQuery(h, 'n1');
      const deploy = (input: Record<string, unknown>) => mutate(h, 'deployNode', { node: 'n1', instanceUuid: I(1), instanceTraits: [], projectId: 'p1', userId: 'u1', ...input });
      const missing = await deploy({ instanceTraits: ['CUSTOM_RAID5', 'CUSTOM_GPU'] });
      expect(missing).toMatchObject({ __typename: 'MissingNodeTraits', nodeIdent: 'n1', missing: ['CUSTOM_GPU'] });
      expect(missing.message).toContain('subset');
      expect(await deploy({ instanceTraits: ['gpu'] })).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'instanceTraits.0' }] });
      expect(await deploy({ projectId: '' })).toMatchObject({ __typename: 'InvalidInput', issues: [{ path: 'projectId' }] });
      expect(await nodeQuery(h, 'n1')).toEqual(before);

      // The instance already holds allocations elsewhere.
      await mutate(h, 'createNode', { uuid: U(2), name: 'n2', resourceClass: 'baremetal-gold' });
      await mutate(h, 'deployNode', { node: 'n2', instanceUuid: I(2), instanceTraits: [], projectId: 'p', userId: 'u' });
      expect(await deploy({ instanceUuid: I(2) })).toMatchObject({ __typename: 'InUse' });
      expect(await mutate(h, 'deployNode', { node: 'n2', instanceUuid: I(3), instanceTraits: [], projectId: 'p', userId: 'u' })).toMatchObject({
        __typename: 'InvalidProvisionState',
        action: 'deploy',
        provisionState: 'ACTIVE',
        allowedStates: ['AVAILABLE'],
      });

      // Someone allocated the node's unit in Placement directly.
      const { data } = await h.gql(`mutation($input: SetAllocationsInput!) { setAllocations(input: $input) { __typename } }`, {
        input: { consumerUuid: I(9), projectId: 'p', userId: 'u', allocations: [{ providerUuid: U(1), resources: [{ resourceClass: 'CUSTOM_BAREMETAL_GOLD', amount: 1 }] }] },
      });
      expect(data.setAllocations.__typename).toBe('ConsumerPayload');
      expect(await deploy({})).toMatchObject({ __typename: 'CapacityExceeded', providerUuid: U(1), requested: 1, used: 1, capacity: 1 });
      expect((await nodeQuery(h, 'n1')).provisionState).toBe('AVAILABLE');
      expect((await h.gql(`{ consumer(uuid: "${I(1)}") { uuid } }`)).data.consumer).toBeNull();
    });

    it('undeployNode releases the allocation and makes the node available again', async () => {
      await mutate(h, 'deployNode', { node: 'n1', instanceUuid: I(1), instanceTraits: ['CUSTOM_RAID5'], projectId: 'p1', userId: 'u1' });
      const { node } = await mutate(h, 'undeployNode', { node: 'n1' });
      expect(node).toMatchObject({ provisionState: 'AVAILABLE', instanceUuid: null, instanceTraits: [], provider: { allocations: [] } });
      expect(node.provider.inventories).toEqual([{ ...NOVA_INVENTORY(0), used: 0 }]);
      expect((await h.gql(`{ consumer(uuid: "${I(1)}") { uuid } }`)).data.consumer).toBeNull();
      expect(await mutate(h, 'undeployNode', { node: 'n1' })).toMatchObject({ __typename: 'InvalidProvisionState', action: 'undeploy', provisionState: 'AVAILABLE' });
      // It can be deployed again.
      expect((await mutate(h, 'deployNode', { node: 'n1', instanceUuid: I(2), instanceTraits: [], projectId: 'p', userId: 'u' })).node.provisionState).toBe('ACTIVE');
    });
  });

  describe('deleteNode', () => {
    beforeEach(async () => {
      await mutate(h, 'createNode', { uuid: U(1), name: 'n1', resourceClass: 'x', traits: ['CUSTOM_A'] });
    });

    it('deletes the node and its provider', async () => {
      expect(await mutate(h, 'deleteNode', { node: 'n1' })).toEqual({ __typename: 'DeleteBaremetalNodePayload', uuid: U(1), name: 'n1' });
      expect(await nodeQuery(h, 'n1')).toBeNull();
      expect(await providerOf(h, U(1))).toBeNull();
    });

    it('refuses while the node is deployed, or while its provider is allocated or has children', async () => {
      await mutate(h, 'deployNode', { node: 'n1', instanceUuid: I(1), instanceTraits: [], projectId: 'p', userId: 'u' });
      expect(await mutate(h, 'deleteNode', { node: 'n1' })).toMatchObject({ __typename: 'InvalidProvisionState', action: 'delete', provisionState: 'ACTIVE' });
      // Released in Placement behind the node's back, then allocated again by another consumer.
      await h.gql(`mutation { deleteAllocations(input: { consumerUuid: "${I(1)}" }) { __typename } }`);
      await mutate(h, 'undeployNode', { node: 'n1' });
      await h.gql(`mutation($input: SetAllocationsInput!) { setAllocations(input: $input) { __typename } }`, {
        input: { consumerUuid: I(2), projectId: 'p', userId: 'u', allocations: [{ providerUuid: U(1), resources: [{ resourceClass: 'CUSTOM_X', amount: 1 }] }] },
      });
      expect(await mutate(h, 'deleteNode', { node: 'n1' })).toMatchObject({ __typename: 'InUse', code: 'placement.resource_provider.inuse' });
      await h.gql(`mutation { deleteAllocations(input: { consumerUuid: "${I(2)}" }) { __typename } }`);
      await h.gql(`mutation { createResourceProvider(input: { name: "child", parentUuid: "${U(1)}" }) { __typename } }`);
      expect(await mutate(h, 'deleteNode', { node: 'n1' })).toMatchObject({ __typename: 'InUse' });
      expect((await nodeQuery(h, 'n1')).name).toBe('n1');
    });

    it('deleting the provider in Placement deletes its node', async () => {
      await h.gql(`mutation { deleteResourceProvider(input: { uuid: "${U(1)}" }) { __typename } }`);
      expect(await nodeQuery(h, 'n1')).toBeNull();
      expect((await h.gql('{ baremetalNodes { totalCount } }')).data.baremetalNodes.totalCount).toBe(0);
    });
  });

  describe('reading', () => {
    it('finds nodes by global id, and providers know their node', async () => {
      await mutate(h, 'createNode', { uuid: U(1), name: 'n1', resourceClass: 'x' });
      const { data } = await h.gql(`{ baremetalNodes { edges { cursor node { id uuid } } } resourceProvider(uuid: "${U(1)}") { baremetalNode { name } } }`);
      expect(data.resourceProvider.baremetalNode).toEqual({ name: 'n1' });
      const id = data.baremetalNodes.edges[0].node.id;
      const found = (await h.gql(`query($id: ID!) { node(id: $id) { ... on BaremetalNode { uuid name } } }`, { id })).data.node;
      expect(found).toEqual({ uuid: U(1), name: 'n1' });
      await h.gql(`mutation { createResourceProvider(input: { name: "cn" uuid: "${U(2)}" }) { __typename } }`);
      expect((await h.gql(`{ resourceProvider(uuid: "${U(2)}") { baremetalNode { name } } }`)).data.resourceProvider.baremetalNode).toBeNull();
      expect(await nodeQuery(h, 'nope')).toBeNull();
    });

    it('refuses a malformed trait in a filter, naming it', async () => {
      const result = await h.gql(`{ baremetalNodes(filter: { traitsAny: ["CUSTOM_A", "bad"] }) { totalCount } }`, undefined, { allowErrors: true });
      expect(result.errors![0].message).toContain('filter.traitsAny.1');
      expect(result.errors![0].message).toContain('bad');
    });

    it('the statements of a node page do not depend on its size', async () => {
      for (let n = 1; n <= 30; n++) {
        await mutate(h, 'createNode', { uuid: U(n), name: `n${n}`, resourceClass: 'x', traits: [CUSTOM(n % 4), CUSTOM(n % 7)] });
      }
      await mutate(h, 'deployNode', { node: 'n3', instanceTraits: [], projectId: 'p', userId: 'u' });
      const page = `query($first: Int) { baremetalNodes(first: $first, filter: { traitsAny: ["${CUSTOM(1)}", "${CUSTOM(2)}"], notTraits: ["${CUSTOM(3)}"] }) {
        totalCount nodes { uuid traits provisionState provider { generation traits inventories { resourceClass used } allocations { consumer { uuid } } baremetalNode { uuid } } } } }`;
      const small = await h.countStatements(page, { first: 2 });
      const large = await h.countStatements(page, { first: 25 });
      expect(large).toBe(small);
      expect(large).toBeLessThanOrEqual(6);
      const { data } = await h.gql(page, { first: 25 });
      expect(data.baremetalNodes.nodes.length).toBeGreaterThan(2);
      expect(data.baremetalNodes.nodes.every((n: any) => n.provider.traits.join() === n.traits.join())).toBe(true);
    });
  });
});
