#!/bin/sh
# Records the requests Nova 26 builds for cases.json with ../shared/oracle/nova/request_from_flavor_image.py.
# Run from the project root; needs python3-nova and python3-placement (see test/golden/README.md).
set -e
dir=test/golden/nova-requests
python3 $dir/make_cases.py > $dir/cases.json
/usr/bin/python3 ../shared/oracle/nova/request_from_flavor_image.py $dir/cases.json | python3 -c '
import json, sys
def query(q):
    if q is None:
        return None
    keep = ("groups", "group_policy", "root_required", "root_forbidden", "limit", "cpu_pinning_requested", "querystring")
    out = {k: q[k] for k in keep}
    out["groups"] = [{k: g[k] for k in ("suffix", "resources", "required_traits", "forbidden_traits")} for g in q["groups"]]
    out["placement_precheck"] = {k: q["placement_precheck"].get(k) for k in ("status", "message")}
    return out
out = []
for r in json.load(sys.stdin):
    api = r["api_validation"]
    out.append({
        "id": r["id"],
        "api_validation": {"ok": api["ok"], "exception": api.get("exception"), "message": api.get("message")},
        "image_traits_required": r.get("image_traits_required"),
        "request": query(r.get("request")),
        "fallback_request": query(r.get("fallback_request")),
        "error": r.get("error"),
        "warnings": [l["message"] for l in r.get("log", []) if l["level"] == "WARNING"],
    })
json.dump({"source": "nova 26.2.2 via ../shared/oracle/nova/request_from_flavor_image.py", "results": out}, sys.stdout, indent=1, ensure_ascii=False)
print()' > $dir/results.json
