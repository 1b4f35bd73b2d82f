// Placement's own GET /allocation_candidates query string, read as Placement 8.0.0 reads it at
// microversions 1.10 to 1.39: the same checks in the same order, with the same messages.
import { isUuidLike } from '../../rules/names.js';
import { codePointOrder, pyIntNumber, pyRepr, pyStrip, pythonSearch } from '../../rules/python.js';
import { LATEST_MINOR, checkGroups, reject, type SearchGroup, type SearchRequest } from './candidates.request.js';

const NUMERIC_SUFFIX = '[1-9][0-9]*';
const VERBOSE_SUFFIX = '[a-zA-Z0-9_-]{1,64}';
const LIMIT_PATTERN = '^[1-9][0-9]*$';
const LIMIT_REGEX = pythonSearch(LIMIT_PATTERN);
const KEY_PATTERNS = new Map<boolean, RegExp>(
  [false, true].map((verbose) => [verbose, pythonSearch(`^(resources|required|member_of|in_tree)(${verbose ? VERBOSE_SUFFIX : NUMERIC_SUFFIX})?$`)]),
);

/** The minor of a supported 1.x microversion; Placement's 400/404/406 otherwise. */
export function parseMicroversion(value: string | null | undefined): number {
  const text = value == null || value === 'latest' ? `1.${LATEST_MINOR}` : value;
  const dot = text.indexOf('.');
  const major = dot < 0 ? null : pyIntNumber(text.slice(0, dot));
  const minor = dot < 0 ? null : pyIntNumber(text.slice(dot + 1));
  if (major === null || minor === null) return reject(`Invalid microversion: invalid version string: ${text}`);
  if (major !== 1 || minor < 0 || minor > LATEST_MINOR) {
    reject(`The resource could not be generated that was acceptable to your browser (content of type application/json. Invalid microversion: Unacceptable version header: ${text}`, 406);
  }
  if (minor < 10) reject('The resource could not be found.', 404);
  return minor;
}

/** The query string as webob parses it: pairs split on & and ;, + as space, percent-decoded UTF-8. */
export function parseQueryPairs(query: string): [string, string][] {
  const decode = (s: string) => {
    if (!s.includes('%') && !s.includes('+')) return s;
    const bytes: number[] = [];
    const raw = Buffer.from(s.replace(/\+/g, ' '), 'latin1');
    for (let i = 0; i < raw.length; i++) {
      const hex = raw[i] === 0x25 && i + 2 < raw.length ? raw.subarray(i + 1, i + 3).toString('latin1') : '';
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 2;
      } else bytes.push(raw[i]);
    }
    const problem = utf8Error(bytes);
    // webob decodes each name and value; Placement shows Python's UnicodeDecodeError text.
    if (problem) reject(`Invalid query string parameters: 'utf-8' codec can't decode ${problem}`);
    return Buffer.from(bytes).toString('utf8');
  };
  const text = query.startsWith('?') ? query.slice(1) : query;
  const pairs: [string, string][] = [];
  for (const piece of text.split(/[&;]/)) {
    if (!piece) continue;
    const eq = piece.indexOf('=');
    pairs.push(eq < 0 ? [decode(piece), ''] : [decode(piece.slice(0, eq)), decode(piece.slice(eq + 1))]);
  }
  return pairs;
}

/**
 * The first invalid UTF-8 sequence in these bytes, worded as CPython's UTF-8 decoder reports it
 * ("byte 0xff in position 0: invalid start byte", "bytes in position 0-1: unexpected end of data"), or null.
 */
function utf8Error(bytes: number[]): string | null {
  const at = (start: number, end: number, reason: string) =>
    end - start === 1 ? `byte 0x${bytes[start].toString(16).padStart(2, '0')} in position ${start}: ${reason}` : `bytes in position ${start}-${end - 1}: ${reason}`;
  const continuation = (b: number | undefined, lo = 0x80, hi = 0xbf) => b !== undefined && b >= lo && b <= hi;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return at(i, i + 1, 'invalid start byte');
    for (let k = 1; k <= need; k++) {
      const next = bytes[i + k];
      if (next === undefined) return at(i, i + k, 'unexpected end of data');
      if (!(k === 1 ? continuation(next, lo, hi) : continuation(next))) return at(i, i + k, 'invalid continuation byte');
    }
    i += need + 1;
  }
  return null;
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

