// Connecting to the upstream the way the OpenStack clients do: --upstream with a fixed token,
// clouds.yaml (+ secure.yaml), the OS_* variables; and the Keystone v3 session behind them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  UPSTREAM_OPTIONS,
  UPSTREAM_USAGE,
  UpstreamConfigError,
  resolveUpstreamOptions,
  upstreamConcurrency,
  type UpstreamFlags,
  type UpstreamLookup,
} from '../src/upstream/clouds.js';
import type { UpstreamSession } from '../src/upstream/session.js';

const PASSWORD = 'pw-Sup3r-s3cret';
const APP_SECRET = 'app-s3cret-rEaqvJka48mpv';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A working directory, a home and a site directory (the stand-in for /etc/openstack), all empty. */
function places(): UpstreamLookup & { root: string } {
  const root = mkdtempSync(join(tmpdir(), 'upstream-auth-'));
  dirs.push(root);
  const where = { root, cwd: join(root, 'work'), home: join(root, 'home'), siteDir: join(root, 'etc', 'openstack') };
  for (const dir of [where.cwd, where.home, where.siteDir]) mkdirSync(dir, { recursive: true });
  return where;
}

function write(dir: string, file: string, content: string) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), content);
}

const cloudsYaml = (authUrl: string, extra = '') => `clouds:
  prod:
    auth:
      auth_url: ${authUrl}
      username: admin
      password: ${PASSWORD}
      project_name: admin
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
${extra}`;

function configError(fn: () => unknown): UpstreamConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamConfigError);
    return error as UpstreamConfigError;
  }
  throw new Error('expected an UpstreamConfigError');
}

const resolve = (flags: UpstreamFlags, env: Record<string, string>, where: UpstreamLookup) => resolveUpstreamOptions(flags, env, where);
const close = (session: UpstreamSession | null) => (session as { close?: () => void } | null)?.close?.();

