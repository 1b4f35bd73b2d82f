// Reading a provider-config document as Nova does: PyYAML 6.0 `yaml.safe_load`, YAML 1.1 types.
// The `yaml` package parses the text; scalars are typed here with PyYAML's own implicit resolvers,
// so `1.0` is a float, `yes`/`on` are booleans, `0x1F` is 31, `1e5` is text and `2001-01-01` a date.
import { Composer, Lexer, Parser, isAlias, isMap, isNode, isPair, isScalar, isSeq, type Alias, type CST, type Document, type Node, type Pair } from 'yaml';

/** A mapping with Python dict semantics: a repeated key keeps its first position and its last value. */
export class YamlMapping {
  readonly entries = new Map<string, { key: YamlValue; value: YamlValue }>();
  get size() {
    return this.entries.size;
  }
  /** The value under a text key, or undefined. */
  get(key: string): YamlValue | undefined {
    return this.entries.get(keyIdentity(key))?.value;
  }
  has(key: string) {
    return this.entries.has(keyIdentity(key));
  }
  keys(): YamlValue[] {
    return [...this.entries.values()].map((e) => e.key);
  }
  set(key: YamlValue, value: YamlValue) {
    const id = keyIdentity(key);
    const existing = this.entries.get(id);
    if (existing) existing.value = value;
    else this.entries.set(id, { key, value });
  }
}

/** A value PyYAML builds that is none of the JSON types (a date, bytes, a set, an omap pair). */
export class YamlOther {
  constructor(
    readonly kind: 'date' | 'datetime' | 'binary' | 'set' | 'pair',
    readonly text: string,
  ) {}
}

export type YamlValue = null | boolean | number | string | YamlValue[] | YamlMapping | YamlOther;

/** A key written twice in one mapping: PyYAML keeps the last value without a word. */
export interface DuplicateKey {
  key: string;
  line: number;
  column: number;
  /** The line of its first occurrence. */
  firstLine: number;
}

export type YamlResult = { ok: true; value: YamlValue; duplicateKeys: DuplicateKey[] } | { ok: false; message: string; line?: number; column?: number };

class YamlLoadError extends Error {
  constructor(
    message: string,
    /** Where in the text, when known. */
    readonly offset?: number,
  ) {
    super(message);
  }
}

/** Python dict key equality: 1 == 1.0 == True; lists and mappings cannot be keys. */
function keyIdentity(key: YamlValue): string {
  if (typeof key === 'string') return `s:${key}`;
  if (typeof key === 'number') return `n:${key}`;
  if (typeof key === 'boolean') return `n:${key ? 1 : 0}`;
  if (key === null) return 'null';
  if (key instanceof YamlOther) return `${key.kind}:${key.text}`;
  throw new YamlLoadError('found unhashable key: a list or a mapping cannot be a mapping key');
}

