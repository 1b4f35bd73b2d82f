// `placement-gql docs extra-specs|metadefs`: reference documentation generated from the extra-spec registry,
// as the validator spec proposes (a reference of every validator, and Glance metadata definitions).
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandOptions } from '../../command.js';
import { EXTRA_SPECS_SOURCE, extraSpecRegistry, type ExtraSpecValidator } from '../../catalog/extra-specs.js';
import { pythonFullmatch } from '../../rules/python.js';
import { configureOperatorValidators } from '../../catalog/extra-specs-operators.js';

const byNamespace = (validators: readonly ExtraSpecValidator[]) => {
  const groups = new Map<string, ExtraSpecValidator[]>();
  for (const v of validators) {
    const ns = v.namespace ?? '';
    if (!groups.has(ns)) groups.set(ns, []);
    groups.get(ns)!.push(v);
  }
  return groups;
};

const TYPE_NAMES = { int: 'integer', str: 'string', bool: 'boolean' } as const;

function valueLine(v: ExtraSpecValidator): string {
  const rule = v.value;
  const parts = [`**${TYPE_NAMES[rule.type]}**${rule.type === 'bool' ? ' (1, t, true, on, y, yes / 0, f, false, off, n, no; any case)' : ''}`];
  if (rule.enum) parts.push(`one of ${rule.enum.map((e) => `\`${e}\``).join(', ')}`);
  if (rule.min !== undefined) parts.push(`at least ${rule.min}`);
  if (rule.max !== undefined) parts.push(`at most ${rule.max}`);
  if (rule.pattern) parts.push(`matching \`${rule.pattern}\``);
  return parts.join(', ');
}

/** A Markdown reference of every validator, by namespace. */
export function extraSpecsMarkdown(validators: readonly ExtraSpecValidator[]): string {
  const lines = [
    '# Flavor extra specs',
    '',
    `Every extra spec the registry knows: ${validators.length} validators. Built in: ${EXTRA_SPECS_SOURCE}.`,
    'In STRICT mode (the default) any other key is rejected; PERMISSIVE accepts other keys with a warning.',
    '',
  ];
  for (const [namespace, list] of byNamespace(validators)) {
    lines.push(`## ${namespace ? `\`${namespace}\`` : 'Keys without a namespace'}`, '');
    for (const v of list) {
      lines.push(`### \`${v.name}\`${v.deprecated ? ' (deprecated)' : ''}${v.source === 'OPERATOR' ? ' (operator)' : ''}`, '');
      lines.push(v.description.trim(), '');
      for (const p of v.parameters ?? []) lines.push(`- Parameter \`{${p.name}}\`: matches \`${p.pattern}\`${p.description ? `. ${p.description}` : ''}`);
      lines.push(`- Value: ${valueLine(v)}${v.value.description ? `. ${v.value.description}` : ''}`, '');
    }
  }
  return lines.join('\n');
}

/** The key a validator covers when every parameter is left empty, or null when one cannot be. */
function plainKey(v: ExtraSpecValidator): string | null {
  let key = v.name;
  for (const p of v.parameters ?? []) {
    if (!pythonFullmatch(p.pattern).test('')) return null;
    key = key.replaceAll(`{${p.name}}`, '');
  }
  return key;
}

/**
 * Glance metadata-definition namespaces, one per extra-spec namespace, associated with OS::Nova::Flavor.
 * Keys whose parameters cannot be empty (hw:numa_cpus.{num}, CUSTOM_{trait}...) cannot be listed as
 * properties; the namespace description names them.
 */
export function glanceMetadefs(validators: readonly ExtraSpecValidator[]) {
  return [...byNamespace(validators)].map(([namespace, list]) => {
    const properties: Record<string, Record<string, unknown>> = {};
    const patterns: string[] = [];
    for (const v of list) {
      const key = plainKey(v);
      if (key === null) {
        patterns.push(v.name);
        continue;
      }
      const name = namespace ? key.slice(key.indexOf(':') + 1) : key;
      const rule = v.value;
      properties[name] = {
        title: name,
        description: [v.description.trim(), rule.description].filter(Boolean).join('\n\n') + (v.deprecated ? '\n\nDeprecated.' : ''),
        type: TYPE_NAMES[rule.type],
        ...(rule.enum ? { enum: rule.enum } : {}),
        ...(rule.min !== undefined ? { minimum: rule.min } : {}),
        ...(rule.max !== undefined ? { maximum: rule.max } : {}),
        ...(rule.pattern ? { pattern: `^${rule.pattern}$` } : {}),
      };
    }
    const title = namespace || 'ExtraSpecs';
    return {
      namespace: `OS::Nova::${title}`,
      display_name: namespace ? `Nova flavor extra specs: ${namespace}` : 'Nova flavor extra specs without a namespace',
      description:
        `Flavor extra specs generated from the extra-spec registry (${EXTRA_SPECS_SOURCE}).` +
        (patterns.length ? ` Keys with parameters, not listed as properties: ${patterns.join(', ')}.` : ''),
      visibility: 'public',
      protected: true,
      resource_type_associations: [{ name: 'OS::Nova::Flavor', ...(namespace ? { prefix: `${namespace}:` } : {}) }],
      properties,
    };
  });
}

/** Writes to stdout and waits until it is flushed: the CLI exits right after the command returns. */
const print = (text: string) => new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));

export async function docsCommand({ positionals, values }: CommandOptions): Promise<number> {
  const [what] = positionals;
  const validators = configureOperatorValidators((values['extra-specs'] as string | undefined) ?? process.env.PLACEMENT_EXTRA_SPECS_FILE);
  if (!validators.ok) {
    console.error(validators.message);
    return 1;
  }
  const all = extraSpecRegistry().all;
  const out = values.out as string | undefined;
  if (what === 'extra-specs') {
    const text = extraSpecsMarkdown(all);
    if (out) writeFileSync(out, text);
    else await print(text);
    return 0;
  }
  if (what === 'metadefs') {
    const documents = glanceMetadefs(all);
    if (out && existsSync(out) && statSync(out).isDirectory()) {
      for (const doc of documents) writeFileSync(join(out, `${doc.namespace.replace(/::/g, '-').toLowerCase()}.json`), JSON.stringify(doc, null, 2) + '\n');
      console.log(`Wrote ${documents.length} Glance metadata-definition namespaces to ${out}.`);
    } else if (out) writeFileSync(out, JSON.stringify(documents, null, 2) + '\n');
    else await print(JSON.stringify(documents, null, 2) + '\n');
    return 0;
  }
  console.error('Usage: placement-gql docs extra-specs|metadefs [--out FILE|DIR] [--extra-specs FILE]');
  return 1;
}
