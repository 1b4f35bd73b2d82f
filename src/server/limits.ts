// Limits on what one request may ask: nesting and tokens before parsing (here: graphql-js parses
// recursively, so a deep enough document overflows the stack), depth and aliases (graphql-armor),
// list-aware cost (here: armor's cost limit weighs every field the same whatever the size of the lists
// around it, so a page of 1000 would cost what a page of 1 does), body size, candidate search size; and
// the server's own bounds: the parsed documents it keeps, what a slow subscriber may leave unread.
import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  type GraphQLField,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import type { Limits } from '../modules/common/limits.js';
import { LIST_SIZE } from '../modules/common/cost.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../modules/common/paging.js';

/** Expected size of a plain list field that declares none (see listSize). */
const DEFAULT_LIST_SIZE = 10;


/**
 * A refusal before execution, naming the limit and its value: a 400 whatever media type the client
 * accepts (yoga answers parse and validation errors 200 to application/json clients, as the GraphQL over
 * HTTP draft allows; `spec: false` opts out, and useNoInternals keeps it so for parse-time refusals).
 */
export class LimitExceeded extends GraphQLError {
  constructor(limit: keyof Limits, value: number, allowed: number, what: string, message = `${what} ${value} exceeds the limit ${limit} = ${allowed}.`) {
    super(message, { extensions: { code: 'LIMIT_EXCEEDED', limit, value, allowed, http: { status: 400, spec: false } } });
  }
}

/**
 * The expected size of a field's list: its `first` (given by a variable it counts as the largest page:
 * validation is cached per document), else its declared listSize, else the default page for a
 * connection and DEFAULT_LIST_SIZE for a plain list.
 */
function listMultiplier(node: FieldNode, field: GraphQLField<unknown, unknown>): number {
  const first = node.arguments?.find((a) => a.name.value === 'first' || a.name.value === 'last');
  if (first) return Math.max(1, first.value.kind === Kind.INT ? Number(first.value.value) : MAX_PAGE_SIZE);
  const declared = field.extensions?.[LIST_SIZE];
  if (typeof declared === 'number') return declared;
  if (isConnection(getNullableType(field.type))) return DEFAULT_PAGE_SIZE;
  return isListType(getNullableType(field.type)) ? DEFAULT_LIST_SIZE : 1;
}

const isConnection = (type: GraphQLOutputType) => isObjectType(type) && 'pageInfo' in type.getFields() && ('edges' in type.getFields() || 'nodes' in type.getFields());

/**
 * How deep a document's brackets nest, read in one pass over its text (strings, block strings and comments
 * skipped): what graphql-js's recursive parser would go down to.
 */
export function nestingOf(source: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x7b || c === 0x5b || c === 0x28) {
      // { [ (
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      if (depth > 0) depth--;
    } else if (c === 0x23) {
      // # comment, to the end of the line
      while (i + 1 < source.length && source[i + 1] !== '\n' && source[i + 1] !== '\r') i++;
    } else if (c === 0x22) {
      if (source.startsWith('"""', i)) {
        // Inside a block string, \""" is an escaped delimiter.
        let close = source.indexOf('"""', i + 3);
        while (close !== -1 && source[close - 1] === '\\') close = source.indexOf('"""', close + 3);
        i = close === -1 ? source.length : close + 2;
      } else {
        i++;
        while (i < source.length && source[i] !== '"' && source[i] !== '\n' && source[i] !== '\r') i += source[i] === '\\' ? 2 : 1;
      }
    }
  }
  return deepest;
}

/**
 * graphql-js's parse, refusing a document whose nesting or tokens pass the limits with a 400 that names
 * the limit, before the parser's recursion could overflow the stack.
 */
export function limitedParse<Options extends { maxTokens?: number }, Result>(limits: Pick<Limits, 'maxNesting' | 'maxTokens'>, parse: (source: string, options?: Options) => Result) {
  return (source: string, options?: Options): Result => {
    const nesting = nestingOf(source);
    if (nesting > limits.maxNesting) throw new LimitExceeded('maxNesting', nesting, limits.maxNesting, 'Nesting of brackets');
    try {
      return parse(source, { ...options, maxTokens: limits.maxTokens } as Options);
    } catch (error) {
      // graphql-js words it "Document contains more that N tokens".
      if (error instanceof GraphQLError && /contains more tha[nt] \d+ tokens/.test(error.message)) {
        throw new LimitExceeded('maxTokens', limits.maxTokens + 1, limits.maxTokens, '', `Document of more than ${limits.maxTokens} tokens exceeds the limit maxTokens = ${limits.maxTokens}.`);
      }
      throw error;
    }
  };
}

/** armor's refusal ("... exceeded, found N.") as the project words it: the limit named with its value. */
const armorRefusal = (limit: 'maxDepth' | 'maxAliases', allowed: number, what: string) => (context: ValidationContext | null, error: GraphQLError) => {
  const found = Number(/found (\d+)/.exec(error.message)?.[1]);
  context?.reportError(new LimitExceeded(limit, found, allowed, what));
};

/** The validation rules of the limits: depth and aliases by graphql-armor, cost by costRule. */
export function limitsRules(limits: Limits): ValidationRule[] {
  return [
    // Fragments add no depth and introspection is counted like any query, as the cost rule walks them.
    maxDepthRule({ n: limits.maxDepth, flattenFragments: true, ignoreIntrospection: false, propagateOnRejection: false, onReject: [armorRefusal('maxDepth', limits.maxDepth, 'Query depth')] }),
    maxAliasesRule({ n: limits.maxAliases, allowList: [], propagateOnRejection: false, onReject: [armorRefusal('maxAliases', limits.maxAliases, 'Number of aliases')] }),
    costRule(limits),
  ];
}

/** A validation rule estimating the cost of the whole document: every field 1, times the expected size of the lists around it. */
export function costRule(limits: Limits): ValidationRule {
  return (context: ValidationContext) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    const schema = context.getSchema();

    // Walks a selection set, returning its cost; fragments are expanded (cycles are another rule's error).
    const walk = (set: SelectionSetNode, parentType: any, seen: Set<string>): number => {
      let cost = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const field = parentType?.getFields?.()[selection.name.value];
          const childCost = selection.selectionSet && field ? walk(selection.selectionSet, getNamedType(field.type), seen) : 0;
          // A connection's edges and nodes are as many as its `first`, already counted on the connection field.
          const inPage = isConnection(parentType) && (selection.name.value === 'edges' || selection.name.value === 'nodes');
          const multiplier = field && selection.selectionSet && !inPage ? listMultiplier(selection, field) : 1;
          cost += 1 + multiplier * childCost;
        } else {
          let fragmentSet: SelectionSetNode | undefined;
          let typeName: string | undefined;
          if (selection.kind === Kind.INLINE_FRAGMENT) {
            fragmentSet = selection.selectionSet;
            typeName = selection.typeCondition?.name.value;
          } else {
            const name = selection.name.value;
            if (seen.has(name)) continue;
            const fragment = fragments.get(name);
            fragmentSet = fragment?.selectionSet;
            typeName = fragment?.typeCondition.name.value;
            seen = new Set(seen).add(name);
          }
          if (!fragmentSet) continue;
          cost += walk(fragmentSet, typeName ? schema.getType(typeName) : parentType, seen);
        }
      }
      return cost;
    };

    return {
      OperationDefinition(operation) {
        const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
        const cost = walk(operation.selectionSet, root, new Set());
        if (cost > limits.maxCost) context.reportError(new LimitExceeded('maxCost', cost, limits.maxCost, 'Estimated query cost'));
      },
    };
  };
}
