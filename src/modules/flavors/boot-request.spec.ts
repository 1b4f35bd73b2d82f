// nova.scheduler.utils.ResourceRequest.from_request_spec: the request groups from the flavor and the image.
import { type BootRequestOptions, Inputs, ResourceRequest } from './boot-request.model.js';
import { cpuPolicy, threadPolicy, emulatorThreadsPolicy, dedicatedCpus, realtimeCpus, memoryEncryption, vtpm, pciNumaPolicy, secureBoot, vpmemLabels } from './boot-request.hardware.js';

const XS_KEYPAT = /^(resources|trait)([a-zA-Z0-9_-]{1,64})?:([^\n]*)\n?$/;

export function fromRequestSpec(inputs: Inputs, options: BootRequestOptions, translatePinning: boolean, warnings: string[]): ResourceRequest {
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
