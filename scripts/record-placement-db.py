#!/usr/bin/python3
"""Records Placement 8.0.0's own database on MariaDB for the tests of the database mirror.

    /usr/bin/python3 scripts/record-placement-db.py ORACLE_DIR test/fixtures/placement-db

ORACLE_DIR holds mariadb_server.py (a private MariaDB) and live_placement.py (Placement 8.0.0,
Debian's python3-placement, served over HTTP with `--db-url`). Placement creates its tables on the
MariaDB with its own alembic migrations (`placement-manage db sync`); they are dumped as they are
(`mariadb-dump --no-data`, the AUTO_INCREMENT counters left out) into schema.sql. A small
generated cloud is then loaded through Placement's API and goes through phases of changes made
through the API by another client (allocations deleted, a consumer moved and resized, inventory,
traits and aggregates changed, providers created, deleted, renamed and re-parented, a custom class
created and deleted). After each phase the rows of every table are dumped (`mariadb-dump
--no-create-info`) and every GET the gateway can send to the API is recorded with its answer, into
cloud.json: the tests load each phase's rows into their own MariaDB and replay the API's answers,
and compare the two mirrors.
"""
import json, os, re, subprocess, sys

sys.path.insert(0, sys.argv[1])
from mariadb_server import MariaDB  # noqa: E402
from live_placement import LivePlacement  # noqa: E402

OUT = sys.argv[2]
SCENARIO = json.loads(subprocess.run(["/usr/bin/python3", os.path.join(sys.argv[1], "gen_scenario.py"), "5", "12"],
                                     check=True, capture_output=True, text=True).stdout)
SCENARIO["queries"] = []
NEW_ROOT, NEW_CHILD = "d0000000-0000-0000-0000-000000000001", "d0000000-0000-0000-0000-000000000002"
NEW_CONSUMER, MIGRATION = "f0000000-0000-0000-0000-000000000001", "f0000000-0000-0000-0000-000000000002"
NEW_PROJECT, NEW_USER = "99999999-0000-0000-0000-000000000001", "99999999-0000-0000-0000-000000000002"
AGG_NEW = "a9999999-0000-0000-0000-000000000001"


class Recorder:
    def __init__(self, lp, db):
        self.lp, self.db = lp, db
        self.out = {"placement": "8.0.0", "microversion": "1.39", "phases": []}

    def answer(self, method, path, body=None):
        r = self.lp.call(method, path, body)
        return {"status": r.status_code, "body": json.loads(r.content) if r.content else None}

    def crawl(self, name):
        """Every GET the gateway can send, and every row of Placement's tables."""
        answer, routes = self.answer, {}
        for path in ["/", "/resource_providers", "/traits", "/resource_classes"]:
            routes["GET " + path] = answer("GET", path)
        providers = [p["uuid"] for p in routes["GET /resource_providers"]["body"]["resource_providers"]]
        consumers, projects = set(), set()
        for u in sorted(providers):
            for tail in ["", "/inventories", "/traits", "/aggregates", "/allocations"]:
                routes[f"GET /resource_providers/{u}{tail}"] = answer("GET", f"/resource_providers/{u}{tail}")
            consumers.update(routes[f"GET /resource_providers/{u}/allocations"]["body"]["allocations"])
        # Consumers seen before too: the gateway reads again those it no longer finds.
        for phase in self.out["phases"]:
            consumers.update(k.split("/")[-1] for k in phase["routes"] if k.startswith("GET /allocations/"))
        for c in sorted(consumers):
            a = answer("GET", f"/allocations/{c}")
            routes[f"GET /allocations/{c}"] = a
            if a["body"].get("project_id"):
                projects.add((a["body"]["project_id"], a["body"]["user_id"]))
        for phase in self.out["phases"]:
            projects.update(tuple(k.split("=", 1)[1].split("&user_id=")) for k in phase["routes"] if "&user_id=" in k)
        for p, u in sorted(projects):
            routes[f"GET /usages?project_id={p}"] = answer("GET", f"/usages?project_id={p}")
            routes[f"GET /usages?project_id={p}&user_id={u}"] = answer("GET", f"/usages?project_id={p}&user_id={u}")
        rows = subprocess.run(["mariadb-dump", "--socket", self.db.sock, "-u", "root", "--no-create-info", "--compact",
                               "--complete-insert", "placement"], check=True, capture_output=True, text=True).stdout
        self.out["phases"].append({"name": name, "routes": routes, "writes": [], "rows": rows})

    def refusals(self):
        self.out["not_found"] = self.answer("GET", "/resource_providers/ffffffff-ffff-ffff-ffff-ffffffffffff")
        self.out["forbidden"] = {"status": 403, "body": None}
        self.out["unauthorized"] = {"status": 401, "body": None}


