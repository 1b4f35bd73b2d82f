// placement-gql apply-config DIR [--dry-run] [--db FILE]: Nova's provider_config directory, applied as a plan.
import { readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { decodeUtf8 } from '../../rules/text.js';
import type { CommandOptions } from '../../command.js';
import { openDatabase } from '../../db/client.js';
import { localWrites } from '../../writes/local.js';
import type { InventoryFields } from '../inventories/inventories.service.js';
import { codePointOrder } from '../../rules/python.js';
import { type ConfigDocument, type Problem } from './provider-config.documents.js';
import { isChanged, type ConfigPlan, type PlannedInventory } from './provider-config.service.js';

const USAGE = 'Usage: placement-gql apply-config DIR [--dry-run] [--allow-empty] [--db FILE]';

/** Why a file or directory must not be trusted: writable by others than its owner, or owned by another user. */
function unsafe(path: string, stats: Stats): string | null {
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    return `Refusing ${path}: it is owned by uid ${stats.uid}, not by uid ${uid} that runs placement-gql. Provider config must belong to the user applying it (chown it).`;
  }
  if ((stats.mode & 0o022) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
    return `Refusing ${path}: it is writable by group or others (mode ${mode}). Provider config must be writable only by its owner (chmod go-w ${path}).`;
  }
  return null;
}

export interface ReadDirectory {
  documents: ConfigDocument[];
  /** Files refused (permissions, not readable): nothing is applied while there is one. */
  refusals: string[];
  /** Files Nova would not read (not *.yaml, or hidden), to name when no document is found. */
  skipped: string[];
}

/** Whether `path` is `dir` or inside it (both real paths). */
const inside = (dir: string, path: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * The *.yaml files of a directory (not hidden ones), in code point order, as Nova globs them. A symbolic
 * link is followed only to a file inside the directory; nothing outside it is read (or printed).
 */
export function readConfigDirectory(dir: string): ReadDirectory {
  const refusals: string[] = [];
  const dirProblem = unsafe(dir, statSync(dir));
  if (dirProblem) refusals.push(dirProblem.replace('Refusing', 'Refusing the directory'));
  const realDir = realpathSync(dir);
  const all = readdirSync(dir).sort(codePointOrder);
  const names = all.filter((name) => name.endsWith('.yaml') && !name.startsWith('.'));
  const skipped = all.filter((name) => !names.includes(name));
  const documents: ConfigDocument[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let real: string;
    let stats: Stats;
    try {
      real = realpathSync(path);
      if (!inside(realDir, real)) {
        refusals.push(`Refusing ${path}: it is a symbolic link to a file outside ${dir}. Provider config is read only from the directory itself: copy the file in.`);
        continue;
      }
      stats = statSync(real);
    } catch (error) {
      refusals.push(`Cannot read ${path}: ${describeError(error)}`);
      continue;
    }
    if (!stats.isFile()) {
      refusals.push(`Cannot read ${path}: it is not a regular file.`);
      continue;
    }
    const problem = unsafe(path, stats);
    if (problem) {
      refusals.push(problem);
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(real);
    } catch (error) {
      refusals.push(`Cannot read ${path}: ${describeError(error)}`);
      continue;
    }
    const text = decodeUtf8(bytes);
    if (text.ok) documents.push({ name, content: text.text });
    else refusals.push(`Cannot read ${path}: it is not UTF-8 text: byte ${text.offset} (line ${text.line}, column ${text.column}) is not part of a UTF-8 character.`);
  }
  return { documents, refusals, skipped };
}

/** A file system error in plain words (no JavaScript message, which repeats the path). */
function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    ENOENT: 'it does not exist (a symbolic link to nothing?)',
    EACCES: 'permission denied',
    ELOOP: 'its symbolic links loop',
    EISDIR: 'it is a directory',
  };
  return words[code ?? ''] ?? `the system refuses it (${code ?? 'unknown error'})`;
}

const FIELD_NAMES: [keyof InventoryFields, string][] = [
  ['total', 'total'],
  ['reserved', 'reserved'],
  ['minUnit', 'min_unit'],
  ['maxUnit', 'max_unit'],
  ['stepSize', 'step_size'],
  ['allocationRatio', 'allocation_ratio'],
];

function inventoryLine(mark: string, inv: PlannedInventory): string {
  const head = `  ${mark} inventory ${inv.resourceClass}`;
  if (!inv.before) return `${head}: ${FIELD_NAMES.map(([f, n]) => `${n} ${inv.after![f]}`).join(', ')}  [${inv.document}]`;
  if (!inv.after) return `${head}  (set by ${inv.document}${inv.used ? `; ${inv.used} used` : ''})`;
  const changes = FIELD_NAMES.filter(([f]) => inv.before![f] !== inv.after![f]).map(([f, n]) => `${n} ${inv.before![f]} -> ${inv.after![f]}`);
  return `${head}: ${changes.join(', ')}  [${inv.document}]`;
}

