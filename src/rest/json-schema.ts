// Placement's request bodies and query strings are checked with Python's jsonschema (4.10.3,
// Draft 2020-12, Placement's own uuid format) and the error it picks (best_match) is shown whole,
// schema and instance pretty-printed: "JSON does not validate: 'name' is a required property\n\n
// Failed validating 'required' in schema: ...". This validator covers the keywords Placement's
// schemas use, with the same messages, the same order of errors and the same choice among them.
import { isUuidLike } from '../rules/names.js';
import { pformat, pyLen, PyFloat, pyRepr, pythonSearch, pyValueRepr, type PyDict, type PyReprable, type PyValue } from '../rules/python.js';

/** A schema as Placement writes it (a Python dict literal): keys in Placement's order, which is the order errors are found in. */
export type Schema = { readonly [keyword: string]: SchemaValue };
type SchemaValue = string | number | boolean | PyFloat | Schema | readonly SchemaValue[];

interface SchemaError {
  message: string;
  validator: string;
  validatorValue: SchemaValue;
  instance: PyValue;
  schema: Schema;
  /** Where in the instance, relative to the error's parent (jsonschema's relative_path). */
  path: (string | number)[];
  schemaPath: (string | number)[];
  context: SchemaError[];
}

const regexes = new Map<string, RegExp>();
const search = (pattern: string, text: string) => {
  let regex = regexes.get(pattern);
  if (!regex) regexes.set(pattern, (regex = pythonSearch(pattern)));
  return regex.test(text);
};

const numberOf = (value: PyValue): number | bigint => (value instanceof PyFloat ? value.value : (value as number | bigint));

function isType(instance: PyValue, type: string): boolean {
  switch (type) {
    case 'object':
      return instance instanceof Map;
    case 'array':
      return Array.isArray(instance);
    case 'string':
      return typeof instance === 'string';
    case 'integer':
      return (typeof instance === 'number' && Number.isInteger(instance)) || typeof instance === 'bigint' || (instance instanceof PyFloat && Number.isInteger(instance.value));
    case 'number':
      return typeof instance === 'number' || typeof instance === 'bigint' || instance instanceof PyFloat;
    case 'boolean':
      return typeof instance === 'boolean';
    case 'null':
      return instance === null;
    default:
      return false;
  }
}

const repr = (value: PyReprable) => pyValueRepr(value);

/** Python's == between JSON values, as enum compares them (True is not 1 there: jsonschema unbools). */
function pyEqual(a: PyValue, b: PyValue): boolean {
  if (typeof a === 'boolean' || typeof b === 'boolean') return a === b;
  const numeric = (v: PyValue) => typeof v === 'number' || typeof v === 'bigint' || v instanceof PyFloat;
  if (numeric(a) && numeric(b)) return Number(numberOf(a)) === Number(numberOf(b));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => pyEqual(x, b[i]));
  if (a instanceof Map && b instanceof Map) return a.size === b.size && [...a].every(([k, v]) => b.has(k) && pyEqual(v, b.get(k)!));
  return a === b;
}

/** The properties an object has beyond `properties` and `patternProperties` (find_additional_properties). */
function additionalProperties(instance: PyDict, schema: Schema): string[] {
  const properties = (schema.properties ?? {}) as Schema;
  const patterns = Object.keys((schema.patternProperties ?? {}) as Schema).join('|');
  return [...instance.keys()].filter((k) => !Object.hasOwn(properties, k) && !(patterns && search(patterns, k)));
}

