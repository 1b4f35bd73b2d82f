// nova.virt.hardware: the CPU, memory, TPM, PCI and encryption constraints the request depends on.
import { pyInt, pyRepr, pyStrip } from '../../rules/python.js';
import { flexibleBool, imageProp } from '../images/nova-image-meta.js';
import { BootRequestError, tuple, pyStr, Inputs } from './boot-request.model.js';

const MAX_CPU_RANGE = 65536;
const CPU_POLICIES = ['dedicated', 'shared', 'mixed'];
const THREAD_POLICIES = ['prefer', 'isolate', 'require'];
const EMULATOR_POLICIES = ['share', 'isolate'];
const PCI_NUMA_POLICIES = ['required', 'legacy', 'preferred', 'socket'];
const TPM_VERSIONS = ['1.2', '2.0'];
const TPM_MODELS = ['tpm-tis', 'tpm-crb'];
const SECURE_BOOT = ['required', 'disabled', 'optional'];
const EPHEMERAL_FORMATS = ['plain', 'luks', 'luksv2'];

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

export function cpuPolicy(inputs: Inputs): string | null {
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

export function threadPolicy(inputs: Inputs): string | null {
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

export function emulatorThreadsPolicy(inputs: Inputs): string | null {
  const policy = inputs.specs.get('hw:emulator_threads_policy');
  if (!policy) return null;
  if (!EMULATOR_POLICIES.includes(policy)) {
    throw new BootRequestError(`CPU emulator threads option requested is invalid, given: '${policy}', available: '${tuple(EMULATOR_POLICIES)}'.`);
  }
  return policy;
}

/** A CPU mask relative to the flavor's vCPUs ("^0" = all but 0). */
export const parseMask = (mask: string, vcpus: number) => (pyStrip(mask).startsWith('^') ? parseCpuSpec(`0-${vcpus - 1},${mask}`) : parseCpuSpec(mask));

export function dedicatedCpus(inputs: Inputs): Set<number> | null {
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

export function realtimeCpus(inputs: Inputs): Set<number> | null {
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

export function memoryEncryption(inputs: Inputs): boolean {
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

export function vtpm(inputs: Inputs): string | null {
  const version = inputs.unique('tpm_version') as string | undefined;
  if (version === undefined) return null;
  if (!TPM_VERSIONS.includes(version)) throw new BootRequestError(`Invalid TPM version '${version}'. Allowed values: ${TPM_VERSIONS.join(', ')}.`);
  const model = inputs.unique('tpm_model') as string | undefined;
  if (model !== undefined && !TPM_MODELS.includes(model)) throw new BootRequestError(`Invalid TPM model '${model}'. Allowed values: ${TPM_MODELS.join(', ')}.`);
  if (model === 'tpm-crb' && version !== '2.0') throw new BootRequestError('TPM model CRB is only valid with TPM version 2.0.');
  return version;
}

export function pciNumaPolicy(inputs: Inputs): string | null {
  const [flavorPolicy, imagePolicy] = inputs.both('pci_numa_affinity_policy') as [string | undefined, string | undefined];
  if (flavorPolicy && imagePolicy && flavorPolicy !== imagePolicy) {
    throw new BootRequestError("Image property 'hw_pci_numa_affinity_policy' is not permitted to override the 'hw:pci_numa_affinity_policy' flavor extra spec.");
  }
  const policy = flavorPolicy || imagePolicy;
  if (policy && !PCI_NUMA_POLICIES.includes(policy)) throw new BootRequestError(`Invalid PCI NUMA affinity configured: ${policy}`);
  return policy || null;
}

export function secureBoot(inputs: Inputs): string | null {
  const policy = inputs.unique('secure_boot', 'os') as string | undefined;
  if (policy === undefined) return null;
  if (!SECURE_BOOT.includes(policy)) throw new BootRequestError(`Invalid secure boot policy '${policy}'. Allowed values: ${SECURE_BOOT.join(', ')}.`);
  return policy;
}

export function ephemeralEncryption(inputs: Inputs): boolean {
  const [flavorText, imageValue] = inputs.both('ephemeral_encryption') as [string | undefined, boolean | undefined];
  const flavorValue = flavorText === undefined ? undefined : flexibleBool(flavorText);
  if (flavorValue !== undefined && imageValue !== undefined && flavorValue !== imageValue) {
    throw new BootRequestError(
      `Flavor ${inputs.flavor.name} has hw:ephemeral_encryption extra spec explicitly set to ${flavorText}, conflicting with image ${inputs.imageName} which has hw_eph_encryption property explicitly set to ${pyStr(imageValue)}`,
    );
  }
  return !!(flavorValue || imageValue);
}

export function ephemeralEncryptionFormat(inputs: Inputs): string | null {
  const format = inputs.unique('ephemeral_encryption_format') as string | undefined;
  if (!format) return null;
  if (!EPHEMERAL_FORMATS.includes(format)) throw new BootRequestError(`Invalid ephemeral encryption format ${format}. Allowed values: ${EPHEMERAL_FORMATS.join(', ')}`);
  return format;
}

/** hardware.get_vpmems: the labels of hw:pmem. */
export const vpmemLabels = (inputs: Inputs) => (inputs.specs.get('hw:pmem') ?? '').split(',').map(pyStrip).filter((l) => l);