function parseResources(value: string): [string, number][] {
  if (pyStrip(value) === '') {
    reject('Badly formed resources parameter. Expected resources query string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: empty string.');
  }
  const result = new Map<string, number>();
  for (const piece of value.split(',')) {
    const parts = piece.split(':');
    if (parts.length !== 2) reject(`Badly formed resources parameter. Expected resources query string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: ${piece}.`);
    const [name, amountText] = parts;
    const amount = pyIntNumber(amountText);
    if (amount === null) reject(`Requested resource ${name} expected positive integer amount. Got: ${amountText}.`);
    if (amount! < 1) reject(`Requested resource ${name} requires amount >= 1. Got: ${amount}.`);
    result.set(name, amount!);
  }
  return [...result];
}

/** One `required` value: any-of sets and forbidden names (util.normalize_traits_qs_param). */
function parseTraits(value: string, allowForbidden: boolean, allowAnyOf: boolean): { required: string[][]; forbidden: string[] } {
  if (value.startsWith('in:')) {
    if (!allowAnyOf) reject(`Invalid query string parameters: The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since microversion 1.39. Got: ${value}`);
    const anyOf = [...new Set(value.slice(3).split(',').map(pyStrip))];
    if (!anyOf.every(Boolean)) reject(`Invalid query string parameters: Expected 'required' parameter value of the form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: ${value}`);
    if (anyOf.some((t) => t.startsWith('!'))) reject(`Invalid query string parameters: The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support forbidden traits. Got: ${value}`);
    return { required: [anyOf], forbidden: [] };
  }
  const names = value.split(',').map(pyStrip);
  const forbidden = [...new Set(names.filter((t) => t.startsWith('!')).map((t) => t.replace(/^!+/, '')))];
  if (![...forbidden, ...names].every(Boolean)) {
    const form = allowForbidden ? 'HW_CPU_X86_VMX,!CUSTOM_MAGIC' : 'HW_CPU_X86_VMX,CUSTOM_MAGIC';
    reject(`Invalid query string parameters: Expected 'required' parameter value of the form: ${form}. Got an empty trait in: ${value}`);
  }
  if (forbidden.length && !allowForbidden) reject(`Invalid query string parameters: Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: ${value}`);
  return { required: names.filter((t) => !t.startsWith('!')).map((t) => [t]), forbidden };
}

function parseMemberOf(values: string[], suffix: string, minor: number): { memberOf: string[][]; forbidden: string[] } {
  if (minor < 24 && values.length > 1) reject(`Multiple member_of${suffix} parameters are not supported`);
  const memberOf: string[][] = [];
  const forbidden = new Set<string>();
  for (const value of values) {
    if (value.includes(',') && !(value.startsWith('in:') || value.startsWith('!in:'))) {
      reject(`Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' keyword using the valid microversion. Got: ${value}`);
    }
    let required: string[] = [];
    let excluded: string[] = [];
    if (value.startsWith('!in:')) excluded = value.slice(4).split(',');
    else if (value.startsWith('!')) excluded = [value.slice(1)];
    else if (value.startsWith('in:')) required = value.slice(3).split(',');
    else required = [value];
    for (const uuid of new Set([...required, ...excluded])) {
      if (!isUuidLike(uuid)) reject(`Invalid query string parameters: Expected 'member_of' parameter to contain valid UUID(s). Got: ${uuid}`);
    }
    if (required.length) memberOf.push([...new Set(required)]);
    if (excluded.length) {
      if (minor < 32) reject(`Forbidden member_of${suffix} parameters are not supported in the specified microversion`);
      excluded.forEach((u) => forbidden.add(u));
    }
  }
  return { memberOf, forbidden: [...forbidden] };
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
  if (rootValues.length > 1) reject("Query parameter 'root_required' may be specified only once.");
  if (rootValues.length === 1) {
    const parsed = parseTraits(rootValues[0], true, false);
    rootRequired = [...new Set(parsed.required.flat())];
    rootForbidden = parsed.forbidden;
    const conflicts = rootForbidden.filter((t) => rootRequired.includes(t));
    if (conflicts.length) reject(`Conflicting required and forbidden traits found in root_required: ${conflicts.join(', ')}`);
  }
  const sameSubtree: string[][] = [];
  for (const value of all('same_subtree')) {
    const suffixes = [...new Set(value.split(',').map(pyStrip))];
    if (suffixes.includes('')) reject('Empty string (unsuffixed group) can not be specified in `same_subtree`');
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

