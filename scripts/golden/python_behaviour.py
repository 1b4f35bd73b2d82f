#!/usr/bin/python3
"""Record what CPython 3.11 and Placement's libraries do where placement-gql's REST API must do the
same: pprint.pformat, json.loads (values and error messages) and json.dumps, jsonschema 4.10.3's
choice and wording of errors against Placement's own schemas (with Placement's uuid format), and
webob's Accept negotiation. Cases are drawn at random from fixed seeds.

    /usr/bin/python3 scripts/golden/python_behaviour.py > test/golden/rest/python-behaviour.json
"""
import json
import pprint
import random
import sys

import jsonschema
from webob.acceptparse import create_accept_header

from placement import util  # noqa: F401  (registers Placement's uuid format)
from placement.schemas import aggregate, inventory, resource_class, resource_provider, trait


def encode(value):
    """A Python value as JSON that keeps what JSON loses: floats, big ints, dict order."""
    if isinstance(value, float):
        return {'$float': repr(value)}
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2 ** 53:
        return {'$int': str(value)}
    if isinstance(value, list):
        return [encode(x) for x in value]
    if isinstance(value, dict):
        return {'$dict': [[k, encode(x)] for k, x in value.items()]}
    return value


WORDS = ['a', 'name', 'CUSTOM_FOO', 'x' * 30, 'resource_provider_generation', 'é', '☃', '\U0001F600', 'tab\tx', 'new\nline', "it's",
         'q"q', 'back\\slash', '  ', '', 'This is a long text of 201 characterssssss']


def pformat_cases(r, n):
    def text():
        return ''.join(r.choice(WORDS) + r.choice([' ', '', '  ', '\n']) for _ in range(r.randint(0, 12)))

    def number():
        return r.choice([0, 1, -1, 2147483647, 10 ** 20, 1.0, 1.5, 3.40282e38, 1e-05, 0.0001, 1e16, 123456789012345.6, -2.5])

    def value(depth):
        k = r.randint(0, 9 if depth < 3 else 5)
        if k <= 2:
            return text()
        if k in (3, 5):
            return number()
        if k == 4:
            return r.choice([True, False, None])
        if k <= 7:
            return [value(depth + 1) for _ in range(r.randint(0, 6))]
        return {text()[:20] or 'k': value(depth + 1) for _ in range(r.randint(0, 7))}

    cases = []
    for _ in range(n):
        v, width = value(0), r.choice([72, 40, 20])
        cases.append({'value': encode(v), 'width': width, 'pformat': pprint.pformat(v, width=width), 'repr': repr(v)})
    return cases


PIECES = ['{', '}', '[', ']', ',', ':', '"', 'a', '1', '0', '-', '.', 'e', 'E', '+', ' ', '\n', '\t', '\\', 'u', 'd800', '\\udc00', '"x"', 'null',
          'true', 'fals', 'NaN', 'Infinity', '-Infinity', '\x01', 'é', '\U0001F600', '12', '1.5', '1e5', '01', '"k": ', '{"a": ', '[1, ', '\\n',
          '\\u00e9', '\\uzzzz', '\\q', '9' * 20, '\ufeff']


def json_cases(r, n):
    cases = []
    for _ in range(n):
        text = ''.join(r.choice(PIECES) for _ in range(r.randint(0, 10)))
        try:
            v = json.loads(text)
            cases.append({'text': text, 'dumps': json.dumps(v), 'value': encode(v)})
        except json.JSONDecodeError as e:
            cases.append({'text': text, 'error': str(e)})
        except RecursionError:
            pass
    return cases


SCHEMAS = {}
for module in (resource_provider, inventory, aggregate, trait, resource_class):
    for name in dir(module):
        if name.isupper() and isinstance(getattr(module, name), dict) and not name.startswith('_'):
            SCHEMAS[name] = getattr(module, name)
