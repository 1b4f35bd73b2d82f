#!/usr/bin/env python3
"""Small but tricky Placement clouds with many random allocation-candidate
queries, in the oracle's scenario format (placement-oracle-scenario/1).

    edge_cases.py SEED [-o OUT.scenario.json] [--queries N]
    edge_cases.py --prune SCENARIO RESULTS   # after recording: drop 500s

Every choice comes from random.Random("placement-gql-edge:SEED"), so the same
SEED always gives a byte-identical file.  Standard library only.

The cloud (a few roots, so that answers stay small):

* compute trees of 1 to 4 levels: flat roots; roots with NUMA children and
  PFs below them and an accelerator below a PF (4 levels); roots without
  inventory whose child supplies everything; resources on several levels;
* sharing providers (MISC_SHARES_VIA_AGGREGATE) as roots, with traits, in one
  or several aggregates, two of them sometimes in the same aggregate; a child
  of a compute tree that is also a sharing provider; a root with DISK_GB but
  without the sharing trait; an empty root;
* aggregates on roots and on children;
* inventories with reserved (sometimes == total), min_unit, max_unit,
  step_size and fractional allocation ratios, and allocations that fill some
  of them exactly to capacity.

Queries: random requests over the cloud at microversions 1.10 to 1.39 (the
features each microversion allows, sometimes one that is too new), amounts
at and just beyond the capacity, min_unit, max_unit and step_size edges, and
a fixed list of invalid queries.

Two shapes are never generated, because Placement 8.0.0 answers them with a
known deliberate difference (oracle README "Quirks", docs/compatibility.md):

* the same resource class in the unsuffixed group and a numbered group with
  group_policy absent or isolate (inflated amounts): such queries always get
  group_policy=none, which Placement answers correctly;
* an unsuffixed group that sharing providers alone could serve, together
  with other groups (Placement keeps one anchor tree chosen by Python's set
  order): when other groups exist, the unsuffixed group always asks for a
  class that no sharing provider has.
"""

import argparse
import json
import random
import sys
import uuid as uuidlib

SHAREABLE = ["DISK_GB", "IPV4_ADDRESS", "CUSTOM_MAGIC"]
TRAITS = ["HW_CPU_X86_AVX2", "HW_CPU_X86_SSE42", "HW_NIC_SRIOV",
          "COMPUTE_STATUS_DISABLED", "STORAGE_DISK_SSD", "HW_NUMA_ROOT",
          "CUSTOM_A", "CUSTOM_B", "CUSTOM_C", "CUSTOM_PHYSNET0",
          "CUSTOM_PHYSNET1", "CUSTOM_UNUSED"]
CUSTOM_TRAITS = [t for t in TRAITS if t.startswith("CUSTOM_")]
NOT_SHAREABLE = ["VCPU", "MEMORY_MB", "SRIOV_NET_VF",
                 "NET_BW_EGR_KILOBIT_PER_SEC", "CUSTOM_ACCEL"]
MICROVERSIONS = (["1.10", "1.17", "1.21", "1.25", "1.26", "1.27", "1.28",
                  "1.29", "1.30", "1.31", "1.32", "1.33", "1.34", "1.35",
                  "1.36", "1.37", "1.38"] + ["1.39"] * 8)
UNKNOWN = "ffffffff-0000-4000-8000-000000000000"


def minor(mv):
    return int(mv.split(".")[1])


