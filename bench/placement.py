#!/usr/bin/python3
"""The real OpenStack Placement (Debian's placement-api) over HTTP on loopback, for `npm run bench`.

    /usr/bin/python3 bench/placement.py --dir DIR [--snapshot FILE --load SCENARIO.json] [--port N] [--db-url URL]

Runs Debian's `placement-api` (wsgiref, one request at a time) on DIR/placement.sqlite with
noauth2 (token `admin`). When SNAPSHOT exists it is copied to DIR/placement.sqlite as it is;
otherwise the schema is made with `placement-manage db sync`, SCENARIO is loaded through
Placement's REST API (custom classes and traits, providers parents first, inventories, traits,
aggregates, one PUT /allocations per consumer, all at microversion 1.39) and the database is
copied to SNAPSHOT for the next run. With `--db-url` (a MariaDB or MySQL, as placement.conf names
it) Placement's database is that one instead: its schema made by `placement-manage db sync`, then
SNAPSHOT's rows copied into it table by table (or, with no SNAPSHOT yet, SCENARIO loaded through the
API, not kept). Prints `ready http://127.0.0.1:PORT`, then serves until
stdin closes or SIGTERM. Needs: apt-get install python3-placement.
"""
import argparse, json, os, shutil, signal, socket, sqlite3, subprocess, sys, tempfile, time
import urllib.error, urllib.request

