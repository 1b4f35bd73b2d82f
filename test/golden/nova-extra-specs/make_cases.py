#!/usr/bin/env python3
"""Writes cases.json: extra-spec cases for Nova's validate_extra_specs oracle (stdlib only, deterministic).

Every validator of the built-in catalog gets valid and invalid values; parameterised names, unknown
keys, Nova's JSON-schema limits and multi-key bodies are added, and every case runs in the three modes.
"""
import json
import sys

CATALOG = 'src/catalog/extra-specs.json'
catalog = json.load(open(CATALOG))['validators']

INT_VALUES = ['1', '0', '-1', '8', '9', 'abc', '', ' 7 ', '+3', '1_0', '1__0', '_1', '2.0', '\u0663', '007', '-0', '99999999999999999999999']
BOOL_VALUES = ['true', 'False', ' yes ', 'ON', '1', '0', 'n', 'maybe', '', '2', 'TRUE ', '\u00a0t']
PATTERN_VALUES = {
    'cpu': ['0-3', '^0', '0-3,^2', '0,1,2', '1-2,^1-2', '', 'a', '0-', ' 1', '0,,1', '\u0663', '0-3,5-7,^6'],
    'page': ['large', 'small', 'any', '2048', '2MB', '1GiB', '4k', '1Gbit', 'huge', '2 MB', '1gb'],
    'pmem': ['SMALL', 'SMALL,MEDIUM', 'a,b,', ',a', 'a b', 'x-y'],
    'alias': ['a:1', 'a:1, b:2', 'a:b', 'a', 'a:1,', 'gpu:2 ,nic:1'],
}


def pattern_values(pattern):
    if 'large' in pattern:
        return PATTERN_VALUES['page']
    if 'a-zA-Z0-9_' in pattern:
        return PATTERN_VALUES['pmem']
    if '[^:]' in pattern:
        return PATTERN_VALUES['alias']
    return PATTERN_VALUES['cpu']


def sample_key(v):
    key = v['name']
    samples = {'num': '0', 'key': 'foo', 'filter': ':features', 'group': '', 'resource': 'FOO', 'trait': 'FOO'}
    for p in v.get('parameters', []):
        key = key.replace('{%s}' % p['name'], samples[p['name']])
    return key


def values_for(v):
    rule = v['value']
    if rule['type'] == 'int':
        extra = [str(rule['max']), str(rule['max'] + 1)] if 'max' in rule else []
        return INT_VALUES + extra
    if rule['type'] == 'bool':
        return BOOL_VALUES
    if 'pattern' in rule:
        return pattern_values(rule['pattern'])
    if 'enum' in rule:
        return rule['enum'] + [rule['enum'][0].upper(), ' ' + rule['enum'][0], 'bogus']
    return ['anything', '']


single = []
for v in catalog:
    if v['name'].startswith(('trait', 'resources')) and 'CUSTOM' not in v['name'] and v['name'] not in (
            'resources{group}:VCPU', 'trait{group}:HW_CPU_X86_AVX2', 'trait{group}:COMPUTE_STATUS_DISABLED'):
        continue
    key = sample_key(v)
    for value in values_for(v):
        single.append({key: value})

# parameterised names and lookalikes
for key, value in [
    ('hw:numa_cpus.0', '0-1'), ('hw:numa_cpus.12', '3'), ('hw:numa_cpusX0', '0'), ('hw:numa_cpus.', '0'),
    ('hw:numa_cpus.a', '0'), ('hw:numa_mem.1', '0'), ('hw:numa_mem.1', '1024'), ('hw:numa_mem.01', '512'),
    ('hw:numa_mem.1.2', '512'), ('capabilities:cpu_info', 'x'), ('capabilities:cpu_info:features:x', 'y'),
    ('capabilities:cpu_infoX', 'x'), ('capabilities:cpu_info:', 'x'), ('capabilities:stats:a_b', '1'),
    ('aggregate_instance_extra_specs:foo', 'bar'), ('aggregate_instance_extra_specs:', 'bar'),
    ('aggregate_instance_extra_specs:a:b', '<in> x'),
    ('trait:CUSTOM_X', 'required'), ('trait:CUSTOM_X', 'forbidden'), ('trait:CUSTOM_X', 'preferred'),
    ('trait1:CUSTOM_X', 'required'), ('trait_a-b:HW_CPU_X86_AVX2', 'forbidden'),
    ('trait' + 'x' * 64 + ':HW_CPU_X86_AVX2', 'required'), ('trait' + 'x' * 65 + ':HW_CPU_X86_AVX2', 'bogus'),
    ('trait:FOO_BAR', 'required'), ('trait:CUSTOM_foo', 'required'), ('trait:CUSTOM_', 'required'),
    ('trait:hw_cpu_x86_avx2', 'required'), ('trait:HW_CPU_X86_AVX2', 'Required'), ('trait.1:CUSTOM_X', 'required'),
    ('resources:VCPU', '-1'), ('resources:VCPU', '0'), ('resources1:CUSTOM_FOO', '2'), ('resources:FOO', '1'),
    ('resources:CUSTOM_foo', '1'), ('resources_x:MEMORY_MB', '1.5'), ('resources' + 'y' * 65 + ':VCPU', 'x'),
    ('resources:PCPU', ' 4 '), ('resources:DISK_GB', '\u0661\u0660'), ('resources:VGPU', ''),
    ('resources:MEM_ENCRYPTION_CONTEXT', '1'), ('resources:NUMA_SOCKET', '1'),
    ('hide_hypervisor_id', 'true'), ('hide_hypervisor_id', 'nope'), ('group_policy', 'isolate'), ('group_policy', 'None'),
]:
    single.append({key: value})

