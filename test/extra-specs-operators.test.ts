// Operators' own extra-spec validators (a file named in the server configuration) and the generated docs.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { configureOperatorValidators, loadOperatorValidators, OperatorValidatorsRejected } from '../src/catalog/extra-specs-operators.js';
import { BUILT_IN_VALIDATORS, extraSpecRegistry, unknownKeyMessage, useOperatorValidators } from '../src/catalog/extra-specs.js';
import { extraSpecsMarkdown, glanceMetadefs } from '../src/modules/flavors/docs.command.js';
import { harness, tempDbFile } from './helpers.js';

const VALIDATORS = [
  { name: 'acme:fast', description: 'Schedule on the fast hosts (AcmeFilter).', value: { type: 'bool' } },
  {
    name: 'acme:rack.{rack}',
    description: 'Weight of a rack.',
    parameters: [{ name: 'rack', pattern: '[a-z]+\\d*', description: 'The rack.' }],
    value: { type: 'int', min: 0, max: 10, description: 'The weight.' },
  },
  { name: 'acme:tier', description: 'The service tier.', deprecated: true, value: { type: 'str', enum: ['gold', 'silver'] } },
  { name: 'hw:{anything}', description: 'Would cover every hw: key.', parameters: [{ name: 'anything', pattern: '.+' }], value: { type: 'str', pattern: 'x+' } },
  { name: 'hw:cpu_policy', description: 'A second definition of a built-in key.', value: { type: 'str' } },
];

