// The Node HTTP side of the server: the body limit counted as bytes arrive, whatever the framing; caps on
// connections and streaming answers, in total and per client address; the timeouts for slow clients.
// A Content-Length is checked by the limits plugin before parsing; a chunked body has none, so
// without this a client could make the server buffer any amount before a refusal.
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server as HttpServer, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Limits } from '../modules/common/limits.js';
import { fastLane, takesFastLane } from './fast-lane.js';
import { answerBadContentLength, isPlacementPath, type PlacementApi } from '../rest/api.js';

export interface BodyLimited {
  (request: IncomingMessage, response: ServerResponse): unknown;
  limits: Pick<Limits, 'maxBodyBytes'> & Partial<Limits>;
  metrics: { refuse(limit: string): void };
  /** Whether a request passes the checks made before reading it (see Server.admits); the others go through yoga, which refuses them. */
  admits?: (method: string, header: (name: string) => string | null) => boolean;
  /** Placement's REST API, answered under /placement before anything else (it makes the server's checks itself). */
  placementApi?: PlacementApi;
}

type Limit = 'maxBodyBytes' | 'maxConnections' | 'maxConnectionsPerAddress' | 'maxStreams' | 'maxStreamsPerAddress';

/** Answers a refusal before the request reaches GraphQL, naming the limit and its value, then closes the connection. */
function refuse(response: ServerResponse, status: number, limit: Limit, allowed: number, message: string, then?: () => void) {
  const body = JSON.stringify({ errors: [{ message, extensions: { code: 'LIMIT_EXCEEDED', limit, allowed } }] });
  response.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...(status === 413 ? {} : { 'retry-after': '1' }) });
  response.end(body, then);
}

/** The client's address, IPv4 written plainly when it arrives mapped into IPv6. */
const addressOf = (socket: Socket) => (socket.remoteAddress ?? 'unknown').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');

/** A request whose answer may stay open: a subscription over SSE or multipart. */
const wantsStream = (request: IncomingMessage) => /text\/event-stream|multipart\/mixed/i.test(request.headers.accept ?? '');

/** Counts per key, forgetting a key at zero so the map holds only addresses with something open. */
class Counter {
  total = 0;
  private readonly byKey = new Map<string, number>();
  of = (key: string) => this.byKey.get(key) ?? 0;
  add(key: string) {
    this.total++;
    this.byKey.set(key, this.of(key) + 1);
  }
  remove(key: string) {
    this.total--;
    const left = this.of(key) - 1;
    if (left > 0) this.byKey.set(key, left);
    else this.byKey.delete(key);
  }
}

export function nodeListener(server: BodyLimited): RequestListener {
  const max = server.limits.maxBodyBytes;
  // yoga itself (not a bare handler): plain GraphQL POSTs take the fast lane.
  const lane = typeof (server as any).getEnveloped === 'function' ? fastLane(server as any, max) : null;
  const header = (request: IncomingMessage) => (name: string) => {
    const value = request.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  };
  const placement = server.placementApi;
  return (request, response) => {
    if (placement && isPlacementPath(request.url)) return placement(request, response);
    if (lane && takesFastLane(request, max) && (server.admits?.(request.method!, header(request)) ?? true)) return lane(request, response);
    if (request.headers['content-length'] === undefined && request.method !== 'GET' && request.method !== 'HEAD') {
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= max || response.headersSent) return;
        request.off('data', count);
        server.metrics.refuse('maxBodyBytes');
        // Stop reading: the rest of the body is never buffered.
        refuse(response, 413, 'maxBodyBytes', max, `Request body of more than ${max} bytes exceeds the limit maxBodyBytes = ${max}.`, () => request.destroy());
      };
      request.on('data', count);
    }
    return server(request, response);
  };
}

const answer = (status: string) => `HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`;
const BAD_REQUEST = answer('400 Bad Request');
/** What Node writes to a client whose request its parser refuses, by the parser's error. */
const CLIENT_ERROR_ANSWERS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: answer('431 Request Header Fields Too Large'),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: answer('413 Payload Too Large'),
  ERR_HTTP_REQUEST_TIMEOUT: answer('408 Request Timeout'),
};

export interface NodeServer {
  http: HttpServer;
  /** Connections and streams open now (for tests and the stop summary). */
  open(): { connections: number; streams: number };
  /**
   * A graceful stop: no new connections; every request read or arriving on an open connection answered
   * with `Connection: close`; connections idle for `idleGraceMs` closed; subscription streams sent a last
   * event and ended; requests in flight given up to `graceMs`, then cut. Resolves once every connection
   * is closed.
   */
  stop(graceMs?: number, idleGraceMs?: number): Promise<StopSummary>;
}

export interface StopSummary {
  /** Requests being answered when the stop began (streams included). */
  inFlight: number;
  /** Requests read, and answered to the end, from the start to the stop. */
  received: number;
  answered: number;
  /** Requests read but cut at the end of the grace period (lost). */
  cut: number;
}

/**
 * The HTTP server as `serve` runs it: slow clients cannot hold it (headers within 10 s, a whole request
 * within 30 s, idle keep-alive closed after 5 s), and connections and streams are capped in total and per
 * client address. A connection past a cap is answered (503 for the server's total, 429 for one address's
 * share) as soon as it sends its request, naming the limit, and closed; one that sends nothing is closed
 * after 2 s. Past twice maxConnections the kernel's connections are dropped unanswered.
 */