// PyYAML's implicit resolvers (yaml/resolver.py), tried in its order.
const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const TIMESTAMP =
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/;
// PyYAML's reader refuses these characters anywhere in the stream.
const NON_PRINTABLE = /[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const TAG = 'tag:yaml.org,2002:';
const MAX_EXPANDED_NODES = 100_000;
// PyYAML builds nested values by recursion and fails past about 490 levels (a RecursionError: nova-compute
// does not start); the yaml package's composer recurses too. Deeper documents are refused before composing.
export const MAX_NESTING = 400;
// The tags SafeConstructor knows; any other tag is an error.
const SCALAR_KINDS = ['null', 'bool', 'int', 'float', 'binary', 'timestamp', 'str'];
const COLLECTION_KINDS = ['seq', 'map', 'omap', 'pairs', 'set'];

type ScalarTag = 'null' | 'bool' | 'int' | 'float' | 'timestamp' | 'str' | 'merge' | 'value';

/** The tag PyYAML resolves a plain scalar to (resolver.py: keyed by the first character). */
function resolvePlain(text: string): ScalarTag {
  const first = text[0] ?? '';
  if ('yYnNtTfFoO'.includes(first) && first !== '' && BOOL.test(text)) return 'bool';
  if ('-+0123456789.'.includes(first) && first !== '' && FLOAT.test(text)) return 'float';
  if ('-+0123456789'.includes(first) && first !== '' && INT.test(text)) return 'int';
  if (text === '<<') return 'merge';
  if ('~nN'.includes(first) && NULL.test(text)) return 'null';
  if ('0123456789'.includes(first) && first !== '' && TIMESTAMP.test(text)) return 'timestamp';
  if (text === '=') return 'value';
  return 'str';
}

/** Base-60 parts (1:30 = 90), as PyYAML's int and float constructors read them. */
function sexagesimal(text: string, parse: (part: string) => number): number {
  let value = 0;
  for (const part of text.split(':')) value = value * 60 + parse(part);
  return value;
}

function constructInt(source: string): number {
  let text = source.replace(/_/g, '');
  let sign = 1;
  if (text[0] === '-') sign = -1;
  if ('+-'.includes(text[0] ?? '')) text = text.slice(1);
  const parseDigits = (digits: string, radix: number) => {
    const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[radix as 2 | 8 | 10 | 16];
    if (!valid.test(digits)) throw new YamlLoadError(`invalid integer ${JSON.stringify(source)}`);
    return parseInt(digits, radix);
  };
  if (text === '0') return 0;
  if (text.startsWith('0b')) return sign * parseDigits(text.slice(2), 2);
  if (text.startsWith('0x')) return sign * parseDigits(text.slice(2), 16);
  if (text[0] === '0') return sign * parseDigits(text, 8);
  if (text.includes(':')) return sign * sexagesimal(text, (p) => parseDigits(p, 10));
  return sign * parseDigits(text, 10);
}

function constructFloat(source: string): number {
  let text = source.replace(/_/g, '').toLowerCase();
  let sign = 1;
  if (text[0] === '-') sign = -1;
  if ('+-'.includes(text[0] ?? '')) text = text.slice(1);
  if (text === '.inf') return sign * Infinity;
  if (text === '.nan') return NaN;
  const number = (part: string) => {
    // Python's float(): digits with an optional fraction and exponent.
    if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?$/.test(part)) throw new YamlLoadError(`invalid float ${JSON.stringify(source)}`);
    return Number(part);
  };
  if (text.includes(':')) return sign * sexagesimal(text, number);
  return sign * number(text);
}

const BOOL_VALUES: Record<string, boolean> = { yes: true, no: false, true: true, false: false, on: true, off: false };

function constructTimestamp(text: string): YamlOther {
  const m = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2}))?/.exec(text);
  if (!m) throw new YamlLoadError(`invalid timestamp ${JSON.stringify(text)}`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) throw new YamlLoadError(`invalid date ${JSON.stringify(text)}`);
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59)) throw new YamlLoadError(`invalid time ${JSON.stringify(text)}`);
  return new YamlOther(m[4] === undefined ? 'date' : 'datetime', text);
}

function constructScalar(tag: ScalarTag, text: string): YamlValue {
  switch (tag) {
    case 'null':
      return null;
    case 'bool': {
      const value = BOOL_VALUES[text.toLowerCase()];
      if (value === undefined) throw new YamlLoadError(`invalid boolean ${JSON.stringify(text)}`);
      return value;
    }
    case 'int':
      return constructInt(text);
    case 'float':
      return constructFloat(text);
    case 'timestamp':
      return constructTimestamp(text);
    case 'str':
    case 'merge':
      return text;
    case 'value':
      throw new YamlLoadError("could not determine a constructor for the tag 'tag:yaml.org,2002:value' (a lone = is not a value)");
  }
}

/**
 * The node each alias stands for: the last node before it with its anchor, as the yaml package's
 * Alias.resolve finds it, in one pass over the document (resolve walks the whole document per alias).
 */
function aliasTargets(root: unknown): Map<Alias, Node> {
  const targets = new Map<Alias, Node>();
  const anchors = new Map<string, Node>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isPair(node)) pending.push(node.value, node.key);
    else if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target) targets.set(node, target);
    } else if (isNode(node)) {
      if (node.anchor) anchors.set(node.anchor, node);
      if (isMap(node) || isSeq(node)) for (let i = node.items.length - 1; i >= 0; i--) pending.push(node.items[i]);
    }
  }
  return targets;
}

/** Builds Python values from the nodes of one document, as PyYAML's SafeConstructor does. */
class Constructor {
  private readonly built = new Map<Node, YamlValue>();
  private readonly aliases: Map<Alias, Node>;
  /** Keys written twice in a mapping, with the offsets of both. */
  readonly duplicates: { key: Node | null; earlier: Node | null }[] = [];
  constructor(doc: Document, hasAliases: boolean) {
    this.aliases = hasAliases ? aliasTargets(doc.contents) : new Map();
  }

