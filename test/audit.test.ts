// The audit over a standalone cloud: planted extra-spec and property typos, a flavor and image pair
// that fits no provider, a node whose provider's traits were changed behind its back, and (once
// servers are known) an allocation whose instance is gone. A clean cloud has no findings.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { harness } from './helpers.js';
import { createFlavor } from '../src/modules/flavors/flavors.service.js';
import { createImage } from '../src/modules/images/images.service.js';
import { createNode } from '../src/modules/nodes/nodes.service.js';
import { setProviderTraits } from '../src/modules/traits/traits.service.js';
import { requireProvider } from '../src/modules/providers/providers.service.js';
import { run } from '../src/db/sql.js';
import type { Db } from '../src/db/client.js';

const CN1 = '11111111-1111-4111-8111-111111111111';
const CN2 = '22222222-2222-4222-8222-222222222222';
const NODE = '33333333-3333-4333-8333-333333333333';
const VM1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const VM2 = 'aaaaaaaa-0000-4000-8000-000000000002';

const CLOUD = {
  providers: [
    { uuid: CN1, name: 'cn1', parent: null },
    { uuid: CN2, name: 'cn2', parent: null },
  ],
  inventories: { [CN1]: { VCPU: 8, MEMORY_MB: 8192, DISK_GB: 100 }, [CN2]: { VCPU: 16, MEMORY_MB: 16384, DISK_GB: 200 } },
  traits: { [CN1]: ['COMPUTE_NODE', 'HW_CPU_X86_AVX2'], [CN2]: ['COMPUTE_NODE', 'CUSTOM_GOLD', 'HW_CPU_X86_AVX2'] },
  custom_traits: ['CUSTOM_GOLD'],
  allocations: { [VM1]: { [CN1]: { VCPU: 2, MEMORY_MB: 2048, DISK_GB: 20 } }, [VM2]: { [CN2]: { VCPU: 2, MEMORY_MB: 2048, DISK_GB: 20 } } },
  consumers: { [VM1]: { project_id: 'p1', user_id: 'u1', consumer_type: 'INSTANCE' }, [VM2]: { project_id: 'p1', user_id: 'u1', consumer_type: 'INSTANCE' } },
};

const AUDIT = '{ audit { findings { kind subject image key message } notes } }';

function plantClean(db: Db) {
  db.transaction(() => {
    createFlavor(db, { name: 'm1.small', vcpus: 2, memoryMb: 2048, rootGb: 20, extraSpecs: [
        { key: 'hw:cpu_policy', value: 'shared' },
        // Nova leaves keys without a namespace, or in one it does not know, to custom filters.
        { key: 'my_filter_key', value: 'x' },
        { key: 'acme:gpu', value: 'any' },
      ],
      validation: 'PERMISSIVE',
    });
    createFlavor(db, { name: 'm1.gold', vcpus: 2, memoryMb: 2048, rootGb: 20, extraSpecs: [{ key: 'trait:CUSTOM_GOLD', value: 'required' }] });
    createImage(db, { name: 'cirros', properties: [{ key: 'hw_disk_bus', value: 'virtio' }] });
    createImage(db, { name: 'avx', properties: [{ key: 'trait:HW_CPU_X86_AVX2', value: 'required' }] });
  });
}

