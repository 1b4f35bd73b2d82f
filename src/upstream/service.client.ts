// Reading Nova, Glance and Ironic: GETs only, with the service's microversion headers, bounded
// concurrency, retries of 5xx and connection errors with backoff, and a new token after a 401
// (the same discipline as the Placement client).
import { ConnectionError, createHttpClient, type HttpClient, type HttpResponse } from './http.js';
import { UpstreamError, UpstreamUnreachable, type PlacementClientOptions } from './placement.client.js';
import type { ServiceType, UpstreamSession } from './session.js';

/** The service's name as operators know it. */
export const SERVICE_NAMES: Record<Exclude<ServiceType, 'placement'>, string> = { compute: 'Nova', image: 'Glance', baremetal: 'Ironic' };

export class ServiceClient {
  requestCount = 0;
  private readonly http: HttpClient;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly concurrency: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly session: UpstreamSession,
    readonly service: Exclude<ServiceType, 'placement'>,
    /** The base every path is relative to (Nova: with /v2.1; Glance and Ironic: versionless). */
    readonly base: string,
    private readonly headers: Record<string, string> = {},
    options: PlacementClientOptions = {},
  ) {
    this.http = options.http ?? createHttpClient(session.tls, Math.max(4, options.concurrency ?? 8));
    this.attempts = options.attempts ?? 4;
    this.retryDelayMs = options.retryDelayMs ?? 200;
    this.concurrency = options.concurrency ?? 8;
  }

  /** GET of a path relative to the base, or of a full URL (Ironic's next links); the JSON answer. */
  async get<T = any>(pathOrUrl: string, headers: Record<string, string> = {}): Promise<T> {
    const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : this.base + pathOrUrl;
    await this.slot();
    try {
      const res = await this.send(url, headers);
      if (res.status >= 200 && res.status < 300) return (res.body.length ? JSON.parse(res.body.toString('utf8')) : null) as T;
      throw new UpstreamError(res.status, `${this.service}.error`, `${SERVICE_NAMES[this.service]}: ${errorText(res)}`, 'GET', url.slice(this.base.length) || url);
    } finally {
      this.release();
    }
  }

  close() {
    this.http.close();
  }

  private async send(url: string, extra: Record<string, string>): Promise<HttpResponse> {
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      let res: HttpResponse;
      let token: string;
      try {
        token = await this.session.token();
        this.requestCount++;
        res = await this.http.send({ method: 'GET', url, headers: { 'x-auth-token': token, ...this.headers, ...extra } });
      } catch (error) {
        if (!(error instanceof ConnectionError)) throw error;
        if (attempt >= this.attempts) throw new UpstreamUnreachable(`${SERVICE_NAMES[this.service]} at ${this.base} is unreachable: ${error.code}`);
        await sleep(this.retryDelayMs * 2 ** (attempt - 1));
        continue;
      }
      if (res.status === 401 && !renewed) {
        renewed = true;
        await this.session.token(token);
        attempt--;
        continue;
      }
      if (res.status >= 500 && attempt < this.attempts) {
        await sleep(this.retryDelayMs * 2 ** (attempt - 1));
        continue;
      }
      return res;
    }
  }

  private async slot() {
    if (this.active < this.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release() {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

/** Nova's {"forbidden": {"message"}} and the like, Glance's text, Ironic's {"error_message"}. */
function errorText(res: HttpResponse): string {
  const text = res.body.toString('utf8');
  try {
    const body = JSON.parse(text);
    const first = body && typeof body === 'object' ? Object.values(body)[0] : null;
    if (first && typeof first === 'object' && 'message' in (first as any)) return String((first as any).message);
    if (typeof body?.error_message === 'string') {
      try {
        return String(JSON.parse(body.error_message).faultstring ?? body.error_message);
      } catch {
        return body.error_message;
      }
    }
  } catch {
    // not JSON
  }
  return (text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200) || `HTTP ${res.status}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
