// Yoga plugins: access control, limits, request ids, structured logs and metrics.
import { randomUUID } from 'node:crypto';
import { GraphQLError, getOperationAST, Kind, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { pino } from 'pino';
import type { Db } from '../db/client.js';
import type { Context } from '../context.js';
import type { Metrics } from './metrics.js';
import { limitsRules } from './limits.js';
import type { Limits } from '../modules/common/limits.js';
import { RequestRefused } from '../modules/common/errors.js';
import { reportedError } from '../modules/common/refusal.graphql.js';
import { CANDIDATE_FIELDS } from '../modules/candidates/candidates.graphql.js';


export type Logger = (entry: Record<string, unknown>) => void;

// One JSON line per entry on stdout, as before pino: {"level":"info","time":"<ISO 8601>",...fields}.
const pinoLogger = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } });

export const jsonLogger: Logger = ({ level, ...fields }) => (level === 'warn' ? pinoLogger.warn(fields) : level === 'error' ? pinoLogger.error(fields) : pinoLogger.info(fields));

const refusal = (status: number, code: string, message: string) => new GraphQLError(message, { extensions: { code, http: { status } } });

/** Reads need the reader role, mutations admin; the whole operation is checked, so no field (node(id) included) bypasses it. */
export function useAccessControl(): Plugin<Context> {
  const check = (document: DocumentNode, operationName: string | null | undefined, context: Context) => {
    const operation = getOperationAST(document, operationName)?.operation ?? 'query';
    const needed = operation === 'mutation' ? 'admin' : 'reader';
    if (context.role === null) return refusal(401, 'UNAUTHENTICATED', 'A valid bearer token is required (Authorization: Bearer TOKEN).');
    if (needed === 'admin' && context.role !== 'admin') return refusal(403, 'FORBIDDEN', `A ${operation} needs the admin role; this token has the reader role.`);
    return null;
  };
  return {
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

/** Depth, aliases and cost as a validation rule; body size before parsing. */
export function useLimits(limits: Limits, metrics: Metrics): Plugin<Context> {
  const rules = limitsRules(limits);
  return {
    onRequest({ request, endResponse }) {
      const length = Number(request.headers.get('content-length') ?? 0);
      if (length > limits.maxBodyBytes) {
        metrics.refuse('maxBodyBytes');
        endResponse(
          new Response(JSON.stringify({ errors: [{ message: `Request body of ${length} bytes exceeds the limit maxBodyBytes = ${limits.maxBodyBytes}.`, extensions: { code: 'LIMIT_EXCEEDED', limit: 'maxBodyBytes' } }] }), {
            status: 413,
            headers: { 'content-type': 'application/json' },
          }),
        );
      }
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

/** No answer shows internals: yoga attaches the JSON parser's own error to a bad body; drop it. */
export function useNoInternals(): Plugin<Context> {
  const clean = (result: any) => {
    for (const error of result?.errors ?? []) {
      if (!error?.extensions?.originalError) continue;
      delete error.extensions.originalError;
      // yoga read the parser's error as the sign of a bad request (400 even for application/json): say so directly.
      if (error.extensions.http?.status) error.extensions.http = { ...error.extensions.http, spec: false };
    }
  };
  return {
    onResultProcess({ result }) {
      if (Array.isArray(result)) result.forEach(clean);
      else clean(result);
    },
  };
}

/** Refusals of the domain (RequestRefused) reported as top-level errors with Placement's status; before error masking, which keeps them. */
export function useDomainErrors(): Plugin<Context> {
  return {
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.some((e) => e.originalError instanceof RequestRefused)) return;
          setResult({ ...result, errors: result.errors.map(reportedError) });
        },
      };
    },
  };
}

/**
 * Subscription streams end when the server stops: each gets a last result saying so (an error with code
 * SERVER_STOPPING), then completes, which SSE sends as `event: complete`, so a client knows to subscribe
 * again rather than seeing a cut connection.
 */
export function useStreamsStop(stopping: AbortSignal): Plugin<Context> {
  return {
    onSubscribe() {
      return {
        onSubscribeResult({ result, setResult }) {
          if (result && typeof (result as any)[Symbol.asyncIterator] === 'function') setResult(untilStopped(result as AsyncIterable<any>, stopping));
        },
      };
    },
  };
}

const STOPPED = Symbol('stopped');

async function* untilStopped<T>(source: AsyncIterable<T>, stopping: AbortSignal): AsyncGenerator<T | { errors: GraphQLError[] }> {
  const iterator = source[Symbol.asyncIterator]();
  const stopped = new Promise<typeof STOPPED>((resolve) => (stopping.aborted ? resolve(STOPPED) : stopping.addEventListener('abort', () => resolve(STOPPED), { once: true })));
  try {
    while (true) {
      const next = await Promise.race([iterator.next(), stopped]);
      if (next === STOPPED) {
        yield { errors: [new GraphQLError('The server is stopping: this stream ends here. Subscribe again once it is back.', { extensions: { code: 'SERVER_STOPPING' } })] };
        return;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Not awaited: a source waiting for its next event ends on its own once asked to.
    void iterator.return?.();
  }
}
