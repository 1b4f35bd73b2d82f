// Traits: the catalog (standard and CUSTOM_) and the traits of a provider.
import type { Db } from '../../db/client.js';
import { all, get, list, run } from '../../db/sql.js';
import { isStandardTrait } from '../../catalog/index.js';
import { customNameProblem } from '../../rules/names.js';
import { InUse, InvalidInput, NotFound } from '../common/errors.js';
import { assertGeneration, bumpGeneration, requireProvider, type ProviderRow } from '../providers/providers.service.js';

export interface TraitRow {
  id: number;
  name: string;
  standard: boolean;
}

export interface TraitFilter {
  /** Names starting with this (Placement's name=startswith:, an SQL LIKE: ASCII letters in any case, _ and % as wildcards). */
  prefix?: string | null;
  /** Only names in this list (Placement's name=in:). */
  names?: string[] | null;
  /** true: only traits some provider has; false: only traits no provider has. */
  associated?: boolean | null;
  /** true: only CUSTOM_ traits; false: only standard ones. */
  custom?: boolean | null;
}

export function listTraits(db: Db, filter: TraitFilter): TraitRow[] {
  return all<TraitRow>(
    db,
    `SELECT t.id, t.name, t.standard FROM traits t
     WHERE (@prefix IS NULL OR t.name LIKE @prefix || '%')
       AND (@names IS NULL OR t.name IN (SELECT value FROM json_each(@names)))
       AND (@associated IS NULL OR EXISTS (SELECT 1 FROM provider_traits pt WHERE pt.trait_id = t.id) = @associated)
       AND (@custom IS NULL OR t.standard = NOT @custom)
     ORDER BY t.name`,
    {
      prefix: filter.prefix ?? null,
      names: filter.names ? list(filter.names) : null,
      associated: filter.associated == null ? null : Number(filter.associated),
      custom: filter.custom == null ? null : Number(filter.custom),
    },
  ).map((t) => ({ ...t, standard: !!t.standard }));
}

export function traitByName(db: Db, name: string): TraitRow | undefined {
  const row = get<TraitRow>(db, 'SELECT id, name, standard FROM traits WHERE name = ?', name);
  return row && { ...row, standard: !!row.standard };
}

/** Creates a custom trait; an existing one is returned as it is (Placement's PUT /traits/{name}). */
export function createTrait(db: Db, name: string): { trait: TraitRow; created: boolean } {
  const existing = traitByName(db, name);
  if (existing) return { trait: existing, created: false };
  const problem = isStandardTrait(name) ? null : customNameProblem(name);
  if (problem) throw new InvalidInput([{ path: 'name', message: `a custom trait name ${problem}` }]);
  run(db, 'INSERT INTO traits (name, standard) VALUES (?, 0)', name);
  return { trait: traitByName(db, name)!, created: true };
}

/**
 * Creates the traits among names that do not exist yet (imports, provider config, the mirror of a
 * live Placement). A name without CUSTOM_ is a standard trait of a newer os-traits than this catalog.
 */
export function ensureTraits(db: Db, names: readonly string[]) {
  for (const name of new Set(names)) run(db, 'INSERT OR IGNORE INTO traits (name, standard) VALUES (?, ?)', name, Number(!name.startsWith('CUSTOM_')));
}

export function deleteTrait(db: Db, name: string): TraitRow {
  const trait = traitByName(db, name);
  if (!trait) throw new NotFound('trait', `name=${name}`, `No such trait(s): ${name}.`);
  if (trait.standard) throw new InvalidInput([{ path: 'name', message: `Cannot delete standard trait ${name}.` }]);
  if (get(db, 'SELECT 1 FROM provider_traits WHERE trait_id = ? LIMIT 1', trait.id)) {
    throw new InUse(`The trait ${name} is in use by a resource provider.`, 'placement.trait.inuse');
  }
  run(db, 'DELETE FROM traits WHERE id = ?', trait.id);
  return trait;
}

export interface SetProviderTraitsInput {
  providerUuid: string;
  generation: number;
  traits: string[];
  /**
   * Placement's REST API moves the generation only when the set of traits changes; this API's
   * mutation moves it on every accepted write (the default), so a caller always learns the next one.
   */
  bumpOnlyOnChange?: boolean;
}

/** Replaces the traits of a provider (Placement's PUT .../traits): the generation first, then every trait must exist. */
export function setProviderTraits(db: Db, input: SetProviderTraitsInput): ProviderRow {
  const provider = requireProvider(db, input.providerUuid, 'providerUuid');
  assertGeneration(provider, input.generation);
  const ids = traitIdsOrIssues(db, input.traits, 'traits');
  if (writeProviderTraits(db, provider.id, ids) || !input.bumpOnlyOnChange) bumpGeneration(db, provider, provider.generation);
  return provider;
}

/** Removes every trait of a provider (Placement's DELETE .../traits, which takes no generation). */
export function deleteProviderTraits(db: Db, providerUuid: string): ProviderRow {
  const provider = requireProvider(db, providerUuid, 'providerUuid');
  if (writeProviderTraits(db, provider.id, [])) bumpGeneration(db, provider, provider.generation);
  return provider;
}

/** Trait ids for names; unknown names are listed as issues under `path` (and all of them, as Placement names them). */
export function traitIdsOrIssues(db: Db, names: readonly string[], path: string): number[] {
  const rows = all<{ id: number; name: string }>(db, 'SELECT id, name FROM traits WHERE name IN (SELECT value FROM json_each(?))', list(names));
  const byName = new Map(rows.map((r) => [r.name, r.id]));
  const unknown = [...new Set(names.filter((name) => !byName.has(name)))];
  const issues = names.flatMap((name, n) => (byName.has(name) ? [] : [{ path: `${path}.${n}`, message: `No such trait: ${name}`, placement: `No such trait ${unknown.join(', ')}` }]));
  if (issues.length) throw new InvalidInput(issues);
  return [...new Set(names.map((n) => byName.get(n)!))];
}

/** Makes a provider's traits these; whether anything changed. */
export function writeProviderTraits(db: Db, providerId: number, traitIds: readonly number[]): boolean {
  const removed = run(db, 'DELETE FROM provider_traits WHERE resource_provider_id = ? AND trait_id NOT IN (SELECT value FROM json_each(?))', providerId, list(traitIds)).changes;
  const added = run(db, 'INSERT OR IGNORE INTO provider_traits (resource_provider_id, trait_id) SELECT ?, value FROM json_each(?)', providerId, list(traitIds)).changes;
  return removed + added > 0;
}

/** The traits of a provider, by name (Placement's GET .../traits). */
export function traitsOfProvider(db: Db, providerId: number): string[] {
  return all<{ name: string }>(db, 'SELECT t.name FROM provider_traits pt JOIN traits t ON t.id = pt.trait_id WHERE pt.resource_provider_id = ? ORDER BY t.name', providerId).map((r) => r.name);
}