describe('resolveUpstreamOptions', () => {
  it('is null when nothing asks for an upstream (standalone mode); selectors alone do not count', () => {
    const where = places();
    expect(resolve({}, {}, where)).toBeNull();
    expect(resolve({}, { OS_REGION_NAME: 'RegionOne', OS_INTERFACE: 'internal', HOME: where.home }, where)).toBeNull();
  });

  it('--upstream URL --upstream-token TOKEN: a fixed endpoint and token, the token never described', async () => {
    const session = resolve({ upstream: 'http://127.0.0.1:8778/', 'upstream-token': 'admin-tok' }, {}, places())!;
    expect(await session.endpoint('placement')).toBe('http://127.0.0.1:8778');
    expect(await session.endpoint('compute')).toBeNull();
    expect(await session.token()).toBe('admin-tok');
    expect(session.tls).toEqual({ rejectUnauthorized: true });
    expect(session.describe()).toBe('http://127.0.0.1:8778 (fixed token)');
  });

  it('--upstream-cacert FILE is read as the CA bundle; an unreadable file names the flag and the path', () => {
    const where = places();
    write(where.cwd, 'ca.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const session = resolve({ upstream: 'https://placement.example:8778', 'upstream-token': 't', 'upstream-cacert': 'ca.pem' }, {}, where)!;
    expect(session.tls.ca).toContain('BEGIN CERTIFICATE');
    expect(session.tls.rejectUnauthorized).toBe(true);
    const error = configError(() => resolve({ upstream: 'https://p', 'upstream-token': 't', 'upstream-cacert': 'nope.pem' }, {}, where));
    expect(error.message).toBe(`--upstream-cacert ${join(where.cwd, 'nope.pem')}: cannot read it (ENOENT)`);
  });

  it('refuses contradictory or incomplete flags with the flag named', () => {
    const where = places();
    expect(configError(() => resolve({ 'upstream-token': 't' }, {}, where)).message).toBe('--upstream-token needs --upstream URL (the Placement endpoint)');
    expect(configError(() => resolve({ upstream: 'ftp://x', 'upstream-token': 't' }, {}, where)).message).toBe("--upstream must be an http:// or https:// URL, not 'ftp://x'");
    expect(configError(() => resolve({ upstream: 'http://p:8778' }, {}, where)).message).toMatch(/^--upstream URL needs a token: --upstream-token TOKEN \(or OS_TOKEN\), or Keystone credentials/);
    expect(configError(() => resolve({ 'upstream-cacert': 'ca.pem' }, {}, where)).message).toBe('--upstream-cacert needs an upstream: --upstream URL or --os-cloud NAME');
    expect(configError(() => resolve({ upstream: 'http://p', 'upstream-token': 't', 'os-cloud': 'prod' }, {}, where)).message).toBe(
      '--upstream-token and --os-cloud are two ways to authenticate: give one',
    );
  });

  it('--upstream URL with OS_TOKEN: the token from the environment (kept off the command line)', async () => {
    const session = resolve({ upstream: 'http://p:8778' }, { OS_TOKEN: 'env-token' }, places())!;
    expect(await session.token()).toBe('env-token');
    expect(session.describe()).not.toContain('env-token');
  });

  it('finds clouds.yaml in ./, then ~/.config/openstack/, then /etc/openstack/ (the first found), OS_CLIENT_CONFIG_FILE before all', () => {
    const where = places();
    const home = join(where.home, '.config', 'openstack');
    write(where.siteDir!, 'clouds.yaml', cloudsYaml('http://site:5000'));
    write(home, 'clouds.yml', cloudsYaml('http://home:5000'));
    write(where.cwd, 'clouds.yaml', cloudsYaml('http://cwd:5000/v3'));
    const seen = () => {
      const session = resolve({ 'os-cloud': 'prod' }, {}, where)!;
      close(session);
      return session.describe();
    };
    expect(seen()).toBe(
      `Keystone http://cwd:5000/v3 as user admin (domain Default) in project admin (domain Default) (region RegionOne, public endpoints)`,
    );
    rmSync(join(where.cwd, 'clouds.yaml'));
    expect(seen()).toMatch(/^Keystone http:\/\/home:5000\/v3 as /);
    rmSync(join(home, 'clouds.yml'));
    expect(seen()).toMatch(/^Keystone http:\/\/site:5000\/v3 as /);
    write(where.root, 'mine.yaml', cloudsYaml('http://override:5000'));
    const session = resolve({}, { OS_CLOUD: 'prod', OS_CLIENT_CONFIG_FILE: join(where.root, 'mine.yaml') }, where)!;
    close(session);
    expect(session.describe()).toMatch(/^Keystone http:\/\/override:5000\/v3 as /);
  });

  it('--os-cloud beats OS_CLOUD, and a cloud beats the OS_* credentials', () => {
    const where = places();
    write(where.cwd, 'clouds.yaml', cloudsYaml('http://one:5000') + cloudsYaml('http://two:5000').replace('clouds:\n  prod:', '  other:'));
    const env = { OS_CLOUD: 'other', OS_AUTH_URL: 'http://env:5000', OS_USERNAME: 'u', OS_PASSWORD: 'p', OS_PROJECT_NAME: 'x' };
    const a = resolve({ 'os-cloud': 'prod' }, env, where)!;
    const b = resolve({}, env, where)!;
    close(a);
    close(b);
    expect(a.describe()).toMatch(/^Keystone http:\/\/one:5000\/v3 /);
    expect(b.describe()).toMatch(/^Keystone http:\/\/two:5000\/v3 /);
  });

  it('says where it looked when there is no clouds.yaml, and which clouds a file has', () => {
    const where = places();
    const none = configError(() => resolve({ 'os-cloud': 'prod' }, {}, where));
    expect(none.message).toContain("cloud 'prod' asked for, but no clouds.yaml was found; looked for ");
    for (const path of [join(where.cwd, 'clouds.yaml'), join(where.home, '.config', 'openstack', 'clouds.yaml'), join(where.siteDir!, 'clouds.yaml')]) {
      expect(none.message).toContain(path);
    }
    write(where.cwd, 'clouds.yaml', cloudsYaml('http://ks:5000'));
    expect(configError(() => resolve({}, { OS_CLOUD: 'staging' }, where)).message).toBe(`no cloud named 'staging' in ${join(where.cwd, 'clouds.yaml')} (it has: prod)`);
    write(where.cwd, 'clouds.yaml', 'clouds: [unclosed');
    expect(configError(() => resolve({ 'os-cloud': 'prod' }, {}, where)).message).toMatch(new RegExp(`^${join(where.cwd, 'clouds.yaml')} is not valid YAML: `));
  });

  it('merges secure.yaml into clouds.yaml as openstacksdk does (the password kept apart)', () => {
    const where = places();
    write(where.cwd, 'clouds.yaml', cloudsYaml('http://ks:5000').replace(`      password: ${PASSWORD}\n`, ''));
    expect(configError(() => resolve({ 'os-cloud': 'prod' }, {}, where)).message).toBe(
      `password auth of user admin needs the password: auth.password is not set (in cloud 'prod' of ${join(where.cwd, 'clouds.yaml')}, named by --os-cloud)`,
    );
    write(join(where.home, '.config', 'openstack'), 'secure.yaml', `clouds:\n  prod:\n    auth:\n      password: ${PASSWORD}\n`);
    const session = resolve({ 'os-cloud': 'prod' }, {}, where)!;
    close(session);
    expect(session.describe()).toContain('as user admin (domain Default) in project admin (domain Default)');
  });

  it('reads the OS_* variables: password auth, domains (default when unset), region and interface', () => {
    const where = places();
    const env = {
      OS_AUTH_URL: 'https://keystone.example/identity',
      OS_USERNAME: 'placement-sync',
      OS_PASSWORD: PASSWORD,
      OS_PROJECT_NAME: 'service',
      OS_USER_DOMAIN_NAME: 'Users',
      OS_PROJECT_DOMAIN_ID: 'default',
      OS_REGION_NAME: 'RegionTwo',
      OS_INTERFACE: 'internal',
    };
    const session = resolve({}, env, where)!;
    close(session);
    expect(session.describe()).toBe(
      'Keystone https://keystone.example/identity/v3 as user placement-sync (domain Users) in project service (domain default) (region RegionTwo, internal endpoints)',
    );
    const plain = resolve({}, { OS_AUTH_URL: 'http://ks:5000/v2.0', OS_USERNAME: 'admin', OS_PASSWORD: PASSWORD, OS_PROJECT_ID: 'a6944d76' }, where)!;
    close(plain);
    expect(plain.describe()).toBe('Keystone http://ks:5000/v3 as user admin (domain default) in project a6944d76 (public endpoints)');
    const legacy = resolve({}, { OS_AUTH_URL: 'http://ks:5000', OS_USERNAME: 'admin', OS_PASSWORD: PASSWORD, OS_TENANT_NAME: 'admin', OS_ENDPOINT_TYPE: 'adminURL' }, where)!;
    close(legacy);
    expect(legacy.describe()).toBe('Keystone http://ks:5000/v3 as user admin (domain default) in project admin (domain default) (admin endpoints)');
  });

  it('reads application credentials (by id, or by name with the user), chosen without OS_AUTH_TYPE too', () => {
    const where = places();
    const envs: Record<string, string>[] = [
      { OS_AUTH_URL: 'http://ks:5000/v3', OS_AUTH_TYPE: 'v3applicationcredential', OS_APPLICATION_CREDENTIAL_ID: '423f19a4', OS_APPLICATION_CREDENTIAL_SECRET: APP_SECRET },
      { OS_AUTH_URL: 'http://ks:5000/v3', OS_APPLICATION_CREDENTIAL_ID: '423f19a4', OS_APPLICATION_CREDENTIAL_SECRET: APP_SECRET },
    ];
    for (const env of envs) {
      const session = resolve({}, env, where)!;
      close(session);
      expect(session.describe()).toBe('Keystone http://ks:5000/v3 as application credential 423f19a4 (public endpoints)');
    }
    write(where.cwd, 'clouds.yaml', `clouds:
  ci:
    auth_type: v3applicationcredential
    auth:
      auth_url: http://ks:5000
      application_credential_name: sync
      application_credential_secret: ${APP_SECRET}
      username: demo
      user_domain_id: default
`);
    const named = resolve({ 'os-cloud': 'ci' }, {}, where)!;
    close(named);
    expect(named.describe()).toBe('Keystone http://ks:5000/v3 as application credential sync of user demo (domain default) (public endpoints)');
  });

  it('names the missing setting and where it was looked for', () => {
    const where = places();
    const env = (extra: Record<string, string>) => ({ OS_AUTH_URL: 'http://ks:5000', OS_USERNAME: 'admin', OS_PASSWORD: PASSWORD, OS_PROJECT_NAME: 'admin', ...extra });
    const cases: Array<[Record<string, string>, string]> = [
      [{ OS_PASSWORD: '' }, 'password auth of user admin needs the password: OS_PASSWORD is not set (in the environment)'],
      [{ OS_USERNAME: '' }, 'password auth needs a user: OS_USERNAME or OS_USER_ID is not set (in the environment)'],
      [{ OS_PROJECT_NAME: '' }, 'password auth is scoped to a project (Placement needs a token with a service catalog): OS_PROJECT_NAME or OS_PROJECT_ID is not set (in the environment)'],
      [{ OS_AUTH_URL: '' }, 'Keystone auth needs its URL: OS_AUTH_URL is not set (in the environment)'],
      [{ OS_AUTH_URL: 'keystone:5000' }, "OS_AUTH_URL must be an http:// or https:// URL, not 'keystone:5000'"],
      [{ OS_INTERFACE: 'private' }, "OS_INTERFACE 'private' (in the environment) must be public, internal or admin"],
      [{ OS_AUTH_TYPE: 'v3oidcpassword' }, "OS_AUTH_TYPE 'v3oidcpassword' (in the environment) is not supported: use password, v3password, v3applicationcredential or admin_token"],
      [{ OS_PASSWORD: '', OS_AUTH_TYPE: 'v3applicationcredential', OS_APPLICATION_CREDENTIAL_ID: 'abc' }, 'application credential abc needs its secret: OS_APPLICATION_CREDENTIAL_SECRET is not set (in the environment)'],
      [{ OS_CACERT: '/nonexistent/ca.pem' }, 'OS_CACERT (in the environment) /nonexistent/ca.pem: cannot read it (ENOENT)'],
    ];
    for (const [extra, message] of cases) expect(configError(() => resolve({}, env(extra), where)).message).toBe(message);
    write(where.cwd, 'clouds.yaml', 'clouds:\n  prod:\n    auth:\n      username: admin\n      password: x\n      project_name: admin\n');
    expect(configError(() => resolve({ 'os-cloud': 'prod' }, {}, where)).message).toBe(
      `Keystone auth needs its URL: auth.auth_url is not set (in cloud 'prod' of ${join(where.cwd, 'clouds.yaml')}, named by --os-cloud)`,
    );
  });

  it('takes TLS from clouds.yaml: cacert (relative to the working directory), verify: false, OS_INSECURE', () => {
    const where = places();
    write(where.cwd, 'cloud-ca.pem', 'PEM FROM CLOUDS.YAML');
    write(where.cwd, 'clouds.yaml', cloudsYaml('https://ks:5000', '    cacert: cloud-ca.pem\n'));
    const withCa = resolve({ 'os-cloud': 'prod' }, {}, where)!;
    close(withCa);
    expect(withCa.tls).toEqual({ ca: 'PEM FROM CLOUDS.YAML', rejectUnauthorized: true });
    write(where.cwd, 'flag-ca.pem', 'PEM FROM THE FLAG');
    const flagWins = resolve({ 'os-cloud': 'prod', 'upstream-cacert': 'flag-ca.pem' }, {}, where)!;
    close(flagWins);
    expect(flagWins.tls.ca).toBe('PEM FROM THE FLAG');
    write(where.cwd, 'clouds.yaml', cloudsYaml('https://ks:5000', '    verify: false\n'));
    const unverified = resolve({ 'os-cloud': 'prod' }, {}, where)!;
    close(unverified);
    expect(unverified.tls).toEqual({ rejectUnauthorized: false });
    const insecure = resolve({}, { OS_AUTH_URL: 'https://ks', OS_USERNAME: 'a', OS_PASSWORD: 'b', OS_PROJECT_ID: 'c', OS_INSECURE: 'true' }, where)!;
    close(insecure);
    expect(insecure.tls).toEqual({ rejectUnauthorized: false });
  });

  it('takes the Placement endpoint from --upstream or placement_endpoint_override while Keystone gives the token', async () => {
    const where = places();
    write(where.cwd, 'clouds.yaml', cloudsYaml('http://ks:5000', '    placement_endpoint_override: http://placement.internal:8778/\n'));
    const overridden = resolve({ 'os-cloud': 'prod' }, {}, where)!;
    close(overridden);
    expect(await overridden.endpoint('placement')).toBe('http://placement.internal:8778');
    const flagged = resolve({ 'os-cloud': 'prod', upstream: 'http://127.0.0.1:8778' }, {}, where)!;
    close(flagged);
    expect(await flagged.endpoint('placement')).toBe('http://127.0.0.1:8778');
    expect(flagged.describe()).toContain('placement at http://127.0.0.1:8778');
  });

  it('admin_token (keystoneauth\'s fixed token and endpoint) from clouds.yaml', async () => {
    const where = places();
    write(where.cwd, 'clouds.yaml', 'clouds:\n  noauth:\n    auth_type: admin_token\n    auth:\n      token: admin\n      endpoint: http://127.0.0.1:8778\n');
    const session = resolve({ 'os-cloud': 'noauth' }, {}, where)!;
    expect(await session.endpoint('placement')).toBe('http://127.0.0.1:8778');
    expect(await session.token()).toBe('admin');
  });

  it('never shows a password or secret in descriptions or errors', () => {
    const where = places();
    const shown: string[] = [];
    const attempts: Array<[UpstreamFlags, Record<string, string>]> = [
      [{}, { OS_AUTH_URL: 'http://ks:5000', OS_USERNAME: 'admin', OS_PASSWORD: PASSWORD, OS_PROJECT_NAME: 'admin' }],
      [{}, { OS_AUTH_URL: 'http://ks:5000', OS_USERNAME: 'admin', OS_PASSWORD: PASSWORD }],
      [{}, { OS_AUTH_URL: 'http://ks:5000', OS_APPLICATION_CREDENTIAL_ID: 'abc', OS_APPLICATION_CREDENTIAL_SECRET: APP_SECRET }],
      [{}, { OS_AUTH_URL: 'http://ks:5000', OS_APPLICATION_CREDENTIAL_NAME: 'abc', OS_APPLICATION_CREDENTIAL_SECRET: APP_SECRET }],
      [{}, { OS_AUTH_URL: 'http://ks:5000', OS_USERNAME: 'admin', OS_PASSWORD: PASSWORD, OS_PROJECT_NAME: 'admin', OS_INTERFACE: 'nope' }],
      [{ upstream: 'http://p', 'upstream-token': APP_SECRET }, {}],
    ];
    for (const [flags, env] of attempts) {
      try {
        const session = resolve(flags, env, where)!;
        close(session);
        shown.push(session.describe());
      } catch (error) {
        shown.push((error as Error).message);
      }
    }
    expect(shown).toHaveLength(attempts.length);
    for (const text of shown) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(APP_SECRET);
    }
  });
});

describe('the upstream command-line options', () => {
  it('spread into parseArgs and read back', () => {
    const { values } = parseArgs({
      args: ['--os-cloud', 'prod', '--upstream-cacert', 'ca.pem', '--upstream-concurrency', '4', '--db', 'x.db'],
      options: { db: { type: 'string' }, ...UPSTREAM_OPTIONS },
    });
    expect(values).toEqual({ 'os-cloud': 'prod', 'upstream-cacert': 'ca.pem', 'upstream-concurrency': '4', db: 'x.db' });
    expect(upstreamConcurrency(values)).toBe(4);
    expect(upstreamConcurrency({})).toBe(8);
    expect(() => upstreamConcurrency({ 'upstream-concurrency': '0' })).toThrow("--upstream-concurrency must be a whole number from 1 to 64, not '0'");
    for (const option of Object.keys(UPSTREAM_OPTIONS)) expect(UPSTREAM_USAGE).toContain(`--${option}`);
  });
});
