#!/usr/bin/python3
"""Checks clouds.py against Placement's own fixture classes.

    /usr/bin/python3 test/gabbi/check_clouds.py [FIXTURE ...]

For each fixture class (default: every one with a cloud), runs the real class from Debian's
python3-placement (placement/tests/functional/fixtures/gabbits.py, the same file as tag 8.0.0)
in-process, as Placement's functional tests do, and reads its in-memory database; then loads
clouds.py's version of it through Placement's REST API, as the harness does, and reads that
database. The two must hold the same rows: providers with their parents and generations,
inventories, allocations, consumers (generation, no consumer type, project and user), custom
resource classes and traits with their ids, provider traits and aggregates, projects and users,
and the same environment variables. uuids differ from run to run, so both are compared with
every uuid replaced by its role (an environment variable's name, a provider's name, a consumer's
allocations). oslotest, which the fixtures import for output and log capture only, is not
packaged in Debian: two inert stand-ins take its place.
"""
import json
import os
import re
import sqlite3
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the project's tree
import clouds  # noqa: E402
import harness  # noqa: E402

FIXTURES = ['APIFixture', 'AllocationFixture', 'SharedStorageFixture', 'NUMAAggregateFixture',
            'NUMANetworkFixture', 'DeepNUMANetworkFixture', 'NonSharedStorageFixture', 'CORSFixture',
            'GranularFixture', 'NeutronQoSMultiSegmentFixture']

UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')

QUERIES = {
    'providers': 'SELECT p.uuid, p.name, p.generation, pp.uuid AS parent, r.uuid AS root FROM resource_providers p '
                 'LEFT JOIN resource_providers pp ON pp.id = p.parent_provider_id JOIN resource_providers r ON r.id = p.root_provider_id',
    'inventories': 'SELECT p.name, i.resource_class_id, i.total, i.reserved, i.min_unit, i.max_unit, i.step_size, i.allocation_ratio '
                   'FROM inventories i JOIN resource_providers p ON p.id = i.resource_provider_id',
    'allocations': 'SELECT p.name, a.consumer_id, a.resource_class_id, a.used FROM allocations a '
                   'JOIN resource_providers p ON p.id = a.resource_provider_id',
    'consumers': 'SELECT c.uuid, c.generation, c.consumer_type_id, pr.external_id AS project, u.external_id AS user '
                 'FROM consumers c JOIN projects pr ON pr.id = c.project_id JOIN users u ON u.id = c.user_id',
    'custom_classes': "SELECT id, name FROM resource_classes WHERE name LIKE 'CUSTOM_%'",
    'custom_traits': "SELECT id, name FROM traits WHERE name LIKE 'CUSTOM_%'",
    'provider_traits': 'SELECT p.name, t.name FROM resource_provider_traits rt JOIN traits t ON t.id = rt.trait_id '
                       'JOIN resource_providers p ON p.id = rt.resource_provider_id',
    'provider_aggregates': 'SELECT p.name, a.uuid FROM resource_provider_aggregates ra '
                           'JOIN placement_aggregates a ON a.id = ra.aggregate_id JOIN resource_providers p ON p.id = ra.resource_provider_id',
    'projects': 'SELECT external_id FROM projects',
    'users': 'SELECT external_id FROM users',
}


def stand_in_oslotest():
    import logging
    import fixtures
    oslotest = types.ModuleType('oslotest')
    output = types.ModuleType('oslotest.output')
    log = types.ModuleType('oslotest.log')

    class CaptureOutput(fixtures.Fixture):
        pass

    class ConfigureLogging(fixtures.Fixture):
        def __init__(self, *args, **kwargs):
            super().__init__()
            self.level = logging.INFO

    output.CaptureOutput, log.ConfigureLogging = CaptureOutput, ConfigureLogging
    oslotest.output, oslotest.log = output, log
    sys.modules.update({'oslotest': oslotest, 'oslotest.output': output, 'oslotest.log': log})


def canonical(rows, env):
    """The rows with every uuid replaced by its role."""
    names = {r[0]: r[1] for r in rows['providers']}
    names.update({v: '$' + k for k, v in sorted(env.items())})
    text = UUID.sub(lambda m: names.get(m.group(0), m.group(0)), json.dumps(rows, default=str))
    held = {}
    for provider, consumer, rc, used in json.loads(text)['allocations']:
        held.setdefault(consumer, []).append([provider, rc, used])
    for consumer, what in held.items():
        text = text.replace(consumer, 'consumer of %s' % sorted(what))
    return {k: sorted(json.dumps(r) for r in v) for k, v in json.loads(text).items()}


def real_fixture(name):
    """The fixture class itself, in this process; returns (rows, environment variables it set)."""
    stand_in_oslotest()
    import sqlalchemy as sa
    from placement import db_api
    from placement.tests.functional.fixtures import gabbits
    before = dict(os.environ)
    fixture = getattr(gabbits, name)()
    fixture.start_fixture()
    try:
        env = {k: v for k, v in os.environ.items() if before.get(k) != v}
        with db_api.get_placement_engine().connect() as c:
            rows = {k: [list(r) for r in c.execute(sa.text(q))] for k, q in QUERIES.items()}
    finally:
        fixture.stop_fixture()
        for k in env:
            if k in before:
                os.environ[k] = before[k]
            else:
                del os.environ[k]
    return rows, env


def through_api(name, workdir):
    """clouds.py's version, loaded through Placement's REST API as the harness loads it."""
    target = harness.Placement(workdir)
    cloud = clouds.build([name])
    rundir = tempfile.mkdtemp(dir=workdir)
    proc, _ = target.start(cloud, rundir)
    harness.stop(proc)
    con = sqlite3.connect(os.path.join(rundir, 'placement.sqlite'))
    rows = {k: [list(r) for r in con.execute(q)] for k, q in QUERIES.items()}
    con.close()
    return rows, cloud.env


def main():
    names = sys.argv[1:] or FIXTURES
    status = 0
    for name in names:
        workdir = tempfile.mkdtemp(prefix='check-clouds-')
        real_rows, real_env = real_fixture(name)
        api_rows, api_env = through_api(name, workdir)
        real, api = canonical(real_rows, real_env), canonical(api_rows, api_env)
        same = real == api and sorted(real_env) == sorted(api_env)
        print('%-32s %s (%d providers, %d consumers)' % (name, 'same' if same else 'DIFFERENT',
                                                       len(real_rows['providers']), len(real_rows['consumers'])))
        if not same:
            status = 1
            for k in real:
                if real[k] != api.get(k):
                    print('  %s: fixture %s\n  %s: API     %s' % (k, real[k], k, api.get(k)))
            if sorted(real_env) != sorted(api_env):
                print('  variables: fixture %s, harness %s' % (sorted(real_env), sorted(api_env)))
    return status


if __name__ == '__main__':
    sys.exit(main())
