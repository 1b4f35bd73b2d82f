// The flavor extra-spec registry: Nova's built-in validators (extra-specs.json) and the operators' own,
// and the checks of POST /flavors/{id}/os-extra_specs with their exact texts (Nova 26, microversion 2.86).
import catalogFile from './extra-specs.json' with { type: 'json' };
import { codePointOrder, pyDictRepr, pyInt, pyRepr, pyStrip, pythonFullmatch } from '../rules/python.js';

export type ExtraSpecValueType = 'int' | 'str' | 'bool';
export type ValidationMode = 'STRICT' | 'PERMISSIVE' | 'OFF';
export type ValidatorSource = 'BUILT_IN' | 'OPERATOR';

/** A validator as written in extra-specs.json or an operators' file (the shape of Nova's ExtraSpecValidator). */
export interface ExtraSpecValidatorDefinition {
  /** The key, with `{param}` placeholders, e.g. hw:numa_cpus.{num}. */
  name: string;
  description: string;
  deprecated?: boolean;
  parameters?: { name: string; pattern: string; description?: string }[];
  value: {
    type: ExtraSpecValueType;
    description?: string;
    enum?: string[];
    min?: number;
    max?: number;
    /** A Python `re` pattern the whole value must match. */
    pattern?: string;
  };
}

export interface ExtraSpecValidator extends ExtraSpecValidatorDefinition {
  source: ValidatorSource;
  /** Text before the first ':' with the placeholders removed, e.g. `trait`; null without one. */
  namespace: string | null;
  /** The Python pattern Nova builds for the name: each `{param}` becomes `(?P<param>pattern)`. */
  nameRegex: string;
  /** The Python pattern of the namespace (what Nova's NAMESPACES holds); null without a ':'. */
  namespaceRegex: string | null;
  nameMatcher: RegExp;
  namespaceMatcher: RegExp | null;
  valueMatcher: RegExp | null;
}

/** One problem found in the input: which document (or none), where, which key, and the text. */
export interface Problem {
  document?: string | null;
  path?: string | null;
  key?: string | null;
  message: string;
}

export interface ExtraSpecsCheck {
  valid: boolean;
  errors: Problem[];
  warnings: Problem[];
}

export interface ExtraSpec {
  key: string;
  value: string;
}

export type KeyClass = 'registered' | 'unknown_in_known_namespace' | 'unknown_namespace' | 'no_namespace';

export const EXTRA_SPECS_SOURCE: string = catalogFile.source;
/** The JSON schema of the extra-specs body, which applies in every mode. */
export const KEY_PATTERN = catalogFile.schema.keyPattern;
const MAX_VALUE_LENGTH = catalogFile.schema.valueMaxLength;
// Python's `$` also matches before a final newline, so "foo:bar\n" passes Nova's schema.
const KEY_SCHEMA = /^[a-zA-Z0-9\-_:. ]{1,255}\n?$/;
const BOOL_STRINGS = new Set([...catalogFile.boolStrings.true, ...catalogFile.boolStrings.false]);

/** Nova's ExtraSpecValidator.__post_init__: the name pattern, then the matchers. Throws on a pattern that does not compile. */
export function compileValidator(definition: ExtraSpecValidatorDefinition, source: ValidatorSource): ExtraSpecValidator {
  let nameRegex = definition.name;
  for (const p of definition.parameters ?? []) nameRegex = nameRegex.replaceAll(`{${p.name}}`, `(?P<${p.name}>${p.pattern})`);
  const colon = nameRegex.indexOf(':');
  const namespaceRegex = colon < 0 ? null : nameRegex.slice(0, colon);
  const nameColon = definition.name.indexOf(':');
  return {
    ...definition,
    source,
    namespace: nameColon < 0 ? null : definition.name.slice(0, nameColon).replace(/\{[^}]*\}/g, ''),
    nameRegex,
    namespaceRegex,
    nameMatcher: pythonFullmatch(nameRegex),
    namespaceMatcher: namespaceRegex === null ? null : pythonFullmatch(namespaceRegex),
    valueMatcher: definition.value.type === 'str' && definition.value.pattern ? pythonFullmatch(definition.value.pattern) : null,
  };
}

/** What the validator says about a value: Nova's error text, or null when the value is valid. */
export function valueError(validator: ExtraSpecValidator, value: string): string | null {
  const rule = validator.value;
  if (rule.type === 'int') {
    const n = pyInt(value);
    if (n === null) return `Validation failed; '${value}' is not a valid integer value.`;
    // Nova formats the converted integer here, not the text: ' +07' is reported as '7'.
    if (rule.max !== undefined && BigInt(rule.max) < n) return `Validation failed; '${n}' is greater than the max value of '${rule.max}'.`;
    if (rule.min !== undefined && BigInt(rule.min) > n) return `Validation failed; '${n}' is less than the min value of '${rule.min}'.`;
    return null;
  }
  if (rule.type === 'bool') {
    return BOOL_STRINGS.has(pyStrip(value).toLowerCase()) ? null : `Validation failed; '${value}' is not a valid boolean-like value.`;
  }
  if (validator.valueMatcher) {
    return validator.valueMatcher.test(value) ? null : `Validation failed; '${value}' is not of the format '${rule.pattern}'.`;
  }
  if (rule.enum && !rule.enum.includes(value)) return `Validation failed; '${value}' is not one of: ${rule.enum.join(', ')}.`;
  return null;
}

