// Which upstream to follow and how to authenticate, read the way the OpenStack clients read it:
// --upstream URL with a fixed token, a named cloud of clouds.yaml (with secure.yaml merged in, as
// openstacksdk does), or the OS_* environment variables. Every problem names the setting and where
// it was looked for; no message ever shows a password, secret or token.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { keystoneSession, type DomainRef, type EndpointInterface, type KeystoneAuth, type KeystoneScope, type Ref } from './keystone.js';
import { fixedTokenSession, withServiceUrls, type TlsOptions, type UpstreamSession } from './session.js';
import { redactUrl } from './redact.js';

/** parseArgs option definitions, to spread into a command's options. */
export const UPSTREAM_OPTIONS = {
  upstream: { type: 'string' },
  'upstream-token': { type: 'string' },
  'upstream-cacert': { type: 'string' },
  'os-cloud': { type: 'string' },
  'upstream-concurrency': { type: 'string' },
  'upstream-timeout': { type: 'string' },
  'upstream-max-body': { type: 'string' },
  'replace-db': { type: 'boolean' },
  'nova-url': { type: 'string' },
  'glance-url': { type: 'string' },
  'ironic-url': { type: 'string' },
} as const;

export interface UpstreamFlags {
  upstream?: string;
  'upstream-token'?: string;
  'upstream-cacert'?: string;
  'os-cloud'?: string;
  'upstream-concurrency'?: string;
  'upstream-timeout'?: string;
  'upstream-max-body'?: string;
  'replace-db'?: boolean;
  'nova-url'?: string;
  'glance-url'?: string;
  'ironic-url'?: string;
}

export const DEFAULT_UPSTREAM_CONCURRENCY = 8;
export const DEFAULT_UPSTREAM_TIMEOUT_S = 60;
export const DEFAULT_UPSTREAM_MAX_BODY_MB = 256;

export const UPSTREAM_USAGE = `Upstream options (sync, serve):
  --upstream URL --upstream-token TOKEN   a Placement endpoint and a fixed token (e.g. admin on noauth2)
  --os-cloud NAME                         a cloud of clouds.yaml (./, ~/.config/openstack/, /etc/openstack/) and secure.yaml;
                                          --os-cloud envvars: the OS_* variables (OS_AUTH_URL, OS_USERNAME, OS_PASSWORD,
                                          OS_PROJECT_NAME, ... or OS_APPLICATION_CREDENTIAL_ID / _SECRET)
                                          sync also reads OS_CLOUD, then the OS_* variables, without a flag;
                                          serve is in gateway mode only with --upstream or --os-cloud
  --upstream-cacert FILE                  CA bundle (PEM) to verify the upstream's TLS certificates
  --upstream-concurrency N                requests in flight at once (default ${DEFAULT_UPSTREAM_CONCURRENCY})
  --upstream-timeout S                    each answer must arrive whole within S seconds (default ${DEFAULT_UPSTREAM_TIMEOUT_S})
  --upstream-max-body MB                  answers larger than MB megabytes are refused as they arrive (default ${DEFAULT_UPSTREAM_MAX_BODY_MB})
  --replace-db                            the mirror may replace the database's content when it holds other data or
                                          another upstream's mirror (without it, such a database is refused)
  --nova-url URL                          Nova's endpoint, with /v2.1 (flavors and servers are mirrored from it)
  --glance-url URL                        Glance's endpoint, versionless (images are mirrored from it)
  --ironic-url URL                        Ironic's endpoint (bare-metal nodes are mirrored from it)
                                          these replace the service catalog's; with --upstream-token they are the only
                                          way to mirror those services, and the token is sent to each`;

/** The upstream settings are missing, contradictory or unreadable. */
export class UpstreamConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamConfigError';
  }
}

export interface UpstreamLookup {
  cwd: string;
  home: string;
  /** The site directory (default /etc/openstack). */
  siteDir?: string;
  /**
   * Only --upstream or --os-cloud select an upstream; OS_CLOUD and the OS_* variables then only fill
   * in (so `serve` stays standalone in a shell where an openrc file was sourced). `--os-cloud envvars`
   * names the OS_* variables, as in openstacksdk.
   */
  requireFlag?: boolean;
}

