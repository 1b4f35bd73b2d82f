#!/usr/bin/python3
"""Record what the real Placement 8.0.0 answers to requests its gabbi files do not make: each
session of exchanges runs on a fresh Placement (empty, or loaded with a small cloud), and every
answer is kept as placement-gql's REST API must give it (status, headers, body byte for byte, with
request ids and times replaced by markers). test/rest-golden.test.ts replays the sessions
against placement-gql.

    /usr/bin/python3 scripts/golden/rest_exchanges.py > test/golden/rest/exchanges.json

Placement runs as Debian's placement-api does (wsgiref on loopback, noauth2, a SQLite file), with
one difference: a request without Content-Type reaches it without one (wsgiref alone would invent
text/plain, which production WSGI servers do not).
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ADMIN = {'x-auth-token': 'admin'}
JSON = {'x-auth-token': 'admin', 'content-type': 'application/json'}


def v(minor, **headers):
    return dict(headers, **{'openstack-api-version': 'placement 1.%d' % minor})


RP1 = '11111111-1111-4111-8111-111111111111'
RP2 = '22222222-2222-4222-8222-222222222222'
RP3 = '33333333-3333-4333-8333-333333333333'
AGG1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'
AGG2 = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'
CONSUMER = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc'

# A small cloud: two roots, a child, inventories, traits, aggregates and one allocation.
CLOUD = {
    'resource_classes': ['CUSTOM_GOLD'],
    'custom_traits': ['CUSTOM_RACK_A'],
    'providers': [(RP1, 'cn1', None), (RP2, 'cn2', None), (RP3, 'cn1-numa0', RP1)],
    'inventories': {
        RP1: {'VCPU': {'total': 16, 'allocation_ratio': 2.0}, 'DISK_GB': {'total': 100, 'reserved': 10, 'min_unit': 10, 'step_size': 10}},
        RP2: {'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 4096, 'max_unit': 2048}, 'CUSTOM_GOLD': {'total': 4}},
        RP3: {'SRIOV_NET_VF': {'total': 8}},
    },
    'traits': {RP1: ['HW_CPU_X86_AVX2', 'CUSTOM_RACK_A'], RP2: ['HW_CPU_X86_AVX2', 'COMPUTE_STATUS_DISABLED']},
    'aggregates': {RP1: [AGG1], RP2: [AGG1, AGG2]},
    'allocations': {CONSUMER: {RP1: {'VCPU': 4, 'DISK_GB': 20}}},
}

SQL_SHOWN = 'Placement shows the SQL statement that failed; placement-gql says which class the provider already has'
LONG = 'x' * 201
LONG_TRAIT = 'CUSTOM_' + 'A' * 250

# Each exchange: (method, path, headers, body[, why placement-gql's answer differs: only its status
# and error code are compared; or (why, placement-gql's status)]); a body that is a str is sent as it
# is, else as JSON.
SESSIONS = [
    {
        'name': 'framework',
        'cloud': None,
        'exchanges': [
            ('GET', '/', {}, None),
            ('GET', '', {}, None),
            ('GET', '/', v(15), None),
            ('HEAD', '/', {}, None),
            ('POST', '/', {}, None),
            ('DELETE', '/', {'accept': 'text/html'}, None),
            ('DELETE', '/', {'accept': 'text/plain'}, None),
            ('GET', '/', {'openstack-api-version': 'placement 1.40'}, None),
            ('GET', '/', {'openstack-api-version': 'placement 1.40', 'accept': 'text/html'}, None),
            ('GET', '/', {'openstack-api-version': 'placement 1.40', 'accept': 'text/plain'}, None),
            ('GET', '/', {'openstack-api-version': 'placement 1'}, None),
            ('GET', '/', {'openstack-api-version': 'placement 1.'}, None),
            ('GET', '/', {'openstack-api-version': 'placement x.1'}, None),
            ('GET', '/', {'openstack-api-version': 'placement 01.007'}, None),
            ('GET', '/', {'openstack-api-version': 'compute 2.1, placement 1.20'}, None),
            ('GET', '/', {'openstack-api-version': 'placement 1.20, compute 2.1'}, None),
            ('GET', '/', {'openstack-api-version': 'compute 2.1'}, None),
            ('GET', '/', {'openstack-api-version': 'PLACEMENT 1.11'}, None),
            ('GET', '/', {'openstack-api-version': 'placement'}, None),
            ('GET', '/', {'openstack-api-version': 'placement -1.2'}, None),
            ('GET', '/', {'x-openstack-placement-api-version': '1.20'}, None),
            ('GET', '/resource_providers', {}, None),
            ('GET', '/resource_providers', {'accept': 'text/html'}, None),
            ('GET', '/resource_providers', {'accept': 'text/plain'}, None),
            ('GET', '/resource_providers', {'x-auth-token': 'user'}, None),
            ('GET', '/resource_providers', v(39, **{'x-auth-token': 'user:project'}), None),
            ('GET', '/resource_providers', v(39, **{'x-auth-token': 'user', 'accept': 'text/html'}), None),
            ('POST', '/resource_classes', v(39, **{'x-auth-token': 'user', 'content-type': 'application/json'}), {'name': 'CUSTOM_X'}),
            ('PUT', '/traits/CUSTOM_X', v(39, **{'x-auth-token': 'admin:project'}), None),
            ('DELETE', '/traits/CUSTOM_X', v(39, **{'x-auth-token': 'admin:project'}), None),
            ('GET', '/nowhere', ADMIN, None),
            ('GET', '/nowhere', v(23, **ADMIN), None),
            ('GET', '/nowhere', dict(ADMIN, accept='text/html'), None),
            ('GET', '/nowhere', dict(ADMIN, accept='text/plain'), None),
            ('GET', '/nowhere', dict(ADMIN, accept='*/*'), None),
            ('GET', '/nowhere', dict(ADMIN, accept='not a media type'), None),
            ('GET', '/nowhere', dict(ADMIN, accept='application/json;q=0.5, text/html;q=0.6'), None),
            ('GET', '/resource_providers/', ADMIN, None),
            ('GET', '/resource_providers//', ADMIN, None),
            ('GET', '/resource_providers/x/y/z', ADMIN, None),
            ('GET', '/traits/%43USTOM_X', v(6, **ADMIN), None),
            ('PATCH', '/resource_providers', ADMIN, None),
            ('OPTIONS', '/traits', ADMIN, None),
            ('HEAD', '/resource_providers', ADMIN, None),
            ('HEAD', '/nowhere', ADMIN, None),
            ('GET', '/resource_providers', dict(ADMIN, accept='application/json; charset=utf-8'), None),
            ('GET', '/resource_providers', dict(ADMIN, accept='application/*'), None),
            ('GET', '/resource_providers', dict(ADMIN, accept=''), None),
            ('GET', '/resource_providers', dict(ADMIN, accept='text/html;q=1, application/json;q=0'), None),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json; charset=UTF-8'}), {'name': 'with charset', 'uuid': RP1}),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'text/plain; charset=UTF-8'}), 'x'),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json ; charset=UTF-8'}), '{}'),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), ''),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), '   '),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), '[1, 2'),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), '{"name": "a\x01"}'),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), '{"name": "\\q"}'),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), '{"name": "a"} x'),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), b'{"name": "\xff"}'),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), '\ufeff{"name": "bom"}'),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), '{"name": NaN}'),
            ('POST', '/resource_providers', dict(ADMIN, **{'content-type': 'application/json'}), '{"name": "caf\\u00e9 \\ud83d\\ude00"}'),
        ],
    },
    {
        'name': 'resource providers',
        'cloud': CLOUD,
        'exchanges': [
            ('GET', '/resource_providers', v(39, **ADMIN), None),
            ('GET', '/resource_providers', v(13, **ADMIN), None),
            ('GET', '/resource_providers', v(1, **ADMIN), None),
            ('GET', '/resource_providers/' + RP3, v(39, **ADMIN), None),
            ('GET', '/resource_providers/' + RP3.upper(), v(39, **ADMIN), None),
            ('GET', '/resource_providers?member_of=' + AGG1, v(3, **ADMIN), None),
            ('GET', '/resource_providers?member_of=in:%s,%s' % (AGG2, AGG1), v(39, **ADMIN), None),
            ('GET', '/resource_providers?member_of=%s&member_of=%s' % (AGG1, AGG2), v(24, **ADMIN), None),
            ('GET', '/resource_providers?member_of=%s&member_of=%s' % (AGG1, AGG2), v(23, **ADMIN), None),
            ('GET', '/resource_providers?member_of=!' + AGG2, v(32, **ADMIN), None),
            ('GET', '/resource_providers?member_of=!in:%s,%s' % (AGG1, AGG2), v(32, **ADMIN), None),
            ('GET', '/resource_providers?member_of=%s,%s' % (AGG1, AGG2), v(39, **ADMIN), None),
            ('GET', '/resource_providers?member_of=in:' + AGG1 + ',nope', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=VCPU:20', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=VCPU:29', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=DISK_GB:15', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=DISK_GB:70', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=MEMORY_MB:4096', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=VCPU:1,CUSTOM_NOPE:1', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=VCPU:0', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=VCPU:x', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=VCPU', v(3, **ADMIN), None),
            ('GET', '/resource_providers?required=HW_CPU_X86_AVX2', v(39, **ADMIN), None),
            ('GET', '/resource_providers?required=HW_CPU_X86_AVX2', v(17, **ADMIN), None),
            ('GET', '/resource_providers?required=HW_CPU_X86_AVX2,!COMPUTE_STATUS_DISABLED', v(39, **ADMIN), None),
            ('GET', '/resource_providers?required=in:CUSTOM_RACK_A,COMPUTE_STATUS_DISABLED', v(39, **ADMIN), None),
            ('GET', '/resource_providers?required=in:CUSTOM_RACK_A,COMPUTE_STATUS_DISABLED', v(38, **ADMIN), None),
            ('GET', '/resource_providers?required=CUSTOM_RACK_A&required=HW_CPU_X86_AVX2', v(38, **ADMIN), None),
            ('GET', '/resource_providers?required=CUSTOM_RACK_A&required=COMPUTE_STATUS_DISABLED', v(39, **ADMIN), None),
            ('GET', '/resource_providers?required=in:CUSTOM_RACK_A,!HW_CPU_X86_AVX2', v(39, **ADMIN), None),
            ('GET', '/resource_providers?required=in:,CUSTOM_RACK_A', v(39, **ADMIN), None),
            ('GET', '/resource_providers?required=!!COMPUTE_STATUS_DISABLED', v(39, **ADMIN), None),
            ('GET', '/resource_providers?required=CUSTOM_NOPE', v(39, **ADMIN), None),
            ('GET', '/resource_providers?in_tree=' + RP3, v(39, **ADMIN), None),
            ('GET', '/resource_providers?in_tree=' + RP3.replace('-', ''), v(39, **ADMIN), None),
            ('GET', '/resource_providers?in_tree=nope', v(39, **ADMIN), None),
            ('GET', '/resource_providers?in_tree=' + RP3, v(13, **ADMIN), None),
            ('GET', '/resource_providers?name=cn2&name=cn1', v(39, **ADMIN), None),
            ('GET', '/resource_providers?name=', v(39, **ADMIN), None),
            ('GET', '/resource_providers?uuid=' + RP2, v(39, **ADMIN), None),
            ('GET', '/resource_providers?uuid=' + RP2 + '&name=cn2&resources=VCPU:1&required=HW_CPU_X86_AVX2&member_of=' + AGG2, v(39, **ADMIN), None),
            ('GET', '/resource_providers?foo=1&bar=2', v(39, **ADMIN), None),
            ('GET', '/resource_providers?name=%ff', v(39, **ADMIN), None),
            ('POST', '/resource_providers', v(39, **JSON), {'name': 'cn1', 'uuid': RP1}),
            ('POST', '/resource_providers', v(39, **JSON), {'name': 'cn1'}),
            ('POST', '/resource_providers', v(39, **JSON), {'name': '', 'uuid': 'dddddddd-dddd-4ddd-8ddd-dddddddddddd'}),
            ('POST', '/resource_providers', v(39, **JSON), {'name': 'new', 'uuid': 'EEEEEEEE-EEEE-4EEE-8EEE-EEEEEEEEEEEE', 'parent_provider_uuid': RP2}),
            ('POST', '/resource_providers', v(39, **JSON), {'name': 'orphan', 'uuid': 'ffffffff-ffff-4fff-8fff-ffffffffffff', 'parent_provider_uuid': 'ffffffff-ffff-4fff-8fff-000000000000'}),
            ('POST', '/resource_providers', v(39, **JSON), {'name': 'self', 'uuid': 'ffffffff-ffff-4fff-8fff-ffffffffffff', 'parent_provider_uuid': 'ffffffff-ffff-4fff-8fff-ffffffffffff'}),
            ('POST', '/resource_providers', v(39, **JSON), {'name': LONG, 'uuid': 'not-a-uuid', 'extra': [1, 2.0, None]}),
            ('POST', '/resource_providers', v(39, **JSON), {'name': 5, 'parent_provider_uuid': 7}),
            ('POST', '/resource_providers', v(39, **JSON), {'name': 'x', 'parent_provider_uuid': 'nope'}),
            ('POST', '/resource_providers', v(13, **JSON), {'name': 'x', 'parent_provider_uuid': RP1}),
            ('POST', '/resource_providers', v(39, **JSON), ['not', 'an', 'object']),
            ('POST', '/resource_providers', v(39, **JSON), {'uuid': '{' + RP1 + '}'}),
            ('PUT', '/resource_providers/' + RP3, v(39, **JSON), {'name': 'cn2'}),
            ('PUT', '/resource_providers/' + RP3, v(39, **JSON), {'name': 'moved', 'parent_provider_uuid': RP2}),
            ('PUT', '/resource_providers/' + RP3, v(36, **JSON), {'name': 'moved', 'parent_provider_uuid': RP1}),
            ('PUT', '/resource_providers/' + RP3, v(36, **JSON), {'name': 'moved', 'parent_provider_uuid': None}),
            ('PUT', '/resource_providers/' + RP1, v(39, **JSON), {'name': 'cn1', 'parent_provider_uuid': RP1}),
            ('PUT', '/resource_providers/' + RP2, v(39, **JSON), {'name': 'cn2', 'parent_provider_uuid': RP3}),
            ('PUT', '/resource_providers/' + RP2, v(39, **JSON), {'name': 'cn2', 'parent_provider_uuid': 'ffffffff-ffff-4fff-8fff-000000000000'}),
            ('PUT', '/resource_providers/' + RP2, v(39, **JSON), {'parent_provider_uuid': None}),
            ('PUT', '/resource_providers/' + RP2, v(13, **JSON), {'name': 'cn2b'}),
            ('PUT', '/resource_providers/nope', v(39, **JSON), {'name': 'x'}),
            ('PUT', '/resource_providers/' + RP2, v(39, **ADMIN), None),
            ('GET', '/resource_providers/' + RP2, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/' + RP1, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/' + RP3, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/' + RP2, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/' + RP2, v(39, **ADMIN), None),
            ('GET', '/resource_providers', v(39, **ADMIN), None),
        ],
    },
    {
        'name': 'inventories and usages',
        'cloud': CLOUD,
        'exchanges': [
            ('GET', '/resource_providers/%s/inventories' % RP1, v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/inventories/VCPU' % RP1, v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/inventories/MEMORY_MB' % RP1, v(39, **ADMIN), None),
            ('GET', '/resource_providers/nope/inventories', v(39, **ADMIN), None),
            ('GET', '/resource_providers/nope/inventories/VCPU', v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/usages' % RP1, v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/usages' % RP3, v(1, **ADMIN), None),
            ('GET', '/resource_providers/nope/usages', v(39, **ADMIN), None),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(25, **JSON), {'resource_class': 'VCPU', 'total': 4, 'reserved': 4}),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(26, **JSON), {'resource_class': 'VCPU', 'total': 4, 'reserved': 4}),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(39, **JSON), {'resource_class': 'MEMORY_MB', 'total': 10, 'reserved': 1, 'allocation_ratio': 0, 'min_unit': 5, 'max_unit': 2}),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(25, **JSON), {'resource_class': 'DISK_GB', 'total': 10, 'reserved': 9, 'allocation_ratio': 0.5}),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(39, **JSON), {'resource_class': 'DISK_GB', 'total': 10, 'reserved': 11, 'allocation_ratio': 0.5}),
            # Placement accepted DISK_GB just above (int(-0.5) is 0): a second one is a conflict.
            ('POST', '/resource_providers/%s/inventories' % RP3, v(39, **JSON), {'resource_class': 'DISK_GB', 'total': 10, 'allocation_ratio': 2, 'resource_provider_generation': 99}, SQL_SHOWN),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(39, **JSON), {'resource_class': 'CUSTOM_NOPE', 'total': 10}),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(39, **JSON), {'resource_class': 'lower', 'total': 1.5, 'reserved': -1, 'step_size': 2147483648}),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(39, **JSON), {'resource_class': 'PCPU', 'total': 2.0, 'allocation_ratio': 3.5e38}),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(39, **JSON), {'resource_class': 'PCPU', 'total': 2.0, 'allocation_ratio': '1.0'}),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(39, **JSON), {'resource_class': 'PCPU', 'total': 2.0}),
            ('POST', '/resource_providers/%s/inventories' % RP3, v(39, **JSON), {'resource_class': 'PCPU', 'total': 3}, SQL_SHOWN),
            ('GET', '/resource_providers/%s/inventories' % RP3, v(39, **ADMIN), None),
            ('PUT', '/resource_providers/%s/inventories/VCPU' % RP1, v(39, **JSON), {'resource_provider_generation': 99, 'total': 8}),
            ('PUT', '/resource_providers/%s/inventories/VCPU' % RP1, v(39, **JSON), {'total': 8}),
            ('PUT', '/resource_providers/%s/inventories/NOPE' % RP2, v(39, **JSON), {'resource_provider_generation': 4, 'total': 8}),
            ('PUT', '/resource_providers/%s/inventories/DISK_GB' % RP2, v(39, **JSON), {'resource_provider_generation': 4, 'total': 8}),
            ('PUT', '/resource_providers/%s/inventories/VCPU' % RP2, v(25, **JSON), {'resource_provider_generation': 4, 'total': 8, 'reserved': 8}),
            ('PUT', '/resource_providers/%s/inventories/VCPU' % RP2, v(26, **JSON), {'resource_provider_generation': 4, 'total': 8, 'reserved': 8, 'allocation_ratio': 1}),
            ('PUT', '/resource_providers/%s/inventories/VCPU' % RP1, v(39, **JSON), {'resource_provider_generation': 4, 'total': 1}),
            ('PUT', '/resource_providers/%s/inventories' % RP2, v(39, **JSON), {'resource_provider_generation': 5, 'inventories': {'VCPU': {'total': 4, 'allocation_ratio': 4}, 'DISK_GB': {'total': 10}}}),
            ('PUT', '/resource_providers/%s/inventories' % RP2, v(39, **JSON), {'resource_provider_generation': 5, 'inventories': {'VCPU': {'total': 4}}}),
            ('PUT', '/resource_providers/%s/inventories' % RP2, v(39, **JSON), {'resource_provider_generation': 6, 'inventories': {'VCPU': {'total': 4}, 'CUSTOM_NOPE': {'total': 1}, 'DISK_GB': {'total': 1, 'reserved': 2}}}),
            ('PUT', '/resource_providers/%s/inventories' % RP2, v(39, **JSON), {'resource_provider_generation': 6, 'inventories': {'VCPU': {'total': 4}, 'CUSTOM_NOPE': {'total': 1}}}),
            ('PUT', '/resource_providers/%s/inventories' % RP2, v(39, **JSON), {'resource_provider_generation': 6, 'inventories': {'bad': {'total': 4}, 'VCPU': {'totl': 1}}}),
            ('PUT', '/resource_providers/%s/inventories' % RP2, v(39, **JSON), {'resource_provider_generation': 6, 'inventories': {'VCPU': {'total': 4, 'reserved': 'x'}}}),
            ('PUT', '/resource_providers/%s/inventories' % RP1, v(39, **JSON), {'resource_provider_generation': 4, 'inventories': {}}),
            ('PUT', '/resource_providers/%s/inventories' % RP1, v(39, **JSON), {'resource_provider_generation': 4, 'inventories': {'VCPU': {'total': 2}, 'DISK_GB': {'total': 100}}}),
            ('PUT', '/resource_providers/%s/inventories' % RP1, v(39, **JSON), {'resource_provider_generation': 5, 'inventories': {'VCPU': {'total': 2}, 'DISK_GB': {'total': 100}}}),
            ('GET', '/resource_providers/%s/usages' % RP1, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/%s/inventories/VCPU' % RP1, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/%s/inventories/NOPE' % RP1, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/%s/inventories/MEMORY_MB' % RP1, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/%s/inventories' % RP1, v(4, **ADMIN), None),
            ('DELETE', '/resource_providers/%s/inventories' % RP1, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/%s/inventories' % RP2, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/%s/inventories/MEMORY_MB' % RP3, v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/inventories' % RP2, v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/inventories' % RP3, v(39, **ADMIN), None),
        ],
    },
    {
        'name': 'traits and aggregates',
        'cloud': CLOUD,
        'exchanges': [
            ('GET', '/traits?name=startswith:CUSTOM_', v(39, **ADMIN), None),
            ('GET', '/traits?name=in:CUSTOM_RACK_A,HW_CPU_X86_AVX2,NOPE', v(39, **ADMIN), None),
            ('GET', '/traits?name=in:CUSTOM_RACK_A&associated=TRUE', v(39, **ADMIN), None),
            ('GET', '/traits?name=startswith:CUSTOM&associated=false', v(39, **ADMIN), None),
            ('GET', '/traits?name=other:CUSTOM_RACK_A&associated=true', v(39, **ADMIN), None),
            ('GET', '/traits?name=startswith:custom_rack', v(39, **ADMIN), None),
            ('GET', '/traits?name=startswith:CUSTOM_RACK_%25', v(39, **ADMIN), None),
            ('GET', '/traits/CUSTOM_RACK_A', v(15, **ADMIN), None),
            ('GET', '/traits/NOPE', v(39, **ADMIN), None),
            ('PUT', '/traits/CUSTOM_NEW', v(39, **ADMIN), None),
            ('PUT', '/traits/CUSTOM_NEW', v(39, **ADMIN), None),
            ('PUT', '/traits/' + LONG_TRAIT, v(39, **ADMIN), None),
            ('PUT', '/traits/HW_CPU_X86_AVX2', v(39, **ADMIN), None),
            ('DELETE', '/traits/CUSTOM_RACK_A', v(39, **ADMIN), None),
            ('DELETE', '/traits/HW_CPU_X86_AVX2', v(39, **ADMIN), None),
            ('DELETE', '/traits/CUSTOM_NOPE', v(39, **ADMIN), None),
            ('DELETE', '/traits/CUSTOM_NEW', v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/traits' % RP2, v(39, **ADMIN), None),
            ('GET', '/resource_providers/nope/traits', v(39, **ADMIN), None),
            ('PUT', '/resource_providers/%s/traits' % RP2, v(39, **JSON), {'resource_provider_generation': 0, 'traits': []}),
            ('PUT', '/resource_providers/%s/traits' % RP2, v(39, **JSON), {'resource_provider_generation': 4, 'traits': ['NOPE']}),
            ('PUT', '/resource_providers/%s/traits' % RP2, v(39, **JSON), {'resource_provider_generation': 4, 'traits': ['COMPUTE_STATUS_DISABLED', 'HW_CPU_X86_AVX2']}),
            ('PUT', '/resource_providers/%s/traits' % RP2, v(39, **JSON), {'resource_provider_generation': 4, 'traits': ['HW_CPU_X86_AVX2', 'HW_CPU_X86_AVX2']}),
            ('PUT', '/resource_providers/%s/traits' % RP2, v(39, **JSON), {'resource_provider_generation': 5, 'traits': ['', 7]}),
            ('DELETE', '/resource_providers/%s/traits' % RP2, v(39, **ADMIN), None),
            ('DELETE', '/resource_providers/%s/traits' % RP3, v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/traits' % RP2, v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/aggregates' % RP2, v(39, **ADMIN), None),
            ('GET', '/resource_providers/%s/aggregates' % RP2, v(18, **ADMIN), None),
            ('PUT', '/resource_providers/%s/aggregates' % RP2, v(18, **JSON), [AGG2]),
            ('GET', '/resource_providers/%s' % RP2, v(39, **ADMIN), None),
            ('PUT', '/resource_providers/%s/aggregates' % RP2, v(39, **JSON), {'resource_provider_generation': 0, 'aggregates': []}),
            ('PUT', '/resource_providers/%s/aggregates' % RP2, v(39, **JSON), {'resource_provider_generation': 4, 'aggregates': [AGG1, AGG1.upper()]}),
            ('PUT', '/resource_providers/%s/aggregates' % RP2, v(39, **JSON), {'resource_provider_generation': 5, 'aggregates': [AGG2, AGG1]}),
            ('PUT', '/resource_providers/%s/aggregates' % RP2, v(39, **JSON), {'resource_provider_generation': 5, 'aggregates': 'x'}),
            ('PUT', '/resource_providers/nope/aggregates', v(39, **JSON), {'resource_provider_generation': 5, 'aggregates': []}),
            ('GET', '/resource_providers/%s/aggregates' % RP2, v(39, **ADMIN), None),
        ],
    },
    {
        'name': 'resource classes',
        'cloud': CLOUD,
        'exchanges': [
            ('GET', '/resource_classes', v(2, **ADMIN), None),
            ('GET', '/resource_classes', v(1, **ADMIN), None),
            ('GET', '/resource_classes/CUSTOM_GOLD', v(39, **ADMIN), None),
            ('GET', '/resource_classes/CUSTOM_NOPE', v(39, **ADMIN), None),
            ('POST', '/resource_classes', v(39, **JSON), {'name': 'CUSTOM_GOLD'}),
            ('POST', '/resource_classes', v(39, **JSON), {'name': 'VCPU'}),
            ('POST', '/resource_classes', v(39, **JSON), {'name': 'CUSTOM_SILVER'}),
            ('PUT', '/resource_classes/CUSTOM_SILVER', v(6, **JSON), {'name': 'CUSTOM_GOLD'}),
            ('PUT', '/resource_classes/CUSTOM_SILVER', v(6, **JSON), {'name': 'CUSTOM_BRONZE'}),
            ('PUT', '/resource_classes/VCPU', v(6, **JSON), {'name': 'CUSTOM_VCPU'}),
            ('PUT', '/resource_classes/CUSTOM_NOPE', v(6, **JSON), {'name': 'CUSTOM_X'}),
            ('PUT', '/resource_classes/CUSTOM_BRONZE', v(6, **ADMIN), None),
            ('PUT', '/resource_classes/CUSTOM_BRONZE', v(7, **ADMIN), None),
            ('PUT', '/resource_classes/CUSTOM_IRON', v(7, **ADMIN), None),
            ('PUT', '/resource_classes/VCPU', v(7, **ADMIN), None),
            ('PUT', '/resource_classes/CUSTOM_%22X', v(7, **ADMIN), None),
            ('DELETE', '/resource_classes/CUSTOM_GOLD', v(39, **ADMIN), None),
            ('DELETE', '/resource_classes/VCPU', v(39, **ADMIN), None),
            ('DELETE', '/resource_classes/CUSTOM_NOPE', v(39, **ADMIN), None),
            ('DELETE', '/resource_classes/CUSTOM_IRON', v(39, **ADMIN), None),
            ('GET', '/resource_classes', v(39, **ADMIN), None),
        ],
    },
    {
        'name': 'edges',
        'cloud': CLOUD,
        'exchanges': [
            ('GET', '/resource_providers?in_tree=dddddddd-dddd-4ddd-8ddd-dddddddddddd&required=CUSTOM_NOPE', v(39, **ADMIN), None),
            ('GET', '/resource_providers?required=HW_CPU_X86_SGX,!CUSTOM_NOPE', v(39, **ADMIN), None),
            ('GET', '/resource_providers?member_of=dddddddd-dddd-4ddd-8ddd-dddddddddddd&resources=CUSTOM_NOPE:1', v(39, **ADMIN), None),
            ('GET', '/resource_providers?required=!CUSTOM_NOPE&resources=CUSTOM_NOPE:1', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=CUSTOM_NOPE:1&required=CUSTOM_NOPE2', v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=VCPU:1,MEMORY_MB:1&in_tree=' + RP2, v(39, **ADMIN), None),
            ('GET', '/resource_providers?resources=VCPU:1&resources=MEMORY_MB:1', v(39, **ADMIN), None),
            ('GET', '/resource_providers?name=caf%C3%A9%20%F0%9F%98%80', v(39, **ADMIN), None),
            ('POST', '/resource_providers', v(39, **JSON), {'name': 'caf\u00e9 \U0001F600 <b>&', 'uuid': 'dddddddd-dddd-4ddd-8ddd-dddddddddddd'}),
            ('GET', '/resource_providers?name=caf%C3%A9%20%F0%9F%98%80%20%3Cb%3E%26', v(39, **ADMIN), None),
            ('POST', '/resource_providers', v(39, **JSON), {'name': 'caf\u00e9 <b>' * 30}),
            ('POST', '/resource_providers', v(39, **dict(JSON, accept='text/html')), {'name': '<i>"quoted"</i> & \u00e9' * 12}),
            ('POST', '/resource_providers', v(39, **dict(JSON, accept='text/plain')), {'name': 5}),
            ('GET', '/resource_providers/nope', v(39, **dict(ADMIN, accept='text/html')), None),
            ('PUT', '/resource_providers/' + RP2, v(39, **JSON), {'name': ''},
             ('Placement renames a provider to an empty name (while its create refuses one); placement-gql refuses both', 400)),
            ('PUT', '/resource_providers/' + RP2, v(39, **JSON), {'name': 'cn2'}),
            ('PUT', '/resource_providers/%s/traits' % RP1, v(39, **JSON), {'resource_provider_generation': 18446744073709551616, 'traits': []}),
            ('PUT', '/resource_providers/%s/inventories/VCPU' % RP1, v(39, **JSON), {'resource_provider_generation': 4, 'total': 18446744073709551616}),
            ('POST', '/resource_providers', dict(JSON, **{'content-length': '0'}), None),
            ('PUT', '/resource_providers/%s/aggregates' % RP1, v(39, **JSON), {'resource_provider_generation': 4, 'aggregates': ['{%s}' % AGG2, AGG2.replace('-', '')]}),
            ('GET', '/resource_providers/%s/aggregates' % RP1, v(39, **ADMIN), None),
            ('GET', '/resource_providers?member_of=' + AGG2, v(39, **ADMIN), None),
        ],
    },
    {
        'name': 'version gates and the order of checks',
        'cloud': CLOUD,
        'exchanges': [
            (method, path, headers, None)
            for path in ['/resource_classes', '/resource_classes/CUSTOM_GOLD', '/resource_providers', '/resource_providers/' + RP2,
                         '/resource_providers/%s/inventories' % RP2, '/resource_providers/%s/inventories/VCPU' % RP2,
                         '/resource_providers/%s/usages' % RP2, '/resource_providers/%s/aggregates' % RP2, '/traits',
                         '/traits/CUSTOM_RACK_A', '/resource_providers/%s/traits' % RP2]
            for method in ['GET', 'PUT', 'POST', 'DELETE']
            for headers in [v(1, **ADMIN), v(5, **ADMIN), v(6, **{'x-auth-token': 'user'}), v(39, **{'x-auth-token': 'user', 'accept': 'text/plain'}),
                            v(39, **{'x-auth-token': 'admin', 'accept': 'text/plain'})]
        ],
    },
    {
        'name': 'cors',
        'cloud': None,
        'cors': 'http://allowed.example',
        'exchanges': [
            ('OPTIONS', '/resource_providers', {'origin': 'http://allowed.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-auth-token,openstack-api-version'}, None),
            ('OPTIONS', '/resource_providers', {'origin': 'http://allowed.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-custom'}, None),
            ('OPTIONS', '/resource_providers', {'origin': 'http://allowed.example', 'access-control-request-method': 'TRACE'}, None),
            ('OPTIONS', '/resource_providers', {'origin': 'http://other.example', 'access-control-request-method': 'GET'}, None),
            ('OPTIONS', '/', {'origin': 'http://allowed.example'}, None),
            ('GET', '/resource_providers', dict(ADMIN, origin='http://allowed.example'), None),
            ('GET', '/nowhere', dict(ADMIN, origin='http://allowed.example'), None),
            ('GET', '/resource_providers', {'origin': 'http://allowed.example'}, None),
            ('GET', '/', {'origin': 'http://other.example'}, None),
        ],
    },
]

REQUEST_ID = re.compile(r'req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
KEPT_HEADERS = ('content-length', 'content-type', 'openstack-api-version', 'vary', 'allow', 'location', 'cache-control', 'last-modified',
                'access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age',
                'access-control-expose-headers')


def normalized(status, headers, body):
    """The answer as it is compared: request ids and times as markers, Location as a path below the API's root."""
    kept = {}
    for name in KEPT_HEADERS:
        if name in headers:
            value = headers[name]
            if name == 'last-modified':
                value = '<time>'
            if name == 'location':
                value = re.sub(r'^https?://[^/]+', '', value)
            kept[name] = value
    text = body.decode('utf-8', 'replace')
    return {'status': status, 'headers': kept, 'body': REQUEST_ID.sub('req-<id>', text)}


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