export const unknownKeyMessage = (key: string) => `Validation failed; extra spec '${key}' does not appear to be a valid extra spec.`;

export class ExtraSpecRegistry {
  private readonly byName = new Map<string, ExtraSpecValidator>();
  private readonly operatorByName = new Map<string, ExtraSpecValidator>();

  constructor(
    readonly builtIn: readonly ExtraSpecValidator[],
    readonly operator: readonly ExtraSpecValidator[] = [],
  ) {
    for (const v of builtIn) this.byName.set(v.name, v);
    for (const v of operator) this.operatorByName.set(v.name, v);
  }

  /** Every validator: the built-in ones in Nova's registry order, then the operators'. */
  get all(): readonly ExtraSpecValidator[] {
    return [...this.builtIn, ...this.operator];
  }

  /**
   * The validator of a key, as Nova's validators.validate looks it up: the exact name, then the
   * first whose name pattern matches the whole key. Built-in validators come before the operators'.
   */
  find(key: string): ExtraSpecValidator | undefined {
    return this.byName.get(key) ?? this.builtIn.find((v) => v.nameMatcher.test(key)) ?? this.operatorByName.get(key) ?? this.operator.find((v) => v.nameMatcher.test(key));
  }

  classify(key: string): KeyClass {
    if (this.find(key)) return 'registered';
    const colon = key.indexOf(':');
    if (colon < 0) return 'no_namespace';
    const prefix = key.slice(0, colon);
    return this.all.some((v) => v.namespaceMatcher?.test(prefix)) ? 'unknown_in_known_namespace' : 'unknown_namespace';
  }

  /**
   * Checks extra specs as Nova's os-extra_specs API does, in input order. Every mode applies Nova's
   * JSON schema (key characters and length, values of at most 255 characters). STRICT rejects invalid
   * values and every key without a validator; PERMISSIVE rejects invalid values and warns about keys
   * without a validator; OFF checks nothing more. Errors come in Nova's order: the first is the one
   * Nova would answer with.
   */
  check(specs: readonly ExtraSpec[], mode: ValidationMode = 'STRICT', path = 'extraSpecs'): ExtraSpecsCheck {
    const errors: Problem[] = [];
    const warnings: Problem[] = [];
    // A JSON object keeps the first position and the last value of a repeated key.
    const entries = new Map<string, { value: string; index: number }>();
    specs.forEach(({ key, value }, index) => {
      const seen = entries.get(key);
      if (seen) {
        warnings.push({ path: `${path}.${index}.key`, key, message: `extra spec '${key}' is given more than once; the last value is used.` });
        seen.value = value;
        seen.index = index;
      } else entries.set(key, { value, index });
    });

    const badKeys: string[] = [];
    for (const [key, { value, index }] of entries) {
      if (!KEY_SCHEMA.test(key)) badKeys.push(key);
      else if ([...value].length > MAX_VALUE_LENGTH) {
        errors.push({ path: `${path}.${index}.value`, key, message: `Invalid input for field/attribute ${key}. Value: ${value}. ${pyRepr(value)} is too long` });
      }
    }
    if (badKeys.length > 0) {
      const listed = badKeys.sort(codePointOrder).map(pyRepr).join(', ');
      const dict = pyDictRepr([...entries].map(([k, e]) => [k, e.value] as const));
      errors.push({
        path,
        key: badKeys.length === 1 ? badKeys[0] : null,
        message: `Invalid input for field/attribute extra_specs. Value: ${dict}. ${listed} ${badKeys.length === 1 ? 'does' : 'do'} not match any of the regexes: ${pyRepr(KEY_PATTERN)}`,
      });
    }
    if (mode === 'OFF') return { valid: errors.length === 0, errors, warnings };

    const schemaFailed = new Set([...badKeys, ...errors.map((e) => e.key)]);
    for (const [key, { value, index }] of entries) {
      if (schemaFailed.has(key)) continue;
      const validator = this.find(key);
      if (validator) {
        const error = valueError(validator, value);
        if (error) errors.push({ path: `${path}.${index}.value`, key, message: error });
        else if (validator.deprecated) warnings.push({ path: `${path}.${index}.key`, key, message: `extra spec '${key}' is deprecated: ${firstSentence(validator.description)}` });
      } else if (mode === 'PERMISSIVE') {
        warnings.push({ path: `${path}.${index}.key`, key, message: `extra spec '${key}' has no registered validator; permitted (permissive mode)` });
      } else {
        errors.push({ path: `${path}.${index}.key`, key, message: unknownKeyMessage(key) });
      }
    }
    return { valid: errors.length === 0, errors, warnings };
  }
}

const firstSentence = (text: string) => text.split(/(?<=\.)\s/)[0].replace(/\s+/g, ' ');

export const BUILT_IN_VALIDATORS: readonly ExtraSpecValidator[] = (catalogFile.validators as ExtraSpecValidatorDefinition[]).map((v) => compileValidator(v, 'BUILT_IN'));

let active = new ExtraSpecRegistry(BUILT_IN_VALIDATORS);

/** The registry in use: the built-in validators and the operators' loaded with useOperatorValidators. */
export const extraSpecRegistry = () => active;

/** Installs the operators' validators (already checked by loadOperatorValidators) beside the built-in ones. */
export function useOperatorValidators(validators: readonly ExtraSpecValidator[]) {
  active = new ExtraSpecRegistry(BUILT_IN_VALIDATORS, validators);
}
