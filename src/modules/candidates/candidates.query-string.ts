// Placement's own GET /allocation_candidates query string, read as Placement 8.0.0 reads it at
// microversions 1.10 to 1.39: the same checks in the same order, with the same messages.
import { isUuidLike } from '../../rules/names.js';
import { negotiateVersion } from '../../rules/microversion.js';
import { codePointOrder, pyIntNumber, pyRepr, pyStrip, pythonSearch } from '../../rules/python.js';
import { parseMemberOf, parseQueryPairs, parseResources, parseTraits, QUERY_BAD_VALUE, QUERY_DUPLICATE_KEY, reject } from '../common/query-string.js';
import { checkGroups, type SearchGroup, type SearchRequest } from './candidates.request.js';

const NUMERIC_SUFFIX = '[1-9][0-9]*';
const VERBOSE_SUFFIX = '[a-zA-Z0-9_-]{1,64}';
const LIMIT_PATTERN = '^[1-9][0-9]*$';
const LIMIT_REGEX = pythonSearch(LIMIT_PATTERN);
const KEY_PATTERNS = new Map<boolean, RegExp>(
  [false, true].map((verbose) => [verbose, pythonSearch(`^(resources|required|member_of|in_tree)(${verbose ? VERBOSE_SUFFIX : NUMERIC_SUFFIX})?$`)]),
);

/** The minor of a supported 1.x microversion (none: the latest); Placement's 400/404/406 otherwise. */
export function parseMicroversion(value: string | null | undefined): number {
  const negotiated = negotiateVersion(value ?? 'latest');
  if ('status' in negotiated) {
    const prefix = negotiated.status === 406 ? 'The resource could not be generated that was acceptable to your browser (content of type application/json. ' : '';
    return reject(`${prefix}Invalid microversion: ${negotiated.message}`, negotiated.status);
  }
  if (negotiated.minor < 10) reject('The resource could not be found.', 404);
  return negotiated.minor;
}

interface QuerySchema {
  properties: string[];
  patterns: string[];
  regexes: RegExp[];
}

const schemas = new Map<number, QuerySchema>();

/** The parameters Placement's JSON schema allows at a microversion (schemas/allocation_candidate.py). */
function schemaOf(minor: number): QuerySchema {
  let schema = schemas.get(minor);
  if (schema) return schema;
  const properties: string[] = [];
  let patterns: string[] = [];
  if (minor < 25) {
    properties.push('resources');
    if (minor >= 16) properties.push('limit');
    if (minor >= 17) properties.push('required');
    if (minor >= 21) properties.push('member_of');
  } else {
    properties.push('limit', 'group_policy');
    if (minor >= 35) properties.push('root_required');
    if (minor >= 36) properties.push('same_subtree');
    const suffix = minor >= 33 ? VERBOSE_SUFFIX : NUMERIC_SUFFIX;
    const prefixes = minor >= 31 ? ['resources', 'required', 'member_of', 'in_tree'] : ['resources', 'required', 'member_of'];
    patterns = prefixes.map((p) => `^${p}(${suffix})?$`);
  }
  schema = { properties, patterns, regexes: patterns.map((p) => pythonSearch(p)) };
  schemas.set(minor, schema);
  return schema;
}

/** Placement's JSON-schema check of the query parameters at this microversion: the message of the error jsonschema would report. */
function schemaError(pairs: [string, string][], minor: number): string | null {
  const last = new Map<string, string>();
  for (const [key, value] of pairs) last.set(key, value);
  const { properties, patterns, regexes } = schemaOf(minor);
  // Errors on the whole object come first (jsonschema's best_match), then those of one property.
  if (minor < 25 && !last.has('resources')) return "'resources' is a required property";
  const extras = [...last.keys()].filter((k) => !properties.includes(k) && !regexes.some((r) => r.test(k))).sort(codePointOrder);
  if (extras.length) {
    if (patterns.length) {
      const listed = [...patterns].sort().map(pyRepr).join(', ');
      return `${extras.map(pyRepr).join(', ')} ${extras.length === 1 ? 'does' : 'do'} not match any of the regexes: ${listed}`;
    }
    return `Additional properties are not allowed (${extras.map(pyRepr).join(', ')} ${extras.length === 1 ? 'was' : 'were'} unexpected)`;
  }
  for (const name of properties) {
    const value = last.get(name);
    if (value === undefined) continue;
    if (name === 'limit' && !LIMIT_REGEX.test(value)) return `${pyRepr(value)} does not match ${pyRepr(LIMIT_PATTERN)}`;
    if (name === 'group_policy' && value !== 'none' && value !== 'isolate') return `${pyRepr(value)} is not one of ['none', 'isolate']`;
  }
  return null;
}

