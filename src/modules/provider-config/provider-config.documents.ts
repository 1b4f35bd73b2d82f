// Reading and checking provider-config documents exactly as Nova 26 does (nova/compute/provider_config.py,
// get_provider_configs), with every problem named in an operator's words.
import { codePointOrder, pyIntNumber } from '../../rules/python.js';
import { customNameProblem } from '../../rules/names.js';
import { capacityIssue, placementInventoryIssues, withDefaults, type InventoryFields } from '../inventories/inventories.service.js';
import { additionalKeys, SchemaCrash, SUPPORTED_SCHEMA_VERSIONS, validateSchema, type InstancePath, type SchemaError } from './provider-config.schema.js';
import { loadYaml, YamlMapping, type YamlValue } from './provider-config.yaml.js';

export interface ConfigDocument {
  name: string;
  content: string;
}

/** Why Nova refuses a document, or what it warns about. */
export type Rule =
  // Nova's refusals at startup (the oracle's error kinds)
  | 'yaml_error'
  | 'schema_version_missing'
  | 'schema_version_major'
  | 'schema_error'
  | 'non_custom_trait'
  | 'non_custom_resource_class'
  | 'duplicate_identification'
  | 'nova_internal_error'
  // Nova's warnings
  | 'schema_version_minor'
  | 'no_op_provider'
  | 'unknown_provider'
  // refusals when applying (Nova's merge, Placement's rules, provenance)
  | 'same_provider_twice'
  | 'inventory_conflict'
  | 'inventory_in_use'
  | 'placement_refuses'
  // this project's own checks
  | 'duplicate_key'
  | 'capacity_out_of_range'
  | 'duplicate_document'
  | 'not_yaml_file_name'
  | 'compute_node_matches_nothing'
  | 'capacity_below_usage'
  | 'released';

export interface Problem {
  document: string | null;
  /** Where inside the document, e.g. providers[0].inventories.additional[0].CUSTOM_LLC.total. */
  path: string | null;
  /** The provider entry's identification (its uuid, name or $COMPUTE_NODE), when the problem is about one. */
  key: string | null;
  rule: Rule;
  message: string;
  /** For schema errors: the JSON-schema keyword and the path as a list, as jsonschema reports them. */
  keyword?: string;
  instancePath?: InstancePath;
}

export interface ConfigInventory {
  fields: InventoryFields;
  path: string;
}

/** One provider entry Nova keeps (no-op entries are dropped), keyed like Nova's dict by `uuid or name`. */
export interface ConfigEntry {
  key: string;
  document: string;
  path: string;
  traits: string[];
  /** By resource class; a class repeated in a later item replaces the earlier one, as dict.update does. */
  inventories: Map<string, ConfigInventory>;
}

export interface CheckedDocuments {
  /** Document names in the order Nova reads them (code point order). */
  documents: string[];
  /** Entries of the accepted documents, in Nova's order (document, then position). */
  entries: ConfigEntry[];
  /** Nova's refusal first: errors[0] is what nova-compute fails to start with. */
  errors: Problem[];
  warnings: Problem[];
  /** Accepted by Nova but refused when applied (Placement's inventory and name rules). */
  applyProblems: Problem[];
}

export const COMPUTE_NODE = '$COMPUTE_NODE';
const INVENTORY_FIELDS = ['total', 'reserved', 'min_unit', 'max_unit', 'step_size', 'allocation_ratio'] as const;
const CAMEL: Record<string, string> = { minUnit: 'min_unit', maxUnit: 'max_unit', stepSize: 'step_size', allocationRatio: 'allocation_ratio' };

export function formatPath(path: InstancePath): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) text += text ? `.${part}` : part;
    else text += `[${JSON.stringify(part)}]`;
  }
  return text;
}

/** A value as an operator would recognise it in the YAML text. */
export function describe(value: YamlValue | undefined): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'empty (null)';
  if (typeof value === 'boolean') return `the boolean ${value} (YAML 1.1 reads unquoted yes/no/on/off/true/false as booleans)`;
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'string') return `the text ${JSON.stringify(value)}`;
  if (Array.isArray(value)) return 'a list';
  if (value instanceof YamlMapping) return 'a mapping';
  if (value.kind === 'date' || value.kind === 'datetime') return `a ${value.kind === 'date' ? 'date' : 'timestamp'} (${value.text}; quote it to make it text)`;
  return { binary: 'binary data (!!binary)', set: 'a set (!!set)', pair: 'an ordered pair (!!omap/!!pairs)' }[value.kind];
}

