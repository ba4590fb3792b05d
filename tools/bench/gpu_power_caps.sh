#!/usr/bin/env bash
# Power caps of training jobs: one data-parallel job (8 GPUs, 200 ms of compute-bound kernels and a
# 548 MiB gradient all-reduce per iteration, vgg19's size in Tiresias' models.py; 200 iterations) on
# one HGX H100 node (platforms/hgx-h100.json) with its GPUs at each of the H100's P-states (700 W,
# and the 500 W and 300 W caps at the compute-clock fractions of sgai's assumed P-state model,
# docs/platforms.md), through the GPU-cluster manager (`sgai batch gpu --pstate P`). Prints the time
# and the GPUs' energy per iteration, and both against P-state 0.
# Usage: tools/bench/gpu_power_caps.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
cat >"$work/w.json" <<'JSON'
{"jobs": [{"id": "vgg19", "subtime": 0, "res": 8, "profile": "p"}],
 "profiles": {"p": {"type": "training", "model": "vgg19", "iterations": 200, "compute_time": 0.2,
                    "gradient_bytes": 573675110.4}}}
JSON
printf "%-7s %-6s %18s %18s %8s %9s\n" pstate cap iteration_ms energy_per_iter_J time_x energy_x
base_t="" base_e=""
for p in 0 1 2; do
  "$sgai" batch gpu --platform "$root/platforms/hgx-h100.json" --workload "$work/w.json" --pstate "$p" --exact \
    --out "$work/o$p" >/dev/null
  read -r t e < <(awk -F, 'NR == 2 { print $23 * 1000, $16 / $18 }' "$work/o$p/jobs.csv")
  base_t=${base_t:-$t} base_e=${base_e:-$e}
  cap=$(case $p in 0) echo "700W";; 1) echo "500W";; 2) echo "300W";; esac)
  awk -v p="$p" -v cap="$cap" -v t="$t" -v e="$e" -v bt="$base_t" -v be="$base_e" \
    'BEGIN { printf "%-7s %-6s %18.3f %18.1f %8.3f %9.3f\n", p, cap, t, e, t / bt, e / be }'
done