const sortedReprs = (names: string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(pyRepr).join(', ');

type Keyword = (value: SchemaValue, instance: PyValue, schema: Schema) => Iterable<SchemaError | string>;

/** Errors of instance against a subschema, placed under `path` and `schemaPath` (descend). */
function* descend(instance: PyValue, schema: Schema, path?: string | number, schemaPath?: string | number): Generator<SchemaError> {
  for (const error of iterErrors(instance, schema)) {
    if (path !== undefined) error.path.unshift(path);
    if (schemaPath !== undefined) error.schemaPath.unshift(schemaPath);
    yield error;
  }
}

const KEYWORDS: Record<string, Keyword> = {
  *type(types, instance) {
    const list = (Array.isArray(types) ? types : [types]) as string[];
    if (!list.some((t) => isType(instance, t))) yield `${repr(instance)} is not of type ${list.map(pyRepr).join(', ')}`;
  },
  *properties(properties, instance) {
    if (!(instance instanceof Map)) return;
    for (const [name, subschema] of Object.entries(properties as Schema)) {
      if (instance.has(name)) yield* descend(instance.get(name)!, subschema as Schema, name, name);
    }
  },
  *patternProperties(patterns, instance) {
    if (!(instance instanceof Map)) return;
    for (const [pattern, subschema] of Object.entries(patterns as Schema)) {
      for (const [key, value] of instance) if (search(pattern, key)) yield* descend(value, subschema as Schema, key, pattern);
    }
  },
  *additionalProperties(allowed, instance, schema) {
    if (!(instance instanceof Map)) return;
    const extras = additionalProperties(instance, schema);
    if (typeof allowed === 'object') {
      for (const extra of extras) yield* descend(instance.get(extra)!, allowed as Schema, extra);
    } else if (!allowed && extras.length) {
      if ('patternProperties' in schema) {
        const patterns = sortedReprs(Object.keys(schema.patternProperties as Schema));
        yield `${sortedReprs(extras)} ${extras.length === 1 ? 'does' : 'do'} not match any of the regexes: ${patterns}`;
      } else yield `Additional properties are not allowed (${sortedReprs(extras)} ${extras.length === 1 ? 'was' : 'were'} unexpected)`;
    }
  },
  *required(names, instance) {
    if (!(instance instanceof Map)) return;
    for (const name of names as string[]) if (!instance.has(name)) yield `${pyRepr(name)} is a required property`;
  },
  *minProperties(min, instance) {
    if (instance instanceof Map && instance.size < (min as number)) yield `${repr(instance)} does not have enough properties`;
  },
  *items(items, instance) {
    if (!Array.isArray(instance)) return;
    for (let i = 0; i < instance.length; i++) yield* descend(instance[i], items as Schema, i);
  },
  *minItems(min, instance) {
    if (Array.isArray(instance) && instance.length < (min as number)) yield `${repr(instance)} is too short`;
  },
  *uniqueItems(unique, instance) {
    if (unique && Array.isArray(instance) && instance.some((x, i) => instance.slice(i + 1).some((y) => pyEqual(x, y)))) yield `${repr(instance)} has non-unique elements`;
  },
  *minimum(min, instance) {
    if (isType(instance, 'number') && numberOf(instance) < numberOf(min as PyValue)) yield `${repr(instance)} is less than the minimum of ${repr(min as PyValue)}`;
  },
  *maximum(max, instance) {
    if (isType(instance, 'number') && numberOf(instance) > numberOf(max as PyValue)) yield `${repr(instance)} is greater than the maximum of ${repr(max as PyValue)}`;
  },
  *minLength(min, instance) {
    if (typeof instance === 'string' && pyLen(instance) < (min as number)) yield `${repr(instance)} is too short`;
  },
  *maxLength(max, instance) {
    if (typeof instance === 'string' && pyLen(instance) > (max as number)) yield `${repr(instance)} is too long`;
  },
  *pattern(pattern, instance) {
    if (typeof instance === 'string' && !search(pattern as string, instance)) yield `${repr(instance)} does not match ${pyRepr(pattern as string)}`;
  },
  *format(format, instance) {
    // The one format Placement's schemas use, checked by oslo's is_uuid_like (anything but a str fails it).
    if (format === 'uuid' && !(typeof instance === 'string' && isUuidLike(instance))) yield `${repr(instance)} is not a ${pyRepr(format)}`;
  },
  *enum(values, instance) {
    if (!(values as PyValue[]).some((v) => pyEqual(v, instance))) yield `${repr(instance)} is not one of ${repr(values as PyValue[])}`;
  },
  *anyOf(subschemas, instance) {
    const all: SchemaError[] = [];
    for (const [index, subschema] of (subschemas as Schema[]).entries()) {
      const errors = [...descend(instance, subschema, undefined, index)];
      if (errors.length === 0) return;
      all.push(...errors);
    }
    yield { ...newError(`${repr(instance)} is not valid under any of the given schemas`), context: all };
  },
};

const newError = (message: string): SchemaError => ({ message, validator: '', validatorValue: '', instance: null, schema: {}, path: [], schemaPath: [], context: [] });

function* iterErrors(instance: PyValue, schema: Schema): Generator<SchemaError> {
  for (const [keyword, value] of Object.entries(schema)) {
    const check = KEYWORDS[keyword];
    if (!check) continue;
    for (const found of check(value, instance, schema)) {
      const error = typeof found === 'string' ? newError(found) : found;
      if (!error.validator) Object.assign(error, { validator: keyword, validatorValue: value, instance, schema });
      error.schemaPath.unshift(keyword);
      yield error;
    }
  }
}

/** jsonschema's relevance: shallow errors first, anyOf and oneOf last, errors on an instance of the wrong type first. */
function relevance(error: SchemaError): number[] {
  const type = error.schema.type;
  const matchesType = type === undefined ? false : (Array.isArray(type) ? (type as string[]) : [type as string]).some((t) => isType(error.instance, t));
  return [-error.path.length, error.validator === 'anyOf' || error.validator === 'oneOf' ? 0 : 1, 0, matchesType ? 0 : 1];
}

const compare = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
};

/** exceptions.best_match: the most relevant error (the first of equals), then into anyOf's errors while one stands out. */
function bestMatch(errors: SchemaError[]): SchemaError | null {
  if (errors.length === 0) return null;
  let best = errors[0];
  for (const error of errors.slice(1)) if (compare(relevance(error), relevance(best)) > 0) best = error;
  while (best.context.length) {
    // heapq.nsmallest(2, ...): the two least relevant, ties in their order.
    const smallest = [...best.context].sort((a, b) => compare(relevance(a), relevance(b))).slice(0, 2);
    if (smallest.length === 2 && compare(relevance(smallest[0]), relevance(smallest[1])) === 0) return best;
    best = smallest[0];
  }
  return best;
}

const index = (container: string, indices: (string | number)[]) => (indices.length ? `${container}[${indices.map((i) => (typeof i === 'string' ? pyRepr(i) : String(i))).join('][')}]` : container);

/** str(ValidationError): the message, then the failing keyword with its schema and the instance, pretty-printed. */
function describe(error: SchemaError): string {
  const pretty = (value: PyReprable) => pformat(value, 72).replace(/\n/g, '\n    ');
  return (
    `${error.message}\n\n` +
    `Failed validating ${pyRepr(error.validator)} in ${index('schema', error.schemaPath.slice(0, -1))}:\n` +
    `    ${pretty(error.schema as PyReprable)}\n\n` +
    `On ${index('instance', error.path)}:\n` +
    `    ${pretty(error.instance)}`
  );
}

/** jsonschema.validate: null when the instance is valid, else the text of the error Python would raise. */
export function schemaProblem(instance: PyValue, schema: Schema): string | null {
  const best = bestMatch([...iterErrors(instance, schema)]);
  return best && describe(best);
}
