#!/usr/bin/env python3
"""Add listing-filter and edge-case allocation-candidate queries to a
generated Placement oracle scenario.

    gen_scenario.py SEED SIZE | listing_queries.py - -o OUT.scenario.json
    listing_queries.py generated.json -o OUT.scenario.json

Input: a scenario from ../shared/oracle/gen_scenario.py (format
placement-oracle-scenario/1).  Output: the same scenario with

* a few extra hand-built providers ("lq-*": non-trivial min_unit, step_size,
  max_unit < capacity, fractional allocation_ratio, reserved == total, a
  child in its own aggregate, an empty root) -- the generator only produces
  min_unit 1 / step_size 1 inventories, so without them the listing
  `resources` filter's min_unit/step_size checks could not be exercised;
* ~120 `kind: "resource_providers"` queries (tags `lq_*`) covering every
  listing filter (name, uuid, in_tree, member_of, required, resources),
  combinations, old microversions and errors;
* ~50 `allocation_candidates` edge-case queries (tags `lqac_*`).

The generator's own 44 queries are kept in front.  All choices come from a
`random.Random` seeded with the scenario's seed and size, and from the data
actually present (traits, aggregates, uuids, free capacity), so the same
input always gives byte-identical output.  Standard library only.
"""

import argparse
import json
import random
import sys
import uuid as uuidlib

LOAD_CUSTOM_TRAITS = ["CUSTOM_LQ_STEPPED", "CUSTOM_LQ_CHILD"]


class Cloud(object):
    """Read-only view of the scenario data with a few derived indexes."""

    def __init__(self, scn):
        self.scn = scn
        self.providers = scn["providers"]
        self.by_uuid = {p["uuid"]: p for p in self.providers}
        self.parent = {p["uuid"]: p["parent"] for p in self.providers}
        self.name = {p["uuid"]: p.get("name") or p["uuid"]
                     for p in self.providers}
        self.children = {p["uuid"]: [] for p in self.providers}
        for p in self.providers:
            if p["parent"]:
                self.children[p["parent"]].append(p["uuid"])
        self.inv = scn.get("inventories", {})
        self.traits = {k: set(v) for k, v in scn.get("traits", {}).items()}
        self.aggs = {k: set(v) for k, v in scn.get("aggregates", {}).items()}
        self.used = {}
        for alloc in scn.get("allocations", {}).values():
            for rp, rcs in alloc.items():
                for rc, n in rcs.items():
                    self.used[(rp, rc)] = self.used.get((rp, rc), 0) + n

    def root(self, u):
        while self.parent[u]:
            u = self.parent[u]
        return u

    def tree(self, u):
        out, todo = [], [self.root(u)]
        while todo:
            x = todo.pop()
            out.append(x)
            todo.extend(self.children[x])
        return out

    def capacity(self, rp, rc):
        i = self.inv.get(rp, {}).get(rc)
        if i is None:
            return 0
        if isinstance(i, int):
            return i
        return int((i["total"] - i.get("reserved", 0)) *
                   i.get("allocation_ratio", 1.0))

    def free(self, rp, rc):
        return self.capacity(rp, rc) - self.used.get((rp, rc), 0)

    def max_unit(self, rp, rc):
        i = self.inv[rp][rc]
        return i if isinstance(i, int) else i.get("max_unit", 2147483647)

    def roots(self):
        return [p["uuid"] for p in self.providers if not p["parent"]]

    def with_rc(self, rc):
        return [p["uuid"] for p in self.providers
                if rc in self.inv.get(p["uuid"], {})]


def new_uuid(rng):
    return str(uuidlib.UUID(int=rng.getrandbits(128), version=4))


def full_inv(total, reserved=0, min_unit=1, max_unit=None, step=1,
             ratio=1.0):
    return {"total": total, "reserved": reserved, "min_unit": min_unit,
            "max_unit": total if max_unit is None else max_unit,
            "step_size": step, "allocation_ratio": ratio}


