// A Keystone v3 session: a token for the upstream services and their endpoints from the service
// catalog, as keystoneauth gives them to the OpenStack clients. Password (project- or system-scoped)
// and application-credential auth; the token is renewed shortly before it expires and on request
// after a 401; concurrent callers share one token request; no secret ever appears in a message.
import { ConnectionError, createHttpClient, type HttpClient, type HttpResponse } from './http.js';
import { redactUrl } from './redact.js';
import type { ServiceType, TlsOptions, UpstreamSession } from './session.js';

/** A user, project or domain named by id, or by name within a domain. */
export type Ref = { id: string } | { name: string; domain?: DomainRef };
export type DomainRef = { id: string } | { name: string };

export type KeystoneScope = { project: Ref } | { system: 'all' };

export type KeystoneAuth =
  | { method: 'password'; user: Ref; password: string; scope: KeystoneScope }
  /** An application credential carries its own project: no scope may be sent with it. */
  | { method: 'application_credential'; id?: string; name?: string; user?: Ref; secret: string };

export type EndpointInterface = 'public' | 'internal' | 'admin';

export interface KeystoneOptions {
  /** As configured (OS_AUTH_URL, clouds.yaml auth.auth_url); /v3 is added when missing. */
  authUrl: string;
  auth: KeystoneAuth;
  interface?: EndpointInterface;
  region?: string;
  tls: TlsOptions;
  /** Endpoints that replace the catalog's (clouds.yaml placement_endpoint_override, --upstream URL). */
  endpointOverride?: Partial<Record<ServiceType, string>>;
  http?: HttpClient;
  /** The clock (tests move it). */
  now?: () => number;
  /** Renew this long before the token expires (default 60 s; at most half the token's lifetime). */
  renewBeforeMs?: number;
  /** Attempts at a token request when Keystone cannot be reached or answers 5xx (default 3), and the first pause (default 500 ms, doubled each time). */
  attempts?: number;
  retryDelayMs?: number;
}

/** No token from Keystone: bad credentials, a bad request, no v3 API at the URL, or Keystone out of reach. */
export class KeystoneAuthError extends Error {
  constructor(
    message: string,
    /** Keystone's status; 0 when it could not be reached. */
    readonly status: number,
  ) {
    super(message);
    this.name = 'KeystoneAuthError';
  }
}

/** Keystone could not be reached (after the retries): told apart from Placement being out of reach. */
export class KeystoneUnreachable extends KeystoneAuthError {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message, 0);
    this.name = 'KeystoneUnreachable';
  }
}

interface CatalogEndpoint {
  interface?: string;
  region?: string | null;
  region_id?: string | null;
  url?: string;
}
interface CatalogService {
  type?: string;
  endpoints?: CatalogEndpoint[];
}

interface Issued {
  token: string;
  /** On this machine's clock: Keystone's lifetime (expires_at − issued_at) counted from the answer. */
  expiresAt: number;
  renewAt: number;
  catalog: CatalogService[];
}

/** keystoneauth's v3 plugins post to {auth_url}/auth/tokens with auth_url ending in /v3; a bare or v2.0 URL gets /v3. */
export function identityV3Url(authUrl: string): string {
  const url = authUrl.replace(/\/+$/, '');
  if (/\/v3$/.test(url)) return url;
  if (/\/v2\.0$/.test(url)) return url.replace(/\/v2\.0$/, '/v3');
  return `${url}/v3`;
}

function showRef(ref: Ref | undefined): string {
  if (!ref) return '?';
  if ('id' in ref) return ref.id;
  const domain = ref.domain ? ('id' in ref.domain ? ref.domain.id : ref.domain.name) : undefined;
  return domain ? `${ref.name} (domain ${domain})` : ref.name;
}

/** Who is authenticating, in words an operator recognises; never a secret. */
export function describeAuth(auth: KeystoneAuth): string {
  if (auth.method === 'password') {
    const scope = 'system' in auth.scope ? 'system scope' : `project ${showRef(auth.scope.project)}`;
    return `user ${showRef(auth.user)} in ${scope}`;
  }
  const credential = auth.id ?? auth.name ?? '?';
  return auth.user ? `application credential ${credential} of user ${showRef(auth.user)}` : `application credential ${credential}`;
}

