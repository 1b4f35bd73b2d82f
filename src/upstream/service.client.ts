// Reading Nova, Glance and Ironic: GETs only, with the service's microversion headers, under the
// same request discipline as the Placement client (discipline.ts).
import { RequestDiscipline } from './discipline.js';
import { createHttpClient, originOf, type HttpClient, type HttpResponse } from './http.js';
import { answerJson, UpstreamError, type PlacementClientOptions } from './placement.client.js';
import { redactUrl } from './redact.js';
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
    this.http = options.http ?? createHttpClient(session.tls, Math.max(4, options.concurrency ?? 8), options);
    this.discipline = new RequestDiscipline(session, this.http, options);
  }

  /**
   * GET of a path relative to the base, or of a full URL (Ironic's next links); the JSON answer.
   * A URL (or a path that makes one) on another origin than the base's is refused unsent.
   */
  async get<T = any>(pathOrUrl: string, headers: Record<string, string> = {}): Promise<T> {
    const url = /^https?:\/\//i.test(pathOrUrl) ? pathOrUrl : this.base + pathOrUrl;
    const name = SERVICE_NAMES[this.service];
    const res = await this.discipline.send(
      (token) => ({ method: 'GET', url, headers: { 'x-auth-token': token, ...this.headers, ...headers } }),
      () => this.requestCount++,
      (code) => `${name} at ${redactUrl(this.base)} is unreachable: ${code}`,
      originOf(this.base),
    );
    // The path as shown: what was asked for, without the query (markers and links come from the service).
    const asked = new URL(url).pathname;
    const under = new URL(this.base).pathname.replace(/\/+$/, '');
    const path = (asked.startsWith(under) ? asked.slice(under.length) : asked).slice(0, 120) || '/';
    if (res.status >= 200 && res.status < 300) return answerJson(res, name, 'GET', path) as T;
    throw new UpstreamError(res.status, `${this.service}.error`, `${name}: ${errorText(res)}`, 'GET', path, name);
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
    if (first && typeof first === 'object' && 'message' in (first as any)) return oneLine((first as any).message);
    if (typeof body?.error_message === 'string') {
      try {
        return oneLine(JSON.parse(body.error_message).faultstring ?? body.error_message);
      } catch {
        return oneLine(body.error_message);
      }
    }
  } catch {
    // not JSON
  }
  // Not JSON (a proxy's page, for example): nothing of it is shown.
  return `HTTP ${res.status}`;
}


const oneLine = (text: unknown) => String(text).replace(/\s+/g, ' ').trim().slice(0, 300);
