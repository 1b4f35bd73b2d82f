// Flavors: sizes and extra specs, validated against the extra-spec registry (Nova's os-extra_specs API).
import type { Db } from '../../db/client.js';
import { all, get, list, run } from '../../db/sql.js';
import { extraSpecRegistry, type ExtraSpec, type Problem, type ValidationMode } from '../../catalog/extra-specs.js';
import { DuplicateName, InvalidInput, NotFound, type Issue } from '../common/errors.js';
import { nameLengthProblem } from '../../rules/names.js';

export interface FlavorRow {
  id: number;
  name: string;
  vcpus: number;
  memoryMb: number;
  rootGb: number;
  ephemeralGb: number;
  swapMb: number;
  isPublic: boolean;
  /** Nova's flavor id when mirrored from Nova; null for a local flavor. */
  novaId: string | null;
  createdAt: string;
}

export interface ExtraSpecRow {
  flavorId: number;
  key: string;
  value: string;
}

const FLAVOR_COLUMNS = `f.id, f.name, f.vcpus, f.memory_mb AS memoryMb, f.root_gb AS rootGb, f.ephemeral_gb AS ephemeralGb,
  f.swap_mb AS swapMb, f.is_public AS isPublic, f.nova_id AS novaId, f.created_at AS createdAt`;
/** Nova's database integers (db.MAX_INT). */
const MAX_INT = 2147483647;

const toFlavor = (row: FlavorRow | undefined) => row && { ...row, isPublic: !!row.isPublic };

export function flavorByName(db: Db, name: string): FlavorRow | undefined {
  return toFlavor(get<FlavorRow>(db, `SELECT ${FLAVOR_COLUMNS} FROM flavors f WHERE f.name = ?`, name));
}

export function flavorsByIds(db: Db, ids: readonly number[]): FlavorRow[] {
  return all<FlavorRow>(db, `SELECT ${FLAVOR_COLUMNS} FROM flavors f WHERE f.id IN (SELECT value FROM json_each(?))`, list(ids)).map((r) => toFlavor(r)!);
}

export function flavorsByNames(db: Db, names: readonly string[]): FlavorRow[] {
  return all<FlavorRow>(db, `SELECT ${FLAVOR_COLUMNS} FROM flavors f WHERE f.name IN (SELECT value FROM json_each(?))`, list(names)).map((r) => toFlavor(r)!);
}

/** The flavor with this name, or NotFound naming the input field. */
export function requireFlavor(db: Db, name: string, field = 'name'): FlavorRow {
  const flavor = flavorByName(db, name);
  if (!flavor) throw new NotFound('flavor', `${field}=${name}`, `Flavor ${name} could not be found.`);
  return flavor;
}

export interface FlavorFilter {
  /** Only flavors whose name contains this (case-insensitive). */
  search?: string | null;
  isPublic?: boolean | null;
  /** Only flavors with this extra spec key. */
  extraSpecKey?: string | null;
}

export function listFlavors(db: Db, filter: FlavorFilter, page: { offset: number; limit: number }) {
  const where = `WHERE (@search IS NULL OR instr(lower(f.name), lower(@search)) > 0)
      AND (@isPublic IS NULL OR f.is_public = @isPublic)
      AND (@key IS NULL OR EXISTS (SELECT 1 FROM flavor_extra_specs s WHERE s.flavor_id = f.id AND s.key = @key))`;
  const params = { search: filter.search ?? null, isPublic: filter.isPublic == null ? null : Number(filter.isPublic), key: filter.extraSpecKey ?? null };
  const rows = all<FlavorRow>(db, `SELECT ${FLAVOR_COLUMNS} FROM flavors f ${where} ORDER BY f.name LIMIT @limit OFFSET @offset`, { ...params, ...page });
  const { n } = get<{ n: number }>(db, `SELECT COUNT(*) AS n FROM flavors f ${where}`, params)!;
  return { rows: rows.map((r) => toFlavor(r)!), totalCount: n };
}

/** Extra specs of each flavor, in the order they were first set (Nova keeps them as a dict). */
export function extraSpecsOfFlavors(db: Db, ids: readonly number[]): ExtraSpecRow[] {
  return all<ExtraSpecRow>(db, 'SELECT flavor_id AS flavorId, key, value FROM flavor_extra_specs WHERE flavor_id IN (SELECT value FROM json_each(?)) ORDER BY rowid', list(ids));
}

export interface CreateFlavorInput {
  name: string;
  vcpus: number;
  memoryMb: number;
  rootGb: number;
  ephemeralGb?: number | null;
  swapMb?: number | null;
  isPublic?: boolean | null;
  extraSpecs?: ExtraSpec[] | null;
  validation?: ValidationMode | null;
}

