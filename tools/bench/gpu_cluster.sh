#!/usr/bin/env bash
# Benchmark: Gavel's 2,000-job msr trace (11cb48.trace: Philly-derived jobs of 1 to 64 GPUs over
# about 100 days, made training jobs by `sgai workload gavel` with its V100 throughputs) scheduled by
# sgai's GPU-cluster manager on 64 DGX H100 nodes (platforms/hgx-h100-64.json: a non-blocking
# two-level fat tree), for each order (FIFO, SJF, 2D-LAS) and placement (pack, topology-aware).
# GNU time gives wall seconds and peak resident memory; summary.json the simulated jobs, mean job
# completion time and makespan. Prints one line per case.
# Usage: tools/bench/gpu_cluster.sh [build dir] [trace]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
gavel=$root/../shared/data/ml-clusters/gavel/scheduler
trace=${2:-$gavel/traces/msr/seed=0/11cb48.trace}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }

"$sgai" workload gavel "$trace" --throughputs "$gavel/simulation_throughputs.json" --out "$work/w.json" >/dev/null
printf '%-6s %-9s %8s %9s %6s %12s %11s %13s\n' order placement wall_s peak_MiB jobs jobs_per_hour mean_jct_s makespan_s
for order in fifo sjf las; do
  for placement in pack topology; do
    /usr/bin/time -f '%e %M' -o "$work/time" "$sgai" batch gpu --platform "$root/platforms/hgx-h100-64.json" \
      --workload "$work/w.json" --order "$order" --placement "$placement" --out "$work/o-$order-$placement" >/dev/null 2>&1
    read -r wall kib <"$work/time"
    python3 - "$work/o-$order-$placement/summary.json" "$order" "$placement" "$wall" "$kib" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["components"]["gpu_cluster"]
jobs, makespan = s["jobs"], s["makespan_s"]
print(f"{sys.argv[2]:<6} {sys.argv[3]:<9} {float(sys.argv[4]):8.2f} {int(sys.argv[5]) / 1024:9.1f} {int(jobs):6d} "
      f"{jobs / (makespan / 3600):12.3f} {s['mean_jct_s']:11.1f} {makespan:13.1f}")
PY
  done
done