function file(content: unknown, name = 'validators.json') {
  const path = tempDbFile(name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

afterEach(() => useOperatorValidators([]));

describe("operators' validators", () => {
  it('are checked when loaded, installed after the built-in ones, and listed with them', async () => {
    const loaded = loadOperatorValidators(file({ validators: VALIDATORS }));
    expect(loaded.validators.map((v) => v.name)).toEqual(['acme:fast', 'acme:rack.{rack}', 'acme:tier', 'hw:{anything}']);
    expect(loaded.warnings.map((w) => w.key)).toEqual(['hw:cpu_policy']);
    expect(extraSpecRegistry().all).toHaveLength(BUILT_IN_VALIDATORS.length + 4);

    const h = harness();
    const { data } = await h.gql(`{ acme: extraSpecValidators(namespace: "acme") { name source deprecated parameters { name } value { type min max } }
      key: extraSpecValidator(key: "acme:rack.b12") { name } builtIn: extraSpecValidator(key: "hw:cpu_policy") { source } }`);
    expect(data.acme.map((v: any) => [v.name, v.source, v.deprecated])).toEqual([
      ['acme:fast', 'OPERATOR', false],
      ['acme:rack.{rack}', 'OPERATOR', false],
      ['acme:tier', 'OPERATOR', true],
    ]);
    expect(data.acme[1]).toMatchObject({ parameters: [{ name: 'rack' }], value: { type: 'INT', min: 0, max: 10 } });
    expect(data.key).toEqual({ name: 'acme:rack.{rack}' });
    expect(data.builtIn).toEqual({ source: 'BUILT_IN' });
  });

  it("validate values with Nova's rules and texts; built-in validators take precedence", () => {
    loadOperatorValidators(file(VALIDATORS));
    const registry = extraSpecRegistry();
    const check = (key: string, value: string) => registry.check([{ key, value }]).errors.map((e) => e.message);
    expect(check('acme:fast', ' Yes ')).toEqual([]);
    expect(check('acme:fast', 'maybe')).toEqual(["Validation failed; 'maybe' is not a valid boolean-like value."]);
    expect(check('acme:rack.b12', '11')).toEqual(["Validation failed; '11' is greater than the max value of '10'."]);
    expect(check('acme:rack.B12', '1')).toEqual([unknownKeyMessage('acme:rack.B12')]);
    expect(check('acme:tier', 'bronze')).toEqual(["Validation failed; 'bronze' is not one of: gold, silver."]);
    expect(registry.check([{ key: 'acme:tier', value: 'gold' }]).warnings[0].message).toContain('deprecated');
    // hw:cpu_policy keeps its built-in rule; other hw: keys fall to the operators' pattern.
    expect(check('hw:cpu_policy', 'xxx')).toEqual(["Validation failed; 'xxx' is not one of: dedicated, shared, mixed."]);
    expect(check('hw:cpu_pollicy', 'xxx')).toEqual([]);
    expect(check('hw:cpu_pollicy', 'y')).toEqual(["Validation failed; 'y' is not of the format 'x+'."]);
    // Their namespace is known: an unknown acme: key is rejected as Nova rejects unknown hw: keys.
    expect(registry.classify('acme:nope')).toBe('unknown_in_known_namespace');
  });

  it('are read from YAML too', () => {
    const loaded = loadOperatorValidators(file('validators:\n  - name: "acme:zone"\n    description: The zone.\n    value: {type: str}\n', 'v.yaml'));
    expect(loaded.validators.map((v) => v.name)).toEqual(['acme:zone']);
  });

  it('reject a file with every problem listed, and change nothing', () => {
    const bad = [
      { name: 'acme:a.{n}', description: '', value: { type: 'float' } },
      { name: 'acme:b', description: 'x', parameters: [{ name: 'p', pattern: '(' }], value: { type: 'int', enum: ['1'], min: 'x' } },
      { name: 'acme/c', description: 'x', value: { type: 'str', pattern: '[a-' }, colour: 'blue' },
      { name: 'acme:d', description: 'x', value: { type: 'str' } },
      { name: 'acme:d', description: 'x', value: { type: 'str' } },
    ];
    let error: OperatorValidatorsRejected | undefined;
    try {
      loadOperatorValidators(file(bad));
    } catch (e) {
      error = e as OperatorValidatorsRejected;
    }
    expect(error).toBeInstanceOf(OperatorValidatorsRejected);
    expect(error!.problems.map((p) => p.path)).toEqual([
      'validators.0.description',
      'validators.0.name',
      'validators.0.value.type',
      'validators.1.parameters.0.pattern',
      'validators.1.parameters',
      'validators.1.value.min',
      'validators.1.value.enum',
      'validators.2.colour',
      'validators.2.name',
      'validators.2.value.pattern',
      'validators.4.name',
    ]);
    expect(extraSpecRegistry().all).toHaveLength(BUILT_IN_VALIDATORS.length);
  });

  it('are configured from a file name, with what to print', () => {
    expect(configureOperatorValidators(undefined)).toEqual({ ok: true, message: null });
    expect(configureOperatorValidators(file(VALIDATORS.slice(0, 2)))).toMatchObject({ ok: true, message: expect.stringContaining('2 from') });
    const missing = configureOperatorValidators('/nonexistent/validators.json');
    expect(missing.ok).toBe(false);
    expect(missing.message).toContain('cannot be read');
    const notJson = configureOperatorValidators(file('{', 'broken.json'));
    expect(notJson.message).toContain('is not valid JSON');
  });
});

describe('docs from the registry', () => {
  it('the Markdown reference lists every validator, by namespace', () => {
    loadOperatorValidators(file(VALIDATORS.slice(0, 3)));
    const text = extraSpecsMarkdown(extraSpecRegistry().all);
    for (const v of extraSpecRegistry().all) expect(text).toContain(`### \`${v.name}\``);
    expect(text).toContain('### `hide_hypervisor_id` (deprecated)');
    expect(text).toContain('### `acme:fast` (operator)');
    expect(text).toContain('- Value: **integer**, at least 1, at most 8');
  });

  it('the Glance metadefs have one namespace per extra-spec namespace, for OS::Nova::Flavor', () => {
    const docs = glanceMetadefs(extraSpecRegistry().all);
    expect(docs).toHaveLength(13);
    const hw = docs.find((d) => d.namespace === 'OS::Nova::hw')!;
    expect(hw.resource_type_associations).toEqual([{ name: 'OS::Nova::Flavor', prefix: 'hw:' }]);
    expect(hw.properties.numa_nodes).toMatchObject({ type: 'integer', minimum: 1 });
    expect(hw.properties.cpu_policy).toMatchObject({ type: 'string', enum: ['dedicated', 'shared', 'mixed'] });
    expect(hw.description).toContain('hw:numa_cpus.{num}');
    const trait = docs.find((d) => d.namespace === 'OS::Nova::trait')!;
    expect(Object.keys(trait.properties)).toHaveLength(345);
    expect(trait.description).toContain('trait{group}:CUSTOM_{trait}');
    const bare = docs.find((d) => d.namespace === 'OS::Nova::ExtraSpecs')!;
    expect(bare.resource_type_associations).toEqual([{ name: 'OS::Nova::Flavor' }]);
    expect(Object.keys(bare.properties)).toEqual(['hide_hypervisor_id', 'group_policy']);
  });
});
