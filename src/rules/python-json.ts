// JSON as Python's json module reads and writes it (CPython 3.11, its C scanner): the values it
// reads (dicts keep key order, 1.0 stays a float, NaN and Infinity are numbers, big integers stay
// exact), the errors it reports ("Expecting ',' delimiter: line 1 column 9 (char 8)"), and
// json.dumps's default output (", " and ": " separators, non-ASCII escaped, floats written 1.0).
// Placement reads request bodies with json.loads and writes every answer with json.dumps.
import { PyFloat, pyFloatRepr, type PyDict, type PyValue } from './python.js';

/** json.JSONDecodeError: its message names the place as Python counts it (code points). */
export class PyJsonError extends Error {}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** Python's recursion limit stops a deeper document (RecursionError); it is refused here at the same depth. */
const MAX_DEPTH = 990;

/** json.loads(text): Python's value, or PyJsonError with Python's message. */
export function pyJsonLoads(text: string): PyValue {
  if (text.charCodeAt(0) === 0xfeff) fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', text, 0);
  const end = text.length;
  let depth = 0;
  const skip = (i: number) => {
    while (i < end && WHITESPACE.has(text.charCodeAt(i))) i++;
    return i;
  };

  /** scan_once: one value at i, or "Expecting value" there. */
  const value = (i: number): [PyValue, number] => {
    if (i >= end) fail('Expecting value', text, i);
    const c = text[i];
    if (c === '"') return string(i + 1);
    if (c === '{' || c === '[') {
      if (++depth > MAX_DEPTH) fail('Expecting value', text, i);
      const result = c === '{' ? object(i + 1) : array(i + 1);
      depth--;
      return result;
    }
    if (c === 'n' && text.startsWith('null', i)) return [null, i + 4];
    if (c === 't' && text.startsWith('true', i)) return [true, i + 4];
    if (c === 'f' && text.startsWith('false', i)) return [false, i + 5];
    if (c === 'N' && text.startsWith('NaN', i)) return [new PyFloat(Number.NaN), i + 3];
    if (c === 'I' && text.startsWith('Infinity', i)) return [new PyFloat(Number.POSITIVE_INFINITY), i + 8];
    if (c === '-' && text.startsWith('-Infinity', i)) return [new PyFloat(Number.NEGATIVE_INFINITY), i + 9];
    return number(i);
  };

  const isDigit = (i: number) => i < end && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39;

  const number = (start: number): [PyValue, number] => {
    let i = start;
    if (text[i] === '-') {
      i++;
      if (i >= end) fail('Expecting value', text, start);
    }
    if (text[i] >= '1' && text[i] <= '9') {
      i++;
      while (isDigit(i)) i++;
    } else if (text[i] === '0') i++;
    else fail('Expecting value', text, start);
    let isFloat = false;
    if (text[i] === '.' && isDigit(i + 1)) {
      isFloat = true;
      i += 2;
      while (isDigit(i)) i++;
    }
    if (i < end - 1 && (text[i] === 'e' || text[i] === 'E')) {
      const eStart = i++;
      if (i < end - 1 && (text[i] === '-' || text[i] === '+')) i++;
      while (isDigit(i)) i++;
      if (isDigit(i - 1)) isFloat = true;
      else i = eStart;
    }
    const literal = text.slice(start, i);
    if (isFloat) return [new PyFloat(Number(literal)), i];
    const n = Number(literal);
    return [Number.isSafeInteger(n) ? (Object.is(n, -0) ? 0 : n) : BigInt(literal), i];
  };

  /** scanstring: the string whose opening quote is at begin - 1. */
  const string = (from: number): [string, number] => {
    const begin = from - 1;
    let out = '';
    let i = from;
    for (;;) {
      let next = i;
      let c = 0;
      for (; next < end; next++) {
        c = text.charCodeAt(next);
        if (c === 0x22 || c === 0x5c) break;
        if (c <= 0x1f) fail('Invalid control character at', text, next);
      }
      if (next >= end) fail('Unterminated string starting at', text, begin);
      out += text.slice(i, next);
      next++;
      if (c === 0x22) return [out, next];
      if (next === end) fail('Unterminated string starting at', text, begin);
      const escape = text[next];
      if (escape !== 'u') {
        i = next + 1;
        const simple = ESCAPES[escape];
        if (simple === undefined) fail('Invalid \\escape', text, i - 2);
        out += simple;
        continue;
      }
      next++;
      i = next + 4;
      if (i >= end) fail('Invalid \\uXXXX escape', text, next - 1);
      let unit = hex4(next);
      if (unit < 0) fail('Invalid \\uXXXX escape', text, i - 5);
      if (unit >= 0xd800 && unit <= 0xdbff && i + 6 < end && text[i] === '\\' && text[i + 1] === 'u') {
        const low = hex4(i + 2);
        if (low < 0) fail('Invalid \\uXXXX escape', text, i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          out += String.fromCharCode(unit, low);
          i += 6;
          continue;
        }
      }
      out += String.fromCharCode(unit);
    }
  };

  const hex4 = (at: number) => {
    const digits = text.slice(at, at + 4);
    return /^[0-9a-fA-F]{4}$/.test(digits) ? parseInt(digits, 16) : -1;
  };

  const object = (from: number): [PyDict, number] => {
    const result: PyDict = new Map();
    let i = skip(from);
    if (i < end && text[i] === '}') return [result, i + 1];
    for (;;) {
      if (i >= end || text[i] !== '"') fail('Expecting property name enclosed in double quotes', text, i);
      const [key, afterKey] = string(i + 1);
      i = skip(afterKey);
      if (i >= end || text[i] !== ':') fail("Expecting ':' delimiter", text, i);
      const [item, afterValue] = value(skip(i + 1));
      result.set(key, item);
      i = skip(afterValue);
      if (i < end && text[i] === '}') return [result, i + 1];
      if (i >= end || text[i] !== ',') fail("Expecting ',' delimiter", text, i);
      i = skip(i + 1);
    }
  };

  const array = (from: number): [PyValue[], number] => {
    const result: PyValue[] = [];
    let i = skip(from);
    if (i < end && text[i] === ']') return [result, i + 1];
    for (;;) {
      const [item, after] = value(i);
      result.push(item);
      i = skip(after);
      if (i < end && text[i] === ']') return [result, i + 1];
      if (i >= end || text[i] !== ',') fail("Expecting ',' delimiter", text, i);
      i = skip(i + 1);
    }
  };

  const [result, after] = value(skip(0));
  const rest = skip(after);
  if (rest !== end) fail('Extra data', text, rest);
  return result;
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** JSONDecodeError's message: the place as line, column and character, counted in code points. */
function fail(message: string, text: string, at: number): never {
  const before = [...text.slice(0, at)];
  const pos = before.length;
  const lastBreak = before.lastIndexOf('\n');
  const line = before.filter((c) => c === '\n').length + 1;
  const column = pos - lastBreak;
  throw new PyJsonError(`${message}: line ${line} column ${column} (char ${pos})`);
}

/** A value json.dumps can write: what json.loads reads, and plain objects in their key order. */
export type PyJsonWritable = PyValue | undefined | readonly PyJsonWritable[] | { readonly [key: string]: PyJsonWritable };

// json.dumps's ensure_ascii: everything but printable ASCII is escaped.
const NEEDS_ESCAPE = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/;
const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

function pyJsonString(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `"${text}"`;
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const short = SHORT_ESCAPES[ch];
    if (short) out += short;
    else {
      const unit = text.charCodeAt(i);
      out += unit >= 0x20 && unit <= 0x7e ? ch : `\\u${unit.toString(16).padStart(4, '0')}`;
    }
  }
  return out + '"';
}

/** json.dumps(value) with Python's defaults; an object's undefined members are left out. */
export function pyJsonDumps(value: PyJsonWritable): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return pyJsonString(value);
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : floatJson(value);
  if (value instanceof PyFloat) return floatJson(value.value);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  const parts: string[] = [];
  for (const [key, item] of entries) if (item !== undefined) parts.push(`${pyJsonString(key)}: ${pyJsonDumps(item)}`);
  return `{${parts.join(', ')}}`;
}

const floatJson = (n: number) => (Number.isNaN(n) ? 'NaN' : n === Infinity ? 'Infinity' : n === -Infinity ? '-Infinity' : pyFloatRepr(n));
