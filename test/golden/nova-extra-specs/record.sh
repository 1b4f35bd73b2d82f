#!/bin/sh
# Records Nova 26's verdicts on cases.json with ../shared/oracle/nova/validate_extra_specs.py.
# Run from the project root; needs python3-nova (see test/golden/README.md).
set -e
dir=test/golden/nova-extra-specs
python3 $dir/make_cases.py > $dir/cases.json
/usr/bin/python3 ../shared/oracle/nova/validate_extra_specs.py $dir/cases.json | python3 -c '
import json, sys
keep = ("id", "mode", "accepted", "error", "warnings")
out = [dict({k: r[k] for k in keep}, keys=[{k: e[k] for k in ("key", "class", "validator", "value_error")} for e in r["keys"]]) for r in json.load(sys.stdin)]
json.dump({"source": "nova 26.2.2 via ../shared/oracle/nova/validate_extra_specs.py", "verdicts": out}, sys.stdout, indent=0, ensure_ascii=False)
print()' > $dir/verdicts.json
