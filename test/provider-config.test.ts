// Provider config through GraphQL: validate, plan, apply, re-apply, removal, conflicts and provenance.
import { beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './helpers.js';

const U = (n: number) => `abcdef00-0000-4000-8000-${String(n).padStart(12, '0')}`;
const CN1 = U(1);
const CN2 = U(2);
const NUMA = U(3);
const STORAGE = U(4);

const cloud = () => ({
  providers: [
    { uuid: CN1, name: 'cn1', parent: null },
    { uuid: CN2, name: 'cn2', parent: null },
    { uuid: NUMA, name: 'cn1_numa0', parent: CN1 },
    { uuid: STORAGE, name: 'storage', parent: null },
  ],
  inventories: { [CN1]: { VCPU: 8, MEMORY_MB: 4096 }, [CN2]: { VCPU: 4 }, [NUMA]: { VCPU: 4 } },
  traits: { [CN1]: ['COMPUTE_NODE', 'CUSTOM_FROM_DRIVER'], [CN2]: ['COMPUTE_NODE'], [STORAGE]: ['MISC_SHARES_VIA_AGGREGATE'] },
});

const HEAD = "meta:\n  schema_version: '1.0'\nproviders:\n";
interface Entry {
  id: string;
  inventories?: Record<string, Record<string, number>>;
  traits?: string[];
}
/** A document from entries: id is `uuid: X` or `name: X`. */
const doc = (...entries: Entry[]) =>
  HEAD +
  entries
    .map((e) => {
      let s = `  - identification:\n      ${e.id}\n`;
      if (e.inventories) s += `    inventories:\n      additional:\n${Object.entries(e.inventories).map(([rc, f]) => `        - ${rc}: {${Object.entries(f).map(([k, v]) => `${k}: ${v}`).join(', ')}}\n`).join('')}`;
      if (e.traits) s += `    traits:\n      additional: [${e.traits.join(', ')}]\n`;
      return s;
    })
    .join('');

const PROBLEM = 'document path key rule message';
const PLAN = `__typename
  ... on ProviderConfigPlan { applied dryRun valid documents newTraits newResourceClasses
    errors { ${PROBLEM} } warnings { ${PROBLEM} }
    providers { provider { uuid name generation } configuredBy generation changed
      addInventories { resourceClass document used before { total } after { total reserved minUnit maxUnit stepSize allocationRatio capacity } }
      changeInventories { resourceClass document before { total } after { total } }
      removeInventories { resourceClass document used }
      addTraits { trait document } removeTraits { trait document } } }
  ... on GenerationConflict { expected actual message }`;

type Docs = Record<string, string>;
const asInput = (docs: Docs) => Object.entries(docs).map(([name, content]) => ({ name, content }));

async function apply(h: Harness, docs: Docs, extra: Record<string, unknown> = {}) {
  const { data } = await h.gql(`mutation($input: ApplyProviderConfigInput!) { applyProviderConfig(input: $input) { ${PLAN} } }`, {
    input: { documents: asInput(docs), ...extra },
  });
  return data.applyProviderConfig;
}

async function validate(h: Harness, docs: Docs) {
  const { data } = await h.gql(`query($d: [ProviderConfigDocument!]!) { validateProviderConfig(documents: $d) { valid documents errors { ${PROBLEM} } warnings { ${PROBLEM} } } }`, {
    d: asInput(docs),
  });
  return data.validateProviderConfig;
}

async function provider(h: Harness, uuid: string) {
  const { data } = await h.gql(
    `query($u: UUID!) { resourceProvider(uuid: $u) { name generation traits inventories { resourceClass total reserved maxUnit allocationRatio }
      configSources { kind name document appliedAt } } }`,
    { u: uuid },
  );
  return data.resourceProvider;
}

/** Everything a provider-config apply may touch, to show that nothing changed. */
const state = (h: Harness) =>
  ['resource_providers', 'inventories', 'provider_traits', 'traits', 'resource_classes', 'provider_config_inventories', 'provider_config_traits'].map((table) =>
    h.db.sqlite.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all(),
  );

async function setInventories(h: Harness, uuid: string, inventories: unknown[]) {
  const { generation } = await provider(h, uuid);
  const { data } = await h.gql(`mutation($i: SetInventoriesInput!) { setInventories(input: $i) { __typename } }`, { i: { providerUuid: uuid, generation, inventories } });
  expect(data.setInventories.__typename).toBe('ResourceProviderPayload');
}

async function setTraits(h: Harness, uuid: string, traits: string[]) {
  const { generation } = await provider(h, uuid);
  const { data } = await h.gql(`mutation($i: SetProviderTraitsInput!) { setProviderTraits(input: $i) { __typename } }`, { i: { providerUuid: uuid, generation, traits } });
  expect(data.setProviderTraits.__typename).toBe('ResourceProviderPayload');
}

const DEFAULT = doc({ id: 'uuid: $COMPUTE_NODE', inventories: { CUSTOM_LLC: { total: 22, reserved: 2, max_unit: 11 } }, traits: ['CUSTOM_P_STATE'] });

describe('validateProviderConfig', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness(cloud());
  });

  it('accepts valid documents, reads them in code point order, and changes nothing', async () => {
    const before = state(h);
    const check = await validate(h, { 'b.yaml': doc({ id: 'name: cn2', traits: ['CUSTOM_B'] }), 'A.yaml': DEFAULT, 'a.yaml': doc({ id: 'name: cn1', traits: ['CUSTOM_A'] }) });
    expect(check).toMatchObject({ valid: true, errors: [], warnings: [], documents: ['A.yaml', 'a.yaml', 'b.yaml'] });
    expect(state(h)).toEqual(before);
  });

  it('names the document, the path, the provider and the rule of each error; Nova\'s first', async () => {
    const check = await validate(h, {
      '10-ok.yaml': DEFAULT,
      '20-bad.yaml': doc({ id: 'name: cn1', traits: ['CUSTOM_A'] }, { id: 'name: cn2', traits: ['HW_CPU_X86_AVX2', 'COMPUTE_NODE'] }),
      '30-version.yaml': 'meta:\n  schema_version: 1.0\nproviders: []\n',
      '40-dup.yaml': doc({ id: 'uuid: $COMPUTE_NODE', traits: ['CUSTOM_B'] }),
    });
    expect(check.valid).toBe(false);
    expect(check.errors[0]).toEqual({
      document: '20-bad.yaml',
      path: 'providers[1].traits.additional',
      key: 'cn2',
      rule: 'non_custom_trait',
      message: 'Only custom traits (CUSTOM_...) may be set by a provider config: COMPUTE_NODE, HW_CPU_X86_AVX2 are not custom.',
    });
    expect(check.errors.slice(1).map((e: any) => [e.document, e.rule])).toEqual([
      ['30-version.yaml', 'schema_version_missing'],
      ['40-dup.yaml', 'duplicate_identification'],
    ]);
    expect(check.errors[1].message).toContain("Unquoted, 1.0 is read as a number");
  });

  it('warns about an unsupported minor version, entries that do nothing, and what Placement will refuse', async () => {
    const check = await validate(h, {
      'a.yaml': doc({ id: 'name: cn1', inventories: { CUSTOM_X: { total: 0 } } }, { id: 'name: cn2' }).replace("'1.0'", "'1.7'"),
    });
    expect(check.valid).toBe(true);
    expect(check.warnings.map((w: any) => [w.rule, w.path])).toEqual([
      ['schema_version_minor', 'meta.schema_version'],
      ['no_op_provider', 'providers[1]'],
      ['placement_refuses', 'providers[0].inventories.additional[0].CUSTOM_X.total'],
    ]);
  });
  it('refuses two documents of the same name, and warns about a name Nova would not read', async () => {
    const check = await validate(h, { 'a.yaml': DEFAULT, 'notes.yml': doc({ id: 'name: cn2', traits: ['CUSTOM_B'] }) });
    expect(check.valid).toBe(true);
    expect(check.warnings.map((w: any) => [w.rule, w.document])).toEqual([['not_yaml_file_name', 'notes.yml']]);
    const { data } = await h.gql(`query($d: [ProviderConfigDocument!]!) { validateProviderConfig(documents: $d) { valid errors { rule document } } }`, {
      d: [
        { name: 'a.yaml', content: DEFAULT },
        { name: 'a.yaml', content: DEFAULT },
      ],
    });
    expect(data.validateProviderConfig).toEqual({ valid: false, errors: [{ rule: 'duplicate_document', document: 'a.yaml' }] });
  });
});

