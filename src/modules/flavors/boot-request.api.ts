// The checks of POST /servers (nova.api.openstack.compute.servers and nova.compute.api) that concern the request.
import { pyInt } from '../../rules/python.js';
import { flexibleBool } from '../images/nova-image-meta.js';
import { BootRequestError, pyStr, Inputs } from './boot-request.model.js';
import { cpuPolicy, threadPolicy, emulatorThreadsPolicy, dedicatedCpus, realtimeCpus, memoryEncryption, pciNumaPolicy } from './boot-request.hardware.js';

/** Requested VCPU and PCPU from resources[N]:VCPU|PCPU (numeric suffixes only, as the API reads them). */
export function explicitCpuResources(inputs: Inputs) {
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

export function hyperthreadingTrait(inputs: Inputs): string | null {
  for (const [key, value] of inputs.flavor.extraSpecs) if (/^trait([1-9][0-9]*)?:HW_CPU_HYPERTHREADING/.test(key)) return value;
  return inputs.image.traitsRequired.includes('HW_CPU_HYPERTHREADING') ? 'required' : null;
}

/** API._validate_flavor_image_numa_pci and get_pci_numa_policy_constraint, without the NUMA topology. */
export function apiChecks(inputs: Inputs) {
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
