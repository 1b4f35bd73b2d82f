#!/usr/bin/env python3
"""Writes cases.json: flavor and image pairs for Nova's request_from_flavor_image oracle (stdlib only)."""
import json
import sys

IMAGE_ID = '6b0f9c3e-2a51-4a5d-9d7e-0c3b8f1e2d4a'
cases = []


def case(name, extra_specs=None, properties=None, vcpus=2, ram=2048, disk=20, ephemeral=0, swap=0, is_bfv=False, image=True):
    c = {'id': name, 'flavor': {'name': 'fl-' + name, 'vcpus': vcpus, 'ram': ram, 'disk': disk, 'ephemeral': ephemeral,
                                'swap': swap, 'extra_specs': extra_specs or {}}}
    if image:
        c['image'] = {'id': IMAGE_ID, 'name': 'img-' + name, 'properties': properties or {}}
    if is_bfv:
        c['is_bfv'] = True
    cases.append(c)


# sizes
case('plain')
case('no-image', image=False)
case('tiny', vcpus=1, ram=64, disk=0)
case('ephemeral-swap', ephemeral=5, swap=512)
case('swap-1025', swap=1025)
case('swap-1', disk=0, swap=1)
case('bfv', is_bfv=True, ephemeral=2)
case('bfv-nodisk', is_bfv=True)
case('big', vcpus=128, ram=1048576, disk=2000, ephemeral=1000, swap=65536)

# resources overrides
case('vcpu-0', {'resources:VCPU': '0'})
case('all-zero', {'resources:VCPU': '0', 'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0'})
case('disk-0', {'resources:DISK_GB': '0'})
case('vcpu-override', {'resources:VCPU': '6', 'resources:MEMORY_MB': '4096'})
case('vcpu-abc', {'resources:VCPU': 'abc'})
case('vcpu-neg', {'resources:VCPU': '-1', 'resources:MEMORY_MB': ' -01 '})
case('vcpu-py-int', {'resources:VCPU': ' 1_0 ', 'resources:DISK_GB': '\u0663'})
case('bad-class', {'resources:FOO': '1', 'resources:custom_bar': '2'})
case('custom', {'resources:CUSTOM_MAGIC': '2', 'resources:CUSTOM_ZERO': '0'})
case('pcpu', {'resources:PCPU': '2'})
case('vgpu-group', {'resources1:VGPU': '1', 'trait1:CUSTOM_GPU_T4': 'required', 'group_policy': 'isolate'})
case('two-groups-no-policy', {'resources1:VGPU': '1', 'resources2:VGPU': '1'})
case('two-groups-none', {'resources1:VCPU': '1', 'resources2:VCPU': '1', 'group_policy': 'none'})
case('named-groups', {'resources_net:NET_BW_EGR_KILOBIT_PER_SEC': '1000', 'trait_net:CUSTOM_PHYSNET_A': 'required',
                      'resources-x:SRIOV_NET_VF': '2', 'group_policy': 'isolate'})
case('long-suffix', {'resources' + 'a' * 64 + ':VGPU': '1', 'resources' + 'b' * 65 + ':VGPU': '1'})
case('zero-group', {'resources1:VGPU': '0', 'resources2:VGPU': '1'})
case('trait-only-group', {'trait1:CUSTOM_X': 'required'})
case('group-mem', {'resources1:MEMORY_MB': '1024', 'resources2:DISK_GB': '5', 'group_policy': 'none'})
case('bad-policy', {'group_policy': 'Isolate', 'resources1:VGPU': '1'})

# traits
case('traits', {'trait:HW_CPU_X86_AVX2': 'required', 'trait:CUSTOM_SLOW': 'forbidden', 'trait:CUSTOM_X': 'preferred'})
case('trait-lower', {'trait:lowercase_trait': 'required', 'trait:CUSTOM_A:B': 'required'})
case('trait-req-forb', {'trait:CUSTOM_A': 'required', 'trait1:CUSTOM_A': 'forbidden', 'resources1:VGPU': '1'})
case('image-traits', properties={'trait:HW_CPU_X86_AVX2': 'required', 'trait:CUSTOM_TRUSTED': 'required'})
case('image-ignored', properties={'trait:CUSTOM_X': 'forbidden', 'trait1:CUSTOM_Y': 'required', 'trait:CUSTOM_Z': 'Required',
                                  'trait_foo:CUSTOM_W': 'required', 'traits:CUSTOM_V': 'required'})
case('image-vs-flavor', {'trait:CUSTOM_X': 'forbidden'}, {'trait:CUSTOM_X': 'required'})
case('image-and-flavor', {'trait:HW_CPU_X86_AVX2': 'required', 'trait1:CUSTOM_GPU': 'required', 'resources1:VGPU': '1'},
     {'trait:HW_CPU_X86_AVX2': 'required', 'trait:COMPUTE_NET_VIF_MODEL_VIRTIO': 'required'})
