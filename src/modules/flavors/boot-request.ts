// The allocation-candidate request Nova 26 (Zed) builds for a server create from a flavor and an image:
// nova.scheduler.utils.ResourceRequest.from_request_spec after the default request filters, with its
// query string, the PCPU->VCPU fallback query, Nova's warnings, and the API checks of POST /servers
// that concern the request.
import { isStandardResourceClass } from '../../catalog/index.js';
import { codePointOrder, pyInt, pyRepr, pyStrip } from '../../rules/python.js';
import type { CandidatesRequestInput } from '../candidates/candidates.types.js';
import { flexibleBool, ImageMetaError, imageProp, parseImageMeta, type NovaImageMeta } from '../images/nova-image-meta.js';

export interface FlavorSpec {
  name: string;
  vcpus: number;
  memoryMb: number;
  rootGb: number;
  ephemeralGb: number;
  swapMb: number;
  /** In the flavor's order (Nova reads them as a dict). */
  extraSpecs: readonly (readonly [string, string])[];
}

export interface ImageSpec {
  uuid: string;
  name: string;
  properties: readonly (readonly [string, string])[];
}

export interface BootRequestOptions {
  /** Boot from volume: the flavor's root disk is not asked for. */
  bootFromVolume?: boolean;
}

export interface BootRequestGroup {
  /** null = the unsuffixed group. */
  suffix: string | null;
  /** Sorted by resource class. */
  resources: { resourceClass: string; amount: number }[];
  required: string[];
  forbidden: string[];
}

export interface PlacementQuery {
  /** The unsuffixed group first, then by suffix. */
  groups: BootRequestGroup[];
  groupPolicy: 'none' | 'isolate' | null;
  rootRequired: string[];
  rootForbidden: string[];
  limit: number;
  cpuPinningRequested: boolean;
  /** GET /allocation_candidates?<query>, exactly as Nova's ResourceRequest.to_querystring writes it. */
  query: string;
  /** The same request in the candidates search's shape. */
  candidatesRequest: CandidatesRequestInput;
}

export interface BootRequest extends PlacementQuery {
  /** The second query Nova's scheduler sends when CPU pinning is requested (PCPU asked as VCPU). */
  fallback: PlacementQuery | null;
  /** Traits the image requires (trait:NAME=required), sorted. */
  imageTraitsRequired: string[];
  /** What Nova logs as warnings while building the request (ignored extra specs...). */
  warnings: string[];
  /** Why POST /servers would answer 400 before scheduling, or null (for the checks reproduced here). */
  apiError: string | null;
}

/** Nova cannot build the request (a conflict or an invalid value): its error text. */
export class BootRequestError extends Error {}

/** [scheduler]max_placement_results */
export const MAX_PLACEMENT_RESULTS = 1000;
const MAX_CPU_RANGE = 65536;
const XS_KEYPAT = /^(resources|trait)([a-zA-Z0-9_-]{1,64})?:([^\n]*)\n?$/;
const CPU_POLICIES = ['dedicated', 'shared', 'mixed'];
const THREAD_POLICIES = ['prefer', 'isolate', 'require'];
const EMULATOR_POLICIES = ['share', 'isolate'];
const PCI_NUMA_POLICIES = ['required', 'legacy', 'preferred', 'socket'];
const TPM_VERSIONS = ['1.2', '2.0'];
const TPM_MODELS = ['tpm-tis', 'tpm-crb'];
const SECURE_BOOT = ['required', 'disabled', 'optional'];
const EPHEMERAL_FORMATS = ['plain', 'luks', 'luksv2'];
const tuple = (values: string[]) => `(${values.map((v) => `'${v}'`).join(', ')})`;
const pyStr = (value: unknown) => (value === true ? 'True' : value === false ? 'False' : String(value));

class RequestGroup {
  resources = new Map<string, number>();
  required = new Set<string>();
  forbidden = new Set<string>();
  isEmpty = () => this.resources.size === 0 && this.required.size === 0 && this.forbidden.size === 0;
}

