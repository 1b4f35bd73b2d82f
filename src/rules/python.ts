// Python's behaviour where the answers of Placement and Nova (Python services) depend on it:
// `re` patterns, int(), str.strip(), str.split(), repr() (of str, float and JSON values), pprint's
// pformat and the order of sorted(). The one copy of each; test/python.test.ts pins them to what
// CPython 3.11 (the oracle's Python) does.

/** The characters Python's str.isspace() accepts (what str.strip() and str.split() remove). */
const PY_SPACE = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** The spaces int() drops around digits: str.isspace() without U+001C-U+001F (int('\x1c1') is a ValueError). */
const PY_INT_SPACE = '\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_SPACE_RUN = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'gu');
const PY_SPACE_INSIDE = new RegExp(`[${PY_SPACE}]+`, 'gu');

/** str.strip() (JavaScript's trim() differs: it strips U+FEFF and keeps U+001C-U+001F and U+0085). */
export const pyStrip = (value: string) => value.replace(PY_SPACE_RUN, '');

/** ' '.join(value.split()): runs of Python whitespace collapsed to one space, none at the ends. */
export const pyCollapseSpaces = (value: string) => value.replace(PY_SPACE_INSIDE, ' ').replace(/^ | $/g, '');

const QUANTIFIER = /^\{(\d*)(,?)(\d*)\}/;
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/');

/**
 * Translates a Python `re` pattern into JavaScript source for a /u RegExp with the same matches:
 * `\d` and `\w` are Unicode-aware, `.` stops only at "\n", `$` also matches before a final
 * newline, `(?P<name>...)` becomes `(?<name>...)`, and lone braces are literal.
 * Syntax JavaScript lacks (inline flags, atomic groups...) makes RegExp throw.
 */
export function pythonPatternToJs(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const n = pattern[++i];
      if (n === undefined) throw new SyntaxError('bad escape (end of pattern)');
      if (n === 'd') out += '\\p{Nd}';
      else if (n === 'D') out += inClass ? fail('\\D in a set') : '\\P{Nd}';
      else if (n === 'w') out += inClass ? '\\p{L}\\p{N}_' : '[\\p{L}\\p{N}_]';
      else if (n === 'W') out += inClass ? fail('\\W in a set') : '[^\\p{L}\\p{N}_]';
      else if (n === 's') out += inClass ? PY_SPACE : `[${PY_SPACE}]`;
      else if (n === 'S') out += inClass ? fail('\\S in a set') : `[^${PY_SPACE}]`;
      else if (n === 'A') out += '^';
      else if (n === 'Z') out += '$';
      else if (/[0-9a-zA-Z]/.test(n) || JS_SYNTAX.has(n) || (inClass && n === '-')) out += '\\' + n;
      else out += n; // Python lets any punctuation be escaped; JavaScript's /u mode does not
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c === '[' ? '\\[' : c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += '[';
      if (pattern[i + 1] === '^') out += '^', i++;
      if (pattern[i + 1] === ']') out += '\\]', i++; // a leading ] is literal in Python
      continue;
    }
    if (c === '(' && pattern.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    if (c === '(' && pattern.startsWith('(?P=', i)) {
      const end = pattern.indexOf(')', i);
      if (end < 0) throw new SyntaxError('missing ), unterminated name');
      out += `\\k<${pattern.slice(i + 4, end)}>`;
      i = end;
      continue;
    }
    if (c === '.') out += '[^\\n]';
    else if (c === '$') out += '(?=\\n?$)';
    else if (c === '{') {
      const q = QUANTIFIER.exec(pattern.slice(i));
      if (q && (q[1] || q[3])) {
        out += `{${q[1] || '0'}${q[2]}${q[3]}}`;
        i += q[0].length - 1;
      } else out += '\\{';
    } else if (c === '}') out += '\\}';
    else out += c;
  }
  if (inClass) throw new SyntaxError('unterminated character set');
  return out;
}

function fail(what: string): never {
  throw new SyntaxError(`${what} is not supported`);
}

/** A RegExp that behaves as Python's re.fullmatch(pattern, ...). */
export function pythonFullmatch(pattern: string): RegExp {
  return new RegExp(`^(?:${pythonPatternToJs(pattern)})$`, 'u');
}

const searches = new Map<string, RegExp>();
/** A RegExp whose test() behaves as Python's re.search(pattern, ...) (what jsonschema's `pattern` uses); compiled once per pattern. */
export function pythonSearch(pattern: string): RegExp {
  let regex = searches.get(pattern);
  if (!regex) searches.set(pattern, (regex = new RegExp(pythonPatternToJs(pattern), 'u')));
  return regex;
}

const PY_INT = new RegExp(`^[${PY_INT_SPACE}]*([+-]?)(\\p{Nd}+(?:_\\p{Nd}+)*)[${PY_INT_SPACE}]*$`, 'u');
const ND = /\p{Nd}/u;

