#!/usr/bin/env bash
# Benchmark: one training iteration on 4,096 GPUs. A GPT-style model (`sgai chakra generate training`:
# 32 layers, hidden 4096, sequence 2048, global batch 256, 4 microbatches) under TP 8 x PP 8 x DP 64,
# replayed two ways:
#   platform: 512 DGX H100 nodes (platforms/catalogues: 8 H100 on NVSwitch, 8 NDR rails aggregated
#     into one 3.2 Tb/s port) on a two-level non-blocking fat tree (32 leaf switches of 16 nodes,
#     16 spines), NCCL's model choosing algorithms and protocols (`sgai replay --platform`);
#   astra: ASTRA-sim's inputs, a [Switch 8 (400 GB/s, 500 ns), Switch 512 (50 GB/s, 1 us)] network
#     and its hgx_h100_8gpu.json system (ring, 4 chunks, 2 active, roofline);
#   astra-unaware: the same with --congestion unaware (ASTRA-sim's congestion-unaware backend).
# GNU time gives CPU seconds (user + system) and peak resident memory; prints trace nodes,
# collectives, trace nodes per CPU-second and the simulated iteration time.
# Usage: tools/bench/replay_4096.sh [build dir] [platform|astra|astra-unaware ...]   (default: all three)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
shift $(($# > 0 ? 1 : 0))
cases=${*:-platform astra astra-unaware}
system=$root/../shared/data/astra-sim/inputs/system/analytical/hgx_h100_8gpu.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sgai" ] || { echo "no sgai binary at $sgai: build first" >&2; exit 1; }

"$sgai" chakra generate training --layers 32 --hidden 4096 --seq 2048 --batch 256 --dp 64 --tp 8 --pp 8 \
  --microbatches 4 --out "$work/t" >/dev/null
python3 - "$root/platforms/hgx-h100-cluster.json" "$root/platforms/catalogues/accelerators.json" "$work/p.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
p["name"] = "hgx-h100-4096"
p["_doc"] = "512 DGX H100 nodes on a two-level non-blocking fat tree: 32 leaves of 16 nodes, 16 spines"
p["catalogues"] = [sys.argv[2]]
c = p["clusters"][0]
c["nodes"][0]["number"] = 512
link = c["topology"]["levels"][0]["link"]
c["topology"]["levels"] = [{"down": 16, "up": 1, "links": 1, "link": link},
                           {"down": 32, "up": 16, "links": 1, "link": link}]
json.dump(p, open(sys.argv[3], "w"), indent=2)
EOF
printf 'topology: [ Switch, Switch ]\nnpus_count: [ 8, 512 ]\nbandwidth: [ 400.0, 50.0 ]\nlatency: [ 500.0, 1000.0 ]\n' \
  >"$work/net.yml"

printf "%-13s %8s %12s %10s %12s %9s %14s\n" case nodes collectives cpu_s nodes/cpu_s peak_MiB simulated_s
for c in $cases; do
  case $c in
  platform)
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$sgai" replay --workload "$work/t/training" \
      --comm-group "$work/t/training.groups.json" --platform "$work/p.json" --out "$work/o$c" >/dev/null ;;
  astra | astra-unaware)
    congestion=aware; [ "$c" = astra-unaware ] && congestion=unaware
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$sgai" replay --workload "$work/t/training" \
      --comm-group "$work/t/training.groups.json" --system "$system" --network "$work/net.yml" \
      --congestion "$congestion" --out "$work/o$c" >/dev/null ;;
  *) echo "unknown case $c (platform, astra, astra-unaware)" >&2; exit 2 ;;
  esac
  read -r u s kb <"$work/time"
  nodes=$(grep -o '"nodes": [0-9]*' "$work/o$c/summary.json" | head -1 | awk '{print $2}')
  colls=$(grep -o '"collectives": [0-9]*' "$work/o$c/summary.json" | head -1 | awk '{print $2}')
  sim=$(grep -o '"\(simulated_time_s\|makespan_ns\)": [0-9.e+]*' "$work/o$c/summary.json" | head -1 |
    awk '{ v = $2; if ($1 ~ /makespan_ns/) v /= 1e9; printf "%.6f", v }')
  awk -v c="$c" -v u="$u" -v s="$s" -v kb="$kb" -v nodes="$nodes" -v colls="$colls" -v sim="$sim" \
    'BEGIN { printf "%-13s %8d %12d %10.2f %12.0f %9.1f %14s\n", c, nodes, colls, u + s, nodes / (u + s), kb / 1024, sim }'
done
