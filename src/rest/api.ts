// Placement's own REST API under /placement, answered as Placement 8.0.0 answers it: its middleware
// in its order (request id and the default Accept, CORS for the allowed origins, noauth2 or the
// server's tokens, the microversion, the content-length check), then its routes with their 404 and
// 405, then the handler. Plain Node HTTP: no GraphQL and no fetch objects on the way.
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Db } from '../db/client.js';
import type { Role } from '../modules/common/caller.js';
import { negotiateVersion } from '../rules/microversion.js';
import { pyInt, pyStrip } from '../rules/python.js';
import type { Writes } from '../writes/operations.js';
import { DomainError, UpstreamUnavailable } from '../modules/common/errors.js';
import { preflightHeaders, withCorsHeaders, type CorsPolicy } from './cors.js';
import { errorBody, PlacementError, unauthorizedBody, type ErrorEnviron } from './errors.js';
import { RestRequest, type Answer } from './request.js';
import { matchRoute } from './routes.js';
import { answerSent } from '../modules/common/json-bytes.js';

export const PLACEMENT_PREFIX = '/placement';

/** Whether a request URL is Placement's API (the prefix itself, or a path below it). */
export const isPlacementPath = (url: string | undefined) =>
  url !== undefined && url.startsWith(PLACEMENT_PREFIX) && (url.length === PLACEMENT_PREFIX.length || url[PLACEMENT_PREFIX.length] === '/' || url[PLACEMENT_PREFIX.length] === '?');

export interface PlacementApiOptions {
  db: Db;
  /** The server's write port: local, or through the live Placement in gateway mode. */
  writes: Writes;
  /**
   * The server's bearer tokens and their roles, as X-Auth-Token carries them; empty means open access
   * (loopback only), where the API behaves as Placement's noauth2: a token `admin` or `admin:PROJECT`
   * is the admin, any other token a caller without roles, no token a 401.
   */
  tokens: ReadonlyMap<string, Role>;
  /** Why the server refuses a request for its Host header (checked before anything else), or null. */
  refusedHost?: (header: (name: string) => string | null) => string | null;
  /** Other sites whose pages may call the API (Placement's [cors] allowed_origin). */
  cors?: CorsPolicy;
  /** Request bodies past this many bytes are refused with 413. */
  maxBodyBytes: number;
  /** The most allocation requests one candidate search may build. */
  maxCandidates?: number;
  /** Told of each request answered: the route's template ("GET /resource_providers/{uuid}"), the status, the time taken. */
  observe?: (route: string, status: number, seconds: number) => void;
  /** Told of an unexpected failure, which the client sees as a 500 without its details. */
  failed?: (route: string, error: unknown) => void;
}

export type PlacementApi = (request: IncomingMessage, response: ServerResponse) => void;

const VERSION_HEADER = 'openstack-api-version';

/** A character Python's str.split() splits on. */
const PY_SPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0]/;

/** check_standard_header: the last `placement X.Y` item of OpenStack-API-Version, or null. */
function askedVersion(header: string | undefined): string | null {
  if (header === undefined) return null;
  const items = header.split(',');
  for (let i = items.length - 1; i >= 0; i--) {
    const item = pyStrip(items[i]);
    const space = item.search(PY_SPACE);
    if (space < 0) continue;
    if (item.slice(0, space).toLowerCase() === 'placement') return pyStrip(item.slice(space));
  }
  return null;
}

/** PATH_INFO: the path below the prefix, percent-decoded as a WSGI server does; repeated slashes as one, as Routes matches them. */
function pathInfo(pathname: string): string {
  let path = pathname.slice(PLACEMENT_PREFIX.length);
  if (path.includes('%')) {
    try {
      path = decodeURIComponent(path);
    } catch {
      path = unescape(path);
    }
  }
  return path.replace(/\/{2,}/g, '/');
}

/**
 * The write port as the handlers use it: in gateway mode a refusal of the live Placement is answered
 * as Placement answered it (its status, code and text), and Placement out of reach is a 503.
 */