function refBody(ref: Ref): Record<string, unknown> {
  if ('id' in ref) return { id: ref.id };
  return ref.domain ? { name: ref.name, domain: ref.domain } : { name: ref.name };
}

/** The body of POST /v3/auth/tokens (Keystone api-ref, "Password authentication with scoped authorization",
 *  "Authenticating with an Application Credential"). */
export function authRequestBody(auth: KeystoneAuth): unknown {
  if (auth.method === 'password') {
    return {
      auth: {
        identity: { methods: ['password'], password: { user: { ...refBody(auth.user), password: auth.password } } },
        scope: 'system' in auth.scope ? { system: { all: true } } : { project: refBody(auth.scope.project) },
      },
    };
  }
  const credential: Record<string, unknown> = { secret: auth.secret };
  if (auth.id) credential.id = auth.id;
  else {
    credential.name = auth.name;
    if (auth.user) credential.user = refBody(auth.user);
  }
  return { auth: { identity: { methods: ['application_credential'], application_credential: credential } } };
}

function keystoneMessage(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message : undefined;
  } catch {
    return undefined;
  }
}

/** The catalog entry of that type, interface and region (any region when none is configured), keystoneauth's choice. */
export function catalogEndpoint(catalog: CatalogService[], type: string, iface: EndpointInterface, region?: string): string | null {
  for (const service of catalog) {
    if (service.type !== type) continue;
    for (const endpoint of service.endpoints ?? []) {
      // v2-style names (publicURL) are accepted as keystoneauth does.
      if ((endpoint.interface ?? '').replace(/URL$/, '') !== iface) continue;
      if (region && endpoint.region_id !== region && endpoint.region !== region) continue;
      if (endpoint.url) return endpoint.url.replace(/\/+$/, '');
    }
  }
  return null;
}

/** What the catalog offers of a service type, as "public in RegionOne, internal in RegionOne". */
function offered(catalog: CatalogService[], type: string): string[] {
  const seen = new Set<string>();
  for (const service of catalog) {
    if (service.type !== type) continue;
    for (const endpoint of service.endpoints ?? []) {
      const region = endpoint.region_id ?? endpoint.region;
      seen.add(`${(endpoint.interface ?? '?').replace(/URL$/, '')}${region ? ` in ${region}` : ''}`);
    }
  }
  return [...seen];
}

export interface KeystoneSession extends UpstreamSession {
  missingEndpoint(service: ServiceType): Promise<string>;
  /** Closes the connections to Keystone (when the session made its own HTTP client). */
  close(): void;
}

