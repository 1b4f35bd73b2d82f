#!/usr/bin/python3
"""Placement 8.0.0's own gabbi files against a Placement REST API: the real Placement, or placement-gql.

    /usr/bin/python3 test/gabbi/harness.py placement [FILE ...] [-o RESULTS.json]
    /usr/bin/python3 test/gabbi/harness.py gql [FILE ...] [-o RESULTS.json] [--baseline test/gabbi/baseline.json]
    /usr/bin/python3 test/gabbi/harness.py list
    /usr/bin/python3 test/gabbi/harness.py cloud FILE          # the snapshot and variables a file gets
    /usr/bin/python3 test/gabbi/harness.py record-rest DIR     # Placement's version document and auth refusals

For every gabbi file (default: every file but the policy ones), on a fresh database: build the
cloud of the file's fixture (clouds.py) with new uuids, start the target loaded with it, run
`gabbi-run URL -- FILE` with the fixture's environment variables, and count the tests run,
passed, failed and skipped, and which failed.

Targets:
  placement  Placement 8.0.0 (Debian's python3-placement) served by wsgiref on loopback
             (placement_wsgi.py), noauth2, a SQLite file;
             the cloud is loaded through its REST API, step by step as the fixture builds it. URL:
             http://127.0.0.1:PORT (Placement serves at the root).
  gql        `placement-gql import SNAPSHOT --db FILE`, then `placement-gql serve --db FILE`. URL:
             http://127.0.0.1:PORT/placement.

Needs only Debian's /usr/bin/python3 with python3-gabbi (and python3-placement for the placement
target). Exit status: 0 when every file ran (and, with --baseline, passed at least as many tests as
the baseline says), 1 otherwise.
"""
import argparse
import concurrent.futures
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
import urllib.error
import urllib.request

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the project's tree
import clouds  # noqa: E402

GABBITS = os.path.join(HERE, 'gabbits')
PROJECT = os.path.dirname(os.path.dirname(HERE))
GABBI_RUN = shutil.which('gabbi-run') or '/usr/bin/gabbi-run'
FILE_TIMEOUT = 300


# ---- gabbi files ---------------------------------------------------------------------------

def gabbi_file(name):
    path = name if os.sep in name else os.path.join(GABBITS, name if name.endswith('.yaml') else name + '.yaml')
    if not os.path.isfile(path):
        raise SystemExit('no gabbi file %s' % name)
    return path


def describe(path):
    """The file's fixtures and its test names, in order."""
    with open(path) as f:
        data = yaml.safe_load(f)
    fixtures = data.get('fixtures') or ['APIFixture']
    return {'fixtures': fixtures, 'tests': [t['name'] for t in data['tests']],
            'policy': any(f in clouds.POLICY_FIXTURES for f in fixtures)}


def all_files(include_policy=False):
    names = sorted(f for f in os.listdir(GABBITS) if f.endswith('.yaml'))
    return [os.path.join(GABBITS, f) for f in names
            if include_policy or not describe(os.path.join(GABBITS, f))['policy']]


# ---- small HTTP and process helpers --------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http(method, url, body=None, headers=None, timeout=60):
    data = json.dumps(body).encode() if body is not None else None
    h = dict(headers or {})
    if data is not None:
        h['content-type'] = 'application/json'
    req = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