type Env = Record<string, string | undefined>;
type Settings = Record<string, unknown> & { auth?: Record<string, unknown> };

/** Where a cloud's settings came from, and what each setting is called there. */
interface Origin {
  /** e.g. "cloud 'prod' of /etc/openstack/clouds.yaml" or "the environment". */
  label: string;
  name(key: string): string;
}

const ENV_ORIGIN: Origin = { label: 'the environment', name: (key) => `OS_${key.toUpperCase()}` };

// Settings that are the auth plugin's (they may sit in `auth:` or at the cloud's top level, as openstacksdk allows).
const AUTH_KEYS = new Set([
  'auth_url', 'username', 'user_id', 'password', 'user_domain_name', 'user_domain_id', 'project_name', 'project_id',
  'project_domain_name', 'project_domain_id', 'domain_name', 'domain_id', 'default_domain_id', 'default_domain_name',
  'application_credential_id', 'application_credential_name', 'application_credential_secret', 'system_scope',
  'token', 'endpoint',
]);

// Older spellings openstacksdk still accepts.
const ALIASES: Record<string, string> = {
  tenant_name: 'project_name',
  tenant_id: 'project_id',
  auth_token: 'token',
  auth_plugin: 'auth_type',
  endpoint_type: 'interface',
  os_endpoint_type: 'interface',
};

/** Keys lower-cased and with `-` as `_`, aliases mapped, auth keys moved into `auth`. */
function normalize(raw: Record<string, unknown>): Settings {
  const out: Settings = { auth: {} };
  const put = (key: string, value: unknown) => {
    const k = key.toLowerCase().replace(/-/g, '_');
    const name = ALIASES[k] ?? k;
    if (AUTH_KEYS.has(name)) out.auth![name] = value;
    else out[name] = value;
  };
  for (const [key, value] of Object.entries(raw)) if (key !== 'auth') put(key, value);
  // Values under auth: win over the same key at the top level.
  const auth = raw.auth;
  if (auth && typeof auth === 'object') for (const [key, value] of Object.entries(auth)) put(key, value);
  return out;
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const s = String(value).trim();
  return s === '' ? undefined : s;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** openstacksdk's merge of secure.yaml into clouds.yaml: nested mappings merged, other values replaced. */
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = isObject(value) && isObject(out[key]) ? merge(out[key] as Record<string, unknown>, value) : value;
  return out;
}

/** openstacksdk's search path: OS_CLIENT_CONFIG_FILE, then ./, the user's config directory, /etc/openstack; .yaml, .yml, .json. */
export function configCandidates(stem: 'clouds' | 'secure', env: Env, where: UpstreamLookup): string[] {
  const dirs = [where.cwd];
  const xdg = text(env.XDG_CONFIG_HOME);
  if (xdg) dirs.push(join(xdg, 'openstack'));
  dirs.push(join(where.home, '.config', 'openstack'), where.siteDir ?? '/etc/openstack');
  const files = [...new Set(dirs)].flatMap((dir) => ['.yaml', '.yml', '.json'].map((ext) => join(dir, stem + ext)));
  const override = text(stem === 'clouds' ? env.OS_CLIENT_CONFIG_FILE : env.OS_CLIENT_SECURE_FILE);
  return override ? [resolve(where.cwd, override), ...files] : files;
}