UUIDS = ['7260669a-e3d4-4867-aaa7-683e2ab6958c', '7260669ae3d44867aaa7683e2ab6958c', 'not a uuid', '{7260669a-e3d4-4867-aaa7-683e2ab6958c}', '']
STRS = ['', 'a', 'CUSTOM_FOO', 'custom_foo', 'VCPU', 'x' * 256, 'x' * 201, 'é' * 3, 'in:a,b', 'true', '1', 'a b']


def instance_for(r, schema, depth=0):
    t = schema.get('type') if isinstance(schema, dict) else None
    if r.random() < 0.15 or depth > 4:
        return r.choice([None, True, 1, -1, 0, 1.5, 2.0, 'str', [], {}, 2147483648, 10 ** 20, UUIDS[0]])
    if 'anyOf' in schema:
        return instance_for(r, r.choice(schema['anyOf']), depth + 1)
    if isinstance(t, list):
        t = r.choice(t)
    if t == 'object':
        d = {k: instance_for(r, sub, depth + 1) for k, sub in schema.get('properties', {}).items() if r.random() < 0.7}
        for sub in schema.get('patternProperties', {}).values():
            for _ in range(r.randint(0, 2)):
                d[r.choice(STRS[:5] + UUIDS[:2] + ['DISK_GB', 'bad key'])] = instance_for(r, sub, depth + 1)
        if r.random() < 0.2:
            d[r.choice(['extra', 'color', 'transport'])] = 1
        return d
    if t == 'array':
        return [instance_for(r, schema.get('items', {}), depth + 1) for _ in range(r.randint(0, 3))] + [UUIDS[0]] * r.randint(0, 1)
    if t == 'string':
        return r.choice(UUIDS) if schema.get('format') == 'uuid' else r.choice(STRS)
    if t == 'integer':
        return r.choice([0, 1, -1, 5, 2147483647, 2147483648, 1.0, 2.5, '3', None])
    if t == 'number':
        return r.choice([0, 1.0, 0.5, 3.5e38, -1, '1.0'])
    return r.choice([None, 1, 'x'])


def schema_cases(r, n):
    cases = []
    names = sorted(SCHEMAS)
    for _ in range(n):
        name = r.choice(names)
        instance = instance_for(r, SCHEMAS[name])
        try:
            jsonschema.validate(instance, SCHEMAS[name], format_checker=jsonschema.FormatChecker())
            error = None
        except jsonschema.ValidationError as e:
            error = str(e)
        cases.append({'schema': name, 'instance': encode(instance), 'error': error})
    return cases


RANGES = ['text/html', 'application/json', '*/*', 'application/*', 'text/*', 'application/xml', ';q=0.9', ';q=0', ';q=1', ';q=0.5', ';charset=utf-8',
          ', ', ',', ' ', 'TEXT/HTML', 'foo', ';q=2', 'application/json;q=0.1', '"x"', ';a="b c"']


def accept_cases(r, n):
    cases = []
    for _ in range(n):
        header = ''.join(r.choice(RANGES) for _ in range(r.randint(0, 6)))
        accept = create_accept_header(header)
        for offers in (['text/html', 'application/json'], ['application/json']):
            cases.append({'header': header, 'offers': offers, 'valid': bool(accept), 'acceptable': [o for o, _ in accept.acceptable_offers(offers)]})
    return cases


def main():
    json.dump({
        'source': 'CPython 3.11, jsonschema 4.10.3, webob 1.8.6 and Placement 8.0.0 (Debian); recorded by scripts/golden/python_behaviour.py',
        'schemas': {name: encode(schema) for name, schema in SCHEMAS.items()},
        'pformat': pformat_cases(random.Random(1), 300),
        'json': json_cases(random.Random(2), 800),
        'jsonschema': schema_cases(random.Random(3), 500),
        'accept': accept_cases(random.Random(4), 250),
    }, sys.stdout, ensure_ascii=False)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