/** What the request is built from: the flavor, the image as Nova reads it, and the log. */
class Inputs {
  readonly specs: Map<string, string>;
  constructor(
    readonly flavor: FlavorSpec,
    readonly imageName: string,
    readonly imageId: string,
    readonly image: NovaImageMeta,
  ) {
    this.specs = new Map(flavor.extraSpecs);
  }
  /** _get_flavor_image_meta: the hw:<key> extra spec and the hw_<key> image property. */
  both(key: string, prefix = 'hw'): [string | undefined, ReturnType<typeof imageProp>] {
    return [this.specs.get(`${prefix}:${key}`), imageProp(this.image, `${prefix}_${key}`)];
  }
  /** _get_unique_flavor_image_meta: either one, but not two different ones. */
  unique(key: string, prefix = 'hw') {
    const [flavorValue, imageValue] = this.both(key, prefix);
    if (imageValue && flavorValue && imageValue !== flavorValue) {
      throw new BootRequestError(
        `Flavor ${this.flavor.name} has ${prefix}:${key} extra spec explicitly set to ${flavorValue}, conflicting with image ${this.imageName} which has ${prefix}_${key} explicitly set to ${pyStr(imageValue)}.`,
      );
    }
    return flavorValue || imageValue || undefined;
  }
}

class ResourceRequest {
  groups = new Map<string | null, RequestGroup>();
  groupPolicy: 'none' | 'isolate' | null = null;
  cpuPinningRequested = false;

  constructor(private readonly warnings: string[]) {}

  group(suffix: string | null) {
    let group = this.groups.get(suffix);
    if (!group) this.groups.set(suffix, (group = new RequestGroup()));
    return group;
  }

  /** RequestGroup.add_resource: unknown classes and bad amounts are logged and skipped. */
  addResource(resourceClass: string, amount: string | number, suffix: string | null = null) {
    const group = this.group(suffix);
    if (!resourceClass.startsWith('CUSTOM_') && !isStandardResourceClass(resourceClass)) {
      this.warnings.push(`Received an invalid ResourceClass '${resourceClass}' in extra_specs.`);
      return;
    }
    const n = typeof amount === 'number' ? BigInt(amount) : pyInt(amount);
    if (n === null || n < 0n) {
      this.warnings.push(`Resource amounts must be nonnegative integers. Received '${n ?? amount}'`);
      return;
    }
    group.resources.set(resourceClass, Number(n));
  }

  addTrait(trait: string, kind: string, suffix: string | null = null) {
    const group = this.group(suffix);
    if (kind === 'required') group.required.add(trait);
    else if (kind === 'forbidden') group.forbidden.add(trait);
    else this.warnings.push(`Only (required, forbidden) traits are supported. Received '${kind}'.`);
  }

  mergedResources() {
    const merged = new Map<string, number>();
    for (const g of this.groups.values()) for (const [rc, n] of g.resources) merged.set(rc, (merged.get(rc) ?? 0) + n);
    return merged;
  }

  stripZeros() {
    for (const g of this.groups.values()) for (const [rc, n] of g.resources) if (n === 0) g.resources.delete(rc);
    for (const [suffix, g] of this.groups) if (g.isEmpty()) this.groups.delete(suffix);
  }

  suffixedGroups = () => [...this.groups.keys()].filter((s) => s !== null).length;
}

// ---- nova.virt.hardware: the constraints the request depends on ------------------------------------