function asPlacementAnswers(writes: Writes): Writes {
  const wrapped: Record<string, (input: never) => Promise<unknown>> = {};
  for (const [name, write] of Object.entries(writes) as [string, (input: never) => Promise<unknown>][]) {
    wrapped[name] = async (input) => {
      try {
        return await write(input);
      } catch (error) {
        if (error instanceof DomainError && error.upstream) throw new PlacementError(error.upstream.status, error.upstream.text, { code: error.code });
        if (error instanceof UpstreamUnavailable) throw new PlacementError(503, error.message);
        throw error;
      }
    };
  }
  return wrapped as unknown as Writes;
}

export function createPlacementApi(options: PlacementApiOptions): PlacementApi {
  const open = options.tokens.size === 0;
  const writes = asPlacementAnswers(options.writes);
  return (request, response) => {
    const started = performance.now();
    const url = request.url!;
    const queryAt = url.indexOf('?');
    const pathname = queryAt < 0 ? url : url.slice(0, queryAt);
    const path = pathInfo(pathname);
    const headers = request.headers;
    const accept = !headers.accept || headers.accept === '*/*' ? 'application/json' : headers.accept;
    const environ: ErrorEnviron = { method: request.method!, accept, contentType: headers['content-type'] ?? 'None', minor: null, requestId: `req-${randomUUID()}` };
    let route = 'unrouted';
    const origin = options.cors?.allows(headers.origin) ? headers.origin! : null;

    const send = (status: number, contentType: string | null, body: string | Buffer, more: [string, string][] = []) => {
      let out: [string, string][] = [];
      // Encoded here, once: given a string, Node copies it behind the header text and encodes it into a
      // buffer sized for three bytes a character, which costs more than the socket for a large answer.
      let bytes = request.method === 'HEAD' ? EMPTY : typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      out.push(['content-length', String(bytes.length)]);
      if (contentType) out.push(['content-type', contentType]);
      out.push(...more, ['x-openstack-request-id', environ.requestId]);
      if (options.cors && request.method === 'OPTIONS') {
        // Placement's CORS middleware answers every OPTIONS itself: a failure of the API becomes an
        // empty 200, with the preflight's headers for an allowed origin.
        if (status < 200 || status >= 300) {
          status = 200;
          bytes = EMPTY;
          out = [['content-length', '0'], ['x-openstack-request-id', environ.requestId]];
        }
        if (origin) out.push(...preflightHeaders(origin, headers));
      } else if (origin) out = withCorsHeaders(origin, out);
      response.writeHead(status, out.flat());
      // Its buffer serves a later answer once the socket has taken every byte.
      response.end(bytes, () => answerSent(bytes));
      options.observe?.(route, status, (performance.now() - started) / 1000);
    };

    const fail = (error: PlacementError, versionHeaders: boolean) => {
      const { contentType, body } = request.method === 'HEAD' ? { contentType: 'text/html; charset=UTF-8', body: '' } : errorBody(error, environ);
      const more = [...error.headers];
      if (versionHeaders) {
        more.push([VERSION_HEADER, `placement 1.${environ.minor}`]);
        if (!error.outsideHandler) more.push(['vary', VERSION_HEADER]);
      }
      send(error.status, contentType, body, more);
    };

    const refusedHost = options.refusedHost?.((name) => {
      const value = headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    });
    if (refusedHost) return fail(new PlacementError(403, refusedHost), false);

    // Authentication, as noauth2 or the server's tokens; the version document needs none.
    let role: Role | null = null;
    if (path !== '/' && path !== '') {
      const token = headers['x-auth-token'];
      if (typeof token !== 'string' || (!open && !options.tokens.has(token))) {
        if (open) {
          const { contentType, body } = unauthorizedBody(environ);
          return send(401, contentType, body);
        }
        // keystonemiddleware's refusal, as Placement behind Keystone answers a missing or unknown token.
        return send(401, 'application/json; charset=UTF-8', '{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}');
      }
      role = open ? (token.split(':', 1)[0] === 'admin' ? 'admin' : null) : options.tokens.get(token)!;
    }

    const version = negotiateVersion(askedVersion(headers[VERSION_HEADER] as string | undefined));
    if ('status' in version) return fail(new PlacementError(version.status, `Invalid microversion: ${version.message}`), false);
    environ.minor = version.minor;

    // Placement's own check of the framing (PlacementHandler): Python's int() of Content-Length.
    const length = headers['content-length'];
    if (length) {
      const bytes = pyInt(length);
      if (bytes === null) return fail(new PlacementError(400, 'content-length header must be an integer', { outsideHandler: true }), true);
      if (bytes > 0n && !headers['content-type']) return fail(new PlacementError(400, 'content-type header required when content-length > 0', { outsideHandler: true }), true);
    }

    const matched = matchRoute(path, request.method!);
    if (!matched) return fail(new PlacementError(404, '', { outsideHandler: true }), true);
    route = `${request.method} ${matched.template}`;
    if (!matched.handler) {
      return fail(new PlacementError(405, 'The method specified is not allowed for this resource.', { headers: [['allow', matched.allow]] }), true);
    }

    readBody(request, options.maxBodyBytes).then(
      async (body) => {
        if (body === null) {
          // The rest of the body is never read: the connection closes after the answer.
          response.shouldKeepAlive = false;
          response.once('finish', () => request.destroy());
          return fail(new PlacementError(413, `The request body is larger than ${options.maxBodyBytes} bytes.`), true);
        }
        const query = queryAt < 0 ? '' : url.slice(queryAt + 1);
        const rest = new RestRequest(options.db, writes, request.method!, path, query, accept, headers['content-type'], body, version.minor, role, matched.params, options.maxCandidates);
        let answer: Answer;
        try {
          answer = await matched.handler!(rest);
        } catch (error) {
          if (error instanceof PlacementError) {
            if (error.status === 415) environ.contentType = headers['content-type'] || 'None';
            return fail(error, true);
          }
          options.failed?.(route, error);
          return fail(new PlacementError(500, 'The server failed to answer this request; its log says why.', { outsideHandler: true }), true);
        }
        const more: [string, string][] = [];
        if (version.minor >= 15) {
          if (answer.lastModified) more.push(['last-modified', answer.lastModified.toUTCString()]);
          if (answer.lastModified || answer.noCache) more.push(['cache-control', 'no-cache']);
        }
        if (answer.location) more.push(['location', `http://${headers.host ?? 'localhost'}${PLACEMENT_PREFIX}${answer.location}`]);
        more.push([VERSION_HEADER, `placement 1.${version.minor}`], ['vary', VERSION_HEADER]);
        send(answer.status, answer.body === undefined ? null : 'application/json', answer.body ?? '', more);
      },
      () => response.destroy(),
    );
  };
}

