// Yoga plugins: access control, limits, request ids, structured logs and metrics.
import { randomUUID } from 'node:crypto';
import { GraphQLError, getOperationAST, Kind, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { pino } from 'pino';
import type { Db } from '../db/client.js';
import type { Context } from '../context.js';
import type { Metrics } from './metrics.js';
import { LimitExceeded, limitedParse, limitsRules } from './limits.js';
import type { Limits } from '../modules/common/limits.js';
import { roleOf, type AccessConfig } from './access.js';
import { isReported, reportedError } from '../modules/common/refusal.graphql.js';
import { CANDIDATE_FIELDS } from '../modules/candidates/candidates.graphql.js';


export type Logger = (entry: Record<string, unknown>) => void;

// One JSON line per entry on stdout, as before pino: {"level":"info","time":"<ISO 8601>",...fields}.
const pinoLogger = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } });

export const jsonLogger: Logger = ({ level, ...fields }) => (level === 'warn' ? pinoLogger.warn(fields) : level === 'error' ? pinoLogger.error(fields) : pinoLogger.info(fields));

const refusal = (status: number, code: string, message: string) => new GraphQLError(message, { extensions: { code, http: { status } } });

/** A refusal answered before GraphQL runs: the errors shape GraphQL clients read, with a code. */
export function errorResponse(status: number, message: string, extensions: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ errors: [{ message, extensions }] }), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

const UNAUTHENTICATED = 'A valid bearer token is required (Authorization: Bearer TOKEN).';

/**
 * With tokens configured, a request without a valid one is answered 401 as it arrives, before any of its
 * body is read: nothing is parsed, validated or cached for it, and it sees no syntax error or field hint.
 * The pages and endpoints placed before this plugin (health, GraphiQL and the dashboard, which carry no
 * data, and /metrics, which checks its own) are the only ones served without a token. Then reads need
 * the reader role and mutations admin; the whole operation is checked, so no field (node(id) included)
 * bypasses it.
 */
