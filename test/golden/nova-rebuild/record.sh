#!/bin/sh
# Records Nova 26's rebuild pre-flight verdicts on cases.json (rebuild_oracle.py runs Nova's conductor code).
# Run from the project root; needs python3-nova (see test/golden/README.md).
set -e
dir=test/golden/nova-rebuild
/usr/bin/python3 $dir/rebuild_oracle.py $dir/cases.json > $dir/results.json
