#!/bin/bash
# sgai train: training descriptions in Megatron-LM's argument names, checked; parameters, FLOPs,
# memory per stage and communication per GPU; a configuration that cannot fit exits 1 naming the
# stage and the bytes.
# Usage: SGAI=build/tools/sgai tests/cli/training_test.sh CASE (from the repository root)
source "$(dirname "$0")/lib.sh"
F=tests/fixtures/training

case "${1:-}" in
  train_check)
    run "$SGAI" train check $F/gpt-1.7b.yaml --gpus 48; expect_rc 0
    grep -q ': 1.745 B parameters$' <<<"$out" || fail "parameters: $out"
    grep -q '^Work per iteration: 8.866 PFLOP (Megatron.s count), 786432 tokens$' <<<"$out" || fail "FLOPs: $out"
    grep -q '^Parallelism: TP 1 x PP 1 x CP 1 x DP 48 = 48 GPUs; 4 micro-batches of 1 per replica' <<<"$out" || fail "$out"
    grep -q '^Fits: the largest stage (0) needs' <<<"$out" || fail "$out"
    # the distributed optimizer's traffic: 4 bytes a parameter reduce-scattered, 2 all-gathered
    grep -qE '^  data +reduce_scatter backward +1 x +6980.125 MB over 48 ranks per iteration: fp32 gradients$' <<<"$out" ||
      fail "gradients: $out"
    grep -qE '^  data +all_gather +optimizer +1 x +3490.062 MB over 48 ranks' <<<"$out" || fail "parameters: $out"
    # flags override the file: 4 pipeline stages of 6 layers, the first keeping 4 micro-batches
    run "$SGAI" train check $F/gpt-1.7b.yaml --gpus 48 --pipeline-model-parallel-size 4 --global-batch-size 96
    expect_rc 0
    grep -qE '^  0 +6 ' <<<"$out" && grep -qE '^  3 +6 ' <<<"$out" || fail "stages: $out"
    grep -qE '^  0 .*\(  4\)' <<<"$out" || fail "in flight: $out"
    # 70B on one 8-GPU node without pipeline stages: does not fit, exit 1, the stage and the bytes
    run "$SGAI" train check --gpus 8 --num-layers 84 --hidden-size 8192 --num-attention-heads 64 --seq-length 4096 \
      --vocab-size 131072 --micro-batch-size 1 --global-batch-size 8 --tensor-model-parallel-size 8 \
      --sequence-parallel --use-distributed-optimizer; expect_rc 1
    expect_one_error_line "stage 0 needs 166.93 GB per GPU (154.67 GB of parameters, gradients and optimizer state, 12.26 GB of activations), more than the 80.00 GB of a H100 SXM5 80GB"
    # on the command line a bad value is a usage error naming the flag
    run "$SGAI" train check $F/gpt-1.7b.yaml --gpus 48 --num-attention-heads 60; expect_rc 2
    expect_one_error_line "--num-attention-heads '60': does not divide hidden-size 2048"
    # no GPU count anywhere: said, exit 1 (the file) or 2 (flags alone)
    run "$SGAI" train check $F/gpt-1.7b.yaml; expect_rc 1
    expect_one_error_line "$F/gpt-1.7b.yaml: no GPU count: give --gpus, or data-parallel-size in the description"
    run "$SGAI" train check --num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 4096 \
      --vocab-size 131072 --micro-batch-size 1 --global-batch-size 192; expect_rc 2
    expect_one_error_line "no GPU count: give --gpus (or --data-parallel-size)"
    run "$SGAI" train check $F/gpt-1.7b.yaml --gpus 48 --gpu "H100 PCIe"; expect_rc 1
    expect_one_error_line "--gpu: unknown GPU type 'H100 PCIe' (the catalogue has:" ;;

  train_bogus)
    # each bogus description: exit 1, one line naming the file, the place, the key and the value
    while IFS='|' read -r file want; do
      run "$SGAI" train check "$F/$file" --gpus 48; expect_rc 1
      expect_one_error_line "$F/$file: $want"
      no_backtrace
    done <<'CASES'
bogus_batch.json|at /global-batch-size: global-batch-size '100': not a multiple of micro-batch-size x data-parallel-size = 48
bogus_boolean.json|at /swiglu: swiglu 'yes': expected true or false
bogus_context.yaml|line 8: context-parallel-size '3': twice it does not divide seq-length 4096
bogus_experts.yaml|line 9: expert-model-parallel-size '4': does not divide num-experts 6
bogus_gpu_count.json|at /data-parallel-size: data-parallel-size '24': tensor x pipeline x context x data parallel = 24, not the 48 GPUs
bogus_list.yaml|line 1: 'num-layers' must be a single value, not a list or a mapping
bogus_missing_layers.yaml|missing num-layers (a training description needs it)
bogus_pp_layers.json|at /pipeline-model-parallel-size: pipeline-model-parallel-size '5': does not divide num-layers 24
bogus_tab.yaml|line 2: a tab in the indentation (YAML indents with spaces only)
bogus_tp_groups.json|at /tensor-model-parallel-size: tensor-model-parallel-size '8': does not divide num-query-groups 4
bogus_tp_heads.json|at /tensor-model-parallel-size: tensor-model-parallel-size '3': does not divide num-attention-heads 16
bogus_twice.yaml|line 2: num-layers is given twice (also line 1)
bogus_unknown_key.json|at /num-layerz: unknown key 'num-layerz' (known: 'num-layers', 'hidden-size',
bogus_version.json|at /sgai_training: sgai_training 2: this sgai reads version 1
bogus_virtual_stages.yaml|line 9: num-layers-per-virtual-pipeline-stage '5': does not divide the 12 layers of a pipeline stage
CASES
    n=$(ls $F/bogus_* | wc -l)
    [ "$n" -eq 15 ] || fail "$n bogus fixtures, 15 cases" ;;

  *) echo "unknown case $1" >&2; exit 2 ;;
esac
echo "ok: $1"
