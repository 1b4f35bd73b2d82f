// The extra-spec registry against Nova 26's verdicts (test/golden/nova-extra-specs, recorded with its oracle).
import { describe, expect, it } from 'vitest';
import { BUILT_IN_VALIDATORS, extraSpecRegistry, unknownKeyMessage, valueError, type ValidationMode } from '../src/catalog/extra-specs.js';
import { fixture } from './helpers.js';

interface Verdict {
  id: string;
  mode: 'strict' | 'permissive' | 'off';
  accepted: boolean;
  error: string | null;
  warnings: string[];
  keys: { key: string; class: string; validator: string | null; value_error: string | null }[];
}

const cases: { id: string; extra_specs: Record<string, string> }[] = fixture('golden/nova-extra-specs/cases.json').cases;
const verdicts: Verdict[] = fixture('golden/nova-extra-specs/verdicts.json').verdicts;
const specsOf = new Map(cases.map((c) => [c.id, Object.entries(c.extra_specs).map(([key, value]) => ({ key, value }))]));
const registry = extraSpecRegistry();
const check = (v: Verdict) => registry.check(specsOf.get(v.id)!, v.mode.toUpperCase() as ValidationMode);
const NOVA_NAMESPACED = new Set(['registered', 'unknown_in_known_namespace']);

describe('the built-in registry', () => {
  it("holds Nova's 490 validators in 12 namespaces, one deprecated", () => {
    expect(BUILT_IN_VALIDATORS).toHaveLength(490);
    expect(new Set(BUILT_IN_VALIDATORS.map((v) => v.namespaceRegex).filter((n) => n !== null)).size).toBe(12);
    expect(BUILT_IN_VALIDATORS.filter((v) => v.deprecated).map((v) => v.name)).toEqual(['hide_hypervisor_id']);
    expect(registry.find('hw:numa_cpus.3')?.nameRegex).toBe('hw:numa_cpus.(?P<num>\\d+)');
    expect(registry.find('trait_x:CUSTOM_A')?.namespace).toBe('trait');
  });

  it('classifies every key and finds its validator as Nova does', () => {
    expect(new Set(verdicts.flatMap((v) => v.keys.map((k) => k.key))).size).toBeGreaterThan(500);
    for (const v of verdicts) {
      for (const k of v.keys) {
        expect(registry.classify(k.key), k.key).toBe(k.class);
        expect(registry.find(k.key)?.name ?? null, k.key).toBe(k.validator);
      }
    }
  });

  it("gives Nova's verdict on every value, with Nova's text", () => {
    let checked = 0;
    for (const v of verdicts.filter((v) => v.mode === 'strict')) {
      const specs = specsOf.get(v.id)!;
      for (const k of v.keys) {
        if (k.class !== 'registered') continue;
        const value = specs.find((s) => s.key === k.key)!.value;
        expect(valueError(registry.find(k.key)!, value), `${k.key}=${value}`).toBe(k.value_error);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1500);
  });
});

describe('validation modes against the recorded verdicts', () => {
  it('OFF: only Nova’s JSON schema (microversion 2.85)', () => {
    for (const v of verdicts.filter((v) => v.mode === 'off')) {
      const result = check(v);
      expect(result.valid, v.id).toBe(v.accepted);
      expect(result.errors[0]?.message ?? null, v.id).toBe(v.error);
    }
  });

  it('PERMISSIVE: registered keys as Nova 2.86, every other key accepted with a warning', () => {
    for (const v of verdicts.filter((v) => v.mode === 'permissive')) {
      const result = check(v);
      expect(result.valid, v.id).toBe(v.accepted);
      expect(result.errors[0]?.message ?? null, v.id).toBe(v.error);
      if (v.accepted) expect(result.warnings.filter((w) => w.message.includes('no registered validator')).map((w) => w.message), v.id).toEqual(v.warnings);
    }
  });

  it("STRICT: Nova's verdict for keys in Nova's namespaces; every other key rejected", () => {
    let same = 0;
    let stricter = 0;
    for (const v of verdicts.filter((v) => v.mode === 'strict')) {
      const result = check(v);
      const messages = result.errors.map((e) => e.message);
      const outside = v.keys.filter((k) => !NOVA_NAMESPACED.has(k.class));
      const schemaError = v.error?.startsWith('Invalid input') ?? false;
      if (outside.length === 0 || schemaError) {
        expect(result.valid, v.id).toBe(v.accepted);
        expect(messages[0] ?? null, v.id).toBe(v.error);
        same++;
      } else {
        expect(result.valid, v.id).toBe(false);
        for (const k of outside) expect(messages, v.id).toContain(unknownKeyMessage(k.key));
        if (v.error) expect(messages, v.id).toContain(v.error);
        stricter++;
      }
    }
    expect(same).toBeGreaterThan(1000);
    expect(stricter).toBeGreaterThan(20);
  });

  it('lists every problem, in input order, with its key and path', () => {
    const result = registry.check(
      [
        { key: 'hw:cpu_policy', value: 'bogus' },
        { key: 'foo', value: '1' },
        { key: 'hw:numa_nodes', value: '0' },
        { key: 'hide_hypervisor_id', value: 'yes' },
      ],
      'STRICT',
    );
    expect(result.errors).toEqual([
      { path: 'extraSpecs.0.value', key: 'hw:cpu_policy', message: "Validation failed; 'bogus' is not one of: dedicated, shared, mixed." },
      { path: 'extraSpecs.1.key', key: 'foo', message: unknownKeyMessage('foo') },
      { path: 'extraSpecs.2.value', key: 'hw:numa_nodes', message: "Validation failed; '0' is less than the min value of '1'." },
    ]);
    expect(result.warnings.map((w) => w.key)).toEqual(['hide_hypervisor_id']);
  });

  it('uses the last value of a repeated key, at its first position, and says so', () => {
    const result = registry.check([
      { key: 'hw:numa_nodes', value: '0' },
      { key: 'hw:numa_nodes', value: '2' },
    ]);
    expect(result.valid).toBe(true);
    expect(result.warnings[0].message).toContain('more than once');
  });
});
