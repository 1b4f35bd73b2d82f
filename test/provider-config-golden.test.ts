// Provider-config documents judged as Nova 26 judges them: verdicts recorded from nova.compute.provider_config
// (test/golden/nova-provider-config/README.md), compared exactly: accepted or refused, the rule broken,
// jsonschema's keyword and path, the warnings, what was read, and Nova's merge into the providers.
import { describe, expect, it } from 'vitest';
import { fixture, harness } from './helpers.js';
import { checkDocuments, type ConfigDocument } from '../src/modules/provider-config/provider-config.documents.js';
import { applyProviderConfig } from '../src/modules/provider-config/provider-config.service.js';

interface Case {
  id: string;
  documents?: string[];
  files?: ConfigDocument[];
  tree?: { providers: { name: string; uuid?: string; parent?: string | null; compute_node?: boolean; traits?: string[]; inventory?: Record<string, Record<string, number>> }[] };
}

// Hand-written cases, and random mutations of valid documents.
const cases: Case[] = [...fixture('./golden/nova-provider-config/cases.json'), ...fixture('./golden/nova-provider-config/random.cases.json')];
const verdicts: any[] = [...fixture('./golden/nova-provider-config/verdicts.json'), ...fixture('./golden/nova-provider-config/random.verdicts.json')];
const verdictOf = new Map(verdicts.map((v) => [v.id, v]));

const documentsOf = (c: Case): ConfigDocument[] => c.files ?? (c.documents ?? []).map((content, i) => ({ name: `${String(i).padStart(2, '0')}.yaml`, content }));

/** Nova's warnings as rules, in the order it logged them. */
function novaWarnings(log: { level: string; message: string }[]) {
  return log
    .filter((l) => l.level === 'WARNING')
    .map((l) => (l.message.includes('Nova supports the major version') ? 'schema_version_minor' : l.message.includes('has no additional inventories or traits') ? 'no_op_provider' : l.message));
}

describe('provider config documents: Nova 26 verdicts', () => {
  it('has a verdict for every case', () => {
    expect(cases.length).toBeGreaterThan(600);
    for (const c of cases) expect(verdictOf.has(c.id), c.id).toBe(true);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const verdict = verdictOf.get(c.id).parse;
    const checked = checkDocuments(documentsOf(c));
    const mine = checked.warnings.map((w) => w.rule);
    if (verdict.ok) {
      expect(checked.errors).toEqual([]);
      expect(checked.documents).toEqual(verdict.files_read);
      expect(mine).toEqual(novaWarnings(verdict.log));
      // What was read: entries in Nova's order with the traits and the inventory values as written.
      expect(checked.entries.map((e) => e.key)).toEqual(verdict.providers.map((p: any) => p.key));
      verdict.providers.forEach((p: any, n: number) => {
        const entry = checked.entries[n];
        expect(new Set(entry.traits)).toEqual(new Set(p.config.traits?.additional ?? []));
        const expected: Record<string, Record<string, number | string>> = {};
        for (const item of p.config.inventories?.additional ?? []) if (item && typeof item === 'object' && !Array.isArray(item)) Object.assign(expected, item);
        expect([...entry.inventories.keys()].sort()).toEqual(Object.keys(expected).sort());
        const names: Record<string, string> = { min_unit: 'minUnit', max_unit: 'maxUnit', step_size: 'stepSize', allocation_ratio: 'allocationRatio' };
        for (const [rc, fields] of Object.entries(expected)) {
          for (const [field, value] of Object.entries(fields)) {
            // JSON has no infinity: the recording writes Python's inf as the text "Infinity".
            expect((entry.inventories.get(rc)!.fields as any)[names[field] ?? field]).toBe(value === 'Infinity' ? Infinity : value);
          }
        }
      });
      return;
    }
    const first = checked.errors[0];
    expect(first, 'refused').toBeDefined();
    if (verdict.error_kind === 'uncaught_exception') {
      // Nova fails with a Python error (nova-compute does not start): refused here, with a named rule.
      expect(['nova_internal_error', 'yaml_error']).toContain(first.rule);
    } else {
      expect(first.rule).toBe(verdict.error_kind);
    }
    if (verdict.schema_error) {
      expect(first.keyword).toBe(verdict.schema_error.validator);
      expect(first.instancePath).toEqual(verdict.schema_error.instance_path);
    }
    // Every document that Nova read before refusing is named; the problem names its document.
    expect(first.document).not.toBeNull();
    expect(mine.slice(0, novaWarnings(verdict.log).length)).toEqual(novaWarnings(verdict.log));
  });
});

const mergeCases = cases.filter((c) => c.tree && verdictOf.get(c.id).merge);

describe("provider config: Nova's merge into the providers", () => {
  it.each(mergeCases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const merge = verdictOf.get(c.id).merge;
    // Nova's tree before the merge: its uuids (generated for some) come from the recorded answer.
    const uuidOf = new Map<string, string>(merge.tree.map((p: any) => [p.name, p.uuid]));
    const snapshot = {
      providers: c.tree!.providers.map((p) => ({ uuid: uuidOf.get(p.name)!, name: p.name, parent: p.parent ? (uuidOf.get(p.parent) ?? p.parent) : null })),
      inventories: Object.fromEntries(c.tree!.providers.filter((p) => p.inventory).map((p) => [uuidOf.get(p.name)!, p.inventory!])),
      traits: Object.fromEntries(
        c.tree!.providers.map((p) => [uuidOf.get(p.name)!, [...(p.traits ?? []), ...((p.compute_node ?? !p.parent) ? ['COMPUTE_NODE'] : [])]]),
      ),
    };
    const h = harness(snapshot);
    const plan = h.db.transaction(() => applyProviderConfig(h.db, { documents: documentsOf(c) }));
    const absent = merge.log.filter((l: any) => l.message.includes('does not exist in the ProviderTree')).length;
    expect(plan.warnings.filter((w) => w.rule === 'unknown_provider')).toHaveLength(absent);
    if (!merge.ok) {
      const rule = merge.error.message.includes('owned by the virt driver') ? 'inventory_conflict' : 'same_provider_twice';
      expect(plan.errors.map((e) => e.rule)).toContain(rule);
      expect(plan.applied).toBe(false);
      return;
    }
    expect(plan.errors).toEqual([]);
    expect(plan.applied).toBe(true);
    for (const expected of merge.tree) {
      const traits = (h.db.sqlite.prepare('SELECT t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id JOIN resource_providers rp ON rp.id = pt.resource_provider_id WHERE rp.uuid = ? ORDER BY t.name').all(expected.uuid) as any[]).map((r) => r.name);
      expect(traits, expected.name).toEqual(expected.traits);
      const inventory = h.db.sqlite
        .prepare('SELECT rc.name, i.* FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id JOIN resource_providers rp ON rp.id = i.resource_provider_id WHERE rp.uuid = ? ORDER BY rc.name')
        .all(expected.uuid) as any[];
      expect(inventory.map((r) => r.name), expected.name).toEqual(Object.keys(expected.inventory).sort());
      for (const row of inventory) for (const [field, value] of Object.entries(expected.inventory[row.name])) expect(row[field], `${expected.name} ${row.name}.${field}`).toBe(value);
    }
  });
});
