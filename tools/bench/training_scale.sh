#!/usr/bin/env bash
# Benchmark: `sgai train predict` at the scale of the largest published runs (docs/benchmarks.md,
# "Training at 16,384 GPUs"): Megatron-Core's 6,144-GPU row (462B, TP 8 x PP 16 x DP 48), Llama 3
# 405B on 8,192 and 16,384 GPUs of the Llama 3 RoCE cluster (workloads/training/llama3-405b.yaml),
# its 128K-context run with CP 16 (llama3-405b-128k.yaml), and a 1,024-GPU mixture of experts (64
# experts, top-2, EP 64: all-to-alls across 8 nodes). For each: CPU seconds (user + system) and peak
# resident memory (GNU time), the predicted iteration and TFLOP/s per GPU.
# Usage: tools/bench/training_scale.sh [build dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
L=platforms/llama3-roce-24k.json
S=platforms/dgx-h100-superpod.json

run() { # label args...
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$sgai" train predict "${@:2}" >"$work/out" 2>&1 ||
    { cat "$work/out"; exit 1; }
  read -r u s kb <"$work/time"
  local it tf
  it=$(awk '/^Iteration:/ { print $2 }' "$work/out")
  tf=$(awk '/^Iteration:/ { for (i = 1; i <= NF; i++) if ($i == "TFLOP/s") print $(i - 1) }' "$work/out")
  printf '%-58s %8.2f %9d %10s %10s\n' "$1" "$(echo "$u + $s" | bc)" "$((kb / 1024))" "$it" "$tf"
}

cat >"$work/462b.json" <<'JSON'
{"num-layers": 112, "hidden-size": 18432, "num-attention-heads": 144, "seq-length": 4096,
 "vocab-size": 131072, "untie-embeddings-and-output-weights": true, "micro-batch-size": 1,
 "global-batch-size": 3072, "tensor-model-parallel-size": 8, "pipeline-model-parallel-size": 16,
 "num-layers-per-virtual-pipeline-stage": 1, "sequence-parallel": true, "tp-comm-overlap": true,
 "use-distributed-optimizer": true, "overlap-grad-reduce": true, "overlap-param-gather": true}
JSON
printf '%-58s %8s %9s %10s %10s\n' "case" "CPU s" "peak MiB" "iteration" "TFLOP/s"
run "Megatron-Core 462B, 6,144 GPUs (TP 8 x PP 16 v 7 x DP 48)" "$work/462b.json" --platform $S --gpus 6144
run "Llama 3 405B, 8,192 GPUs (TP 8 x PP 16 v 8 x DP 64)" workloads/training/llama3-405b.yaml --platform $L --gpus 8192
run "Llama 3 405B, 16,384 GPUs (TP 8 x PP 16 v 8 x DP 128)" workloads/training/llama3-405b.yaml --platform $L \
  --gpus 16384
run "Llama 3 405B 128K, 16,384 GPUs (TP 8 x CP 16 x PP 16 x DP 8)" workloads/training/llama3-405b-128k.yaml \
  --platform $L --gpus 16384
run "MoE 64 experts top-2, 1,024 GPUs (TP 2 x DP 512, EP 64)" tests/fixtures/training/moe-8x-top2.yaml --platform $S \
  --gpus 1024 --num-experts 64 --expert-model-parallel-size 64 --global-batch-size 1024