def add_extras(scn, rng, az_agg):
    """Append the hand-built lq-* providers (see module docstring)."""
    u = {k: new_uuid(rng) for k in ("stepped", "widget", "fractional",
                                    "reserved", "empty", "child_agg",
                                    "proj", "user")}
    scn["providers"] += [
        {"uuid": u["stepped"], "name": "lq-stepped", "parent": None},
        {"uuid": u["widget"], "name": "lq-stepped_widget",
         "parent": u["stepped"]},
        {"uuid": u["fractional"], "name": "lq-fractional", "parent": None},
        {"uuid": u["reserved"], "name": "lq-reserved-all", "parent": None},
        {"uuid": u["empty"], "name": "lq-empty", "parent": None},
    ]
    inv = scn.setdefault("inventories", {})
    inv[u["stepped"]] = {
        # capacity 15, max_unit 8
        "VCPU": full_inv(10, max_unit=8, ratio=1.5),
        "MEMORY_MB": full_inv(16384, min_unit=512, max_unit=8192, step=256),
        # capacity 2000
        "DISK_GB": full_inv(2048, reserved=48, min_unit=10, max_unit=1000,
                            step=10),
    }
    # capacity 60
    inv[u["widget"]] = {"CUSTOM_LQ_WIDGET": full_inv(64, reserved=4,
                                                     min_unit=4, max_unit=32,
                                                     step=4)}
    inv[u["fractional"]] = {
        # capacity int(7 * 1.5) = 10
        "VCPU": full_inv(7, ratio=1.5, max_unit=2147483647),
        # capacity int(999 * 1.1) = int(1098.9) = 1098
        "MEMORY_MB": full_inv(1000, reserved=1, ratio=1.1,
                              max_unit=2147483647),
    }
    inv[u["reserved"]] = {"VCPU": full_inv(8, reserved=8),
                          "MEMORY_MB": full_inv(4096)}
    tr = scn.setdefault("traits", {})
    tr[u["stepped"]] = sorted(["HW_CPU_X86_AVX2", "HW_ARCH_X86_64",
                               "CUSTOM_LQ_STEPPED"])
    tr[u["widget"]] = ["CUSTOM_LQ_CHILD"]
    tr[u["fractional"]] = sorted(["HW_ARCH_X86_64", "CUSTOM_LQ_STEPPED"])
    tr[u["reserved"]] = ["HW_ARCH_X86_64"]
    ag = scn.setdefault("aggregates", {})
    ag[u["stepped"]] = [az_agg]
    ag[u["widget"]] = [u["child_agg"]]
    ag[u["fractional"]] = [az_agg]
    ag[u["reserved"]] = [az_agg]
    allocs = [
        {u["stepped"]: {"VCPU": 6, "MEMORY_MB": 4096, "DISK_GB": 1000}},
        {u["stepped"]: {"DISK_GB": 500}},            # DISK_GB free 500
        {u["widget"]: {"CUSTOM_LQ_WIDGET": 32}},
        {u["widget"]: {"CUSTOM_LQ_WIDGET": 20}},     # widget free 8
        {u["fractional"]: {"VCPU": 3}},              # VCPU free 7
    ]
    al = scn.setdefault("allocations", {})
    cons = scn.setdefault("consumers", {})
    for a in allocs:
        c = new_uuid(rng)
        al[c] = a
        cons[c] = {"project_id": u["proj"], "user_id": u["user"],
                   "consumer_type": "INSTANCE"}
    ct = set(scn.get("custom_traits", [])) | set(LOAD_CUSTOM_TRAITS)
    scn["custom_traits"] = sorted(ct)
    return u


class QB(object):
    """Query builder."""

    def __init__(self):
        self.qs = []
        self.count = {}

    def add(self, tag, params=None, kind="resource_providers", mv=None,
            error=False, raw=None, desc=None):
        n = self.count.get(tag, 0)
        self.count[tag] = n + 1
        q = {"id": "%s_%02d" % (tag, n), "tag": tag, "kind": kind}
        if raw is not None:
            q["raw_query"] = raw
        else:
            q["params"] = [[k, str(v)] for k, v in (params or [])]
        if mv:
            q["microversion"] = mv
        if error:
            q["expect_error"] = True
        if desc:
            q["description"] = desc
        self.qs.append(q)

    def rp(self, tag, params=None, **kw):
        self.add("lq_" + tag, params, kind="resource_providers", **kw)

    def ac(self, tag, params=None, **kw):
        self.add("lqac_" + tag, params, kind="allocation_candidates", **kw)


