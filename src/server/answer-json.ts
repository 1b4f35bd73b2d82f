// Writes the JSON of large answers straight from the domain objects, for operations whose fields are
// all exposed properties (no resolvers below the root fields). Candidate answers run to tens of
// thousands of allocation requests that repeat the same providers, amounts and summaries: each such
// shared object is written once and its JSON reused, where execution would build a fresh result
// object for every occurrence and JSON.stringify would walk them all. The writer is generated code,
// one function per operation with every selection inlined: property reads stay monomorphic and
// constant text is merged into few pieces.
// Anything else (a resolver field, a directive, a bad variable, a null where the schema says
// non-null, an error) goes to ordinary execution, which answers it exactly as GraphQL specifies.
import {
  Kind,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLUnionType,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { JsonBytes, keptCopy, MAX_SPARE_BYTES } from '../modules/common/json-bytes.js';

/** Not writable directly: ordinary execution answers instead. */
class Unwritable extends Error {}
const unwritable = (): never => {
  throw new Unwritable();
};

interface Options {
  /** Root query fields that may be answered this way (their resolvers are called as execution would). */
  rootFields: ReadonlySet<string>;
  /** Types whose objects are shared between many places of an answer: their JSON is kept per object. */
  sharedTypes: ReadonlySet<string>;
  /** Of those, types whose JSON is kept only for the objects this says are worth it (the others are written each time). */
  keptWhen?: Readonly<Record<string, (object: unknown) => boolean>>;
  /**
   * Of those, types whose objects keep their JSON themselves, in an `answerJson` map they carry: found
   * there in a large answer's loop, it costs less than a lookup in a table of every object written.
   */
  ownJson?: ReadonlySet<string>;
}

/** Places in compiled answers whose JSON objects keep themselves (never reused: a place of an answer dropped is not asked again). */
let ownJsonPlaces = 0;
/**
 * Most places an object keeps JSON for: past it the object forgets the others first. Kept in maps of
 * plans, JSON went with its plan when the document cache dropped it; kept by objects, it must be bounded
 * there, or a client sending ever new documents would grow every object.
 */
const OWN_JSON_PLACES = 4;

/** An object keeping its own JSON: places and bytes in turn (a short list costs less memory than a map per object). */
interface OwnsJson {
  answerJson: (number | Uint8Array)[] | undefined;
}

function ownJsonAt(object: OwnsJson, place: number): Uint8Array | undefined {
  const kept = object.answerJson;
  if (kept === undefined) return undefined;
  for (let i = 0; i < kept.length; i += 2) if (kept[i] === place) return kept[i + 1] as Uint8Array;
  return undefined;
}

/** Made anew at each place added (rare), so each list is exactly as long as its places: a list grown by push holds room for 16 more. */
function keepOwnJson(object: OwnsJson, place: number, json: Uint8Array): void {
  const kept = object.answerJson;
  object.answerJson = kept === undefined || kept.length >= 2 * OWN_JSON_PLACES ? [place, json] : [...kept, place, json];
}

/** The compiled answer of one operation: `{"data":{...}}` from the root fields' values, as UTF-8 bytes. */
export interface AnswerPlan {
  run(rawVariables: Record<string, unknown> | undefined, context: unknown): Promise<Buffer>;
}

class Compiler {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  /** Values the generated code refers to by index. */
  private readonly leaves: GraphQLLeafType[] = [];
  private readonly unions: GraphQLUnionType[] = [];
  /** Functions of an object the code calls: fields' values (`answerJsonValue`) and `keptWhen`. */
  private readonly directs: ((object: unknown) => unknown)[] = [];

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    private readonly options: Options,
  ) {
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(d.name.value, d);
  }

  /** Fields selected on a concrete object type, grouped by response key in order (graphql's CollectFields, without directives). */
  collect(type: GraphQLObjectType, selectionSet: SelectionSetNode, into = new Map<string, FieldNode[]>(), seen = new Set<string>()): Map<string, FieldNode[]> {
    for (const s of selectionSet.selections) {
      if (s.directives?.length) unwritable();
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        into.set(key, [...(into.get(key) ?? []), s]);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (!s.typeCondition || this.applies(s.typeCondition.name.value, type)) this.collect(type, s.selectionSet, into, seen);
      } else {
        const fragment = this.fragments.get(s.name.value) ?? unwritable();
        if (seen.has(fragment.name.value)) continue;
        seen.add(fragment.name.value);
        if (this.applies(fragment.typeCondition.name.value, type)) this.collect(type, fragment.selectionSet, into, seen);
      }
    }
    return into;
  }

  private applies(condition: string, type: GraphQLObjectType): boolean {
    if (condition === type.name) return true;
    const abstract = this.schema.getType(condition);
    return !!abstract && (isUnionType(abstract) || 'getInterfaces' in abstract) && this.schema.isSubType(abstract as any, type);
  }

  private names = 0;

  /** A fresh variable name for generated code. */
  private name(prefix: string): string {
    return `${prefix}${this.names++}`;
  }

  /**
   * Emits code writing the value of expression `value` (of `type`, with this selection) as JSON bytes
   * into the writer `out`. Selections are finite, so the code is inlined all the way down and constant
   * text is merged into as few pieces as possible, each kept as bytes.
   */
  private emit(code: Code, type: GraphQLOutputType, nodes: FieldNode[], value: string, nonNull = false): void {
    if (isNonNullType(type)) {
      const v = code.local(this.name('v'), value);
      code.statement(`if (${v} === null || ${v} === undefined) U();`);
      return this.emit(code, type.ofType, nodes, v, true);
    }
    if (!nonNull) {
      const v = code.local(this.name('v'), value);
      code.branch(`${v} === null || ${v} === undefined`, (yes) => yes.constant('null'), (no) => this.emit(no, type, nodes, v, true));
      return;
    }
    if (isListType(type)) {
      const [list, i] = [code.local(this.name('l'), value), this.name('i')];
      code.statement(`if (!Array.isArray(${list})) U();`);
      code.constant('[');
      code.loop(`for (let ${i} = 0; ${i} < ${list}.length; ${i}++) {`, (body) => {
        body.separator(i);
        this.emit(body, type.ofType, nodes, `${list}[${i}]`);
      });
      code.constant(']');
      return;
    }
    if (isLeafType(type)) return this.leaf(code, type, code.local(this.name('s'), value));
    const selections = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
    if (isObjectType(type)) {
      if (!this.options.sharedTypes.has(type.name)) return this.object(code, type, selections, value);
      // Shared objects: written once, for as long as the object lives.
      const [v, json] = [code.local(this.name('o'), value), this.name('j')];
      let keep: string;
      if (this.options.ownJson?.has(type.name)) {
        const place = ownJsonPlaces++;
        code.statement(`let ${json} = ownJsonAt(${v}, ${place});`);
        keep = `keepOwnJson(${v}, ${place}, ${json});`;
      } else {
        const memo = this.name('m');
        code.declare(`const ${memo} = new WeakMap();`);
        code.statement(`let ${json} = ${memo}.get(${v});`);
        keep = `${memo}.set(${v}, ${json});`;
      }
      const when = this.options.keptWhen?.[type.name];
      if (!when) return code.written(`${json} === undefined`, json, keep, (inner) => this.object(inner, type, selections, v));
      const index = this.directs.push(when) - 1;
      code.branch(
        `${json} === undefined && !directs[${index}](${v})`,
        (once) => this.object(once, type, selections, v),
        (kept) => kept.written(`${json} === undefined`, json, keep, (inner) => this.object(inner, type, selections, v)),
      );
      return;
    }
    if (isUnionType(type)) {
      const index = this.unions.push(type) - 1;
      const [v, t] = [code.local(this.name('u'), value), this.name('t')];
      code.statement(`const ${t} = unions[${index}].resolveType(${v}, c, undefined, unions[${index}]);`);
      code.cases(
        type.getTypes().map((member) => [`${t} === ${JSON.stringify(member.name)}`, (branch: Code) => this.object(branch, member, selections, v)] as const),
      );
      return;
    }
    unwritable();
  }

  private leaf(code: Code, type: GraphQLLeafType, v: string): void {
    // Built-in scalars checked inline: their serialize() coercions are the slow part of large answers.
    switch (type.name) {
      case 'String':
      case 'ID':
        code.statement(`if (typeof ${v} !== "string") U();`);
        return code.dynamic(`JSON.stringify(${v})`);
      case 'Int':
        code.statement(`if (!Number.isInteger(${v}) || ${v} > 2147483647 || ${v} < -2147483648) U();`);
        return code.dynamic(`"" + ${v}`);
      case 'Boolean':
        code.statement(`if (typeof ${v} !== "boolean") U();`);
        return code.dynamic(`${v} ? "true" : "false"`);
    }
    const index = this.leaves.push(type) - 1;
    const s = this.name('s');
    code.statement(`const ${s} = leaves[${index}].serialize(${v});`);
    code.statement(`if (${s} === undefined) U();`);
    code.dynamic(`JSON.stringify(${s})`);
  }

  /** Writes the selected fields of an object (never null here; `{}` when no field applies to its type). */
  private object(code: Code, type: GraphQLObjectType, selections: SelectionSetNode[], value: string): void {
    const grouped = new Map<string, FieldNode[]>();
    for (const s of selections) this.collect(type, s, grouped);
    const v = code.local(this.name('o'), value);
    this.fields(code, type, grouped, (field) => {
      // A field may say how to read its value without I/O; undefined means not at hand (then execution answers).
      const direct = field.extensions?.answerJsonValue;
      if (typeof direct === 'function' && !field.args.length) {
        const index = this.directs.push(direct as (object: unknown) => unknown) - 1;
        const d = code.local(this.name('d'), `directs[${index}](${v})`);
        code.statement(`if (${d} === undefined) U();`);
        return d;
      }
      // Otherwise only exposed properties without arguments: their value is the property, nothing to resolve.
      const property = field.extensions?.pothosExposedField;
      if (typeof property !== 'string' || field.args.length) return unwritable();
      return `${v}[${JSON.stringify(property)}]`;
    });
  }

  /** Writes `{"key":value,...}` for grouped fields; `valueOf` gives the expression of a field's value (not __typename). */
  private fields(code: Code, type: GraphQLObjectType, grouped: Map<string, FieldNode[]>, valueOf: (field: GraphQLField<unknown, unknown>, nodes: FieldNode[]) => string) {
    let first = true;
    code.constant('{');
    for (const [key, nodes] of grouped) {
      code.constant(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      const name = nodes[0].name.value;
      if (name === '__typename') code.constant(JSON.stringify(type.name));
      else {
        const field = type.getFields()[name] ?? unwritable();
        this.emit(code, field.type, nodes, valueOf(field, nodes));
      }
    }
    code.constant('}');
  }

  plan(operationName: string | undefined, document: DocumentNode): AnswerPlan {
    const operation = getOperationAST(document, operationName) ?? unwritable();
    if (operation.operation !== 'query' || operation.directives?.length) unwritable();
    const query = this.schema.getQueryType()!;
    const roots: { field: GraphQLField<unknown, unknown>; node: FieldNode }[] = [];
    const code = new Code('out');
    code.constant('{"data":');
    // Root fields are resolved before writing (as execution would): the code reads their values.
    this.fields(code, query, this.collect(query, operation.selectionSet), (field, nodes) => {
      if (!this.options.rootFields.has(field.name) || nodes.length > 1) unwritable();
      roots.push({ field, node: nodes[0] });
      return `values[${roots.length - 1}]`;
    });
    code.constant('}');
    // The body first: writing it declares the constants.
    const body = code.body();
    const source = `${code.declarations.join('\n')}\nreturn function answer(values, c, expectedBytes) {\nconst out = new JsonBytes(expectedBytes);\n${body}\nreturn out.done();\n};`;
    const write = new Function('U', 'leaves', 'unions', 'directs', 'JsonBytes', 'B', 'K', 'ownJsonAt', 'keepOwnJson', source)(
      unwritable,
      this.leaves,
      this.unions,
      this.directs,
      JsonBytes,
      utf8Bytes,
      keptCopy,
      ownJsonAt,
      keepOwnJson,
    ) as (values: unknown[], context: unknown, expectedBytes: number) => Buffer;
    const { schema } = this;
    const definitions = operation.variableDefinitions ?? [];
    // The buffer starts at about the size of this operation's last answer: a dashboard or a scheduler
    // asks the same operation again and again, and a buffer grown by doubling copies what it holds.
    // Sent answers' buffers are reused (json-bytes.ts), up to MAX_SPARE_BYTES: no larger start than that.
    let expectedBytes = MIN_EXPECTED_BYTES;
    return {
      async run(rawVariables, context) {
        const coerced = getVariableValues(schema, definitions, rawVariables ?? {});
        if (coerced.errors) unwritable();
        const variables = coerced.coerced!;
        const values = await Promise.all(roots.map((r) => r.field.resolve!(undefined, getArgumentValues(r.field, r.node, variables), context, undefined as any)));
        const json = write(values, context, expectedBytes);
        expectedBytes = Math.min(MAX_EXPECTED_BYTES, Math.max(MIN_EXPECTED_BYTES, Math.ceil(json.length * 1.1)));
        return json;
      },
    };
  }
}

