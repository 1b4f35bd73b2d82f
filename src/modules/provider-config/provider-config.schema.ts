// Nova's provider-config schema v1, checked as jsonschema 4.10.3 checks it (Draft 2020-12): the keywords
// this one schema uses, in the schema's key order, and jsonschema's `best_match` to pick the error Nova reports.
import novaSchema from './nova-schema-v1.json' with { type: 'json' };
import { YamlMapping, type YamlValue } from './provider-config.yaml.js';
import { pythonSearch } from '../../rules/python.js';

type Schema = Record<string, any>;
export type InstancePath = (string | number)[];

export interface SchemaError {
  /** The JSON-schema keyword that failed (jsonschema's `validator`). */
  keyword: string;
  /** Where in the document, from its root. */
  path: InstancePath;
  instance: YamlValue;
  /** The (sub)schema holding the failing keyword. */
  schema: Schema;
  /** For oneOf: why each alternative failed. */
  context: SchemaError[];
  /** For required: the missing property. */
  missing?: string;
}

/** Raised where jsonschema itself fails with a Python error (a mapping key that is not text). */
export class SchemaCrash extends Error {
  constructor(
    message: string,
    readonly path: InstancePath,
  ) {
    super(message);
  }
}

export const SCHEMA_V1: Schema = novaSchema.schema;
export const SUPPORTED_SCHEMA_VERSIONS: Record<string, number[]> = novaSchema.supported_schema_versions;

export function isType(instance: YamlValue, type: string): boolean {
  switch (type) {
    case 'object':
      return instance instanceof YamlMapping;
    case 'array':
      return Array.isArray(instance);
    case 'string':
      return typeof instance === 'string';
    case 'integer':
      // From draft 6 on, a float with an integral value (1.0) is an integer.
      return typeof instance === 'number' && Number.isInteger(instance);
    case 'number':
      return typeof instance === 'number';
    case 'boolean':
      return typeof instance === 'boolean';
    case 'null':
      return instance === null;
  }
  return false;
}

const codePoints = (s: string) => [...s].length;

function resolveRef(ref: string): Schema {
  const match = /^#\/\$defs\/(.+)$/.exec(ref);
  if (!match) throw new Error(`unsupported $ref ${ref}`);
  return SCHEMA_V1.$defs[match[1]];
}

/** Every error of `instance` against `schema`, in jsonschema's order; paths relative to `instance`. */
function* iterErrors(instance: YamlValue, schema: Schema, where: InstancePath): Generator<SchemaError> {
  const error = (keyword: string, context: SchemaError[] = []): SchemaError => ({ keyword, path: [], instance, schema, context });
  const descend = function* (value: YamlValue, subschema: Schema, part?: string | number): Generator<SchemaError> {
    const at = part === undefined ? where : [...where, part];
    for (const e of iterErrors(value, subschema, at)) yield part === undefined ? e : { ...e, path: [part, ...e.path] };
  };
  const isObject = instance instanceof YamlMapping;
  for (const [keyword, value] of Object.entries(schema)) {
    switch (keyword) {
      case 'type':
        if (!isType(instance, value)) yield error(keyword);
        break;
      case 'properties':
        if (isObject) for (const [name, subschema] of Object.entries(value as Schema)) if (instance.has(name)) yield* descend(instance.get(name)!, subschema, name);
        break;
      case 'required':
        if (isObject) for (const name of value as string[]) if (!instance.has(name)) yield { ...error(keyword), missing: name };
        break;
      case 'patternProperties':
        if (isObject)
          for (const [pattern, subschema] of Object.entries(value as Schema))
            for (const { key, value: item } of instance.entries.values()) {
              if (typeof key !== 'string') throw new SchemaCrash('a resource class name here is not text', where);
              if (pythonSearch(pattern).test(key)) yield* descend(item, subschema, key);
            }
        break;
      case 'additionalProperties':
        if (isObject && value === false && additionalKeys(instance, schema, where).length > 0) yield error(keyword);
        break;
      case 'items':
        if (Array.isArray(instance)) for (let i = 0; i < instance.length; i++) yield* descend(instance[i], value, i);
        break;
      case 'oneOf': {
        const failures: SchemaError[] = [];
        let valid = false;
        (value as Schema[]).forEach((subschema) => {
          if (valid) return;
          const errors = [...descend(instance, subschema)];
          if (errors.length === 0) valid = true;
          failures.push(...errors);
        });
        if (!valid) yield error(keyword, failures);
        break;
      }
      case 'const':
        if (instance !== value) yield error(keyword);
        break;
      case 'pattern':
        if (typeof instance === 'string' && !pythonSearch(value).test(instance)) yield error(keyword);
        break;
      case 'minLength':
        if (typeof instance === 'string' && codePoints(instance) < value) yield error(keyword);
        break;
      case 'maxLength':
        if (typeof instance === 'string' && codePoints(instance) > value) yield error(keyword);
        break;
      case 'minProperties':
        if (isObject && instance.size < value) yield error(keyword);
        break;
      case 'maxProperties':
        if (isObject && instance.size > value) yield error(keyword);
        break;
      case 'not':
        if ([...iterErrors(instance, value, where)].length === 0) yield error(keyword);
        break;
      case '$ref':
        yield* descend(instance, resolveRef(value));
        break;
    }
  }
}