  private fail(message: string, node?: Node | null): never {
    throw new YamlLoadError(message, node?.range?.[0]);
  }

  private target(node: Node | null): Node | null {
    if (node && isAlias(node)) {
      const resolved = this.aliases.get(node);
      if (!resolved) this.fail(`found undefined alias '${node.source}'`, node);
      return resolved;
    }
    return node;
  }

  private readonly building = new Set<Node>();
  /** Nodes the document stands for with every alias expanded, as the schema check walks them. */
  private readonly expandedSize = new Map<Node, number>();
  private expanded = 0;

  value(input: Node | null): YamlValue {
    const node = this.target(input);
    if (node === null) return null;
    // A scalar no alias can name is built each time it is reached (a merge reaches it again): most nodes are such.
    if (isScalar(node) && !node.anchor) {
      this.expanded += 1;
      return this.build(node);
    }
    // An alias to a node being built is a recursive structure: Nova's schema check never ends on it.
    if (this.building.has(node)) this.fail('a recursive alias (a node containing itself) is not allowed', input);
    const cached = this.built.get(node);
    if (cached !== undefined) {
      // Aliases can multiply the size of a document (a "billion laughs"): refuse before it explodes.
      this.expanded += this.expandedSize.get(node)!;
      if (this.expanded > MAX_EXPANDED_NODES) this.fail(`aliases expand the document beyond ${MAX_EXPANDED_NODES} nodes`, input);
      return cached;
    }
    this.building.add(node);
    const before = this.expanded;
    const value = this.build(node);
    this.building.delete(node);
    this.expanded += 1;
    this.expandedSize.set(node, this.expanded - before);
    this.built.set(node, value);
    return value;
  }

