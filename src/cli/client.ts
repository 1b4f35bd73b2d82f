// Where the command line's read commands send their GraphQL documents: the database file in
// process, or a running placement-gql server over HTTP. Both go through the same schema, so a
// command prints the same thing either way.
import { existsSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../db/client.js';
import { createServer } from '../server.js';
import { createPlacementApi, PLACEMENT_PREFIX } from '../rest/api.js';
import { localWrites } from '../writes/local.js';
import { DEFAULT_LIMITS } from '../modules/common/limits.js';

export interface Target {
  /** The database file, used when no url is given. */
  dbFile: string;
  /** A placement-gql server's GraphQL endpoint (…/graphql is added when the path is empty). */
  url?: string;
  /** Bearer token for the server. */
  token?: string;
  /** The Placement microversion the command speaks (osc-placement's --os-placement-api-version). */
  microversion?: string;
}

export class ClientError extends Error {}

export interface GraphQLAnswer<T> {
  data?: T;
  errors?: { message: string; extensions?: { status?: number } }[];
}

/** Runs one document and returns its data; top-level errors become one ClientError. */
export async function request<T>(target: Target, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const body = JSON.stringify({ query, variables });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  let answer: GraphQLAnswer<T>;
  if (target.url) {
    const url = new URL(target.url);
    if (url.pathname === '/' || url.pathname === '') url.pathname = '/graphql';
    if (target.token) headers.authorization = `Bearer ${target.token}`;
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers, body });
    } catch (error) {
      const cause = (error as any)?.cause;
      throw new ClientError(`cannot reach ${url.href}: ${cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error).message}`);
    }
    const text = await response.text();
    try {
      answer = JSON.parse(text);
    } catch {
      throw new ClientError(`${url.href} answered ${response.status} ${response.statusText}, not GraphQL`);
    }
  } else {
    if (!existsSync(target.dbFile)) throw new ClientError(`no database at ${target.dbFile} (--db FILE or PLACEMENT_DB; or --url for a server)`);
    const db = openDatabase(target.dbFile);
    try {
      const yoga = createServer({ db, log: null });
      const response = await yoga.fetch('http://local/graphql', { method: 'POST', headers, body });
      answer = (await response.json()) as GraphQLAnswer<T>;
    } finally {
      db.close();
    }
  }
  // Placement's status follows its message, as openstack prints it.
  if (answer.errors?.length) throw new ClientError(answer.errors.map((e) => (e.extensions?.status ? `${e.message} (HTTP ${e.extensions.status})` : inCommandWords(e.message))).join('; '));
  return answer.data as T;
}

/**
 * A value the command passed on that the schema refused, in the command line's words: GraphQL names the
 * document's variable (`Variable "$uuid" got invalid value "x"; Expected type UUID.`), which the operator never wrote.
 */
function inCommandWords(message: string): string {
  const refused = message.match(/^Variable "\$\w+" got invalid value (.*?)(?: at "[^"]*")?; (.*)$/s);
  if (!refused) return message;
  const [, value, reason] = refused;
  if (/^(Expected type UUID|UUID must be)/.test(reason!)) return `${value} is not a UUID (8-4-4-4-12 hex digits)`;
  if (/^Int cannot represent non 32-bit signed integer value/.test(reason!)) return `${value} is too large: at most 2147483647`;
  if (/^Int cannot represent/.test(reason!)) return `${value} is not a whole number`;
  return `${value}: ${reason!.replace(/^Expected type (\w+)\.?$/, 'not a valid $1')}`;
}

/** One request to Placement's REST API, as osc-placement sends it. */
export type PlacementCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any; location: string | null }>;

/**
 * Runs body with a caller of Placement's REST API (/placement) at one microversion: the server's
 * with --url (so writes reach a live Placement in gateway mode), else this database's, served on a
 * loopback port for the command's length (open access, as Placement's noauth2 admin). A 4xx answer
 * fails as openstack prints it: the last line of Placement's detail, then the status.
 */
export async function withPlacement<T>(target: Target, body: (call: PlacementCall) => Promise<T>): Promise<T> {
  const microversion = target.microversion ?? '1.29';
  if (target.url) return body(placementCaller(`${new URL(target.url).origin}${PLACEMENT_PREFIX}`, target.token ?? 'admin', microversion));
  if (!existsSync(target.dbFile)) throw new ClientError(`no database at ${target.dbFile} (--db FILE or PLACEMENT_DB; or --url for a server)`);
  const db = openDatabase(target.dbFile);
  const server = createHttpServer(createPlacementApi({ db, writes: localWrites(db), tokens: new Map(), maxBodyBytes: DEFAULT_LIMITS.maxBodyBytes }));
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return await body(placementCaller(`http://127.0.0.1:${(server.address() as AddressInfo).port}${PLACEMENT_PREFIX}`, 'admin', microversion));
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    db.close();
  }
}

function placementCaller(base: string, token: string, microversion: string): PlacementCall {
  return async (method, path, body) => {
    const headers: Record<string, string> = { 'x-auth-token': token, 'openstack-api-version': `placement ${microversion}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      const cause = (error as any)?.cause;
      throw new ClientError(`cannot reach ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    const text = await response.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (response.status >= 400) {
      const detail: unknown = json?.errors?.[0]?.detail;
      if (response.status < 500 && typeof detail === 'string') throw new ClientError(`${detail.split('\n').at(-1)!.trim()} (HTTP ${response.status})`);
      if (response.status === 401) throw new ClientError('The request you have made requires authentication. (HTTP 401): the server does not know this token (--token or PLACEMENT_TOKEN)');
      throw new ClientError(`${response.statusText || 'Error'} (HTTP ${response.status})`);
    }
    return { status: response.status, json, location: response.headers.get('location') };
  };
}
