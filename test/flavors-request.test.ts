// The request Nova builds from a flavor and an image, against Nova 26 (test/golden/nova-requests).
import { describe, expect, it } from 'vitest';
import { buildBootRequest, BootRequestError, parseCpuSpec, type BootRequest, type PlacementQuery } from '../src/modules/flavors/boot-request.js';
import { fixture } from './helpers.js';

interface NovaQuery {
  groups: { suffix: string | null; resources: Record<string, number>; required_traits: string[]; forbidden_traits: string[] }[];
  group_policy: string | null;
  root_required: string[];
  root_forbidden: string[];
  limit: number;
  cpu_pinning_requested: boolean;
  querystring: string;
}

interface NovaResult {
  id: string;
  api_validation: { ok: boolean; exception: string | null; message: string | null };
  image_traits_required: string[] | null;
  request: NovaQuery | null;
  fallback_request: NovaQuery | null;
  error: { stage: string; message: string } | null;
  warnings: string[];
}

const cases: any[] = fixture('golden/nova-requests/cases.json').cases;
const results: NovaResult[] = fixture('golden/nova-requests/results.json').results;

export function novaCase(c: any) {
  const f = c.flavor;
  return {
    flavor: { name: f.name, vcpus: f.vcpus, memoryMb: f.ram, rootGb: f.disk, ephemeralGb: f.ephemeral, swapMb: f.swap, extraSpecs: Object.entries(f.extra_specs) as [string, string][] },
    image: c.image ? { uuid: c.image.id, name: c.image.name, properties: Object.entries(c.image.properties) as [string, string][] } : null,
    options: { bootFromVolume: !!c.is_bfv },
  };
}

const withoutPrecheck = (q: (NovaQuery & { placement_precheck?: unknown }) | null) => {
  if (!q) return q;
  const { placement_precheck: _, ...rest } = q;
  return rest;
};

const shape = (q: PlacementQuery) => ({
  groups: q.groups.map((g) => ({
    suffix: g.suffix,
    resources: Object.fromEntries(g.resources.map((r) => [r.resourceClass, r.amount])),
    required_traits: g.required,
    forbidden_traits: g.forbidden,
  })),
  group_policy: q.groupPolicy,
  root_required: q.rootRequired,
  root_forbidden: q.rootForbidden,
  limit: q.limit,
  cpu_pinning_requested: q.cpuPinningRequested,
  querystring: q.query,
});

describe('Flavor.request against Nova 26', () => {
  it(`builds the request Nova builds for ${results.length} flavor and image pairs`, () => {
    expect(results.length).toBeGreaterThan(100);
    for (const [n, nova] of results.entries()) {
      const { flavor, image, options } = novaCase(cases[n]);
      expect(cases[n].id).toBe(nova.id);
      let ours: BootRequest | null = null;
      let error: string | null = null;
      try {
        ours = buildBootRequest(flavor, image, options);
      } catch (e) {
        if (!(e instanceof BootRequestError)) throw e;
        error = e.message;
      }
      if (nova.error) {
        // An image Nova cannot read is refused by the API with its message; other errors come from the scheduler.
        expect(error, nova.id).toBe(nova.error.stage === 'image_meta' ? nova.api_validation.message : nova.error.message);
        continue;
      }
      expect(error, nova.id).toBeNull();
      expect(shape(ours!), nova.id).toEqual(withoutPrecheck(nova.request));
      expect(ours!.fallback ? shape(ours!.fallback) : null, nova.id).toEqual(withoutPrecheck(nova.fallback_request));
      expect(ours!.imageTraitsRequired, nova.id).toEqual([...nova.image_traits_required!].sort());
      // Nova logs the same warnings again while building the fallback query.
      expect(ours!.warnings, nova.id).toEqual(nova.fallback_request ? nova.warnings.slice(0, nova.warnings.length / 2) : nova.warnings);
      expect(ours!.apiError, nova.id).toBe(nova.api_validation.ok ? null : nova.api_validation.message);
    }
  });

  it('gives the same request in the candidates search shape', () => {
    const { flavor, image } = novaCase(cases.find((c) => c.id === 'combo-1'));
    expect(buildBootRequest(flavor, image).candidatesRequest).toEqual({
      groups: [
        { suffix: null, resources: [{ resourceClass: 'DISK_GB', amount: 92 }, { resourceClass: 'MEMORY_MB', amount: 16384 }, { resourceClass: 'PCPU', amount: 8 }], required: ['COMPUTE_SECURITY_UEFI_SECURE_BOOT', 'CUSTOM_FAST', 'HW_CPU_HYPERTHREADING', 'HW_CPU_X86_AVX512F'], forbidden: [] },
        { suffix: '1', resources: [{ resourceClass: 'VGPU', amount: 2 }], required: ['CUSTOM_GPU_A100'], forbidden: [] },
      ],
      groupPolicy: 'ISOLATE',
      rootRequired: ['COMPUTE_ACCELERATORS'],
      rootForbidden: ['COMPUTE_STATUS_DISABLED'],
      limit: 1000,
    });
  });

  it('parses CPU masks as hardware.parse_cpu_spec', () => {
    expect([...parseCpuSpec('0-3,^2, 5')]).toEqual([0, 1, 3, 5]);
    expect([...parseCpuSpec('^1-2,0-3')]).toEqual([0, 3]);
    expect(() => parseCpuSpec('a')).toThrow("Invalid inclusion expression 'a'");
    expect(() => parseCpuSpec('^x')).toThrow("Invalid exclusion expression '^x'");
    expect(() => parseCpuSpec('0-1000000')).toThrow('larger than');
  });
});