  private build(node: Node): YamlValue {
    const tag = node.tag;
    if (tag && tag !== '!' && !tag.startsWith(TAG)) this.fail(`could not determine a constructor for the tag '${tag}'`, node);
    const kind = tag && tag !== '!' ? tag.slice(TAG.length) : null;
    if (kind !== null && !SCALAR_KINDS.includes(kind) && !COLLECTION_KINDS.includes(kind)) this.fail(`could not determine a constructor for the tag '${tag}'`, node);
    if (isScalar(node)) {
      const text = String(node.source ?? '');
      // PyYAML resolves plain scalars, and any scalar with the non-specific tag `!`.
      const plain = node.type === 'PLAIN' || tag === '!';
      if (kind === null) return constructScalar(plain ? resolvePlain(text) : 'str', text);
      if (['null', 'bool', 'int', 'float', 'timestamp', 'str'].includes(kind)) return constructScalar(kind as ScalarTag, text);
      if (kind === 'binary') {
        const compact = text.replace(/\s+/g, '');
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) this.fail('failed to decode base64 data', node);
        return new YamlOther('binary', compact);
      }
      this.fail(`expected a ${kind === 'map' || kind === 'set' ? 'mapping' : 'sequence'} node, but found a scalar`, node);
    }
    if (isSeq(node)) {
      if (kind === null || kind === 'seq') return node.items.map((item) => this.value(item as Node | null));
      if (kind === 'omap' || kind === 'pairs') {
        // Each item is one key: value pair, which the yaml package may give as a Pair or as a one-pair map.
        return node.items.map((item) => {
          let entry: { key: Node | null; value: Node | null };
          if (isPair(item)) entry = { key: item.key as Node | null, value: item.value as Node | null };
          else {
            const pair = this.target(item as Node | null);
            if (!pair || !isMap(pair) || pair.items.length !== 1) this.fail(`expected a single mapping item in !!${kind}`, node);
            entry = this.pairs(pair)[0];
          }
          return new YamlOther('pair', JSON.stringify([this.value(entry.key), this.value(entry.value)]));
        });
      }
      this.fail(`expected a ${['map', 'set'].includes(kind) ? 'mapping' : 'scalar'} node, but found a sequence`, node);
    }
    if (isMap(node)) {
      if (kind === 'set') return new YamlOther('set', this.pairs(node).map((p) => JSON.stringify(this.value(p.key))).join(','));
      if (kind !== null && kind !== 'map') this.fail(`expected a ${kind === 'seq' || kind === 'omap' || kind === 'pairs' ? 'sequence' : 'scalar'} node, but found a mapping`, node);
      const mapping = new YamlMapping();
      // A key the mapping writes twice (not one it overrides from a merge): PyYAML keeps the last silently.
      const written = new Map<string, Node | null>();
      for (const { key, value, own } of this.pairs(node)) {
        const builtKey = this.value(key);
        try {
          if (own) {
            const id = keyIdentity(builtKey);
            const earlier = written.get(id);
            if (earlier !== undefined) this.duplicates.push({ key, earlier });
            written.set(id, key);
          }
          mapping.set(builtKey, this.value(value));
        } catch (error) {
          if (error instanceof YamlLoadError && error.offset === undefined) this.fail(error.message, key);
          throw error;
        }
      }
      return mapping;
    }
    this.fail('unexpected node', node);
  }

  /**
   * The key/value nodes of a mapping with merge keys (<<) flattened, as SafeConstructor.flatten_mapping:
   * merged pairs first, then the mapping's own (`own` marks them). A mapping merged into others (`from`:
   * the alias naming it) is flattened once, as PyYAML flattens a node in place: a chain of merges costs
   * its length, not its square.
   */
  private pairs(node: Node, from?: Node | null): KeyValue[] {
    if (from === undefined) return this.flatten(node);
    let flat = this.flattened.get(node);
    if (flat) return flat;
    // A mapping merging itself: PyYAML recurses until Python's stack runs out.
    if (this.flattening.has(node)) this.fail('a recursive alias (a node containing itself) is not allowed', from);
    this.flattening.add(node);
    this.flattened.set(node, (flat = this.flatten(node)));
    this.flattening.delete(node);
    return flat;
  }

  private readonly flattened = new Map<Node, KeyValue[]>();
  private readonly flattening = new Set<Node>();

  private flatten(node: Node): KeyValue[] {
    const own: KeyValue[] = [];
    const merged: KeyValue[] = [];
    const mergeFrom = (mapping: Node, alias: Node | null) => {
      const pairs = this.pairs(mapping, alias);
      this.expanded += pairs.length;
      if (this.expanded > MAX_EXPANDED_NODES) this.fail(`aliases expand the document beyond ${MAX_EXPANDED_NODES} nodes`, alias);
      for (const pair of pairs) merged.push({ ...pair, own: false });
    };
    for (const pair of (node as any).items as Pair<Node | null, Node | null>[]) {
      const key = pair.key;
      const isMerge = key && isScalar(key) && (key.tag === TAG + 'merge' || (!key.tag && key.type === 'PLAIN' && key.source === '<<'));
      if (!isMerge) {
        own.push({ key, value: pair.value, own: true });
        continue;
      }
      const value = this.target(pair.value);
      if (value && isMap(value)) mergeFrom(value, pair.value);
      else if (value && isSeq(value)) {
        const targets = value.items.map((item) => {
          const target = this.target(item as Node | null);
          if (!target || !isMap(target)) this.fail('while constructing a mapping: expected a mapping for merging', item as Node);
          return { target, item: item as Node };
        });
        for (const { target, item } of targets.reverse()) mergeFrom(target, item);
      } else this.fail('while constructing a mapping: expected a mapping or list of mappings for merging', value);
    }
    for (const pair of own) merged.push(pair);
    return merged;
  }
}

interface KeyValue {
  key: Node | null;
  value: Node | null;
  /** Written in the mapping itself, not merged into it. */
  own: boolean;
}

// The yaml lexer's control tokens stand for no text of the source.
const CONTROL_TOKENS = new Set(['\u0002', '\u0018', '\u001f']);

/** The lexer's tokens with their offsets, from `start`; `scalar` marks the text of a scalar. */
function* positioned(lexemes: Iterable<string>, start = 0): Generator<{ text: string; offset: number; scalar: boolean }> {
  let offset = start;
  let scalar = false;
  for (const text of lexemes) {
    if (CONTROL_TOKENS.has(text)) {
      scalar = text === '\u001f';
      continue;
    }
    yield { text, offset, scalar };
    offset += text.length;
    scalar = false;
  }
}

/**
 * The lexemes of a whole text, lexed as they are read and kept: when the text needs no change, the
 * parser takes them as they are instead of lexing the text again.
 */