/** hardware.parse_cpu_spec */
export function parseCpuSpec(spec: string): Set<number> {
  const ids = new Set<number>();
  const rejected = new Set<number>();
  const int = (text: string, error: string) => {
    const n = pyInt(text);
    if (n === null) throw new BootRequestError(error);
    return Number(n);
  };
  for (let rule of spec.split(',')) {
    rule = pyStrip(rule);
    if (rule.length < 1) continue;
    const dash = rule.indexOf('-');
    if (dash >= 0) {
      let first = rule.slice(0, dash);
      const reject = first.startsWith('^');
      if (reject) first = first.slice(1);
      const error = `Invalid range expression ${pyRepr(rule)}`;
      const start = int(pyStrip(first), error);
      const end = int(pyStrip(rule.slice(dash + 1)), error);
      if (start > end) throw new BootRequestError(error);
      // Nova would try to list them all; refuse before exhausting memory.
      if (end - start > MAX_CPU_RANGE) throw new BootRequestError(`CPU range ${pyRepr(rule)} is larger than ${MAX_CPU_RANGE}`);
      for (let i = start; i <= end; i++) (reject ? rejected : ids).add(i);
    } else if (rule.startsWith('^')) {
      rejected.add(int(pyStrip(rule.slice(1)), `Invalid exclusion expression ${pyRepr(rule)}`));
    } else {
      ids.add(int(rule, `Invalid inclusion expression ${pyRepr(rule)}`));
    }
  }
  for (const id of rejected) ids.delete(id);
  return ids;
}

function cpuPolicy(inputs: Inputs): string | null {
  const [flavorPolicy, imagePolicy] = inputs.both('cpu_policy') as [string | undefined, string | undefined];
  if (flavorPolicy && !CPU_POLICIES.includes(flavorPolicy)) {
    throw new BootRequestError(`CPU policy requested from 'flavor extra specs' is invalid, given: '${flavorPolicy}', available: '${tuple(CPU_POLICIES)}'.`);
  }
  const forbidden = "Image property 'hw_cpu_policy' is not permitted to override CPU pinning policy set against the flavor";
  if (flavorPolicy === 'dedicated') return flavorPolicy;
  if (flavorPolicy === 'mixed') {
    if (imagePolicy === 'dedicated') throw new BootRequestError(forbidden);
    return flavorPolicy;
  }
  if (flavorPolicy === 'shared') {
    if (imagePolicy === 'mixed' || imagePolicy === 'dedicated') throw new BootRequestError(forbidden);
    return flavorPolicy;
  }
  return imagePolicy ?? null;
}

function threadPolicy(inputs: Inputs): string | null {
  const [flavorPolicy, imagePolicy] = inputs.both('cpu_thread_policy') as [string | undefined, string | undefined];
  if (flavorPolicy && !THREAD_POLICIES.includes(flavorPolicy)) {
    throw new BootRequestError(`CPU thread policy requested from 'flavor extra specs' is invalid, given: '${flavorPolicy}', available: '${tuple(THREAD_POLICIES)}'.`);
  }
  if (flavorPolicy === undefined || flavorPolicy === 'prefer') return flavorPolicy || imagePolicy || null;
  if (imagePolicy && imagePolicy !== flavorPolicy) {
    throw new BootRequestError("Image property 'hw_cpu_thread_policy' is not permitted to override CPU thread pinning policy set against the flavor");
  }
  return flavorPolicy || null;
}

function emulatorThreadsPolicy(inputs: Inputs): string | null {
  const policy = inputs.specs.get('hw:emulator_threads_policy');
  if (!policy) return null;
  if (!EMULATOR_POLICIES.includes(policy)) {
    throw new BootRequestError(`CPU emulator threads option requested is invalid, given: '${policy}', available: '${tuple(EMULATOR_POLICIES)}'.`);
  }
  return policy;
}

/** A CPU mask relative to the flavor's vCPUs ("^0" = all but 0). */
const parseMask = (mask: string, vcpus: number) => (pyStrip(mask).startsWith('^') ? parseCpuSpec(`0-${vcpus - 1},${mask}`) : parseCpuSpec(mask));

function dedicatedCpus(inputs: Inputs): Set<number> | null {
  const mask = inputs.specs.get('hw:cpu_dedicated_mask');
  if (!mask) return null;
  const vcpus = inputs.flavor.vcpus;
  const pcpus = parseMask(mask, vcpus);
  const unpinned = [...Array(vcpus).keys()].filter((c) => !pcpus.has(c));
  if (pcpus.size === 0 || unpinned.length === 0) throw new BootRequestError("Mixed instance must have at least 1 pinned vCPU and 1 unpinned vCPU. See 'hw:cpu_dedicated_mask'.");
  if ([...pcpus].some((c) => c < 0 || c >= vcpus)) {
    throw new BootRequestError('Mixed instance dedicated vCPU(s) mask is not a subset of vCPUs in the flavor. See "hw:cpu_dedicated_mask"');
  }
  return pcpus;
}

