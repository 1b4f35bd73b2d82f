// How the gateway talks to every OpenStack service it reads or writes: a bounded number of requests
// in flight, a token on each try, one new token after a 401, and retries of connection errors and
// 5xx answers with backoff. Placement's client and the Nova, Glance and Ironic client share it.
// The token goes only to the origin (scheme, host, port) of the endpoint the catalog or the flags
// name: a link or a path that leads elsewhere is refused before anything is sent.
import { ConnectionError, originOf, type HttpClient, type HttpRequest, type HttpResponse } from './http.js';
import { redactUrl } from './redact.js';
import type { UpstreamSession } from './session.js';

/** The upstream could not be reached at all (after retries). */
export class UpstreamUnreachable extends Error {}

/** A request that would take the token to another origin than the service's endpoint: never sent. */
export class ForeignOrigin extends Error {
  constructor(
    /** The endpoint's origin, where the token may go. */
    readonly allowed: string,
    /** Where the request would have gone (redacted). */
    readonly target: string,
  ) {
    super(`refused to send the token to ${target}: only ${allowed} is named by the catalog or the flags`);
  }
}

export interface DisciplineOptions {
  /** Requests in flight at once (default 8). */
  concurrency?: number;
  /** Attempts for a 5xx or a connection error (default 4: waits of 0.2, 0.4, 0.8 s between). */
  attempts?: number;
  retryDelayMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class RequestDiscipline {
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly concurrency: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly session: UpstreamSession,
    private readonly http: HttpClient,
    options: DisciplineOptions = {},
  ) {
    this.attempts = options.attempts ?? 4;
    this.retryDelayMs = options.retryDelayMs ?? 200;
    this.concurrency = options.concurrency ?? 8;
  }

  /**
   * Sends the request `build` makes with the current token, retrying as above; `counted` hears the
   * status of every try (0: no answer). The answer may be any status: the caller reads it.
   * `unreachable` words the error once every try failed to connect. The request must go to `origin`
   * (the service endpoint's), or it is refused unsent.
   */
  async send(build: (token: string) => HttpRequest, counted: (status: number) => void, unreachable: (code: string) => string, origin: string): Promise<HttpResponse> {
    const target = build('').url;
    if (!URL.canParse(target) || originOf(target) !== origin) throw new ForeignOrigin(origin, redactUrl(target));
    await this.slot();
    try {
      let renewed = false;
      for (let attempt = 1; ; attempt++) {
        let res: HttpResponse;
        let token: string;
        try {
          token = await this.session.token();
          res = await this.http.send(build(token));
        } catch (error) {
          counted(0);
          if (!(error instanceof ConnectionError)) throw error;
          if (attempt >= this.attempts) throw new UpstreamUnreachable(unreachable(error.code));
          await sleep(this.retryDelayMs * 2 ** (attempt - 1));
          continue;
        }
        counted(res.status);
        // An error answer that echoes the token shows it to no one further on.
        if (res.status >= 400 && token.length >= 4 && res.body.includes(token)) res.body = Buffer.from(res.body.toString('utf8').split(token).join('***'));
        if (res.status === 401 && !renewed) {
          renewed = true;
          await this.session.token(token);
          attempt--;
          continue;
        }
        // Writes are retried too: Placement answers 5xx before committing, and generations guard the rest.
        if (res.status >= 500 && attempt < this.attempts) {
          await sleep(this.retryDelayMs * 2 ** (attempt - 1));
          continue;
        }
        return res;
      }
    } finally {
      this.release();
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