def generation(lp, uuid):
    return lp.must("GET", f"/resource_providers/{uuid}").json()["generation"]


def main():
    os.makedirs(OUT, exist_ok=True)
    with MariaDB() as db:
        with LivePlacement(scenario=SCENARIO, db_url=db.url("placement")) as lp:
            schema = subprocess.run(["mariadb-dump", "--socket", db.sock, "-u", "root", "--no-data", "--skip-comments",
                                     "--skip-add-drop-table", "placement"], check=True, capture_output=True, text=True).stdout
            schema = re.sub(r" AUTO_INCREMENT=\d+", "", schema)
            with open(os.path.join(OUT, "schema.sql"), "w") as f:
                f.write(schema)
            rec = Recorder(lp, db)
            rec.crawl("initial")
            held = {c: a for c, a in SCENARIO["allocations"].items()}
            users = {}
            for c, meta in SCENARIO["consumers"].items():
                users.setdefault((meta["project_id"], meta["user_id"]), []).append(c)
            # Allocations deleted, as Nova deletes an instance: no provider generation moves.
            owner = max(users.values(), key=len)
            for c in owner[:2]:
                lp.must("DELETE", f"/allocations/{c}")
                held.pop(c)
            rec.crawl("allocations deleted")
            # A consumer moved to another root, and one resized: the provider left behind keeps its generation.
            moved, resized = sorted(held)[0], sorted(held)[1]
            a = lp.must("GET", f"/allocations/{moved}").json()
            target = next(p["uuid"] for p in SCENARIO["providers"]
                          if p["parent"] is None and p["uuid"] not in a["allocations"]
                          and "VCPU" in SCENARIO["inventories"].get(p["uuid"], {}) and "MEMORY_MB" in SCENARIO["inventories"][p["uuid"]])
            body = {"allocations": {target: {"resources": {"VCPU": 1, "MEMORY_MB": 512}}}, "project_id": a["project_id"],
                    "user_id": a["user_id"], "consumer_generation": a["consumer_generation"], "consumer_type": "INSTANCE"}
            lp.must("PUT", f"/allocations/{moved}", body)
            r = lp.must("GET", f"/allocations/{resized}").json()
            body = {"allocations": {rp: {"resources": {rc: max(1, n // 2) if rc == "MEMORY_MB" else n for rc, n in x["resources"].items()}}
                                    for rp, x in r["allocations"].items()},
                    "project_id": r["project_id"], "user_id": r["user_id"], "consumer_generation": r["consumer_generation"],
                    "consumer_type": "INSTANCE"}
            lp.must("PUT", f"/allocations/{resized}", body)
            rec.crawl("consumer moved and resized")
            # Inventory: a total changed, a class added.
            inv = lp.must("GET", f"/resource_providers/{target}/inventories").json()
            inventories = inv["inventories"]
            inventories["VCPU"]["total"] += 8
            inventories["CUSTOM_BENCH_FPGA"] = {"total": 2, "reserved": 0, "min_unit": 1, "max_unit": 2, "step_size": 1, "allocation_ratio": 1.0}
            lp.must("PUT", "/resource_classes/CUSTOM_BENCH_FPGA")
            lp.must("PUT", f"/resource_providers/{target}/inventories",
                    {"resource_provider_generation": inv["resource_provider_generation"], "inventories": inventories})
            rec.crawl("inventory changed")
            # Traits: a custom trait created and set, a standard one removed.
            lp.must("PUT", "/traits/CUSTOM_RECORDED")
            t = lp.must("GET", f"/resource_providers/{target}/traits").json()
            lp.must("PUT", f"/resource_providers/{target}/traits",
                    {"resource_provider_generation": t["resource_provider_generation"], "traits": sorted(set(t["traits"][1:]) | {"CUSTOM_RECORDED"})})
            rec.crawl("traits changed")
            # Providers created, with an allocation by a new consumer of a new project, a migration.
            lp.must("POST", "/resource_providers", {"uuid": NEW_ROOT, "name": "cn-new"})
            lp.must("POST", "/resource_providers", {"uuid": NEW_CHILD, "name": "cn-new_numa0", "parent_provider_uuid": NEW_ROOT})
            lp.must("PUT", f"/resource_providers/{NEW_CHILD}/inventories",
                    {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 16}, "MEMORY_MB": {"total": 65536}}})
            lp.must("PUT", f"/allocations/{NEW_CONSUMER}", {"allocations": {NEW_CHILD: {"resources": {"VCPU": 2, "MEMORY_MB": 2048}}},
                    "project_id": NEW_PROJECT, "user_id": NEW_USER, "consumer_generation": None, "consumer_type": "INSTANCE"})
            lp.must("PUT", f"/allocations/{MIGRATION}", {"allocations": {NEW_CHILD: {"resources": {"VCPU": 1, "MEMORY_MB": 1024}}},
                    "project_id": NEW_PROJECT, "user_id": NEW_USER, "consumer_generation": None, "consumer_type": "MIGRATION"})
            rec.crawl("providers created")
            # The migration confirmed (its allocations deleted), a provider deleted, one renamed and one re-parented.
            lp.must("DELETE", f"/allocations/{MIGRATION}")
            leaf = next(p for p in SCENARIO["providers"] if p["parent"] is not None
                        and not any(p["uuid"] in a for a in held.values()) and p["uuid"] != target
                        and not any(q["parent"] == p["uuid"] for q in SCENARIO["providers"]))
            lp.must("DELETE", f"/resource_providers/{leaf['uuid']}")
            root = next(p for p in SCENARIO["providers"] if p["parent"] is None and p["uuid"] != target)
            lp.must("PUT", f"/resource_providers/{root['uuid']}", {"name": root["name"] + "-renamed"})
            lp.must("PUT", f"/resource_providers/{NEW_CHILD}", {"name": "cn-new_numa0", "parent_provider_uuid": None})
            rec.crawl("providers deleted, renamed and re-parented")
            # Aggregates: one added to two providers, one provider's removed.
            for uuid in (NEW_ROOT, target):
                g = lp.must("GET", f"/resource_providers/{uuid}/aggregates").json()
                lp.must("PUT", f"/resource_providers/{uuid}/aggregates",
                        {"resource_provider_generation": g["resource_provider_generation"], "aggregates": g["aggregates"] + [AGG_NEW]})
            with_aggs = next(p["uuid"] for p in SCENARIO["providers"] if SCENARIO["aggregates"].get(p["uuid"]) and p["uuid"] != target)
            lp.must("PUT", f"/resource_providers/{with_aggs}/aggregates", {"resource_provider_generation": generation(lp, with_aggs), "aggregates": []})
            rec.crawl("aggregates changed")
            rec.refusals()
    with open(os.path.join(OUT, "cloud.json"), "w") as f:
        json.dump(rec.out, f, indent=None, sort_keys=True, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
