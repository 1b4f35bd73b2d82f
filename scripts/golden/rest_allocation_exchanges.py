#!/usr/bin/python3
"""Record what the real Placement 8.0.0 answers about allocations, usages, allocation candidates and
the reshaper beyond its gabbi files: every microversion's form of allocations (the list before 1.12,
project and user from 1.8, consumer generations from 1.28, consumer types from 1.38, consumers
written without a type), POST /allocations, GET /usages by type, the refusals of each in Placement's
order, candidate answers at each microversion where their shape changes, and the reshaper's
generations and refusals. Sessions run as scripts/golden/rest_exchanges.py runs its own (a fresh
Placement each, same markers); test/rest-golden.test.ts replays both files.

    /usr/bin/python3 scripts/golden/rest_allocation_exchanges.py > test/golden/rest/allocation-exchanges.json
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from rest_exchanges import ADMIN, JSON, Placement, load, normalized, v  # noqa: E402

ROOT1 = '11111111-1111-4111-8111-111111111111'
ROOT2 = '22222222-2222-4222-8222-222222222222'
NUMA0 = '33333333-3333-4333-8333-333333333333'
NUMA1 = '44444444-4444-4444-8444-444444444444'
SHARED = '55555555-5555-4555-8555-555555555555'
MISSING = '66666666-6666-4666-8666-666666666666'
AGG = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'
C1 = 'c1111111-1111-4111-8111-111111111111'
C2 = 'c2222222-2222-4222-8222-222222222222'
C3 = 'c3333333-3333-4333-8333-333333333333'
C4 = 'c4444444-4444-4444-8444-444444444444'
HELD = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc'

# Two compute trees (one with two NUMA children), a sharing disk provider, one allocation.
CLOUD = {
    'resource_classes': ['CUSTOM_GOLD'],
    'custom_traits': ['CUSTOM_FAST'],
    'providers': [(ROOT1, 'cn1', None), (NUMA0, 'cn1-numa0', ROOT1), (NUMA1, 'cn1-numa1', ROOT1), (ROOT2, 'cn2', None), (SHARED, 'disk', None)],
    'inventories': {
        ROOT1: {'MEMORY_MB': {'total': 8192, 'min_unit': 256, 'step_size': 256}},
        NUMA0: {'VCPU': {'total': 4}, 'SRIOV_NET_VF': {'total': 2}},
        NUMA1: {'VCPU': {'total': 4, 'allocation_ratio': 2.0}},
        ROOT2: {'VCPU': {'total': 8, 'reserved': 2}, 'MEMORY_MB': {'total': 4096, 'max_unit': 2048}, 'DISK_GB': {'total': 50}, 'CUSTOM_GOLD': {'total': 2}},
        SHARED: {'DISK_GB': {'total': 1000, 'step_size': 10}},
    },
    'traits': {ROOT1: ['HW_CPU_X86_AVX2', 'CUSTOM_FAST', 'COMPUTE_VOLUME_MULTI_ATTACH'], NUMA1: ['HW_NUMA_ROOT'], NUMA0: ['HW_NUMA_ROOT', 'CUSTOM_FAST'],
               SHARED: ['MISC_SHARES_VIA_AGGREGATE']},
    'aggregates': {ROOT1: [AGG], SHARED: [AGG]},
    'allocations': {HELD: {ROOT2: {'VCPU': 2, 'MEMORY_MB': 1024}}},
}


def alloc_dict(*pairs, **extra):
    """A consumer's allocations in the dict form (1.12 on): (provider, {class: amount}) pairs, then the other fields."""
    return dict({'allocations': {rp: {'resources': r} for rp, r in pairs}}, **extra)


PU = {'project_id': 'p', 'user_id': 'u'}


