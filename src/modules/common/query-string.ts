// Placement's query strings, read as Placement 8.0.0 reads them for GET /resource_providers and
// GET /allocation_candidates: webob's parsing of the pairs, and util.py's checks of `resources`,
// `required` and `member_of`, with the same messages in the same order.
import { isUuidLike } from '../../rules/names.js';
import { RequestRefused } from './errors.js';
import { pyCollapseSpaces, pyIntNumber, pyStrip } from '../../rules/python.js';

/** Placement's refusal of a query: its message whitespace-collapsed as Placement's JSON error shows it in GraphQL, its text as written for its REST answer. */
export const reject = (message: string, status = 400, code?: string): never => {
  // Collapsed as Python's str.split() does (the whitespace of str.isspace(), not JS's \s).
  throw new RequestRefused(pyCollapseSpaces(message), status, message, code);
};

/** Placement's error codes of query refusals (errors.py). */
export const QUERY_BAD_VALUE = 'placement.query.bad_value';
export const QUERY_MISSING_VALUE = 'placement.query.missing_value';
export const QUERY_DUPLICATE_KEY = 'placement.query.duplicate_key';

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
export function utf8Error(bytes: ArrayLike<number>): string | null {
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

export function parseResources(value: string): [string, number][] {
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
export function parseTraits(value: string, allowForbidden: boolean, allowAnyOf: boolean): { required: string[][]; forbidden: string[] } {
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

export function parseMemberOf(values: string[], suffix: string, minor: number): { memberOf: string[][]; forbidden: string[] } {
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

