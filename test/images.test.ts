// Images through GraphQL: properties, required traits, what Nova ignores, and the rebuild pre-flight against Nova 26.
import { describe, expect, it } from 'vitest';
import { fixture, harness } from './helpers.js';

const CREATE = `mutation ($input: CreateImageInput!) { createImage(input: $input) {
  __typename
  ... on ImagePayload { image { name uuid requiredTraits properties { key value } } warnings { path key message } }
  ... on InvalidInput { issues { path message } }
  ... on DuplicateName { field value }
} }`;

const props = (p: Record<string, string>) => Object.entries(p).map(([key, value]) => ({ key, value }));

describe('images', () => {
  it('keeps the properties, derives the required traits and warns about what Nova ignores', async () => {
    const h = harness();
    const { data } = await h.gql(CREATE, {
      input: {
        name: 'ubuntu',
        uuid: '6B0F9C3E-2A51-4A5D-9D7E-0C3B8F1E2D4A',
        properties: props({
          'trait:HW_CPU_X86_AVX2': 'required',
          'trait:CUSTOM_TRUSTED': 'required',
          'trait:CUSTOM_SLOW': 'forbidden',
          'trait1:CUSTOM_GPU': 'required',
          'trait:CUSTOM_X': 'preferred',
          'trait:lowercase': 'required',
          hw_disk_bus: 'virtio',
        }),
      },
    });
    const { image, warnings } = data.createImage;
    expect(image).toMatchObject({ name: 'ubuntu', uuid: '6b0f9c3e-2a51-4a5d-9d7e-0c3b8f1e2d4a', requiredTraits: ['CUSTOM_TRUSTED', 'HW_CPU_X86_AVX2', 'lowercase'] });
    expect(image.properties[0]).toEqual({ key: 'trait:HW_CPU_X86_AVX2', value: 'required' });
    expect(warnings.map((w: any) => [w.path, w.key])).toEqual([
      ['properties.2.value', 'trait:CUSTOM_SLOW'],
      ['properties.3.key', 'trait1:CUSTOM_GPU'],
      ['properties.4.value', 'trait:CUSTOM_X'],
      ['properties.5.key', 'trait:lowercase'],
    ]);
    expect(warnings[0].message).toContain('forbidden');
    expect(warnings[1].message).toContain('request groups');
  });

  it('warns when Nova cannot read a typed property, with its text', async () => {
    const h = harness();
    const { data } = await h.gql(CREATE, { input: { name: 'bad', properties: props({ hw_cpu_policy: 'Dedicated' }) } });
    expect(data.createImage.warnings).toEqual([
      { path: 'properties', key: null, message: 'Nova refuses to boot servers from this image: Invalid image metadata. Error: Field value Dedicated is invalid' },
    ]);
  });

  it('sets and removes properties, lists, and deletes', async () => {
    const h = harness();
    await h.gql(CREATE, { input: { name: 'a', properties: props({ 'trait:CUSTOM_A': 'required', os_distro: 'ubuntu' }) } });
    await h.gql(CREATE, { input: { name: 'b' } });
    const SET = `mutation ($input: SetImagePropertiesInput!) { setImageProperties(input: $input) {
      __typename ... on ImagePayload { image { requiredTraits properties { key value } } } ... on InvalidInput { issues { path message } } } }`;
    const bad = (await h.gql(SET, { input: { name: 'a', remove: ['nope'], properties: props({ '': 'x' }) } })).data.setImageProperties;
    expect(bad.issues).toEqual([
      { path: 'properties.0.key', message: 'must be 1 to 255 characters long' },
      { path: 'remove.0', message: 'Image a has no property nope.' },
    ]);
    const set = (await h.gql(SET, { input: { name: 'a', remove: ['os_distro'], properties: props({ 'trait:CUSTOM_A': 'forbidden', 'trait:CUSTOM_B': 'required' }) } })).data
      .setImageProperties;
    expect(set.image).toEqual({
      requiredTraits: ['CUSTOM_B'],
      properties: [
        { key: 'trait:CUSTOM_A', value: 'forbidden' },
        { key: 'trait:CUSTOM_B', value: 'required' },
      ],
    });
    const { data } = await h.gql(`{ images { totalCount nodes { name } } withB: images(filter: { requiredTrait: "CUSTOM_B" }) { nodes { name } } image(name: "b") { properties { key } warnings { message } } }`);
    expect(data).toEqual({ images: { totalCount: 2, nodes: [{ name: 'a' }, { name: 'b' }] }, withB: { nodes: [{ name: 'a' }] }, image: { properties: [], warnings: [] } });
    expect((await h.gql(CREATE, { input: { name: 'b' } })).data.createImage).toEqual({ __typename: 'DuplicateName', field: 'name', value: 'b' });
    const deleted = await h.gql(`mutation { deleteImage(input: { name: "a" }) { __typename ... on DeleteImagePayload { name } } again: deleteImage(input: { name: "a" }) { __typename } }`);
    expect(deleted.data).toEqual({ deleteImage: { __typename: 'DeleteImagePayload', name: 'a' }, again: { __typename: 'NotFound' } });
    expect(h.db.sqlite.prepare('SELECT COUNT(*) AS n FROM image_properties').get()).toEqual({ n: 0 });
  });
});

