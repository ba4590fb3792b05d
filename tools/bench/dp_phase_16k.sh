#!/usr/bin/env bash
# Benchmark: the data-parallel phase of a 16,384-GPU job (TP 8 x PP 16 x DP 128: 128 concurrent
# all-reduces of 256 MiB, each over the 128 GPUs of one TP rank and pipeline stage, one GPU a node)
# replayed on SimGrid, contention included, on 2,048 DGX H100 nodes rail-optimized under a 2:1
# oversubscribed spine: units of 32 nodes with 8 rail leaves of 32 NIC ports, each leaf 16 x 400 Gb/s
# up to 16 spines. Megatron's rank order (TP fastest, then DP, then PP): group (s, t) holds ranks
# t + 8 d + 1024 s. NCCL's model picks each collective's algorithm and protocol. Prints CPU seconds
# (user + system), peak resident memory (GNU time), the simulated time and the algorithm.
# Usage: tools/bench/dp_phase_16k.sh [build dir]   (default: build; about 3 minutes, 5 GB)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$sgai" "$work" "$root" <<'PY'
import json, os, shutil, subprocess, sys
sgai, work, root = sys.argv[1:4]
TP, PP, DP = 8, 16, 128
os.makedirs(f"{work}/et")
groups = {}
for s in range(PP):
    for t in range(TP):
        g = str(1 + s * TP + t)
        groups[g] = [t + TP * d + TP * DP * s for d in range(DP)]
        node = {"id": 0, "name": "dp_all_reduce", "type": "COMM_COLL_NODE",
                "attr": [{"name": "is_cpu_op", "bool_val": False}, {"name": "comm_type", "int64_val": 0},
                         {"name": "comm_size", "int64_val": 256 << 20}, {"name": "pg_name", "string_val": g}]}
        json.dump({"chakra_json": 1, "metadata": {"version": "0.0.4", "attr": []}, "nodes": [node]},
                  open(f"{work}/g.json", "w"))
        subprocess.run([sgai, "chakra", "dejsonize", f"{work}/g.json", "--out", f"{work}/g{g}.et"], check=True,
                       capture_output=True)
        for r in groups[g]:
            os.link(f"{work}/g{g}.et", f"{work}/et/dp.{r}.et")
json.dump(groups, open(f"{work}/groups.json", "w"))
levels = [{"down": 32}, {"down": 512, "up": 16, "links": 1, "link": {"type": "InfiniBand NDR"}}]
json.dump({"sgai_platform": 1, "name": "rails-2048-2to1", "catalogues": [f"{root}/platforms/catalogues/accelerators.json"],
           "granularity": "processor",
           "clusters": [{"id": "pod", "nodes": [{"type": "DGX H100", "number": 2048}],
                         "topology": {"kind": "rail_optimized", "levels": levels}}]}, open(f"{work}/platform.json", "w"))
PY
/usr/bin/time -f "%U %S %M" -o "$work/time" "$sgai" replay --workload "$work/et/dp" --comm-group "$work/groups.json" \
  --platform "$work/platform.json" --out "$work/r" >"$work/out" 2>&1 || { cat "$work/out"; exit 1; }
read -r u s kb <"$work/time"
sim=$(grep -oE 'simulated [0-9]+ ns' "$work/out" | awk '{ print $2 / 1e9 }')
algo=$(awk -F, 'NR == 2 { print $5 "/" $12 }' "$work/r/collectives.csv")
n=$(($(wc -l <"$work/r/collectives.csv") - 1))
printf 'DP phase, 16,384 GPUs (%d all-reduces of 256 MiB over 128 GPUs, %s): %.1f CPU s, %d MiB, simulated %.6f s\n' \
  "$n" "$algo" "$(echo "$u + $s" | bc)" "$((kb / 1024))" "$sim"