class Lexemes implements Iterable<string> {
  readonly kept: string[] = [];
  private readonly source: Generator<string>;
  constructor(text: string) {
    this.source = new Lexer().lex(text);
  }
  /** Breaking out of a loop over it leaves the rest to be read later. */
  [Symbol.iterator](): Iterator<string> {
    return { next: () => this.read() };
  }
  private read(): IteratorResult<string> {
    const next = this.source.next();
    if (!next.done) this.kept.push(next.value);
    return next;
  }
  /** Every lexeme of the text. */
  all(): string[] {
    while (!this.read().done);
    return this.kept;
  }
}

/**
 * PyYAML's scanner refuses a tab wherever a token may start: in indentation, between tokens and
 * inside plain scalars. Tabs are fine only in comments, quoted scalars and block scalar text.
 */
function tabOffset(content: string, lexemes: Iterable<string>): number | null {
  if (!content.includes('\t')) return null;
  let blockScalarPending = false;
  for (const { text, offset, scalar } of positioned(lexemes)) {
    if (!scalar && (text.startsWith('|') || text.startsWith('>'))) {
      blockScalarPending = true;
      continue;
    }
    if (scalar && blockScalarPending) {
      blockScalarPending = false;
      continue;
    }
    if (text.startsWith('#') || text.startsWith("'") || text.startsWith('"')) continue;
    const tab = text.indexOf('\t');
    if (tab >= 0) return offset + tab;
  }
  return null;
}

/** Where the quoted scalar opening at `start` closes, or -1. */
function quotedEnd(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

/** Where the flow collection opening at `start` closes, or -1 (quoted scalars and comments skipped). */
function flowEnd(text: string, start: number): number {
  let depth = 0;
  let previous = '';
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if ((c === "'" || c === '"') && /^$|[[{,:]/.test(previous)) {
      i = quotedEnd(text, i);
      if (i < 0) return -1;
    } else if (c === '#' && /\s/.test(text[i - 1])) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      if (--depth === 0) return i;
    }
    if (!/\s/.test(c)) previous = c;
  }
  return -1;
}

/**
 * PyYAML ignores indentation inside flow collections and quoted scalars; the yaml package wants their
 * continuation lines indented past the enclosing block. Those lines are indented here, which keeps
 * every value (leading white space of a continuation line is folded away). Document markers stay put.
 * One pass over the text: a lexer that met an under-indented line inside a span left it early, so after
 * a span whose lines were moved a new lexer starts at its end.
 */
function indentFlowContinuations(content: string, lexemes: Lexemes): string {
  const pieces: string[] = [];
  let copied = 0;
  let from = 0;
  // Where the line of an offset starts, found by a scan that only moves forward, and the spaces added
  // to the line where the last moved span ends.
  let scanned = 0;
  let lineStart = 0;
  let moved = { lineStart: -1, added: 0 };
  const columnOf = (offset: number) => {
    for (; scanned < offset; scanned++) if (content[scanned] === '\n') lineStart = scanned + 1;
    return offset - lineStart + (moved.lineStart === lineStart ? moved.added : 0);
  };
  lexing: for (;;) {
    let depth = 0;
    const lexed = from === 0 ? lexemes : new Lexer().lex(content.slice(from));
    for (const token of positioned(lexed, from)) {
      const first = token.text[0];
      if (token.offset >= from && depth === 0 && '[{\'"'.includes(first)) {
        const start = token.offset;
        const end = first === '[' || first === '{' ? flowEnd(content, start) : quotedEnd(content, start);
        if (end < 0) break lexing;
        const column = columnOf(start);
        const span = content.slice(start, end);
        let added = 0;
        let marker = false;
        const inside = span.replace(/\n( *)(?!(?:---|\.\.\.)(?:\s|$))|\n/g, (line, spaces?: string) => {
          marker ||= spaces === undefined;
          added = spaces === undefined ? 0 : Math.max(0, column + 1 - spaces.length);
          return added === 0 ? line : '\n' + ' '.repeat(added) + spaces;
        });
        from = end + 1;
        if (inside !== span) {
          moved = { lineStart: start + span.lastIndexOf('\n') + 1, added };
          pieces.push(content.slice(copied, start), inside);
          copied = end;
          // A document marker ends the span early for the parser too: what follows is not fixed.
          if (marker) break lexing;
          continue lexing;
        }
      }
      if (first === '[' || first === '{') depth++;
      if (first === ']' || first === '}') depth = Math.max(0, depth - 1);
    }
    break;
  }
  if (copied === 0) return content;
  pieces.push(content.slice(copied));
  return pieces.join('');
}

/** What Parser.parse gives for a text, from the text's lexemes. */
function parseLexemes(lexemes: string[]): CST.Token[] {
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  for (const lexeme of lexemes) for (const token of parser.next(lexeme)) tokens.push(token);
  for (const token of parser.end()) tokens.push(token);
  return tokens;
}

/** The first collection nested deeper than MAX_NESTING in the parsed tokens, found without recursion. */
function tooDeep(tokens: CST.Token[]): CST.Token | null {
  const pending: { token: CST.Token; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { token, depth } = next;
    const children: (CST.Token | null | undefined)[] = [];
    if (token.type === 'document') children.push(token.value);
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth >= MAX_NESTING) return token;
      for (const item of token.items) children.push(item.key, item.value);
    }
    for (const child of children) if (child) pending.push({ token: child, depth: token.type === 'document' ? depth : depth + 1 });
  }
  return null;
}

