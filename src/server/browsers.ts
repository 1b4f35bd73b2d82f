// What a browser may make of this server, checked before anything of a request is read:
// - Host: a server on loopback answers only to its own names (localhost, 127.0.0.1, [::1] and the
//   address it is bound to, with its port, plus names given with serve --allowed-host), so a page whose
//   name was re-pointed at 127.0.0.1 (DNS rebinding) is refused.
// - Origin: a request a page of another site makes is refused, preflight included, unless that site's
//   origin was named with serve --cors-origin; such an origin is answered with its own name, never with
//   credentials (tokens travel in the Authorization header, not in cookies).
// - A POST carries JSON: a form (urlencoded, multipart or plain text), which any page can send to any
//   site without asking, is refused, so no page can run a mutation through one.
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from './plugins.js';

export interface BrowserRules {
  /** The Host header values answered (lower case, `name:port`); absent: any (a server off loopback, where tokens guard it). */
  allowedHosts?: ReadonlySet<string>;
  /** Origins of other sites whose pages may call this server (`scheme://host[:port]`). */
  corsOrigins?: readonly string[];
}

/** A request's header, by lower-case name. */
export type HeaderOf = (name: string) => string | null;

interface Refusal {
  status: number;
  code: string;
  message: string;
}

const JSON_MEDIA_TYPE = /^application\/(json|graphql\+json)\s*(;|$)/i;
const PREFLIGHT_HEADERS = 'authorization, content-type, accept, x-request-id';

/** The Host values a server bound to loopback answers to: its names with the port (alone too on port 80), and `extra` (a name with or without a port). */
export function loopbackHosts(boundTo: string, port: number, extra: readonly string[] = []): Set<string> {
  const bracket = (name: string) => (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name);
  const hosts = new Set<string>();
  for (const name of new Set(['localhost', '127.0.0.1', '[::1]', bracket(boundTo), ...extra].map((n) => n.toLowerCase()))) {
    if (/:\d+$/.test(name)) {
      hosts.add(name);
      continue;
    }
    hosts.add(`${name}:${port}`);
    if (port === 80) hosts.add(name);
  }
  return hosts;
}

/** An origin as a browser writes it (`scheme://host[:port]`, default port left out), or null when `text` is not one. */
export function normalOrigin(text: string): string | null {
  try {
    const url = new URL(text);
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : null;
  } catch {
    return null;
  }
}

/** The page's origin names this server's own host: a request of one of its own pages. */
function sameHost(origin: string, host: string | null): boolean {
  try {
    return host !== null && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/** Why a request is refused before it is read, or null. */
export function browserRefusal(rules: BrowserRules, method: string, header: HeaderOf): Refusal | null {
  const host = header('host');
  if (rules.allowedHosts && !rules.allowedHosts.has((host ?? '').toLowerCase())) {
    return {
      status: 403,
      code: 'HOST_NOT_ALLOWED',
      message: `This server answers to ${[...rules.allowedHosts].join(', ')} only: a page reaching it under another name is refused (DNS rebinding). serve --allowed-host NAME adds a name.`,
    };
  }
  const origin = header('origin');
  if (origin !== null && !sameHost(origin, host) && !rules.corsOrigins?.includes(origin)) {
    return {
      status: 403,
      code: 'ORIGIN_NOT_ALLOWED',
      message: `Requests from pages of another site are refused; serve --cors-origin ${normalOrigin(origin) ?? 'ORIGIN'} allows that site's pages.`,
    };
  }
  if (method === 'POST' && !JSON_MEDIA_TYPE.test(header('content-type') ?? '')) {
    return {
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'A POST takes a JSON body only (Content-Type: application/json): form and plain-text bodies are refused, so that no page of another site can send a mutation through a form.',
    };
  }
  return null;
}

/** The rules as the first plugin: refusals, preflights of the named origins, and their CORS headers. */
export function useBrowserRules(rules: BrowserRules): Plugin {
  /** The origin of a page of another site allowed to call (refused ones never get here), or null. */
  const allowedCrossOrigin = (request: Request) => {
    const origin = request.headers.get('origin');
    return origin !== null && !sameHost(origin, request.headers.get('host')) && rules.corsOrigins?.includes(origin) ? origin : null;
  };
  return {
    onRequest({ request, endResponse }) {
      const refusal = browserRefusal(rules, request.method, (name) => request.headers.get(name));
      if (refusal) return endResponse(errorResponse(refusal.status, refusal.message, { code: refusal.code }));
      const origin = allowedCrossOrigin(request);
      if (origin && request.method === 'OPTIONS') {
        endResponse(
          new Response(null, {
            status: 204,
            headers: {
              'access-control-allow-origin': origin,
              'access-control-allow-methods': 'GET, POST',
              'access-control-allow-headers': PREFLIGHT_HEADERS,
              'access-control-max-age': '600',
              'content-length': '0',
              vary: 'Origin',
            },
          }),
        );
      }
    },
    onResponse({ request, response }) {
      const origin = allowedCrossOrigin(request);
      if (!origin) return;
      response.headers.set('access-control-allow-origin', origin);
      response.headers.set('access-control-expose-headers', 'x-request-id');
      response.headers.append('vary', 'Origin');
    },
  };
}
