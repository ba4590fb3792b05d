#!/usr/bin/env bash
# Power caps: one training iteration (sgai chakra generate training: 8 layers, hidden 4096, sequence
# 2048, batch 16, DP 2 x TP 4, 4 microbatches) on 8 H100 NPUs (ASTRA-sim's hgx_h100_8gpu network and
# system, roofline at 700 TFLOP/s) at each of the H100's P-states (docs/platforms.md: 700 W, and the
# 500 W and 300 W caps at the clock fractions of the assumed P-state model). Prints the iteration
# time, the NPUs' energy and energy per iteration against P-state 0.
# Usage: tools/bench/power_cap_sweep.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
data=$root/../shared/data/astra-sim/inputs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
"$sgai" chakra generate training --layers 8 --hidden 4096 --seq 2048 --batch 16 --dp 2 --tp 4 --microbatches 4 \
  --out "$work/t" >/dev/null
printf "%-8s %-12s %14s %14s %10s %10s\n" pstate cap iteration_ms npu_energy_J time_x energy_x
base_t="" base_e=""
for p in 0 1 2; do
  "$sgai" replay --workload "$work/t/training" --comm-group "$work/t/training.groups.json" \
    --system "$data/system/analytical/hgx_h100_8gpu.json" --network "$data/network/hgx_h100_8gpu.yml" \
    --pstate "$p" --out "$work/o$p" >/dev/null
  t=$(grep -o '"makespan_ns": [0-9.e+]*' "$work/o$p/summary.json" | awk '{print $2 / 1e6}')
  e=$(grep -o '"npu_energy_j": [0-9.e+]*' "$work/o$p/summary.json" | awk '{print $2}')
  base_t=${base_t:-$t} base_e=${base_e:-$e}
  cap=$(case $p in 0) echo "700 W";; 1) echo "500 W";; 2) echo "300 W";; esac)
  awk -v p="$p" -v cap="$cap" -v t="$t" -v e="$e" -v bt="$base_t" -v be="$base_e" \
    'BEGIN { printf "%-8s %-12s %14.3f %14.1f %10.3f %10.3f\n", p, cap, t, e, t / bt, e / be }'
done