const TYPE_WORDS: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
};

const listWords = (items: YamlValue[]) => items.map((k) => (typeof k === 'string' ? k : describe(k))).join(', ');

/** An operator's reading of a jsonschema error of the provider-config schema (the path is reported beside it). */
function schemaMessage(error: SchemaError): string {
  const last = error.path[error.path.length - 1];
  const inIdentification = error.path.at(-2) === 'identification' || last === 'identification';
  switch (error.keyword) {
    case 'not':
      return `${last} is reserved for Nova's own use and must not appear in a provider config file.`;
    case 'type': {
      let hint = '';
      if (error.schema.type === 'string' && typeof error.instance === 'number') hint = ' Quote it to make it text.';
      if ((error.schema.type === 'integer' || error.schema.type === 'number') && typeof error.instance === 'string') hint = ' Write the number without quotes.';
      if (error.schema.type === 'integer' && typeof error.instance === 'number') hint = ' A fraction is not allowed here.';
      return `Must be ${TYPE_WORDS[error.schema.type]}, but it is ${describe(error.instance)}.${hint}`;
    }
    case 'required':
      if (error.missing === 'identification') return 'This provider has no identification: each provider needs one, with its uuid or name.';
      if (error.missing === 'total') return 'This inventory has no total: every inventory needs a total.';
      return `${error.missing} is required here.`;
    case 'additionalProperties': {
      const extras = additionalKeys(error.instance as YamlMapping, error.schema);
      if (inIdentification) return `A provider is identified only by uuid or by name: ${listWords(extras)} is not allowed.`;
      if (error.schema.patternProperties) {
        return `${listWords(extras)} ${extras.length > 1 ? 'are not valid resource class names' : 'is not a valid resource class name'}: use upper-case letters, digits and _ (at most 255), e.g. CUSTOM_LLC.`;
      }
      return `Unknown inventory field ${listWords(extras)}: the fields are ${INVENTORY_FIELDS.join(', ')}.`;
    }
    case 'minProperties':
      return "The identification is empty: give the provider's uuid or its name.";
    case 'maxProperties':
      return 'The identification names the provider more than once: give exactly one of uuid or name.';
    case 'oneOf':
      return `Must be a uuid (8-4-4-4-12 hexadecimal digits) or $COMPUTE_NODE, but it is ${describe(error.instance)}.`;
    case 'const':
      return 'Must be $COMPUTE_NODE.';
    case 'pattern':
      if (last === 'schema_version') return `Must be 1.<minor>, e.g. '1.0' (no spaces, no leading zero in the minor), but it is ${describe(error.instance)}.`;
      return `${JSON.stringify(error.instance)} is not a valid trait name: use upper-case letters, digits and _ (at most 255), e.g. CUSTOM_FOO.`;
    case 'minLength':
      return 'Must not be empty.';
    case 'maxLength':
      return `Longer than ${error.schema.maxLength} characters (${[...(error.instance as string)].length}).`;
  }
  return `Breaks the schema rule "${error.keyword}".`;
}


type VersionResult = { major: number; minor: number } | { problem: string };