describe('audit', () => {
  it('finds nothing in a clean cloud, and says orphaned allocations need the servers', async () => {
    const h = harness(CLOUD);
    plantClean(h.db);
    const { data } = await h.gql(AUDIT);
    expect(data.audit.findings).toEqual([]);
    expect(data.audit.notes).toEqual([expect.stringContaining('no Nova servers are mirrored')]);
  });

  it('finds planted typos, an unschedulable pair, node trait drift and an orphaned allocation, and nothing else', async () => {
    const h = harness(CLOUD);
    const db = h.db;
    plantClean(db);
    db.transaction(() => {
      createFlavor(db, { name: 'typo', vcpus: 1, memoryMb: 512, rootGb: 1, validation: 'OFF', extraSpecs: [{ key: 'hw:cpu_polcy', value: 'dedicated' }, { key: 'hw:mem_page_size', value: 'huge-ish' }, { key: 'hw_cpu_policy', value: 'dedicated' }] });
      createFlavor(db, { name: 'huge', vcpus: 64, memoryMb: 2048, rootGb: 20 });
      createImage(db, { name: 'typo-image', properties: [{ key: 'trait:CUSTOM_GOLDD', value: 'required' }, { key: 'trait:HW_CPU_X86_SSE', value: 'preferred' }, { key: 'hw_disk_buss', value: 'virtio' }, { key: 'os_version', value: '22.04' }] });
      // Every flavor but huge fits alone; no host has AVX512F.
      createImage(db, { name: 'avx512', properties: [{ key: 'trait:HW_CPU_X86_AVX512F', value: 'required' }] });
      createNode(db, { uuid: NODE, name: 'bm-1', resourceClass: 'baremetal', traits: ['CUSTOM_RAID5'] });
      const provider = requireProvider(db, NODE);
      setProviderTraits(db, { providerUuid: NODE, generation: provider.generation, traits: ['COMPUTE_NODE', 'CUSTOM_GOLD'] });
      // Nova's servers are known: VM1 is one of them, VM2 is not.
      run(db, "INSERT INTO mirrored_services (service, url, synced_at) VALUES ('servers', 'http://nova/v2.1', '2026-01-01T00:00:00Z')");
      run(db, "INSERT INTO servers (uuid, name, status, flavor, host, project_id) VALUES (?, 'vm1', 'ACTIVE', 'm1.small', 'cn1', 'p1')", VM1);
    });
    const { data } = await h.gql(AUDIT);
    const found = data.audit.findings.map((f: any) => [f.kind, f.subject, f.image, f.key]);
    expect(found).toEqual([
      ['FLAVOR_EXTRA_SPEC', 'typo', null, 'hw:cpu_polcy'],
      ['FLAVOR_EXTRA_SPEC', 'typo', null, 'hw:mem_page_size'],
      ['FLAVOR_EXTRA_SPEC', 'typo', null, 'hw_cpu_policy'],
      ['IMAGE_PROPERTY', 'typo-image', null, 'trait:HW_CPU_X86_SSE'],
      ['IMAGE_PROPERTY', 'typo-image', null, 'hw_disk_buss'],
      ['IMAGE_PROPERTY', 'typo-image', null, 'trait:CUSTOM_GOLDD'],
      ['UNSCHEDULABLE', 'huge', null, null],
      ['UNSCHEDULABLE', 'm1.gold', 'avx512', null],
      ['UNSCHEDULABLE', 'm1.small', 'avx512', null],
      ['NODE_TRAIT_DRIFT', NODE, null, null],
      ['ORPHANED_ALLOCATION', VM2, null, null],
    ]);
    const message = (kind: string, subject: string) => data.audit.findings.find((f: any) => f.kind === kind && f.subject === subject).message;
    expect(message('FLAVOR_EXTRA_SPEC', 'typo')).toContain("extra spec 'hw:cpu_polcy' does not appear to be a valid extra spec");
    expect(data.audit.findings[1].message).toContain('rule hw:mem_page_size');
    expect(data.audit.findings[2].message).toContain("Nova accepts and ignores 'hw_cpu_policy': no extra spec has that name (hw:cpu_policy?)");
    expect(message('UNSCHEDULABLE', 'huge')).toContain('VCPU');
    expect(data.audit.findings[4].message).toBe('Nova ignores hw_disk_buss=virtio: it reads no such image property (hw_disk_bus?).');
    expect(message('NODE_TRAIT_DRIFT', NODE)).toBe('Node bm-1: its provider lacks CUSTOM_RAID5; its provider has CUSTOM_GOLD, which the node has not.');
    expect(message('ORPHANED_ALLOCATION', VM2)).toContain('on cn2');
    expect(data.audit.notes).toEqual([]);
  });

  it('placement-gql audit prints the report and exits 1 with findings, 0 without', async () => {
    const h = harness(CLOUD);
    plantClean(h.db);
    const file = h.db.sqlite.name;
    const cli = (args: string[]) =>
      promisify(execFile)('npx', ['tsx', 'src/main.ts', 'audit', '--db', file, ...args], { cwd: new URL('..', import.meta.url).pathname }).then(
        (r) => ({ code: 0, stdout: r.stdout }),
        (e) => ({ code: e.code as number, stdout: e.stdout as string }),
      );
    const clean = await cli([]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('No findings.');
    h.db.transaction(() => createFlavor(h.db, { name: 'typo', vcpus: 1, memoryMb: 512, rootGb: 1, validation: 'OFF', extraSpecs: [{ key: 'hw:cpu_polcy', value: 'dedicated' }] }));
    const dirty = await cli([]);
    expect(dirty.code).toBe(1);
    expect(dirty.stdout).toContain('FLAVOR_EXTRA_SPEC (1)\n  typo [hw:cpu_polcy]: ');
    expect(dirty.stdout).toContain('1 finding.');
    const json = JSON.parse((await cli(['--json'])).stdout);
    expect(json.findings[0]).toMatchObject({ kind: 'FLAVOR_EXTRA_SPEC', subject: 'typo', key: 'hw:cpu_polcy' });
  }, 60_000);
});