/** The direct JSON answer of an operation, or null when it must be executed (see the file's comment). */
export function planAnswer(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, options: Options): AnswerPlan | null {
  try {
    return new Compiler(schema, document, options).plan(operationName, document);
  } catch (error) {
    if (error instanceof Unwritable) return null;
    throw error;
  }
}

/** A yoga plugin answering eligible operations by writing their JSON directly; others execute as usual. */
export function useAnswerJson(options: Options & { enableIf: (document: DocumentNode) => boolean }): Plugin {
  const plans = new WeakMap<DocumentNode, Map<string, AnswerPlan | null>>();
  const planFor = (schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): AnswerPlan | null => {
    let byName = plans.get(document);
    if (!byName) plans.set(document, (byName = new Map()));
    const key = operationName ?? '';
    if (!byName.has(key)) byName.set(key, options.enableIf(document) ? planAnswer(schema, document, operationName, options) : null);
    return byName.get(key)!;
  };
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const plan = planFor(args.schema, args.document, args.operationName ?? undefined);
      if (!plan) return;
      setExecuteFn(async (executeArgs) => {
        let json: Buffer;
        try {
          json = await plan.run(executeArgs.variableValues ?? undefined, executeArgs.contextValue);
        } catch {
          // Ordinary execution answers what this writer does not handle, and reports errors as GraphQL does.
          return executeFn(executeArgs);
        }
        let data: unknown;
        return {
          // Read only by in-process callers; the response body is `bytes` (HTTP's fast lane) or `stringify`'s (yoga).
          get data() {
            return (data ??= JSON.parse(json.toString('utf8')).data);
          },
          bytes: () => json,
          stringify: () => json.toString('utf8'),
        } as any;
      });
    },
  };
}