def reshaped(reserved):
    """cn2's CUSTOM_GOLD moved to the sharing provider with its allocation, and a new consumer on the disk."""
    return {'inventories': {ROOT2: {'resource_provider_generation': 2, 'inventories': {'VCPU': {'total': 8, 'reserved': reserved}, 'MEMORY_MB': {'total': 4096}}},
                            SHARED: {'resource_provider_generation': 3, 'inventories': {'DISK_GB': {'total': 1000, 'step_size': 10}, 'CUSTOM_GOLD': {'total': 2}}}},
            'allocations': {HELD: alloc_dict((ROOT2, {'VCPU': 2, 'MEMORY_MB': 1024}), (SHARED, {'CUSTOM_GOLD': 1}), consumer_generation=1, consumer_type='INSTANCE', **PU),
                            C1: alloc_dict((SHARED, {'DISK_GB': 20}), consumer_generation=None, consumer_type='MIGRATION', **PU)}}
AC = '/allocation_candidates?'

SESSIONS = [
    {
        'name': 'allocations at every microversion',
        'cloud': CLOUD,
        'exchanges': [
            ('GET', '/allocations/' + HELD, v(1, **ADMIN), None),
            ('GET', '/allocations/' + HELD, v(12, **ADMIN), None),
            ('GET', '/allocations/' + HELD, v(28, **ADMIN), None),
            ('GET', '/allocations/' + HELD, v(38, **ADMIN), None),
            ('GET', '/allocations/' + C1, v(38, **ADMIN), None),
            ('GET', '/allocations/not-a-uuid', v(38, **ADMIN), None),
            # Before 1.8: the list form, no project or user (Placement's incomplete-consumer ids), no type.
            ('PUT', '/allocations/' + C1, v(7, **JSON), {'allocations': [{'resource_provider': {'uuid': NUMA0}, 'resources': {'VCPU': 1}},
                                                                        {'resource_provider': {'uuid': ROOT1}, 'resources': {'MEMORY_MB': 512}}]}),
            ('GET', '/allocations/' + C1, v(38, **ADMIN), None),
            ('GET', '/allocations/' + C1, v(14, **ADMIN), None),
            ('PUT', '/allocations/' + C1, v(7, **JSON), {'allocations': [{'resource_provider': {'uuid': NUMA0}, 'resources': {'VCPU': 1}}], 'project_id': 'p'}),
            ('PUT', '/allocations/' + C1, v(8, **JSON), {'allocations': [{'resource_provider': {'uuid': NUMA0}, 'resources': {'VCPU': 1}}]}),
            ('PUT', '/allocations/' + C1, v(8, **JSON), {'allocations': [{'resource_provider': {'uuid': NUMA0}, 'resources': {'VCPU': 2}},
                                                                        {'resource_provider': {'uuid': NUMA0}, 'resources': {'VCPU': 3}}], 'project_id': 'p', 'user_id': 'u'}),
            ('GET', '/allocations/' + C1, v(38, **ADMIN), None),
            ('PUT', '/allocations/' + C1, v(11, **JSON), {'allocations': {NUMA0: {'resources': {'VCPU': 1}}}, 'project_id': 'p', 'user_id': 'u'}),
            ('PUT', '/allocations/' + C1, v(12, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), (ROOT1, {'MEMORY_MB': 256}), **PU)),
            ('PUT', '/allocations/' + C1, v(12, **JSON), alloc_dict(**PU)),
            ('PUT', '/allocations/' + C1, v(27, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), consumer_generation=3, **PU)),
            # From 1.28 the consumer generation is checked, in both of Placement's wordings.
            ('PUT', '/allocations/' + C1, v(28, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), **PU)),
            ('PUT', '/allocations/' + C1, v(28, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), consumer_generation=None, **PU)),
            ('PUT', '/allocations/' + C2, v(28, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), consumer_generation=4, **PU)),
            ('PUT', '/allocations/' + C1, v(28, **JSON), alloc_dict((NUMA0, {'VCPU': 2}), consumer_generation=3, project_id='p2', user_id='u2')),
            ('GET', '/allocations/' + C1, v(38, **ADMIN), None),
            ('GET', '/resource_providers/%s/allocations' % NUMA0, v(1, **ADMIN), None),
            ('GET', '/resource_providers/%s/allocations' % NUMA0, v(28, **ADMIN), None),
            ('GET', '/resource_providers/%s/allocations' % MISSING, v(28, **ADMIN), None),
            ('GET', '/resource_providers/%s' % NUMA0, v(38, **ADMIN), None),
            # Refusals in Placement's order: generation, then providers, classes, inventories, units, capacity.
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((MISSING, {'VCPU': 1}), consumer_generation=1, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((MISSING, {'VCPU': 1}), consumer_generation=4, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((NUMA0, {'CUSTOM_NOPE': 1}), (MISSING, {'VCPU': 1}), consumer_generation=4, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((NUMA0, {'CUSTOM_NOPE': 1}), consumer_generation=4, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((ROOT1, {'DISK_GB': 1}), consumer_generation=4, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((NUMA0, {'VCPU': 1, 'DISK_GB': 1}), consumer_generation=4, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((ROOT1, {'MEMORY_MB': 100}), consumer_generation=4, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((ROOT2, {'VCPU': 5}), consumer_generation=4, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((ROOT2, {'MEMORY_MB': 2049}), consumer_generation=4, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), consumer_generation=4, **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), consumer_generation=4, consumer_type='instance', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((NUMA0, {'VCPU': 0}), consumer_generation=4, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C1, v(38, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), consumer_generation=4, consumer_type='MIGRATION', mappings={'': [NUMA0]}, **PU)),
            ('PUT', '/allocations/' + C1, v(33, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), consumer_generation=5, mappings={'': [NUMA0]}, **PU)),
            ('PUT', '/allocations/NOT-A-UUID', v(38, **JSON), alloc_dict((NUMA0, {'VCPU': 1}), consumer_generation=None, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C2.replace('-', '').upper(), v(38, **JSON), alloc_dict((NUMA1, {'VCPU': 8}), consumer_generation=None, consumer_type='INSTANCE', **PU)),
            ('PUT', '/allocations/' + C3, v(38, **JSON), alloc_dict((NUMA1, {'VCPU': 1}), consumer_generation=None, consumer_type='INSTANCE', **PU)),
            ('GET', '/allocations/' + C2, v(38, **ADMIN), None),
            ('GET', '/allocations/' + C1, v(38, **ADMIN), None),
            # An empty set for a new consumer at 1.28 leaves Placement a consumer of generation 0 with nothing.
            ('PUT', '/allocations/' + C4, v(38, **JSON), alloc_dict(consumer_generation=None, consumer_type='INSTANCE', **PU)),
            ('GET', '/allocations/' + C4, v(38, **ADMIN), None),
            ('PUT', '/allocations/' + C4, v(38, **JSON), alloc_dict((ROOT2, {'CUSTOM_GOLD': 1}), consumer_generation=None, consumer_type='INSTANCE', **PU)),
            ('DELETE', '/allocations/' + C4, v(38, **ADMIN), None),
            ('PUT', '/allocations/' + C4, v(38, **JSON), alloc_dict((ROOT2, {'CUSTOM_GOLD': 1}), consumer_generation=0, consumer_type='INSTANCE', **PU)),
            ('GET', '/resource_providers/%s/allocations' % ROOT2, v(38, **ADMIN), None),
            ('PUT', '/allocations/' + C4, v(38, **JSON), alloc_dict(consumer_generation=1, consumer_type='INSTANCE', **PU)),
            ('GET', '/allocations/' + C4, v(38, **ADMIN), None),
            ('GET', '/resource_providers/%s' % ROOT2, v(38, **ADMIN), None),
            ('DELETE', '/allocations/' + C1, v(38, **ADMIN), None),
            ('DELETE', '/allocations/' + C1, v(38, **ADMIN), None),
            ('DELETE', '/allocations/' + C1, v(38, **{'x-auth-token': 'user'}), None),
            ('GET', '/resource_providers/%s' % NUMA0, v(38, **ADMIN), None),
            ('PATCH', '/allocations/' + C1, v(38, **ADMIN), None),
            ('PUT', '/allocations/' + C1, v(38, **ADMIN), None),
        ],
    },
    {
        'name': 'POST /allocations and GET /usages',
        'cloud': CLOUD,
        'exchanges': [
            ('POST', '/allocations', v(12, **JSON), {}),
            ('POST', '/allocations', v(13, **JSON), {}),
            ('POST', '/allocations', v(13, **JSON), {C1: alloc_dict((NUMA0, {'VCPU': 1}), **PU), C2: alloc_dict((NUMA1, {'VCPU': 1}), project_id='p', user_id='u2')}),
            ('POST', '/allocations', v(28, **JSON), {C1: alloc_dict((NUMA0, {'VCPU': 1}), **PU)}),
            # All or nothing: the second consumer's amount does not fit, the first is not written either.
            ('POST', '/allocations', v(38, **JSON), {C3: alloc_dict((SHARED, {'DISK_GB': 10}), consumer_generation=None, consumer_type='MIGRATION', **PU),
                                                     C2: alloc_dict((NUMA1, {'VCPU': 9}), consumer_generation=1, consumer_type='INSTANCE', project_id='p', user_id='u2')}),
            ('GET', '/allocations/' + C3, v(38, **ADMIN), None),
            ('POST', '/allocations', v(38, **JSON), {C3: alloc_dict((SHARED, {'DISK_GB': 10}), consumer_generation=None, consumer_type='MIGRATION', **PU),
                                                     C2: alloc_dict((NUMA1, {'VCPU': 7}), consumer_generation=1, consumer_type='INSTANCE', project_id='p', user_id='u2')}),
            ('POST', '/allocations', v(38, **JSON), {C3: alloc_dict((SHARED, {'CUSTOM_NOPE': 10}), consumer_generation=1, consumer_type='MIGRATION', **PU)}),
            ('POST', '/allocations', v(38, **JSON), {C3: alloc_dict((MISSING, {'DISK_GB': 10}), consumer_generation=1, consumer_type='MIGRATION', **PU)}),
            ('POST', '/allocations', v(38, **JSON), {C3: alloc_dict((SHARED, {'DISK_GB': 10}), consumer_generation=0, consumer_type='MIGRATION', **PU)}),
            ('POST', '/allocations', v(38, **JSON), {C3: alloc_dict((SHARED, {'DISK_GB': 10}), consumer_generation=1, **PU)}),
            ('POST', '/allocations', v(38, **JSON), {'not-a-uuid': alloc_dict((SHARED, {'DISK_GB': 10}), consumer_generation=1, consumer_type='MIGRATION', **PU)}),
            ('GET', '/usages?project_id=p', v(8, **ADMIN), None),
            ('GET', '/usages?project_id=p', v(9, **ADMIN), None),
            ('GET', '/usages?project_id=p&user_id=u2', v(37, **ADMIN), None),
            ('GET', '/usages?project_id=p', v(38, **ADMIN), None),
            ('GET', '/usages?project_id=p&consumer_type=all', v(38, **ADMIN), None),
            ('GET', '/usages?project_id=p&consumer_type=unknown', v(38, **ADMIN), None),
            ('GET', '/usages?project_id=p&consumer_type=MIGRATION', v(38, **ADMIN), None),
            ('GET', '/usages?project_id=p&consumer_type=NOBODY', v(38, **ADMIN), None),
            ('GET', '/usages?project_id=p&consumer_type=lower', v(38, **ADMIN), None),
            ('GET', '/usages?project_id=p&consumer_type=INSTANCE', v(37, **ADMIN), None),
            ('GET', '/usages?project_id=nobody', v(38, **ADMIN), None),
            ('GET', '/usages', v(38, **ADMIN), None),
            ('GET', '/usages?project_id=', v(38, **ADMIN), None),
            ('GET', '/usages?project_id=p&project_id=nobody', v(38, **ADMIN), None),
            ('POST', '/allocations', v(38, **JSON), {C3: alloc_dict(consumer_generation=1, consumer_type='MIGRATION', **PU),
                                                     C2: alloc_dict(consumer_generation=2, consumer_type='MIGRATION', **PU)}),
            ('GET', '/allocations/' + C2, v(38, **ADMIN), None),
            ('GET', '/allocations/' + C3, v(38, **ADMIN), None),
            ('GET', '/usages?project_id=p', v(38, **ADMIN), None),
            ('GET', '/resource_providers/%s' % SHARED, v(38, **ADMIN), None),
        ],
    },
    {
        'name': 'allocation candidates at each microversion',
        'cloud': CLOUD,
        'exchanges': [
            ('GET', AC + 'resources=VCPU:1', v(9, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1', v(10, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024', v(11, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024', v(12, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024&limit=1', v(16, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024&limit=1', v(15, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024&required=CUSTOM_FAST', v(17, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024,DISK_GB:10&member_of=' + AGG, v(21, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024,DISK_GB:10', v(26, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024,DISK_GB:10', v(27, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024', v(28, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,MEMORY_MB:1024', v(29, **ADMIN), None),
            ('GET', AC + 'resources1=VCPU:1&resources2=SRIOV_NET_VF:1&group_policy=isolate', v(25, **ADMIN), None),
            ('GET', AC + 'resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate&resources=MEMORY_MB:512', v(33, **ADMIN), None),
            ('GET', AC + 'resources_CPU=VCPU:1&required_CPU=HW_NUMA_ROOT&resources_NET=SRIOV_NET_VF:1&group_policy=none&resources=MEMORY_MB:512', v(34, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&root_required=COMPUTE_VOLUME_MULTI_ATTACH', v(35, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&root_required=!COMPUTE_VOLUME_MULTI_ATTACH', v(35, **ADMIN), None),
            ('GET', AC + 'resources_A=VCPU:1&required_B=CUSTOM_FAST&same_subtree=_A,_B&group_policy=none', v(36, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&required=in:CUSTOM_FAST,HW_CPU_X86_AVX2&required=!COMPUTE_STATUS_DISABLED', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1,DISK_GB:20&in_tree=' + ROOT1, v(31, **ADMIN), None),
            ('GET', AC + 'resources=CUSTOM_GOLD:1', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:100', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&limit=2', v(39, **ADMIN), None),
            # Refusals, with jsonschema's whole text where the query fails the schema.
            ('GET', AC + 'resources=VCPU:1&limit=0', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&limit=x', v(16, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&group_policy=all', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&cows=moo', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&cows=moo', v(24, **ADMIN), None),
            ('GET', AC + 'limit=1', v(24, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&required=CUSTOM_FAST', v(16, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&resources1=VCPU:1&resources2=VCPU:1', v(39, **ADMIN), None),
            ('GET', AC + 'resources=CUSTOM_NOPE:1', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&required=CUSTOM_NOPE', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&root_required=CUSTOM_FAST&root_required=HW_NUMA_ROOT', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&root_required=CUSTOM_FAST,!CUSTOM_FAST', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1&same_subtree=_A,', v(39, **ADMIN), None),
            ('GET', AC + 'required_A=CUSTOM_FAST&same_subtree=_A', v(39, **ADMIN), None),
            ('GET', AC + 'resources=VCPU:1', v(39, **dict(ADMIN, accept='text/html')), None),
            ('GET', AC + 'resources=VCPU:1', v(39, **{'x-auth-token': 'user'}), None),
            ('POST', AC + 'resources=VCPU:1', v(39, **ADMIN), None),
        ],
    },
    {
        'name': 'the reshaper',
        'cloud': CLOUD,
        'exchanges': [
            ('POST', '/reshaper', v(29, **JSON), {}),
            ('POST', '/reshaper', v(30, **JSON), {}),
            ('POST', '/reshaper', v(30, **JSON), {'inventories': {}, 'allocations': {}}),
            ('POST', '/reshaper', v(30, **JSON), {'inventories': {MISSING: {'resource_provider_generation': 0, 'inventories': {}}}, 'allocations': {}}),
            ('POST', '/reshaper', v(30, **JSON), {'inventories': {ROOT2: {'resource_provider_generation': 0, 'inventories': {}}}, 'allocations': {}}),
            ('POST', '/reshaper', v(30, **JSON), {'inventories': {ROOT2: {'resource_provider_generation': 2, 'inventories': {}}}, 'allocations': {}}),
            ('POST', '/reshaper', v(30, **JSON), {'inventories': {ROOT2: {'resource_provider_generation': 2, 'inventories': {'VCPU': {'total': 8}, 'CUSTOM_NOPE': {'total': 1}}}},
                                                  'allocations': {}}),
            ('POST', '/reshaper', v(30, **JSON), {'inventories': {ROOT2: {'resource_provider_generation': 2, 'inventories': {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}}}},
                                                  'allocations': {HELD: alloc_dict((ROOT2, {'VCPU': 2, 'MEMORY_MB': 1024}), consumer_generation=7, **PU)}}),
            ('POST', '/reshaper', v(30, **JSON), {'inventories': {ROOT2: {'resource_provider_generation': 2, 'inventories': {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096}}}},
                                                  'allocations': {HELD: alloc_dict((MISSING, {'VCPU': 2}), consumer_generation=1, **PU)}}),
            ('POST', '/reshaper', v(30, **JSON), {'inventories': {ROOT2: {'resource_provider_generation': 2, 'inventories': {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 512}}}},
                                                  'allocations': {HELD: alloc_dict((ROOT2, {'VCPU': 2, 'MEMORY_MB': 1024}), consumer_generation=1, **PU)}}),
            ('POST', '/reshaper', v(38, **JSON), {'inventories': {ROOT2: {'resource_provider_generation': 2, 'inventories': {'VCPU': {'total': 8}}}},
                                                  'allocations': {HELD: alloc_dict((ROOT2, {'VCPU': 2, 'MEMORY_MB': 1024}), consumer_generation=1, **PU)}}),
            # The reshaper does not check reserved against total: here the allocations do not fit what is left.
            ('POST', '/reshaper', v(38, **JSON), reshaped(9)),
            # Inventory moves from cn2 to the sharing provider, with the allocations against it.
            ('POST', '/reshaper', v(38, **JSON), reshaped(1)),
            ('GET', '/resource_providers/%s' % ROOT2, v(38, **ADMIN), None),
            ('GET', '/resource_providers/%s/inventories' % ROOT2, v(38, **ADMIN), None),
            ('GET', '/resource_providers/%s' % SHARED, v(38, **ADMIN), None),
            ('GET', '/resource_providers/%s/inventories' % SHARED, v(38, **ADMIN), None),
            ('GET', '/resource_providers/%s/allocations' % SHARED, v(38, **ADMIN), None),
            ('GET', '/allocations/' + HELD, v(38, **ADMIN), None),
            ('GET', '/allocations/' + C1, v(38, **ADMIN), None),
            ('POST', '/reshaper', v(38, **{'x-auth-token': 'user', 'content-type': 'application/json'}), {}),
        ],
    },
]


def main():
    sessions = []
    for session in SESSIONS:
        placement = Placement()
        try:
            snapshot = load(placement, session['cloud'])
            exchanges = []
            for method, path, headers, body, *differs in session['exchanges']:
                status, answer_headers, data = placement.send(method, path, headers, body)
                request = {'method': method, 'path': path, 'headers': headers}
                if body is not None:
                    request['body'] = json.dumps(body)
                exchange = {'request': request, 'answer': normalized(status, answer_headers, data)}
                if differs:
                    exchange['differs'] = differs[0]
                exchanges.append(exchange)
            sessions.append({'name': session['name'], 'cors': None, 'snapshot': snapshot, 'exchanges': exchanges})
        finally:
            placement.stop()
    json.dump({'source': 'Placement 8.0.0 (Debian python3-placement 8.0.0-2) on wsgiref, noauth2, SQLite; recorded by scripts/golden/rest_allocation_exchanges.py',
               'sessions': sessions}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