function realtimeCpus(inputs: Inputs): Set<number> | null {
  if (!flexibleBool(inputs.specs.get('hw:cpu_realtime') ?? '')) return null;
  const [flavorMask, imageMask] = inputs.both('cpu_realtime_mask') as [string | undefined, string | undefined];
  const mask = imageMask || flavorMask;
  const vcpus = inputs.flavor.vcpus;
  const realtime = mask ? parseMask(mask, vcpus) : new Set(Array(vcpus).keys());
  const invalid = 'Use of realtime CPUs requires either one or more non-realtime CPU(s) or offloaded emulator threads.';
  if (realtime.size === 0) throw new BootRequestError(invalid);
  const emulator = emulatorThreadsPolicy(inputs);
  const all = realtime.size === vcpus && [...realtime].every((c) => c >= 0 && c < vcpus);
  if (all && !emulator) throw new BootRequestError(invalid);
  if ([...realtime].some((c) => c < 0 || c >= vcpus)) {
    throw new BootRequestError(
      'Realtime policy vCPU(s) mask is configured with RT vCPUs that are not a subset of the vCPUs in the flavor. See hw:cpu_realtime_mask or hw_cpu_realtime_mask',
    );
  }
  return realtime;
}

function memoryEncryption(inputs: Inputs): boolean {
  const [flavorText, imageValue] = inputs.both('mem_encryption') as [string | undefined, boolean | undefined];
  const flavorValue = flavorText === undefined ? undefined : flexibleBool(flavorText);
  if (!flavorValue && !imageValue) return false;
  if (flavorValue !== undefined && imageValue !== undefined && flavorValue !== imageValue) {
    throw new BootRequestError(
      `Flavor ${inputs.flavor.name} has hw:mem_encryption extra spec explicitly set to ${flavorText}, conflicting with image ${inputs.imageName} which has hw_mem_encryption property explicitly set to ${pyStr(imageValue)}`,
    );
  }
  const requesters = [];
  if (flavorValue) requesters.push(`hw:mem_encryption extra spec in ${inputs.flavor.name} flavor`);
  if (imageValue) requesters.push(`hw_mem_encryption property of image ${inputs.imageId}`);
  if (imageProp(inputs.image, 'hw_firmware_type') !== 'uefi') {
    throw new BootRequestError(`Memory encryption requested by ${requesters.join(' and ')} but image ${inputs.imageName} doesn't have 'hw_firmware_type' property set to 'uefi'`);
  }
  const machineType = imageProp(inputs.image, 'hw_machine_type');
  if (machineType !== undefined && !String(machineType).includes('q35')) {
    throw new BootRequestError(`Machine type '${machineType}' is not compatible with image ${inputs.imageName} (${inputs.imageId}): q35 type is required for SEV to work`);
  }
  return true;
}

function vtpm(inputs: Inputs): string | null {
  const version = inputs.unique('tpm_version') as string | undefined;
  if (version === undefined) return null;
  if (!TPM_VERSIONS.includes(version)) throw new BootRequestError(`Invalid TPM version '${version}'. Allowed values: ${TPM_VERSIONS.join(', ')}.`);
  const model = inputs.unique('tpm_model') as string | undefined;
  if (model !== undefined && !TPM_MODELS.includes(model)) throw new BootRequestError(`Invalid TPM model '${model}'. Allowed values: ${TPM_MODELS.join(', ')}.`);
  if (model === 'tpm-crb' && version !== '2.0') throw new BootRequestError('TPM model CRB is only valid with TPM version 2.0.');
  return version;
}

