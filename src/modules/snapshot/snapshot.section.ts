// What a module contributes to snapshots: the keys it reads and writes, how it checks them (every
// problem reported with its path in the file, nothing written), how it writes them inside the import's
// transaction, its tables, and its part of an export. snapshot.service.ts runs the sections in order.
import type { Db } from '../../db/client.js';
import { MAX_INT } from '../../rules/capacity.js';
import { DomainError, InvalidInput, type Issue } from '../common/errors.js';
import type { InventoryFields } from '../inventories/inventories.service.js';
import type { Snapshot } from './snapshot.types.js';

export type Report = (path: string, message: string) => void;

/** A provider the snapshot adds. */
export interface NewProvider {
  uuid: string;
  name: string;
  parent: string | null;
  /** Its place in `providers`, for messages. */
  index: number;
  generation: number;
}

/** What every section checks against: the file, its providers and names, and where problems go. */
export interface CheckContext {
  db: Db;
  snapshot: Snapshot;
  problem: Report;
  /** The value of a key, or undefined (reported) when it is not a JSON array or object as the format says. */
  section<T>(key: keyof Snapshot, kind: 'array' | 'object'): T | undefined;
  /** The providers the snapshot adds, by canonical uuid. */
  providers: Map<string, NewProvider>;
  /** Providers the database has already: uuid -> ids. */
  existingProviders: Map<string, { id: number; rootId: number }>;
  /** The canonical uuid of a provider the snapshot adds, or null with the problem reported. */
  providerKey(raw: string, path: string): string | null;
  /** A resource class or trait name: standard, known, or a valid CUSTOM_ name (created); reported otherwise. */
  checkClass(name: unknown, path: string): void;
  checkTrait(name: unknown, path: string): void;
  /** The inventories the snapshot gives, by provider and class (what allocations are checked against). */
  inventories: Map<string, Map<string, InventoryFields>>;
}

/** What every section writes with, inside the import's one transaction. */
export interface WriteContext {
  db: Db;
  /** Every provider's ids, the snapshot's and the database's. */
  providerIds: Map<string, { id: number; rootId: number }>;
  classIds: Map<string, number>;
  traitIds: Map<string, number>;
  /** Runs a write through its module's rules; what they refuse is listed with the path, and nothing is written. */
  attempt(path: string, write: () => unknown): void;
}

export interface SnapshotSection<Plan> {
  /** The snapshot keys it holds. */
  keys: readonly (keyof Snapshot)[];
  /** Its tables, children first: emptied by import --replace. */
  tables: readonly string[];
  /** Checks its keys, reporting every problem; returns what to write. */
  check(ctx: CheckContext): Plan;
  /** Writes what was checked; returns how many records it added (for the import's summary), if it counts. */
  write(ctx: WriteContext, plan: Plan): number | void;
  /** Its part of the whole database as a snapshot. */
  export(db: Db): Partial<Snapshot>;
}

/** A section, typed by what its check hands its write. */
export const snapshotSection = <Plan>(section: SnapshotSection<Plan>) => section;

export const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON value as it reads in the file, for messages. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** What kind of JSON value it is, for messages. */
export const kindOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'string' ? 'text' : typeof value === 'boolean' ? 'a boolean' : typeof value === 'number' ? 'a number' : 'an object';

/** Whether a value is an integer from min to MAX_INT (a JSON number: not "2", [2] or true); reported if not. */
export function checkInteger(value: unknown, path: string, min: number, problem: Report): value is number {
  if (Number.isInteger(value) && (value as number) >= min && (value as number) <= MAX_INT) return true;
  problem(path, `must be an integer from ${min} to ${MAX_INT} (got ${shown(value)})`);
  return false;
}

/** A generation, when given: an integer from 0. */
export const checkGeneration = (value: unknown, path: string, problem: Report) => value === undefined || checkInteger(value, path, 0, problem);

/** What a module's rules refuse during the write, as problems of the file (its fields in the file's spelling). */
export function refusalsOf(error: unknown, path: string): Issue[] | null {
  if (error instanceof InvalidInput) return error.issues.map((i) => ({ path: `${path}.${i.path.replace(/^[a-z]+[A-Z]\w*/, (field) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))}`, message: i.message }));
  if (error instanceof DomainError) return [{ path, message: error.message }];
  return null;
}