def wait_for(url, proc, log, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError('the server exited (status %s); its log: %s' % (proc.returncode, log))
        try:
            status, _, _ = http('GET', url, timeout=5)
            if status < 500:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError('the server did not answer %s in %d s; its log: %s' % (url, seconds, log))


# Servers run in sessions of their own: they are stopped here, also when the harness is told to stop.
LIVE = set()


def started(proc):
    LIVE.add(proc)
    return proc


def stop(proc):
    LIVE.discard(proc)
    if proc is None or proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


# ---- the real Placement --------------------------------------------------------------------

class Placement:
    """Debian's placement-api, as Placement's functional tests configure it (fixtures/gabbits.py
    APIFixture): noauth2, default policy, randomize_allocation_candidates off."""
    name = 'placement'
    def __init__(self, workdir, hash_seed='0', prefix=''):
        self.workdir = workdir
        self.hash_seed = hash_seed
        self.prefix = prefix
        self.template = os.path.join(workdir, 'template.sqlite')
        conf_dir = os.path.join(workdir, 'template')
        os.makedirs(conf_dir)
        conf = self._write_conf(conf_dir, self.template, None)
        subprocess.run(['placement-manage', '--config-file', conf, 'db', 'sync'], check=True, capture_output=True)

    @staticmethod
    def _write_conf(conf_dir, db, cors, policy='default'):
        secure = policy == 'secure'
        text = ('[DEFAULT]\nuse_stderr = true\n[api]\nauth_strategy = noauth2\n'
                '[placement_database]\nconnection = sqlite:///%s\n'
                '[placement]\nrandomize_allocation_candidates = False\n'
                '[oslo_policy]\nenforce_scope = %s\nenforce_new_defaults = %s\n' % (db, secure, secure))
        if policy == 'open':  # written by placement_wsgi.py
            text += 'policy_file = %s\n' % os.path.join(conf_dir, 'policy.yaml')
        if cors:
            text += '[cors]\nallowed_origin = %s\nallow_headers = %s\n' % (cors['allowed_origin'], ','.join(cors['allow_headers']))
        path = os.path.join(conf_dir, 'placement.conf')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def start(self, cloud, rundir):
        db = os.path.join(rundir, 'placement.sqlite')
        shutil.copyfile(self.template, db)
        self._write_conf(rundir, db, cloud.cors, cloud.policy)
        port = free_port()
        log = os.path.join(rundir, 'placement-api.log')
        # A fixed hash seed: Placement keeps traits and candidates in sets, and the baseline is a record.
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=rundir, PYTHONHASHSEED=self.hash_seed)
        if cloud.policy == 'open':
            env['PLACEMENT_OPEN_POLICY'] = '1'
        with open(log, 'w') as out:
            proc = started(subprocess.Popen([sys.executable, os.path.join(HERE, 'placement_wsgi.py'), '--port', str(port),
                                             '--prefix', self.prefix], env=env,
                                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        url = 'http://127.0.0.1:%d%s' % (port, self.prefix)
        try:
            wait_for(url + '/', proc, log)
            load_through_api(url, cloud)
            check_loaded(url, cloud)
        except Exception:
            stop(proc)
            raise
        return proc, url


ADMIN = {'x-auth-token': 'admin', 'accept': 'application/json'}


def call(url, method, path, body=None, version='1.39', ok=(200, 201, 204)):
    headers = dict(ADMIN, **{'openstack-api-version': 'placement %s' % version})
    status, data, _ = http(method, url + path, body, headers)
    if status not in ok:
        raise RuntimeError('%s %s -> %d: %s' % (method, path, status, data[:400].decode('utf-8', 'replace')))
    return json.loads(data) if data else None


def load_through_api(url, cloud):
    """The fixture's steps through Placement's REST API, at microversions that do what its object layer did."""
    generation = {}
    for step in cloud.steps:
        kind = step[0]
        if kind == 'resource_class':
            call(url, 'PUT', '/resource_classes/%s' % step[1], version='1.7', ok=(201,))
        elif kind == 'trait':
            call(url, 'PUT', '/traits/%s' % step[1], version='1.6', ok=(201,))
        elif kind == 'provider':
            _, uuid, name, parent = step
            rp = call(url, 'POST', '/resource_providers', {'uuid': uuid, 'name': name, 'parent_provider_uuid': parent}, version='1.20')
            generation[uuid] = rp['generation']
        elif kind == 'aggregates':
            # Before 1.19 setting aggregates leaves the generation alone, as the object layer does.
            call(url, 'PUT', '/resource_providers/%s/aggregates' % step[1], step[2], version='1.1', ok=(200,))
        elif kind == 'inventory':
            _, uuid, rc, fields = step
            body = dict(fields, resource_class=rc, resource_provider_generation=generation[uuid])
            call(url, 'POST', '/resource_providers/%s/inventories' % uuid, body, version='1.0', ok=(201,))
            generation[uuid] += 1
        elif kind == 'traits':
            _, uuid, traits = step
            got = call(url, 'PUT', '/resource_providers/%s/traits' % uuid,
                       {'traits': traits, 'resource_provider_generation': generation[uuid]}, version='1.6')
            generation[uuid] = got['resource_provider_generation']
        elif kind == 'allocation':
            _, consumer, project, user, rp, used = step
            # 1.28: consumer generations, and no consumer type (the fixtures' consumers have none).
            call(url, 'PUT', '/allocations/%s' % consumer,
                 {'allocations': {rp: {'resources': used}}, 'project_id': project, 'user_id': user,
                  'consumer_generation': None}, version='1.28', ok=(204,))
            generation[rp] += 1
        else:
            raise ValueError(step)


def check_loaded(url, cloud):
    """What Placement holds after the replay is what the snapshot says, generations included."""
    snap = cloud.snapshot()
    problems = []
    for p in snap['providers']:
        u = p['uuid']
        got = call(url, 'GET', '/resource_providers/%s' % u)
        if (got['name'], got['parent_provider_uuid'], got['generation']) != (p['name'], p['parent'], p['generation']):
            problems.append('provider %s: %r' % (p['name'], got))
        inv = call(url, 'GET', '/resource_providers/%s/inventories' % u)['inventories']
        if inv != snap['inventories'].get(u, {}):
            problems.append('inventories of %s: %r' % (p['name'], inv))
        if sorted(call(url, 'GET', '/resource_providers/%s/traits' % u)['traits']) != sorted(snap['traits'].get(u, [])):
            problems.append('traits of %s' % p['name'])
        if sorted(call(url, 'GET', '/resource_providers/%s/aggregates' % u)['aggregates']) != sorted(snap['aggregates'].get(u, [])):
            problems.append('aggregates of %s' % p['name'])
    for c, meta in snap['consumers'].items():
        got = call(url, 'GET', '/allocations/%s' % c, version='1.38')
        want = {rp: {'resources': r} for rp, r in snap['allocations'][c].items()}
        if ({k: v['resources'] for k, v in got['allocations'].items()}, got['project_id'], got['user_id'],
                got['consumer_generation'], got['consumer_type']) != (
                {k: v['resources'] for k, v in want.items()}, meta['project_id'], meta['user_id'], meta['generation'], 'unknown'):
            problems.append('consumer %s: %r' % (c, got))
    if problems:
        raise RuntimeError('the cloud loaded into Placement differs from the snapshot: ' + '; '.join(problems))


# ---- placement-gql -------------------------------------------------------------------------

class PlacementGql:
    name = 'gql'
    prefix = '/placement'

    def __init__(self, command):
        self.command = command

    def start(self, cloud, rundir):
        db = os.path.join(rundir, 'gql.db')
        snapshot = os.path.join(rundir, 'snapshot.json')
        with open(snapshot, 'w') as f:
            json.dump(cloud.snapshot(), f, indent=1)
        log = os.path.join(rundir, 'serve.log')
        if cloud.providers or cloud.custom_classes or cloud.custom_traits:
            done = subprocess.run(self.command + ['import', snapshot, '--db', db], capture_output=True, text=True, cwd=PROJECT,
                                  timeout=120)
            if done.returncode != 0:
                raise RuntimeError('placement-gql import failed (%d): %s' % (done.returncode, (done.stderr or done.stdout)[-2000:]))
        port = free_port()
        with open(log, 'w') as out:
            proc = started(subprocess.Popen(self.command + ['serve', '--db', db, '--host', '127.0.0.1', '--port', str(port),
                                                            '--workers', '1', '--quiet'],
                                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True, cwd=PROJECT,
                                            env=dict(os.environ, **gql_server_env(cloud))))
        url = 'http://127.0.0.1:%d' % port
        try:
            wait_for(url + '/health', proc, log)
        except Exception:
            stop(proc)
            raise
        return proc, url + self.prefix


def gql_server_env(cloud):
    """What the server needs beyond the snapshot. CORSFixture turns on Placement's CORS middleware
    ([cors] allowed_origin, allow_headers): placement-gql's equivalent is passed here."""
    if not cloud.cors:
        return {}
    return {'PLACEMENT_CORS_ALLOWED_ORIGIN': cloud.cors['allowed_origin'],
            'PLACEMENT_CORS_ALLOW_HEADERS': ','.join(cloud.cors['allow_headers'])}


# ---- running one file ----------------------------------------------------------------------

RESULT_LINE = re.compile(r'^\.\.\. (✓|✗|E|-|o|!) (.*)$')
REPORT_HEAD = re.compile(r'^(FAIL|ERROR|UNEXPECTED SUCCESS): (.*)$')


def run_gabbi(url, path, env):
    """gabbi-run URL -- FILE, as the judge runs it; its report (stderr, one line per test) read back."""
    info = describe(path)
    done = subprocess.run([GABBI_RUN, url, '--', path], capture_output=True, text=True, timeout=FILE_TIMEOUT,
                          env=dict(os.environ, PYTHONIOENCODING='utf-8', **env))
    marks, reasons, current = [], {}, None
    for line in done.stderr.splitlines():
        m = RESULT_LINE.match(line)
        if m:
            marks.append((m.group(1), m.group(2)))
            current = None
            continue
        m = REPORT_HEAD.match(line)
        if m:
            current = m.group(2)
            reasons[current] = []
        elif current is not None and line.startswith('\t'):
            reasons[current].append(line[1:])
        elif line.startswith('Ran ') or line.startswith('---'):
            current = None
    base = os.path.splitext(os.path.basename(path))[0]
    if len(marks) != len(info['tests']):
        raise RuntimeError('gabbi-run reported %d results for %d tests of %s (status %d): %s'
                           % (len(marks), len(info['tests']), base, done.returncode, done.stderr[-3000:]))
    result = {'run': 0, 'passed': 0, 'failed': 0, 'skipped': 0, 'failedTests': [], 'reasons': {}}
    for name, (mark, desc) in zip(info['tests'], marks):
        expected_id = 'gabbi-runner.%s_%s' % (base, name.lower().replace(' ', '_'))
        if not (desc == expected_id or desc.startswith(expected_id + ': ')):
            raise RuntimeError('gabbi-run reported %r where %r was expected' % (desc, expected_id))
        if mark == '-':
            result['skipped'] += 1
            continue
        result['run'] += 1
        if mark in ('✓', 'o'):
            result['passed'] += 1
        else:
            result['failed'] += 1
            result['failedTests'].append(name)
            text = ' '.join(' '.join(reasons.get(desc, [])).split())
            result['reasons'][name] = text[:400]
    if (done.returncode == 0) != (result['failed'] == 0):
        raise RuntimeError('gabbi-run exit status %d disagrees with %d failures' % (done.returncode, result['failed']))
    return result


def run_file(target, path, seed, keep):
    info = describe(path)
    cloud = clouds.build(info['fixtures'], seed)
    rundir = tempfile.mkdtemp(prefix='gabbi-%s-' % os.path.splitext(os.path.basename(path))[0])
    began = time.time()
    proc = None
    try:
        proc, url = target.start(cloud, rundir)
        ready = time.time()
        result = run_gabbi(url, path, cloud.env)
        result['seconds'] = round(time.time() - began, 1)
        result['gabbiSeconds'] = round(time.time() - ready, 1)
    except Exception as error:  # a file that cannot run counts every test as failed
        tests = info['tests']
        result = {'run': len(tests), 'passed': 0, 'failed': len(tests), 'skipped': 0, 'failedTests': list(tests),
                  'reasons': {}, 'error': str(error)[:3000], 'seconds': round(time.time() - began, 1)}
    finally:
        stop(proc)
        if not keep:
            shutil.rmtree(rundir, ignore_errors=True)
    result['fixtures'] = info['fixtures']
    if keep:
        result['dir'] = rundir
    return result


def run_all(target, files, jobs, seed, keep, quiet):
    results = {}

    def one(path):
        return os.path.basename(path), run_file(target, path, seed, keep)

    if jobs == 1:
        done = map(one, files)
    else:
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        done = pool.map(one, files)
    for name, r in done:
        results[name] = r
        if not quiet:
            line = '%-48s run %3d  passed %3d  failed %3d  skipped %2d  %5.1fs' % (
                name, r['run'], r['passed'], r['failed'], r['skipped'], r['seconds'])
            if r.get('error'):
                line += '  ERROR: ' + r['error'].splitlines()[0][:200]
            print(line, flush=True)
    return results


def compare_with_baseline(results, baseline):
    """Files that pass fewer tests than the baseline (the real Placement under this harness)."""
    worse = {}
    for name, r in results.items():
        b = baseline.get(name)
        if b is not None and r['passed'] < b['passed']:
            worse[name] = {'passed': r['passed'], 'baseline': b['passed'],
                           'newlyFailing': [t for t in r['failedTests'] if t not in b['failedTests']]}
    return worse


# ---- the version document and the auth refusals, for reference -----------------------------

def record_rest(outdir):
    """GET / with its headers, the 401 without a token and the 403 for a token without roles."""
    workdir = tempfile.mkdtemp(prefix='gabbi-record-')
    target = Placement(workdir)
    cloud = clouds.build(['APIFixture'], seed=0)
    proc, url = target.start(cloud, workdir)
    try:
        def exchange(method, path, headers, note, data=None):
            status, body, h = http(method, url + path, data, headers)
            skip = {'date', 'server', 'x-openstack-request-id', 'last-modified'}
            text = body.decode('utf-8')
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            request = {'method': method, 'path': path, 'headers': dict(headers, **({'content-type': 'application/json'} if data else {}))}
            if data is not None:
                request['body'] = data
            return {'note': note, 'request': request,
                    'status': status,
                    'headers': {k.lower(): v for k, v in h.items() if k.lower() not in skip},
                    'varyingHeaders': sorted(k.lower() for k in h.keys() if k.lower() in skip),
                    'body': text, 'json': parsed}
        os.makedirs(outdir, exist_ok=True)
        records = {
            'version-document.json': [
                exchange('GET', '/', {}, 'no token, no microversion: the version document answers at 1.0'),
                exchange('GET', '/', {'accept': 'application/json', 'openstack-api-version': 'placement latest'},
                         'no token, latest microversion'),
                exchange('GET', '/', {'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.39'},
                         'admin token at 1.39'),
            ],
            'noauth-401.json': [
                exchange('GET', '/resource_providers', {'accept': 'application/json'},
                         "noauth2 without X-Auth-Token: refused by its middleware with webob's HTTPUnauthorized, whose body follows the Accept header (JSON unless HTML is asked for), outside Placement's errors[] format"),
                exchange('GET', '/resource_providers', {},
                         'the same without an accept header'),
                exchange('GET', '/resource_providers', {'accept': 'text/html'},
                         'the same asking for HTML'),
                exchange('GET', '/resource_providers', {'accept': 'application/json', 'openstack-api-version': 'placement 1.39'},
                         'the same at 1.39'),
            ],
            'non-admin-403.json': [
                exchange('POST', '/resource_classes', {'x-auth-token': 'user', 'accept': 'application/json', 'openstack-api-version': 'placement 1.39'},
                         'a token without the admin role on an admin route (noauth2: any token but admin or admin:PROJECT)',
                         {'name': 'CUSTOM_GABBI'}),
                exchange('POST', '/resource_classes', {'x-auth-token': 'user', 'accept': 'application/json', 'openstack-api-version': 'placement 1.39'},
                         'without a body: the media type is checked before the policy (415, not 403)'),
                exchange('GET', '/resource_providers', {'x-auth-token': 'user', 'accept': 'application/json'},
                         'the same on a read, at 1.0'),
                exchange('GET', '/resource_providers', {'x-auth-token': 'user:project', 'accept': 'application/json', 'openstack-api-version': 'placement 1.39'},
                         'user:project at 1.39'),
            ],
        }
        for name, value in records.items():
            with open(os.path.join(outdir, name), 'w') as f:
                json.dump({'source': 'Placement 8.0.0 (Debian python3-placement 8.0.0-2) served by wsgiref (test/gabbi/placement_wsgi.py), noauth2, default policy; headers that vary per request or server (date, server, x-openstack-request-id, last-modified) are named in varyingHeaders, not recorded',
                           'made by': 'test/gabbi/harness.py record-rest', 'exchanges': value}, f, indent=2, ensure_ascii=False)
                f.write('\n')
            print('wrote', os.path.join(outdir, name))
    finally:
        stop(proc)
        shutil.rmtree(workdir, ignore_errors=True)


# ---- command line --------------------------------------------------------------------------

def on_signal(signum, _frame):
    for proc in list(LIVE):
        stop(proc)
    os._exit(128 + signum)


def main():
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('target', choices=['placement', 'gql', 'list', 'cloud', 'record-rest'])
    ap.add_argument('files', nargs='*', help='gabbi files (names under test/gabbi/gabbits or paths); default: every non-policy file')
    ap.add_argument('-o', '--out', help='write the per-file results (JSON) here')
    ap.add_argument('--policy', action='store_true', help='also run the policy files')
    ap.add_argument('--jobs', type=int, default=1, help='files run at once (default 1)')
    ap.add_argument('--seed', type=int, help='make the uuids reproducible')
    ap.add_argument('--hash-seed', default='0', help="Placement's PYTHONHASHSEED (default 0; 'random' as Python's default)")
    ap.add_argument('--prefix', default='', help='placement target: mount Placement under this path (e.g. /placement), as a WSGI server would')
    ap.add_argument('--keep', action='store_true', help='keep each run folder (database, snapshot, server log)')
    ap.add_argument('--command', help="how to run placement-gql (default: node bin/placement-gql.mjs)")
    ap.add_argument('--baseline', help='compare with this baseline; exit 1 when a file passes fewer tests')
    ap.add_argument('--write-baseline', metavar='FILE', help='write the per-file counts as a baseline (file -> run, passed, failed, failedTests)')
    ap.add_argument('-q', '--quiet', action='store_true')
    a = ap.parse_args()

    if a.target == 'record-rest':
        record_rest(a.files[0] if a.files else os.path.join(PROJECT, 'test', 'fixtures', 'rest'))
        return 0
    files = [gabbi_file(f) for f in a.files] if a.files else all_files(a.policy)
    if a.target == 'list':
        for path in all_files(True):
            info = describe(path)
            print('%-48s %-32s %3d tests%s' % (os.path.basename(path), ','.join(info['fixtures']), len(info['tests']),
                                                '  (policy)' if info['policy'] else ''))
        return 0
    if a.target == 'cloud':
        cloud = clouds.build(describe(files[0])['fixtures'], a.seed)
        json.dump({'env': cloud.env, 'cors': cloud.cors, 'snapshot': cloud.snapshot()}, sys.stdout, indent=1)
        print()
        return 0

    workdir = tempfile.mkdtemp(prefix='gabbi-harness-')
    try:
        if a.target == 'placement':
            target = Placement(workdir, a.hash_seed, a.prefix)
        else:
            command = a.command.split() if a.command else ['node', os.path.join(PROJECT, 'bin', 'placement-gql.mjs')]
            target = PlacementGql(command)
        began = time.time()
        results = run_all(target, files, max(1, a.jobs), a.seed, a.keep, a.quiet)
        seconds = time.time() - began
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    totals = {k: sum(r[k] for r in results.values()) for k in ('run', 'passed', 'failed', 'skipped')}
    errors = [name for name, r in results.items() if r.get('error')]
    summary = dict(target=a.target, files=len(results), seconds=round(seconds, 1), **totals)
    if not a.quiet:
        print('%s: %d files, %d tests run, %d passed, %d failed, %d skipped, %.0f s'
              % (a.target, len(results), totals['run'], totals['passed'], totals['failed'], totals['skipped'], seconds))
    status = 1 if errors else 0
    if a.baseline:
        with open(a.baseline) as f:
            worse = compare_with_baseline(results, json.load(f))
        summary['worseThanBaseline'] = worse
        if worse:
            status = 1
            if not a.quiet:
                for name, w in sorted(worse.items()):
                    print('below the baseline: %s passes %d of the %d the real Placement passes'
                          % (name, w['passed'], w['baseline']))
    if a.write_baseline:
        with open(a.write_baseline, 'w') as f:
            json.dump({name: {k: r[k] for k in ('run', 'passed', 'failed', 'failedTests')} for name, r in sorted(results.items())},
                      f, indent=1)
            f.write('\n')
    if a.out:
        with open(a.out, 'w') as f:
            json.dump({'summary': summary, 'files': results}, f, indent=1, ensure_ascii=False)
            f.write('\n')
    return status


if __name__ == '__main__':
    sys.exit(main())