/** The first of the files that exists and can be read, parsed; null when none does. */
function loadFirst(candidates: string[]): { file: string; content: Record<string, unknown> } | null {
  for (const file of candidates) {
    let source: string;
    try {
      source = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Missing or unreadable (EACCES): openstacksdk moves on to the next place.
      if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR') continue;
      throw new UpstreamConfigError(`cannot read ${file}: ${code}`);
    }
    let content: unknown;
    try {
      content = parseYaml(source); // JSON is YAML too
    } catch (error) {
      throw new UpstreamConfigError(`${file} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    }
    if (content !== null && content !== undefined && !isObject(content)) throw new UpstreamConfigError(`${file} must be a mapping with a 'clouds' key`);
    return { file, content: (content ?? {}) as Record<string, unknown> };
  }
  return null;
}

function shortList(files: string[]): string {
  return files.join(', ');
}

function cloudSettings(name: string, env: Env, where: UpstreamLookup): { settings: Settings; origin: Origin } {
  const candidates = configCandidates('clouds', env, where);
  const found = loadFirst(candidates);
  if (!found) throw new UpstreamConfigError(`cloud '${name}' asked for, but no clouds.yaml was found; looked for ${shortList(candidates)}`);
  const secure = loadFirst(configCandidates('secure', env, where));
  const clouds = isObject(found.content.clouds) ? found.content.clouds : {};
  const secureClouds = secure && isObject(secure.content.clouds) ? secure.content.clouds : {};
  const mine = clouds[name];
  if (!isObject(mine)) {
    const known = Object.keys(clouds);
    throw new UpstreamConfigError(`no cloud named '${name}' in ${found.file} (${known.length ? `it has: ${known.join(', ')}` : 'it defines no clouds'})`);
  }
  if (mine.profile !== undefined || mine.cloud !== undefined) {
    throw new UpstreamConfigError(`cloud '${name}' of ${found.file} uses a vendor profile ('profile'), which is not supported: give its auth_url and settings in the cloud itself`);
  }
  const extra = isObject(secureClouds[name]) ? (secureClouds[name] as Record<string, unknown>) : {};
  const from = secure && Object.keys(extra).length ? `${found.file} (with ${secure.file})` : found.file;
  const settings = normalize(merge(mine, extra));
  return {
    settings,
    origin: { label: `cloud '${name}' of ${from}`, name: (key) => (AUTH_KEYS.has(key) ? `auth.${key}` : key) },
  };
}

// Variables that say "the environment holds Keystone credentials" (OS_REGION_NAME and the like only select).
const ENV_CREDENTIALS = ['OS_AUTH_URL', 'OS_USERNAME', 'OS_USER_ID', 'OS_PASSWORD', 'OS_APPLICATION_CREDENTIAL_ID', 'OS_APPLICATION_CREDENTIAL_NAME', 'OS_APPLICATION_CREDENTIAL_SECRET', 'OS_AUTH_TYPE'];

function envSettings(env: Env): Settings | null {
  if (!ENV_CREDENTIALS.some((key) => text(env[key]))) return null;
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('OS_') || value === undefined || value === '') continue;
    if (['OS_CLOUD', 'OS_CLOUD_NAME', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE'].includes(key)) continue;
    raw[key.slice(3).toLowerCase()] = value;
  }
  return normalize(raw);
}

function missing(origin: Origin, what: string, keys: string[]): UpstreamConfigError {
  const names = keys.map((key) => origin.name(key));
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
  return new UpstreamConfigError(`${what}: ${list} is not set (in ${origin.label})`);
}

function domainOf(settings: Settings, which: 'user' | 'project'): DomainRef {
  const auth = settings.auth!;
  const id = text(auth[`${which}_domain_id`]) ?? text(auth.domain_id) ?? text(auth.default_domain_id) ?? text(settings.default_domain);
  if (id) return { id };
  const name = text(auth[`${which}_domain_name`]) ?? text(auth.domain_name) ?? text(auth.default_domain_name);
  // Neither given: the domain `default`, as the openstack command line assumes.
  return name ? { name } : { id: 'default' };
}

function keystoneAuth(settings: Settings, origin: Origin): KeystoneAuth {
  const auth = settings.auth!;
  const explicit = text(settings.auth_type)?.toLowerCase();
  const appCredential = text(auth.application_credential_secret) !== undefined && text(auth.password) === undefined;
  const type = explicit ?? (appCredential ? 'v3applicationcredential' : 'password');
  if (type === 'password' || type === 'v3password') {
    const userId = text(auth.user_id);
    const username = text(auth.username);
    if (!userId && !username) throw missing(origin, 'password auth needs a user', ['username', 'user_id']);
    const password = text(auth.password);
    if (password === undefined) throw missing(origin, `password auth of user ${userId ?? username} needs the password`, ['password']);
    const user: Ref = userId ? { id: userId } : { name: username!, domain: domainOf(settings, 'user') };
    let scope: KeystoneScope;
    const projectId = text(auth.project_id);
    const projectName = text(auth.project_name);
    if (projectId) scope = { project: { id: projectId } };
    else if (projectName) scope = { project: { name: projectName, domain: domainOf(settings, 'project') } };
    else if (text(auth.system_scope)?.toLowerCase() === 'all') scope = { system: 'all' };
    else throw missing(origin, 'password auth is scoped to a project (Placement needs a token with a service catalog)', ['project_name', 'project_id']);
    return { method: 'password', user, password, scope };
  }
  if (type === 'v3applicationcredential' || type === 'applicationcredential' || type === 'application_credential') {
    const secret = text(auth.application_credential_secret);
    const id = text(auth.application_credential_id);
    const name = text(auth.application_credential_name);
    if (!id && !name) throw missing(origin, 'application credential auth needs the credential', ['application_credential_id', 'application_credential_name']);
    if (secret === undefined) throw missing(origin, `application credential ${id ?? name} needs its secret`, ['application_credential_secret']);
    if (id) return { method: 'application_credential', id, secret };
    // By name, the credential belongs to a user that must be named too.
    const userId = text(auth.user_id);
    const username = text(auth.username);
    if (!userId && !username) throw missing(origin, `application credential ${name} given by name needs its user`, ['username', 'user_id']);
    return { method: 'application_credential', name, secret, user: userId ? { id: userId } : { name: username!, domain: domainOf(settings, 'user') } };
  }
  throw new UpstreamConfigError(
    `${origin.name('auth_type')} '${explicit}' (in ${origin.label}) is not supported: use password, v3password, v3applicationcredential or admin_token`,
  );
}

function expandPath(path: string, where: UpstreamLookup): string {
  if (path === '~' || path.startsWith('~/')) return join(where.home, path.slice(1));
  return isAbsolute(path) ? path : resolve(where.cwd, path);
}

function readCa(path: string, setting: string, where: UpstreamLookup): string {
  const file = expandPath(path, where);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UpstreamConfigError(`${setting} ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

function flag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const s = text(value)?.toLowerCase();
  if (s === undefined) return undefined;
  if (['true', 'yes', '1', 'on'].includes(s)) return true;
  if (['false', 'no', '0', 'off'].includes(s)) return false;
  return undefined;
}

/** TLS from --upstream-cacert, else cacert (OS_CACERT), verify: false or insecure: true (OS_INSECURE). */
function tlsOf(settings: Settings | null, origin: Origin | null, cacertFlag: string | undefined, where: UpstreamLookup): TlsOptions {
  if (cacertFlag) return { ca: readCa(cacertFlag, '--upstream-cacert', where), rejectUnauthorized: true };
  if (!settings || !origin) return { rejectUnauthorized: true };
  if (settings.cert !== undefined || settings.key !== undefined) {
    throw new UpstreamConfigError(`${origin.name('cert')} / ${origin.name('key')} (client certificates, in ${origin.label}) are not supported`);
  }
  const verify = settings.verify;
  const verifyFlag = flag(verify);
  const insecure = flag(settings.insecure) === true;
  if (verifyFlag === false || insecure) return { rejectUnauthorized: false };
  const cacert = text(settings.cacert) ?? (verifyFlag === undefined ? text(verify) : undefined); // verify may name a CA bundle (keystoneauth)
  if (cacert) return { ca: readCa(cacert, `${origin.name('cacert')} (in ${origin.label})`, where), rejectUnauthorized: true };
  return { rejectUnauthorized: true };
}

function interfaceOf(settings: Settings, origin: Origin): EndpointInterface {
  const raw = text(settings.interface) ?? 'public';
  const value = raw.replace(/URL$/, '').toLowerCase();
  if (value === 'public' || value === 'internal' || value === 'admin') return value;
  throw new UpstreamConfigError(`${origin.name('interface')} '${raw}' (in ${origin.label}) must be public, internal or admin`);
}

function regionOf(settings: Settings, origin: Origin, env: Env): string | undefined {
  const regions = Array.isArray(settings.regions)
    ? settings.regions.map((r) => (isObject(r) ? text(r.name) : text(r))).filter((r): r is string => !!r)
    : [];
  const configured = text(settings.region_name);
  const asked = text(env.OS_REGION_NAME) ?? configured ?? regions[0];
  if (asked && regions.length && !regions.includes(asked) && asked !== configured) {
    throw new UpstreamConfigError(`region '${asked}' (OS_REGION_NAME) is not one of ${origin.label}'s regions: ${regions.join(', ')}`);
  }
  return asked;
}

function checkUrl(url: string, setting: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UpstreamConfigError(`${setting} must be an http:// or https:// URL, not '${redactUrl(url)}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UpstreamConfigError(`${setting} must be an http:// or https:// URL, not '${redactUrl(url)}'`);
  return url.replace(/\/+$/, '');
}

/** openstacksdk's <service>_endpoint_override for the services mirrored beside Placement. */
function serviceOverrides(settings: Settings, origin: Origin): Partial<Record<'compute' | 'image' | 'baremetal', string>> {
  return Object.fromEntries(
    (['compute', 'image', 'baremetal'] as const).flatMap((service) => {
      const url = text(settings[`${service}_endpoint_override`]);
      return url ? [[service, checkUrl(url, origin.name(`${service}_endpoint_override`))]] : [];
    }),
  );
}

function sessionFrom(settings: Settings, origin: Origin, flags: UpstreamFlags, env: Env, where: UpstreamLookup): UpstreamSession {
  const tls = tlsOf(settings, origin, flags['upstream-cacert'], where);
  const auth = settings.auth!;
  const type = text(settings.auth_type)?.toLowerCase();
  if (type === 'admin_token' || type === 'token_endpoint') {
    // keystoneauth's admin_token plugin: a fixed token and endpoint, no Keystone.
    const token = text(auth.token);
    if (!token) throw missing(origin, `auth type ${type} needs the token`, ['token']);
    const endpoint = flags.upstream ?? text(auth.endpoint) ?? text(settings.placement_endpoint_override);
    if (!endpoint) throw missing(origin, `auth type ${type} needs the Placement endpoint`, ['endpoint']);
    return withServiceUrls(fixedTokenSession(checkUrl(endpoint, flags.upstream ? '--upstream' : origin.name('endpoint')), token, tls), serviceOverrides(settings, origin));
  }
  const authUrl = text(auth.auth_url);
  if (!authUrl) throw missing(origin, 'Keystone auth needs its URL', ['auth_url']);
  const override = flags.upstream ?? text(settings.placement_endpoint_override);
  return keystoneSession({
    authUrl: checkUrl(authUrl, origin.name('auth_url')),
    auth: keystoneAuth(settings, origin),
    interface: interfaceOf(settings, origin),
    region: regionOf(settings, origin, env),
    tls,
    endpointOverride: {
      ...(override ? { placement: checkUrl(override, flags.upstream ? '--upstream' : origin.name('placement_endpoint_override')) } : {}),
      ...serviceOverrides(settings, origin),
    },
  });
}

/**
 * The upstream session the flags and environment ask for, or null when they ask for none (standalone mode).
 * In order: --upstream URL with --upstream-token; --os-cloud NAME or OS_CLOUD (clouds.yaml); the OS_* variables.
 * --upstream URL without a token takes the token from Keystone (a cloud or OS_*) and uses URL as Placement's endpoint.
 */
export function resolveUpstreamOptions(flags: UpstreamFlags, env: Env, where: UpstreamLookup): UpstreamSession | null {
  const session = resolveSession(flags, env, where);
  const urls: Partial<Record<'compute' | 'image' | 'baremetal', string>> = {};
  for (const [flag, service] of [['nova-url', 'compute'], ['glance-url', 'image'], ['ironic-url', 'baremetal']] as const) {
    const value = flags[flag];
    if (value === undefined) continue;
    if (!session) throw new UpstreamConfigError(`--${flag} needs an upstream: --upstream URL or --os-cloud NAME`);
    urls[service] = checkUrl(value, `--${flag}`);
  }
  return session && withServiceUrls(session, urls);
}

function resolveSession(flags: UpstreamFlags, env: Env, where: UpstreamLookup): UpstreamSession | null {
  const cloudName = text(flags['os-cloud']) ?? text(env.OS_CLOUD);
  const cloudSetting = text(flags['os-cloud']) ? '--os-cloud' : 'OS_CLOUD';
  if (flags['upstream-token'] !== undefined) {
    if (!flags.upstream) throw new UpstreamConfigError('--upstream-token needs --upstream URL (the Placement endpoint)');
    if (text(flags['os-cloud'])) throw new UpstreamConfigError('--upstream-token and --os-cloud are two ways to authenticate: give one');
    if (!text(flags['upstream-token'])) throw new UpstreamConfigError('--upstream-token is empty');
    const tls = tlsOf(null, null, flags['upstream-cacert'], where);
    return fixedTokenSession(checkUrl(flags.upstream, '--upstream'), flags['upstream-token']!, tls);
  }
  if (where.requireFlag && !flags.upstream && !text(flags['os-cloud'])) {
    if (flags['upstream-cacert'] !== undefined) throw new UpstreamConfigError('--upstream-cacert needs an upstream: --upstream URL or --os-cloud NAME');
    return null;
  }
  if (cloudName) {
    // openstacksdk's name for the cloud the OS_* variables describe.
    if (cloudName === (text(env.OS_CLOUD_NAME) ?? 'envvars')) {
      const fromEnv = envSettings(env);
      if (!fromEnv) throw new UpstreamConfigError(`${cloudSetting} ${cloudName} names the OS_* variables, but OS_AUTH_URL and the credentials are not set`);
      return sessionFrom(fromEnv, ENV_ORIGIN, flags, env, where);
    }
    const { settings, origin } = cloudSettings(cloudName, env, where);
    return sessionFrom(settings, { ...origin, label: `${origin.label}, named by ${cloudSetting}` }, flags, env, where);
  }
  const fromEnv = envSettings(env);
  if (fromEnv) return sessionFrom(fromEnv, ENV_ORIGIN, flags, env, where);
  if (flags.upstream) {
    if (text(env.OS_TOKEN)) return fixedTokenSession(checkUrl(flags.upstream, '--upstream'), text(env.OS_TOKEN)!, tlsOf(null, null, flags['upstream-cacert'], where));
    throw new UpstreamConfigError(
      '--upstream URL needs a token: --upstream-token TOKEN (or OS_TOKEN), or Keystone credentials (--os-cloud NAME, OS_CLOUD, or OS_AUTH_URL with OS_USERNAME / OS_APPLICATION_CREDENTIAL_ID)',
    );
  }
  if (flags['upstream-cacert'] !== undefined) throw new UpstreamConfigError('--upstream-cacert needs an upstream: --upstream URL or --os-cloud NAME');
  return null;
}

/** --upstream-timeout S and --upstream-max-body MB: the bounds of every answer (defaults 60 s, 256 MB). */
export function upstreamLimits(flags: UpstreamFlags): { timeoutMs: number; maxBodyBytes: number } {
  const number = (flag: 'upstream-timeout' | 'upstream-max-body', fallback: number, max: number) => {
    const raw = flags[flag];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > max) throw new UpstreamConfigError(`--${flag} must be a whole number from 1 to ${max}, not '${raw}'`);
    return n;
  };
  return { timeoutMs: number('upstream-timeout', DEFAULT_UPSTREAM_TIMEOUT_S, 3600) * 1000, maxBodyBytes: number('upstream-max-body', DEFAULT_UPSTREAM_MAX_BODY_MB, 65536) * 1024 * 1024 };
}

/** --upstream-concurrency N: a whole number from 1 to 64 (default 8). */
export function upstreamConcurrency(flags: UpstreamFlags): number {
  const raw = flags['upstream-concurrency'];
  if (raw === undefined) return DEFAULT_UPSTREAM_CONCURRENCY;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 64) throw new UpstreamConfigError(`--upstream-concurrency must be a whole number from 1 to 64, not '${raw}'`);
  return n;
}