SERVER = r'''
import os, sys, wsgiref.simple_server as wss
from placement.wsgi import init_application
class Handler(wss.WSGIRequestHandler):
    def get_environ(self):
        env = super().get_environ()
        if self.headers.get('content-type') is None:
            env.pop('CONTENT_TYPE', None)
        return env
    def log_message(self, *args):
        pass
sys.argv[1:] = []
wss.make_server('127.0.0.1', int(os.environ['PORT']), init_application(), handler_class=Handler).serve_forever()
'''


class Placement:
    def __init__(self, cors=None):
        self.dir = tempfile.mkdtemp(prefix='rest-golden-')
        db = os.path.join(self.dir, 'placement.sqlite')
        conf = os.path.join(self.dir, 'placement.conf')
        with open(conf, 'w') as f:
            f.write('[DEFAULT]\nuse_stderr = false\n[api]\nauth_strategy = noauth2\n[placement_database]\nconnection = sqlite:///%s\n'
                    '[placement]\nrandomize_allocation_candidates = False\n' % db)
            if cors:
                f.write('[cors]\nallowed_origin = %s\n' % cors)
        subprocess.run(['placement-manage', '--config-file', conf, 'db', 'sync'], check=True, capture_output=True)
        self.port = free_port()
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=self.dir, PORT=str(self.port), PYTHONHASHSEED='0')
        self.proc = subprocess.Popen([sys.executable, '-c', SERVER], env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                if self.send('GET', '/', {}, None)[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError('Placement did not start')

    def send(self, method, path, headers, body):
        conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=60)
        data = body if isinstance(body, (str, bytes)) or body is None else json.dumps(body)
        if isinstance(data, str):
            data = data.encode('utf-8')
        conn.putrequest(method, path or '/', skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        if data is not None:
            conn.putheader('content-length', str(len(data)))
        conn.endheaders(data)
        r = conn.getresponse()
        out = r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        conn.close()
        return out

    def must(self, method, path, body, minor):
        headers = {'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.%d' % minor}
        if body is not None:
            headers['content-type'] = 'application/json'
        status, _, data = self.send(method, path, headers, body)
        if status >= 300:
            raise RuntimeError('%s %s: %d %s' % (method, path, status, data[:300]))
        return json.loads(data) if data else None

    def stop(self):
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def load(placement, cloud):
    """The cloud through Placement's API, then the same cloud as a placement-gql snapshot (generations included)."""
    for name in cloud['resource_classes']:
        placement.must('PUT', '/resource_classes/' + name, None, 7)
    for name in cloud['custom_traits']:
        placement.must('PUT', '/traits/' + name, None, 6)
    for uuid, name, parent in cloud['providers']:
        placement.must('POST', '/resource_providers', {'uuid': uuid, 'name': name, 'parent_provider_uuid': parent}, 39)
    for uuid, inventories in cloud['inventories'].items():
        placement.must('PUT', '/resource_providers/%s/inventories' % uuid, {'resource_provider_generation': 0, 'inventories': inventories}, 39)
    for uuid, traits in cloud['traits'].items():
        generation = placement.must('GET', '/resource_providers/' + uuid, None, 39)['generation']
        placement.must('PUT', '/resource_providers/%s/traits' % uuid, {'resource_provider_generation': generation, 'traits': traits}, 39)
    for uuid, aggregates in cloud['aggregates'].items():
        generation = placement.must('GET', '/resource_providers/' + uuid, None, 39)['generation']
        placement.must('PUT', '/resource_providers/%s/aggregates' % uuid, {'resource_provider_generation': generation, 'aggregates': aggregates}, 39)
    for consumer, allocations in cloud['allocations'].items():
        placement.must('PUT', '/allocations/' + consumer, {'allocations': {rp: {'resources': r} for rp, r in allocations.items()},
                                                            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None, 'consumer_type': 'INSTANCE'}, 39)
    providers = [{'uuid': uuid, 'name': name, 'parent': parent, 'generation': placement.must('GET', '/resource_providers/' + uuid, None, 39)['generation']}
                 for uuid, name, parent in cloud['providers']]
    return {'providers': providers, 'inventories': cloud['inventories'], 'traits': cloud['traits'], 'aggregates': cloud['aggregates'],
            'allocations': cloud['allocations'], 'consumers': {c: {'project_id': 'p', 'user_id': 'u', 'consumer_type': 'INSTANCE', 'generation': 1} for c in cloud['allocations']},
            'resource_classes': cloud['resource_classes'], 'custom_traits': cloud['custom_traits']}


def main():
    sessions = []
    for session in SESSIONS:
        placement = Placement(session.get('cors'))
        try:
            snapshot = load(placement, session['cloud']) if session['cloud'] else None
            exchanges = []
            for method, path, headers, body, *differs in session['exchanges']:
                status, answer_headers, data = placement.send(method, path, headers, body)
                request = {'method': method, 'path': path, 'headers': headers}
                if body is not None:
                    # The bytes sent, as latin-1 text (JSON as Python wrote it: 2.0 stays 2.0).
                    sent = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body)).encode('utf-8')
                    request['body'] = sent.decode('latin-1')
                exchange = {'request': request, 'answer': normalized(status, answer_headers, data)}
                if differs:
                    why, ours = differs[0] if isinstance(differs[0], tuple) else (differs[0], None)
                    exchange['differs'] = why
                    if ours is not None:
                        exchange['ourStatus'] = ours
                exchanges.append(exchange)
            sessions.append({'name': session['name'], 'cors': session.get('cors'), 'snapshot': snapshot, 'exchanges': exchanges})
        finally:
            placement.stop()
    json.dump({'source': 'Placement 8.0.0 (Debian python3-placement 8.0.0-2) on wsgiref, noauth2, SQLite; recorded by scripts/golden/rest_exchanges.py',
               'sessions': sessions}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
