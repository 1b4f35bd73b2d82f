// One HTTP(S) request to an upstream service, on keep-alive connections, with TLS verified.
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
  /** Gives up after this long without an answer (default 30 s). */
  timeoutMs?: number;
}

/** Connection errors keep their code (ECONNREFUSED, ETIMEDOUT...) so callers can retry them. */
export class ConnectionError extends Error {
  constructor(
    readonly url: string,
    readonly code: string,
  ) {
    super(`cannot reach ${url}: ${code}`);
  }
}

export function createHttpClient(tls: TlsOptions, maxSockets = 16) {
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets });
  const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets, ca: tls.ca, rejectUnauthorized: tls.rejectUnauthorized });
  function send(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
    const secure = url.protocol === 'https:';
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const r = (secure ? httpsRequest : httpRequest)(url, { method: req.method, headers, agent: secure ? httpsAgent : httpAgent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (e: NodeJS.ErrnoException) => reject(new ConnectionError(`${url.origin}${url.pathname}`, e.code ?? 'ECONNRESET')));
      });
      r.setTimeout(req.timeoutMs ?? 30_000, () => r.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      r.on('error', (e: NodeJS.ErrnoException) => reject(new ConnectionError(`${url.origin}${url.pathname}`, e.code ?? e.message)));
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