/** The value of one Unicode decimal digit (digits come in runs of ten, starting at zero). */
function digitValue(ch: string): number {
  const cp = ch.codePointAt(0)!;
  let start = cp;
  while (ND.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** Python's int(str): surrounding whitespace, a sign, underscores between digits, any Unicode digits; null where Python raises ValueError. */
export function pyInt(value: string): bigint | null {
  const match = PY_INT.exec(value);
  if (!match) return null;
  let digits = '';
  for (const ch of match[2]) if (ch !== '_') digits += ch <= '9' ? ch : String(digitValue(ch));
  const n = BigInt(digits);
  return match[1] === '-' ? -n : n;
}

/** pyInt() as a JavaScript number (rounded beyond 2^53, as the callers' ranges allow). */
export function pyIntNumber(value: string): number | null {
  const n = pyInt(value);
  return n === null ? null : Number(n);
}

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's repr() of a str. */
export function pyRepr(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of value) {
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && NOT_PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0)!;
      out += cp < 0x100 ? `\\x${hex(cp, 2)}` : cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
    } else out += ch;
  }
  return out + quote;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** Python's repr() of a list of str. */
export const pyList = (values: readonly string[]) => `[${values.map(pyRepr).join(', ')}]`;

/** Python's repr() of a dict of str to str, in insertion order. */
export const pyDictRepr = (entries: readonly (readonly [string, string])[]) => `{${entries.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;

/** Python's order of str (sorted()): by code point, which differs from JavaScript's UTF-16 units beyond the BMP. */
export function codePointOrder(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** len() of a str: code points, not UTF-16 units. */
export function pyLen(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

/** re.findall(r'\S*\s*', line) of a str pattern: runs of non-space then space, as str.isspace() sees them. */
const PY_WORDS = new RegExp(`[^${PY_SPACE}]*[${PY_SPACE}]*`, 'gu');
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/gu;

/** str.splitlines(True): the lines with their line breaks (\r\n counts as one). */
export function pySplitLinesKeepEnds(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (const match of text.matchAll(LINE_BREAK)) {
    const end = match.index! + match[0].length;
    lines.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** A number Python holds as a float (JSON's 1.0, a ratio): written 1.0, not 1. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Python's repr() of a float: the shortest digits that read back, in exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  const sign = value < 0 ? '-' : '';
  // Python's float_repr_style 'short': exponent form when the decimal point sits 4 or more places
  // left of the first digit, or more than 16 places right of it.
  if (exponent < -4 || exponent >= 16) {
    const shown = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${shown}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction || '0'}`;
}

/** A value as Python's json module reads it: objects are dicts (Maps, in key order), floats stay floats. */
export type PyValue = null | boolean | number | bigint | string | PyFloat | PyValue[] | PyDict;
export type PyDict = Map<string, PyValue>;

/** A value whose repr Python would print: what json reads, and schemas written as plain objects. */
export type PyReprable = PyValue | { readonly [key: string]: PyReprable } | readonly PyReprable[];

/** A dict's items: a Map's in insertion order, a plain object's own keys. */
const itemsOf = (value: PyDict | { [key: string]: PyReprable }): [string, PyReprable][] => (value instanceof Map ? [...value] : Object.entries(value));

/** Python's repr() of a scalar (str, int, float, bool, None), or null for a container. */
function scalarRepr(value: PyReprable): string | null {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return pyRepr(value);
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  return null;
}

/** Python's repr() of a value: dicts in insertion order (sortKeys: sorted, as pprint shows them). */
export function pyValueRepr(value: PyReprable, sortKeys = false): string {
  const scalar = scalarRepr(value);
  if (scalar !== null) return scalar;
  if (Array.isArray(value)) return `[${value.map((v) => pyValueRepr(v, sortKeys)).join(', ')}]`;
  const items = itemsOf(value as PyDict);
  if (sortKeys) items.sort(([a], [b]) => codePointOrder(a, b));
  return `{${items.map(([k, v]) => `${pyRepr(k)}: ${pyValueRepr(v, sortKeys)}`).join(', ')}}`;
}

/**
 * pprint.pformat(value, width): Python's PrettyPrinter (indent 1, dicts sorted, not compact) for
 * dicts, lists, str and scalars: a repr that fits stays on one line; otherwise dicts and lists put one
 * item per line, and strs are cut into pieces at spaces, one repr per line.
 */
