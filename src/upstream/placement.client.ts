// Talking to a live Placement: the microversion header, bounded concurrency, retries of 5xx and
// connection errors with backoff, a new token after a 401, and counts of requests by status.
import { RequestDiscipline, UpstreamUnreachable, type DisciplineOptions } from './discipline.js';
import { createHttpClient, type HttpClient, type HttpResponse } from './http.js';
import type { UpstreamSession } from './session.js';

export { UpstreamUnreachable };

/** The microversion the gateway speaks; an older Placement is negotiated down to what it serves. */
export const WANTED_MICROVERSION = '1.39';
/** Below this the mirror cannot be kept: consumer generations in allocation listings (1.28). */
export const MINIMUM_MICROVERSION = '1.28';

/** An upstream answer that is not a success; Placement's error code and detail are kept. */
export class UpstreamError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly method: string,
    readonly path: string,
    /** Placement's own text, as its error's detail holds it after webob's explanation of the status. */
    readonly placementText = detail,
  ) {
    super(`${method} ${path}: ${status} ${detail}`);
  }
}

export interface PlacementClientOptions extends DisciplineOptions {
  http?: HttpClient;
}

const compareVersions = (a: string, b: string) => {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am - bm || an - bn;
};

export class PlacementClient {
  microversion = WANTED_MICROVERSION;
  /** Requests sent, by status (0: no answer). */
  readonly requests = new Map<number, number>();
  requestCount = 0;
  private readonly http: HttpClient;
  private readonly discipline: RequestDiscipline;

  constructor(
    readonly session: UpstreamSession,
    options: PlacementClientOptions = {},
  ) {
    this.http = options.http ?? createHttpClient(session.tls, Math.max(8, options.concurrency ?? 8));
    this.discipline = new RequestDiscipline(session, this.http, options);
  }

  /** Reads the version document and settles the microversion; refuses a Placement too old to mirror. */
  async negotiate(): Promise<{ max: string; microversion: string }> {
    const root = await this.call<{ versions: { max_version: string }[] }>('GET', '/');
    const max = root.versions?.[0]?.max_version ?? '1.0';
    if (compareVersions(max, MINIMUM_MICROVERSION) < 0) {
      throw new UpstreamError(0, 'too_old', `Placement serves microversions up to ${max}; the gateway needs ${MINIMUM_MICROVERSION} or later (Rocky)`, 'GET', '/');
    }
    this.microversion = compareVersions(max, WANTED_MICROVERSION) < 0 ? max : WANTED_MICROVERSION;
    return { max, microversion: this.microversion };
  }

  /**
   * One call; the JSON answer, or null for 204. Throws UpstreamError or UpstreamUnreachable. A write
   * made for a client of an older microversion is sent at that one, so Placement applies its rules.
   */
  async call<T = any>(method: string, path: string, body?: unknown, microversion = this.microversion): Promise<T> {
    const res = await this.send(method, path, body, microversion);
    if (res.status >= 200 && res.status < 300) return (res.body.length ? JSON.parse(res.body.toString('utf8')) : null) as T;
    const { code, detail, text } = placementError(res);
    throw new UpstreamError(res.status, code, detail, method, path, text);
  }

  close() {
    this.http.close();
  }

  private async send(method: string, path: string, body: unknown, microversion: string): Promise<HttpResponse> {
    const base = await this.session.endpoint('placement');
    if (!base) throw new UpstreamUnreachable((await this.session.missingEndpoint?.('placement')) ?? 'the service catalog has no placement endpoint');
    return this.discipline.send(
      (token) => ({ method, url: base + path, body, headers: { 'x-auth-token': token, 'openstack-api-version': `placement ${microversion}` } }),
      (status) => this.count(status),
      (code) => `Placement at ${base} is unreachable: ${code}`,
    );
  }

  private count(status: number) {
    this.requestCount++;
    this.requests.set(status, (this.requests.get(status) ?? 0) + 1);
  }
}

/**
 * Placement's error body: {"errors": [{"status", "code", "detail", "title"}]}; detail is webob's
 * explanation of the status, a blank line, then Placement's text (kept as it is, as `text`).
 */
function placementError(res: HttpResponse): { code: string; detail: string; text: string } {
  try {
    const first = JSON.parse(res.body.toString('utf8'))?.errors?.[0];
    if (first) {
      const raw = String(first.detail ?? first.title ?? '');
      const blank = raw.indexOf('\n\n ');
      const text = (blank < 0 ? raw : raw.slice(blank + 3)).replace(/ {2}$/, '');
      return { code: first.code ?? 'placement.undefined_code', detail: raw.replace(/\s+/g, ' ').trim(), text };
    }
  } catch {
    // not JSON: a proxy's page, for example
  }
  return { code: 'placement.undefined_code', detail: `HTTP ${res.status}`, text: `HTTP ${res.status}` };
}