const MIN_EXPECTED_BYTES = 64 * 1024;
const MAX_EXPECTED_BYTES = MAX_SPARE_BYTES;

/** Constant text as bytes, made once when an operation is compiled. */
const utf8Bytes = (text: string) => Buffer.from(text, 'utf8');

/**
 * Generated code being written: statements, and constant JSON text not yet written (merged with the
 * next constant, written before the next dynamic piece or control flow).
 */
class Code {
  private readonly lines: string[] = [];
  private pending = '';

  constructor(
    /** The JsonBytes writer receiving the answer. */
    private readonly out: string,
    /** Declarations shared by all the code (memo tables), outside the answer function. */
    readonly declarations: string[] = [],
    /** How many loops this code is inside. */
    private readonly depth = 0,
  ) {}

  constant(text: string) {
    this.pending += text;
  }

  dynamic(expression: string) {
    this.flush();
    this.lines.push(`${this.out}.text(${expression});`);
  }

  /** A comma before every item of a list but the first (item index `i`). */
  separator(i: string) {
    this.flush();
    this.lines.push(`if (${i}) ${this.out}.char(44);`);
  }

  statement(line: string) {
    this.lines.push(line);
  }

  declare(line: string) {
    this.declarations.push(line);
  }

  /** Binds an expression to a local name (evaluated once: it may be a getter). */
  local(name: string, expression: string): string {
    this.lines.push(`const ${name} = ${expression};`);
    return name;
  }

