// One HTTP(S) request to an upstream service, on keep-alive connections, with TLS verified. Every
// answer is bounded: it must arrive whole within a deadline and stay under a size cap, read as a
// stream, so a slow or endless answer can neither stall a refresh nor fill the memory.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { TlsOptions } from './session.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface AnswerLimits {
  /** The whole exchange (connection, headers and body) within this long (default 60 s). */
  timeoutMs?: number;
  /** Answer bodies larger than this are refused as they stream in (default 256 MiB). */
  maxBodyBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;
/** Silence on a connection this long counts as a connection error (retried); the deadline bounds the rest. */
const IDLE_MS = 30_000;

/** Connection errors keep their code (ECONNREFUSED, ETIMEDOUT...) so callers can retry them. */
export class ConnectionError extends Error {
  constructor(
    readonly url: string,
    readonly code: string,
  ) {
    super(`cannot reach ${url}: ${code}`);
  }
}

/**
 * The answer did not arrive whole within the deadline, or was larger than the cap. Not retried:
 * the same request would do the same again.
 */
export class AnswerRefused extends Error {
  constructor(
    /** Scheme, host, port and path: no credentials, no query. */
    readonly url: string,
    readonly reason: 'too slow' | 'too large',
    /** The deadline in ms, or the cap in bytes. */
    readonly limit: number,
  ) {
    super(reason === 'too slow' ? `the answer from ${url} did not arrive whole within ${limit / 1000} s` : `the answer from ${url} is larger than ${limit} bytes`);
  }
}

export function createHttpClient(tls: TlsOptions, maxSockets = 16, limits: AnswerLimits = {}) {
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets });
  const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets, ca: tls.ca, rejectUnauthorized: tls.rejectUnauthorized });
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = limits.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  function send(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
    const shown = `${url.origin}${url.pathname}`;
    const secure = url.protocol === 'https:';
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        outcome();
      };
      const refuse = (error: Error) => {
        settle(() => reject(error));
        r.destroy();
      };
      const r = (secure ? httpsRequest : httpRequest)(url, { method: req.method, headers, agent: secure ? httpsAgent : httpAgent }, (res) => {
        const declared = Number(res.headers['content-length']);
        if (declared > maxBodyBytes) return refuse(new AnswerRefused(shown, 'too large', maxBodyBytes));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBodyBytes) return refuse(new AnswerRefused(shown, 'too large', maxBodyBytes));
          chunks.push(c);
        });
        res.on('end', () => settle(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) })));
        res.on('error', (e: NodeJS.ErrnoException) => settle(() => reject(new ConnectionError(shown, e.code ?? 'ECONNRESET'))));
        res.on('aborted', () => settle(() => reject(new ConnectionError(shown, 'ECONNRESET'))));
      });
      const deadline = setTimeout(() => refuse(new AnswerRefused(shown, 'too slow', timeoutMs)), timeoutMs);
      r.setTimeout(Math.min(IDLE_MS, timeoutMs), () => r.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      r.on('error', (e: NodeJS.ErrnoException) => settle(() => reject(new ConnectionError(shown, e.code ?? 'ECONNRESET'))));
      r.end(payload);
    });
  }
  return {
    send,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

export type HttpClient = ReturnType<typeof createHttpClient>;

/** The scheme, host and port a URL goes to: a token is sent only where its origin is one of those named. */
export const originOf = (url: string) => new URL(url).origin;