export function useAccessControl(access: AccessConfig): Plugin<Context> {
  const check = (document: DocumentNode, operationName: string | null | undefined, context: Context) => {
    const operation = getOperationAST(document, operationName)?.operation ?? 'query';
    if (context.role === null) return refusal(401, 'UNAUTHENTICATED', UNAUTHENTICATED);
    if (operation === 'mutation' && context.role !== 'admin') return refusal(403, 'FORBIDDEN', `A ${operation} needs the admin role; this token has the reader role.`);
    return null;
  };
  return {
    onRequest({ request, endResponse }) {
      if (roleOf(access, request.headers.get('authorization')) === null) endResponse(errorResponse(401, UNAUTHENTICATED, { code: 'UNAUTHENTICATED' }, { 'www-authenticate': 'Bearer' }));
    },
    onExecute({ args, setResultAndStopExecution }) {
      const error = check(args.document, args.operationName, args.contextValue);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const error = check(args.document, args.operationName, args.contextValue);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}

/** Body size before reading; nesting and tokens before parsing; depth, aliases and cost as validation rules. */
export function useLimits(limits: Limits, metrics: Metrics): Plugin<Context> {
  const rules = limitsRules(limits);
  return {
    onRequest({ request, endResponse }) {
      const length = Number(request.headers.get('content-length') ?? 0);
      if (length > limits.maxBodyBytes) {
        metrics.refuse('maxBodyBytes');
        endResponse(errorResponse(413, `Request body of ${length} bytes exceeds the limit maxBodyBytes = ${limits.maxBodyBytes}.`, { code: 'LIMIT_EXCEEDED', limit: 'maxBodyBytes' }));
      }
    },
    // Only documents not in the parse cache get here (the cache plugin, placed after this one, sets the parsed document).
    onParse({ parseFn, setParseFn }) {
      const parse = limitedParse(limits, parseFn);
      setParseFn((source, options) => {
        try {
          return parse(source, options);
        } catch (error) {
          if (error instanceof LimitExceeded) metrics.refuse(String(error.extensions.limit));
          throw error;
        }
      });
    },
    // A subscription holds its answer open: only as a stream (SSE or multipart), which the stream caps count.
    onSubscribe({ args, setResultAndStopExecution }) {
      const accept = (args.contextValue as any).request?.headers.get('accept') ?? '';
      if (!/text\/event-stream|multipart\/mixed/i.test(accept)) {
        metrics.refuse('streamsOnly');
        setResultAndStopExecution({
          errors: [refusal(406, 'NOT_ACCEPTABLE', 'A subscription is answered as a stream only: send Accept: text/event-stream (server-sent events) or multipart/mixed.')],
        });
      }
    },
    onValidate({ addValidationRule }) {
      for (const rule of rules) addValidationRule(rule);
      return ({ result }) => {
        for (const error of result) if (error.extensions?.code === 'LIMIT_EXCEEDED') metrics.refuse(String(error.extensions.limit));
      };
    },
  };
}

/** Each request's id: set as it arrives, by the onRequest hook below or by the HTTP fast lane. */
const requestIds = new WeakMap<object, string>();
export const assignRequestId = (request: object, id: string) => void requestIds.set(request, id);

/** A request id (x-request-id, echoed back), one JSON log line per operation, and metrics; /metrics serves them. */
export function useObservability(db: Db, metrics: Metrics, log: Logger | null, mayReadMetrics: (request: Request) => boolean = () => true): Plugin<Context> {
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname === '/metrics') {
        if (!mayReadMetrics(request)) {
          return endResponse(
            new Response('/metrics needs a bearer token (reader or admin) when tokens are configured; serve --metrics-open serves it without one.\n', {
              status: 401,
              headers: { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' },
            }),
          );
        }
        return metrics.render().then((text) => endResponse(new Response(text, { headers: { 'content-type': metrics.contentType } })));
      }
      requestIds.set(request, request.headers.get('x-request-id') ?? randomUUID());
    },
    onResponse({ request, response }) {
      const id = requestIds.get(request);
      if (id) response.headers.set('x-request-id', id);
    },
    onExecute({ args }) {
      const started = performance.now();
      const statementsBefore = db.statements.count;
      const operation = getOperationAST(args.document, args.operationName);
      const name = operation?.name?.value ?? args.operationName ?? 'anonymous';
      const type = operation?.operation ?? 'query';
      for (const selection of operation?.selectionSet.selections ?? []) {
        if (selection.kind === Kind.FIELD && CANDIDATE_FIELDS.has(selection.name.value)) metrics.candidateSearch();
      }
      const request = (args.contextValue as any).request as Request | undefined;
      return {
        onExecuteDone({ result }) {
          const seconds = (performance.now() - started) / 1000;
          const errors = 'errors' in result && result.errors ? result.errors.map((e) => e.message) : [];
          metrics.observe(name, type, seconds, errors.length > 0);
          log?.({
            level: errors.length ? 'warn' : 'info',
            requestId: request ? requestIds.get(request) : undefined,
            operation: name,
            type,
            durationMs: Math.round(seconds * 1e4) / 10,
            sqlStatements: db.statements.count - statementsBefore,
            ...(errors.length ? { errors: errors.slice(0, 5) } : {}),
          });
        },
      };
    },
  };
}

/**
 * No answer shows internals: yoga attaches the JSON parser's own error to a bad body; drop it. A bad
 * query string is the client's mistake, answered 400 (not an internal error logged with its stack). A limit
 * refused while parsing stays a 400 (yoga marks every parse error as one the GraphQL over HTTP draft lets
 * it answer 200 to application/json clients).
 */
export function useNoInternals(): Plugin<Context> {
  const clean = (result: any) => {
    for (const error of result?.errors ?? []) {
      if (error?.extensions?.code === 'LIMIT_EXCEEDED' && error.extensions.http) error.extensions.http.spec = false;
      if (!error?.extensions?.originalError) continue;
      delete error.extensions.originalError;
      // yoga read the parser's error as the sign of a bad request (400 even for application/json): say so directly.
      if (error.extensions.http?.status) error.extensions.http = { ...error.extensions.http, spec: false };
    }
  };
  return {
    // yoga reads GET's variables and extensions with JSON.parse, unguarded: a client's mistake, not the server's.
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser((request) => {
        try {
          return requestParser(request);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          throw new GraphQLError('The request\'s variables and extensions must be JSON.', { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
        }
      });
    },
    onResultProcess({ result }) {
      if (Array.isArray(result)) result.forEach(clean);
      else clean(result);
    },
  };
}

/**
 * `variables` or `extensions` in a query string (GET, or a form-urlencoded POST) that is not JSON is the
 * client's mistake: 400, as a JSON body that does not parse is. yoga's own parser throws a bare SyntaxError
 * there, which it answers as an internal error (500) and logs with its stack.
 */
export function useQueryStringJson(): Plugin<Context> {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (error instanceof SyntaxError) throw refusal(400, 'BAD_REQUEST', 'The variables or extensions of the query string are not valid JSON.');
          throw error;
        }
      });
    },
  };
}

