#!/usr/bin/env bash
# Benchmark: a synthetic Chakra trace of N nodes (default 10 million; a layered random DAG, each
# node depending on 1-3 of the previous 64) written by `sgai chakra generate dag`, then
#   - the reader alone (protobuf parsing and conversion to sgai's plain node type),
#   - the feeder replaying it with 16 and 256 nodes in flight (issue while fewer are in flight,
#     complete the oldest), window 65,536,
#   - `sgai chakra stats` (feeder + an unlimited-resource replay for the critical path),
# each with nodes per second and peak resident memory.
# Usage: tools/bench/chakra_feeder.sh [build dir] [nodes]   (defaults: build, 10000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
nodes=${2:-10000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sgai=$build/tools/sgai
bench=$build/tools/chakra_feeder_bench
[ -x "$sgai" ] && [ -x "$bench" ] || { echo "build sgai and chakra_feeder_bench first" >&2; exit 1; }

/usr/bin/time -f "%e %M" -o "$work/time" "$sgai" chakra generate dag --nodes "$nodes" --width 64 --seed 1 \
  --out "$work/dag.0.et" >/dev/null
read -r wall kb <"$work/time"
size=$(stat -c %s "$work/dag.0.et")
echo "generated $nodes nodes ($(echo "scale=1; $size / 1048576" | bc) MiB) in ${wall} s, peak $(echo "scale=1; $kb / 1024" | bc) MiB"
"$bench" "$work/dag.0.et" 65536 16 | tail -2
"$bench" "$work/dag.0.et" 65536 256 | tail -1
/usr/bin/time -f "%e %M" -o "$work/time" "$sgai" chakra stats "$work/dag.0.et" >"$work/stats"
read -r wall kb <"$work/time"
echo "sgai chakra stats: $(tail -1 "$work/stats"); whole process ${wall} s, peak $(echo "scale=1; $kb / 1024" | bc) MiB"