describe('applyProviderConfig', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness(cloud());
  });

  it('plans on a dry run without changing anything: $COMPUTE_NODE is every root with COMPUTE_NODE not named explicitly', async () => {
    const before = state(h);
    const plan = await apply(h, { '10-default.yaml': DEFAULT, '20-cn2.yaml': doc({ id: 'name: cn2', traits: ['CUSTOM_CN2_ONLY'] }) }, { dryRun: true });
    expect(state(h)).toEqual(before);
    expect(plan).toMatchObject({ __typename: 'ProviderConfigPlan', applied: false, dryRun: true, valid: true, newTraits: ['CUSTOM_CN2_ONLY', 'CUSTOM_P_STATE'], newResourceClasses: ['CUSTOM_LLC'] });
    expect(plan.providers.map((p: any) => [p.provider.name, p.configuredBy, p.generation, p.changed])).toEqual([
      ['cn1', ['10-default.yaml: $COMPUTE_NODE'], 0, true],
      ['cn2', ['20-cn2.yaml: cn2'], 0, true],
    ]);
    expect(plan.providers[0].addInventories).toEqual([
      {
        resourceClass: 'CUSTOM_LLC',
        document: '10-default.yaml',
        used: 0,
        before: null,
        after: { total: 22, reserved: 2, minUnit: 1, maxUnit: 11, stepSize: 1, allocationRatio: 1, capacity: 20 },
      },
    ]);
    expect(plan.providers[0].addTraits).toEqual([{ trait: 'CUSTOM_P_STATE', document: '10-default.yaml' }]);
    expect(plan.providers[1].addInventories).toEqual([]);
  });

  it('applies in one go, bumps each changed generation once, records which document set what, and re-applies as a no-op', async () => {
    const docs = { '10-default.yaml': DEFAULT, '20-cn2.yaml': doc({ id: 'name: cn2', traits: ['CUSTOM_CN2_ONLY'] }) };
    const plan = await apply(h, docs);
    expect(plan).toMatchObject({ applied: true, valid: true });
    const cn1 = await provider(h, CN1);
    expect(cn1.generation).toBe(1);
    expect(cn1.traits).toEqual(['COMPUTE_NODE', 'CUSTOM_FROM_DRIVER', 'CUSTOM_P_STATE']);
    expect(cn1.inventories.map((i: any) => i.resourceClass)).toEqual(['VCPU', 'MEMORY_MB', 'CUSTOM_LLC']);
    expect(cn1.configSources.map((s: any) => [s.kind, s.name, s.document])).toEqual([
      ['INVENTORY', 'CUSTOM_LLC', '10-default.yaml'],
      ['TRAIT', 'CUSTOM_P_STATE', '10-default.yaml'],
    ]);
    const cn2 = await provider(h, CN2);
    expect([cn2.generation, cn2.traits, cn2.configSources.map((s: any) => s.name)]).toEqual([1, ['COMPUTE_NODE', 'CUSTOM_CN2_ONLY'], ['CUSTOM_CN2_ONLY']]);
    // Children and roots without COMPUTE_NODE are not $COMPUTE_NODE.
    expect((await provider(h, NUMA)).generation).toBe(0);
    expect((await provider(h, STORAGE)).traits).toEqual(['MISC_SHARES_VIA_AGGREGATE']);

    const again = await apply(h, docs);
    expect(again.providers.map((p: any) => p.changed)).toEqual([false, false]);
    expect((await provider(h, CN1)).generation).toBe(1);
  });

  it('re-applying a changed set changes values and removes only what the documents set and no longer declare', async () => {
    await apply(h, {
      '10-default.yaml': doc({ id: 'uuid: $COMPUTE_NODE', inventories: { CUSTOM_LLC: { total: 22 }, CUSTOM_MBW: { total: 100 } }, traits: ['CUSTOM_P_STATE', 'CUSTOM_OLD'] }),
      '20-cn2.yaml': doc({ id: 'name: cn2', traits: ['CUSTOM_CN2_ONLY'] }),
    });
    const plan = await apply(h, { '10-default.yaml': doc({ id: 'uuid: $COMPUTE_NODE', inventories: { CUSTOM_LLC: { total: 30 } }, traits: ['CUSTOM_P_STATE', 'CUSTOM_FROM_DRIVER'] }) });
    expect(plan.applied).toBe(true);
    const [cn1, cn2] = plan.providers;
    expect(cn1.changeInventories).toEqual([{ resourceClass: 'CUSTOM_LLC', document: '10-default.yaml', before: { total: 22 }, after: { total: 30 } }]);
    expect(cn1.removeInventories).toEqual([{ resourceClass: 'CUSTOM_MBW', document: '10-default.yaml', used: 0 }]);
    expect(cn1.removeTraits).toEqual([{ trait: 'CUSTOM_OLD', document: '10-default.yaml' }]);
    // The document that named cn2 is gone: cn2 falls back to $COMPUTE_NODE, and loses what 20-cn2.yaml set.
    expect(cn2.configuredBy).toEqual(['10-default.yaml: $COMPUTE_NODE']);
    expect(cn2.removeTraits).toEqual([{ trait: 'CUSTOM_CN2_ONLY', document: '20-cn2.yaml' }]);
    expect(cn2.addInventories.map((i: any) => i.resourceClass)).toEqual(['CUSTOM_LLC']);

    const after = await provider(h, CN1);
    expect(after.traits).toEqual(['COMPUTE_NODE', 'CUSTOM_FROM_DRIVER', 'CUSTOM_P_STATE']);
    expect(after.inventories.map((i: any) => [i.resourceClass, i.total])).toEqual([['VCPU', 8], ['MEMORY_MB', 4096], ['CUSTOM_LLC', 30]]);
    expect(after.generation).toBe(2);
    // CUSTOM_FROM_DRIVER was there before any document declared it: not config's.
    expect(after.configSources.map((s: any) => s.name)).toEqual(['CUSTOM_LLC', 'CUSTOM_P_STATE']);

    // Applying no documents at all removes everything config set, and nothing else.
    const empty = await apply(h, {});
    expect(empty.applied).toBe(true);
    const bare = await provider(h, CN1);
    expect(bare.traits).toEqual(['COMPUTE_NODE', 'CUSTOM_FROM_DRIVER']);
    expect(bare.inventories.map((i: any) => i.resourceClass)).toEqual(['VCPU', 'MEMORY_MB']);
    expect(bare.configSources).toEqual([]);
  });

  it('an explicit entry replaces $COMPUTE_NODE for its provider; a document can take over what another set', async () => {
    await apply(h, { '10-default.yaml': DEFAULT });
    const plan = await apply(h, { '10-default.yaml': DEFAULT, '20-cn1.yaml': doc({ id: `uuid: ${CN1}`, inventories: { CUSTOM_LLC: { total: 22, reserved: 2, max_unit: 11 } } }) });
    const cn1 = plan.providers.find((p: any) => p.provider.name === 'cn1');
    expect(cn1.configuredBy).toEqual([`20-cn1.yaml: ${CN1}`]);
    expect(cn1.changeInventories).toEqual([]);
    expect(cn1.removeTraits).toEqual([{ trait: 'CUSTOM_P_STATE', document: '10-default.yaml' }]);
    expect((await provider(h, CN1)).configSources.map((s: any) => [s.name, s.document])).toEqual([['CUSTOM_LLC', '20-cn1.yaml']]);
  });

  it('refuses, applying nothing, a document declaring an inventory another source set', async () => {
    await setInventories(h, CN2, [{ resourceClass: 'VCPU', total: 4 }]);
    h.db.sqlite.prepare("INSERT INTO resource_classes (id, name, standard) VALUES (10000, 'CUSTOM_LLC', 0)").run();
    await setInventories(h, CN2, [{ resourceClass: 'VCPU', total: 4 }, { resourceClass: 'CUSTOM_LLC', total: 5 }]);
    const before = state(h);
    const plan = await apply(h, { '10-default.yaml': DEFAULT });
    expect(plan.applied).toBe(false);
    expect(plan.errors).toEqual([
      expect.objectContaining({ document: '10-default.yaml', key: '$COMPUTE_NODE', rule: 'inventory_conflict', path: 'providers[0].inventories.additional[0].CUSTOM_LLC' }),
    ]);
    expect(plan.errors[0].message).toContain('cn2');
    // The plan still shows what would have been done elsewhere; nothing was.
    expect(plan.providers.find((p: any) => p.provider.name === 'cn1').addInventories).toHaveLength(1);
    expect(state(h)).toEqual(before);
  });

  it('an inventory overwritten by setInventories with other values is no longer config\'s; re-sent unchanged it stays config\'s', async () => {
    await apply(h, { '10-default.yaml': DEFAULT });
    // A read-modify-write of all inventories keeping CUSTOM_LLC as it is: still config's.
    await setInventories(h, CN1, [{ resourceClass: 'VCPU', total: 16 }, { resourceClass: 'MEMORY_MB', total: 4096 }, { resourceClass: 'CUSTOM_LLC', total: 22, reserved: 2, maxUnit: 11 }]);
    expect((await provider(h, CN1)).configSources.map((s: any) => s.name)).toEqual(['CUSTOM_LLC', 'CUSTOM_P_STATE']);
    // Changed by other means: theirs. Declaring it again is a conflict; dropping it leaves it alone.
    await setInventories(h, CN1, [{ resourceClass: 'VCPU', total: 16 }, { resourceClass: 'CUSTOM_LLC', total: 40 }]);
    expect((await provider(h, CN1)).configSources.map((s: any) => s.name)).toEqual(['CUSTOM_P_STATE']);
    const conflict = await apply(h, { '10-default.yaml': DEFAULT });
    expect(conflict.errors.map((e: any) => e.rule)).toEqual(['inventory_conflict']);
    expect(conflict.errors[0].message).toContain('was set by 10-default.yaml but has since been changed by other means');
    const dropped = await apply(h, { '10-default.yaml': doc({ id: 'uuid: $COMPUTE_NODE', traits: ['CUSTOM_P_STATE'] }) });
    expect(dropped.applied).toBe(true);
    expect(dropped.warnings.map((w: any) => [w.rule, w.document])).toEqual([['released', '10-default.yaml']]);
    expect(dropped.providers.find((p: any) => p.provider.name === 'cn1').removeInventories).toEqual([]);
    expect((await provider(h, CN1)).inventories.find((i: any) => i.resourceClass === 'CUSTOM_LLC').total).toBe(40);
  });

  it('a trait config added and other means removed is added again while a document declares it', async () => {
    await apply(h, { '10-default.yaml': DEFAULT });
    await setTraits(h, CN1, ['COMPUTE_NODE']);
    expect((await provider(h, CN1)).configSources.map((s: any) => s.name)).toEqual(['CUSTOM_LLC']);
    const plan = await apply(h, { '10-default.yaml': DEFAULT });
    expect(plan.providers[0].addTraits).toEqual([{ trait: 'CUSTOM_P_STATE', document: '10-default.yaml' }]);
    expect((await provider(h, CN1)).traits).toEqual(['COMPUTE_NODE', 'CUSTOM_P_STATE']);
  });

  it('an error in the last of several documents leaves everything unchanged', async () => {
    await apply(h, { '10-default.yaml': DEFAULT });
    const before = state(h);
    const plan = await apply(h, {
      '10-default.yaml': doc({ id: 'uuid: $COMPUTE_NODE', traits: ['CUSTOM_NEW'] }),
      '20-cn2.yaml': doc({ id: 'name: cn2', traits: ['CUSTOM_CN2_ONLY'] }),
      '30-broken.yaml': doc({ id: 'name: cn1_numa0', inventories: { CUSTOM_X: { total: "'4'" as any } } }),
    });
    expect(plan).toMatchObject({ applied: false, valid: false, providers: [] });
    expect(plan.errors[0]).toMatchObject({ document: '30-broken.yaml', path: 'providers[0].inventories.additional[0].CUSTOM_X.total', rule: 'schema_error' });
    expect(state(h)).toEqual(before);
  });

  it('refuses what Placement would refuse, with nothing applied', async () => {
    const before = state(h);
    const plan = await apply(h, { 'a.yaml': doc({ id: 'name: cn1', inventories: { CUSTOM_X: { total: 4, reserved: 5 } } }, { id: 'name: cn2', traits: ['CUSTOM_OK'] }) });
    expect(plan.errors.map((e: any) => [e.rule, e.path])).toEqual([['placement_refuses', 'providers[0].inventories.additional[0].CUSTOM_X.reserved']]);
    expect(state(h)).toEqual(before);
  });

  it('cannot remove an inventory that is in use', async () => {
    await apply(h, { '10-default.yaml': DEFAULT });
    h.db.sqlite.prepare("INSERT INTO consumers (uuid, project_id, user_id) VALUES ('c0000000-0000-4000-8000-000000000001', 'p', 'u')").run();
    h.db.sqlite
      .prepare("INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used) SELECT rp.id, 1, rc.id, 3 FROM resource_providers rp, resource_classes rc WHERE rp.uuid = ? AND rc.name = 'CUSTOM_LLC'")
      .run(CN1);
    const before = state(h);
    const plan = await apply(h, { '10-default.yaml': doc({ id: 'uuid: $COMPUTE_NODE', traits: ['CUSTOM_P_STATE'] }) });
    expect(plan.errors.map((e: any) => e.rule)).toEqual(['inventory_in_use']);
    expect(plan.providers[0].removeInventories).toEqual([{ resourceClass: 'CUSTOM_LLC', document: '10-default.yaml', used: 3 }]);
    expect(state(h)).toEqual(before);
  });

  it('warns about unknown providers (an upper-case uuid is not the provider) and refuses one provider configured by name and by uuid', async () => {
    const unknown = await apply(h, { 'a.yaml': doc({ id: 'name: ghost', traits: ['CUSTOM_A'] }, { id: `uuid: ${CN2.toUpperCase()}`, traits: ['CUSTOM_A'] }) }, { dryRun: true });
    expect(unknown.errors).toEqual([]);
    expect(unknown.warnings.map((w: any) => [w.rule, w.key])).toEqual([
      ['unknown_provider', 'ghost'],
      ['unknown_provider', CN2.toUpperCase()],
    ]);
    expect(unknown.warnings[1].message).toContain('write it in lower case');
    const twice = await apply(h, { 'a.yaml': doc({ id: 'name: cn1', traits: ['CUSTOM_A'] }), 'b.yaml': doc({ id: `uuid: ${CN1}`, traits: ['CUSTOM_B'] }) });
    expect(twice.applied).toBe(false);
    expect(twice.errors).toEqual([expect.objectContaining({ document: 'b.yaml', key: CN1, rule: 'same_provider_twice' })]);
  });

  it('refuses to apply when a provider changed since the dry run', async () => {
    const dry = await apply(h, { '10-default.yaml': DEFAULT }, { dryRun: true });
    const expectedGenerations = dry.providers.map((p: any) => ({ providerUuid: p.provider.uuid, generation: p.generation }));
    await setTraits(h, CN2, ['COMPUTE_NODE', 'CUSTOM_FROM_DRIVER']);
    const before = state(h);
    const refused = await apply(h, { '10-default.yaml': DEFAULT }, { expectedGenerations });
    expect(refused).toMatchObject({ __typename: 'GenerationConflict', expected: 0, actual: 1 });
    expect(state(h)).toEqual(before);
  });

  it('forgets what a deleted provider had from config', async () => {
    await apply(h, { 'a.yaml': doc({ id: 'name: storage', traits: ['CUSTOM_POOL'] }) });
    expect(h.db.sqlite.prepare('SELECT COUNT(*) AS n FROM provider_config_traits').get()).toEqual({ n: 1 });
    const { data } = await h.gql(`mutation($i: DeleteResourceProviderInput!) { deleteResourceProvider(input: $i) { __typename } }`, { i: { uuid: STORAGE } });
    expect(data.deleteResourceProvider.__typename).toBe('DeleteResourceProviderPayload');
    expect(h.db.sqlite.prepare('SELECT COUNT(*) AS n FROM provider_config_traits').get()).toEqual({ n: 0 });
  });
});
