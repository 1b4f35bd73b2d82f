// The HTTP fast lane: an ordinary GraphQL POST (a JSON body with a query, variables and an operation
// name, answered as application/json) runs straight from Node's request to Node's response. Measured
// with the profiler, most of a small request's time went to turning Node's request into a Fetch
// Request and the Fetch Response back into Node's (streams, abort signals, header objects), not to
// GraphQL. The lane runs the same envelop pipeline as yoga (the schema's plugins: access control, limits,
// masking, logs and metrics, the parse and validation caches, the candidate writers) and yoga's own
// result processing, so the answer is the same, status and headers included. Everything else (GET,
// subscriptions and other streams, CORS, other media types, bodies without a length or past the limit,
// a body that is not a plain request, and a request that fails the checks made before reading it:
// Host, token) goes through yoga whole.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { processRegularResult, type YogaServerInstance } from 'graphql-yoga';
import { assignRequestId } from './plugins.js';
import { answerSent } from '../modules/common/json-bytes.js';

interface Lane {
  yoga: YogaServerInstance<any, any>;
  maxBodyBytes: number;
}

/** The request's headers as a Fetch `Headers` reader, without copying them. */
class NodeHeaders {
  constructor(private readonly raw: IncomingMessage['headers']) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
  has(name: string) {
    return this.raw[name.toLowerCase()] !== undefined;
  }
  forEach(fn: (value: string, key: string) => void) {
    for (const key of Object.keys(this.raw)) fn(this.get(key)!, key);
  }
}

/** What the lane takes: decided from the request line and headers alone, before any byte of the body. */
export function takesFastLane(request: IncomingMessage, maxBodyBytes: number): boolean {
  if (request.method !== 'POST' || request.url !== '/graphql') return false;
  const h = request.headers;
  if (h.origin !== undefined || h['content-length'] === undefined || Number(h['content-length']) > maxBodyBytes) return false;
  if (!/^application\/json\s*(;|$)/i.test(h['content-type'] ?? '')) return false;
  const accept = h.accept;
  if (accept === undefined || accept === '*/*') return true;
  // The media type yoga would choose: the first one listed, when it is JSON.
  return /^\s*application\/json\s*(;|,|$)/i.test(accept);
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

interface Params {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A plain GraphQL request, or null for anything yoga should judge (and word the error for). */
function plainParams(body: Buffer): Params | null {
  let params: unknown;
  try {
    params = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (!isObject(params) || typeof params.query !== 'string') return null;
  for (const key of Object.keys(params)) if (key !== 'query' && key !== 'variables' && key !== 'operationName' && key !== 'extensions') return null;
  if (params.variables != null && !isObject(params.variables)) return null;
  if (params.operationName != null && typeof params.operationName !== 'string') return null;
  if (params.extensions != null && !isObject(params.extensions)) return null;
  return params as unknown as Params;
}

/**
 * Answers with the body as bytes. A string is encoded here, once: handed to `end` as a string, Node
 * prepends the header text to it (a copy of the whole answer) and encodes it into a buffer sized for
 * the worst case (three bytes a character), which made a 2.4 MB answer take about 3 ms to hand to the
 * socket where its bytes take about 1 ms.
 */
function send(response: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  headers['content-length'] = String(bytes.length);
  response.writeHead(status, headers);
  // Its buffer serves a later answer once the socket has taken every byte.
  response.end(bytes, () => answerSent(bytes));
}

/** yoga answers a request whose body was already read: the same request, its body given whole. */
async function throughYoga(lane: Lane, request: IncomingMessage, response: ServerResponse, body: Buffer) {
  const headers: [string, string][] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) headers.push([request.rawHeaders[i], request.rawHeaders[i + 1]]);
  const answer = await lane.yoga.fetch(`http://${request.headers.host ?? 'localhost'}${request.url}`, { method: 'POST', headers, body }, { req: request, res: response });
  const out: Record<string, string> = {};
  answer.headers.forEach((value, key) => (out[key] = value));
  send(response, answer.status, out, Buffer.from(await answer.arrayBuffer()));
}

export function fastLane(yoga: YogaServerInstance<any, any>, maxBodyBytes: number) {
  const lane: Lane = { yoga, maxBodyBytes };
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    try {
      const body = await readBody(request);
      const params = plainParams(body);
      if (!params) return await throughYoga(lane, request, response, body);
      const fetchRequest = { method: 'POST', url: `http://${request.headers.host ?? 'localhost'}/graphql`, headers: new NodeHeaders(request.headers) };
      const requestId = request.headers['x-request-id'];
      const id = typeof requestId === 'string' ? requestId : randomUUID();
      assignRequestId(fetchRequest, id);
      const env = yoga.getEnveloped({ request: fetchRequest, params, req: request, res: response });
      let document: DocumentNode;
      try {
        document = env.parse(params.query);
      } catch {
        return await throughYoga(lane, request, response, body);
      }
      const operation = getOperationAST(document, params.operationName ?? undefined);
      if (!operation || operation.operation === 'subscription') return await throughYoga(lane, request, response, body);
      const errors = env.validate(env.schema, document);
      let result: ExecutionResult;
      if (errors.length) {
        result = { errors };
      } else {
        const contextValue = await env.contextFactory();
        result = (await env.execute({
          schema: env.schema,
          document,
          contextValue,
          variableValues: params.variables ?? undefined,
          operationName: params.operationName ?? undefined,
        })) as ExecutionResult;
      }
      if (!result.errors && !(result.extensions as any)?.http) {
        // An answer written as bytes (answer-json.ts) is sent as it is.
        const written = (result as any).bytes as (() => Buffer) | undefined;
        return send(response, 200, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': id }, written ? written() : JSON.stringify(result));
      }
      // Errors: yoga's own processing decides the status and the body.
      const answer = processRegularResult(result, yoga.fetchAPI, 'application/json') as Response;
      const out: Record<string, string> = {};
      answer.headers.forEach((value, key) => (out[key] = value));
      out['x-request-id'] = id;
      send(response, answer.status, out, await answer.text());
    } catch (error) {
      if (!response.headersSent) send(response, 500, { 'content-type': 'application/json; charset=utf-8' }, JSON.stringify({ errors: [{ message: 'Unexpected error.' }] }));
      else response.destroy(error as Error);
    }
  };
}
