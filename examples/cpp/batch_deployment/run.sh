#!/usr/bin/env bash
# Runs the example in a scratch folder: run.sh PROGRAM (the built batch_deployment)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
program=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$here/platform.xml" "$here/deployment.xml" "$here/workload.json" "$scratch"
cd "$scratch"
"$program" platform.xml deployment.xml 2>/dev/null
