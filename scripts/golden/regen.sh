#!/bin/sh
# Regenerate every golden file under test/golden/ with the real OpenStack
# Placement 8.0.0 (see test/golden/README.md). Run from the project root:
#
#   sh scripts/golden/regen.sh            # everything (~5 min)
#   sh scripts/golden/regen.sh fixtures   # or: generated | listing | edge
#
# Needs Debian's python3-placement (8.0.0) and python3-wsgi-intercept, run
# with /usr/bin/python3; the oracle lives in ../shared/oracle.
set -eu
O=${ORACLE_DIR:-../shared/oracle}
PY=${PLACEMENT_PY:-/usr/bin/python3}
G=test/golden
what=${1:-all}

if [ "$what" = all ] || [ "$what" = fixtures ]; then
  mkdir -p $G/fixtures
  for f in "$O"/fixtures/*.json; do
    n=$(basename "$f" .json)
    cp "$f" "$G/fixtures/$n.scenario.json"
    chmod 644 "$G/fixtures/$n.scenario.json"
    "$PY" "$O/placement_oracle.py" --compact \
      -o "$G/fixtures/$n.results.json" "$G/fixtures/$n.scenario.json"
  done
fi

if [ "$what" = all ] || [ "$what" = generated ]; then
  mkdir -p $G/generated
  for sn in "1 20" "2 50" "3 100" "4 200" "5 500"; do
    set -- $sn
    n=seed$1_size$2
    python3 "$O/gen_scenario.py" "$1" "$2" -o "$G/generated/$n.scenario.json"
    "$PY" "$O/placement_oracle.py" --compact \
      -o "$G/generated/$n.results.json" "$G/generated/$n.scenario.json"
  done
  # > 8 MB: keep it gzipped (-n: no name/timestamp, reproducible bytes)
  gzip -9 -n -f "$G/generated/seed5_size500.results.json"
fi

if [ "$what" = all ] || [ "$what" = listing ]; then
  mkdir -p $G/listing
  for sn in "7 120" "8 60"; do
    set -- $sn
    n=seed$1_size$2
    python3 "$O/gen_scenario.py" "$1" "$2" |
      python3 scripts/golden/listing_queries.py - -o "$G/listing/$n.scenario.json"
    "$PY" "$O/placement_oracle.py" --compact \
      -o "$G/listing/$n.results.json" "$G/listing/$n.scenario.json"
  done
fi

if [ "$what" = all ] || [ "$what" = edge ]; then
  mkdir -p $G/edge
  # hand-shaped tricky clouds with random queries (scripts/golden/edge_cases.py);
  # queries Placement answers with 500 (a crash, not an answer) are pruned
  for s in 1 2 3 4 5 6 7 8 9 10 11 12; do
    n=edge_seed$s
    python3 scripts/golden/edge_cases.py "$s" -o "$G/edge/$n.scenario.json"
    "$PY" "$O/placement_oracle.py" --compact \
      -o "$G/edge/$n.results.json" "$G/edge/$n.scenario.json"
    python3 scripts/golden/edge_cases.py --prune "$G/edge/$n.scenario.json" "$G/edge/$n.results.json"
  done
  # fresh generator clouds not used elsewhere
  for sn in "11 30" "12 90" "13 250"; do
    set -- $sn
    n=seed$1_size$2
    python3 "$O/gen_scenario.py" "$1" "$2" -o "$G/edge/$n.scenario.json"
    "$PY" "$O/placement_oracle.py" --compact \
      -o "$G/edge/$n.results.json" "$G/edge/$n.scenario.json"
  done
  # keep the folder small: every results file gzipped (-n: reproducible bytes)
  gzip -9 -n -f "$G"/edge/*.results.json
fi
