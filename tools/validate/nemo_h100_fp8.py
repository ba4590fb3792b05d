#!/usr/bin/python3
"""sgai train predict against NeMo 24.07's published DGX-H100 FP8 pre-training table (docs/validation.md).

Measured: NVIDIA/NeMo, docs/source/performance/performance_summary.md at commit 070a0bb16 ("Pretraining:
pre-training performance for various tasks at FP8 precision", container NeMo 24.07, system DGX-H100):
each row's GPUs, global and micro-batch, sequence, TP, PP, CP and virtual stages, and its tokens per
second per GPU, the figure compared here (it does not depend on how FLOPs are counted).
What the table does not give comes from the model's recipe in NVIDIA/NeMo-Framework-Launcher at tag
24.07 (launcher_scripts/conf/training/<model>.yaml): layers, hidden, FFN, heads, query groups,
dropout, normalization, activation (squared ReLU priced as GeLU: one element-wise pass), selective
recomputation (Nemotron-340B), sequence parallelism, Transformer Engine's TP overlap
(ub_tp_comm_overlap), the distributed optimizer with both overlaps (distributed_fused_adam,
overlap_grad_sync, overlap_param_sync) and its types where a recipe sets them (OPTIMIZERS: GPT3-175B's
FP8 recipe, gpt3/175b_fp8.yaml, and Nemotron-340B's reduce the gradients in bf16), flash attention;
FP8 (hybrid) as the table says. The
vocabularies are the models' tokenizers': GPT-2's 50,257 for GPT-3, Llama 2's 32,000, Llama 3's
128,256, Nemotron's 256,000 (the recipes' nemotron_2_256k; assumed for the 8B and 22B, whose
recipes name no tokenizer). The H100's FP8 matmul figure is a boost-clock burst (the catalogue).
Platform: platforms/dgx-h100-superpod.json. Nothing is fitted to the table.

Usage: tools/validate/nemo_h100_fp8.py [--sgai build/tools/sgai]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from megatron_table import Comparison, run_prediction, shares, start  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLATFORM = os.path.join(ROOT, "platforms", "dgx-h100-superpod.json")

# the recipes (launcher_scripts/conf/training, tag 24.07)
GPT3 = {"swiglu": False, "vocab-size": 50257, "hidden-dropout": 0.1, "attention-dropout": 0.1}
LLAMA = {"swiglu": True, "normalization": "RMSNorm", "position-embedding-type": "rope", "hidden-dropout": 0.0, "attention-dropout": 0.0}
NEMOTRON = {"swiglu": False, "vocab-size": 256000, "position-embedding-type": "rope", "hidden-dropout": 0.0, "attention-dropout": 0.0}
MODELS = {
    "GPT3-5B": dict(GPT3, **{"num-layers": 24, "hidden-size": 4096, "num-attention-heads": 32}),
    "GPT3-20B": dict(GPT3, **{"num-layers": 44, "hidden-size": 6144, "num-attention-heads": 48, "tp-comm-overlap": True}),
    "GPT3-175B": dict(GPT3, **{"num-layers": 96, "hidden-size": 12288, "num-attention-heads": 96}),
    "LLAMA2-7B": dict(LLAMA, **{"num-layers": 32, "hidden-size": 4096, "ffn-hidden-size": 11008,
                                "num-attention-heads": 32, "vocab-size": 32000}),
    "LLAMA2-13B": dict(LLAMA, **{"num-layers": 40, "hidden-size": 5120, "ffn-hidden-size": 13824,
                                 "num-attention-heads": 40, "vocab-size": 32000}),
    "LLAMA2-70B": dict(LLAMA, **{"num-layers": 80, "hidden-size": 8192, "ffn-hidden-size": 28672,
                                 "num-attention-heads": 64, "num-query-groups": 8, "vocab-size": 32000,
                                 "tp-comm-overlap": True}),
    "Nemotron-8B": dict(NEMOTRON, **{"num-layers": 32, "hidden-size": 4096, "ffn-hidden-size": 16384,
                                     "num-attention-heads": 32, "tp-comm-overlap": True}),
    "Nemotron-22B": dict(NEMOTRON, **{"num-layers": 40, "hidden-size": 6144, "ffn-hidden-size": 24576,
                                      "num-attention-heads": 48, "tp-comm-overlap": True}),
    "Nemotron-340B": dict(NEMOTRON, **{"num-layers": 96, "hidden-size": 18432, "ffn-hidden-size": 73728,
                                       "num-attention-heads": 96, "num-query-groups": 8,
                                       "recompute-granularity": "selective"}),
    "LLAMA3-8B": dict(LLAMA, **{"num-layers": 32, "hidden-size": 4096, "ffn-hidden-size": 14336,
                                "num-attention-heads": 32, "num-query-groups": 8, "vocab-size": 128256}),
    "LLAMA3-70B": dict(LLAMA, **{"num-layers": 80, "hidden-size": 8192, "ffn-hidden-size": 28672,
                                 "num-attention-heads": 64, "num-query-groups": 8, "vocab-size": 128256,
                                 "tp-comm-overlap": True}),
}
# the recipes' optimizer where it departs from fp32 (NeMo 24.07's Apex distributed Adam, optim.grad_sync_dtype and
# optim.dtype): this table's alone (NeMo 2.0, nemo_blackwell_fp8.py, reduces in fp32: its bf16_mixed precision
# plugin sets grad_reduce_in_fp32)
OPTIMIZERS = {
    # gpt3/175b_fp8.yaml, NeMo's FP8 recipe of the 175B ("the best 175B training performance with the NeMo SW
    # stack"): the gradients reduced in bf16
    "GPT3-175B": {"grad-reduce-in-bf16": True},
    # nemotron/nemotron_340b.yaml: the gradients reduced in bf16 and the optimizer in bf16 (Adam's moments in
    # bf16 and no fp32 copy of the parameters, which Megatron's precision-aware optimizer cannot drop: 4 bytes
    # over DP a parameter more than NeMo keeps)
    "Nemotron-340B": {"use-precision-aware-optimizer": True, "main-grads-dtype": "bf16", "exp-avg-dtype": "bf16",
                      "exp-avg-sq-dtype": "bf16"},
}
# the table: model, GPUs, GBS, MBS, sequence, TP, PP, CP, VP, tokens/s per GPU
ROWS = [
    ("GPT3-5B", 64, 2048, 4, 2048, 1, 1, 1, 1, 22521),
    ("GPT3-20B", 64, 256, 2, 2048, 2, 1, 1, 1, 5851),
    ("GPT3-175B", 128, 256, 1, 2048, 4, 8, 1, 6, 726),
    ("GPT3-175B", 512, 2048, 2, 2048, 4, 8, 1, 6, 782),
    ("LLAMA2-7B", 8, 128, 1, 4096, 1, 1, 1, 1, 16847),
    ("LLAMA2-13B", 16, 128, 1, 4096, 1, 4, 1, 10, 8646),
    ("LLAMA2-70B", 64, 128, 1, 4096, 4, 4, 1, 20, 1707),
    ("Nemotron-8B", 64, 256, 4, 4096, 2, 1, 1, 1, 12701),
    ("Nemotron-22B", 64, 256, 2, 4096, 2, 4, 1, 10, 4256),
    ("Nemotron-340B", 128, 32, 1, 4096, 8, 8, 1, 12, 322),
    ("LLAMA3-8B", 8, 128, 1, 8192, 1, 1, 2, 1, 12036),
    ("LLAMA3-70B", 64, 128, 1, 8192, 4, 4, 2, 5, 1533),
]


def description(row, models=None):
    """The row's description, its model from `models` (default: this table's MODELS, with the recipes'
    OPTIMIZERS)."""
    model, gpus, gbs, mbs, seq, tp, pp, cp, vp, _ = row
    d = dict((models or MODELS)[model])
    if models is None:
        d.update(OPTIMIZERS.get(model, {}))
    d.update({"seq-length": seq, "micro-batch-size": mbs, "global-batch-size": gbs,
              "tensor-model-parallel-size": tp, "pipeline-model-parallel-size": pp,
              "context-parallel-size": cp, "untie-embeddings-and-output-weights": True,
              "use-distributed-optimizer": True, "overlap-grad-reduce": True, "overlap-param-gather": True,
              "fp8-format": "hybrid"})
    if tp > 1:
        d["sequence-parallel"] = True
    else:
        d.pop("tp-comm-overlap", None)
    if vp > 1:
        d["num-layers-per-virtual-pipeline-stage"] = d["num-layers"] // (pp * vp)
    return d


def main():
    a, work = start(__doc__, "sgai-nemo-")
    print("NeMo 24.07 DGX-H100 FP8 pre-training (measured) against sgai train predict on %s" %
          os.path.relpath(PLATFORM, ROOT))
    print("%-13s %4s %4s %3s %5s %2s %2s %2s %2s | %9s %9s %7s | %s" % (
        "model", "gpus", "gbs", "mbs", "seq", "tp", "pp", "cp", "vp", "tokens/s", "sgai", "error",
        "sgai's breakdown: compute, TP, CP, bubble, DP, optimizer (% of the iteration)"))
    rows = Comparison()
    for row in ROWS:
        p, error = run_prediction(a.sgai, description(row), PLATFORM, row[1], work, "%s-%d" % (row[0], row[1]))
        if error:
            print("%-13s %4d: %s" % (row[0], row[1], error))
            continue
        got = p["tokens_per_s"] / row[1]
        err = rows.add(row[0], row[9], got)
        print("%-13s %4d %4d %3d %5d %2d %2d %2d %2d | %9d %9.0f %+6.1f%% | %s" % (
            row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], got, 100 * err,
            shares(p)))
    os.rmdir(work)
    if rows.errors:
        print(rows.summary("tokens/s"))

if __name__ == "__main__":
    main()
