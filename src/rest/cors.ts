// CORS for Placement's API, as Placement's oslo.middleware CORS filter answers the origins it is
// configured with ([cors] allowed_origin), using Placement's own defaults for the allowed and exposed
// headers and methods. Which origins are allowed is the server's decision (serve --cors-origin); an
// allowed origin is never told it may send credentials: tokens travel in X-Auth-Token, not cookies.
import type { IncomingHttpHeaders } from 'node:http';

// placement/wsgi.py _set_middleware_defaults, and oslo's simple headers.
const ALLOW_HEADERS = ['X-Auth-Token', 'X-Openstack-Request-Id', 'X-Identity-Status', 'X-Roles', 'X-Service-Catalog', 'X-User-Id', 'X-Tenant-Id', 'OpenStack-API-Version'];
const SIMPLE_HEADERS = ['Accept', 'Accept-Language', 'Content-Type', 'Cache-Control', 'Content-Language', 'Expires', 'Last-Modified', 'Pragma'];
const PERMITTED_HEADERS = new Set([...ALLOW_HEADERS, ...SIMPLE_HEADERS].map((h) => h.toUpperCase()));
const EXPOSE_HEADERS = 'X-Auth-Token,X-Openstack-Request-Id,X-Subject-Token,X-Service-Token,OpenStack-API-Version';
const ALLOW_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH']);
const MAX_AGE = '3600';

export interface CorsPolicy {
  /** Whether pages of this origin may call the API. */
  allows(origin: string | undefined): origin is string;
}

/** The policy for these origins (scheme://host[:port]); none when the list is empty (OPTIONS is then a 405, as without Placement's filter). */
export function corsPolicy(origins: readonly string[]): CorsPolicy | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  return { allows: (origin): origin is string => origin !== undefined && allowed.has(origin) };
}

/** _apply_cors_preflight_headers: the answer to a preflight of an allowed origin, when its method and headers are permitted. */
export function preflightHeaders(origin: string, headers: IncomingHttpHeaders): [string, string][] {
  const method = headers['access-control-request-method'];
  if (typeof method !== 'string' || !ALLOW_METHODS.has(method)) return [];
  const requested = (headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  if (requested.some((h) => !PERMITTED_HEADERS.has(h.toUpperCase()))) return [];
  const out: [string, string][] = [
    ['vary', 'Origin'],
    ['access-control-allow-origin', origin],
    ['access-control-max-age', MAX_AGE],
    ['access-control-allow-methods', method],
  ];
  if (requested.length) out.push(['access-control-allow-headers', requested.join(',')]);
  return out;
}

/** _apply_cors_request_headers: an answer to an allowed origin names it, adds Origin to Vary and exposes Placement's headers. */
export function withCorsHeaders(origin: string, headers: [string, string][]): [string, string][] {
  const vary = headers.find(([name]) => name === 'vary');
  const rest = headers.filter(([name]) => name !== 'vary');
  return [...rest, ['vary', vary ? `${vary[1]},Origin` : 'Origin'], ['access-control-allow-origin', origin], ['access-control-expose-headers', EXPOSE_HEADERS]];
}