function problemLine(p: Problem): string {
  const where = [p.document, p.path].filter(Boolean).join(', ');
  const key = p.key ? ` (${p.key})` : '';
  return `  ${where}${key}${where || key ? ': ' : ''}${p.message}`;
}

/** The plan as an operator reads it. */
export function formatPlan(plan: ConfigPlan, dir: string): string {
  const lines: string[] = [];
  lines.push(plan.documents.length ? `Read ${plan.documents.length} document(s) from ${dir}, in this order: ${plan.documents.join(', ')}` : `No *.yaml documents in ${dir}.`);
  for (const p of plan.providers) {
    lines.push('');
    const by = p.configuredBy.length ? `configured by ${p.configuredBy.join('; ')}` : 'no longer configured';
    const generation = plan.applied && isChanged(p) ? `${p.generation} -> ${p.generation + 1}` : `${p.generation}`;
    lines.push(`${p.provider.name} (${p.provider.uuid}), generation ${generation}, ${by}`);
    for (const inv of p.addInventories) lines.push(inventoryLine('+', inv));
    for (const inv of p.changeInventories) lines.push(inventoryLine('~', inv));
    for (const inv of p.removeInventories) lines.push(inventoryLine('-', inv));
    for (const t of p.addTraits) lines.push(`  + trait ${t.trait}  [${t.document}]`);
    for (const t of p.removeTraits) lines.push(`  - trait ${t.trait}  (set by ${t.document})`);
    if (!isChanged(p)) lines.push('  no changes');
  }
  if (plan.newTraits.length || plan.newResourceClasses.length) lines.push('');
  if (plan.newTraits.length) lines.push(`New custom traits: ${plan.newTraits.join(', ')}`);
  if (plan.newResourceClasses.length) lines.push(`New custom resource classes: ${plan.newResourceClasses.join(', ')}`);
  if (plan.warnings.length) lines.push('', `Warnings (${plan.warnings.length}):`, ...plan.warnings.map(problemLine));
  if (plan.errors.length) lines.push('', `Errors (${plan.errors.length}):`, ...plan.errors.map(problemLine));
  const changed = plan.providers.filter(isChanged).length;
  lines.push('');
  if (plan.errors.length) lines.push(`Nothing was applied: ${plan.errors.length} error(s).`);
  else if (plan.applied) lines.push(changed ? `Applied: ${changed} provider(s) changed.` : 'Applied: nothing to change.');
  else lines.push(`Dry run: nothing was changed; ${changed} provider(s) would change.`);
  return lines.join('\n');
}

/** 0 when applied (or a clean dry run), 1 on a usage error, 2 when refused (files or documents). */
export async function applyConfigCommand(options: CommandOptions): Promise<number> {
  const dir = options.positionals[0];
  if (!dir || options.positionals.length > 1) {
    console.error(USAGE);
    return 1;
  }
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch {
    console.error(`${dir} does not exist. ${USAGE}`);
    return 1;
  }
  if (!stats.isDirectory()) {
    console.error(`${dir} is not a directory. ${USAGE}`);
    return 1;
  }
  const { documents, refusals, skipped } = readConfigDirectory(dir);
  if (refusals.length) {
    console.error(`Nothing was applied: ${refusals.length} file(s) refused.`);
    for (const refusal of refusals) console.error(`  ${refusal}`);
    return 2;
  }
  // An empty set is the complete configuration "nothing": it removes what earlier documents set.
  if (documents.length === 0 && !options.values['allow-empty']) {
    const others = skipped.length ? ` (${skipped.join(', ')} ${skipped.length > 1 ? 'are' : 'is'} not read: Nova reads only *.yaml files that are not hidden)` : '';
    console.error(
      `Nothing was applied: no *.yaml documents in ${dir}${others}. Applying no documents removes every inventory and trait that earlier documents set; give --allow-empty to do that.`,
    );
    return 2;
  }
  const db = openDatabase(options.dbFile);
  try {
    const plan = await localWrites(db).applyProviderConfig({ documents, dryRun: !!options.values['dry-run'] });
    const text = formatPlan(plan, dir);
    if (plan.errors.length) console.error(text);
    else console.log(text);
    return plan.errors.length ? 2 : 0;
  } finally {
    db.close();
  }
}
