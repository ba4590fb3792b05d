#!/usr/bin/env bash
# Benchmark: sgai replay against ASTRA-sim 2.x (analytical backend) on the same inputs, one after the
# other on this machine: N ranks x K chained 1 MiB ring all-reduces (sgai chakra generate
# microbenchmark --count K, byte-identical to ASTRA-sim's microbenchmark when K = 1) on an N-NPU
# ring (50 GB/s, 500 ns), ASTRA-sim's Ring_4chunks.json (4 chunks, 1 active). GNU time gives CPU
# seconds (user + system) and peak resident memory; trace nodes per CPU-second = N x K / CPU s;
# at_once: the collectives sgai worked out at once (summary.json), of K.
# ASTRA-sim runs only when its binaries' folder is given (../shared/peers/astra-sim.md builds them).
# CONGESTION=unaware runs both congestion-unaware (sgai --congestion unaware, ASTRA-sim's
# AstraSim_Analytical_Congestion_Unaware); the default is both congestion-aware.
# Usage: [CONGESTION=aware|unaware] tools/bench/replay_vs_astra.sh [build dir] [ASTRA-sim bin dir] [cases: N:K ...]
#        (default cases: 8:1 64:100 64:2000 256:200 1024:1)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
astra=${2:-}
shift $(($# > 2 ? 2 : $#))
cases=${*:-8:1 64:100 64:2000 256:200 1024:1}
congestion=${CONGESTION:-aware}
case $congestion in
  aware) backend=AstraSim_Analytical_Congestion_Aware ;;
  unaware) backend=AstraSim_Analytical_Congestion_Unaware ;;
  *) echo "CONGESTION is aware or unaware, not '$congestion'" >&2; exit 1 ;;
esac
data=$root/../shared/data/astra-sim
system=$data/examples/system/native_collectives/Ring_4chunks.json
mem=$data/examples/remote_memory/analytical/no_memory_expansion.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
[ -f "$system" ] || { echo "no $system: the benchmark needs the shared data" >&2; exit 1; }

source "$root/tools/bench/astra_pair.sh"
# row CASE TOOL AT_ONCE: one line of the table from cpu, mib, sim and the case's nodes (n x k)
row() {
  awk -v c="$1" -v t="$2" -v cpu="$cpu" -v mib="$mib" -v nodes=$((n * k)) -v sim="$sim" -v once="$3" \
    'BEGIN { printf "%-9s %6s %8d %10.2f %12.0f %9.1f %14s %9s\n", c, t, nodes, cpu, nodes / cpu, mib, sim, once }'
}
echo "congestion-$congestion"
printf "%-9s %6s %8s %10s %12s %9s %14s %9s\n" case tool nodes cpu_s nodes/cpu_s peak_MiB simulated_ns at_once
for c in $cases; do
  n=${c%%:*} k=${c##*:}
  "$sgai" chakra generate microbenchmark --collective all_reduce --ranks "$n" --count "$k" --out "$work/w$n-$k" \
    --prefix ar >/dev/null
  printf 'topology: [ Ring ]\nnpus_count: [ %d ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' "$n" >"$work/ring$n.yml"
  timed "$work/sgai" "$sgai" replay --workload "$work/w$n-$k/ar" --system "$system" --network "$work/ring$n.yml" \
    --congestion "$congestion" --out "$work/o"
  sim=$(grep -o 'simulated [0-9]* ns' "$work/sgai.log" | awk '{print $2}')
  once=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["collectives_worked_out_at_once"])' \
    "$work/o/summary.json")
  row "$n x $k" sgai "$once/$k"
  if [ -n "$astra" ]; then
    astra_timed "$work/a" "$astra/$backend" "$work/w$n-$k/ar" "$system" "$work/ring$n.yml" "$mem"
    row "$n x $k" astra -
  fi
done
