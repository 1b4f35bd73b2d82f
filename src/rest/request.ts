// One request to Placement's API as its handlers see it: the microversion, the caller, the path's
// parameters, and the checks Placement's handler decorators and utilities make (policy, content
// type, Accept, microversion bounds, JSON body, query string), each raising Placement's error.
import type { Db } from '../db/client.js';
import type { Role } from '../modules/common/caller.js';
import { parseQueryPairs } from '../modules/common/query-string.js';
import { RequestRefused } from '../modules/common/errors.js';
import { providerByUuid, type ProviderRow } from '../modules/providers/providers.service.js';
import { PyJsonError, pyJsonLoads } from '../rules/python-json.js';
import type { PyDict, PyValue } from '../rules/python.js';
import type { Writes } from '../writes/operations.js';
import { acceptableOffers, isValidAccept } from './accept.js';
import { PlacementError } from './errors.js';
import { schemaProblem, type Schema } from './json-schema.js';
import { isUtf8 } from 'node:buffer';
import { utf8Error } from '../modules/common/query-string.js';

/** A policy rule of Placement's (placement/policies): its name, and whether it needs the admin role (else a reader's). */
export interface Policy {
  name: string;
  admin: boolean;
}

export const readPolicy = (name: string): Policy => ({ name, admin: false });
export const writePolicy = (name: string): Policy => ({ name, admin: true });

/** An answer: status, JSON body (already written as Python writes it) and Placement's extra headers. */
export interface Answer {
  status: number;
  /** JSON text, or its bytes (large answers are written as bytes). */
  body?: string | Buffer;
  /** Sent from microversion 1.15 where Placement sends them (with cache-control: no-cache). */
  lastModified?: Date;
  /** Cache-control: no-cache from 1.15 without a Last-Modified (Placement has no time for an empty list of inventories). */
  noCache?: boolean;
  /** A path below the API's root; sent as an absolute URL, as webob does. */
  location?: string;
}

export class RestRequest {
  private query: [string, string][] | null = null;
  constructor(
    readonly db: Db,
    readonly writes: Writes,
    readonly method: string,
    /** The path inside the API (PATH_INFO), decoded. */
    readonly path: string,
    private readonly rawQuery: string,
    /** The Accept header as Placement's request log leaves it (none or * / * become application/json). */
    readonly accept: string,
    /** The Content-Type header, if any. */
    readonly contentType: string | undefined,
    readonly body: Buffer,
    readonly minor: number,
    /** The caller's role; null for a caller without one (noauth2's non-admin tokens). */
    readonly role: Role | null,
    readonly params: Record<string, string>,
    /** The most allocation requests a candidate search may build (the server's limit). */
    readonly maxCandidates?: number,
  ) {}

  /** The query string as sent (without its `?`). */
  get queryString(): string {
    return this.rawQuery;
  }

  /** want_version.matches((1, minor)): this request's microversion is 1.minor or later. */
  atLeast(minor: number): boolean {
    return this.minor >= minor;
  }

  /** context.can(policy): a refusal is raised past the handler, as Placement's PolicyNotAuthorized is. */
  can(policy: Policy) {
    const allowed = policy.admin ? this.role === 'admin' : this.role !== null;
    if (!allowed) throw new PlacementError(403, `Policy does not allow ${policy.name} to be performed.`, { outsideHandler: true });
  }

  /** microversion.version_handler(min, max, status): outside the range, webob's bare 404 (or 405). */
  versions(min: number, max = Infinity, status: 404 | 405 = 404) {
    if (this.minor < min || this.minor > max) throw new PlacementError(status, '');
  }

  /** util.check_accept('application/json'): a present, valid Accept header must allow JSON. */
  acceptJson() {
    if (isValidAccept(this.accept) && acceptableOffers(this.accept, ['application/json']).length === 0) {
      throw new PlacementError(406, 'Only application/json is provided');
    }
  }

  /** util.require_content('application/json'): the media type, parameters aside, must be JSON. */
  requireJson() {
    const type = this.contentType === undefined || this.contentType === '' ? 'None' : this.contentType.split(';', 1)[0];
    if (type !== 'application/json') throw new PlacementError(415, `The media type ${type} is not supported, use application/json`);
  }

  /** util.extract_json: the body as Python's json reads it, checked against the schema. */
  json(schema: Schema): PyValue {
    const problem = isUtf8(this.body) ? null : utf8Error(this.body);
    if (problem) throw new PlacementError(400, `Malformed JSON: 'utf-8' codec can't decode ${problem}`);
    return this.jsonText(this.body.toString('utf8'), schema);
  }

  /** util.extract_json of a text Placement makes itself (PUT /resource_classes/{name} checks the name this way). */
  jsonText(text: string, schema: Schema): PyValue {
    let data: PyValue;
    try {
      data = pyJsonLoads(text);
    } catch (error) {
      if (error instanceof PyJsonError) throw new PlacementError(400, `Malformed JSON: ${error.message}`);
      throw error;
    }
    const problem = schemaProblem(data, schema);
    if (problem) throw new PlacementError(400, `JSON does not validate: ${problem}`);
    return data;
  }

  /** The query string's pairs as webob parses them (req.GET). */
  pairs(): [string, string][] {
    if (this.query === null) {
      try {
        this.query = parseQueryPairs(this.rawQuery);
      } catch (error) {
        throw placementRefusal(error);
      }
    }
    return this.query;
  }

  /** req.GET.getall(key). */
  all(key: string): string[] {
    return this.pairs()
      .filter(([k]) => k === key)
      .map(([, v]) => v);
  }

  /** req.GET[key] (webob's MultiDict gives the last value); undefined when absent. */
  last(key: string): string | undefined {
    const values = this.all(key);
    return values.length ? values[values.length - 1] : undefined;
  }

  has(key: string): boolean {
    return this.pairs().some(([k]) => k === key);
  }

  /** util.validate_query_params: dict(req.GET) against the schema. */
  validateQuery(schema: Schema) {
    const problem = schemaProblem(new Map(this.pairs()) as PyDict, schema);
    if (problem) throw new PlacementError(400, `Invalid query string parameters: ${problem}`);
  }

  /** ResourceProvider.get_by_uuid in a handler that lets its NotFound through to Placement's dispatcher. */
  provider(uuid: string): ProviderRow {
    const provider = providerByUuid(this.db, uuid);
    if (!provider) throw new PlacementError(404, `No resource provider with uuid ${uuid} found`, { outsideHandler: true });
    return provider;
  }
}

/** A refusal of the domain (RequestRefused) as Placement's error answer, with its text as written. */
export function placementRefusal(error: unknown): unknown {
  return error instanceof RequestRefused ? new PlacementError(error.status, error.detail, { code: error.code }) : error;
}
