#!/usr/bin/python3
"""Run osc-placement (python3-openstackclient + osc-placement 4.0.0) against a live Placement 8.0.0
and record what it prints: one JSON object {cases: [{args, stdout, stderr, status}]}.
usage: record_osc.py URL CASES.json OUT.json   (CASES.json: [[arg, ...], ...], without 'openstack')"""
import json, subprocess, sys
url, cases_file, out_file = sys.argv[1:4]
base = ['openstack', '--os-auth-type', 'admin_token', '--os-token', 'admin', '--os-endpoint', url,
        '--os-placement-api-version', '1.39']
out = []
for args in json.load(open(cases_file)):
    r = subprocess.run(base + args, capture_output=True, text=True, env={'PATH': '/usr/bin:/bin', 'COLUMNS': '1000', 'LANG': 'C.UTF-8'})
    out.append({'args': args, 'stdout': r.stdout, 'stderr': r.stderr, 'status': r.returncode})
json.dump({'recorded_with': 'osc-placement 4.0.0, python-openstackclient 6.0.0, Placement 8.0.0 (microversion 1.39)', 'cases': out}, open(out_file, 'w'), indent=1)
