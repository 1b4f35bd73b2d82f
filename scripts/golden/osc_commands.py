#!/usr/bin/python3
"""Record what `openstack` (python3-openstackclient 6.0.0 + osc-placement 4.0.0) prints for each
command of a cases file, run in order against a live Placement 8.0.0 (later commands see what
earlier ones wrote): {recorded_with, cases: [{args, stdout, stderr, status}]}. No microversion is
given unless a case gives one (osc-placement then negotiates 1.29).

usage: osc_commands.py URL CASES.json OUT.json
  /usr/bin/python3 ../shared/oracle/live_placement.py --port 18791 --load demo/demo-cloud.json &
  /usr/bin/python3 scripts/golden/osc_commands.py http://127.0.0.1:18791 test/golden/osc-more/cases.json test/golden/osc-more/reads.recorded.json
"""
import json, subprocess, sys

url, cases_file, out_file = sys.argv[1:4]
base = ['openstack', '--os-auth-type', 'admin_token', '--os-token', 'admin', '--os-endpoint', url]
out = []
for args in json.load(open(cases_file)):
    r = subprocess.run(base + args, capture_output=True, text=True,
                       env={'PATH': '/usr/bin:/bin', 'COLUMNS': '1000', 'LANG': 'C.UTF-8'})
    out.append({'args': args, 'stdout': r.stdout, 'stderr': r.stderr, 'status': r.returncode})
json.dump({'recorded_with': 'osc-placement 4.0.0, python-openstackclient 6.0.0, Placement 8.0.0',
           'cases': out}, open(out_file, 'w'), indent=1)