export function pformat(value: PyReprable, width = 80): string {
  let out = '';
  const format = (object: PyReprable, indent: number, allowance: number, level: number) => {
    const rep = pyValueRepr(object, true);
    if (pyLen(rep) <= width - indent - allowance || (scalarRepr(object) !== null && typeof object !== 'string')) {
      out += rep;
      return;
    }
    if (typeof object === 'string') return formatStr(object, indent, allowance, level + 1);
    if (Array.isArray(object)) {
      out += '[';
      formatItems(object, indent, allowance + 1, level + 1);
      out += ']';
      return;
    }
    out += '{';
    const items = itemsOf(object as PyDict).sort(([a], [b]) => codePointOrder(a, b));
    const inner = indent + 1;
    items.forEach(([key, entry], i) => {
      const last = i === items.length - 1;
      const keyRep = pyRepr(key);
      out += `${keyRep}: `;
      format(entry, inner + pyLen(keyRep) + 2, last ? allowance + 1 : 1, level + 1);
      if (!last) out += `,\n${' '.repeat(inner)}`;
    });
    out += '}';
  };
  const formatItems = (items: readonly PyReprable[], indent: number, allowance: number, level: number) => {
    const inner = indent + 1;
    items.forEach((item, i) => {
      const last = i === items.length - 1;
      if (i > 0) out += `,\n${' '.repeat(inner)}`;
      format(item, inner, last ? allowance : 1, level);
    });
  };
  const formatStr = (text: string, indent: number, allowance: number, level: number) => {
    if (text === '') {
      out += "''";
      return;
    }
    const lines = pySplitLinesKeepEnds(text);
    if (level === 1) {
      indent += 1;
      allowance += 1;
    }
    const maxWidth = width - indent;
    const chunks: string[] = [];
    let lastRep = '';
    lines.forEach((line, i) => {
      const isLast = i === lines.length - 1;
      lastRep = pyRepr(line);
      if (pyLen(lastRep) <= (isLast ? maxWidth - allowance : maxWidth)) {
        chunks.push(lastRep);
        return;
      }
      const parts = line.match(PY_WORDS)!.filter(Boolean);
      let current = '';
      parts.forEach((part, j) => {
        const candidate = current + part;
        const limit = j === parts.length - 1 && isLast ? maxWidth - allowance : maxWidth;
        if (pyLen(pyRepr(candidate)) > limit) {
          if (current) chunks.push(pyRepr(current));
          current = part;
        } else current = candidate;
      });
      if (current) chunks.push(pyRepr(current));
    });
    if (chunks.length === 1) {
      out += lastRep;
      return;
    }
    if (level === 1) out += '(';
    out += chunks.join(`\n${' '.repeat(indent)}`);
    if (level === 1) out += ')';
  };
  format(value, 0, 0, 0);
  return out;
}

// textwrap's word splitting (CPython 3.11 TextWrapper.wordsep_re, break_on_hyphens=True), ASCII \w.
const WRAP_WS = '[\\t\\n\\x0b\\x0c\\r ]';
const WRAP_NWS = '[^\\t\\n\\x0b\\x0c\\r ]';
const WRAP_WP = `[\\w!"'&.,?]`;
const WRAP_LT = '[^\\d\\W]';
const WORD_SEPARATORS = new RegExp(
  `(${WRAP_WS}+|(?<=${WRAP_WP})-{2,}(?=\\w)|${WRAP_NWS}+?(?:-(?:(?<=${WRAP_LT}{2}-)|(?<=${WRAP_LT}-${WRAP_LT}-))(?=${WRAP_LT}-?${WRAP_LT})|(?=${WRAP_WS}|$)|(?<=${WRAP_WP})(?=-{2,}\\w)))`,
);

/** textwrap.wrap(text, width) with its defaults (long words broken, at a hyphen when one fits). */
export function pyWrap(text: string, width: number): string[] {
  const chunks = text
    .replace(/\t/g, '        ')
    .replace(/[\t\n\x0b\x0c\r]/g, ' ')
    .split(WORD_SEPARATORS)
    .filter((c) => c !== '')
    .reverse();
  const lines: string[] = [];
  const blank = (c: string) => c.trim() === '';
  while (chunks.length) {
    const line: string[] = [];
    let length = 0;
    if (blank(chunks.at(-1)!) && lines.length) chunks.pop();
    while (chunks.length && length + chunks.at(-1)!.length <= width) length += (line.push(chunks.pop()!), line.at(-1)!.length);
    if (chunks.length && chunks.at(-1)!.length > width) {
      const spaceLeft = width < 1 ? 1 : width - length;
      const chunk = chunks.at(-1)!;
      let end = spaceLeft;
      const hyphen = chunk.lastIndexOf('-', spaceLeft - 1);
      if (chunk.length > spaceLeft && hyphen > 0 && /[^-]/.test(chunk.slice(0, hyphen))) end = hyphen + 1;
      line.push(chunk.slice(0, end));
      chunks[chunks.length - 1] = chunk.slice(end);
    }
    if (line.length && blank(line.at(-1)!)) line.pop();
    if (line.length) lines.push(line.join(''));
  }
  return lines;
}