/** Runs `f` with errors created without a stack: the composer makes an Error per problem, only their texts are read. */
function withoutStacks<T>(f: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return f();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The offset where each line starts. */
function lineStarts(content: string): number[] {
  const starts = [0];
  for (let i = content.indexOf('\n'); i >= 0; i = content.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Line and column (from 1) of an offset, by binary search in the line starts. */
function lineAt(starts: number[], offset: number) {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - starts[low] + 1 };
}

const lineAndColumn = (content: string, offset: number) => lineAt(lineStarts(content), offset);

/** Loads one document as `yaml.safe_load` would: its value, or why PyYAML refuses it. */
export function loadYaml(content: string): YamlResult {
  let text = content;
  const failure = (message: string, offset?: number): YamlResult => ({ ok: false, message, ...(offset == null ? {} : lineAndColumn(text, offset)) });
  const bad = NON_PRINTABLE.exec(content);
  if (bad) return failure(`unacceptable character #x${bad[0].codePointAt(0)!.toString(16).padStart(4, '0')}: special characters are not allowed`, bad.index);
  const directive = /^%YAML[ \t]+([0-9]+)\.[0-9]+/m.exec(content);
  if (directive && directive[1] !== '1') return failure('found incompatible YAML document (version 1.* is required)', directive.index);
  const lexemes = new Lexemes(content);
  text = indentFlowContinuations(content, lexemes);
  const unchanged = text === content;
  const tab = tabOffset(text, unchanged ? lexemes.all() : new Lexer().lex(text));
  if (tab !== null) return failure("found character '\\t' that cannot start any token (indent and separate with spaces, not tabs)", tab);
  const cst = unchanged ? parseLexemes(lexemes.all()) : [...new Parser().parse(text)];
  const deep = tooDeep(cst);
  if (deep) return failure(`the document is nested more than ${MAX_NESTING} levels deep (Nova's YAML reader fails at about 490)`, deep.offset);
  const list = withoutStacks(() => [...new Composer({ version: '1.1', uniqueKeys: false }).compose(cst)]);
  for (const doc of list) {
    const error = doc.errors[0];
    if (error) return failure(error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, ''), error.pos[0]);
  }
  if (list.length > 1) return failure('expected a single document in the stream, but found another document', list[1].range?.[0]);
  if (list.length === 0) return { ok: true, value: null, duplicateKeys: [] };
  try {
    // An alias is written with *: without one in the text there is none to resolve.
    const constructor = new Constructor(list[0], text.includes('*'));
    const value = constructor.value(list[0].contents as Node | null);
    const lines = constructor.duplicates.length > 0 ? lineStarts(text) : [];
    const duplicateKeys = constructor.duplicates.map(({ key, earlier }) => ({
      key: key && isScalar(key) ? String(key.source) : '?',
      ...lineAt(lines, key?.range?.[0] ?? 0),
      firstLine: lineAt(lines, earlier?.range?.[0] ?? 0).line,
    }));
    return { ok: true, value, duplicateKeys };
  } catch (error) {
    if (error instanceof YamlLoadError) return failure(error.message, error.offset);
    throw error;
  }
}
