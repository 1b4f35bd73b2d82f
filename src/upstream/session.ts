// How the gateway reaches an OpenStack service: its endpoint and a token. A fixed URL and token
// (`--upstream URL --upstream-token T`), or a Keystone session (clouds.yaml, OS_* variables).
import { redactUrl } from './redact.js';

export type ServiceType = 'placement' | 'compute' | 'image' | 'baremetal';

export interface TlsOptions {
  /** PEM bundle to trust instead of the system's (--upstream-cacert, clouds.yaml cacert, OS_CACERT). */
  ca?: string;
  /** false only when clouds.yaml says `verify: false`. */
  rejectUnauthorized: boolean;
}

export interface UpstreamSession {
  /** The service's endpoint URL, without a trailing slash; null when the cloud has no such service. */
  endpoint(service: ServiceType): Promise<string | null>;
  /**
   * A valid token. After a 401, pass the token that was refused: a new one is fetched only if that
   * is still the current one, so many requests refused at once renew once. `true` always renews.
   */
  token(renew?: boolean | string): Promise<string>;
  tls: TlsOptions;
  /** What an operator may see: endpoint or auth URL, auth method, user; never a secret. */
  describe(): string;
  /** When endpoint() gave null: what the catalog has of that service instead (other interfaces, regions). */
  missingEndpoint?(service: ServiceType): Promise<string>;
}

/** A fixed endpoint and token, e.g. `admin` on a noauth2 Placement. */
export function fixedTokenSession(url: string, token: string, tls: TlsOptions = { rejectUnauthorized: true }): UpstreamSession {
  const placement = url.replace(/\/+$/, '');
  return {
    endpoint: async (service) => (service === 'placement' ? placement : null),
    token: async () => token,
    tls,
    describe: () => `${redactUrl(placement)} (fixed token)`,
  };
}

/**
 * The session with explicit endpoints for Nova, Glance or Ironic (--nova-url, --glance-url,
 * --ironic-url): they replace the catalog's, and give a token-only setup those services.
 */
export function withServiceUrls(session: UpstreamSession, urls: Partial<Record<Exclude<ServiceType, 'placement'>, string>>): UpstreamSession {
  if (Object.keys(urls).length === 0) return session;
  return {
    ...session,
    endpoint: async (service) => (service !== 'placement' && urls[service] ? urls[service]!.replace(/\/+$/, '') : session.endpoint(service)),
    token: (renew) => session.token(renew),
    describe: () => session.describe(),
  };
}
