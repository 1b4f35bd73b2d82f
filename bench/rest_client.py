#!/usr/bin/python3
"""A Python keep-alive client, as osc-placement, Nova and most exporters are: each request of a list
timed from sending it to the last byte of its body, over one connection, the list repeated N times
(interleaved), after a warm-up.

    /usr/bin/python3 bench/rest_client.py URL REPEAT < REQUESTS.json   ([{name, path, headers}])
prints {name: [ms, ...]} as JSON."""
import http.client
import json
import sys
import time
from urllib.parse import urlsplit

url, repeat = sys.argv[1], int(sys.argv[2])
requests = json.load(sys.stdin)
target = urlsplit(url)
conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
samples = {r['name']: [] for r in requests}


def send(r):
    started = time.perf_counter()
    conn.request('GET', r['path'], headers=r['headers'])
    response = conn.getresponse()
    response.read()
    return (time.perf_counter() - started) * 1000


for _ in range(20):
    for r in requests:
        send(r)
for _ in range(repeat):
    for r in requests:
        samples[r['name']].append(send(r))
json.dump(samples, sys.stdout)
