#!/usr/bin/env bash
# Benchmark (issue 51): two 512-rank jobs interleaved on one 1,024-NPU two-level fat tree (32 leaves
# of 32 one-GPU nodes at 400 Gb/s, each leaf's uplink 32 x 400 Gb/s / OVERSUB), job A on the even
# GPUs and job B on the odd ones, so that each job's ring crosses every leaf's uplink beside the
# other's; COUNT chained ring all-reduces of SIZE each (ASTRA-sim system: ring, CHUNKS chunks).
# Runs `sgai replay` as it is and with --step-by-step, prints each run's CPU seconds (user +
# system), peak MiB, trace nodes per CPU-second and collectives worked out at once, then the
# largest difference of the two runs' collective starts and ends and ranks' times (asked: 1e-6).
# Usage: tools/bench/two_jobs_fat_tree.sh [build dir] (COUNT=20 SIZE=1048576 CHUNKS=1 OVERSUB=1)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
count=${COUNT:-20} size=${SIZE:-1048576} chunks=${CHUNKS:-1} oversub=${OVERSUB:-1}
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/types.json" <<JSON
{ "sgai_catalogue": 1,
  "gpu_types": { "G": { "peak_flops": { "fp16": "1000Tf" }, "default_precision": "fp16", "memory_capacity": "80GiB",
                        "memory_bandwidth": "3TBps", "idle_power": "70W", "max_power": "700W" } },
  "node_types": { "A": { "gpus": [ { "type": "G", "number": 1 } ] } } }
JSON
up=$(awk -v o="$oversub" 'BEGIN { printf "%g", 32 * 400 / o }')
cat >"$work/tree.json" <<JSON
{ "sgai_platform": 1, "name": "tree1024", "catalogues": [ "types.json" ], "granularity": "processor",
  "clusters": [ { "id": "c", "nodes": [ { "type": "A", "number": 1024 } ],
    "topology": { "kind": "fat_tree", "levels": [
      { "down": 32, "up": 1, "link": { "bandwidth": "400Gbps", "latency": "500ns" } },
      { "down": 32, "up": 1, "link": { "bandwidth": "${up}Gbps", "latency": "1us" } } ] } } ] }
JSON
echo "{\"all-reduce-implementation\": [\"ring\"], \"preferred-dataset-splits\": $chunks, \"active-chunks-per-dimension\": 1}" >"$work/sys.json"
"$sgai" chakra generate microbenchmark --collective all_reduce --ranks 512 --size "$size" --count "$count" \
  --out "$work/w" --prefix w >/dev/null
gpus=()
for j in 0 1; do for k in $(seq 0 511); do gpus+=("c-n$((2 * k + j))-gpu0"); done; done
printf "%-14s %8s %9s %12s %9s\n" run cpu_s peak_MiB nodes/cpu_s at_once
for how in as_is step; do
  flag=; [ $how = step ] && flag=--step-by-step
  /usr/bin/time -f "%U %S %M" -o "$work/$how.time" "$sgai" replay --platform "$work/tree.json" --system "$work/sys.json" \
    --workload "$work/w/w" --workload "$work/w/w" --gpus "${gpus[@]}" $flag --out "$work/$how" >/dev/null 2>"$work/$how.err" ||
    { cat "$work/$how.err" >&2; exit 1; }
  once=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d=d.get("components",{}).get("replay",d); print(d["collectives_worked_out_at_once"])' "$work/$how/summary.json")
  awk -v how="$how" -v n=$((2 * 512 * count)) -v once="$once" '{ cpu = $1 + $2; printf "%-14s %8.2f %9.1f %12.0f %9s\n", how, cpu, $3 / 1024, n / cpu, once }' "$work/$how.time"
done
python3 - "$work/as_is" "$work/step" <<'PY'
import csv, sys
worst = 0.0
for name in ("collectives.csv", "ranks.csv"):
    a = list(csv.DictReader(open("%s/%s" % (sys.argv[1], name))))
    b = list(csv.DictReader(open("%s/%s" % (sys.argv[2], name))))
    assert len(a) == len(b), name
    for x, y in zip(a, b):
        for k in x:
            if k.endswith("_ns"):
                u, v = float(x[k]), float(y[k])
                worst = max(worst, abs(u - v) / max(abs(u), abs(v), 1.0))
print("simulated: %s ns; largest relative difference of the two runs: %.3g" % (
    max(float(r["end_ns"]) for r in csv.DictReader(open("%s/collectives.csv" % sys.argv[1]))), worst))
PY