/** Refusals of the domain (RequestRefused) reported as top-level errors with Placement's status, and a busy database as DATABASE_BUSY; before error masking, which keeps them. */
export function useDomainErrors(): Plugin<Context> {
  return {
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.some(isReported)) return;
          setResult({ ...result, errors: result.errors.map(reportedError) });
        },
      };
    },
  };
}

/**
 * Subscription streams. Each runs ahead of its reader: every event is executed as it comes, into a buffer
 * the stream is read from, so events never pile up unbounded behind a client that does not read. A client
 * that leaves more than `maxBufferBytes` of answers unread is dropped: its connection is closed and the
 * buffer given back (its last result, for a reader that comes back, says so: SLOW_SUBSCRIBER). When the
 * server stops, each stream gets a last result saying so (SERVER_STOPPING), then completes, which SSE sends
 * as `event: complete`, so a client knows to subscribe again rather than seeing a cut connection.
 */
export function useStreams(stopping: AbortSignal, maxBufferBytes: number, metrics: Metrics): Plugin<Context> {
  return {
    onSubscribe({ args }) {
      // Over HTTP, yoga's context carries Node's response: the way to drop a client that reads nothing.
      const response = (args.contextValue as { res?: { destroy(): void } }).res;
      const drop = () => {
        metrics.refuse('maxStreamBufferBytes');
        response?.destroy();
      };
      return {
        onSubscribeResult({ result, setResult }) {
          if (result && typeof (result as any)[Symbol.asyncIterator] === 'function') setResult(buffered(result as AsyncIterable<any>, { stopping, maxBufferBytes, drop }));
        },
      };
    },
  };
}

type Last = { errors: GraphQLError[] };

function buffered<T>(source: AsyncIterable<T>, options: { stopping: AbortSignal; maxBufferBytes: number; drop: () => void }): AsyncIterableIterator<T | Last> {
  const iterator = source[Symbol.asyncIterator]();
  const queue: { value: T | Last; bytes: number }[] = [];
  let unread = 0;
  let ended = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const waiting = wake;
    wake = null;
    waiting?.();
  };
  const end = (last?: Last) => {
    if (ended) return;
    ended = true;
    if (last) queue.push({ value: last, bytes: 0 });
    options.stopping.removeEventListener('abort', stop);
    // Not awaited: a source waiting for its next event ends on its own once asked to.
    void iterator.return?.();
    notify();
  };
  const stop = () => end({ errors: [new GraphQLError('The server is stopping: this stream ends here. Subscribe again once it is back.', { extensions: { code: 'SERVER_STOPPING' } })] });
  if (options.stopping.aborted) stop();
  else options.stopping.addEventListener('abort', stop, { once: true });
  void (async () => {
    try {
      while (!ended) {
        const next = await iterator.next();
        if (ended) return;
        if (next.done) return end();
        const bytes = JSON.stringify(next.value).length;
        if (unread + bytes > options.maxBufferBytes) {
          queue.length = 0;
          unread = 0;
          end({
            errors: [
              new GraphQLError(`This stream was dropped: it left more than ${options.maxBufferBytes} bytes unread (the limit maxStreamBufferBytes). Subscribe again, and read events as they come.`, {
                extensions: { code: 'SLOW_SUBSCRIBER', limit: 'maxStreamBufferBytes', allowed: options.maxBufferBytes },
              }),
            ],
          });
          return options.drop();
        }
        queue.push({ value: next.value, bytes });
        unread += bytes;
        notify();
      }
    } catch (error) {
      failure = { error };
      end();
    }
  })();
  return {
    async next() {
      while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue.shift();
      if (item) {
        unread -= item.bytes;
        return { value: item.value, done: false };
      }
      if (failure) {
        const { error } = failure;
        failure = null;
        throw error;
      }
      return { value: undefined, done: true };
    },
    async return() {
      queue.length = 0;
      unread = 0;
      end();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
