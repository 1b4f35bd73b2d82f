#!/usr/bin/python3
"""A Python keep-alive client timing GET /allocation_candidates on two services, query by query,
interleaved: placement-gql's /placement and the real Placement (a connection each, kept open as
osc-placement's and Nova's keystoneauth sessions keep theirs; Placement's wsgiref closes its after
each answer and http.client opens a new one, as those clients do). Each request is timed from
sending it to the last byte of its body. /health on placement-gql is timed by the same client next
to each of our requests, first and second in turn.

    /usr/bin/python3 bench/rest_candidates_client.py < PLAN.json
PLAN: {"ours": URL, "placement": URL or null, "repeat": N, "placementRepeat": M, "placementBudgetS": S,
       "warmupRuns": W, "warmupS": T, "queries": [{"id", "path", "headers"}]} (path below the API's root)
prints {"queries": {id: {"ours": [ms...], "health": [ms...], "placement": [ms...],
        "oursSays": "200 N" | "400", "placementSays": ...}}} as JSON.
"""
import http.client
import json
import sys
import time
from urllib.parse import urlsplit

plan = json.load(sys.stdin)


class Client:
    def __init__(self, url):
        target = urlsplit(url)
        self.prefix = target.path.rstrip('/')
        self.conn = http.client.HTTPConnection(target.hostname, target.port, timeout=600)

    def get(self, path, headers, retried=False):
        started = time.perf_counter()
        try:
            self.conn.request('GET', self.prefix + path, headers=headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # A kept connection the server closed while idle (while the other service took seconds):
            # sent again on a new one, once, as requests and keystoneauth do.
            self.conn.close()
            if retried:
                raise
            return self.get(path, headers, True)
        body = response.read()
        return (time.perf_counter() - started) * 1000, response.status, body


def says(status, body):
    return '200 %d' % len(json.loads(body)['allocation_requests']) if status == 200 else str(status)


ours = Client(plan['ours'])
health = Client(plan['ours'].rsplit('/placement', 1)[0])
theirs = Client(plan['placement']) if plan.get('placement') else None
out = {'queries': {}}
for q in plan['queries']:
    ms, status, body = ours.get(q['path'], q['headers'])
    entry = {'ours': [], 'health': [], 'placement': [], 'oursSays': says(status, body)}
    started = time.perf_counter()
    runs = 1
    while runs < plan['warmupRuns'] or (time.perf_counter() - started < plan['warmupS'] and runs < 1000):
        ours.get(q['path'], q['headers'])
        health.get('/health', {})
        runs += 1
    if theirs:
        _, status, body = theirs.get(q['path'], q['headers'])
        entry['placementSays'] = says(status, body)
    spent = 0.0
    for i in range(max(plan['repeat'], plan['placementRepeat'] if theirs else 0)):
        if i < plan['repeat']:
            if i % 2 == 0:
                entry['ours'].append(ours.get(q['path'], q['headers'])[0])
                entry['health'].append(health.get('/health', {})[0])
            else:
                entry['health'].append(health.get('/health', {})[0])
                entry['ours'].append(ours.get(q['path'], q['headers'])[0])
        if theirs and i < plan['placementRepeat'] and (i < 3 or spent < plan['placementBudgetS'] * 1000):
            ms = theirs.get(q['path'], q['headers'])[0]
            spent += ms
            entry['placement'].append(ms)
    out['queries'][q['id']] = entry
json.dump(out, sys.stdout)
