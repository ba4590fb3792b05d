#!/usr/bin/env bash
# Benchmark: replay of one generated hybrid-parallel training iteration (GPT-style, `sgai chakra
# generate training`: TP within an 8-NPU NVSwitch-like switch, DP and PP across a second switch
# dimension) on 64 and 512 ranks, with the HGX-H100 system configuration (ring collectives,
# 4 chunks). Prints trace nodes, collectives, wall time, trace nodes per wall-clock second,
# simulated time and peak resident memory.
# Usage: tools/bench/replay_scale.sh [build dir]   (needs ../shared/data for the system JSON)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
sgai=$build/tools/sgai
system=$root/../shared/data/astra-sim/inputs/system/analytical/hgx_h100_8gpu.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "build sgai first" >&2; exit 1; }
[ -f "$system" ] || { echo "no $system: the benchmark needs the shared data" >&2; exit 1; }

printf "%6s %-22s %8s %12s %8s %12s %16s %9s\n" ranks parallelism nodes collectives wall_s nodes_per_s simulated_ms peak_MiB
bench() { # ranks dp tp pp layers second-dimension
  local ranks=$1 dp=$2 tp=$3 pp=$4 layers=$5 dim2=$6
  "$sgai" chakra generate training --layers "$layers" --hidden 4096 --seq 2048 --batch 64 --dp "$dp" --tp "$tp" --pp "$pp" \
    --microbatches 4 --out "$work/t$ranks" >/dev/null
  printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, %d ]\nbandwidth: [ 400.0, 50.0 ]\nlatency: [ 500.0, 1000.0 ]\n' \
    "$dim2" >"$work/net$ranks.yml"
  /usr/bin/time -f "%e %M" -o "$work/time" "$sgai" replay --workload "$work/t$ranks/training" \
    --comm-group "$work/t$ranks/training.groups.json" --system "$system" --network "$work/net$ranks.yml" \
    --out "$work/out$ranks" >"$work/log$ranks"
  read -r wall kb <"$work/time"
  local nodes colls sim
  nodes=$(grep -o '"nodes": [0-9]*' "$work/out$ranks/summary.json" | awk '{print $2}')
  colls=$(grep -o '"collectives": [0-9]*' "$work/out$ranks/summary.json" | awk '{print $2}')
  sim=$(grep -o '"makespan_ns": [0-9.e+]*' "$work/out$ranks/summary.json" | awk '{printf "%.3f", $2 / 1e6}')
  printf "%6s %-22s %8s %12s %8s %12.0f %16s %9.1f\n" "$ranks" "DP$dp TP$tp PP$pp" "$nodes" "$colls" "$wall" \
    "$(echo "$nodes / $wall" | bc -l)" "$sim" "$(echo "$kb / 1024" | bc -l)"
}
bench 64 4 4 4 8 8
bench 512 8 8 8 16 64
