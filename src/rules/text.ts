// Text as it is stored: valid Unicode, read from valid UTF-8. SQLite stores what better-sqlite3
// encodes, and a lone surrogate (from a \ud800 escape) or a byte that is not UTF-8 would become
// U+FFFD without a word: such input is refused, naming where it is.
import { isUtf8 } from 'node:buffer';

/** Where a text is not what it should be: the offset (in bytes or characters), the line and the column (from 1). */
export interface TextPlace {
  offset: number;
  line: number;
  column: number;
}

export type Utf8Result = { ok: true; text: string } | ({ ok: false } & TextPlace);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of UTF-8 bytes (a byte order mark dropped), or the place of the first byte that is not UTF-8 (column in characters). */
export function decodeUtf8(bytes: Uint8Array): Utf8Result {
  if (isUtf8(bytes)) return { ok: true, text: utf8.decode(bytes) };
  const offset = firstInvalidByte(bytes);
  const lineStart = bytes.lastIndexOf(0x0a, offset - 1) + 1;
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i >= 0 && i < offset; i = bytes.indexOf(0x0a, i + 1)) line++;
  const column = [...utf8.decode(bytes.subarray(lineStart, offset))].length + 1;
  return { ok: false, offset, line, column };
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (b < 0x80) length = 1;
    else if (b >= 0xc2 && b <= 0xdf) length = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f; // no surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f; // nothing above U+10FFFF
    } else return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return bytes.length;
}

// With the u flag a pair of surrogates is one code point: \p{Cs} finds only lone ones.
const LONE_SURROGATE = /\p{Cs}/u;

/** The first lone surrogate of a string (it has no UTF-8 form), or null when the string is valid Unicode. */
export function loneSurrogate(text: string): TextPlace | null {
  const match = LONE_SURROGATE.exec(text);
  if (!match) return null;
  const offset = match.index;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return { offset, line, column: [...text.slice(lineStart, offset)].length + 1 };
}

/** Why a string cannot be stored as text, in an operator's words, or null. */
export function textProblem(text: string): string | null {
  const place = loneSurrogate(text);
  if (!place) return null;
  const unit = text.charCodeAt(place.offset).toString(16).toUpperCase();
  const where = text.includes('\n') ? `line ${place.line}, column ${place.column}` : `character ${place.column}`;
  return `is not valid Unicode text: a lone surrogate (\\u${unit}, which has no UTF-8 form) at ${where}`;
}

/**
 * Every string of a JSON-like value, keys included, that cannot be stored as text, with its path
 * (`providers.0.name`; a bad key is shown as JSON), found without recursion.
 */
export function textProblems(value: unknown): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const pending: [unknown, string][] = [[value, '']];
  const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      const why = textProblem(item);
      if (why) problems.push({ path, message: why });
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i], join(path, i)]);
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, element] of Object.entries(item).reverse()) {
        const why = textProblem(key);
        if (why) problems.push({ path: join(path, JSON.stringify(key)), message: `the key ${why}` });
        else pending.push([element, join(path, key)]);
      }
    }
  }
  return problems;
}