case('image-granular', {'resources1:VGPU': '1', 'trait1:CUSTOM_GPU': 'required'}, {'trait:CUSTOM_GPU': 'required'})
case('image-lower', properties={'trait:custom_lower': 'required', 'trait:': 'required'})

# CPU policies
case('dedicated', {'hw:cpu_policy': 'dedicated'})
case('dedicated-emulator', {'hw:cpu_policy': 'dedicated', 'hw:emulator_threads_policy': 'isolate'}, vcpus=4)
case('dedicated-isolate', {'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'isolate'})
case('dedicated-require', {'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'require'})
case('dedicated-prefer-image-require', {'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'prefer'}, {'hw_cpu_thread_policy': 'require'})
case('thread-conflict', {'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'isolate'}, {'hw_cpu_thread_policy': 'require'})
case('image-dedicated', properties={'hw_cpu_policy': 'dedicated'})
case('shared-image-dedicated', {'hw:cpu_policy': 'shared'}, {'hw_cpu_policy': 'dedicated'})
case('mixed-image-dedicated', {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0'}, {'hw_cpu_policy': 'dedicated'}, vcpus=4)
case('mixed-mask', {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^0'}, vcpus=4)
case('mixed-mask-range', {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '2-3', 'hw:emulator_threads_policy': 'isolate'}, vcpus=4)
case('mixed-realtime', {'hw:cpu_policy': 'mixed', 'hw:cpu_realtime': 'yes', 'hw:cpu_realtime_mask': '^0-1'}, vcpus=4)
case('mixed-realtime-image-mask', {'hw:cpu_policy': 'mixed', 'hw:cpu_realtime': 'yes', 'hw:cpu_realtime_mask': '^0'},
     {'hw_cpu_realtime_mask': '^0-2'}, vcpus=4)
case('mixed-no-mask', {'hw:cpu_policy': 'mixed'}, vcpus=4)
case('mixed-mask-all', {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0-3'}, vcpus=4)
case('mixed-mask-out', {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0,7'}, vcpus=4)
case('mixed-mask-bad', {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '3-1'}, vcpus=4)
case('mixed-both-masks', {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0', 'hw:cpu_realtime': 'true',
                          'hw:cpu_realtime_mask': '^0'}, vcpus=4)
case('realtime-dedicated', {'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'true', 'hw:cpu_realtime_mask': '^0'}, vcpus=4)
case('realtime-all', {'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'true'}, vcpus=4)
case('realtime-shared', {'hw:cpu_realtime': 'true', 'hw:cpu_realtime_mask': '^0'}, vcpus=4)
case('shared-thread', {'hw:cpu_thread_policy': 'isolate'})
case('shared-emulator', {'hw:emulator_threads_policy': 'isolate'})
case('shared-emulator-share', {'hw:cpu_policy': 'shared', 'hw:emulator_threads_policy': 'share'})
case('mask-without-mixed', {'hw:cpu_policy': 'dedicated', 'hw:cpu_dedicated_mask': '0'}, vcpus=4)
case('policy-and-vcpu', {'hw:cpu_policy': 'dedicated', 'resources:VCPU': '2'})
case('vcpu-and-pcpu', {'resources:VCPU': '1', 'resources:PCPU': '1'})
case('pcpu-mismatch', {'resources:PCPU': '3'})
case('pcpu-emulator', {'resources:PCPU': '3', 'hw:emulator_threads_policy': 'isolate'})
case('pcpu-emulator-bad', {'resources:PCPU': '2', 'hw:emulator_threads_policy': 'isolate'})
case('ht-trait-and-policy', {'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'isolate', 'trait:HW_CPU_HYPERTHREADING': 'forbidden'})
case('ht-trait-dedicated', {'resources:PCPU': '2', 'trait:HW_CPU_HYPERTHREADING': 'forbidden'})
case('ht-trait-shared', {'trait:HW_CPU_HYPERTHREADING': 'required'})
case('ht-image-trait', {'hw:cpu_policy': 'dedicated'}, {'trait:HW_CPU_HYPERTHREADING': 'required'})
case('bad-flavor-policy', {'hw:cpu_policy': 'Dedicated'})
case('bad-thread-policy', {'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'bogus'})
case('bad-emulator-policy', {'hw:emulator_threads_policy': 'bogus'})

# other translations
case('mem-enc', {'hw:mem_encryption': 'true'}, {'hw_firmware_type': 'uefi'})
case('mem-enc-no-uefi', {'hw:mem_encryption': 'True'})
case('mem-enc-image', properties={'hw_mem_encryption': 'yes', 'hw_firmware_type': 'uefi', 'hw_machine_type': 'pc-q35-6.2'})
case('mem-enc-machine', properties={'hw_mem_encryption': 'on', 'hw_firmware_type': 'uefi', 'hw_machine_type': 'pc'})
case('mem-enc-conflict', {'hw:mem_encryption': 'true'}, {'hw_mem_encryption': 'maybe', 'hw_firmware_type': 'uefi'})
case('mem-enc-off', {'hw:mem_encryption': 'false'}, {'hw_mem_encryption': 'false'})
case('pmem', {'hw:pmem': 'SMALL,SMALL, large,a-b'})
case('pmem-empty', {'hw:pmem': ' , '})
case('vtpm', {'hw:tpm_version': '2.0', 'hw:tpm_model': 'tpm-crb'})
case('vtpm-12', {'hw:tpm_version': '1.2'})
case('vtpm-image', properties={'hw_tpm_version': '1.2', 'hw_tpm_model': 'tpm-tis'})
case('vtpm-crb-12', {'hw:tpm_version': '1.2', 'hw:tpm_model': 'tpm-crb'})
case('vtpm-conflict', {'hw:tpm_version': '2.0'}, {'hw_tpm_version': '1.2'})
case('vtpm-bad', {'hw:tpm_version': '3.0'})
case('secure-boot', {'os:secure_boot': 'required'})
case('secure-boot-image', properties={'os_secure_boot': 'required'})
case('secure-boot-disabled', {'os:secure_boot': 'disabled'}, {'os_secure_boot': 'disabled'})
case('secure-boot-conflict', {'os:secure_boot': 'required'}, {'os_secure_boot': 'optional'})
case('secure-boot-bad', {'os:secure_boot': 'yes'})
case('pci-socket', {'hw:pci_numa_affinity_policy': 'socket'})
case('pci-socket-image', properties={'hw_pci_numa_affinity_policy': 'socket'})
case('pci-conflict', {'hw:pci_numa_affinity_policy': 'required'}, {'hw_pci_numa_affinity_policy': 'socket'})
case('pci-bad', {'hw:pci_numa_affinity_policy': 'strict'})
case('accel', {'accel:device_profile': 'gpu-profile'})
case('accel-empty', {'accel:device_profile': ''})
case('eph-enc', {'hw:ephemeral_encryption': 'true'})
case('eph-enc-luks', {'hw:ephemeral_encryption': 'true', 'hw:ephemeral_encryption_format': 'luks'})
case('eph-enc-image', properties={'hw_ephemeral_encryption': 'true', 'hw_ephemeral_encryption_format': 'luksv2'})
case('eph-enc-conflict', {'hw:ephemeral_encryption': 'true'}, {'hw_ephemeral_encryption': 'false'})
case('eph-enc-bad-format', {'hw:ephemeral_encryption': 'true', 'hw:ephemeral_encryption_format': 'zip'})
case('pmu-conflict', {'hw:pmu': 'true'}, {'hw_pmu': 'false'})

# image metadata Nova cannot read
case('image-bad-enum', properties={'hw_disk_bus': 'bogus'})
case('image-bad-arch', properties={'architecture': 'bogus'})
case('image-good-arch', properties={'architecture': 'AMD64', 'hw_architecture': 'x86_64'})
case('image-bad-int', properties={'hw_cpu_cores': 'x'})
case('image-good-int', properties={'hw_cpu_cores': ' 2 ', 'hw_cpu_sockets': '1'})
case('image-bad-numa-mem', properties={'hw_numa_mem.0': 'x'})
case('image-bad-adapter', properties={'vmware_adaptertype': 'bogus'})
case('image-bad-policy', properties={'hw_cpu_policy': 'Dedicated'})
case('image-unknown-keys', properties={'foo': 'bar', 'hw_foo': 'x', 'os_distro': 'ubuntu'})

# combinations
case('combo-1', {'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'require', 'trait:CUSTOM_FAST': 'required',
                 'resources1:VGPU': '2', 'trait1:CUSTOM_GPU_A100': 'required', 'group_policy': 'isolate',
                 'accel:device_profile': 'p'}, {'trait:HW_CPU_X86_AVX512F': 'required', 'os_secure_boot': 'required'},
     vcpus=8, ram=16384, disk=80, ephemeral=10, swap=2048)
case('combo-2', {'resources:VCPU': '0', 'resources:PCPU': '4', 'resources_a:CUSTOM_FPGA': '1', 'trait_a:CUSTOM_INTEL': 'required',
                 'trait_a:CUSTOM_ALTERA': 'forbidden', 'resources_b:CUSTOM_FPGA': '1', 'group_policy': 'none'}, vcpus=4)
case('combo-3', {'hw:mem_encryption': 'true', 'hw:pmem': 'GOLD', 'hw:tpm_version': '2.0', 'trait:CUSTOM_X': 'forbidden'},
     {'hw_firmware_type': 'uefi', 'trait:CUSTOM_Y': 'required'}, is_bfv=True)

json.dump({'source': 'test/golden/nova-requests/make_cases.py', 'cases': cases}, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write('\n')
