// placement-gql apply-config DIR: reading the directory as Nova does, refusing unsafe files, printing the plan.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { importSnapshot } from '../src/modules/snapshot/snapshot.service.js';
import { applyConfigCommand } from '../src/modules/provider-config/provider-config.command.js';
import { tempDbFile } from './helpers.js';

const CN1 = 'abcdef00-0000-4000-8000-000000000001';
const CN2 = 'abcdef00-0000-4000-8000-000000000002';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const DEFAULT = `meta:
  schema_version: '1.0'
providers:
  - identification:
      uuid: $COMPUTE_NODE
    inventories:
      additional:
        - CUSTOM_LLC:
            total: 22
            reserved: 2
    traits:
      additional:
        - CUSTOM_P_STATE
`;
const CN2_ONLY = `meta:
  schema_version: '1.0'
providers:
  - identification:
      name: cn2
    traits:
      additional: [CUSTOM_CN2_ONLY]
`;
const BROKEN = `meta:
  schema_version: '1.0'
providers:
  - identification:
      name: cn1
    traits:
      additional: [HW_CPU_X86_AVX2]
`;

let dir: string;
let dbFile: string;
let output: string[];

/** Files (name -> content) in a fresh 0700 directory, each 0644. */
function configDir(files: Record<string, string>) {
  const path = mkdtempSync(join(tmpdir(), 'provider-config-'));
  chmodSync(path, 0o700);
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(path, name), content);
    chmodSync(join(path, name), 0o644);
  }
  return path;
}

const run = (extra: Record<string, boolean> = {}) => applyConfigCommand({ dbFile, positionals: [dir], values: extra });

/** What apply-config may change: every provider's generation, traits and inventories. */
function providersNow() {
  const db = openDatabase(dbFile);
  try {
    return db.sqlite
      .prepare(
        `SELECT rp.name, rp.generation,
           (SELECT group_concat(t.name) FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id WHERE pt.resource_provider_id = rp.id) AS traits,
           (SELECT group_concat(rc.name || '=' || i.total) FROM inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id WHERE i.resource_provider_id = rp.id) AS inventories
         FROM resource_providers rp ORDER BY rp.id`,
      )
      .all();
  } finally {
    db.close();
  }
}