/** The whole request body, or null past the limit (then the rest is not read). */
function readBody(request: IncomingMessage, max: number): Promise<Buffer | null> {
  const length = request.headers['content-length'];
  if (length === '0' || (length === undefined && request.headers['transfer-encoding'] === undefined)) return Promise.resolve(EMPTY);
  if (length !== undefined && Number(length) > max) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        request.removeAllListeners('data');
        request.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

const EMPTY = Buffer.alloc(0);

/**
 * A request Node's parser refuses for a Content-Length that is no number: under /placement it is
 * answered as Placement answers it (a 400 saying so, after its token and microversion checks), and
 * the connection closed, its body unread. Whether it was answered here.
 */
export function answerBadContentLength(api: PlacementApi, error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): boolean {
  if (error.code !== 'HPE_INVALID_CONTENT_LENGTH' || !error.rawPacket || !socket.writable) return false;
  const head = error.rawPacket.toString('latin1').split('\r\n\r\n', 1)[0].split('\r\n');
  const [method, url] = head[0].split(' ');
  if (!isPlacementPath(url)) return false;
  const request = new IncomingMessage(socket);
  request.method = method;
  request.url = url;
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    request.headers[name] = request.headers[name] === undefined ? value : `${request.headers[name]}, ${value}`;
  }
  request.push(null);
  const response = new ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket);
  response.on('finish', () => socket.destroySoon());
  api(request, response);
  return true;
}
