// Writes the JSON of large answers straight from the domain objects, for operations whose fields are
// all exposed properties (no resolvers below the root fields). Candidate answers run to tens of
// thousands of allocation requests that repeat the same providers, amounts and summaries: each such
// shared object is written once and its JSON reused, where execution would build a fresh result
// object for every occurrence and JSON.stringify would walk them all. The writer is generated code,
// one function per type and selection, so that every call and property read is monomorphic.
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
}

/** The compiled answer of one operation: `{"data":{...}}` from the root fields' values. */
export interface AnswerPlan {
  run(rawVariables: Record<string, unknown> | undefined, context: unknown): Promise<string>;
}

class Compiler {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  /** Generated function declarations, and the values they refer to by index. */
  private readonly functions: string[] = [];
  private readonly leaves: GraphQLLeafType[] = [];
  private readonly unions: GraphQLUnionType[] = [];

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

  /**
   * Declares a generated writer with this body and returns its name: it writes value `v` as JSON
   * pieces into `out`, joined once at the end (a string built by `+=` costs as much again to flatten).
   */
  private declare(body: string): string {
    const name = `w${this.functions.length}`;
    this.functions.push(`function ${name}(v, c, out) {\n${body}\n}`);
    return name;
  }

  /** The name of a writer for values of `type` with this selection. */
  writer(type: GraphQLOutputType, fieldNodes: FieldNode[]): string {
    if (isNonNullType(type)) return this.declare(`if (v === null || v === undefined) U();\n${this.writer(type.ofType, fieldNodes)}(v, c, out);`);
    const orNull = 'if (v === null || v === undefined) { out.push("null"); return; }\n';
    if (isListType(type)) {
      const item = this.writer(type.ofType, fieldNodes);
      return this.declare(
        `${orNull}if (!Array.isArray(v)) U();\nout.push("[");\nfor (let i = 0; i < v.length; i++) { if (i) out.push(","); ${item}(v[i], c, out); }\nout.push("]");`,
      );
    }
    if (isLeafType(type)) return this.declare(orNull + this.leaf(type));
    const selections = fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
    if (isObjectType(type)) {
      const write = this.object(type, selections);
      if (!this.options.sharedTypes.has(type.name)) return this.declare(`${orNull}${write}(v, c, out);`);
      // Shared objects: written once, for as long as the object lives.
      const memo = `m${this.functions.length}`;
      this.functions.push(`const ${memo} = new WeakMap();`);
      return this.declare(
        `${orNull}let json = ${memo}.get(v);\nif (json === undefined) { const o = []; ${write}(v, c, o); json = o.join(""); ${memo}.set(v, json); }\nout.push(json);`,
      );
    }
    if (isUnionType(type)) {
      const index = this.unions.push(type) - 1;
      const branches = type.getTypes().map((member) => `if (t === ${JSON.stringify(member.name)}) ${this.object(member, selections)}(v, c, out);`);
      return this.declare(`${orNull}const t = unions[${index}].resolveType(v, c, undefined, unions[${index}]);\n${branches.join('\nelse ')}\nelse U();`);
    }
    return unwritable();
  }

  private leaf(type: GraphQLLeafType): string {
    // Built-in scalars checked inline: their serialize() coercions are the slow part of large answers.
    switch (type.name) {
      case 'String':
      case 'ID':
        return 'if (typeof v !== "string") U();\nout.push(JSON.stringify(v));';
      case 'Int':
        return 'if (!Number.isInteger(v) || v > 2147483647 || v < -2147483648) U();\nout.push("" + v);';
      case 'Boolean':
        return 'if (typeof v !== "boolean") U();\nout.push(v ? "true" : "false");';
    }
    const index = this.leaves.push(type) - 1;
    return `const s = leaves[${index}].serialize(v);\nif (s === undefined) U();\nout.push(JSON.stringify(s));`;
  }

  /** A writer of the selected fields of an object (never null here; `{}` when no field applies to its type). */
  private object(type: GraphQLObjectType, selections: SelectionSetNode[]): string {
    const grouped = new Map<string, FieldNode[]>();
    for (const s of selections) this.collect(type, s, grouped);
    const fields = type.getFields();
    const lines: string[] = [];
    let pending = '{';
    for (const [key, nodes] of grouped) {
      if (pending !== '{') pending += ',';
      pending += JSON.stringify(key) + ':';
      const name = nodes[0].name.value;
      if (name === '__typename') {
        pending += JSON.stringify(type.name);
        continue;
      }
      const field = fields[name] ?? unwritable();
      // Only exposed properties without arguments: their value is the property, nothing to resolve.
      const property = field.extensions?.pothosExposedField;
      if (typeof property !== 'string' || field.args.length) return unwritable();
      lines.push(`out.push(${JSON.stringify(pending)});`, `${this.writer(field.type, nodes)}(v[${JSON.stringify(property)}], c, out);`);
      pending = '';
    }
    lines.push(`out.push(${JSON.stringify(pending + '}')});`);
    return this.declare(lines.join('\n'));
  }

  plan(operationName: string | undefined, document: DocumentNode): AnswerPlan {
    const operation = getOperationAST(document, operationName) ?? unwritable();
    if (operation.operation !== 'query' || operation.directives?.length) unwritable();
    const query = this.schema.getQueryType()!;
    const roots: { field: GraphQLField<unknown, unknown>; node: FieldNode }[] = [];
    const lines: string[] = [];
    let pending = '{"data":{';
    for (const [key, nodes] of this.collect(query, operation.selectionSet)) {
      if (pending !== '{"data":{') pending += ',';
      pending += JSON.stringify(key) + ':';
      const name = nodes[0].name.value;
      if (name === '__typename') {
        pending += JSON.stringify(query.name);
        continue;
      }
      if (!this.options.rootFields.has(name) || nodes.length > 1) unwritable();
      const field = query.getFields()[name];
      lines.push(`out.push(${JSON.stringify(pending)});`, `${this.writer(field.type, nodes)}(values[${roots.length}], c, out);`);
      roots.push({ field, node: nodes[0] });
      pending = '';
    }
    lines.push(`out.push(${JSON.stringify(pending + '}}')});`);
    const source = `${this.functions.join('\n')}\nreturn function answer(values, c) {\nconst out = [];\n${lines.join('\n')}\nreturn out.join("");\n};`;
    const write = new Function('U', 'leaves', 'unions', source)(unwritable, this.leaves, this.unions) as (values: unknown[], context: unknown) => string;
    const { schema } = this;
    const definitions = operation.variableDefinitions ?? [];
    return {
      async run(rawVariables, context) {
        const coerced = getVariableValues(schema, definitions, rawVariables ?? {});
        if (coerced.errors) unwritable();
        const variables = coerced.coerced!;
        const values = await Promise.all(roots.map((r) => r.field.resolve!(undefined, getArgumentValues(r.field, r.node, variables), context, undefined as any)));
        return write(values, context);
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
        let json: string;
        try {
          json = await plan.run(executeArgs.variableValues ?? undefined, executeArgs.contextValue);
        } catch {
          // Ordinary execution answers what this writer does not handle, and reports errors as GraphQL does.
          return executeFn(executeArgs);
        }
        let data: unknown;
        return {
          // Read only by in-process callers; the response body is `stringify`'s.
          get data() {
            return (data ??= JSON.parse(json).data);
          },
          stringify: () => json,
        } as any;
      });
    },
  };
}
