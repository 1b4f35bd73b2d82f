// What every record the mirror takes from an upstream answer is judged with: the record of a skip,
// how a value is shown in it (quoted, cut short), and the checks of identifiers and text.
import { isCanonicalUuid } from '../rules/names.js';
import { MAX_INT } from '../rules/capacity.js';

export interface SkippedRecord {
  /** provider, inventory, trait, aggregate, resource class, consumer, allocation; flavor, server, image, node. */
  kind: string;
  /** Which record, as shown: values quoted and cut short. */
  record: string;
  /** The rule it breaks, quoting nothing of the answer (records are counted by it). */
  reason: string;
  /** The provider whose answers held it (its records are judged again when it is read again); null for a listing's. */
  provider: string | null;
}

/** Records skipped during one read. */
export class Skipped {
  readonly records: SkippedRecord[] = [];
  add(kind: string, record: string, reason: string, provider: string | null = null) {
    this.records.push({ kind, record, reason, provider });
  }
}

/** A value as a skipped record shows it: JSON, cut to 40 characters, with its length when longer. */
export function shown(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value) ?? String(value);
  const chars = Array.from(value);
  return chars.length > 40 ? `${JSON.stringify(chars.slice(0, 40).join(''))}… (${chars.length} characters)` : JSON.stringify(value);
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isUuid = (v: unknown): v is string => typeof v === 'string' && isCanonicalUuid(v);
export const isCount = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= MAX_INT;
/** Text that can be stored and answered as it is: no lone UTF-16 surrogate (a JSON \ud800 escape). */
export const isWellFormed = (s: string) => !SURROGATE.test(s) || !SURROGATE.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''));
const SURROGATE = /[\uD800-\uDFFF]/;
export const UUID_RULE = 'a uuid in canonical form (8-4-4-4-12 lower-case hex digits)';
export const NAME_RULE = 'upper-case letters, digits and _ (at most 255)';

/** Why a text field cannot be mirrored, or null: text, well-formed, `min` to `max` characters (as Python counts them). */
export function textProblem(what: string, value: unknown, min: number, max: number): string | null {
  if (typeof value !== 'string') return `its ${what} is not text`;
  if (!isWellFormed(value)) return `its ${what} is not valid Unicode text`;
  // Python counts code points: UTF-16 units are as many, or up to twice as many (counted only then).
  const length = value.length <= max && value.length >= 2 * min ? value.length : Array.from(value).length;
  if (length < min) return `its ${what} is empty`;
  if (length > max) return `its ${what} is longer than ${max} characters`;
  return null;
}
