// Reading Nova, Glance and Ironic: GETs only, with the service's microversion headers, under the
// same request discipline as the Placement client (discipline.ts).
import { RequestDiscipline } from './discipline.js';
import { createHttpClient, type HttpClient, type HttpResponse } from './http.js';
import { UpstreamError, type PlacementClientOptions } from './placement.client.js';
import type { ServiceType, UpstreamSession } from './session.js';

/** The service's name as operators know it. */
export const SERVICE_NAMES: Record<Exclude<ServiceType, 'placement'>, string> = { compute: 'Nova', image: 'Glance', baremetal: 'Ironic' };

export class ServiceClient {
  requestCount = 0;
  private readonly http: HttpClient;
  private readonly discipline: RequestDiscipline;

  constructor(
    readonly session: UpstreamSession,
    readonly service: Exclude<ServiceType, 'placement'>,
    /** The base every path is relative to (Nova: with /v2.1; Glance and Ironic: versionless). */
    readonly base: string,
    private readonly headers: Record<string, string> = {},
    options: PlacementClientOptions = {},
  ) {
    this.http = options.http ?? createHttpClient(session.tls, Math.max(4, options.concurrency ?? 8));
    this.discipline = new RequestDiscipline(session, this.http, options);
  }

  /** GET of a path relative to the base, or of a full URL (Ironic's next links); the JSON answer. */
  async get<T = any>(pathOrUrl: string, headers: Record<string, string> = {}): Promise<T> {
    const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : this.base + pathOrUrl;
    const res = await this.discipline.send(
      (token) => ({ method: 'GET', url, headers: { 'x-auth-token': token, ...this.headers, ...headers } }),
      () => this.requestCount++,
      (code) => `${SERVICE_NAMES[this.service]} at ${this.base} is unreachable: ${code}`,
    );
    if (res.status >= 200 && res.status < 300) return (res.body.length ? JSON.parse(res.body.toString('utf8')) : null) as T;
    throw new UpstreamError(res.status, `${this.service}.error`, `${SERVICE_NAMES[this.service]}: ${errorText(res)}`, 'GET', url.slice(this.base.length) || url);
  }

  close() {
    this.http.close();
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

