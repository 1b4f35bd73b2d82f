// Flavors through GraphQL: extra-spec validation modes, the registry, and the request Nova would build.
import { describe, expect, it } from 'vitest';
import { harness, fixture } from './helpers.js';
import { unknownKeyMessage } from '../src/catalog/extra-specs.js';

const CREATE = `mutation ($input: CreateFlavorInput!) {
  createFlavor(input: $input) {
    __typename
    ... on FlavorPayload { flavor { name vcpus memoryMb rootGb ephemeralGb swapMb isPublic extraSpecs { key value description deprecated validator { name } } } warnings { path key message } }
    ... on InvalidInput { issues { path message } }
    ... on DuplicateName { field value }
  }
}`;

const flavorInput = (name: string, extraSpecs: Record<string, string> = {}, validation?: string) => ({
  name,
  vcpus: 2,
  memoryMb: 2048,
  rootGb: 20,
  extraSpecs: Object.entries(extraSpecs).map(([key, value]) => ({ key, value })),
  ...(validation ? { validation } : {}),
});

describe('createFlavor and the validation modes', () => {
  it("STRICT (the default) rejects an invalid value with Nova's text and stores nothing", async () => {
    const h = harness();
    const { data } = await h.gql(CREATE, { input: flavorInput('m1', { 'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '0' }) });
    expect(data.createFlavor).toEqual({
      __typename: 'InvalidInput',
      issues: [{ path: 'extraSpecs.1.value', message: "Validation failed; '0' is less than the min value of '1'." }],
    });
    expect((await h.gql(`{ flavor(name: "m1") { name } }`)).data.flavor).toBeNull();
  });

  it('STRICT rejects keys without a validator, in any namespace; PERMISSIVE accepts them with warnings; OFF checks only the format', async () => {
    const h = harness();
    const specs = { 'foo:bar': 'x', 'hw:cpu_pollicy': 'dedicated', plain: '1', 'hw:cpu_policy': 'shared' };
    const strict = (await h.gql(CREATE, { input: flavorInput('strict', specs) })).data.createFlavor;
    expect(strict.issues.map((i: any) => i.message)).toEqual(['foo:bar', 'hw:cpu_pollicy', 'plain'].map(unknownKeyMessage));

    const permissive = (await h.gql(CREATE, { input: flavorInput('permissive', specs, 'PERMISSIVE') })).data.createFlavor;
    expect(permissive.__typename).toBe('FlavorPayload');
    expect(permissive.warnings.map((w: any) => w.key)).toEqual(['foo:bar', 'hw:cpu_pollicy', 'plain']);
    expect(permissive.flavor.extraSpecs.map((s: any) => [s.key, s.validator?.name ?? null])).toEqual([
      ['foo:bar', null],
      ['hw:cpu_pollicy', null],
      ['plain', null],
      ['hw:cpu_policy', 'hw:cpu_policy'],
    ]);
    const badValue = (await h.gql(CREATE, { input: flavorInput('permissive-bad', { 'hw:cpu_policy': 'bogus', 'x:y': '1' }, 'PERMISSIVE') })).data.createFlavor;
    expect(badValue.issues).toEqual([{ path: 'extraSpecs.0.value', message: "Validation failed; 'bogus' is not one of: dedicated, shared, mixed." }]);

    const off = (await h.gql(CREATE, { input: flavorInput('off', { 'hw:cpu_policy': 'bogus', 'x:y': '1' }, 'OFF') })).data.createFlavor;
    expect(off.__typename).toBe('FlavorPayload');
    const offBadKey = (await h.gql(CREATE, { input: flavorInput('off-bad', { 'a/b': '1' }, 'OFF') })).data.createFlavor;
    expect(offBadKey.issues[0].message).toBe(
      "Invalid input for field/attribute extra_specs. Value: {'a/b': '1'}. 'a/b' does not match any of the regexes: '^[a-zA-Z0-9-_:. ]{1,255}$'",
    );
  });

  it("shows each extra spec with its validator's description and deprecation", async () => {
    const h = harness();
    const { data } = await h.gql(CREATE, { input: flavorInput('m1', { hide_hypervisor_id: 'true', 'hw:numa_cpus.0': '0-1' }) });
    const [deprecated, numa] = data.createFlavor.flavor.extraSpecs;
    expect(deprecated).toMatchObject({ key: 'hide_hypervisor_id', deprecated: true, validator: { name: 'hide_hypervisor_id' } });
    expect(deprecated.description).toContain('hw:hide_hypervisor_id');
    expect(data.createFlavor.warnings.map((w: any) => w.key)).toEqual(['hide_hypervisor_id']);
    expect(numa).toMatchObject({ key: 'hw:numa_cpus.0', deprecated: false, validator: { name: 'hw:numa_cpus.{num}' } });
    expect(numa.description).toContain('NUMA node');
  });

  it('checks sizes and names, and refuses a duplicate name', async () => {
    const h = harness();
    const bad = (await h.gql(CREATE, { input: { ...flavorInput(' m1'), vcpus: 0, swapMb: -1 } })).data.createFlavor;
    expect(bad.issues.map((i: any) => i.path)).toEqual(['name', 'vcpus', 'swapMb']);
    expect((await h.gql(CREATE, { input: { ...flavorInput('m1'), ephemeralGb: 5, swapMb: 512, isPublic: false } })).data.createFlavor.flavor).toMatchObject({
      ephemeralGb: 5,
      swapMb: 512,
      isPublic: false,
    });
    expect((await h.gql(CREATE, { input: flavorInput('m1') })).data.createFlavor).toEqual({ __typename: 'DuplicateName', field: 'name', value: 'm1' });
  });
});

describe('changing extra specs', () => {
  it('sets (checking only the keys given), replaces in place, unsets, and deletes', async () => {
    const h = harness();
    await h.gql(CREATE, { input: flavorInput('m1', { 'hw:cpu_policy': 'dedicated', 'custom:x': '1' }, 'PERMISSIVE') });
    const SET = `mutation ($input: SetFlavorExtraSpecsInput!) { setFlavorExtraSpecs(input: $input) {
      __typename ... on FlavorPayload { flavor { extraSpecs { key value } } } ... on InvalidInput { issues { path message } } ... on NotFound { message } } }`;
    const rejected = (await h.gql(SET, { input: { name: 'm1', extraSpecs: [{ key: 'hw:cpu_thread_policy', value: 'bogus' }] } })).data.setFlavorExtraSpecs;
    expect(rejected.issues[0].message).toBe("Validation failed; 'bogus' is not one of: prefer, isolate, require.");
    const set = (await h.gql(SET, { input: { name: 'm1', extraSpecs: [{ key: 'hw:cpu_policy', value: 'mixed' }, { key: 'hw:cpu_dedicated_mask', value: '^0' }] } })).data
      .setFlavorExtraSpecs;
    expect(set.flavor.extraSpecs).toEqual([
      { key: 'hw:cpu_policy', value: 'mixed' },
      { key: 'custom:x', value: '1' },
      { key: 'hw:cpu_dedicated_mask', value: '^0' },
    ]);
    expect((await h.gql(SET, { input: { name: 'nope', extraSpecs: [] } })).data.setFlavorExtraSpecs.__typename).toBe('NotFound');

    const UNSET = `mutation ($input: UnsetFlavorExtraSpecsInput!) { unsetFlavorExtraSpecs(input: $input) {
      __typename ... on FlavorPayload { flavor { extraSpecs { key } } } ... on InvalidInput { issues { path message } } } }`;
    const missing = (await h.gql(UNSET, { input: { name: 'm1', keys: ['custom:x', 'nope'] } })).data.unsetFlavorExtraSpecs;
    expect(missing.issues).toEqual([{ path: 'keys.1', message: 'Flavor m1 has no extra specs with key nope.' }]);
    const unset = (await h.gql(UNSET, { input: { name: 'm1', keys: ['custom:x'] } })).data.unsetFlavorExtraSpecs;
    expect(unset.flavor.extraSpecs.map((s: any) => s.key)).toEqual(['hw:cpu_policy', 'hw:cpu_dedicated_mask']);

    const { data } = await h.gql(`mutation { deleteFlavor(input: { name: "m1" }) { __typename ... on DeleteFlavorPayload { name } } }`);
    expect(data.deleteFlavor).toEqual({ __typename: 'DeleteFlavorPayload', name: 'm1' });
    expect(h.db.sqlite.prepare('SELECT COUNT(*) AS n FROM flavor_extra_specs').get()).toEqual({ n: 0 });
  });

  it('re-checks stored extra specs against the registry as it is now', async () => {
    const h = harness();
    await h.gql(CREATE, { input: flavorInput('m1', { 'hw:cpu_policy': 'bogus', 'x:y': '1' }, 'OFF') });
    const { data } = await h.gql(`{ flavor(name: "m1") { strict: extraSpecsCheck { valid errors { key message } } permissive: extraSpecsCheck(mode: PERMISSIVE) { valid warnings { key } } } }`);
    expect(data.flavor.strict.errors.map((e: any) => e.key)).toEqual(['hw:cpu_policy', 'x:y']);
    expect(data.flavor.permissive).toEqual({ valid: false, warnings: [{ key: 'x:y' }] });
  });
});

describe('queries', () => {
  it('lists flavors by name with filters, as a connection', async () => {
    const h = harness();
    for (const name of ['b.small', 'a.large', 'c.gpu']) await h.gql(CREATE, { input: flavorInput(name, name === 'c.gpu' ? { 'resources:VGPU': '1' } : {}) });
    const { data } = await h.gql(`{ all: flavors(first: 2) { totalCount nodes { name } pageInfo { hasNextPage } }
      gpu: flavors(filter: { extraSpecKey: "resources:VGPU" }) { totalCount nodes { name } }
      search: flavors(filter: { search: "SMALL" }) { nodes { name id } } }`);
    expect(data.all).toEqual({ totalCount: 3, nodes: [{ name: 'a.large' }, { name: 'b.small' }], pageInfo: { hasNextPage: true } });
    expect(data.gpu).toEqual({ totalCount: 1, nodes: [{ name: 'c.gpu' }] });
    const node = await h.gql(`query ($id: ID!) { node(id: $id) { ... on Flavor { name } } }`, { id: data.search.nodes[0].id });
    expect(node.data.node).toEqual({ name: 'b.small' });
  });

  it('reads a page of flavors with extra specs and requests in statements bounded by the relations, not the rows', async () => {
    const h = harness();
    await h.gql(`mutation { createImage(input: { name: "img", properties: [{ key: "trait:CUSTOM_A", value: "required" }] }) { __typename } }`);
    const PAGE = `{ flavors(first: 50) { nodes { name extraSpecs { key validator { name } } request(image: "img") { query } } } }`;
    await h.gql(CREATE, { input: flavorInput('f0', { 'hw:cpu_policy': 'dedicated' }) });
    const few = await h.countStatements(PAGE);
    for (let n = 1; n < 12; n++) await h.gql(CREATE, { input: flavorInput(`f${n}`, { 'trait:CUSTOM_B': 'required', 'resources1:VGPU': '1' }) });
    expect(await h.countStatements(PAGE)).toBe(few);
    expect(few).toBeLessThanOrEqual(5);
  });

  it('lists the registry by namespace and search, and finds the validator of a key', async () => {
    const h = harness();
    const { data } = await h.gql(`{
      hw: extraSpecValidators(namespace: "hw") { name }
      none: extraSpecValidators(namespace: "") { name deprecated }
      all: extraSpecValidators { source }
      search: extraSpecValidators(search: "realtime") { name }
      key: extraSpecValidator(key: "hw:numa_mem.3") { name namespace nameRegex parameters { name pattern description } value { type min max enum pattern } }
      trait: extraSpecValidator(key: "trait_gpu:CUSTOM_T4") { name value { enum } }
      unknown: extraSpecValidator(key: "hw:nope") { name }
    }`);
    expect(data.hw).toHaveLength(31);
    expect(data.none).toEqual([
      { name: 'hide_hypervisor_id', deprecated: true },
      { name: 'group_policy', deprecated: false },
    ]);
    expect(data.all).toHaveLength(490);
    expect(data.search.map((v: any) => v.name)).toEqual(['hw:cpu_realtime', 'hw:cpu_realtime_mask', 'hw:cpu_policy', 'hw:pmu']);
    expect(data.key).toEqual({
      name: 'hw:numa_mem.{num}',
      namespace: 'hw',
      nameRegex: 'hw:numa_mem.(?P<num>\\d+)',
      parameters: [{ name: 'num', pattern: '\\d+', description: 'The ID of the **guest** NUMA node.' }],
      value: { type: 'INT', min: 1, max: null, enum: null, pattern: null },
    });
    expect(data.trait).toEqual({ name: 'trait{group}:CUSTOM_{trait}', value: { enum: ['required', 'forbidden'] } });
    expect(data.unknown).toBeNull();
  });

  it('validateExtraSpecs answers with every problem, errors first in Nova’s order', async () => {
    const h = harness();
    const { data } = await h.gql(
      `query ($specs: [ExtraSpecInput!]!) { s: validateExtraSpecs(extraSpecs: $specs) { valid errors { document path key message } warnings { key } }
        p: validateExtraSpecs(extraSpecs: $specs, mode: PERMISSIVE) { valid errors { key } warnings { key message } } }`,
      { specs: [{ key: 'os:monitors', value: '9' }, { key: 'foo', value: 'x' }] },
    );
    expect(data.s).toEqual({
      valid: false,
      errors: [
        { document: null, path: 'extraSpecs.0.value', key: 'os:monitors', message: "Validation failed; '9' is greater than the max value of '8'." },
        { document: null, path: 'extraSpecs.1.key', key: 'foo', message: unknownKeyMessage('foo') },
      ],
      warnings: [],
    });
    expect(data.p).toEqual({
      valid: false,
      errors: [{ key: 'os:monitors' }],
      warnings: [{ key: 'foo', message: "extra spec 'foo' has no registered validator; permitted (permissive mode)" }],
    });
  });
});

describe('Flavor.request through GraphQL, against Nova 26', () => {
  const cases: any[] = fixture('golden/nova-requests/cases.json').cases;
  const results: any[] = fixture('golden/nova-requests/results.json').results;

  it(`stores ${cases.length} flavors and images and answers each request as Nova builds it`, async () => {
    const h = harness();
    const REQUEST = `query ($flavor: String!, $image: String, $bfv: Boolean) { flavor(name: $flavor) { request(image: $image, bootFromVolume: $bfv) {
      query groupPolicy rootRequired rootForbidden limit cpuPinningRequested apiError warnings imageTraitsRequired
      groups { suffix resources { resourceClass amount } required forbidden } fallback { query } } } }`;
    for (const [n, c] of cases.entries()) {
      const f = c.flavor;
      const created = await h.gql(CREATE, {
        input: { name: f.name, vcpus: f.vcpus, memoryMb: f.ram, rootGb: f.disk, ephemeralGb: f.ephemeral, swapMb: f.swap, validation: 'OFF', extraSpecs: Object.entries(f.extra_specs).map(([key, value]) => ({ key, value })) },
      });
      expect(created.data.createFlavor.__typename, c.id).toBe('FlavorPayload');
      if (c.image) {
        const image = await h.gql(`mutation ($input: CreateImageInput!) { createImage(input: $input) { __typename } }`, {
          input: { name: c.image.name, uuid: c.image.id, properties: Object.entries(c.image.properties).map(([key, value]) => ({ key, value })) },
        });
        expect(image.data.createImage.__typename, c.id).toBe('ImagePayload');
      }
      const nova = results[n];
      const answer = await h.gql(REQUEST, { flavor: f.name, image: c.image?.name ?? null, bfv: !!c.is_bfv }, { allowErrors: true });
      if (nova.error) {
        expect(answer.errors?.[0].message, c.id).toBe(nova.error.stage === 'image_meta' ? nova.api_validation.message : nova.error.message);
        expect(answer.errors?.[0].extensions.status, c.id).toBe(400);
      } else checkRequest(c.id, answer.data.flavor.request, nova);
      // The golden images share one uuid.
      if (c.image) await h.gql(`mutation ($name: String!) { deleteImage(input: { name: $name }) { __typename } }`, { name: c.image.name });
    }
  });

  function checkRequest(id: string, request: any, nova: any) {
    expect(request.query, id).toBe(nova.request.querystring);
    expect(request.fallback?.query ?? null, id).toBe(nova.fallback_request?.querystring ?? null);
    expect(request.apiError, id).toBe(nova.api_validation.ok ? null : nova.api_validation.message);
    const groups = request.groups.map((g: any) => ({
      suffix: g.suffix || null,
      resources: Object.fromEntries(g.resources.map((r: any) => [r.resourceClass, r.amount])),
      required_traits: g.required,
      forbidden_traits: g.forbidden,
    }));
    expect(groups, id).toEqual(nova.request.groups);
    const { group_policy, root_required, root_forbidden, limit } = nova.request;
    expect([request.groupPolicy, request.rootRequired, request.rootForbidden, request.limit], id).toEqual([group_policy, root_required, root_forbidden, limit]);
  }

  it('names an unknown image as a top-level error', async () => {
    const h = harness();
    await h.gql(CREATE, { input: flavorInput('m1') });
    const { errors } = await h.gql(`{ flavor(name: "m1") { request(image: "nope") { query } } }`, {}, { allowErrors: true });
    expect(errors?.[0]).toMatchObject({ message: 'Image nope could not be found.', extensions: { status: 404 } });
  });
});