export interface FlavorChange {
  flavor: FlavorRow;
  /** Warnings of the extra-spec check (unregistered keys in PERMISSIVE mode, deprecated keys...). */
  warnings: Problem[];
}

function sizeIssues(input: CreateFlavorInput): Issue[] {
  const issues: Issue[] = [];
  const name = input.name;
  const nameProblem = nameLengthProblem(name);
  if (nameProblem) issues.push({ path: 'name', message: nameProblem });
  else if (name.trim() !== name) issues.push({ path: 'name', message: 'must not start or end with whitespace' });
  const bounds: [keyof CreateFlavorInput, number, number | null | undefined][] = [
    ['vcpus', 1, input.vcpus],
    ['memoryMb', 1, input.memoryMb],
    ['rootGb', 0, input.rootGb],
    ['ephemeralGb', 0, input.ephemeralGb],
    ['swapMb', 0, input.swapMb],
  ];
  for (const [field, min, value] of bounds) {
    if (value != null && (value < min || value > MAX_INT)) issues.push({ path: field, message: `must be between ${min} and ${MAX_INT} (got ${value})` });
  }
  return issues;
}

/** Checks extra specs with the registry and throws InvalidInput with Nova's texts when they are rejected. */
function checkExtraSpecs(specs: readonly ExtraSpec[], mode: ValidationMode | null | undefined, path = 'extraSpecs'): Problem[] {
  const check = extraSpecRegistry().check(specs, mode ?? 'STRICT', path);
  if (!check.valid) throw new InvalidInput(check.errors.map((e) => ({ path: e.path ?? path, message: e.message })));
  return check.warnings;
}

/** Writes extra specs: a new key goes last, an existing key keeps its place (a Python dict update). */
function writeExtraSpecs(db: Db, flavorId: number, specs: readonly ExtraSpec[]) {
  for (const { key, value } of specs) {
    run(db, 'INSERT INTO flavor_extra_specs (flavor_id, key, value) VALUES (?, ?, ?) ON CONFLICT (flavor_id, key) DO UPDATE SET value = excluded.value', flavorId, key, value);
  }
}

export function createFlavor(db: Db, input: CreateFlavorInput): FlavorChange {
  const issues = sizeIssues(input);
  if (issues.length) throw new InvalidInput(issues);
  const specs = input.extraSpecs ?? [];
  const warnings = checkExtraSpecs(specs, input.validation);
  if (flavorByName(db, input.name)) throw new DuplicateName('name', input.name, `Flavor with name ${input.name} already exists.`);
  const { lastInsertRowid } = run(
    db,
    'INSERT INTO flavors (name, vcpus, memory_mb, root_gb, ephemeral_gb, swap_mb, is_public) VALUES (?, ?, ?, ?, ?, ?, ?)',
    input.name,
    input.vcpus,
    input.memoryMb,
    input.rootGb,
    input.ephemeralGb ?? 0,
    input.swapMb ?? 0,
    Number(input.isPublic ?? true),
  );
  writeExtraSpecs(db, Number(lastInsertRowid), specs);
  return { flavor: requireFlavor(db, input.name), warnings };
}

export function deleteFlavor(db: Db, name: string): FlavorRow {
  const flavor = requireFlavor(db, name);
  run(db, 'DELETE FROM flavors WHERE id = ?', flavor.id);
  return flavor;
}

export interface SetFlavorExtraSpecsInput {
  name: string;
  extraSpecs: ExtraSpec[];
  validation?: ValidationMode | null;
}

/** Adds or replaces extra specs (POST /flavors/{id}/os-extra_specs): only the keys given are checked. */
export function setFlavorExtraSpecs(db: Db, input: SetFlavorExtraSpecsInput): FlavorChange {
  const flavor = requireFlavor(db, input.name);
  const warnings = checkExtraSpecs(input.extraSpecs, input.validation);
  writeExtraSpecs(db, flavor.id, input.extraSpecs);
  return { flavor, warnings };
}

/** Removes extra specs (DELETE /flavors/{id}/os-extra_specs/{key}); every key must be set. */
export function unsetFlavorExtraSpecs(db: Db, input: { name: string; keys: string[] }): FlavorRow {
  const flavor = requireFlavor(db, input.name);
  const present = new Set(extraSpecsOfFlavors(db, [flavor.id]).map((s) => s.key));
  const missing = input.keys.flatMap((key, n) => (present.has(key) ? [] : [{ path: `keys.${n}`, message: `Flavor ${flavor.name} has no extra specs with key ${key}.` }]));
  if (missing.length) throw new InvalidInput(missing);
  run(db, 'DELETE FROM flavor_extra_specs WHERE flavor_id = ? AND key IN (SELECT value FROM json_each(?))', flavor.id, list(input.keys));
  return flavor;
}