export interface Timeouts {
  /** The request line and headers must arrive within this (then 408 and the connection closed). */
  headersMs: number;
  /** The whole request, body included, must arrive within this. */
  requestMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

export function createNodeServer(server: BodyLimited & { limits: Limits; stopStreams?: () => void }, timeouts: Timeouts = DEFAULT_TIMEOUTS): NodeServer {
  const limits = server.limits;
  const http = createHttpServer({
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // Node checks the two request timeouts on this beat (30 s by default, which would let a slow client
    // hold a connection up to 40 s past a 10 s limit).
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs / 4),
  });
  http.maxConnections = 2 * limits.maxConnections;
  const connections = new Counter();
  const streams = new Counter();
  const refused = new WeakMap<Socket, (response: ServerResponse) => void>();
  // Requests being answered on each connection: a connection with none is idle.
  const busy = new Map<Socket, number>();
  http.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
    const address = addressOf(socket);
    const fromAddress = connections.of(address);
    let refusal: ((response: ServerResponse) => void) | null = null;
    if (connections.total >= limits.maxConnections) {
      server.metrics.refuse('maxConnections');
      refusal = (response) => refuse(response, 503, 'maxConnections', limits.maxConnections, `The server has ${connections.total} connections open: the limit maxConnections = ${limits.maxConnections} is reached; retry later.`);
    } else if (fromAddress >= limits.maxConnectionsPerAddress) {
      server.metrics.refuse('maxConnectionsPerAddress');
      refusal = (response) =>
        refuse(response, 429, 'maxConnectionsPerAddress', limits.maxConnectionsPerAddress, `${address} has ${connections.of(address)} connections open: the limit maxConnectionsPerAddress = ${limits.maxConnectionsPerAddress} is reached; reuse them (keep-alive) or close some.`);
    }
    if (refusal) {
      refused.set(socket, refusal);
      socket.setTimeout(2_000, () => socket.destroy());
      return;
    }
    connections.add(address);
    socket.once('close', () => connections.remove(address));
  });
  const listener = nodeListener(server);
  // Node's own answers to what its parser refuses (below), except a Content-Length that is no number
  // under /placement, which Placement's API answers in its own words.
  http.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    if (server.placementApi && answerBadContentLength(server.placementApi, error, socket)) return;
    // As Node: answered unless an answer to this connection's request has begun.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) socket.write(CLIENT_ERROR_ANSWERS[error.code ?? ''] ?? BAD_REQUEST);
    socket.destroy(error);
  });
  let stopping = false;
  const inFlight = new Set<ServerResponse>();
  let received = 0;
  let answered = 0;
  http.on('request', (request: IncomingMessage, response: ServerResponse) => {
    received++;
    inFlight.add(response);
    const socket = request.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    response.once('finish', () => answered++);
    response.once('close', () => {
      inFlight.delete(response);
      if (busy.has(socket)) busy.set(socket, busy.get(socket)! - 1);
    });
    if (stopping) response.setHeader('connection', 'close');
    const refusal = refused.get(request.socket);
    if (refusal) return refusal(response);
    if (wantsStream(request)) {
      const address = addressOf(request.socket);
      if (streams.total >= limits.maxStreams) {
        server.metrics.refuse('maxStreams');
        return refuse(response, 503, 'maxStreams', limits.maxStreams, `The server has ${streams.total} subscription streams open: the limit maxStreams = ${limits.maxStreams} is reached; retry later.`);
      }
      if (streams.of(address) >= limits.maxStreamsPerAddress) {
        server.metrics.refuse('maxStreamsPerAddress');
        return refuse(response, 429, 'maxStreamsPerAddress', limits.maxStreamsPerAddress, `${address} has ${streams.of(address)} subscription streams open: the limit maxStreamsPerAddress = ${limits.maxStreamsPerAddress} is reached; close one first.`);
      }
      streams.add(address);
      response.once('close', () => streams.remove(address));
    }
    return listener(request, response);
  });
  const stop = (graceMs = 10_000, idleGraceMs = 1_000) =>
    new Promise<StopSummary>((resolve) => {
      stopping = true;
      const atStop = inFlight.size;
      const started = Date.now();
      let cut = 0;
      // A kept-alive connection idle at the signal may carry a request the client is sending right now:
      // closing it at once would lose that request. Each one is answered with `Connection: close`; a
      // connection still idle after idleGraceMs is closed (its client had time to send, and sent nothing).
      const sweep = setInterval(() => {
        if (Date.now() - started < idleGraceMs) return;
        for (const [socket, requests] of busy) if (requests === 0) socket.destroy();
      }, 20);
      const deadline = setTimeout(() => {
        cut = inFlight.size;
        http.closeAllConnections();
      }, graceMs);
      // net's close, not http's: http's would close idle connections at once (see above).
      NetServer.prototype.close.call(http, () => {
        clearInterval(sweep);
        clearTimeout(deadline);
        resolve({ inFlight: atStop, received, answered, cut });
      });
      server.stopStreams?.();
    });
  return { http, open: () => ({ connections: connections.total, streams: streams.total }), stop };
}
