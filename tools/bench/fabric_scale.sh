#!/usr/bin/env bash
# Benchmark: building GPU fabrics with a NIC per GPU (clos and rail-optimized platforms, whose
# routes sgai's zone works out on demand) and routing across them.
# For DGX H100 SuperPODs of 32 to 4,096 nodes (sgai platform superpod) and the Llama 3 RoCE cluster
# (platforms/llama3-roce-24k.json), measures with GNU time (wall seconds, peak resident memory):
#   build     sgai platform inspect (JSON -> checked model -> S4U zone, hosts and links)
#   + route   the same with --route between the platform's first and last GPU (one route worked out)
# then a 1 GiB all-reduce over 2 nodes of the 768-node pod (sgai collective bench: the build and a
# replay). Prints a table. Usage: tools/bench/fabric_scale.sh [build dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() { # label command...: prints "label seconds MiB"
  /usr/bin/time -f "%e %M" -o "$work/time" "${@:2}" >"$work/out" 2>&1 || { cat "$work/out"; exit 1; }
  read -r s kb <"$work/time"
  printf '%-44s %8.2f %9.0f\n' "$1" "$s" "$((kb / 1024))"
}

printf '%-44s %8s %9s\n' "case" "wall s" "peak MiB"
for n in 32 256 768 4096; do
  f="$work/pod$n.json"
  "$sgai" platform superpod --nodes "$n" --out "$f" >/dev/null
  gpus=$((n * 8))
  measure "superpod $n nodes ($gpus GPUs): build" "$sgai" platform inspect "$f"
  measure "superpod $n nodes: build + route" "$sgai" platform inspect "$f" --route pod-n0-gpu0 "pod-n$((n - 1))-gpu7"
done
measure "llama3-roce-24k (24,576 GPUs): build" "$sgai" platform inspect "$root/platforms/llama3-roce-24k.json"
measure "llama3-roce-24k: build + route" "$sgai" platform inspect "$root/platforms/llama3-roce-24k.json" \
  --route llama-n0-gpu0 llama-n3071-gpu7
measure "superpod 768: 16-GPU 1 GiB all-reduce bench" "$sgai" collective bench --platform "$root/platforms/dgx-h100-superpod-rails.json" \
  --gpus 16 --sizes 1GiB