  private flush() {
    if (this.pending.length === 1 && this.pending.charCodeAt(0) < 128) this.lines.push(`${this.out}.char(${this.pending.charCodeAt(0)});`);
    else if (this.pending) {
      const constant = `k${this.declarations.length}`;
      this.declarations.push(`const ${constant} = B(${JSON.stringify(this.pending)});`);
      this.lines.push(`${this.out}.bytes(${constant});`);
    }
    this.pending = '';
  }

  private block(out: string, write: (code: Code) => void, depth = this.depth): string {
    const inner = new Code(out, this.declarations, depth);
    write(inner);
    return inner.body();
  }

  branch(condition: string, yes: (code: Code) => void, no: (code: Code) => void) {
    this.flush();
    this.lines.push(`if (${condition}) {`, this.block(this.out, yes), '} else {', this.block(this.out, no), '}');
  }

  cases(branches: readonly (readonly [string, (code: Code) => void])[]) {
    this.flush();
    for (const [condition, write] of branches) this.lines.push(`if (${condition}) {`, this.block(this.out, write), '} else');
    this.lines.push('U();');
  }

  loop(head: string, body: (code: Code) => void) {
    this.flush();
    this.lines.push(head, this.block(this.out, body, this.depth + 1), '}');
  }

  /** Writes into a fresh writer when `condition` holds, its bytes copied into `json` and kept (the statement `keep`); then writes `json`. */
  written(condition: string, json: string, keep: string, write: (code: Code) => void) {
    this.flush();
    const inner = `${json}w`;
    // One scratch writer per place in the code: writing is synchronous, and a piece never contains itself.
    this.declarations.push(`const ${inner} = new JsonBytes(512);`);
    this.lines.push(`if (${condition}) {`, `${inner}.reset();`, this.block(inner, write), `${json} = K(${inner}.done());`, keep, '}');
    this.lines.push(`${this.out}.bytes(${json});`);
  }

  body(): string {
    this.flush();
    return this.lines.join('\n');
  }
}