/** microversion_parse.parse_version_string(doc['meta']['schema_version']), or why Nova cannot read it. */
function schemaVersion(document: YamlValue): VersionResult {
  if (!(document instanceof YamlMapping)) {
    return { problem: `The document must be a mapping with meta and providers, but it is ${describe(document)}: Nova cannot find meta.schema_version.` };
  }
  const meta = document.get('meta');
  if (meta === undefined) return { problem: 'meta.schema_version is missing: start the document with meta: {schema_version: "1.0"}.' };
  if (!(meta instanceof YamlMapping)) return { problem: `meta must be a mapping holding schema_version, but it is ${describe(meta)}.` };
  const version = meta.get('schema_version');
  if (version === undefined) return { problem: 'meta.schema_version is missing: add schema_version: "1.0" under meta.' };
  if (typeof version !== 'string') {
    if (typeof version === 'number') return { problem: "meta.schema_version is a number: quote it. Unquoted, 1.0 is read as a number, and Nova needs the text '1.0'." };
    return { problem: `meta.schema_version must be quoted text like '1.0', but it is ${describe(version)}.` };
  }
  const dot = version.indexOf('.');
  const parts = dot < 0 ? [version] : [version.slice(0, dot), version.slice(dot + 1)];
  const numbers = parts.map(pyIntNumber);
  if (parts.length !== 2 || numbers.some((n) => n === null)) {
    return { problem: `meta.schema_version ${JSON.stringify(version)} is not a version of the form <major>.<minor>, e.g. '1.0'.` };
  }
  return { major: numbers[0]!, minor: numbers[1]! };
}

const textOf = (value: YamlValue | undefined) => (typeof value === 'string' ? value : null);

/** Nova's `pid.get("uuid") or pid.get("name")` of a provider entry, when it can be read. */
function identificationOf(provider: YamlValue): string | null {
  if (!(provider instanceof YamlMapping)) return null;
  const id = provider.get('identification');
  if (!(id instanceof YamlMapping)) return null;
  return textOf(id.get('uuid')) || textOf(id.get('name')) || null;
}

function providerAt(document: YamlValue, path: InstancePath): YamlValue | undefined {
  if (path[0] !== 'providers' || typeof path[1] !== 'number' || !(document instanceof YamlMapping)) return undefined;
  const providers = document.get('providers');
  return Array.isArray(providers) ? providers[path[1]] : undefined;
}

const plural = (items: string[], one: string, many: string) => (items.length > 1 ? many : one);

interface DocumentCheck {
  errors: Problem[];
  warnings: Problem[];
  applyProblems: Problem[];
  entries: ConfigEntry[];
}

/** One document, steps 1-5 of Nova's _parse_provider_yaml and _validate_provider_config. */
function checkDocument(doc: ConfigDocument): DocumentCheck {
  const result: DocumentCheck = { errors: [], warnings: [], applyProblems: [], entries: [] };
  const problem = (rule: Rule, message: string, path: InstancePath | null = null, key: string | null = null): Problem => ({
    document: doc.name,
    path: path && formatPath(path),
    key,
    rule,
    message,
  });

  const loaded = loadYaml(doc.content);
  if (!loaded.ok) {
    const where = loaded.line ? ` at line ${loaded.line}, column ${loaded.column}` : '';
    result.errors.push(problem('yaml_error', `Not valid YAML${where}: ${loaded.message}`));
    return result;
  }
  const document = loaded.value;
  for (const { key, line, column, firstLine } of loaded.duplicateKeys) {
    result.applyProblems.push(
      problem(
        'duplicate_key',
        `Line ${line}, column ${column}: the key ${JSON.stringify(key)} is written twice in one mapping (first at line ${firstLine}). Nova keeps the last value without a word; it is not applied here: write each key once.`,
      ),
    );
  }

  const version = schemaVersion(document);
  if ('problem' in version) {
    result.errors.push(problem('schema_version_missing', version.problem, ['meta', 'schema_version']));
    return result;
  }
  const minors = SUPPORTED_SCHEMA_VERSIONS[String(version.major)];
  if (!minors) {
    result.errors.push(problem('schema_version_major', `Schema version ${version.major}.${version.minor} is not supported: Nova 26 reads major version 1 only.`, ['meta', 'schema_version']));
    return result;
  }
  if (!minors.includes(version.minor)) {
    result.warnings.push(
      problem(
        'schema_version_minor',
        `Schema version ${version.major}.${version.minor}: Nova supports major version ${version.major} but not minor ${version.minor} (only ${minors.map((m) => `${version.major}.${m}`).join(', ')}); fields it does not know may be ignored.`,
        ['meta', 'schema_version'],
      ),
    );
  }

  let schemaErrors: SchemaError[];
  try {
    schemaErrors = validateSchema(document);
  } catch (error) {
    if (!(error instanceof SchemaCrash)) throw error;
    result.errors.push(problem('nova_internal_error', `Nova fails on this with an internal error: ${error.message} (quote it, or fix the name).`, error.path, identificationOf(providerAt(document, error.path) ?? null)));
    return result;
  }
  if (schemaErrors.length > 0) {
    for (const error of schemaErrors) {
      result.errors.push({
        ...problem('schema_error', schemaMessage(error), error.path, identificationOf(providerAt(document, error.path) ?? null)),
        keyword: error.keyword,
        instancePath: error.path,
      });
    }
    return result;
  }

  const providers = (document as YamlMapping).get('providers');
  (Array.isArray(providers) ? providers : []).forEach((provider, index) => {
    const entry = checkProvider(doc.name, provider as YamlMapping, index, result);
    if (entry) result.entries.push(entry);
  });
  return result;
}