export function keystoneSession(options: KeystoneOptions): KeystoneSession {
  const requestUrl = `${identityV3Url(options.authUrl)}/auth/tokens`;
  const tokensUrl = redactUrl(requestUrl);
  const iface = options.interface ?? 'public';
  const now = options.now ?? Date.now;
  const renewBefore = options.renewBeforeMs ?? 60_000;
  const ownHttp = !options.http;
  const http = options.http ?? createHttpClient(options.tls, 2);
  const secret = options.auth.method === 'password' ? options.auth.password : options.auth.secret;
  const who = describeAuth(options.auth);
  // A message from Keystone is shown as it is, but never with the secret in it.
  const scrub = (text: string) => (secret ? text.split(secret).join('***') : text);

  let current: Issued | null = null;
  let pending: Promise<Issued> | null = null;

  const attempts = options.attempts ?? 3;
  const retryDelay = options.retryDelayMs ?? 500;

  /** POST /v3/auth/tokens; connection errors and 5xx retried with backoff, as a blip at renewal time should not fail a refresh. */
  async function post(): Promise<HttpResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await http.send({ method: 'POST', url: requestUrl, body: authRequestBody(options.auth) });
        if (response.status < 500 || attempt >= attempts) return response;
      } catch (error) {
        if (!(error instanceof ConnectionError)) throw error;
        // A certificate that does not verify will not verify on the next attempt either.
        if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(error.code)) {
          throw new KeystoneUnreachable(`cannot verify the TLS certificate of Keystone at ${tokensUrl}: ${error.code} (a CA bundle: --upstream-cacert, clouds.yaml cacert or OS_CACERT)`, error.code);
        }
        if (attempt >= attempts) throw new KeystoneUnreachable(`cannot reach Keystone at ${tokensUrl}: ${error.code}`, error.code);
      }
      await new Promise((resolve) => setTimeout(resolve, retryDelay * 2 ** (attempt - 1)));
    }
  }

  async function authenticate(): Promise<Issued> {
    const response = await post();
    const message = keystoneMessage(response.body);
    const said = message ? `: ${scrub(message)}` : '';
    if (response.status === 401) {
      throw new KeystoneAuthError(`Keystone refused the credentials of ${who} (401 from ${tokensUrl}${said})`, 401);
    }
    if (response.status !== 201 && response.status !== 200) {
      const hint = response.status === 404 ? ' (is the auth URL that of Keystone?)' : '';
      throw new KeystoneAuthError(`Keystone answered ${response.status} to the token request for ${who} at ${tokensUrl}${said}${hint}`, response.status);
    }
    const header = response.headers['x-subject-token'];
    const token = Array.isArray(header) ? header[0] : header;
    let body: { token?: { expires_at?: string; issued_at?: string; catalog?: CatalogService[] } };
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      body = {};
    }
    const expires = Date.parse(body.token?.expires_at ?? '');
    if (!token || Number.isNaN(expires)) {
      throw new KeystoneAuthError(`Keystone at ${tokensUrl} answered ${response.status} without a token (X-Subject-Token header and token.expires_at)`, response.status);
    }
    const issued = Date.parse(body.token?.issued_at ?? '');
    const received = now();
    // Counted from our own clock, so a gateway whose clock differs from Keystone's still renews in time.
    const lifetime = Number.isNaN(issued) ? expires - received : expires - issued;
    const expiresAt = received + lifetime;
    return { token, expiresAt, renewAt: expiresAt - Math.min(renewBefore, lifetime / 2), catalog: body.token?.catalog ?? [] };
  }

  function issue(): Promise<Issued> {
    // Everyone asking while a request is under way shares it.
    pending ??= authenticate().then(
      (issued) => ((current = issued), (pending = null), issued),
      (error) => {
        pending = null;
        throw error;
      },
    );
    return pending;
  }

  async function valid(renew: boolean | string = false): Promise<Issued> {
    if (pending) return pending;
    // A refused token that is no longer the current one was renewed already (by a concurrent 401).
    const stale = renew === true || (typeof renew === 'string' && renew === current?.token);
    if (!stale && current && now() < current.renewAt) return current;
    return issue();
  }

  return {
    tls: options.tls,
    async token(renew: boolean | string = false) {
      return (await valid(renew)).token;
    },
    async endpoint(service) {
      const override = options.endpointOverride?.[service];
      if (override) return override.replace(/\/+$/, '');
      return catalogEndpoint((await valid()).catalog, service, iface, options.region);
    },
    async missingEndpoint(service) {
      const wanted = `${iface}${options.region ? ` in ${options.region}` : ''}`;
      const has = offered((await valid()).catalog, service);
      const setting = 'interface / OS_INTERFACE and region_name / OS_REGION_NAME';
      return has.length
        ? `Keystone's service catalog has no ${service} endpoint ${wanted}; it has ${has.join(', ')} (${setting} choose)`
        : `Keystone's service catalog has no ${service} service for ${who}`;
    },
    describe() {
      const where = [options.region ? `region ${options.region}` : undefined, `${iface} endpoints`].filter(Boolean).join(', ');
      const override = options.endpointOverride?.placement ? `, placement at ${redactUrl(options.endpointOverride.placement)}` : '';
      return `Keystone ${redactUrl(identityV3Url(options.authUrl))} as ${who} (${where}${override})`;
    },
    close() {
      if (ownHttp) http.close();
    },
  };
}
