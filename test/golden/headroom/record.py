#!/usr/bin/env python3
"""Applies each headroom case's plan to the real Placement 8.0.0 and records what it answers.

    /usr/bin/python3 test/golden/headroom/record.py ../shared/oracle < cases.json > results.json

For each case (make-cases.ts): a fresh live Placement loaded with the case's cloud, every allocation
request of the plan sent in order with PUT /allocations/{consumer} (1.38), each status recorded, then
GET /allocation_candidates with the request's query string: how many candidates Placement still finds.
"""
import json, sys, uuid

sys.path.insert(0, sys.argv[1])
from live_placement import LivePlacement  # noqa: E402

cases = json.load(sys.stdin)["cases"]
out = []
for case in cases:
    with LivePlacement(scenario=case["scenario"]) as lp:
        statuses = []
        for n, alloc in enumerate(case["plan"]):
            body = {
                "allocations": {rp: {"resources": res} for rp, res in alloc.items()},
                "project_id": "p", "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE",
            }
            consumer = str(uuid.UUID(int=0xC0FFEE << 96 | n))
            r = lp.call("PUT", "/allocations/%s" % consumer, body, microversion="1.38")
            statuses.append(r.status_code)
            if r.status_code != 204:
                print("%s: PUT %d refused: %s" % (case["name"], n, r.text), file=sys.stderr)
        after = lp.call("GET", "/allocation_candidates?" + case["query"], microversion="1.39")
        count = len(after.json()["allocation_requests"]) if after.status_code == 200 else None
        out.append({"name": case["name"], "query": case["query"], "fits": case["fits"], "exact": case["exact"],
                    "putStatuses": sorted(set(statuses)), "puts": len(statuses), "candidatesAfter": count,
                    "afterStatus": after.status_code})
        print("%s: fits %d, %d PUTs %s, candidates after %s" % (case["name"], case["fits"], len(statuses), sorted(set(statuses)), count), file=sys.stderr)
json.dump({"placement": "8.0.0", "results": out}, sys.stdout, indent=1)
sys.stdout.write("\n")
