// Operators' own extra-spec validators, read from a JSON or YAML file named in the server configuration
// (--extra-specs FILE or PLACEMENT_EXTRA_SPECS_FILE). Same shape as the built-in ones, lower precedence.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { BUILT_IN_VALIDATORS, compileValidator, useOperatorValidators, type ExtraSpecValidator, type ExtraSpecValidatorDefinition, type Problem } from './extra-specs.js';

export class OperatorValidatorsRejected extends Error {
  constructor(
    readonly file: string,
    readonly problems: Problem[],
  ) {
    super(`${file}: ${problems.length} problem(s) in the extra-spec validators:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
  }
}

export interface LoadedValidators {
  validators: ExtraSpecValidator[];
  /** Validators ignored because a built-in one has the same name. */
  warnings: Problem[];
}

const VALUE_TYPES = ['int', 'str', 'bool'];
const VALIDATOR_FIELDS = new Set(['name', 'description', 'deprecated', 'parameters', 'value']);
const PARAMETER_FIELDS = new Set(['name', 'pattern', 'description']);
const VALUE_FIELDS = new Set(['type', 'description', 'enum', 'min', 'max', 'pattern']);
// What a key may hold besides its parameters (Nova's key schema).
const NAME_TEXT = /^[a-zA-Z0-9\-_:. ]+$/;
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a document of validators: `{validators: [...]}` or a bare list, each like an entry of the
 * built-in catalog: {name, description, deprecated?, parameters?: [{name, pattern, description?}],
 * value: {type: int|str|bool, description?, enum?, min?, max?, pattern?}}. Every problem is listed.
 */
export function checkOperatorValidators(document: unknown, file: string): LoadedValidators {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const list = Array.isArray(document) ? document : isObject(document) ? document.validators : undefined;
  if (!Array.isArray(list)) throw new OperatorValidatorsRejected(file, [{ document: file, path: '', message: 'expected a list of validators, or an object with a "validators" list' }]);
  const builtInNames = new Set(BUILT_IN_VALIDATORS.map((v) => v.name));
  const seen = new Set<string>();
  const validators: ExtraSpecValidator[] = [];

  list.forEach((entry, n) => {
    const at = `validators.${n}`;
    const count = problems.length;
    const problem = (path: string, message: string) => problems.push({ document: file, path: `${at}${path}`, message });
    if (!isObject(entry)) return problem('', 'must be an object');
    for (const k of Object.keys(entry)) if (!VALIDATOR_FIELDS.has(k)) problem(`.${k}`, 'is not a field of a validator');
    const { name, description, deprecated, parameters = [], value } = entry;
    if (typeof name !== 'string' || name === '') problem('.name', 'must be a non-empty string');
    if (typeof description !== 'string' || description.trim() === '') problem('.description', 'must be a non-empty string');
    if (deprecated !== undefined && typeof deprecated !== 'boolean') problem('.deprecated', 'must be true or false');

    const parameterNames: string[] = [];
    if (!Array.isArray(parameters)) problem('.parameters', 'must be a list');
    else
      parameters.forEach((p, k) => {
        const pat = `.parameters.${k}`;
        if (!isObject(p)) return problem(pat, 'must be an object');
        for (const f of Object.keys(p)) if (!PARAMETER_FIELDS.has(f)) problem(`${pat}.${f}`, 'is not a field of a parameter');
        if (typeof p.name !== 'string' || !PARAMETER_NAME.test(p.name)) problem(`${pat}.name`, 'must be an identifier (letters, digits, _)');
        else if (parameterNames.includes(p.name)) problem(`${pat}.name`, `parameter ${p.name} is defined twice`);
        else parameterNames.push(p.name);
        if (typeof p.pattern !== 'string' || p.pattern === '') problem(`${pat}.pattern`, 'must be a non-empty regular expression');
        else patternProblem(p.pattern, (m) => problem(`${pat}.pattern`, m));
        if (p.description !== undefined && typeof p.description !== 'string') problem(`${pat}.description`, 'must be a string');
      });

    if (typeof name === 'string' && name !== '') {
      const placeholders = [...name.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
      for (const p of placeholders) if (!parameterNames.includes(p)) problem('.name', `{${p}} has no parameter of that name`);
      for (const p of parameterNames) if (!placeholders.includes(p)) problem('.parameters', `parameter ${p} does not appear in the name`);
      const text = name.replace(/\{[^}]*\}/g, '');
      if (text && !NAME_TEXT.test(text)) problem('.name', `may hold only letters, digits, '-', '_', ':', '.', spaces and {parameters}, as extra-spec keys do`);
      if (seen.has(name)) problem('.name', `${name} is defined twice in this file`);
      seen.add(name);
    }

    if (!isObject(value)) problem('.value', 'must be an object with a type');
    else {
      for (const f of Object.keys(value)) if (!VALUE_FIELDS.has(f)) problem(`.value.${f}`, 'is not a field of a value rule');
      const type = value.type as string;
      if (!VALUE_TYPES.includes(type)) problem('.value.type', 'must be int, str or bool');
      if (value.description !== undefined && typeof value.description !== 'string') problem('.value.description', 'must be a string');
      for (const bound of ['min', 'max'] as const) {
        if (value[bound] === undefined) continue;
        if (type !== 'int') problem(`.value.${bound}`, 'applies to int values only');
        else if (!Number.isSafeInteger(value[bound])) problem(`.value.${bound}`, 'must be an integer');
      }
      if (typeof value.min === 'number' && typeof value.max === 'number' && value.min > value.max) problem('.value', 'min is greater than max');
      if (value.enum !== undefined) {
        if (type !== 'str') problem('.value.enum', 'applies to str values only');
        else if (!Array.isArray(value.enum) || value.enum.length === 0 || !value.enum.every((e) => typeof e === 'string')) problem('.value.enum', 'must be a non-empty list of strings');
      }
      if (value.pattern !== undefined) {
        if (type !== 'str') problem('.value.pattern', 'applies to str values only');
        else if (typeof value.pattern !== 'string' || value.pattern === '') problem('.value.pattern', 'must be a non-empty regular expression');
        else patternProblem(value.pattern, (m) => problem('.value.pattern', m));
      }
    }
    if (problems.length > count) return;

    const definition = entry as unknown as ExtraSpecValidatorDefinition;
    if (builtInNames.has(definition.name)) {
      warnings.push({ document: file, path: `${at}.name`, key: definition.name, message: `${definition.name} is a built-in validator, which takes precedence; this one is ignored` });
      return;
    }
    try {
      validators.push(compileValidator(definition, 'OPERATOR'));
    } catch (error) {
      problem('.name', `the name with its parameters is not a valid pattern: ${(error as Error).message}`);
    }
  });
  if (problems.length > 0) throw new OperatorValidatorsRejected(file, problems);
  return { validators, warnings };
}

function patternProblem(pattern: string, report: (message: string) => void) {
  try {
    compileValidator({ name: 'x', description: 'x', value: { type: 'str', pattern } }, 'OPERATOR');
  } catch (error) {
    report(`is not a regular expression this server can use: ${(error as Error).message}`);
  }
}

/** Reads, checks and installs the operators' validators from a .json, .yaml or .yml file; throws OperatorValidatorsRejected. */
export function loadOperatorValidators(file: string): LoadedValidators {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new OperatorValidatorsRejected(file, [{ document: file, path: '', message: `cannot be read: ${(error as Error).message}` }]);
  }
  let document: unknown;
  try {
    document = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new OperatorValidatorsRejected(file, [{ document: file, path: '', message: `is not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${(error as Error).message}` }]);
  }
  const loaded = checkOperatorValidators(document, file);
  useOperatorValidators(loaded.validators);
  return loaded;
}

/**
 * For the server and the CLI: installs the operators' validators from the file named by
 * --extra-specs or PLACEMENT_EXTRA_SPECS_FILE, if any. Returns what to print: a summary, or why the
 * file is rejected (then `ok` is false and nothing is installed).
 */
export function configureOperatorValidators(file: string | undefined): { ok: boolean; message: string | null } {
  if (!file) return { ok: true, message: null };
  try {
    const { validators, warnings } = loadOperatorValidators(file);
    const notes = warnings.map((w) => `\n  ${w.path}: ${w.message}`).join('');
    return { ok: true, message: `Extra-spec validators: ${validators.length} from ${file}, after the ${BUILT_IN_VALIDATORS.length} built-in ones.${notes}` };
  } catch (error) {
    if (error instanceof OperatorValidatorsRejected) return { ok: false, message: `Extra-spec validators rejected, none loaded. ${error.message}` };
    throw error;
  }
}