/** Reads a GET /allocation_candidates query string at a microversion into a checked search request. */
export function readPlacementQuery(query: string, microversion?: string | null): SearchRequest {
  const minor = parseMicroversion(microversion);
  const pairs = parseQueryPairs(query);
  const schemaProblem = schemaError(pairs, minor);
  if (schemaProblem) reject(`Invalid query string parameters: ${schemaProblem}`);
  const all = (key: string) => pairs.filter(([k]) => k === key).map(([, v]) => v);

  // Request-wide parameters (lib.RequestWideParams.from_request): the first value counts.
  // The schema checked the last value, Placement uses int() of the first: a first value that is no
  // integer makes Placement fail (500; here 400), 0 means no limit, -N drops the last N candidates.
  const limitText = all('limit')[0];
  let limit = limitText === undefined ? null : pyIntNumber(limitText);
  if (limitText !== undefined && limit === null) reject(`Invalid query string parameters: ${pyRepr(limitText)} does not match ${pyRepr(LIMIT_PATTERN)}`);
  if (limit === 0) limit = null;
  const groupPolicy = (all('group_policy')[0] ?? null) as SearchRequest['groupPolicy'];
  let rootRequired: string[] = [];
  let rootForbidden: string[] = [];
  const rootValues = all('root_required');
  if (rootValues.length > 1) reject("Query parameter 'root_required' may be specified only once.", 400, QUERY_DUPLICATE_KEY);
  if (rootValues.length === 1) {
    const parsed = parseTraits(rootValues[0], true, false);
    rootRequired = [...new Set(parsed.required.flat())];
    rootForbidden = parsed.forbidden;
    const conflicts = rootForbidden.filter((t) => rootRequired.includes(t));
    if (conflicts.length) reject(`Conflicting required and forbidden traits found in root_required: ${conflicts.join(', ')}`, 400, QUERY_BAD_VALUE);
  }
  const sameSubtree: string[][] = [];
  for (const value of all('same_subtree')) {
    const suffixes = [...new Set(value.split(',').map(pyStrip))];
    if (suffixes.includes('')) reject('Empty string (unsuffixed group) can not be specified in `same_subtree` ', 400, QUERY_BAD_VALUE);
    sameSubtree.push(suffixes);
  }

  // Request groups, in the order their keys first appear (lib.RequestGroup._parse_request_items).
  const keyPattern = KEY_PATTERNS.get(minor >= 33)!;
  const groups = new Map<string, SearchGroup>();
  for (const [key, value] of pairs) {
    const match = keyPattern.exec(key);
    if (!match) continue;
    const [, prefix, suffix = ''] = match;
    let group = groups.get(suffix);
    if (!group) {
      group = { suffix, resources: [], required: [], forbidden: [], memberOf: [], forbiddenAggregates: [], inTree: null };
      groups.set(suffix, group);
    }
    if (prefix === 'resources') group.resources = parseResources(value);
    else if (prefix === 'required') {
      // Before 1.39 only the last `required` counts; from 1.39 repeats are ANDed. Placement reads the
      // values of `required<suffix>`, not of the key that matched (which may end in a newline).
      const values = minor >= 39 ? all(prefix + suffix) : all(prefix + suffix).slice(-1);
      group.required = [];
      const forbidden = new Set<string>();
      for (const v of values) {
        const parsed = parseTraits(v, minor >= 22, minor >= 39);
        group.required.push(...parsed.required);
        parsed.forbidden.forEach((t) => forbidden.add(t));
      }
      group.forbidden = [...forbidden];
    } else if (prefix === 'member_of') {
      const parsed = parseMemberOf(all(prefix + suffix), suffix, minor);
      group.memberOf = parsed.memberOf;
      group.forbiddenAggregates = parsed.forbidden;
    } else {
      const tree = pyStrip(value);
      if (!isUuidLike(tree)) reject(`Invalid query string parameters: Expected 'in_tree' parameter to be a format of uuid. Got: ${value}`);
      group.inTree = tree;
    }
  }
  const request: SearchRequest = { groups: [...groups.values()], groupPolicy, sameSubtree, rootRequired, rootForbidden, limit, minor };
  checkGroups(request);
  return request;
}

