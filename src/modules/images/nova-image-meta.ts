// Image properties as Nova reads them (nova.objects.ImageMeta.from_dict): typed fields, legacy names,
// and `trait:NAME=required` keys. Nova refuses a server create when a typed property does not convert.
import catalog from './nova-image-properties.json' with { type: 'json' };
import { pyInt, pyRepr, pyStrip } from '../../rules/python.js';
import { editDistance } from '../../rules/names.js';

export type ImagePropertyValue = string | number | boolean;

interface TypedField {
  name: string;
  kind: string;
  values?: string[];
}

const TYPED_FIELDS = new Map<string, TypedField>((catalog.fields as TypedField[]).map((f) => [f.name, f]));
const LEGACY_NAMES: Record<string, string> = catalog.legacyNames;
const TRUE_STRINGS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);
/** Cells Nova reads from hw_numa_mem.N (ImageMetaProps.NUMA_NODES_MAX). */
const NUMA_NODES_MAX = 128;

/** oslo_utils.strutils.bool_from_string(value) without strict: anything unknown is false. */
export const flexibleBool = (value: string) => TRUE_STRINGS.has(pyStrip(value).toLowerCase());

/** A property value Nova cannot convert: the text of its ValueError. */
export class ImageMetaError extends Error {}

function canonicalArchitecture(value: string): string {
  const name = value.toLowerCase();
  if (['i386', 'i486', 'i586', 'x86_32', 'x86_32p'].includes(name)) return 'i686';
  if (name === 'amd64') return 'x86_64';
  return name;
}

function coerce(field: TypedField, value: string): ImagePropertyValue {
  switch (field.kind) {
    case 'bool':
      return flexibleBool(value);
    case 'int': {
      const n = pyInt(value);
      if (n === null) throw new ImageMetaError(`invalid literal for int() with base 10: ${pyRepr(value)}`);
      return Number(n);
    }
    case 'architecture': {
      const arch = canonicalArchitecture(value);
      if (!field.values!.includes(arch)) throw new ImageMetaError(`Architecture name '${value}' is not valid`);
      return arch;
    }
    default:
      if (!field.values!.includes(value)) throw new ImageMetaError(`Field value ${value} is invalid`);
      return value;
  }
}

const setField = (props: Map<string, ImagePropertyValue>, name: string, value: string) => {
  const field = TYPED_FIELDS.get(name);
  props.set(name, field ? coerce(field, value) : value);
};

export interface NovaImageMeta {
  /** Property values by Nova's field names (typed fields converted). */
  props: Map<string, ImagePropertyValue>;
  /** Names from `trait:NAME` keys whose value is exactly `required`, in property order. */
  traitsRequired: string[];
}

/**
 * ImageMetaProps.from_dict: legacy names first, then the current names (so they win), then traits.
 * Throws ImageMetaError with Nova's text for the first value that does not convert.
 */
export function parseImageMeta(properties: readonly (readonly [string, string])[]): NovaImageMeta {
  const given = new Map(properties);
  const props = new Map<string, ImagePropertyValue>();
  for (const [legacy, current] of Object.entries(LEGACY_NAMES)) {
    if (given.has(legacy)) setField(props, current, given.get(legacy)!);
  }
  const adapter = given.get('vmware_adaptertype');
  if (adapter === 'ide') props.set('hw_disk_bus', 'ide');
  else if (adapter) {
    props.set('hw_disk_bus', 'scsi');
    setField(props, 'hw_scsi_model', adapter);
  }
  for (const name of TYPED_FIELDS.keys()) if (given.has(name)) setField(props, name, given.get(name)!);
  for (let cell = 0; cell < NUMA_NODES_MAX && given.has(`hw_numa_mem.${cell}`); cell++) {
    const value = given.get(`hw_numa_mem.${cell}`)!;
    if (pyInt(value) === null) throw new ImageMetaError(`invalid literal for int() with base 10: ${pyRepr(value)}`);
  }
  // Untyped fields keep their text (a current name beats its legacy one); Nova never reads unknown keys.
  for (const [key, value] of given) if (!TYPED_FIELDS.has(key)) props.set(key, value);
  const traitsRequired = properties.filter(([key, value]) => key.startsWith('trait:') && value === 'required').map(([key]) => key.slice(6));
  return { props, traitsRequired };
}

/** The value Nova's ImageMetaProps.get(name) returns, or undefined when unset. */
export const imageProp = (meta: NovaImageMeta, name: string) => meta.props.get(name);

/**
 * Nova's ImageMetaProps fields (Zed) that the typed catalog above leaves out: free-form strings,
 * lists and the fields set from other keys. With the typed fields and the legacy names, every key
 * Nova reads from an image.
 */
const UNTYPED_FIELDS = [
  'hw_auto_disk_config', 'hw_cpu_realtime_mask', 'hw_disk_type', 'hw_machine_type', 'hw_mem_page_size', 'hw_numa_cpus', 'hw_numa_mem',
  'hw_vm_mode', 'hw_virtio_packed_ring', 'hw_floppy_bus', 'hw_cpu_max_cores', 'hw_cpu_max_threads', 'hw_tpm_version', 'hw_ephemeral_encryption_format',
  'img_block_device_mapping', 'img_hv_requested_version', 'img_hv_type', 'img_mappings', 'img_owner_id', 'img_root_device_name',
  'img_signature', 'img_signature_certificate_uuid', 'os_admin_user', 'os_command_line', 'os_distro', 'traits_required',
];

const KNOWN_KEYS = new Set([...TYPED_FIELDS.keys(), ...Object.keys(LEGACY_NAMES), ...UNTYPED_FIELDS]);
/** Nova's own prefixes (hardware, image handling, guest OS); keys outside them are other services' or the operator's. */
const NOVA_PREFIX = /^(hw|img|os)_/;

/**
 * The property Nova reads that this key misspells (hw_cpu_polcy: hw_cpu_policy), or null: a key
 * with Nova's prefix that Nova does not read and that is one edit (a letter added, dropped,
 * replaced, or two swapped) from one it does. Nova ignores such a key without a word.
 */
export function misspelledProperty(key: string): string | null {
  const base = key.replace(/\.\d+$/, '');
  if (!NOVA_PREFIX.test(base) || KNOWN_KEYS.has(base) || base.startsWith('os_glance_')) return null;
  for (const known of KNOWN_KEYS) if (editDistance(base, known, 1) <= 1) return known;
  return null;
}
