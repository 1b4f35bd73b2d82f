#!/usr/bin/python3
"""Placement's WSGI application (placement.wsgi.init_application, configured from
$OS_PLACEMENT_CONFIG_DIR/placement.conf) served on loopback by wsgiref, as Debian's `placement-api`
serves it (PLACEMENT_OPEN_POLICY=1: with OpenPolicyFixture's rules), with one difference: a request without a Content-Type header reaches Placement without
one. wsgiref alone invents `text/plain` for it (http.client's default content type), which no
production WSGI server (uwsgi, mod_wsgi) nor Placement's own tests (wsgi-intercept) do, and
which turns two of basic-http.yaml's tests into 415s.

    placement_wsgi.py --port N [--prefix /placement]
"""
import argparse
import os
import sys
import wsgiref.simple_server as wss

from placement.wsgi import init_application


def open_policy():
    """OpenPolicyFixture: every rule but admin_api allows anyone ('@'), in the config folder's policy.yaml."""
    from placement import policies
    rules = {rule.name: '@' for rule in policies.list_rules() if rule.name != 'admin_api'}
    with open(os.path.join(os.environ['OS_PLACEMENT_CONFIG_DIR'], 'policy.yaml'), 'w') as f:
        for name, rule in sorted(rules.items()):
            f.write('"%s": "%s"\n' % (name, rule))


class Handler(wss.WSGIRequestHandler):
    def get_environ(self):
        env = super().get_environ()
        if self.headers.get('content-type') is None:
            env.pop('CONTENT_TYPE', None)
        return env

    def log_message(self, format, *args):
        sys.stderr.write('%s\n' % (format % args))


def mounted(app, prefix):
    """The application under PREFIX: SCRIPT_NAME carries the prefix, PATH_INFO the rest; 404 elsewhere."""
    def wsgi(environ, start_response):
        path = environ.get('PATH_INFO', '')
        if path != prefix and not path.startswith(prefix + '/'):
            start_response('404 Not Found', [('Content-Type', 'text/plain')])
            return [b'not found\n']
        environ['SCRIPT_NAME'] = environ.get('SCRIPT_NAME', '') + prefix
        environ['PATH_INFO'] = path[len(prefix):]
        return app(environ, start_response)
    return wsgi


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--port', type=int, required=True)
    ap.add_argument('--host', default='127.0.0.1')
    ap.add_argument('--prefix', default='', help='mount Placement under this path, as mod_wsgi or uwsgi do (SCRIPT_NAME)')
    a = ap.parse_args()
    sys.argv[1:] = []
    if os.environ.get('PLACEMENT_OPEN_POLICY'):
        open_policy()
    app = init_application()
    server = wss.make_server(a.host, a.port, mounted(app, a.prefix) if a.prefix else app, handler_class=Handler)
    print('serving http://%s:%d/' % (a.host, a.port), flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