function pciNumaPolicy(inputs: Inputs): string | null {
  const [flavorPolicy, imagePolicy] = inputs.both('pci_numa_affinity_policy') as [string | undefined, string | undefined];
  if (flavorPolicy && imagePolicy && flavorPolicy !== imagePolicy) {
    throw new BootRequestError("Image property 'hw_pci_numa_affinity_policy' is not permitted to override the 'hw:pci_numa_affinity_policy' flavor extra spec.");
  }
  const policy = flavorPolicy || imagePolicy;
  if (policy && !PCI_NUMA_POLICIES.includes(policy)) throw new BootRequestError(`Invalid PCI NUMA affinity configured: ${policy}`);
  return policy || null;
}

function secureBoot(inputs: Inputs): string | null {
  const policy = inputs.unique('secure_boot', 'os') as string | undefined;
  if (policy === undefined) return null;
  if (!SECURE_BOOT.includes(policy)) throw new BootRequestError(`Invalid secure boot policy '${policy}'. Allowed values: ${SECURE_BOOT.join(', ')}.`);
  return policy;
}

function ephemeralEncryption(inputs: Inputs): boolean {
  const [flavorText, imageValue] = inputs.both('ephemeral_encryption') as [string | undefined, boolean | undefined];
  const flavorValue = flavorText === undefined ? undefined : flexibleBool(flavorText);
  if (flavorValue !== undefined && imageValue !== undefined && flavorValue !== imageValue) {
    throw new BootRequestError(
      `Flavor ${inputs.flavor.name} has hw:ephemeral_encryption extra spec explicitly set to ${flavorText}, conflicting with image ${inputs.imageName} which has hw_eph_encryption property explicitly set to ${pyStr(imageValue)}`,
    );
  }
  return !!(flavorValue || imageValue);
}

function ephemeralEncryptionFormat(inputs: Inputs): string | null {
  const format = inputs.unique('ephemeral_encryption_format') as string | undefined;
  if (!format) return null;
  if (!EPHEMERAL_FORMATS.includes(format)) throw new BootRequestError(`Invalid ephemeral encryption format ${format}. Allowed values: ${EPHEMERAL_FORMATS.join(', ')}`);
  return format;
}

/** hardware.get_vpmems: the labels of hw:pmem. */
const vpmemLabels = (inputs: Inputs) => (inputs.specs.get('hw:pmem') ?? '').split(',').map(pyStrip).filter((l) => l);

// ---- ResourceRequest.from_request_spec -------------------------------------------------------------

function fromRequestSpec(inputs: Inputs, options: BootRequestOptions, translatePinning: boolean, warnings: string[]): ResourceRequest {
  const rr = new ResourceRequest(warnings);
  const { flavor } = inputs;
  for (const [key, value] of inputs.flavor.extraSpecs) {
    if (key === 'group_policy') {
      if (value === 'none' || value === 'isolate') rr.groupPolicy = value;
      else warnings.push(`Invalid group_policy '${value}'. Valid values are 'none' and 'isolate'.`);
      continue;
    }
    const match = XS_KEYPAT.exec(key);
    if (!match) continue;
    const [, prefix, suffix = null, name] = match;
    if (prefix === 'resources') rr.addResource(name, value, suffix);
    else rr.addTrait(name, value, suffix);
  }
  for (const trait of inputs.image.traitsRequired) rr.addTrait(trait, 'required');

  if (translatePinning) {
    const policy = cpuPolicy(inputs);
    const threads = threadPolicy(inputs);
    const emulator = emulatorThreadsPolicy(inputs);
    let pcpus = 0;
    if (policy === 'dedicated') {
      rr.cpuPinningRequested = true;
      pcpus = flavor.vcpus;
    }
    if (policy === 'mixed') {
      const dedicated = dedicatedCpus(inputs);
      const realtime = realtimeCpus(inputs);
      pcpus = (dedicated ?? realtime ?? new Set()).size;
      rr.addResource('VCPU', flavor.vcpus - pcpus);
    }
    if (policy === 'dedicated' || policy === 'mixed') {
      if (emulator === 'isolate') pcpus += 1;
      rr.addResource('PCPU', pcpus);
    }
    const trait = threads === 'isolate' ? 'forbidden' : threads === 'require' ? 'required' : null;
    if (trait) rr.addTrait('HW_CPU_HYPERTHREADING', trait);
  }

  const merged = rr.mergedResources();
  if (!merged.has('VCPU') && !merged.has('PCPU')) rr.addResource('VCPU', flavor.vcpus);
  if (!merged.has('MEMORY_MB')) rr.addResource('MEMORY_MB', flavor.memoryMb);
  if (!merged.has('DISK_GB')) {
    const disk = flavor.ephemeralGb + Math.ceil(flavor.swapMb / 1024) + (options.bootFromVolume ? 0 : flavor.rootGb);
    if (disk) rr.addResource('DISK_GB', disk);
  }
  if (memoryEncryption(inputs)) rr.addResource('MEM_ENCRYPTION_CONTEXT', 1);
  const pmem = new Map<string, number>();
  for (const label of vpmemLabels(inputs)) {
    const rc = 'CUSTOM_' + `PMEM_NAMESPACE_${label}`.replace(/[^0-9A-Za-z]+/g, '_').toUpperCase();
    pmem.set(rc, (pmem.get(rc) ?? 0) + 1);
  }
  for (const [rc, n] of pmem) rr.addResource(rc, n);
  const tpm = vtpm(inputs);
  if (tpm) rr.addTrait(tpm === '1.2' ? 'COMPUTE_SECURITY_TPM_1_2' : 'COMPUTE_SECURITY_TPM_2_0', 'required');
  if (pciNumaPolicy(inputs) === 'socket') rr.addTrait('COMPUTE_SOCKET_PCI_NUMA_AFFINITY', 'required');
  if (secureBoot(inputs) === 'required') rr.addTrait('COMPUTE_SECURITY_UEFI_SECURE_BOOT', 'required');
  rr.stripZeros();
  return rr;
}