class Cloud(object):
    def __init__(self, rng, seed):
        self.rng = rng
        self.seed = seed
        self.providers = []
        self.inv = {}
        self.traits = {}
        self.aggs = {}
        self.allocs = {}
        self.parent = {}
        self.sharing = set()
        self.agg_pool = [self.uuid() for _ in range(5)]
        self.n = 0

    def uuid(self):
        return str(uuidlib.UUID(int=self.rng.getrandbits(128), version=4))

    def add(self, name, parent=None):
        u = self.uuid()
        self.providers.append({"uuid": u, "name": name, "parent": parent})
        self.parent[u] = parent
        return u

    def root(self, u):
        while self.parent[u]:
            u = self.parent[u]
        return u

    def children(self, u):
        return [p["uuid"] for p in self.providers if p["parent"] == u]

    def inventory(self, u, rc, total):
        r = self.rng
        inv = {"total": total}
        x = r.random()
        if x < 0.15:
            inv["reserved"] = r.choice([1, total // 4, total])
        if r.random() < 0.2:
            inv["allocation_ratio"] = r.choice([1.5, 2.0, 0.9, 16.0, 1.1])
        if r.random() < 0.2 and total >= 4:
            inv["step_size"] = r.choice([2, 4])
        if r.random() < 0.2:
            inv["min_unit"] = r.choice([2, 4])
        if r.random() < 0.35:
            inv["max_unit"] = max(inv.get("min_unit", 1),
                                  r.randint(1, total))
        self.inv.setdefault(u, {})[rc] = inv

    def capacity(self, u, rc):
        i = self.inv[u][rc]
        return int((i["total"] - i.get("reserved", 0)) *
                   i.get("allocation_ratio", 1.0))

    def used(self, u, rc):
        return sum(a.get(u, {}).get(rc, 0) for a in self.allocs.values())

    def free(self, u, rc):
        return self.capacity(u, rc) - self.used(u, rc)

    def allocate(self, u, rc, fill):
        """Consumers taking valid amounts until about `fill` of capacity."""
        i = self.inv[u][rc]
        lo, hi = i.get("min_unit", 1), i.get("max_unit", 2147483647)
        step = i.get("step_size", 1)
        target = int(self.capacity(u, rc) * fill)
        for _ in range(6):
            room = min(hi, self.free(u, rc), target - self.used(u, rc))
            amounts = [a for a in range(lo, room + 1) if a % step == 0]
            if not amounts:
                break
            amount = amounts[-1] if self.rng.random() < 0.5 else \
                self.rng.choice(amounts)
            self.allocs[self.uuid()] = {u: {rc: amount}}

    def build(self):
        r = self.rng
        aggs = self.agg_pool
        computes = []
        # Every 4th seed has no trees at all (Placement's has_trees switch),
        # every 4th + 1 no sharing providers (exists_sharing).
        self.flat = int(self.seed) % 4 == 0
        self.no_sharing = int(self.seed) % 4 == 1 or int(self.seed) % 8 == 0
        shapes = ["flat"] if self.flat else \
            ["flat", "numa", "numa", "deep", "childonly"]
        for i in range(r.randint(4, 6)):
            shape = r.choice(shapes)
            root = self.add("cn%d-%s" % (i, shape))
            computes.append(root)
            tr = set(r.sample(TRAITS[:3] + ["COMPUTE_STATUS_DISABLED",
                                            "CUSTOM_A", "CUSTOM_B"],
                              r.randint(0, 3)))
            self.traits[root] = tr
            if r.random() < 0.8:
                self.aggs[root] = set(r.sample(aggs[:4], r.randint(1, 2)))
            if shape == "flat":
                self.inventory(root, "VCPU", r.randint(2, 16))
                self.inventory(root, "MEMORY_MB", r.choice([1024, 2048, 4096]))
                if r.random() < 0.6:
                    self.inventory(root, "DISK_GB", r.randint(20, 200))
                if r.random() < 0.4 and not self.flat:
                    pf = self.add("cn%d-pf0" % i, root)
                    self.inventory(pf, "SRIOV_NET_VF", r.randint(2, 8))
                    self.traits[pf] = {"HW_NIC_SRIOV",
                                       r.choice(["CUSTOM_PHYSNET0",
                                                 "CUSTOM_PHYSNET1"])}
            elif shape == "childonly":
                child = self.add("cn%d-only" % i, root)
                self.inventory(child, "VCPU", r.randint(2, 8))
                self.inventory(child, "MEMORY_MB", r.choice([1024, 2048]))
                if r.random() < 0.5:
                    self.traits[child] = {r.choice(["CUSTOM_C",
                                                    "HW_CPU_X86_AVX2"])}
                if r.random() < 0.4:
                    self.aggs[child] = {r.choice(aggs)}
            else:
                if r.random() < 0.5:
                    self.inventory(root, "DISK_GB", r.randint(20, 200))
                if r.random() < 0.3:
                    self.inventory(root, "VCPU", r.randint(1, 4))
                for k in range(r.choice([1, 2, 2, 3])):
                    numa = self.add("cn%d-numa%d" % (i, k), root)
                    self.traits[numa] = {"HW_NUMA_ROOT"} | set(
                        r.sample(["CUSTOM_C", "HW_CPU_X86_AVX2"],
                                 r.randint(0, 1)))
                    self.inventory(numa, "VCPU", r.randint(1, 8))
                    if r.random() < 0.8:
                        self.inventory(numa, "MEMORY_MB",
                                       r.choice([512, 1024, 2048]))
                    if r.random() < 0.25:
                        self.aggs[numa] = {r.choice(aggs)}
                    npf = r.choice([0, 1, 1, 2]) if shape == "numa" else \
                        r.choice([1, 2])
                    for j in range(npf):
                        pf = self.add("cn%d-numa%d-pf%d" % (i, k, j), numa)
                        self.inventory(pf, "SRIOV_NET_VF", r.randint(1, 8))
                        if r.random() < 0.6:
                            self.inventory(pf,
                                           "NET_BW_EGR_KILOBIT_PER_SEC",
                                           r.choice([1000, 10000]))
                        self.traits[pf] = {"HW_NIC_SRIOV", r.choice(
                            ["CUSTOM_PHYSNET0", "CUSTOM_PHYSNET1"])}
                        if r.random() < 0.3:
                            self.traits[pf].add("CUSTOM_A")
                        if r.random() < 0.15:
                            self.aggs[pf] = {r.choice(aggs)}
                        if shape == "deep" and r.random() < 0.7:
                            acc = self.add("cn%d-numa%d-pf%d-acc" % (i, k, j),
                                           pf)
                            self.inventory(acc, "CUSTOM_ACCEL",
                                           r.randint(1, 4))
                            if r.random() < 0.5:
                                self.traits[acc] = {"CUSTOM_B"}
            # a child of the tree that is also a sharing provider
            if r.random() < 0.3 and not (self.flat or self.no_sharing):
                sc = self.add("cn%d-sharechild" % i, root)
                self.inventory(sc, r.choice(SHAREABLE), r.randint(10, 100))
                self.traits[sc] = {"MISC_SHARES_VIA_AGGREGATE"} | set(
                    r.sample(["STORAGE_DISK_SSD", "CUSTOM_C"],
                             r.randint(0, 1)))
                self.aggs[sc] = {r.choice(aggs[:4])}
                self.sharing.add(sc)
        for i in range(0 if self.no_sharing else r.randint(2, 3)):
            ss = self.add("ss%d" % i)
            self.sharing.add(ss)
            for rc in r.sample(SHAREABLE, r.randint(1, 2)):
                self.inventory(ss, rc, r.randint(50, 500))
            if r.random() < 0.25:
                self.inventory(ss, "VCPU", r.randint(2, 16))
            if r.random() < 0.3 and not self.flat:
                kid = self.add("ss%d-child" % i, ss)
                self.inventory(kid, r.choice(["VCPU", "SRIOV_NET_VF"]),
                               r.randint(2, 8))
                if r.random() < 0.5:
                    self.traits[kid] = {r.choice(["CUSTOM_C", "HW_NIC_SRIOV"])}
            self.traits[ss] = {"MISC_SHARES_VIA_AGGREGATE"} | set(
                r.sample(["STORAGE_DISK_SSD", "CUSTOM_A", "CUSTOM_C",
                          "COMPUTE_STATUS_DISABLED"], r.randint(0, 2)))
            self.aggs[ss] = set(r.sample(aggs, r.randint(0, 2)) if i else
                                r.sample(aggs[:4], r.randint(1, 2)))
        # DISK_GB without the sharing trait, in an aggregate
        plain = self.add("plain-disk")
        self.inventory(plain, "DISK_GB", r.randint(50, 300))
        self.aggs[plain] = {r.choice(aggs[:4])}
        self.add("empty")
        # allocations
        for u, rcs in sorted(self.inv.items()):
            for rc in sorted(rcs):
                x = r.random()
                if x < 0.15:
                    self.allocate(u, rc, 1.0)
                elif x < 0.5:
                    self.allocate(u, rc, r.random())
        self.computes = computes

    # ------------------------------------------------------------ views
    def uuids(self):
        return [p["uuid"] for p in self.providers]

    def with_rc(self, rc):
        return [u for u in self.uuids() if rc in self.inv.get(u, {})]

    def shared_classes(self):
        """Classes some sharing provider has an inventory of."""
        return {rc for u in self.sharing for rc in self.inv.get(u, {})}

    def classes(self):
        return sorted({rc for rcs in self.inv.values() for rc in rcs})

    def scenario(self):
        return {
            "format": "placement-oracle-scenario/1",
            "name": "edge_seed%s" % self.seed,
            "seed": self.seed,
            "providers": self.providers,
            "inventories": self.inv,
            "traits": {u: sorted(t) for u, t in self.traits.items() if t},
            "aggregates": {u: sorted(a) for u, a in self.aggs.items() if a},
            "allocations": self.allocs,
            "custom_traits": CUSTOM_TRAITS,
            "resource_classes": ["CUSTOM_MAGIC", "CUSTOM_ACCEL",
                                 "CUSTOM_UNUSED_RC"],
        }


class Queries(object):
    def __init__(self, cloud, rng):
        self.c = cloud
        self.r = rng
        self.out = []

    def add(self, tag, mv, params=None, raw=None, expect_error=False):
        q = {"id": "%s_%03d" % (tag, len(self.out)), "tag": tag,
             "microversion": mv}
        if raw is not None:
            q["raw_query"] = raw
        else:
            q["params"] = params
        if expect_error:
            q["expect_error"] = True
        self.out.append(q)

    # ---------------------------------------------------------- pieces
    def amount(self, rc):
        """Mostly small, sometimes at an edge of some provider's inventory."""
        r, c = self.r, self.c
        holders = c.with_rc(rc)
        if not holders or r.random() < 0.6:
            return r.choice([1, 1, 1, 1, 2, 2, 4])
        u = r.choice(holders)
        i = c.inv[u][rc]
        free = c.free(u, rc)
        edges = [free, free + 1, max(free - 1, 1), i.get("min_unit", 1),
                 max(i.get("min_unit", 1) - 1, 1), i.get("max_unit", free),
                 i.get("max_unit", free) + 1, i.get("step_size", 1) * 2,
                 i.get("step_size", 1) + 1, c.capacity(u, rc)]
        return max(1, r.choice(edges))

    def resources(self, classes):
        return ",".join("%s:%d" % (rc, self.amount(rc)) for rc in classes)

    def trait_params(self, mv, key):
        """Zero or more (key, value) pairs for required traits."""
        r = self.r
        out = []
        n = r.choice([0, 0, 0, 1, 1, 2]) if minor(mv) >= 39 else \
            r.choice([0, 0, 0, 1, 1])
        for _ in range(n):
            kind = r.random()
            t = r.sample(TRAITS, 3)
            if kind < 0.35:
                v = t[0]
            elif kind < 0.55 and minor(mv) >= 22:
                v = "!" + t[0]
            elif kind < 0.7 and minor(mv) >= 22:
                v = "%s,!%s" % (t[0], t[1])
            elif kind < 0.85 and minor(mv) >= 39:
                v = "in:%s,%s" % (t[0], t[1])
            elif kind < 0.9 and minor(mv) >= 39:
                v = "in:%s,%s,%s" % (t[0], t[1], t[2])
            else:
                v = "%s,%s" % (t[0], t[1])
            out.append((key, v))
        return out

    def member_params(self, mv, key):
        r, aggs = self.r, self.c.agg_pool
        out = []
        if minor(mv) < 21 or r.random() < 0.6:
            return out
        n = r.choice([1, 1, 1, 2]) if minor(mv) >= 24 else 1
        for _ in range(n):
            a = r.sample(aggs, 2)
            kind = r.random()
            if kind < 0.35:
                v = a[0]
            elif kind < 0.6:
                v = "in:%s,%s" % (a[0], a[1])
            elif kind < 0.75 and minor(mv) >= 32:
                v = "!" + a[0]
            elif kind < 0.85 and minor(mv) >= 32:
                v = "!in:%s,%s" % (a[0], a[1])
            elif kind < 0.9:
                v = UNKNOWN
            else:
                v = "in:%s,%s" % (a[0], UNKNOWN)
            out.append((key, v))
        return out

    def tree_param(self, mv, key, p):
        r, c = self.r, self.c
        if minor(mv) < 31 or r.random() > p:
            return []
        kind = r.random()
        if kind < 0.35:
            u = r.choice(c.computes)
        elif kind < 0.7:
            kids = [u for u in c.uuids() if c.parent[u]]
            u = r.choice(kids) if kids else r.choice(c.computes)
        elif kind < 0.9:
            u = r.choice(sorted(c.sharing) or c.computes)
        else:
            u = UNKNOWN
        return [(key, u)]

    def suffixes(self, mv, n):
        if minor(mv) >= 33 and self.r.random() < 0.4:
            pool = ["_NET", "_ACC", "-x", "abc", "_1", "Z"]
        else:
            pool = ["1", "2", "3", "4", "10"]
        return self.r.sample(pool, n)

    # ---------------------------------------------------------- queries
    def random_query(self):
        r, c = self.r, self.c
        mv = r.choice(MICROVERSIONS)
        m = minor(mv)
        classes = c.classes()
        params = []
        ngran = r.choice([0, 0, 1, 1, 2, 2, 3, 4]) if m >= 25 else 0
        granular = []
        sfx = self.suffixes(mv, ngran)
        for s in sfx:
            if m >= 36 and r.random() < 0.15 and ngran >= 2:
                granular.append((s, []))      # resourceless
            else:
                pool = r.choice([["SRIOV_NET_VF"], ["SRIOV_NET_VF",
                                 "NET_BW_EGR_KILOBIT_PER_SEC"],
                                 ["CUSTOM_ACCEL"], ["VCPU"],
                                 ["VCPU", "MEMORY_MB"], ["DISK_GB"],
                                 ["IPV4_ADDRESS"], ["CUSTOM_MAGIC"],
                                 [r.choice(classes)]])
                granular.append((s, pool))
        unsuffixed = []
        if not granular or r.random() < 0.75:
            k = r.choice([1, 1, 1, 2, 2, 3])
            unsuffixed = r.sample(classes, min(k, len(classes)))
            shared = c.shared_classes()
            if granular and all(rc in shared for rc in unsuffixed):
                unsuffixed.append(r.choice(
                    [rc for rc in ["VCPU", "MEMORY_MB", "SRIOV_NET_VF"]
                     if rc not in shared]))
            if m < 25:
                pass
        if unsuffixed:
            params.append(("resources", self.resources(unsuffixed)))
            params += self.trait_params(mv, "required") if m >= 17 else []
            params += self.member_params(mv, "member_of")
            params += self.tree_param(mv, "in_tree", 0.25)
        overlap = False
        resourceless = []
        for s, rcs in granular:
            if rcs:
                params.append(("resources" + s, self.resources(rcs)))
                if set(rcs) & set(unsuffixed):
                    overlap = True
            else:
                resourceless.append(s)
            tp = self.trait_params(mv, "required" + s)
            mp = self.member_params(mv, "member_of" + s)
            if not rcs and not tp and not mp:
                tp = [("required" + s, r.choice(TRAITS[:6]))]
            params += tp + mp
            if rcs:
                params += self.tree_param(mv, "in_tree" + s, 0.15)
        gp = None
        if ngran >= 2 or (ngran == 1 and r.random() < 0.5):
            gp = r.choice(["none", "isolate"])
        if overlap:
            gp = "none"      # 8.0.0's inflated amounts otherwise
        if gp:
            params.append(("group_policy", gp))
        if resourceless or (m >= 36 and ngran >= 2 and r.random() < 0.3):
            named = [s for s, _ in granular]
            members = set(resourceless)
            others = [s for s in named if s not in members]
            if others:
                members.add(r.choice(others))
            if len(members) < 2 and len(named) >= 2:
                members.add(r.choice([s for s in named if s not in members]))
            ordered = [s for s in named if s in members]
            params.append(("same_subtree", ",".join(ordered)))
        if m >= 35 and r.random() < 0.2:
            t = r.sample(["COMPUTE_STATUS_DISABLED", "CUSTOM_A", "CUSTOM_B",
                          "HW_CPU_X86_AVX2", "MISC_SHARES_VIA_AGGREGATE"], 2)
            params.append(("root_required", r.choice(
                [t[0], "!" + t[0], "%s,!%s" % (t[0], t[1])])))
        if m >= 16 and r.random() < 0.12:
            params.append(("limit", str(r.choice([1, 2, 3, 1000]))))
        return mv, params

    def build(self, n):
        for _ in range(n):
            mv, params = self.random_query()
            self.add("edge_random", mv, params)
        self.targeted()
        self.invalid()
        return self.out

    def targeted(self):
        """Hand-picked shapes that random draws would rarely hit."""
        c, r = self.c, self.r
        aggs = c.agg_pool
        # the unsuffixed group next to other groups: a class no sharing
        # provider has (see the module docstring)
        base = "VCPU:1" if "VCPU" not in c.shared_classes() else "MEMORY_MB:1"
        for rc in c.classes():
            for u in c.with_rc(rc)[:4]:
                i = c.inv[u][rc]
                free = c.free(u, rc)
                for amount in sorted({free, free + 1, i.get("max_unit", 1),
                                      i.get("min_unit", 1),
                                      i.get("step_size", 1) + 1}):
                    if amount >= 1:
                        self.add("edge_capacity", "1.39",
                                 [("resources", "%s:%d" % (rc, amount)),
                                  ("in_tree", u)])
        for mv in ["1.10", "1.17", "1.21", "1.25", "1.26", "1.27", "1.28",
                   "1.29", "1.31", "1.34", "1.39"]:
            self.add("edge_mv", mv, [("resources", "VCPU:1,MEMORY_MB:256")])
            self.add("edge_mv", mv, [("resources", "DISK_GB:5")])
            self.add("edge_mv", mv, [("resources", "VCPU:1,DISK_GB:5")])
            self.add("edge_mv", mv, [("resources", "SRIOV_NET_VF:1")])
            if minor(mv) >= 16:
                self.add("edge_mv", mv, [("resources", "VCPU:1"),
                                         ("limit", "2")])
            if minor(mv) >= 25:
                self.add("edge_mv", mv, [("resources", base),
                                         ("resources1", "SRIOV_NET_VF:1")])
        for a in aggs:
            for mv in ["1.39", "1.21"]:
                self.add("edge_agg", mv, [("resources", "VCPU:1,DISK_GB:1"),
                                          ("member_of", a)])
                self.add("edge_agg", mv, [("resources", "DISK_GB:1"),
                                          ("member_of", a)])
            self.add("edge_agg", "1.39", [("resources", base),
                                          ("resources1", "DISK_GB:1"),
                                          ("member_of1", a)])
            self.add("edge_agg", "1.39", [("resources", "VCPU:1,DISK_GB:1"),
                                          ("member_of", "!" + a)])
            self.add("edge_agg", "1.39", [("resources", "VCPU:1,IPV4_ADDRESS:1"),
                                          ("member_of", "!in:%s,%s" % (a, aggs[0]))])
        for u in c.uuids():
            self.add("edge_tree", "1.39", [("resources", "VCPU:1,DISK_GB:1"),
                                           ("in_tree", u)])
            self.add("edge_tree", "1.39", [("resources", base),
                                           ("resources1", "DISK_GB:1"),
                                           ("in_tree1", u)])
        for t in TRAITS:
            self.add("edge_trait", "1.39", [("resources", "VCPU:1,DISK_GB:1"),
                                            ("required", t)])
            self.add("edge_trait", "1.39", [("resources", "VCPU:1,DISK_GB:1"),
                                            ("required", "!" + t)])
            self.add("edge_trait", "1.39", [("resources", "VCPU:1,IPV4_ADDRESS:1"),
                                            ("required", "in:%s,CUSTOM_C" % t)])
            self.add("edge_trait", "1.39", [("resources", "VCPU:1"),
                                            ("root_required", t)])
            self.add("edge_trait", "1.39", [("resources", "DISK_GB:1"),
                                            ("root_required", "!" + t)])
            self.add("edge_trait", "1.38", [("resources", "VCPU:1,DISK_GB:1"),
                                            ("required", t),
                                            ("required", "CUSTOM_C")])
            self.add("edge_trait", "1.39", [("resources", "VCPU:1,DISK_GB:1"),
                                            ("required", t),
                                            ("required", "!CUSTOM_C")])
        # same_subtree with resourceless groups
        for t in ["HW_NUMA_ROOT", "HW_NIC_SRIOV", "CUSTOM_C", "CUSTOM_A"]:
            self.add("edge_subtree", "1.39",
                     [("resources_A", "VCPU:1"), ("resources_B", "SRIOV_NET_VF:1"),
                      ("required_N", t), ("same_subtree", "_N,_A,_B"),
                      ("group_policy", "none")])
            self.add("edge_subtree", "1.36",
                     [("resources", "MEMORY_MB:256"),
                      ("resources_B", "CUSTOM_ACCEL:1"),
                      ("required_N", t), ("same_subtree", "_B,_N"),
                      ("group_policy", "isolate")])
            self.add("edge_subtree", "1.39",
                     [("resources1", "SRIOV_NET_VF:1"),
                      ("resources2", "SRIOV_NET_VF:1"),
                      ("required3", t), ("same_subtree", "1,2,3"),
                      ("group_policy", "isolate")])
            self.add("edge_subtree", "1.39",
                     [("resources1", "DISK_GB:1"),
                      ("member_of2", aggs[0]), ("same_subtree", "1,2"),
                      ("group_policy", "none")])

    def invalid(self):
        bad = [
            ("1.39", "resources=CUSTOM_NOPE:1"),
            ("1.39", "resources=VCPU:1&required=CUSTOM_NOPE"),
            ("1.39", "resources=VCPU:1&required=custom_a"),
            ("1.39", "resources=VCPU:1&required=CUSTOM_A,!CUSTOM_A"),
            ("1.39", "resources=VCPU:1&required=in:CUSTOM_A,CUSTOM_B&required=!CUSTOM_A,!CUSTOM_B"),
            ("1.39", "resources=VCPU:1&required=in:CUSTOM_A,CUSTOM_B&required=!CUSTOM_A"),
            ("1.39", "resources=VCPU:1&required=in:CUSTOM_A,!CUSTOM_B"),
            ("1.38", "resources=VCPU:1&required=in:CUSTOM_A,CUSTOM_B"),
            ("1.39", "resources=VCPU:1&root_required=in:CUSTOM_A,CUSTOM_B"),
            ("1.39", "resources=VCPU:1&root_required=CUSTOM_A,!CUSTOM_A"),
            ("1.39", "resources=VCPU:1&root_required=CUSTOM_A&root_required=CUSTOM_B"),
            ("1.39", "resources=VCPU:1&root_required=CUSTOM_NOPE"),
            ("1.39", "resources=VCPU:1&root_required="),
            ("1.39", "resources=VCPU:1&root_required=!"),
            ("1.34", "resources=VCPU:1&root_required=CUSTOM_A"),
            ("1.39", "resources=VCPU:0"),
            ("1.39", "resources=VCPU:-1"),
            ("1.39", "resources=VCPU"),
            ("1.39", "resources=VCPU:abc"),
            ("1.39", "resources=VCPU:1.5"),
            ("1.39", "resources="),
            ("1.39", "resources=%20"),
            ("1.39", "resources=VCPU:1,"),
            ("1.39", "resources=,VCPU:1"),
            ("1.39", "resources=VCPU:1,VCPU:2"),
            ("1.39", "resources=VCPU:1:2"),
            ("1.39", "resources=VCPU: 1"),
            ("1.39", "resources=VCPU:1&resources=MEMORY_MB:1"),
            ("1.39", "resources=+VCPU:1"),
            ("1.39", "resources=vcpu:1"),
            ("1.39", "resources=VCPU:1&member_of=not-a-uuid"),
            ("1.39", "resources=VCPU:1&member_of=%s,%s" % (UNKNOWN, UNKNOWN)),
            ("1.39", "resources=VCPU:1&member_of=in:"),
            ("1.39", "resources=VCPU:1&member_of=!in:bad"),
            ("1.39", "resources=VCPU:1&member_of="),
            ("1.31", "resources=VCPU:1&member_of=!%s" % UNKNOWN),
            ("1.23", "resources=VCPU:1&member_of=%s&member_of=%s" % (UNKNOWN, UNKNOWN)),
            ("1.20", "resources=VCPU:1&member_of=%s" % UNKNOWN),
            ("1.39", "resources=VCPU:1&in_tree=bad"),
            ("1.39", "resources=VCPU:1&in_tree="),
            ("1.30", "resources=VCPU:1&in_tree=%s" % UNKNOWN),
            ("1.39", "resources1=VCPU:1&resources2=VCPU:1"),
            ("1.39", "resources=VCPU:1&resources1=VCPU:1&resources2=MEMORY_MB:1"),
            ("1.39", "resources=VCPU:1&group_policy=bad"),
            ("1.39", "resources=VCPU:1&group_policy="),
            ("1.39", "resources=VCPU:1&group_policy=ISOLATE"),
            ("1.24", "resources=VCPU:1&resources1=VCPU:1"),
            ("1.24", "resources=VCPU:1&group_policy=none"),
            ("1.32", "resources=VCPU:1&resources_X=VCPU:1"),
            ("1.39", "resources=VCPU:1&resources_=DISK_GB:1"),
            ("1.39", "resources=VCPU:1&resources%s=VCPU:1" % ("x" * 65)),
            ("1.39", "resources=VCPU:1&resources.1=VCPU:1"),
            ("1.39", "resources=VCPU:1&resources0=SRIOV_NET_VF:1"),
            ("1.32", "resources=VCPU:1&resources01=VCPU:1"),
            ("1.39", "resources=VCPU:1&limit=0"),
            ("1.39", "resources=VCPU:1&limit=-1"),
            ("1.39", "resources=VCPU:1&limit=abc"),
            ("1.39", "resources=VCPU:1&limit="),
            ("1.39", "resources=VCPU:1&limit=01"),
            ("1.39", "resources=VCPU:1&limit=1&limit=x"),
            ("1.15", "resources=VCPU:1&limit=1"),
            ("1.39", "resources=VCPU:1&foo=bar"),
            ("1.39", "resources=VCPU:1&foo=bar&baz=1"),
            ("1.39", "resources=VCPU:1&required="),
            ("1.39", "resources=VCPU:1&required=,"),
            ("1.39", "resources=VCPU:1&required=CUSTOM_A,"),
            ("1.39", "resources=VCPU:1&required=!"),
            ("1.39", "resources=VCPU:1&required=in:"),
            ("1.39", "resources=VCPU:1&required=in:CUSTOM_A,"),
            ("1.21", "resources=VCPU:1&required=!CUSTOM_A"),
            ("1.16", "resources=VCPU:1&required=CUSTOM_A"),
            ("1.39", "resources=VCPU:1&required=%20CUSTOM_A"),
            ("1.39", "resources1="),
            ("1.39", "resources1=VCPU:1&required2=CUSTOM_A&group_policy=none"),
            ("1.35", "resources1=VCPU:1&required2=CUSTOM_A&group_policy=none"),
            ("1.35", "resources1=VCPU:1&member_of2=%s&group_policy=none" % UNKNOWN),
            ("1.39", "required=CUSTOM_A"),
            ("1.39", "in_tree=%s" % UNKNOWN),
            ("1.39", "resources1=VCPU:1&in_tree=%s" % UNKNOWN),
            ("1.39", ""),
            ("1.35", ""),
            ("1.39", "limit=1"),
            ("1.39", "resources=VCPU:1&same_subtree=_A"),
            ("1.39", "resources=VCPU:1&resources_A=VCPU:1&same_subtree=_A,"),
            ("1.39", "resources=VCPU:1&resources_A=VCPU:1&same_subtree=,_A"),
            ("1.39", "resources_A=VCPU:1&resources_B=VCPU:1&group_policy=none&same_subtree=_A,_C"),
            ("1.35", "resources_A=VCPU:1&resources_B=VCPU:1&group_policy=none&same_subtree=_A,_B"),
            ("1.39", "resources_A=VCPU:1&required_B=CUSTOM_A&required_C=CUSTOM_B&group_policy=none&same_subtree=_A,_B"),
            ("1.39", "resources_A=VCPU:1&required_B=CUSTOM_A&group_policy=none&same_subtree=_A,_B&same_subtree=_B"),
            ("1.40", "resources=VCPU:1"),
            ("2.0", "resources=VCPU:1"),
            ("1.9", "resources=VCPU:1"),
            ("1.39", "resources=VCPU:1&resources1=CUSTOM_NOPE:1"),
            ("1.39", "resources1=VCPU:1&required1=CUSTOM_NOPE"),
            ("1.39", "resources=CUSTOM_NOPE:1&required=CUSTOM_NOPE2"),
            ("1.39", "resources=VCPU:1&required=CUSTOM_NOPE,CUSTOM_NOPE2"),
            ("1.39", "resources=VCPU:1&required=!CUSTOM_NOPE"),
            ("1.39", "resources=VCPU:1&required1=CUSTOM_A"),
            ("1.39", "resources=VCPU:1&required=CUSTOM_A&required=!CUSTOM_A"),
            ("1.38", "resources=VCPU:1&required=CUSTOM_A&required=!CUSTOM_A"),
            ("1.39", "resources=VCPU:1&required1=CUSTOM_A,!CUSTOM_A&resources1=VCPU:1"),
            ("1.39", "resources=VCPU:1;group_policy=bad"),
            ("1.39", "resources=VCPU:1;required=CUSTOM_NOPE"),
            ("1.39", "resources=VCPU%3A1"),
            ("1.39", "resources=VCPU:1&&&limit=2"),
            ("1.39", "resources=VCPU:1&limit"),
            ("1.39", "resources=VCPU:1&resources1"),
            ("1.39", "resources=VCPU:1&required=HW_CPU_X86_AVX2&required=in:CUSTOM_NOPE,CUSTOM_A"),
            ("1.39", "resources=VCPU:1&member_of=in:%s,%s&member_of=!%s" % (UNKNOWN, UNKNOWN, UNKNOWN)),
            ("1.39", "resources=VCPU:1&member_of=!in:%s,%s" % (UNKNOWN, "zz")),
            ("1.39", "resources=SRIOV_NET_VF:1&resources1=VCPU:1&resources1=MEMORY_MB:1"),
            ("1.39", "resources=VCPU:1&group_policy=none&group_policy=isolate"),
            ("1.39", "resources=VCPU:1&in_tree=%s&in_tree=bad" % UNKNOWN),
            ("1.39", "resources=VCPU:1&in_tree=bad&in_tree=%s" % UNKNOWN),
            ("1.39", "resources=VCPU:2147483648"),
            ("1.39", "resources=VCPU:1_0"),
            ("1.39", "resources=VCPU:%2B1"),
            ("1.39", "resources=VCPU:1&root_required=CUSTOM_A,"),
            ("1.39", "resources=VCPU:1&root_required=CUSTOM_A,CUSTOM_NOPE"),
            ("1.39", "resources=VCPU:1&root_required=!CUSTOM_NOPE"),
            ("1.39", "resources=VCPU:1&required=HW_CPU_X86_AVX2,,CUSTOM_A"),
            ("1.39", "resources=VCPU:1&required=in:CUSTOM_A"),
            ("1.39", "resources=VCPU:1&required=in:CUSTOM_A,CUSTOM_A"),
            ("1.39", "resources=VCPU:1&required=in:CUSTOM_A,,CUSTOM_B"),
            ("1.39", "resources=VCPU:1&required=!!CUSTOM_A"),
            ("1.39", "resources=VCPU:1&required=CUSTOM_A,%20!CUSTOM_B"),
            ("1.39", "resources=VCPU:1&member_of=in:%s,,%s" % (UNKNOWN, UNKNOWN)),
            ("1.39", "resources=VCPU:1&member_of=in:%s,%s" % (UNKNOWN, UNKNOWN)),
            ("1.39", "resources=VCPU:1&member_of=%s" % UNKNOWN.upper()),
            ("1.39", "resources=VCPU:1&member_of=%s" % UNKNOWN.replace("-", "")),
            ("1.39", "resources=VCPU:1&member_of=%%20%s" % UNKNOWN),
            ("1.39", "resources=VCPU:1&in_tree=%%20%s" % UNKNOWN),
            ("1.39", "resources=VCPU:1&in_tree=%s" % UNKNOWN.upper()),
            ("1.39", "resources=VCPU:01"),
            ("1.39", "resources=VCPU:+1"),
            ("1.39", "resources=VCPU:%201"),
            ("1.39", "resources=%20VCPU:1"),
            ("1.39", "resources=VCPU:1&limit=1&limit=2"),
            ("1.39", "resources=VCPU:1&limit=x&limit=2"),
            ("1.39", "resources=VCPU:1&limit=2&limit=x"),
            ("1.39", "resources=VCPU:1&limit=%2B1"),
            ("1.39", "resources=VCPU:1&limit=1%20"),
            ("1.39", "resources=VCPU:1&group_policy=none&group_policy=bad"),
            ("1.39", "resources=VCPU:1&group_policy=bad&group_policy=none"),
            ("1.39", "resources=VCPU:1&group_policy=none"),
            ("1.39", "resources1=VCPU:1&required2=CUSTOM_A&same_subtree=1,2,2&group_policy=none"),
            ("1.39", "resources1=VCPU:1&required2=CUSTOM_A&same_subtree=2,1&same_subtree=1&group_policy=none"),
            ("1.39", "resources1=VCPU:1&required2=CUSTOM_A&same_subtree=%201,2&group_policy=none"),
            ("1.39", "resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate&same_subtree=1,2"),
            ("1.36", "resources1=VCPU:1&required2=CUSTOM_A&same_subtree=1,2"),
            ("1.39", "resources1=VCPU:1&required2=CUSTOM_A&same_subtree=1,2"),
            ("1.39", "resources1=VCPU:1&required2=CUSTOM_A&required3=CUSTOM_B&same_subtree=1,3"),
            ("1.35", "resources=VCPU:1&required=CUSTOM_A&required1=CUSTOM_B"),
            ("1.35", "resources=VCPU:1&member_of1=%s" % UNKNOWN),
            ("1.35", "resources=VCPU:1&in_tree1=%s" % UNKNOWN),
            ("1.39", "resources=VCPU:1&in_tree1=%s" % UNKNOWN),
            ("1.39", "resources1=VCPU:1&required=CUSTOM_A"),
            ("1.39", "resources1=VCPU:1&member_of=%s" % UNKNOWN),
            ("1.39", "resources1=VCPU:1&in_tree=%s" % UNKNOWN),
            ("1.24", "resources=VCPU:1&required=!CUSTOM_A&member_of=in:%s,%s" % (UNKNOWN, UNKNOWN)),
            ("1.20", "resources=VCPU:1&required=CUSTOM_A"),
            ("1.16", "resources=VCPU:1&limit=1"),
            ("1.10", "resources=VCPU:1&limit=1"),
            ("1.10", "resources=VCPU:1&required=CUSTOM_A"),
            ("1.10", "resources=VCPU:1&resources1=VCPU:1"),
            ("1.10", "required=CUSTOM_A"),
            ("1.30", "resources=VCPU:1&resources1=VCPU:1&in_tree1=%s&group_policy=none" % UNKNOWN),
        ]
        # the unsuffixed group next to other groups: a class no sharing
        # provider has (see the module docstring)
        base = "VCPU:1" if "VCPU" not in self.c.shared_classes() \
            else "MEMORY_MB:1"
        for mv, raw in bad:
            self.add("edge_invalid", mv,
                     raw=raw.replace("resources=VCPU:1&", "resources=%s&" % base))
        # Placement looks names up group by group and stops at the first
        # group satisfied nowhere: a later unknown name is then no error.
        # (Two unknown names in one any-of set or among the forbidden ones
        # are not asked: which one the message names follows Python's set
        # order.)
        a = self.c.agg_pool[0]
        order = [
            "resources=VCPU:100000&resources1=VCPU:1&required1=CUSTOM_NOPE",
            "resources1=VCPU:1&required1=CUSTOM_NOPE&resources=VCPU:100000",
            "resources=VCPU:1&required=CUSTOM_NOPE&resources1=VCPU:100000",
            "resources1=VCPU:100000&resources=VCPU:1&required=CUSTOM_NOPE",
            "resources=VCPU:100000&resources1=CUSTOM_NOPE:1",
            "resources1=CUSTOM_NOPE:1&resources=VCPU:100000",
            "resources=VCPU:1&member_of=%s&resources1=SRIOV_NET_VF:1&required1=CUSTOM_NOPE" % UNKNOWN,
            "resources1=SRIOV_NET_VF:1&required1=CUSTOM_NOPE&resources=VCPU:1&member_of=%s" % UNKNOWN,
            "resources=VCPU:1&in_tree=%s&resources1=SRIOV_NET_VF:1&required1=CUSTOM_NOPE" % UNKNOWN,
            "resources=VCPU:1&required=CUSTOM_NOPE&in_tree=%s" % UNKNOWN,
            "resources=VCPU:1&required=CUSTOM_NOPE&member_of=%s" % UNKNOWN,
            "resources=VCPU:1&root_required=CUSTOM_UNUSED&required=CUSTOM_NOPE",
            "resources=VCPU:1&root_required=CUSTOM_UNUSED,CUSTOM_NOPE",
            "resources=VCPU:1&root_required=CUSTOM_NOPE,CUSTOM_UNUSED",
            "resources=VCPU:1&required=CUSTOM_UNUSED,CUSTOM_NOPE",
            "resources=VCPU:1&required=in:CUSTOM_UNUSED,CUSTOM_NOPE",
            "resources=VCPU:1&required=CUSTOM_A,!CUSTOM_NOPE",
            "resources=VCPU:1&required=!CUSTOM_NOPE,CUSTOM_UNUSED",
            "resources=VCPU:1&required=!CUSTOM_NOPE&required=CUSTOM_NOPE2",
            "resources=CUSTOM_UNUSED_RC:1&resources1=CUSTOM_NOPE:1",
            "resources=CUSTOM_UNUSED_RC:1&required=CUSTOM_NOPE",
            "resources=VCPU:1,CUSTOM_NOPE:1",
            "resources=CUSTOM_NOPE:1,VCPU:1&required=CUSTOM_NOPE2",
            "resources1=VCPU:1&required2=CUSTOM_NOPE&same_subtree=1,2&group_policy=none",
            "resources1=VCPU:100000&required2=CUSTOM_NOPE&same_subtree=1,2&group_policy=none",
            "resources1=VCPU:1&member_of2=%s&required2=CUSTOM_NOPE&same_subtree=1,2&group_policy=none" % UNKNOWN,
            "resources1=SRIOV_NET_VF:1&in_tree2=%s&same_subtree=1,2&group_policy=none" % self.c.computes[0],
            "resources1=SRIOV_NET_VF:1&required2=!CUSTOM_A&same_subtree=1,2&group_policy=none",
            "resources1=SRIOV_NET_VF:1&member_of2=!%s&same_subtree=1,2&group_policy=none" % a,
            "resources1=SRIOV_NET_VF:1&required2=HW_NUMA_ROOT&in_tree2=%s&same_subtree=1,2&group_policy=none" % self.c.computes[-1],
            "resources1=SRIOV_NET_VF:1&required2=HW_NUMA_ROOT,!CUSTOM_C&member_of2=!%s&same_subtree=1,2&group_policy=none" % a,
            "resources1=SRIOV_NET_VF:1&required2=in:HW_NUMA_ROOT,MISC_SHARES_VIA_AGGREGATE&same_subtree=1,2&group_policy=isolate",
            "resources=VCPU:1&required1=MISC_SHARES_VIA_AGGREGATE&same_subtree=1&group_policy=none",
            "resources=VCPU:1&required1=HW_NUMA_ROOT&same_subtree=1",
            "resources=VCPU:1&required1=HW_NUMA_ROOT&required2=HW_NIC_SRIOV&same_subtree=1,2&group_policy=isolate",
            "resources=VCPU:1&required1=HW_NUMA_ROOT&required2=HW_NIC_SRIOV&same_subtree=1,2&group_policy=none",
            "resources=VCPU:1&member_of1=%s&same_subtree=1" % a,
        ]
        base = "VCPU:1" if "VCPU" not in self.c.shared_classes() \
            else "MEMORY_MB:1"
        for raw in order:
            self.add("edge_order", "1.39",
                     raw=raw.replace("resources=VCPU:1&", "resources=%s&" % base))
        # how Python reads the query string: UTF-8 errors, `$` before a final
        # newline, int() of Unicode digits and whitespace, str.strip()
        root = self.c.computes[0]
        encoding = [
            "resources=VCPU:1&required=%FF", "resources=VCPU:1&required=CUSTOM_A%FF",
            "resources=VCPU:1&required=%C3", "resources=VCPU:1&required=AB%C3%28",
            "resources=VCPU:1&required=%E2%82", "resources=VCPU:1&required=%E2%82X",
            "resources=VCPU:1&required=%F0%9F%98", "resources=VCPU:1&req%FFuired=X",
            "resources=VCPU:1%FF", "resources=VCPU:1&required=%ED%A0%80",
            "resources=VCPU:1&required=%C0%AF", "resources=VCPU:1&required=%F5%80%80%80",
            "resources=VCPU:1&required=%80%80", "resources=VCPU:1&required=%FF&foo=%FE",
            "resources=VCPU:1&required=%E2%82%AC", "resources=VCPU:1&limit=1%0A",
            "resources%0A=VCPU:1", "resources=%s&resources1%%0A=SRIOV_NET_VF:1" % base,
            "resources=VCPU:1&group_policy=none%0A", "resources=VCPU:1&required=CUSTOM_A%0A",
            "resources=VCPU:1&member_of=%s%%0A" % UNKNOWN, "resources=VCPU:1&in_tree=%s%%0A" % root,
            "resources=VCPU:1&in_tree=%%1C%s" % root, "resources=VCPU:1&in_tree=%s%%EF%%BB%%BF" % root,
            "resources=VCPU:1%0A", "resources=VCPU:%0A1", "resources=VCPU:1&limit=%0A1",
            "resources=VCPU:%C2%A01", "resources=VCPU:%E3%80%801", "resources=VCPU:1%EF%BB%BF",
            "resources=VCPU:%E0%A5%A8", "resources=VCPU:%F0%9D%9F%98%F0%9D%9F%99",
            "resources=VCPU:%EF%BC%91", "resources=VCPU:%EF%BC%91_%EF%BC%90", "resources=VCPU:%1C1",
            "resources=VCPU:1&limit=%EF%BC%91&limit=2", "resources=VCPU:1&limit=0&limit=2",
            "resources=VCPU:1&limit=-1&limit=2", "resources=VCPU:1&limit=2%0A&limit=1",
            "resources=VCPU:1&root_required=CUSTOM_A%0A", "resources=VCPU:1&same_subtree=_A%0A",
            "required%0A=CUSTOM_UNUSED&resources=VCPU:1", "member_of%%0A=%s&resources=VCPU:1" % UNKNOWN,
            "resources=VCPU:1&required=%1CCUSTOM_A", "resources=VCPU:1&required=CUSTOM_A%C2%85",
            "resources=VCPU:1&same_subtree=", "resources=VCPU:1&same_subtree=+",
            "resources=VCPU:1&foo", "resources=VCPU:1&=x", "resources=VCPU:1+",
            "resources=VCPU:1&required=CUSTOM_A+", "resources=VCPU:1&in_tree=+%s" % root,
            "resources=VCPU:1&in_tree={%s}" % root, "resources=VCPU:1&in_tree=urn:uuid:%s" % root,
            "resources=VCPU:1&in_tree=%s" % root.replace("-", ""),
            "resources=VCPU:1&member_of={%s}" % UNKNOWN, "resources=VCPU:1&required=in:!CUSTOM_A",
            "resources=VCPU:1&required=!in:CUSTOM_A,CUSTOM_B", "resources=VCPU:1&member_of=!!%s" % UNKNOWN,
            "resources=VCPU:1&root_required=CUSTOM_A,,CUSTOM_B", "resources=VCPU:1&root_required=in:CUSTOM_A",
        ]
        for mv in ["1.39", "1.25", "1.17"]:
            for raw in encoding:
                self.add("edge_encoding", mv,
                         raw=raw.replace("resources=VCPU:1&", "resources=%s&" % base))
        # same_subtree over the 4 levels of the deep trees
        deep = [
            "resources_A=VCPU:1&resources_B=SRIOV_NET_VF:1&resources_C=CUSTOM_ACCEL:1&same_subtree=_A,_B,_C&group_policy=none",
            "resources_A=VCPU:1&resources_B=SRIOV_NET_VF:1&resources_C=CUSTOM_ACCEL:1&same_subtree=_A,_B,_C&group_policy=isolate",
            "resources_A=VCPU:1&resources_B=SRIOV_NET_VF:1&resources_C=CUSTOM_ACCEL:1&same_subtree=_B,_C&group_policy=isolate",
            "resources_B=SRIOV_NET_VF:1&resources_C=CUSTOM_ACCEL:1&same_subtree=_C,_B&group_policy=none",
            "resources=MEMORY_MB:1&resources_C=CUSTOM_ACCEL:1&required_R=HW_NUMA_ROOT&same_subtree=_R,_C&group_policy=none",
            "resources_C=CUSTOM_ACCEL:1&required_P=HW_NIC_SRIOV&required_N=HW_NUMA_ROOT&same_subtree=_N,_P,_C&group_policy=none",
            "resources_C=CUSTOM_ACCEL:1&required_P=HW_NIC_SRIOV&required_N=HW_NUMA_ROOT&same_subtree=_N,_P,_C&group_policy=isolate",
            "resources_C=CUSTOM_ACCEL:1&required_P=HW_NIC_SRIOV&required_N=HW_NUMA_ROOT&same_subtree=_N,_P&same_subtree=_P,_C&group_policy=none",
            "resources_A=VCPU:1&resources_B=SRIOV_NET_VF:1&same_subtree=_A,_B&same_subtree=_B&group_policy=isolate",
            "resources_A=DISK_GB:1&resources_B=SRIOV_NET_VF:1&same_subtree=_A,_B&group_policy=none",
            "resources_A=VCPU:1&resources_B=VCPU:1&same_subtree=_A,_B&group_policy=none",
            "resources_A=VCPU:1&resources_B=VCPU:1&resources_C=SRIOV_NET_VF:1&same_subtree=_A,_C&same_subtree=_B,_C&group_policy=isolate",
            "resources_A=SRIOV_NET_VF:1&required_A=CUSTOM_PHYSNET0&resources_B=SRIOV_NET_VF:1&required_B=CUSTOM_PHYSNET1&required_N=HW_NUMA_ROOT&same_subtree=_N,_A,_B&group_policy=isolate",
            "resources=VCPU:1&resources_A=SRIOV_NET_VF:1&required_C=CUSTOM_B&same_subtree=_A,_C&group_policy=none",
            "resources=VCPU:1&resources_A=CUSTOM_ACCEL:1&required_C=CUSTOM_A&same_subtree=_C,_A&group_policy=none",
        ]
        for raw in deep:
            for mv in ["1.36", "1.39"]:
                self.add("edge_subtree", mv,
                         raw=raw.replace("resources=VCPU:1&", "resources=%s&" % base))


def prune(scenario_path, results_path):
    """Drop the queries Placement answered with 500 from both files.

    Placement 8.0.0 raises KeyError (HTTP 500) in
    _alloc_candidates_multiple_providers when a sharing provider that is a
    child in a tree serves the unsuffixed group but its tree is not among
    the trees it built summaries for: a crash, not an answer to copy.
    """
    with open(scenario_path) as f:
        scn = json.load(f)
    with open(results_path) as f:
        res = json.load(f)
    crashed = {r["id"] for r in res["results"] if r["status"] >= 500}
    scn["queries"] = [q for q in scn["queries"] if q["id"] not in crashed]
    res["results"] = [r for r in res["results"] if r["id"] not in crashed]
    with open(scenario_path, "w") as f:
        f.write(json.dumps(scn, indent=1, sort_keys=True) + "\n")
    with open(results_path, "w") as f:
        f.write(json.dumps(res) + "\n")
    sys.stderr.write("%s: dropped %d queries answered with 500\n" %
                     (scenario_path, len(crashed)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", nargs="?")
    ap.add_argument("-o", "--output")
    ap.add_argument("--queries", type=int, default=250)
    ap.add_argument("--prune", nargs=2, metavar=("SCENARIO", "RESULTS"),
                    help="drop queries answered with 500 from both files")
    args = ap.parse_args()
    if args.prune:
        prune(*args.prune)
        return
    rng = random.Random("placement-gql-edge:%s" % args.seed)
    cloud = Cloud(rng, args.seed)
    cloud.build()
    scn = cloud.scenario()
    scn["queries"] = Queries(cloud, rng).build(args.queries)
    text = json.dumps(scn, indent=1, sort_keys=True) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