def build(scn):
    seed, size = scn.get("seed"), scn.get("size")
    rng = random.Random("placement-gql-listing:%s:%s" % (seed, size))
    base = Cloud(scn)

    # -- classify what the generator made ----------------------------------
    roots = base.roots()
    kind = {}
    for r in roots:
        n = base.name[r]
        if n.startswith("shared-storage-"):
            kind[r] = "sharing"
        elif n.startswith("ironic-"):
            kind[r] = "ironic"
        elif not base.children[r] or all(
                base.name[c].split("_")[-1].startswith("pf")
                for c in base.children[r]):
            kind[r] = "flat"
        else:
            kind[r] = "numa"
    sharing = [r for r in roots if kind[r] == "sharing"]
    ironic = [r for r in roots if kind[r] == "ironic"]
    computes = [r for r in roots if kind[r] in ("flat", "numa")]
    numa_roots = [r for r in roots if kind[r] == "numa"]
    az = sorted({a for r in ironic for a in base.aggs.get(r, ())}) or \
        sorted({sorted(base.aggs[r])[0] for r in computes if r in base.aggs})
    storage = sorted({a for s in sharing for a in base.aggs.get(s, ())})
    all_aggs = sorted({a for v in base.aggs.values() for a in v})
    special = [a for a in all_aggs if a not in az and a not in storage]

    extras = add_extras(scn, rng, az[0])
    c = Cloud(scn)       # re-index with the extras
    providers = [p["uuid"] for p in c.providers]
    pfs = [u for u in providers if "SRIOV_NET_VF" in c.inv.get(u, {})]
    numa_nodes = [u for u in providers
                  if "HW_NUMA_ROOT" in c.traits.get(u, ())]
    deep_pfs = [p for p in pfs if c.parent[p] and c.parent[c.parent[p]]]
    all_traits = sorted({t for v in c.traits.values() for t in v})
    root_traits = sorted({t for r in computes for t in c.traits.get(r, ())})
    unknown_agg = new_uuid(rng)
    unknown_rp = new_uuid(rng)
    PHYS = ["CUSTOM_PHYSNET_PHYSNET%d" % i for i in range(4)]

    def pick(seq, default=None):
        seq = list(seq)
        return rng.choice(seq) if seq else default

    qb = QB()
    R = qb.rp

    # ======================================================================
    # GET /resource_providers
    # ======================================================================
    R("all", [])
    R("all", [], mv="1.0")

    # -- name ---------------------------------------------------------------
    r0 = pick(computes)
    child0 = pick(numa_nodes) or pick(pfs) or r0
    R("name", [["name", c.name[r0]]])
    R("name", [["name", c.name[child0]]])
    R("name", [["name", c.name[pick(pfs, r0)]]])
    R("name", [["name", "no-such-provider"]])
    R("name", [["name", c.name[r0]], ["uuid", r0]])
    R("name", [["name", c.name[r0]], ["uuid", child0]])
    R("name", raw="name=", desc="empty name is ignored (falsy filter)")
    R("name", [["name", c.name[r0]]], mv="1.0")

    # -- uuid ---------------------------------------------------------------
    R("uuid", [["uuid", r0]])
    R("uuid", [["uuid", pick(pfs, child0)]])
    R("uuid", [["uuid", pick(sharing, r0)]])
    R("uuid", [["uuid", unknown_rp]])
    R("uuid", [["uuid", "not-a-uuid"]], error=True)
    R("uuid", [["uuid", r0.replace("-", "")]],
      desc="undashed uuid passes the schema but matches nothing")
    R("uuid", raw="uuid=", error=True)
    # Placement compares uuids as strings; with the oracle's SQLite that is
    # case-sensitive (a MySQL deployment's default collation would not be).
    R("case", [["uuid", r0.upper()]])
    R("case", [["in_tree", r0.upper()]])
    R("case", [["member_of", az[0].upper()]])

    # -- in_tree ------------------------------------------------------------
    nroot = pick(numa_roots, r0)
    R("in_tree", [["in_tree", nroot]])
    R("in_tree", [["in_tree", pick(c.children[nroot], nroot)]])
    R("in_tree", [["in_tree", pick(deep_pfs, pick(pfs, nroot))]])
    R("in_tree", [["in_tree", pick([r for r in computes
                                    if kind[r] == "flat"], r0)]])
    R("in_tree", [["in_tree", pick(sharing, r0)]])
    R("in_tree", [["in_tree", extras["widget"]]])
    R("in_tree", [["in_tree", unknown_rp]])
    R("in_tree", [["in_tree", "not-a-uuid"]], error=True)
    R("in_tree", [["in_tree", nroot], ["name", c.name[nroot]]])
    R("in_tree", [["in_tree", nroot], ["uuid", pick(sharing, r0)]])

    # -- member_of ----------------------------------------------------------
    for a in az:
        R("member_of", [["member_of", a]])
    st0 = storage[0] if storage else az[1]
    R("member_of", [["member_of", st0]],
      desc="storage aggregate: roots and sharing providers, no children")
    if special:
        R("member_of", [["member_of", special[0]]])
    R("member_of", [["member_of", extras["child_agg"]]],
      desc="aggregate held only by a child provider")
    R("member_of", [["member_of", "in:%s,%s" % (az[0], az[1])]])
    R("member_of", [["member_of", "in:%s,%s" % (unknown_agg, st0)]])
    R("member_of", [["member_of", az[0]], ["member_of", st0]])
    R("member_of", [["member_of", az[0]], ["member_of", az[1]]])
    R("member_of", [["member_of", "in:%s,%s" % (az[0], az[1])],
                    ["member_of", "in:%s,%s" % (st0, special[0] if special
                                                else az[2])]])
    R("member_of", [["member_of", "!" + az[0]]])
    R("member_of", [["member_of", "!in:%s,%s" % (az[0], az[1])]])
    R("member_of", [["member_of", "in:%s,%s" % (az[1], az[2])],
                    ["member_of", "!" + (special[-1] if special else st0)]])
    R("member_of", [["member_of", st0], ["member_of", "!" + st0]])
    R("member_of", [["member_of", unknown_agg]])
    R("member_of", [["member_of", "!" + unknown_agg]])
    R("member_of", [["member_of", "not-a-uuid"]], error=True)
    R("member_of", [["member_of", "%s,%s" % (az[0], az[1])]], error=True)
    R("member_of", [["member_of", "in:%s,bogus" % az[0]]], error=True)

    # -- required -----------------------------------------------------------
    R("required", [["required", "HW_CPU_X86_AVX2"]])
    R("required", [["required", "HW_NUMA_ROOT"]])
    R("required", [["required", "MISC_SHARES_VIA_AGGREGATE"]])
    R("required", [["required", pick(PHYS)]])
    R("required", [["required", "HW_CPU_X86_AVX2,HW_CPU_HYPERTHREADING,"
                                "CUSTOM_RACK_A"]])
    R("required", [["required", "!COMPUTE_STATUS_DISABLED"]],
      desc="forbidden only: also lists providers with no traits at all")
    R("required", [["required", "HW_ARCH_X86_64,!HW_CPU_X86_AVX512F,"
                                "!COMPUTE_STATUS_DISABLED"]])
    R("required", [["required", "!!COMPUTE_STATUS_DISABLED"]],
      desc="leading ! are all stripped")
    R("required", [["required", "in:%s,%s" % (PHYS[0], PHYS[3])]])
    R("required", [["required", "in:HW_CPU_X86_AVX512F,HW_CPU_X86_SVM"],
                   ["required", "!COMPUTE_STATUS_DISABLED"]])
    R("required", [["required", "HW_CPU_X86_AVX2"],
                   ["required", "HW_CPU_X86_SVM"]],
      desc="repeated required at 1.39 = AND")
    R("required", [["required", "HW_CPU_X86_AVX2"],
                   ["required", "HW_CPU_X86_SVM"]], mv="1.38",
      desc="before 1.39 only the last required counts")
    R("required", [["required", "in:HW_NIC_SRIOV,HW_NUMA_ROOT"],
                   ["required", "in:%s,CUSTOM_NUMA_HUGEPAGES" % PHYS[1]]])
    R("required", [["required", "HW_CPU_X86_AVX2,!HW_CPU_X86_AVX2"]],
      desc="conflict: 400 for allocation candidates, not for listings")
    R("required", [["required", "in:HW_CPU_X86_SVM,HW_CPU_X86_VMX"],
                   ["required", "!HW_CPU_X86_SVM,!HW_CPU_X86_VMX"]])
    R("required", [["required", "CUSTOM_RAID_5,!CUSTOM_RAID_5"]])
    R("required", [["required", "HW_GPU_API_VULKAN"]],
      desc="standard trait that no provider has")
    R("required", [["required", "CUSTOM_LQ_STEPPED"]])
    R("required", [["required", "CUSTOM_NO_SUCH_TRAIT"]], error=True)
    R("required", [["required", "!CUSTOM_NO_SUCH_TRAIT"]], error=True)
    R("required", [["required", "hw_cpu_x86_avx2"]], error=True)
    R("required", [["required", "in:%s,CUSTOM_NO_SUCH_TRAIT" % PHYS[0]]],
      error=True)
    R("required", raw="required=", error=True)
    R("required", [["required", "HW_CPU_X86_AVX2,"]], error=True)
    R("required", [["required", "in:"]], error=True)
    R("required", [["required", "in:HW_CPU_X86_AVX2,!HW_CPU_X86_SVM"]],
      error=True)

    # -- resources ----------------------------------------------------------
    R("resources", [["resources", "VCPU:1"]])
    R("resources", [["resources", "MEMORY_MB:1024"]])
    R("resources", [["resources", "DISK_GB:1"]])
    R("resources", [["resources", "SRIOV_NET_VF:1"]])
    bm = sorted({rc for r in ironic for rc in c.inv.get(r, {})}) or \
        ["CUSTOM_BAREMETAL_GOLD"]
    R("resources", [["resources", "%s:1" % bm[0]]],
      desc="excludes allocated and reserved==total ironic nodes")
    R("resources", [["resources", "%s:2" % bm[0]]], desc="max_unit 1")
    R("resources", [["resources", "VCPU:4,MEMORY_MB:8192"]])
    R("resources", [["resources", "VCPU:2,MEMORY_MB:4096,DISK_GB:100"]])
    # capacity boundary: a provider whose free VCPU is below its max_unit
    cap_rps = [u for u in c.with_rc("VCPU")
               if 0 < c.free(u, "VCPU") < c.max_unit(u, "VCPU")
               and c.used.get((u, "VCPU"))]
    u = pick(cap_rps)
    if u:
        f = c.free(u, "VCPU")
        R("resources", [["resources", "VCPU:%d" % f], ["in_tree", u]],
          desc="exactly the free capacity of %s" % c.name[u])
        R("resources", [["resources", "VCPU:%d" % (f + 1)], ["in_tree", u]],
          desc="one more than the free capacity of %s" % c.name[u])
    # max_unit boundary: a provider with free > max_unit
    mu_rps = [u for u in c.with_rc("VCPU")
              if c.free(u, "VCPU") > c.max_unit(u, "VCPU")]
    u = pick(mu_rps)
    if u:
        m = c.max_unit(u, "VCPU")
        R("resources", [["resources", "VCPU:%d" % m]],
          desc="= max_unit of %s" % c.name[u])
        R("resources", [["resources", "VCPU:%d" % (m + 1)]],
          desc="max_unit+1 of %s (free %d)" % (c.name[u], c.free(u, "VCPU")))
    # memory boundary with reserved / ratio
    mem_rps = [u for u in c.with_rc("MEMORY_MB")
               if c.used.get((u, "MEMORY_MB"))
               and c.free(u, "MEMORY_MB") < c.max_unit(u, "MEMORY_MB")]
    u = pick(mem_rps)
    if u:
        f = c.free(u, "MEMORY_MB")
        R("resources", [["resources", "MEMORY_MB:%d" % f]])
        R("resources", [["resources", "MEMORY_MB:%d" % (f + 1)]])
    # the largest free VCPU anywhere (within max_unit)
    best = max(min(c.free(u, "VCPU"), c.max_unit(u, "VCPU"))
               for u in c.with_rc("VCPU"))
    R("resources", [["resources", "VCPU:%d" % best]])
    R("resources", [["resources", "VCPU:%d" % (best + 1)]])
    # sharing providers: max_unit 4096
    R("resources", [["resources", "DISK_GB:4096"]])
    R("resources", [["resources", "DISK_GB:4097"]])
    # lq-stepped: VCPU cap 15 used 6 max 8; MEMORY min 512 step 256 max 8192
    # used 4096; DISK cap 2000 used 1500 min 10 max 1000 step 10
    for amt in ("VCPU:8", "VCPU:9", "MEMORY_MB:256", "MEMORY_MB:768",
                "MEMORY_MB:700", "MEMORY_MB:8192", "MEMORY_MB:8448",
                "DISK_GB:500", "DISK_GB:510", "DISK_GB:5", "DISK_GB:15",
                "VCPU:8,MEMORY_MB:8192,DISK_GB:500"):
        R("resources_units", [["resources", amt],
                              ["member_of", az[0]]])
    for amt in ("CUSTOM_LQ_WIDGET:8", "CUSTOM_LQ_WIDGET:12",
                "CUSTOM_LQ_WIDGET:2", "CUSTOM_LQ_WIDGET:6"):
        R("resources_units", [["resources", amt]])
    # lq-fractional: VCPU cap int(7*1.5)=10 used 3; MEMORY cap int(999*1.1)
    R("resources_units", [["resources", "VCPU:7"],
                          ["in_tree", extras["fractional"]]])
    R("resources_units", [["resources", "VCPU:8"],
                          ["in_tree", extras["fractional"]]])
    R("resources_units", [["resources", "MEMORY_MB:1098"],
                          ["in_tree", extras["fractional"]]])
    R("resources_units", [["resources", "MEMORY_MB:1099"],
                          ["in_tree", extras["fractional"]]])
    R("resources_units", [["resources", "VCPU:1"],
                          ["in_tree", extras["reserved"]]],
      desc="reserved == total")
    R("resources", [["resources", "VCPU:1,VCPU:100000"]],
      desc="duplicate class: the last amount wins")
    R("resources", [["resources", "VCPU:1000000"]])
    R("resources", [["resources", "CUSTOM_NO_SUCH_CLASS:1"]], error=True)
    R("resources", [["resources", "vcpu:1"]], error=True)
    R("resources", [["resources", "VCPU:0"]], error=True)
    R("resources", [["resources", "VCPU:-1"]], error=True)
    R("resources", [["resources", "VCPU:two"]], error=True)
    R("resources", [["resources", "VCPU"]], error=True)
    R("resources", raw="resources=", error=True)
    R("resources", [["resources", "VCPU:1,,MEMORY_MB:1"]], error=True)

    # -- combinations -------------------------------------------------------
    # pinpoint: built from one provider's own data, so it must match
    inv_rps = [u for u in providers if c.inv.get(u)]
    for _ in range(14):
        u = pick(inv_rps)
        params = []
        rcs = [rc for rc in sorted(c.inv[u])
               if min(c.free(u, rc), c.max_unit(u, rc)) >= 1]
        i = c.inv[u]
        for rc in rng.sample(rcs, min(len(rcs), rng.choice([1, 2]))):
            lo = i[rc]["min_unit"] if isinstance(i[rc], dict) else 1
            st = i[rc]["step_size"] if isinstance(i[rc], dict) else 1
            hi = min(c.free(u, rc), c.max_unit(u, rc))
            amt = rng.randint(lo, max(lo, hi))
            amt -= amt % st
            if amt >= lo:
                params.append(("res", "%s:%d" % (rc, amt)))
        t = sorted(c.traits.get(u, ()))
        req = rng.sample(t, min(len(t), rng.choice([0, 1, 2])))
        lacking = [x for x in all_traits if x not in c.traits.get(u, ())]
        if lacking and rng.random() < 0.7:
            req.append("!" + rng.choice(lacking))
        if req:
            params.append(("required", ",".join(req)))
        a = sorted(c.aggs.get(u, ()))
        if a and rng.random() < 0.6:
            other = rng.choice([x for x in all_aggs if x not in a] or a)
            params.append(("member_of", rng.choice(
                [a[0], "in:%s,%s" % (other, a[0])])))
        if rng.random() < 0.4:
            params.append(("in_tree", c.root(u)))
        res = ",".join(v for k, v in params if k == "res")
        out = ([["resources", res]] if res else []) + \
            [[k, v] for k, v in params if k != "res"]
        R("combo_match", out, desc="built from %s" % c.name[u])
    # random mixes drawn from the pools
    rc_pool = ["VCPU:2", "VCPU:16", "MEMORY_MB:2048", "MEMORY_MB:65536",
               "DISK_GB:100", "DISK_GB:2000", "SRIOV_NET_VF:4",
               "SRIOV_NET_VF:16"]
    for _ in range(10):
        params = []
        if rng.random() < 0.7:
            params.append(["resources", ",".join(
                sorted(rng.sample(rc_pool, rng.choice([1, 2]))))])
        if rng.random() < 0.7:
            ts = rng.sample(all_traits, 2)
            params.append(["required", rng.choice(
                [ts[0], "%s,!%s" % tuple(ts), "in:%s,%s" % tuple(ts)])])
        if rng.random() < 0.6:
            aa = rng.sample(all_aggs, 2)
            params.append(["member_of", rng.choice(
                [aa[0], "in:%s,%s" % tuple(aa), "!" + aa[0]])])
        if rng.random() < 0.3:
            params.append(["in_tree", rng.choice(providers)])
        if not params:
            params.append(["required", rng.choice(all_traits)])
        R("combo_random", params)
    R("combo", [["name", c.name[nroot]], ["uuid", nroot],
                ["in_tree", nroot], ["member_of", sorted(
                    c.aggs.get(nroot, [az[0]]))[0]],
                ["required", ",".join(sorted(c.traits.get(nroot, ())))],
                ["resources", "DISK_GB:1"] if "DISK_GB" in c.inv.get(
                    nroot, {}) else ["required", "HW_ARCH_X86_64"]])
    R("combo", [["resources", "VCPU:1"], ["required", "HW_NUMA_ROOT"],
                ["member_of", az[0]]],
      desc="NUMA nodes have no aggregates: listing has no root spanning")

    # -- microversions ------------------------------------------------------
    agg_r0 = sorted(c.aggs.get(r0, [az[0]]))[0]
    R("mv", [["member_of", agg_r0]], mv="1.2", error=True)
    R("mv", [["member_of", agg_r0]], mv="1.3")
    R("mv", [["member_of", "in:%s,%s" % (az[0], az[1])]], mv="1.3")
    R("mv", [["resources", "VCPU:1"]], mv="1.3", error=True)
    R("mv", [["resources", "VCPU:1"]], mv="1.4")
    R("mv", [["in_tree", nroot]], mv="1.13", error=True)
    R("mv", [["in_tree", nroot]], mv="1.14")
    R("mv", [["in_tree", nroot]], mv="1.19")
    R("mv", [["required", "HW_CPU_X86_AVX2"]], mv="1.17", error=True)
    R("mv", [["required", "HW_CPU_X86_AVX2"]], mv="1.18")
    R("mv", [["required", "HW_CPU_X86_AVX2,!HW_CPU_X86_SVM"]], mv="1.21",
      error=True)
    R("mv", [["required", "HW_CPU_X86_AVX2,!HW_CPU_X86_SVM"]], mv="1.22")
    R("mv", [["member_of", az[0]], ["member_of", st0]], mv="1.23",
      error=True)
    R("mv", [["member_of", az[0]], ["member_of", st0]], mv="1.24")
    R("mv", [["member_of", "!" + az[0]]], mv="1.31", error=True)
    R("mv", [["member_of", "!" + az[0]]], mv="1.32")
    R("mv", [["required", "in:HW_CPU_X86_SVM,HW_NUMA_ROOT"]], mv="1.38",
      error=True)
    R("mv", [["required", "HW_NUMA_ROOT"]], mv="1.40", error=True)
    R("mv", [], mv="2.0", error=True)

    # -- unknown parameters -------------------------------------------------
    R("param", [["foo", "bar"]], error=True)
    R("param", [["limit", "5"]], error=True)
    R("param", [["resources1", "VCPU:1"]], error=True)
    R("param", [["name", c.name[r0]], ["name", c.name[child0]]],
      desc="repeated name: webob's last value")

    # ======================================================================
    # GET /allocation_candidates edge cases
    # ======================================================================
    A = qb.ac
    vm = "VCPU:1,MEMORY_MB:512"
    # a NUMA root with AVX2 and local disk (trait only on the root)
    cand = [r for r in numa_roots if "HW_CPU_X86_AVX2" in c.traits[r]
            and "DISK_GB" in c.inv.get(r, {})
            and any(c.free(n, "VCPU") >= 1 and c.free(n, "MEMORY_MB") >= 512
                    for n in c.children[r])
            and c.free(r, "DISK_GB") >= 10]
    N = pick(cand, nroot)
    A("root_trait", [["resources", vm], ["required", "HW_CPU_X86_AVX2"],
                     ["in_tree", N]],
      desc="trait only on the non-supplying root: no candidate")
    A("root_trait", [["resources", vm + ",DISK_GB:10"],
                     ["required", "HW_CPU_X86_AVX2"], ["in_tree", N]],
      desc="root supplies DISK_GB: now it matches")
    A("root_trait", [["resources", vm], ["root_required", "HW_CPU_X86_AVX2"],
                     ["in_tree", N]])
    A("root_trait", [["resources", vm], ["required", "HW_NUMA_ROOT"]])
    A("root_trait", [["resources", vm + ",DISK_GB:10"],
                     ["required", "HW_NUMA_ROOT,HW_CPU_X86_AVX512F"]])
    A("root_trait", [["resources", vm], ["required", "!HW_CPU_X86_AVX2"],
                     ["in_tree", N]],
      desc="forbidden trait on a non-supplying root is ignored")
    # sharing providers
    ss0 = pick(sharing)
    ss_traits = sorted(c.traits.get(ss0, ())) if ss0 else []
    ss_disk = ([t for t in ss_traits if t.startswith("STORAGE_DISK_")] or
               ["STORAGE_DISK_HDD"])[0]
    ss_kind = ([t for t in ss_traits if t.startswith("CUSTOM_STORAGE_")] or
               ["CUSTOM_STORAGE_CEPH"])[0]
    ss_agg = sorted(c.aggs.get(ss0, [st0]))[0] if ss0 else st0
    A("sharing", [["resources", "DISK_GB:100"],
                  ["required", "!" + ss_disk]])
    A("sharing", [["resources", vm + ",DISK_GB:20"],
                  ["required", "!" + ss_kind],
                  ["member_of", ss_agg]])
    A("sharing", [["resources", vm + ",DISK_GB:20"],
                  ["required", ss_disk]],
      desc="required trait satisfied by the sharing provider")
    diskless = [r for r in computes if "DISK_GB" not in c.inv.get(r, {})
                and c.aggs.get(r, set()) & set(storage)]
    D = pick(diskless, r0)
    d_az = sorted(c.aggs.get(D, set()) & set(az)) or az[:1]
    d_st = sorted(c.aggs.get(D, set()) & set(storage)) or [st0]
    A("sharing", [["resources", vm + ",DISK_GB:20"],
                  ["member_of", d_az[0]]],
      desc="sharing provider not in the AZ aggregate")
    A("sharing", [["resources", vm + ",DISK_GB:20"],
                  ["member_of", "in:%s,%s" % (d_az[0], d_st[0])]])
    A("sharing", [["resources", vm + ",DISK_GB:20"],
                  ["member_of", d_az[0]], ["member_of", d_st[0]]])
    A("sharing", [["resources", vm + ",DISK_GB:20"],
                  ["member_of", "!" + d_st[0]]])
    A("sharing", [["resources", "DISK_GB:4096"], ["member_of", st0]])
    A("sharing", [["resources", "DISK_GB:4097"], ["member_of", st0]])
    A("sharing", [["resources", vm], ["resources1", "DISK_GB:10"],
                  ["in_tree1", D]],
      desc="in_tree1 excludes the sharing provider outside the tree")
    A("sharing", [["resources", vm], ["resources1", "DISK_GB:10"],
                  ["required1", "!" + ss_disk], ["member_of1", d_st[0]]])
    # in_tree
    pf_c = pick(deep_pfs, pick(pfs, N))
    A("in_tree", [["resources", vm + ",SRIOV_NET_VF:1"], ["in_tree", pf_c]])
    A("in_tree", [["resources", vm + ",DISK_GB:10"], ["in_tree", D]],
      desc="diskless tree: in_tree excludes sharing providers")
    A("in_tree", [["resources", "DISK_GB:10"],
                  ["in_tree", pick(sharing, r0)]])
    A("in_tree", [["resources", "MEMORY_MB:512"], ["resources1", "VCPU:1"],
                  ["in_tree1", pick(c.children[N], N)],
                  ["group_policy", "none"]])
    A("in_tree", [["resources", vm], ["in_tree", unknown_rp]])
    # granular
    A("granular", [["resources1", "SRIOV_NET_VF:1"],
                   ["resources2", "SRIOV_NET_VF:1"],
                   ["required1", PHYS[0]], ["group_policy", "isolate"]])
    A("granular", [["resources1", "SRIOV_NET_VF:1"],
                   ["resources2", "SRIOV_NET_VF:1"],
                   ["required1", PHYS[0]], ["group_policy", "none"]])
    A("granular", [["resources", "VCPU:1"], ["resources1", "VCPU:1"],
                   ["in_tree", N], ["group_policy", "none"]],
      desc="same class unsuffixed + numbered: only with none (8.0.0 bug)")
    A("granular", [["resources", vm], ["resources1", "SRIOV_NET_VF:1"],
                   ["resources2", "DISK_GB:10"],
                   ["group_policy", "isolate"]])
    A("granular", [["resources_CPU", "VCPU:1"], ["resources_MEM",
                                                  "MEMORY_MB:512"],
                   ["in_tree", N], ["group_policy", "isolate"]], error=True,
      desc="unsuffixed in_tree without unsuffixed resources: the '' group "
           "is resourceless -> 400")
    A("granular", [["resources_CPU", "VCPU:1"], ["resources_MEM",
                                                  "MEMORY_MB:512"],
                   ["in_tree_CPU", N], ["in_tree_MEM", N],
                   ["group_policy", "isolate"]])
    # same_subtree / resourceless
    A("same_subtree", [["resources_CPU", "VCPU:1"],
                       ["resources_NIC", "SRIOV_NET_VF:1"],
                       ["same_subtree", "_CPU,_NIC"],
                       ["group_policy", "isolate"]])
    A("same_subtree", [["resources_CPU", vm],
                       ["required_ROOT", "HW_CPU_X86_AVX2"],
                       ["same_subtree", "_ROOT,_CPU"],
                       ["group_policy", "none"]],
      desc="resourceless group on the root")
    A("same_subtree", [["resources_CPU", vm], ["required_X", "HW_NUMA_ROOT"],
                       ["group_policy", "none"]], error=True)
    A("same_subtree", [["resources_CPU", vm], ["same_subtree", "_CPU,_NOPE"],
                       ["group_policy", "none"]], error=True)
    A("same_subtree", [["resources_CPU", vm], ["resources_NIC",
                                                "SRIOV_NET_VF:1"],
                       ["same_subtree", "_CPU,_NIC"],
                       ["group_policy", "none"]], mv="1.35", error=True)
    # root_required
    A("root_required", [["resources", vm],
                        ["root_required", "!COMPUTE_STATUS_DISABLED,"
                                          "CUSTOM_RACK_A"]])
    A("root_required", [["resources", vm], ["root_required", "HW_NUMA_ROOT"]])
    A("root_required", [["resources", vm],
                        ["root_required", "in:CUSTOM_RACK_A,CUSTOM_RACK_B"]],
      error=True)
    A("root_required", [["resources", vm],
                        ["root_required", "HW_CPU_X86_AVX2"]], mv="1.34",
      error=True)
    A("root_required", [["resources", vm], ["root_required", "CUSTOM_RACK_A"],
                        ["root_required", "HW_CPU_X86_AVX2"]], error=True)
    # limit
    A("limit", [["resources", vm], ["limit", "1"]])
    A("limit", [["resources", vm], ["resources1", "SRIOV_NET_VF:1"],
                ["limit", "3"]])
    A("limit", [["resources", vm], ["limit", "0"]], error=True)
    # old microversions
    A("mv", [["resources", "MEMORY_MB:512"], ["resources1", "VCPU:1"]],
      mv="1.25")
    A("mv", [["resources", "VCPU:1,MEMORY_MB:4096"], ["member_of", az[0]]],
      mv="1.26", desc="lq-reserved-all (reserved == total) must not appear")
    n_agg = sorted(c.aggs.get(N, [az[0]]))[0]
    A("mv", [["resources", "DISK_GB:10"], ["member_of", n_agg]], mv="1.26",
      desc="summaries: only the requested classes before 1.27")
    A("mv", [["resources", "DISK_GB:10"], ["member_of", n_agg]], mv="1.27")
    A("mv", [["resources", vm], ["in_tree", N]], mv="1.19", error=True)
    A("mv", [["resources", vm + ",DISK_GB:10"]], mv="1.28")
    A("mv", [["resources", vm + ",DISK_GB:10"]], mv="1.29")
    A("mv", [["resources", vm], ["in_tree", N]], mv="1.30", error=True)
    A("mv", [["resources", vm], ["in_tree", N]], mv="1.31")
    A("mv", [["resources", vm], ["member_of", "!" + az[0]]], mv="1.31",
      error=True)
    A("mv", [["resources", vm], ["member_of", "!" + az[0]]], mv="1.32")
    A("mv", [["resources", vm], ["resources_NET", "SRIOV_NET_VF:1"]],
      mv="1.32", error=True)
    A("mv", [["resources", vm], ["resources_NET", "SRIOV_NET_VF:1"]],
      mv="1.33")
    A("mv", [["resources", vm], ["resources_NET", "SRIOV_NET_VF:1"]],
      mv="1.34")
    A("mv", [["required", "HW_CPU_X86_AVX2"]], mv="1.36", error=True)
    A("mv", [["resources", vm], ["required", "in:CUSTOM_RACK_A,"
                                             "CUSTOM_RACK_B"]],
      mv="1.38", error=True)
    A("mv", [["resources", vm], ["required", "CUSTOM_RACK_A"],
             ["required", "HW_CPU_X86_AVX512F"]], mv="1.38")
    # invalid syntax
    A("invalid", [["resources", "VCPU"]], error=True)
    A("invalid", [["resources", "VCPU:1,,MEMORY_MB:1"]], error=True)
    A("invalid", [["resources", vm], ["group_policy", "bogus"]], error=True)
    A("invalid", [["resources", vm], ["foo", "bar"]], error=True)
    A("invalid", [["resources", vm], ["member_of", "in:"]], error=True)
    A("invalid", raw="resources=VCPU:1&resources1=", error=True)
    A("invalid", [["resources", vm], ["required", "HW_CPU_X86_AVX2"],
                  ["required", "!HW_CPU_X86_AVX2"]], error=True)

    scn["queries"] = list(scn.get("queries", [])) + qb.qs
    scn["name"] = "listing+edge queries on generated seed=%s size=%s" % (
        seed, size)
    return scn


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", help="gen_scenario.py output, or - for stdin")
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    if args.scenario == "-":
        scn = json.load(sys.stdin)
    else:
        with open(args.scenario) as f:
            scn = json.load(f)
    base_q = len(scn.get("queries", []))
    scn = build(scn)
    text = json.dumps(scn, indent=None, separators=(",", ":"))
    if args.output:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    qs = scn["queries"][base_q:]
    sys.stderr.write(
        "%d providers; +%d queries (%d resource_providers, %d "
        "allocation_candidates, %d expect_error)\n" % (
            len(scn["providers"]), len(qs),
            sum(q["kind"] == "resource_providers" for q in qs),
            sum(q["kind"] == "allocation_candidates" for q in qs),
            sum(bool(q.get("expect_error")) for q in qs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