MICROVERSION = "1.39"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Placement:
    def __init__(self, url):
        self.url = url

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        headers = {"x-auth-token": "admin", "accept": "application/json",
                   "openstack-api-version": "placement " + MICROVERSION}
        if data is not None:
            headers["content-type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def must(self, method, path, body=None):
        status, content = self.call(method, path, body)
        if status not in (200, 201, 204):
            raise RuntimeError("%s %s -> %s: %s" % (method, path, status, content[:500]))
        return json.loads(content) if content else None


def parents_first(providers):
    by_uuid = {p["uuid"]: p for p in providers}
    done, out = set(), []
    for p in providers:
        chain, cur = [], p
        while cur is not None and cur["uuid"] not in done:
            chain.append(cur)
            cur = by_uuid.get(cur.get("parent")) if cur.get("parent") else None
        for c in reversed(chain):
            done.add(c["uuid"])
            out.append(c)
    return out


def load(api, scn):
    started = time.time()
    inventories, traits = scn.get("inventories", {}), scn.get("traits", {})
    aggregates, allocations = scn.get("aggregates", {}), scn.get("allocations", {})
    consumers = scn.get("consumers", {})
    classes = set(scn.get("resource_classes", []))
    for inv in inventories.values():
        classes.update(rc for rc in inv if rc.startswith("CUSTOM_"))
    for alloc in allocations.values():
        for res in alloc.values():
            classes.update(rc for rc in res if rc.startswith("CUSTOM_"))
    for rc in sorted(classes):
        api.must("PUT", "/resource_classes/" + rc)
    names = set(scn.get("custom_traits", []))
    for ts in traits.values():
        names.update(t for t in ts if t.startswith("CUSTOM_"))
    for t in sorted(names):
        api.must("PUT", "/traits/" + t)
    generation = {}
    ordered = parents_first(scn.get("providers", []))
    for i, p in enumerate(ordered):
        body = {"name": p.get("name") or p["uuid"], "uuid": p["uuid"]}
        if p.get("parent"):
            body["parent_provider_uuid"] = p["parent"]
        generation[p["uuid"]] = api.must("POST", "/resource_providers", body)["generation"]
        if (i + 1) % 2000 == 0:
            print("  providers %d/%d (%.0f s)" % (i + 1, len(ordered), time.time() - started), file=sys.stderr, flush=True)
    for section, key, source in (("inventories", "inventories", inventories),
                                 ("traits", "traits", traits),
                                 ("aggregates", "aggregates", aggregates)):
        for p in ordered:
            value = source.get(p["uuid"])
            if not value:
                continue
            if section == "inventories":
                payload = {rc: ({"total": rec} if isinstance(rec, int) else dict(rec)) for rc, rec in sorted(value.items())}
            else:
                payload = sorted(set(value))
            body = {"resource_provider_generation": generation[p["uuid"]], key: payload}
            answer = api.must("PUT", "/resource_providers/%s/%s" % (p["uuid"], section), body)
            generation[p["uuid"]] = answer["resource_provider_generation"]
        print("  %s done (%.0f s)" % (section, time.time() - started), file=sys.stderr, flush=True)
    for i, (consumer, alloc) in enumerate(allocations.items()):
        meta = consumers.get(consumer, {})
        api.must("PUT", "/allocations/" + consumer, {
            "allocations": {rp: {"resources": dict(res)} for rp, res in alloc.items()},
            "project_id": meta.get("project_id", "11111111-1111-1111-1111-111111111111"),
            "user_id": meta.get("user_id", "22222222-2222-2222-2222-222222222222"),
            "consumer_generation": None,
            "consumer_type": meta.get("consumer_type", "INSTANCE"),
        })
        if (i + 1) % 2000 == 0:
            print("  consumers %d/%d (%.0f s)" % (i + 1, len(allocations), time.time() - started), file=sys.stderr, flush=True)
    print("  loaded in %.0f s" % (time.time() - started), file=sys.stderr, flush=True)


def copy_rows(snapshot, url):
    """Every row of Placement's SQLite SNAPSHOT into the (just created, same schema) database at URL."""
    import sqlalchemy
    src = sqlite3.connect(snapshot)
    tables = [r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    raw = sqlalchemy.create_engine(url).raw_connection()
    try:
        cur = raw.cursor()
        # An id 0 stays 0 (not the next AUTO_INCREMENT value), as in the snapshot.
        cur.execute("SET FOREIGN_KEY_CHECKS = 0, SESSION sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')")
        for table in tables:
            rows = src.execute('SELECT * FROM "%s"' % table)
            columns = ", ".join("`%s`" % d[0] for d in rows.description)
            cur.execute("DELETE FROM `%s`" % table)
            cur.executemany("INSERT INTO `%s` (%s) VALUES (%s)" % (table, columns, ", ".join(["%s"] * len(rows.description))), rows.fetchall())
        raw.commit()
    finally:
        raw.close()
        src.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port", type=int)
    ap.add_argument("--snapshot")
    ap.add_argument("--load")
    ap.add_argument("--db-url", help="Placement's database (a MariaDB or MySQL) instead of DIR/placement.sqlite")
    a = ap.parse_args()
    db = os.path.join(a.dir, "placement.sqlite")
    conf = os.path.join(a.dir, "placement.conf")
    with open(conf, "w") as f:
        f.write("[DEFAULT]\nuse_stderr = true\n[api]\nauth_strategy = noauth2\n"
                "[placement_database]\nconnection = %s\nsync_on_startup = True\n"
                "[placement]\nrandomize_allocation_candidates = False\n" % (a.db_url or "sqlite:///" + db))
    restored = bool(a.snapshot and os.path.exists(a.snapshot))
    if a.db_url:
        subprocess.run(["placement-manage", "--config-file", conf, "db", "sync"], check=True, capture_output=True)
        if restored:
            copy_rows(a.snapshot, a.db_url)
    elif restored:
        shutil.copyfile(a.snapshot, db)
    else:
        subprocess.run(["placement-manage", "--config-file", conf, "db", "sync"], check=True, capture_output=True)
    port = a.port or free_port()
    # PYTHONHASHSEED fixed: Placement keeps names in sets, so a limit's choice and some error texts depend on it.
    env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=a.dir, PYTHONHASHSEED="0")
    log = open(os.path.join(a.dir, "placement-api.log"), "w")
    proc = subprocess.Popen(["placement-api", "--host", "127.0.0.1", "--port", str(port)], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def stop(*_):
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    api = Placement("http://127.0.0.1:%d" % port)
    deadline = time.time() + 60
    while True:
        if proc.poll() is not None:
            raise SystemExit("placement-api exited; see " + log.name)
        try:
            if api.call("GET", "/")[0] == 200:
                break
        except OSError:
            pass
        if time.time() > deadline:
            stop()
        time.sleep(0.2)
    if not restored and a.load:
        with open(a.load) as f:
            load(api, json.load(f))
        if a.snapshot and not a.db_url:
            # A consistent copy while placement-api keeps it open: SQLite's backup API.
            tmp = a.snapshot + ".part"
            src, dst = sqlite3.connect(db), sqlite3.connect(tmp)
            src.backup(dst)
            dst.close()
            src.close()
            os.replace(tmp, a.snapshot)
    print("ready", api.url, flush=True)
    sys.stdin.read()
    stop()


if __name__ == "__main__":
    main()