/** Nova's _validate_traits, _validate_rc and no-op filter for one provider; the entry it keeps, if any. */
function checkProvider(document: string, provider: YamlMapping, index: number, result: DocumentCheck): ConfigEntry | null {
  const base: InstancePath = ['providers', index];
  const key = identificationOf(provider)!;
  const problem = (rule: Rule, message: string, path: InstancePath): Problem => ({ document, path: formatPath(path), key, rule, message });
  const section = (name: string) => {
    const value = provider.get(name);
    const additional = value instanceof YamlMapping ? value.get('additional') : undefined;
    return Array.isArray(additional) ? additional : [];
  };

  const traits = [...new Set(section('traits') as string[])];
  const standardTraits = traits.filter((t) => !t.startsWith('CUSTOM_')).sort(codePointOrder);
  if (standardTraits.length > 0) {
    result.errors.push(
      problem(
        'non_custom_trait',
        `Only custom traits (CUSTOM_...) may be set by a provider config: ${standardTraits.join(', ')} ${plural(standardTraits, 'is', 'are')} not custom.`,
        [...base, 'traits', 'additional'],
      ),
    );
    return null;
  }

  const items = section('inventories');
  const standardClasses: string[] = [];
  let textItem = false;
  for (const [n, item] of items.entries()) {
    const itemPath = [...base, 'inventories', 'additional', n];
    let names: YamlValue[];
    if (item instanceof YamlMapping) names = item.keys();
    else if (typeof item === 'string') (names = [...item]), (textItem = textItem || item.length > 0);
    else if (Array.isArray(item)) names = item;
    else {
      result.errors.push(problem('nova_internal_error', `This inventory entry is ${describe(item)}: Nova fails on this with an internal error (it must be a mapping of resource classes to inventories).`, itemPath));
      return null;
    }
    const notText = names.find((name) => typeof name !== 'string');
    if (notText !== undefined) {
      result.errors.push(problem('nova_internal_error', `This inventory entry holds ${describe(notText)}: Nova fails on this with an internal error (it must be a mapping of resource classes to inventories).`, itemPath));
      return null;
    }
    standardClasses.push(...(names as string[]).filter((name) => !name.startsWith('CUSTOM_')));
  }
  if (standardClasses.length > 0) {
    const sorted = standardClasses.sort(codePointOrder);
    const hint = textItem ? ' (an inventory written as text instead of a mapping is read letter by letter)' : '';
    result.errors.push(
      problem(
        'non_custom_resource_class',
        `Only custom resource classes (CUSTOM_...) may be given inventory by a provider config: ${sorted.join(', ')} ${plural(sorted, 'is', 'are')} not custom${hint}.`,
        [...base, 'inventories', 'additional'],
      ),
    );
    return null;
  }

  if (traits.length === 0 && items.length === 0) {
    result.warnings.push(problem('no_op_provider', `Provider ${key} has no additional inventories or traits: this entry does nothing and is ignored.`, base));
    return null;
  }

  const inventories = new Map<string, ConfigInventory>();
  for (const [n, item] of items.entries()) {
    const itemPath: InstancePath = [...base, 'inventories', 'additional', n];
    if (Array.isArray(item) && item.length > 0) {
      result.applyProblems.push(
        problem('placement_refuses', 'This inventory entry is a list, not a mapping of resource classes to inventories: Nova accepts the file but fails when it applies it.', itemPath),
      );
    }
    if (!(item instanceof YamlMapping)) continue;
    for (const { key: name, value } of item.entries.values()) {
      const path = [...itemPath, name as string];
      const fields = value as YamlMapping;
      const number = (field: string) => fields.get(field) as number | undefined;
      const inventory = withDefaults({
        resourceClass: name as string,
        total: number('total')!,
        reserved: number('reserved'),
        minUnit: number('min_unit'),
        maxUnit: number('max_unit'),
        stepSize: number('step_size'),
        allocationRatio: number('allocation_ratio'),
      });
      inventories.set(name as string, { fields: inventory, path: formatPath(path) });
    }
  }
  // Placement refuses what Nova's schema lets through: bad names and out-of-range inventory values.
  for (const trait of traits) {
    const bad = customNameProblem(trait);
    if (bad) result.applyProblems.push(problem('placement_refuses', `Placement refuses the trait ${JSON.stringify(trait)}: a custom trait name ${bad}.`, [...base, 'traits', 'additional']));
  }
  for (const [name, { fields, path }] of inventories) {
    const bad = customNameProblem(name);
    if (bad) result.applyProblems.push({ ...problem('placement_refuses', `Placement refuses the resource class ${JSON.stringify(name)}: a custom resource class name ${bad}.`, []), path });
    const placementIssues = placementInventoryIssues(fields, path);
    for (const issue of placementIssues) {
      const field = issue.path.slice(path.length + 1);
      result.applyProblems.push({
        ...problem('placement_refuses', `Placement refuses this inventory of ${name}: ${CAMEL[field] ?? field} ${issue.message}.`, []),
        path: `${path}.${CAMEL[field] ?? field}`,
      });
    }
    const capacity = placementIssues.length === 0 ? capacityIssue(fields, path) : null;
    if (capacity) {
      result.applyProblems.push({
        ...problem('capacity_out_of_range', `This inventory of ${name} is refused here (Nova and Placement take it): allocation_ratio ${capacity.message}.`, []),
        path: `${path}.allocation_ratio`,
      });
    }
  }
  return { key, document, path: formatPath(base), traits, inventories };
}

