#!/usr/bin/python3
"""Record what the real Placement 8.0.0 answers to PUT /resource_providers/{uuid}/inventories/{rc}
on a small cloud, request after request (each sees the state the earlier ones left).
usage: /usr/bin/python3 record.py ../shared/oracle > placement.json"""
import json, sys
sys.path.insert(0, sys.argv[1])
from live_placement import LivePlacement

RP = "11111111-1111-1111-1111-111111111111"
scenario = {
    "providers": [{"uuid": RP, "name": "cn1", "parent": None}],
    "inventories": {RP: {"VCPU": {"total": 8, "allocation_ratio": 2.0}, "MEMORY_MB": 4096}},
    "traits": {}, "aggregates": {},
    "allocations": {"22222222-2222-2222-2222-222222222222": {RP: {"VCPU": 6}}},
    "consumers": {"22222222-2222-2222-2222-222222222222": {"project_id": "p", "user_id": "u", "consumer_type": "INSTANCE"}},
}
# (resource class, body without the generation, generation offset from the provider's current one)
steps = [
    ("VCPU", {"total": 16, "reserved": 2}, 0),
    ("VCPU", {"total": 16}, -1),
    ("MEMORY_MB", {"total": 8192, "step_size": 256, "allocation_ratio": 1.5}, 0),
    ("FOO", {"total": 4}, 0),
    ("CUSTOM_NOPE", {"total": 4}, 0),
    ("VCPU", {"total": 4, "reserved": 5}, 0),
    ("VCPU", {"total": 0}, 0),
    ("VCPU", {"total": 2}, 0),
    ("DISK_GB", {"total": 100}, 0),
]
out = []
with LivePlacement(scenario=scenario) as lp:
    for rc, body, offset in steps:
        generation = lp.call("GET", f"/resource_providers/{RP}").json()["generation"]
        r = lp.call("PUT", f"/resource_providers/{RP}/inventories/{rc}", dict(body, resource_provider_generation=generation + offset))
        answer = r.json()
        if r.status_code >= 400:
            e = answer["errors"][0]
            answer = {"code": e["code"], "detail": " ".join(e["detail"].split("\n\n", 1)[1].split())}
        inventories = lp.call("GET", f"/resource_providers/{RP}/inventories").json()
        out.append({"resource_class": rc, "body": body, "generation_offset": offset, "status": r.status_code, "answer": answer, "inventories_after": inventories})
json.dump({"recorded_with": "Placement 8.0.0 (Debian python3-placement), microversion 1.39", "provider": RP, "scenario": scenario, "steps": out}, sys.stdout, indent=1)
print()
