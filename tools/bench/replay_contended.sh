#!/usr/bin/env bash
# Benchmark: sgai replay against ASTRA-sim 2.x's congestion-aware analytical backend where a
# collective's own transfers share links (issue 51), on the inputs of ../shared/peers/contended:
#   a2a: 64 ranks x 20 chained 1 MiB direct all-to-alls on one switch (each NPU's link carries its
#        63 transfers at once; direct.sys.json, switch64.yml);
#   hd:  64 ranks x 100 chained 1 MiB halving-doubling all-reduces on a 64-NPU ring (transfers
#        share ring links; halving_doubling.sys.json, ring64.yml).
# Each case runs sgai, then ASTRA-sim (when its binaries' folder is given), RUNS times alternately.
# GNU time gives CPU seconds (user + system) and peak resident memory; trace nodes per CPU-second =
# ranks x count / CPU s; at_once is summary.json's collectives_worked_out_at_once (of count), shared
# its transfers_worked_out_sharing_links.
# Usage: tools/bench/replay_contended.sh [build dir] [ASTRA-sim bin dir] [cases: a2a hd] (RUNS=1)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
astra=${2:-}
shift $(($# > 2 ? 2 : $#))
cases=${*:-a2a hd}
runs=${RUNS:-1}
inputs=$root/../shared/peers/contended
mem=$root/../shared/data/astra-sim/examples/remote_memory/analytical/no_memory_expansion.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
[ -f "$inputs/switch64.yml" ] || { echo "no $inputs: the benchmark needs the shared peers folder" >&2; exit 1; }
if [ -n "$astra" ] && [ ! -x "$astra/AstraSim_Analytical_Congestion_Aware" ]; then
  echo "no AstraSim_Analytical_Congestion_Aware in $astra" >&2
  exit 1
fi

source "$root/tools/bench/astra_pair.sh"
# row CASE TOOL AT_ONCE SHARED: one line of the table from cpu, mib, sim and the case's nodes
row() {
  awk -v c="$1" -v t="$2" -v cpu="$cpu" -v mib="$mib" -v nodes=$((64 * count)) -v sim="$sim" -v once="$3" -v sh="$4" \
    'BEGIN { printf "%-5s %6s %7d %8.2f %12.0f %9.1f %14s %8s %8s\n", c, t, nodes, cpu, nodes / cpu, mib, sim, once, sh }'
}
printf "%-5s %6s %7s %8s %12s %9s %14s %8s %8s\n" case tool nodes cpu_s nodes/cpu_s peak_MiB simulated_ns at_once shared
for c in $cases; do
  case $c in
    a2a) coll=all_to_all count=20 system=direct.sys.json network=switch64.yml ;;
    hd) coll=all_reduce count=100 system=halving_doubling.sys.json network=ring64.yml ;;
    *) echo "unknown case '$c' (a2a or hd)" >&2; exit 2 ;;
  esac
  "$sgai" chakra generate microbenchmark --collective "$coll" --ranks 64 --count "$count" --out "$work/$c" \
    --prefix w >/dev/null
  for ((i = 1; i <= runs; i++)); do
    timed "$work/sgai" "$sgai" replay --workload "$work/$c/w" --system "$inputs/$system" --network "$inputs/$network" \
      --out "$work/o"
    sim=$(grep -o 'simulated [0-9]* ns' "$work/sgai.log" | awk '{print $2}')
    read -r once shared < <(python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
print(d["collectives_worked_out_at_once"], d["transfers_worked_out_sharing_links"])' "$work/o/summary.json")
    row "$c" sgai "$once/$count" "$shared"
    if [ -n "$astra" ]; then
      astra_timed "$work/a" "$astra/AstraSim_Analytical_Congestion_Aware" "$work/$c/w" "$inputs/$system" \
        "$inputs/$network" "$mem"
      row "$c" astra - -
    fi
  done
done