/** Keys neither listed in `properties` nor matching `patternProperties` (jsonschema's find_additional_properties). */
export function additionalKeys(instance: YamlMapping, schema: Schema, where: InstancePath = []): YamlValue[] {
  const properties = schema.properties ?? {};
  const patternList = Object.keys(schema.patternProperties ?? {});
  return instance.keys().filter((key) => {
    if (typeof key === 'string' && Object.hasOwn(properties, key)) return false;
    if (patternList.length === 0) return true;
    if (typeof key !== 'string') throw new SchemaCrash('a resource class name here is not text', where);
    return !pythonSearch(patternList.join('|')).test(key);
  });
}

/** jsonschema's relevance key: shallow errors first, oneOf/anyOf last, type mismatches before the rest. */
function relevance(error: SchemaError): number[] {
  const matchesType = typeof error.schema.type === 'string' && isType(error.instance, error.schema.type);
  return [-error.path.length, error.keyword === 'oneOf' || error.keyword === 'anyOf' ? 0 : 1, 0, matchesType ? 0 : 1];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** jsonschema.exceptions.best_match, from the most relevant error down its oneOf context. */
function descendContext(best: SchemaError): SchemaError {
  while (best.context.length > 0) {
    const ranked = [...best.context].sort((a, b) => compare(relevance(a), relevance(b)));
    if (ranked.length >= 2 && compare(relevance(ranked[0]), relevance(ranked[1])) === 0) return best;
    best = { ...ranked[0], path: [...best.path, ...ranked[0].path] };
  }
  return best;
}

/**
 * Whether `instance` meets `schema` with no error, as iterErrors would find none; false also where
 * iterErrors would fail like jsonschema. No generators and no error objects: most documents are valid.
 */
function isValid(instance: YamlValue, schema: Schema): boolean {
  const isObject = instance instanceof YamlMapping;
  for (const keyword in schema) {
    const value = schema[keyword];
    switch (keyword) {
      case 'type':
        if (!isType(instance, value)) return false;
        break;
      case 'properties':
        if (isObject) for (const name in value) if (instance.has(name) && !isValid(instance.get(name)!, value[name])) return false;
        break;
      case 'required':
        if (isObject) for (const name of value as string[]) if (!instance.has(name)) return false;
        break;
      case 'patternProperties':
        if (isObject)
          for (const pattern in value) {
            const regex = pythonSearch(pattern);
            for (const { key, value: item } of instance.entries.values()) {
              if (typeof key !== 'string') return false;
              if (regex.test(key) && !isValid(item, value[pattern])) return false;
            }
          }
        break;
      case 'additionalProperties':
        if (isObject && value === false) {
          const properties = schema.properties ?? {};
          const patterns = Object.keys(schema.patternProperties ?? {});
          const regex = patterns.length ? pythonSearch(patterns.join('|')) : null;
          for (const key of instance.keys()) {
            if (typeof key === 'string' && Object.hasOwn(properties, key)) continue;
            if (!regex || typeof key !== 'string' || !regex.test(key)) return false;
          }
        }
        break;
      case 'items':
        if (Array.isArray(instance)) for (const item of instance) if (!isValid(item, value)) return false;
        break;
      case 'oneOf':
        // iterErrors stops at the first alternative that holds: the others are not checked.
        if (!(value as Schema[]).some((alternative) => isValid(instance, alternative))) return false;
        break;
      case 'const':
        if (instance !== value) return false;
        break;
      case 'pattern':
        if (typeof instance === 'string' && !pythonSearch(value).test(instance)) return false;
        break;
      case 'minLength':
        if (typeof instance === 'string' && codePoints(instance) < value) return false;
        break;
      case 'maxLength':
        if (typeof instance === 'string' && codePoints(instance) > value) return false;
        break;
      case 'minProperties':
        if (isObject && instance.size < value) return false;
        break;
      case 'maxProperties':
        if (isObject && instance.size > value) return false;
        break;
      case 'not':
        if (isValid(instance, value)) return false;
        break;
      case '$ref':
        if (!isValid(instance, resolveRef(value))) return false;
        break;
    }
  }
  return true;
}

/** All errors of a document against SCHEMA_V1: first the one `jsonschema.validate` raises (Nova's), then the others. */
export function validateSchema(document: YamlValue): SchemaError[] {
  if (isValid(document, SCHEMA_V1)) return [];
  const errors = [...iterErrors(document, SCHEMA_V1, [])];
  if (errors.length === 0) return [];
  // max() keeps the first of equally relevant errors.
  let top = errors[0];
  for (const error of errors) if (compare(relevance(error), relevance(top)) > 0) top = error;
  return [descendContext(top), ...errors.filter((e) => e !== top)];
}
