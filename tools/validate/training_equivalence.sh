#!/usr/bin/env bash
# The collapsed prediction against the full simulation, at 48 to 2,048 GPUs (docs/validation.md,
# "The same iteration as Chakra traces"): `sgai train predict` prices one rank of each class
# (stage, chunk; DP and TP peers do the same work at the same network positions) with NCCL's cost
# model; `sgai train chakra` writes every rank's Chakra trace and `sgai replay` simulates all of
# them on the platform's links, contention included. Prints both iteration times, their
# difference, and each side's CPU seconds and peak memory. CI runs the 48 and 64-GPU cases
# (cli.train_chakra, within 1%).
# Usage: tools/validate/training_equivalence.sh [build dir] [largest GPU count: 64, 512, 1024 or 2048]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sgai=${1:-$root/build}/tools/sgai
largest=${2:-2048}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
P=platforms/dgx-h100-superpod.json
D=tests/fixtures/training/gpt-1.7b.yaml
measure() { /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >"$work/out" 2>&1; }
printf '%6s %-40s %12s %12s %9s %16s %16s\n' GPUs parallelism predicted_s replayed_s diff predict_cpu/MiB replay_cpu/MiB
row() { # gpus label args...
  local n=$1 label=$2; shift 2
  measure "$sgai" train predict $D --platform $P --gpus "$n" "$@"
  local pc pm; read -r u s m <"$work/time"; pc=$(echo "$u + $s" | bc); pm=$((m / 1024))
  measure "$sgai" train chakra $D --platform $P --gpus "$n" --out "$work/et$n" "$@"
  local pred; pred=$(grep -oE 'predicted iteration [0-9.]+ s' "$work/out" | awk '{ print $3 }')
  read -r u1 s1 m1 <"$work/time"
  measure "$sgai" replay --workload "$work/et$n/training" --comm-group "$work/et$n/training.groups.json" \
    --platform $P --out "$work/r$n"
  local sim; sim=$(grep -oE 'simulated [0-9]+ ns' "$work/out" | awk '{ print $2 / 1e9 }')
  read -r u2 s2 m2 <"$work/time"
  local rc; rc=$(echo "$u1 + $s1 + $u2 + $s2" | bc)
  local rm=$(((m1 > m2 ? m1 : m2) / 1024))
  awk -v n="$n" -v l="$label" -v p="$pred" -v s="$sim" -v pc="$pc" -v pm="$pm" -v rc="$rc" -v rm="$rm" \
    'BEGIN { printf "%6d %-40s %12.5f %12.5f %+8.2f%% %10.2f/%-5d %10.2f/%-5d\n", n, l, p, s, 100 * (s / p - 1), pc, pm, rc, rm }'
  rm -rf "$work/et$n" "$work/r$n"
}
row 48 "DP 48" --global-batch-size 192 --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1
row 64 "TP 4 x PP 4 (v 2) x DP 4, batch 64" --global-batch-size 64 --tensor-model-parallel-size 4 \
  --sequence-parallel --tp-comm-overlap --pipeline-model-parallel-size 4 --num-layers-per-virtual-pipeline-stage 2
[ "$largest" -ge 512 ] && row 512 "TP 8 x PP 4 (v 2) x DP 16, batch 256" --global-batch-size 256 \
  --tensor-model-parallel-size 8 --sequence-parallel --tp-comm-overlap --pipeline-model-parallel-size 4 \
  --num-layers-per-virtual-pipeline-stage 2
[ "$largest" -ge 1024 ] && row 1024 "TP 8 x PP 4 (v 2) x DP 32, batch 512" --global-batch-size 512 \
  --tensor-model-parallel-size 8 --sequence-parallel --tp-comm-overlap --pipeline-model-parallel-size 4 \
  --num-layers-per-virtual-pipeline-stage 2
# the Llama 3 405B layout and parallelism, scaled down, on the Llama 3 RoCE cluster: 22 layers with
# the embedding and the loss counted in the split (24 = 4 stages x 3 chunks of 2; the first and last
# chunks one layer fewer), FSDP across the replicas
P=platforms/llama3-roce-24k.json
llama="--num-layers 22 --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split
  --tensor-model-parallel-size 8 --sequence-parallel --tp-comm-overlap --pipeline-model-parallel-size 4
  --num-layers-per-virtual-pipeline-stage 2 --use-distributed-optimizer false --overlap-param-gather false
  --use-torch-fsdp2"
# shellcheck disable=SC2086
[ "$largest" -ge 1024 ] && row 1024 "Llama layout, TP 8 x PP 4 (v 3) x DP 32 FSDP" --global-batch-size 512 $llama
# shellcheck disable=SC2086
[ "$largest" -ge 2048 ] && row 2048 "Llama layout, TP 8 x PP 4 (v 3) x DP 64 FSDP" --global-batch-size 1024 $llama
exit 0