beforeEach(() => {
  dbFile = tempDbFile();
  const db = openDatabase(dbFile);
  importSnapshot(db, {
    providers: [
      { uuid: CN1, name: 'cn1', parent: null },
      { uuid: CN2, name: 'cn2', parent: null },
    ],
    inventories: { [CN1]: { VCPU: 8 } },
    traits: { [CN1]: ['COMPUTE_NODE'], [CN2]: ['COMPUTE_NODE'] },
  });
  db.close();
  output = [];
  const capture = (...args: unknown[]) => void output.push(args.join(' '));
  vi.spyOn(console, 'log').mockImplementation(capture);
  vi.spyOn(console, 'error').mockImplementation(capture);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('apply-config', () => {
  it('reads *.yaml in code point order (not .yml, not hidden files), prints the plan, and applies it', async () => {
    dir = configDir({ '20-cn2.yaml': CN2_ONLY, '10-default.yaml': DEFAULT, 'notes.yml': BROKEN, '.hidden.yaml': BROKEN });
    expect(await run({ 'dry-run': true })).toBe(0);
    expect(output.join('\n')).toContain('Dry run: nothing was changed; 2 provider(s) would change.');
    expect(providersNow()).toEqual([
      { name: 'cn1', generation: 0, traits: 'COMPUTE_NODE', inventories: 'VCPU=8' },
      { name: 'cn2', generation: 0, traits: 'COMPUTE_NODE', inventories: null },
    ]);

    output = [];
    expect(await run()).toBe(0);
    const text = output.join('\n');
    expect(text).toContain('in this order: 10-default.yaml, 20-cn2.yaml\n');
    expect(text).toContain('cn1 (abcdef00-0000-4000-8000-000000000001), generation 0 -> 1, configured by 10-default.yaml: $COMPUTE_NODE');
    expect(text).toContain('  + inventory CUSTOM_LLC: total 22, reserved 2, min_unit 1, max_unit 2147483647, step_size 1, allocation_ratio 1  [10-default.yaml]');
    expect(text).toContain('  + trait CUSTOM_CN2_ONLY  [20-cn2.yaml]');
    expect(text).toContain('Applied: 2 provider(s) changed.');
    expect(providersNow()).toEqual([
      { name: 'cn1', generation: 1, traits: 'COMPUTE_NODE,CUSTOM_P_STATE', inventories: 'VCPU=8,CUSTOM_LLC=22' },
      { name: 'cn2', generation: 1, traits: 'COMPUTE_NODE,CUSTOM_CN2_ONLY', inventories: null },
    ]);
  });

  it('removes what a deleted file had set when the directory is applied again', async () => {
    dir = configDir({ '10-default.yaml': DEFAULT, '20-cn2.yaml': CN2_ONLY });
    expect(await run()).toBe(0);
    dir = configDir({ '10-default.yaml': DEFAULT });
    output = [];
    expect(await run()).toBe(0);
    expect(output.join('\n')).toContain('cn2 (abcdef00-0000-4000-8000-000000000002), generation 1 -> 2, configured by 10-default.yaml: $COMPUTE_NODE\n  + inventory CUSTOM_LLC');
    expect(output.join('\n')).toContain('  - trait CUSTOM_CN2_ONLY  (set by 20-cn2.yaml)');
    expect(providersNow()[1]).toEqual({ name: 'cn2', generation: 2, traits: 'COMPUTE_NODE,CUSTOM_P_STATE', inventories: 'CUSTOM_LLC=22' });
  });

  it('refuses a file writable by group or others, and applies nothing', async () => {
    dir = configDir({ '10-default.yaml': DEFAULT, '20-cn2.yaml': CN2_ONLY });
    chmodSync(join(dir, '20-cn2.yaml'), 0o664);
    const before = providersNow();
    expect(await run()).toBe(2);
    expect(output.join('\n')).toContain(`Refusing ${join(dir, '20-cn2.yaml')}: it is writable by group or others (mode 0664)`);
    expect(providersNow()).toEqual(before);
  });

  it('refuses a directory others can write to', async () => {
    dir = configDir({ '10-default.yaml': DEFAULT });
    chmodSync(dir, 0o777);
    expect(await run()).toBe(2);
    expect(output.join('\n')).toContain(`Refusing the directory ${dir}: it is writable by group or others (mode 0777)`);
  });

  // Giving a file to another user takes root.
  it.skipIf(process.getuid?.() !== 0)('refuses a file owned by another user', async () => {
    dir = configDir({ '10-default.yaml': DEFAULT });
    chownSync(join(dir, '10-default.yaml'), 4242, 4242);
    const before = providersNow();
    expect(await run()).toBe(2);
    expect(output.join('\n')).toContain('it is owned by uid 4242, not by uid 0 that runs placement-gql');
    expect(providersNow()).toEqual(before);
  });

  it('an error in the last document applies nothing and exits non-zero', async () => {
    dir = configDir({ '10-default.yaml': DEFAULT, '20-cn2.yaml': CN2_ONLY, '30-broken.yaml': BROKEN });
    const before = providersNow();
    expect(await run()).toBe(2);
    const text = output.join('\n');
    expect(text).toContain('30-broken.yaml, providers[0].traits.additional (cn1): Only custom traits (CUSTOM_...) may be set by a provider config: HW_CPU_X86_AVX2 is not custom.');
    expect(text).toContain('Nothing was applied: 1 error(s).');
    expect(providersNow()).toEqual(before);
  });

  it('refuses an empty set (no *.yaml, or only *.yml) and keeps what earlier documents set, unless --allow-empty', async () => {
    dir = configDir({ '10-default.yaml': DEFAULT });
    expect(await run()).toBe(0);
    const applied = providersNow();
    for (const files of [{}, { 'default.yml': DEFAULT, '.hidden.yaml': DEFAULT }] as Record<string, string>[]) {
      dir = configDir(files);
      output = [];
      expect(await run()).toBe(2);
      expect(await run({ 'dry-run': true })).toBe(2);
      expect(providersNow()).toEqual(applied);
    }
    expect(output[0]).toBe(
      `Nothing was applied: no *.yaml documents in ${dir} (.hidden.yaml, default.yml are not read: Nova reads only *.yaml files that are not hidden). Applying no documents removes every inventory and trait that earlier documents set; give --allow-empty to do that.`,
    );
    output = [];
    expect(await run({ 'allow-empty': true })).toBe(0);
    expect(output.join('\n')).toContain('  - trait CUSTOM_P_STATE  (set by 10-default.yaml)');
    expect(providersNow()[0]).toEqual({ name: 'cn1', generation: 2, traits: 'COMPUTE_NODE', inventories: 'VCPU=8' });
  });

  it('does not follow a symbolic link out of the directory, naming it and printing nothing of its target', async () => {
    const outside = configDir({ 'secret.yaml': 'meta:\n  schema_version: hunter2-password\n' });
    dir = configDir({ '10-default.yaml': DEFAULT });
    symlinkSync(join(outside, 'secret.yaml'), join(dir, '20-link.yaml'));
    symlinkSync('/etc/passwd', join(dir, '30-passwd.yaml'));
    // A link to a file inside the directory is read as that file.
    symlinkSync('10-default.yaml', join(dir, '40-same.yaml'));
    const before = providersNow();
    expect(await run()).toBe(2);
    expect(output).toEqual([
      'Nothing was applied: 2 file(s) refused.',
      `  Refusing ${join(dir, '20-link.yaml')}: it is a symbolic link to a file outside ${dir}. Provider config is read only from the directory itself: copy the file in.`,
      `  Refusing ${join(dir, '30-passwd.yaml')}: it is a symbolic link to a file outside ${dir}. Provider config is read only from the directory itself: copy the file in.`,
    ]);
    expect(output.join('\n')).not.toMatch(/hunter2|root:/);
    expect(providersNow()).toEqual(before);
  });

  it('refuses a file that is not UTF-8, naming the byte, the line and the column', async () => {
    dir = configDir({ '10-default.yaml': DEFAULT });
    writeFileSync(join(dir, '20-latin1.yaml'), Buffer.concat([Buffer.from("meta:\n  schema_version: '1.0'\n# caf"), Buffer.from([0xe9]), Buffer.from('\nproviders: []\n')]));
    chmodSync(join(dir, '20-latin1.yaml'), 0o644);
    expect(await run()).toBe(2);
    expect(output).toContain(`  Cannot read ${join(dir, '20-latin1.yaml')}: it is not UTF-8 text: byte 35 (line 3, column 6) is not part of a UTF-8 character.`);
  });

  it('needs an existing directory', async () => {
    dir = join(configDir({}), 'missing');
    expect(await run()).toBe(1);
    expect(output.join('\n')).toContain('does not exist');
  });

  it('runs from the command line', async () => {
    dir = configDir({ '10-default.yaml': DEFAULT, '30-broken.yaml': BROKEN });
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile('npx', ['tsx', 'src/main.ts', 'apply-config', dir, '--db', dbFile], { cwd: ROOT }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as any).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Nothing was applied: 1 error(s).');
  }, 60_000);
});