// ---- the query string ------------------------------------------------------------------------------

/** urllib.parse.quote_plus: only letters, digits and _.-~ stay as they are. */
const quotePlus = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((b) => (b === 0x20 ? '+' : /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

const sorted = (values: Iterable<string>) => [...values].sort(codePointOrder);

function describe(rr: ResourceRequest, rootRequired: Set<string>, rootForbidden: Set<string>): PlacementQuery {
  const groups = [...rr.groups]
    .sort(([a], [b]) => (a === null ? -1 : b === null ? 1 : codePointOrder(a, b)))
    .map(([suffix, g]) => ({
      suffix,
      resources: sorted(g.resources.keys()).map((rc) => ({ resourceClass: rc, amount: g.resources.get(rc)! })),
      required: sorted(g.required),
      forbidden: sorted(g.forbidden),
    }));
  const params: [string, string][] = [['limit', String(MAX_PLACEMENT_RESULTS)]];
  if (rr.groupPolicy) params.push(['group_policy', rr.groupPolicy]);
  if (rootRequired.size || rootForbidden.size) params.push(['root_required', [...sorted(rootRequired), ...sorted(rootForbidden).map((t) => `!${t}`)].join(',')]);
  for (const g of groups) {
    const suffix = g.suffix ?? '';
    params.push([`resources${suffix}`, sorted(g.resources.map((r) => `${r.resourceClass}:${r.amount}`)).join(',')]);
    const traits = [...g.required, ...g.forbidden.map((t) => `!${t}`)].join(',');
    if (traits) params.push([`required${suffix}`, traits]);
  }
  params.sort(([k1, v1], [k2, v2]) => codePointOrder(k1, k2) || codePointOrder(v1, v2));
  return {
    groups,
    groupPolicy: rr.groupPolicy,
    rootRequired: sorted(rootRequired),
    rootForbidden: sorted(rootForbidden),
    limit: MAX_PLACEMENT_RESULTS,
    cpuPinningRequested: rr.cpuPinningRequested,
    query: params.map(([k, v]) => `${quotePlus(k)}=${quotePlus(v)}`).join('&'),
    candidatesRequest: {
      groups: groups.map((g) => ({ suffix: g.suffix, resources: g.resources, required: g.required, forbidden: g.forbidden })),
      groupPolicy: rr.groupPolicy === 'isolate' ? 'ISOLATE' : rr.groupPolicy === 'none' ? 'NONE' : null,
      rootRequired: sorted(rootRequired),
      rootForbidden: sorted(rootForbidden),
      limit: MAX_PLACEMENT_RESULTS,
    },
  };
}

// ---- the API checks of POST /servers that concern the request -------------------------------------

/** Requested VCPU and PCPU from resources[N]:VCPU|PCPU (numeric suffixes only, as the API reads them). */
function explicitCpuResources(inputs: Inputs) {
  let vcpus = 0n;
  let pcpus = 0n;
  for (const [key, value] of inputs.flavor.extraSpecs) {
    const n = pyInt(value);
    if (n === null) continue;
    if (/^resources([1-9][0-9]*)?:VCPU/.test(key)) vcpus += n;
    if (/^resources([1-9][0-9]*)?:PCPU/.test(key)) pcpus += n;
  }
  return { vcpus: Number(vcpus), pcpus: Number(pcpus) };
}

function hyperthreadingTrait(inputs: Inputs): string | null {
  for (const [key, value] of inputs.flavor.extraSpecs) if (/^trait([1-9][0-9]*)?:HW_CPU_HYPERTHREADING/.test(key)) return value;
  return inputs.image.traitsRequired.includes('HW_CPU_HYPERTHREADING') ? 'required' : null;
}

/** API._validate_flavor_image_numa_pci and get_pci_numa_policy_constraint, without the NUMA topology. */
function apiChecks(inputs: Inputs) {
  memoryEncryption(inputs);
  const [pmuText, pmuImage] = inputs.both('pmu');
  const pmuFlavor = pmuText === undefined ? undefined : flexibleBool(pmuText);
  if (pmuImage !== undefined && pmuFlavor !== undefined && pmuImage !== pmuFlavor) {
    throw new BootRequestError(
      `Flavor ${inputs.flavor.name} has hw:pmu extra spec explicitly set to ${pyStr(pmuFlavor)}, conflicting with image ${inputs.imageName} which has hw_pmu explicitly set to ${pyStr(pmuImage)}.`,
    );
  }
  realtimeCpus(inputs);
  // numa_get_constraints, the CPU policy part
  let policy = cpuPolicy(inputs);
  let threads = threadPolicy(inputs);
  const realtime = realtimeCpus(inputs);
  const dedicated = dedicatedCpus(inputs);
  const emulator = emulatorThreadsPolicy(inputs);
  const explicit = explicitCpuResources(inputs);
  if (policy && (explicit.vcpus || explicit.pcpus)) {
    throw new BootRequestError(
      "It is not possible to use the 'resources:VCPU' or 'resources:PCPU' extra specs in combination with the 'hw:cpu_policy' extra spec or 'hw_cpu_policy' image metadata property; use one or the other",
    );
  }
  if (explicit.vcpus && explicit.pcpus) throw new BootRequestError("It is not possible to specify both 'resources:VCPU' and 'resources:PCPU' extra specs; use one or the other");
  if (explicit.pcpus) {
    if (emulator === 'isolate' && inputs.flavor.vcpus + 1 !== explicit.pcpus) {
      throw new BootRequestError(
        "You have requested 'hw:emulator_threads_policy=isolate' but have not requested sufficient PCPUs to handle this policy; you must allocate exactly flavor.vcpus + 1 PCPUs.",
      );
    }
    if (emulator !== 'isolate' && inputs.flavor.vcpus !== explicit.pcpus) {
      throw new BootRequestError("There is a mismatch between the number of PCPUs requested via 'resourcesNN:PCPU' and the flavor); you must allocate exactly flavor.vcpus PCPUs");
    }
    policy = 'dedicated';
  }
  if (explicit.vcpus) policy = 'shared';
  const hyperthreading = hyperthreadingTrait(inputs);
  if (threads && hyperthreading) {
    throw new BootRequestError(
      "It is not possible to use the 'trait:HW_CPU_HYPERTHREADING' extra spec in combination with the 'hw:cpu_thread_policy' extra spec or 'hw_cpu_thread_policy' image metadata property; use one or the other",
    );
  }
  if (hyperthreading === 'forbidden') threads = 'isolate';
  else if (hyperthreading === 'required') threads = 'require';
  if (policy === 'shared' || policy === null) {
    if (threads) throw new BootRequestError('Cannot set cpu thread pinning policy in a non dedicated cpu pinning policy');
    if (emulator === 'isolate') throw new BootRequestError('An isolated CPU emulator threads option requires a dedicated CPU policy option.');
    if (dedicated) throw new BootRequestError("Cannot specify 'hw:cpu_dedicated_mask' without the 'mixed' policy.");
    if (realtime) throw new BootRequestError('Cannot set realtime policy in a non dedicated cpu pinning policy');
  } else if (policy === 'dedicated') {
    if (dedicated) throw new BootRequestError("Cannot specify 'hw:cpu_dedicated_mask' without the 'mixed' policy.");
  } else if ((realtime && dedicated) || !(realtime || dedicated)) {
    throw new BootRequestError(
      "Dedicated CPU set can be specified from either 'hw:cpu_dedicated_mask' or 'hw:cpu_realtime_mask' when using 'mixed' CPU policy. 'hw:cpu_dedicated_mask' and 'hw:cpu_realtime_mask' can not be specified at the same time, or be specified with none of them.",
    );
  }
  pciNumaPolicy(inputs);
}

const GROUP_POLICY_WARNING =
  'There is more than one numbered request group in the allocation candidate query but the flavor did not specify any group policy. This query would fail in placement due to the missing group policy. If you specified more than one numbered request group in the flavor extra_spec then you need to specify the group policy in the flavor extra_spec. If it is OK to let these groups be satisfied by overlapping resource providers then use \'group_policy\': \'none\'. If you want each group to be satisfied from a separate resource provider then use \'group_policy\': \'isolate\'.';

/** Nova's image when the server has none: no properties. */
const NO_IMAGE: ImageSpec = { uuid: '155d900f-4e14-4e4c-a73d-069cbf4541e6', name: 'image', properties: [] };

/**
 * The request Nova's scheduler sends to GET /allocation_candidates for this flavor and image, with the
 * default configuration. Throws BootRequestError when Nova cannot build it (its error text).
 */
export function buildBootRequest(flavor: FlavorSpec, image: ImageSpec | null, options: BootRequestOptions = {}): BootRequest {
  const { uuid, name, properties } = image ?? NO_IMAGE;
  let meta: NovaImageMeta;
  try {
    meta = parseImageMeta(properties);
  } catch (error) {
    if (error instanceof ImageMetaError) throw new BootRequestError(`Invalid image metadata. Error: ${error.message}`);
    throw error;
  }
  const inputs = new Inputs(flavor, name, uuid, meta);
  let apiError: string | null = null;
  try {
    apiChecks(inputs);
  } catch (error) {
    if (!(error instanceof BootRequestError)) throw error;
    apiError = error.message;
  }

  // The request filters that apply with the default configuration.
  const rootRequired = new Set<string>();
  const rootForbidden = new Set(['COMPUTE_STATUS_DISABLED']);
  if (inputs.specs.get('accel:device_profile')) rootRequired.add('COMPUTE_ACCELERATORS');
  if (ephemeralEncryption(inputs)) {
    rootRequired.add('COMPUTE_EPHEMERAL_ENCRYPTION');
    const format = ephemeralEncryptionFormat(inputs);
    if (format) rootRequired.add(`COMPUTE_EPHEMERAL_ENCRYPTION_${format.toUpperCase()}`);
  }

  const warnings: string[] = [];
  const rr = fromRequestSpec(inputs, options, true, warnings);
  if (rr.suffixedGroups() >= 2 && !rr.groupPolicy) warnings.push(GROUP_POLICY_WARNING);
  const fallback = rr.cpuPinningRequested ? describe(fromRequestSpec(inputs, options, false, []), rootRequired, rootForbidden) : null;
  return {
    ...describe(rr, rootRequired, rootForbidden),
    fallback,
    imageTraitsRequired: sorted(new Set(meta.traitsRequired)),
    warnings,
    apiError,
  };
}