describe('rebuildCheck against Nova 26 (test/golden/nova-rebuild)', () => {
  const cases: any[] = fixture('golden/nova-rebuild/cases.json');
  const results: any[] = fixture('golden/nova-rebuild/results.json');
  const CONSUMER = 'c0ffee00-0000-4000-8000-000000000001';

  /** The case's providers, traits and allocations as a snapshot, the flavor (unchecked) and the image. */
  async function load(c: any) {
    const allocations = Object.fromEntries(Object.entries(c.allocations).map(([rp, a]: [string, any]) => [rp, a.resources]));
    const inventories = Object.fromEntries(c.providers.map((p: any) => [p.uuid, Object.fromEntries(Object.keys(allocations[p.uuid] ?? {}).map((rc) => [rc, 100]))]));
    const h = harness({
      providers: c.providers.map((p: any) => ({ uuid: p.uuid, name: p.name, parent: p.parent ?? null })),
      inventories,
      traits: Object.fromEntries(c.providers.map((p: any) => [p.uuid, p.traits])),
      allocations: Object.keys(allocations).length ? { [CONSUMER]: allocations } : {},
      consumers: Object.keys(allocations).length ? { [CONSUMER]: { project_id: 'p', user_id: 'u' } } : {},
    });
    await h.gql(`mutation ($specs: [ExtraSpecInput!]) { createFlavor(input: { name: "f", vcpus: 2, memoryMb: 1024, rootGb: 10, extraSpecs: $specs, validation: OFF }) { __typename } }`, {
      specs: props(c.extra_specs),
    });
    await h.gql(CREATE, { input: { name: 'new', properties: props(c.image_properties) } });
    return h;
  }

  it(`gives Nova's verdict and text on ${cases.length} rebuilds, naming the traits at fault`, async () => {
    for (const [n, c] of cases.entries()) {
      const h = await load(c);
      const { data } = await h.gql(`query ($consumer: UUID!) { rebuildCheck(consumer: $consumer, flavor: "f", image: "new") {
        allowed reason imageTraits forbiddenTraits missingTraits providers { name } } }`, { consumer: CONSUMER });
      const nova = results[n];
      expect(nova.id).toBe(c.id);
      expect(nova.error, c.id).toBeNull();
      expect([data.rebuildCheck.allowed, data.rebuildCheck.reason], c.id).toEqual([nova.allowed, nova.reason]);
      const check = data.rebuildCheck;
      if (check.reason?.includes('forbidden')) expect(check.forbiddenTraits.length, c.id).toBeGreaterThan(0);
      if (check.reason?.includes('cannot be satisfied')) expect(check.missingTraits.length, c.id).toBeGreaterThan(0);
    }
  });

  it('names the missing traits and the providers it looked at', async () => {
    const h = await load(cases.find((c) => c.id === 'trait-on-unused-child'));
    const { data } = await h.gql(`{ rebuildCheck(consumer: "${CONSUMER}", flavor: "f", image: "new") { imageTraits missingTraits providers { name } } }`);
    expect(data.rebuildCheck).toEqual({ imageTraits: ['CUSTOM_OFFLOAD'], missingTraits: ['CUSTOM_OFFLOAD'], providers: [{ name: 'cn1' }] });
    const unknown = await h.gql(`{ rebuildCheck(consumer: "${CONSUMER}", flavor: "nope", image: "new") { allowed } }`, {}, { allowErrors: true });
    expect(unknown.errors?.[0].message).toBe('Flavor nope could not be found.');
  });
});
