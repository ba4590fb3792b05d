#!/usr/bin/python3
"""sgai train predict against Megatron-LM's own measured test runs: time and memory (docs/validation.md).

Measured: NVIDIA/Megatron-LM's functional tests gpt3_7b_tp4_pp1_memory_speed and
gpt3_7b_tp1_pp4_memory_speed (tests/functional_tests/test_cases/gpt/, their model_config.yaml and
golden values, the H100 ones of 2026-05-30 (commit 6e091e1b68), the A100 ones of 2025-10-21
(adc69dba2d)). Each runs one DGX node of 8 GPUs (tests/test_utils/recipes/h100/gpt.yaml: nodes 1,
gpus 8) for 25 iterations of a 6.7 B GPT (32 layers, hidden 4,096, 32 heads in 8 query groups, the
default FFN of 16,384 with GeLU, LayerNorm, learned positions, biases, dropout 0.1, untied embeddings,
vocabulary 131,073, sequence 8,192) under the distributed optimizer with both overlaps, every setting
written in the test's arguments (below, as published; only the paths are placeholders). The golden
values give, for the last rank (the one writing TensorBoard: the last pipeline stage):

- iteration-time: seconds per iteration, averaged over the log interval of 2; here the median of the
  values logged from iteration 4 on (11 on H100: they spread by 1%; 2 on A100);
- mem-allocated-bytes: PyTorch's allocated bytes after a step (parameters, gradients, optimizer
  state and buffers): compared with sgai's weights + gradients + optimizer state;
- mem-max-allocated-bytes: the peak: compared with sgai's stage total (activations in flight
  included).

The tests set what slows a step and sgai does not price: deterministic kernels (deterministic-mode,
NVTE_ALLOW_NONDETERMINISTIC_ALGO=0: cuDNN attention's deterministic backward), no gradient-
accumulation fusion, NCCL's ring for every collective, 16 SMs kept from the norms
(NVTE_*_LAYERNORM_SM_MARGIN), parameter-norm and zero-count logging every other iteration. GB200
golden values are published too (0.853 and 0.787 s); the catalogue has no GB200 (its B200 is the
1,000 W HGX part), so they are not compared. Nothing is fitted to these figures.

Usage: tools/validate/megatron_functional.py [--sgai build/tools/sgai]
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from megatron_table import Comparison, run_prediction, shares  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLATFORMS = {"H100": "dgx-h100-superpod.json", "A100": "dgx-a100-superpod.json"}

# MODEL_ARGS of tests/functional_tests/test_cases/gpt/gpt3_7b_tp4_pp1_memory_speed/model_config.yaml,
# as published ("${...}" paths replaced by placeholders); the TP1 x PP4 test differs in the lines below
COMMON = {
    "num-layers": 32, "hidden-size": 4096, "num-attention-heads": 32, "group-query-attention": True,
    "num-query-groups": 8, "untie-embeddings-and-output-weights": True, "log-throughput": True,
    "log-params-norm": True, "log-num-zeros-in-grad": True, "log-validation-ppl-to-tensorboard": True,
    "log-timers-to-tensorboard": True, "tensorboard-dir": "tensorboard", "global-batch-size": 8,
    "seq-length": 8192, "max-position-embeddings": 8192, "train-iters": 25, "timing-log-level": 0,
    "lr-decay-iters": 320000, "save": "checkpoints", "load": "checkpoints", "tokenizer-type": "NullTokenizer",
    "vocab-size": 131073, "mock-data": True, "split": "949,50,1", "distributed-backend": "nccl", "lr": 0.00015,
    "lr-decay-style": "cosine", "min-lr": 1.0e-5, "weight-decay": 1e-2, "clip-grad": 1.0,
    "lr-warmup-fraction": .01, "log-interval": 2, "save-interval": 10000, "eval-interval": 1000, "eval-iters": 5,
    "transformer-impl": "transformer_engine", "use-distributed-optimizer": True, "overlap-grad-reduce": True,
    "overlap-param-gather": True, "deterministic-mode": True, "no-gradient-accumulation-fusion": True,
    "use-mcore-models": True, "ckpt-format": "torch_dist", "dist-ckpt-strictness": "log_all",
    "data-cache-path": "cache", "bf16": True, "log-memory-to-tensorboard": True, "async-save": True,
    "use-persistent-ckpt-worker": True,
}
TESTS = {
    "gpt3_7b_tp4_pp1": {"micro-batch-size": 2, "tensor-model-parallel-size": 4, "pipeline-model-parallel-size": 1},
    "gpt3_7b_tp1_pp4": {"micro-batch-size": 1, "tensor-model-parallel-size": 1, "pipeline-model-parallel-size": 4,
                        "num-layers-per-virtual-pipeline-stage": 1, "exit-interval": 25},
}
# golden values: iteration-time from iteration 4 on, mem-allocated-bytes, mem-max-allocated-bytes (last)
MEASURED = {
    ("gpt3_7b_tp4_pp1", "H100"): ([1.12221, 1.11139, 1.11368, 1.11791, 1.11551, 1.11592, 1.11576, 1.11374, 1.11451,
                                   1.1149, 1.11493], 20663519232, 57143791616),
    ("gpt3_7b_tp4_pp1", "A100"): ([2.57769, 2.596], 20634103808, 58188115968),
    ("gpt3_7b_tp1_pp4", "H100"): ([1.16377, 1.14861, 1.14912, 1.15017, 1.14909, 1.14967, 1.15077, 1.15255, 1.1501,
                                   1.15138, 1.15105], 24808996864, 60720852992),
    ("gpt3_7b_tp1_pp4", "A100"): ([2.9368, 2.94791], 24510808064, 60489064448),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sgai", default=os.path.join(ROOT, "build", "tools", "sgai"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sgai-megatron-functional-")
    print("Megatron-LM's functional tests (measured on one DGX node, 8 GPUs) against sgai train predict")
    print("%-16s %4s | %8s %6s %7s | %8s %6s %6s | %8s %6s %6s | %s" % (
        "test", "gpu", "iter s", "sgai", "error", "state GB", "sgai", "error", "peak GB", "sgai", "error",
        "sgai's breakdown: compute, TP, bubble, DP, optimizer (%)"))
    time, static, peak = Comparison(), Comparison(), Comparison()
    for (test, gpu), (times, allocated, max_allocated) in MEASURED.items():
        d = dict(COMMON, **TESTS[test])
        platform = os.path.join(ROOT, "platforms", PLATFORMS[gpu])
        p, error = run_prediction(a.sgai, d, platform, 8, work, "%s-%s" % (test, gpu))
        if error:
            sys.exit("sgai train predict failed for %s on %s: %s" % (test, gpu, error))
        last = p["memory_per_stage"][-1]  # the last rank's stage, which the golden values log
        state = last["weight_bytes"] + last["gradient_bytes"] + last["optimizer_bytes"]
        name = "%s %s" % (test, gpu)
        measured_s = statistics.median(times)
        e_t = time.add(name, measured_s, p["iteration_s"])
        e_s = static.add(name, allocated / 1e9, state / 1e9)
        e_p = peak.add(name, max_allocated / 1e9, last["total_bytes"] / 1e9)
        print("%-16s %4s | %8.3f %6.3f %+6.1f%% | %8.2f %6.2f %+5.1f%% | %8.2f %6.2f %+5.1f%% | %s" % (
            test, gpu, measured_s, p["iteration_s"], 100 * e_t, allocated / 1e9, state / 1e9, 100 * e_s,
            max_allocated / 1e9, last["total_bytes"] / 1e9, 100 * e_p,
            shares(p, ("compute", "tp", "bubble", "dp", "optimizer"))))
    os.rmdir(work)
    print("iteration time: " + time.summary("times"))
    print("memory after a step: " + static.summary("bytes"))
    print("peak memory: " + peak.summary("bytes"))


if __name__ == "__main__":
    main()
