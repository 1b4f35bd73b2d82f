#!/usr/bin/python3
"""Record Placement 8.0.0's JSON schemas for allocations, usages, the reshaper and the allocation
candidates' query string, with the error jsonschema 4.10.3 picks for generated instances (as
scripts/golden/python_behaviour.py records the others'). test/rest-allocation-schemas.test.ts checks
src/rest/allocation-schemas.ts against them.

    /usr/bin/python3 scripts/golden/allocation_schemas.py > test/golden/rest/allocation-schemas.json
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
import jsonschema  # noqa: E402
from python_behaviour import encode, instance_for  # noqa: E402  (also registers Placement's uuid format)
from placement.schemas import allocation, allocation_candidate, reshaper, usage  # noqa: E402

SCHEMAS = {}
for module in (allocation, usage, reshaper, allocation_candidate):
    for name in dir(module):
        if name.isupper() and isinstance(getattr(module, name), dict) and not name.startswith('_'):
            SCHEMAS[name] = getattr(module, name)


def cases(r, n):
    out = []
    names = sorted(SCHEMAS)
    for _ in range(n):
        name = r.choice(names)
        instance = instance_for(r, SCHEMAS[name])
        try:
            jsonschema.validate(instance, SCHEMAS[name], format_checker=jsonschema.FormatChecker())
            error = None
        except jsonschema.ValidationError as e:
            error = str(e)
        out.append({'schema': name, 'instance': encode(instance), 'error': error})
    return out


json.dump({'source': 'Placement 8.0.0 and jsonschema 4.10.3 (Debian); recorded by scripts/golden/allocation_schemas.py',
           'schemas': {name: encode(schema) for name, schema in SCHEMAS.items()},
           'jsonschema': cases(random.Random(5), 250)}, sys.stdout, ensure_ascii=False)
sys.stdout.write('\n')
