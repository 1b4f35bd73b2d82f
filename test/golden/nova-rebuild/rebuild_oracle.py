#!/usr/bin/python3
"""Runs Nova 26's rebuild pre-flight (ComputeTaskManager._validate_image_traits_for_rebuild) on cases.

Only the services around it are stubbed: the image API returns the case's image, the report client
returns the case's allocations and a real ProviderTree holding the providers and their traits.
Input: a JSON array of {"id", "extra_specs", "image_properties", "allocations": {rp: {RC: n}},
"providers": [{"uuid", "name", "parent"?, "traits"}]}. Output: [{"id", "allowed", "reason", "error"}].
"""
import json
import os
import sys
from unittest import mock

os.environ.setdefault('OS_NOVA_DISABLE_EVENTLET_PATCHING', '1')
import warnings  # noqa: E402
warnings.filterwarnings('ignore')

from nova.compute import provider_tree  # noqa: E402
from nova.conductor import manager  # noqa: E402
from nova import context as nova_context  # noqa: E402
from nova import exception  # noqa: E402
from nova import objects  # noqa: E402

objects.register_all()


def run(case):
    tree = provider_tree.ProviderTree()
    for p in case['providers']:
        tree.new_root(p['name'], p['uuid']) if not p.get('parent') else tree.new_child(p['name'], p['parent'], p['uuid'])
        tree.update_traits(p['uuid'], p.get('traits', []))
    task = manager.ComputeTaskManager.__new__(manager.ComputeTaskManager)
    task.image_api = mock.Mock(get=mock.Mock(return_value={'id': 'img', 'name': 'img', 'properties': case['image_properties']}))
    client = mock.Mock(
        get_allocations_for_consumer=mock.Mock(return_value=case['allocations']),
        get_provider_tree_and_ensure_root=mock.Mock(return_value=tree))
    instance = objects.Instance(uuid='c0ffee00-0000-4000-8000-000000000001', host='host', node='node',
                                flavor=objects.Flavor(extra_specs=case['extra_specs']))
    out = {'id': case['id'], 'allowed': True, 'reason': None, 'error': None}
    with mock.patch('nova.scheduler.client.report.report_client_singleton', return_value=client), \
            mock.patch.object(objects.ComputeNode, 'get_by_host_and_nodename', return_value=mock.Mock(uuid=case['providers'][0]['uuid'] if case['providers'] else 'none')):
        try:
            task._validate_image_traits_for_rebuild(nova_context.get_admin_context(), instance, 'img')
        except exception.NoValidHost as e:
            out.update(allowed=False, reason=e.format_message())
        except Exception as e:  # what Nova raises besides its verdicts
            out.update(allowed=False, error='%s: %s' % (type(e).__name__, e))
    return out


cases = json.load(open(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] != '-' else sys.stdin)
json.dump([run(c) for c in cases], sys.stdout, indent=1)
print()