/**
 * Reads documents as Nova reads a provider_config directory: in code point order of their names, each
 * parsed and validated, then no uuid or name configured twice. Nova stops at its first error; here every
 * document is checked, and errors[0] is Nova's.
 */
export function checkDocuments(input: readonly ConfigDocument[]): CheckedDocuments {
  const documents = [...input].sort((a, b) => codePointOrder(a.name, b.name));
  const result: CheckedDocuments = { documents: documents.map((d) => d.name), entries: [], errors: [], warnings: [], applyProblems: [] };
  const seenNames = new Set<string>();
  const configured = new Map<string, ConfigEntry>();
  for (const doc of documents) {
    if (seenNames.has(doc.name)) {
      result.errors.push({ document: doc.name, path: null, key: null, rule: 'duplicate_document', message: `Two documents are named ${doc.name}: each name may appear once.` });
      continue;
    }
    seenNames.add(doc.name);
    if (!doc.name.endsWith('.yaml') || doc.name.startsWith('.')) {
      result.warnings.push({
        document: doc.name,
        path: null,
        key: null,
        rule: 'not_yaml_file_name',
        message: `Nova reads only files named *.yaml (not hidden): as a file, ${doc.name} would be ignored by Nova. It is checked and applied here.`,
      });
    }
    const checked = checkDocument(doc);
    result.errors.push(...checked.errors);
    result.warnings.push(...checked.warnings);
    if (checked.errors.length > 0) continue;
    result.applyProblems.push(...checked.applyProblems);
    for (const entry of checked.entries) {
      const earlier = configured.get(entry.key);
      if (earlier) {
        result.errors.push({
          document: doc.name,
          path: `${entry.path}.identification`,
          key: entry.key,
          rule: 'duplicate_identification',
          message: `Provider ${entry.key} is configured more than once: here and in ${earlier.document} (${earlier.path}). Each uuid or name (and $COMPUTE_NODE) may be configured only once across all documents.`,
        });
        continue;
      }
      configured.set(entry.key, entry);
      result.entries.push(entry);
    }
  }
  return result;
}
