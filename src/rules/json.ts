// Where a text stops being JSON, so that an error can name the line and the column: V8's JSON.parse
// names a position for most mistakes, but not for an unexpected character (`Unexpected token 'T',
// "[True]" is not valid JSON`).

const SPACE = /[ \t\n\r]*/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/** The index of the first character at which `text` stops being JSON (RFC 8259), or -1 when it is JSON. */
export function jsonErrorIndex(text: string): number {
  let i = 0;
  const take = (token: RegExp) => {
    token.lastIndex = i;
    if (!token.test(text)) return false;
    i = token.lastIndex;
    return true;
  };
  const closers: string[] = [];
  let expect: 'value' | 'value or ]' | 'key' | 'key or }' | 'after value' = 'value';
  for (;;) {
    take(SPACE);
    const c = text[i];
    if (expect === 'after value') {
      if (closers.length === 0) return i === text.length ? -1 : i;
      if (c === ',') expect = closers.at(-1) === '}' ? 'key' : 'value';
      else if (c === closers.at(-1)) closers.pop();
      else return i;
      i++;
    } else if ((expect === 'value or ]' && c === ']') || (expect === 'key or }' && c === '}')) {
      closers.pop();
      i++;
      expect = 'after value';
    } else if (expect === 'key' || expect === 'key or }') {
      if (!take(STRING)) return i;
      take(SPACE);
      if (text[i] !== ':') return i;
      i++;
      expect = 'value';
    } else if (c === '{' || c === '[') {
      closers.push(c === '{' ? '}' : ']');
      i++;
      expect = c === '{' ? 'key or }' : 'value or ]';
    } else if (take(STRING) || take(NUMBER) || take(LITERAL)) {
      expect = 'after value';
    } else {
      return i;
    }
  }
}
