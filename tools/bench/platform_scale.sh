#!/usr/bin/env bash
# Benchmark: generating and loading platforms of 10k, 100k and 1M cores.
# For each size it writes a platform JSON (nodes of 2 x 50-core processors on one flat cluster),
# then measures with GNU time (wall seconds, peak resident memory):
#   generate   sgai platform generate (JSON -> SimGrid XML + resource hierarchy)
#   load XML   sgai platform inspect on the XML (SimGrid's parser builds the platform)
#   build JSON sgai platform inspect on the JSON (generation + S4U build, no XML)
# Prints a table. Usage: tools/bench/platform_scale.sh [build dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

write_platform() { # file nodes granularity
  cat >"$1" <<JSON
{
  "sgai_platform": 1,
  "name": "bench",
  "granularity": "$3",
  "types": {
    "processor_types": { "Bench50": { "cores": 50, "clock_rate": 2.5, "dpflops_per_cycle": 16, "mem_bw": 200, "power": 250 } },
    "node_types": { "Bench100": { "processors": [ { "type": "Bench50", "number": 2 } ], "memory": { "capacity": 512 } } },
    "network_types": { "HDR": { "bandwidth": "200Gbps", "latency": "1us" } }
  },
  "clusters": [ { "id": "c", "nodes": [ { "type": "Bench100", "number": $2 } ], "local_links": { "type": "HDR", "latency": "1us" } } ]
}
JSON
}

measure() { # label command... -> prints "wall_s peak_MiB"
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r wall kb <"$work/time"
  printf "%8.2f %9.1f" "$wall" "$(echo "$kb / 1024" | bc -l)"
}

printf "%-9s %-11s %8s %8s | %-18s | %-18s | %-18s | %s\n" cores granularity hosts xml_MB \
  "generate s / MiB" "load XML s / MiB" "build JSON s / MiB" "generation / XML load"
for spec in "10000 core" "100000 core" "1000000 node" "10000 node" "100000 node"; do
  read -r cores gran <<<"$spec"
  nodes=$((cores / 100))
  json="$work/bench-$cores-$gran.json"
  write_platform "$json" "$nodes" "$gran"
  gen=$(measure "$sgai" platform generate "$json" --out "$work/out")
  xml="$work/out/bench.xml"
  xml_mb=$(echo "$(stat -c %s "$xml") / 1000000" | bc -l)
  hosts=$(grep -c '<host ' "$xml")
  load=$(measure "$sgai" platform inspect "$xml")
  build=$(measure "$sgai" platform inspect "$json")
  ratio=$(echo "$(echo "$gen" | awk '{print $1}') / $(echo "$load" | awk '{print $1}')" | bc -l)
  printf "%-9s %-11s %8s %8.1f | %s | %s | %s | %.2f\n" "$cores" "$gran" "$hosts" "$xml_mb" "$gen" "$load" "$build" "$ratio"
  rm -rf "$work/out"
done