# unknown keys: known namespace, unknown namespace, no namespace
for key in ['hw:cpu_pollicy', 'hw:', 'hw:cpu_policy ', 'hww:cpu_policy', 'foo:bar', 'foo', ':foo', ':', 'os:foo',
            'quota:cpu_limitx', 'vmware:x', 'accel:device_profile:x', 'hw_rng:x', 'hw_video:ram_max', 'pci_passthrough:x',
            'HW:cpu_policy', 'trait', 'resources', 'capabilities', 'group_policy1', 'hw_numa_nodes', 'a.b', 'a b:c',
            'hw:cpu_policy:dedicated', 'capabilities:unknown', 'aggregate_instance_extra_specs']:
    single.append({key: 'dedicated'})

# Nova's JSON schema: key characters and length, value length, trailing newline quirk
for key, value in [('foo/bar', 'x'), ('', 'x'), ('k' * 255, 'x'), ('k' * 256, 'x'), ('hw:cpu_policy', 'x' * 255),
                   ('hw:cpu_policy', 'x' * 256), ('foo:bar\n', 'x'), ('hw:cpu_policy\n', 'dedicated'), ('hw:\u00e9', 'x'),
                   ('aggregate_instance_extra_specs:x\n', 'y'), ('quota:cpu_limit', '\u00e9' * 256), ('hw:tpm_model', "it's"),
                   ('hw:tpm_model', 'say "hi"'), ('hw:tpm_model', 'tab\there'), ('hw:tpm_model', '\u00e9\u2028x')]:
    single.append({key: value})

multi = [
    {'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '0', 'foo:bar': 'x'},
    {'foo:bar': 'x', 'hw:numa_nodes': '0', 'hw:cpu_policy': 'bogus'},
    {'hw:cpu_policy': 'bogus', 'hw:numa_nodes': '0'},
    {'hw:cpu_pollicy': 'dedicated', 'hw:cpu_policy': 'bogus'},
    {'foo': '1', 'bar:baz': '2', 'hw:cpu_policy': 'dedicated'},
    {'a/b': 'x', 'c?d': 'y', 'hw:numa_nodes': 'x' * 300},
    {'hw:numa_nodes': 'x' * 300, 'hw:cpu_policy': 'y' * 300},
    {'trait:CUSTOM_A': 'required', 'trait1:CUSTOM_B': 'forbidden', 'resources1:VGPU': '1', 'group_policy': 'none'},
    {'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^0', 'hw:emulator_threads_policy': 'isolate'},
    {'quota:cpu_shares': '10', 'quota:cpu_period': '-5', 'quota:cpu_quota': '-5'},
    {},
    {'trait:%s' % v['name'].split(':', 1)[1]: 'required' for v in catalog if v['name'].startswith('trait{group}:')},
    {'resources:%s' % v['name'].split(':', 1)[1]: '1' for v in catalog if v['name'].startswith('resources{group}:')},
    {sample_key(v): 'x' for v in catalog if not v['name'].startswith(('trait', 'resources'))},
]

cases = []
for mode in ('strict', 'permissive', 'off'):
    for n, specs in enumerate(single):
        cases.append({'id': f'{mode}-single-{n}', 'mode': mode, 'extra_specs': specs})
    for n, specs in enumerate(multi):
        cases.append({'id': f'{mode}-multi-{n}', 'mode': mode, 'extra_specs': specs})

json.dump({'source': 'test/golden/nova-extra-specs/make_cases.py', 'cases': cases}, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write('\n')
