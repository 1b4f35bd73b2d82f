// The rules for names and identifiers: custom traits and resource classes (os-traits,
// os-resource-classes, Placement's schemas), node traits (Ironic), consumer types, the names of
// flavors and images, and uuids. Each rule once; callers word their own context around it.
/** A custom trait or resource class: Placement's schema pattern and length. */
export const CUSTOM_NAME_PATTERN = /^CUSTOM_[A-Z0-9_]+$/;
export const MAX_CUSTOM_NAME_LENGTH = 255;

/** Why a custom trait or resource class name is invalid, or null when it is valid. */
export function customNameProblem(name: string): string | null {
  if (name.length > MAX_CUSTOM_NAME_LENGTH) return `must be at most ${MAX_CUSTOM_NAME_LENGTH} characters`;
  if (!CUSTOM_NAME_PATTERN.test(name)) return 'must match ^CUSTOM_[A-Z0-9_]+$';
  return null;
}

/**
 * Why a name is not a valid trait to set, or null: standard (os-traits: `standard` says whether the
 * catalog has it) or a valid custom name, in words that name the trait.
 */
export function traitProblem(name: string, standard: boolean): string | null {
  if (standard) return null;
  if (!name.startsWith('CUSTOM_')) return `${name} is not a standard trait (os-traits), and a custom trait must start with CUSTOM_`;
  if (name.length > MAX_CUSTOM_NAME_LENGTH) return `${name} is ${name.length} characters long, and a trait may have at most ${MAX_CUSTOM_NAME_LENGTH}`;
  if (!CUSTOM_NAME_PATTERN.test(name)) return `${name} is not a valid custom trait: it must match ^CUSTOM_[A-Z0-9_]+$ (only A-Z, 0-9 and _)`;
  return null;
}

/** os_traits.normalize_name / os_resource_classes.normalize_name. */
export function normalizeCustomName(name: string): string {
  return 'CUSTOM_' + name.replace(/[^0-9A-Za-z]+/g, '_').toUpperCase();
}

/** Flavor names (Nova) and image names (Glance): 1 to 255 characters. */
export const MAX_NAME_LENGTH = 255;

/** Why a flavor or image name has the wrong length, or null. */
export const nameLengthProblem = (name: string) => (name.length < 1 || name.length > MAX_NAME_LENGTH ? `must be 1 to ${MAX_NAME_LENGTH} characters long` : null);

/** A consumer's type (Placement 1.38): the default, and the pattern and length of its schema. */
export const DEFAULT_CONSUMER_TYPE = 'INSTANCE';
const CONSUMER_TYPE_PATTERN = /^[A-Z0-9_]+$/;
const MAX_CONSUMER_TYPE_LENGTH = 255;
export const isConsumerType = (value: string) => CONSUMER_TYPE_PATTERN.test(value) && value.length <= MAX_CONSUMER_TYPE_LENGTH;
/**
 * How Placement shows a consumer without a type (written before 1.38; NULL in the database): its
 * NULL_CONSUMER_TYPE_ALIAS. Lower case, so no consumer type can be named so.
 */
export const NO_CONSUMER_TYPE = 'unknown';
/** A stored consumer type (null: none) as Placement shows it. */
export const shownConsumerType = (type: string | null) => type ?? NO_CONSUMER_TYPE;

/**
 * A trait or resource class name as Placement lists it: standard (of whatever os-traits or
 * os-resource-classes release that Placement has) or custom; Placement's RC_PATTERN and length.
 */
export const isPlacementName = (value: string) => CONSUMER_TYPE_PATTERN.test(value) && value.length <= MAX_CUSTOM_NAME_LENGTH;

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const CANONICAL_UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether a text is a uuid already in canonical form (what canonicalUuid gives back unchanged). */
export const isCanonicalUuid = (value: string): boolean => CANONICAL_UUID_PATTERN.test(value);

/** Canonical lower-case 8-4-4-4-12 form of a uuid (dashes optional, any case), or null when it is not one. */
export function canonicalUuid(value: string): string | null {
  if (!UUID_PATTERN.test(value)) return null;
  const hex = value.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** oslo's uuidutils.is_uuid_like, which Placement's query strings use: 32 hex digits once urn:, uuid:, braces and dashes are dropped. */
export function isUuidLike(value: string): boolean {
  const hex = value.replace(/urn:/g, '').replace(/uuid:/g, '').replace(/^[{}]+|[{}]+$/g, '').replace(/-/g, '');
  return /^[0-9a-fA-F]{32}$/.test(hex);
}

/** str(uuid.UUID(value)) of a value isUuidLike accepts: its 32 hex digits in the canonical lower-case 8-4-4-4-12 form; null for any other value. */
export function pyUuidString(value: string): string | null {
  if (!isUuidLike(value)) return null;
  const hex = value.replace(/urn:/g, '').replace(/uuid:/g, '').replace(/^[{}]+|[{}]+$/g, '').replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Edits from a to b (insert, delete, replace, swap two neighbours), counted up to max + 1. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
