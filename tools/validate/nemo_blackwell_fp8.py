#!/usr/bin/python3
"""sgai train predict against NeMo's published DGX-GB200 and DGX-B200 FP8 pre-training tables (docs/validation.md).

Measured: NVIDIA NeMo Framework user guide, "Performance Summary for Large Language Models",
pre-training at FP8 (per-tensor current scaling): container NeMo 25.04 on DGX-GB200
(docs.nvidia.com/nemo-framework/user-guide/latest/performance/archive/25.04-performance-summary.html)
and NeMo 25.02 on DGX-B200 (the same guide's summary of that release). Each row gives its GPUs,
global and micro-batch, sequence, FSDP (GB200 only), TP, PP, CP, virtual stages, EP and gradient
accumulations, and tokens per second per GPU, the figure compared here (it does not depend on how
FLOPs are counted). The two tables print the B200 Mixtral 8x22B row's GBS and MBS swapped (64 and 1;
its GA of 16 is what GBS 64 gives), read so here.

The models as NeMo 2.0 defines them (nemo/collections/llm/gpt/model: llama.py, nemotron.py,
mixtral.py; GPT-3 175B and Nemotron-4 340B as tools/validate/nemo_h100_fp8.py describes them):
Llama 3 8B / 70B, Llama 3.1 405B (126 layers, hidden 16,384, FFN 53,248, 128 heads in 8 groups,
vocabulary 128,256), Nemotron-4 15B (32 layers, hidden 6,144, FFN 24,576, 48 heads in 8 groups,
squared ReLU priced as GeLU, vocabulary 256,000), Mixtral 8x7B and 8x22B (8 experts, top-2, the
alltoall dispatcher, vocabulary 32,000). Settings as in nemo_h100_fp8.py: the distributed optimizer
with both overlaps, sequence parallelism with TP, FP8 hybrid, and FP8 parameters (NeMo 2.0's FP8
precision plugins set fp8_param_gather: nemo/collections/llm/recipes/precision/mixed_precision.py);
FSDP 1 is FSDP (no distributed optimizer). What the tables do not give (CUDA graphs, TP communication overlap, the recipes'
recomputation) is not set. Platforms: platforms/gb200-nvl72.json (one NVLink domain of 72 GPUs a
rack, a NIC per GPU) and platforms/dgx-b200-superpod.json (DGX B200 nodes on NDR rails). Nothing is
fitted to the tables.

Usage: tools/validate/nemo_blackwell_fp8.py [--sgai build/tools/sgai]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from megatron_table import Comparison, run_prediction, shares, start  # noqa: E402
from nemo_h100_fp8 import LLAMA, MODELS, NEMOTRON, description  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIXTRAL = dict(LLAMA, **{"num-query-groups": 8, "vocab-size": 32000, "num-experts": 8, "moe-router-topk": 2,
                         "moe-token-dispatcher-type": "alltoall", "moe-grouped-gemm": True})
BLACKWELL_MODELS = dict(MODELS, **{
    # (NeMo's llama31_405b recipe counts the embedding and the loss as a layer each in the pipeline
    # split: 126 + 2 = 128 slots)
    "LLAMA3.1-405B": dict(LLAMA, **{"num-layers": 126, "hidden-size": 16384, "ffn-hidden-size": 53248,
                                    "num-attention-heads": 128, "num-query-groups": 8, "vocab-size": 128256,
                                    "account-for-embedding-in-pipeline-split": True,
                                    "account-for-loss-in-pipeline-split": True}),
    "Nemotron-15B": dict(NEMOTRON, **{"num-layers": 32, "hidden-size": 6144, "ffn-hidden-size": 24576,
                                      "num-attention-heads": 48, "num-query-groups": 8}),
    "Mixtral-8x7B": dict(MIXTRAL, **{"num-layers": 32, "hidden-size": 4096, "ffn-hidden-size": 14336,
                                     "num-attention-heads": 32}),
    "Mixtral-8x22B": dict(MIXTRAL, **{"num-layers": 56, "hidden-size": 6144, "ffn-hidden-size": 16384,
                                      "num-attention-heads": 48}),
})
BLACKWELL_MODELS["Nemotron-340B"] = {k: v for k, v in MODELS["Nemotron-340B"].items() if k != "recompute-granularity"}
PLATFORMS = {"GB200": "gb200-nvl72.json", "B200": "dgx-b200-superpod.json"}
# system, model, GPUs, GBS, MBS, sequence, FSDP, TP, PP, CP, VP, EP, tokens/s per GPU
ROWS = [
    ("GB200", "GPT3-175B", 128, 256, 2, 2048, 0, 4, 4, 1, 12, 1, 1804),
    ("GB200", "LLAMA3-8B", 8, 128, 2, 8192, 0, 1, 1, 1, 1, 1, 33099),
    ("GB200", "LLAMA3-70B", 64, 128, 1, 8192, 1, 1, 1, 1, 1, 1, 4035),
    ("GB200", "LLAMA3.1-405B", 128, 64, 1, 8192, 0, 4, 8, 2, 8, 1, 665),
    ("GB200", "Nemotron-15B", 64, 256, 2, 4096, 0, 1, 1, 1, 1, 1, 17809),
    ("GB200", "Nemotron-340B", 128, 32, 1, 4096, 0, 8, 4, 1, 12, 1, 737),
    ("GB200", "Mixtral-8x7B", 64, 256, 2, 4096, 0, 1, 1, 1, 1, 8, 19275),
    ("GB200", "Mixtral-8x22B", 256, 64, 1, 65536, 0, 2, 4, 8, 14, 8, 2731),
    ("B200", "GPT3-175B", 512, 2048, 2, 2048, 0, 4, 4, 1, 6, 1, 1600),
    ("B200", "LLAMA3-8B", 8, 128, 2, 8192, 0, 1, 1, 1, 1, 1, 26006),
    ("B200", "LLAMA3-70B", 64, 128, 1, 8192, 0, 2, 4, 2, 5, 1, 3062),
    ("B200", "LLAMA3.1-405B", 128, 64, 1, 8192, 0, 4, 8, 2, 8, 1, 625),
    ("B200", "Nemotron-15B", 64, 256, 2, 4096, 0, 1, 1, 1, 1, 1, 14760),
    ("B200", "Nemotron-340B", 128, 32, 1, 4096, 0, 8, 4, 1, 12, 1, 602),
    ("B200", "Mixtral-8x7B", 64, 256, 2, 4096, 0, 1, 1, 1, 1, 8, 15457),
    ("B200", "Mixtral-8x22B", 256, 64, 1, 65536, 0, 2, 4, 8, 14, 8, 2232),
]


def blackwell_description(row):
    system, model, gpus, gbs, mbs, seq, fsdp, tp, pp, cp, vp, ep, measured = row
    d = description((model, gpus, gbs, mbs, seq, tp, pp, cp, vp, measured), BLACKWELL_MODELS)
    if vp > 1 and d.get("account-for-embedding-in-pipeline-split"):
        d["num-layers-per-virtual-pipeline-stage"] = (d["num-layers"] + 2) // (pp * vp)
    d["fp8-param-gather"] = True  # (NeMo's FP8 precision plugins: bf16_with_fp8_current_scaling_mixed)
    if ep > 1:
        d["expert-model-parallel-size"] = ep
    if fsdp:
        for key in ("use-distributed-optimizer", "overlap-grad-reduce", "overlap-param-gather"):
            d.pop(key, None)
        d["use-torch-fsdp2"] = True
    return d


def main():
    a, work = start(__doc__, "sgai-nemo-blackwell-")
    print("NeMo FP8 pre-training on DGX-GB200 (25.04) and DGX-B200 (25.02), measured, against sgai train predict")
    print("%-5s %-13s %4s %4s %3s %5s %4s %2s %2s %2s %2s %2s | %9s %9s %7s | %s" % (
        "gpu", "model", "gpus", "gbs", "mbs", "seq", "fsdp", "tp", "pp", "cp", "vp", "ep", "tokens/s", "sgai",
        "error", "sgai's breakdown: compute, TP, CP, EP, bubble, DP, optimizer (% of the iteration)"))
    both, by_gpu = Comparison(), {g: Comparison() for g in PLATFORMS}
    for row in ROWS:
        platform = os.path.join(ROOT, "platforms", PLATFORMS[row[0]])
        p, error = run_prediction(a.sgai, blackwell_description(row), platform, row[2], work,
                                  "%s-%s-%d" % (row[0], row[1], row[2]))
        if error:
            print("%-5s %-13s %4d: %s" % (row[0], row[1], row[2], error))
            continue
        got = p["tokens_per_s"] / row[2]
        err = both.add("%s %s" % (row[0], row[1]), row[12], got)
        by_gpu[row[0]].add(row[1], row[12], got)
        print("%-5s %-13s %4d %4d %3d %5d %4d %2d %2d %2d %2d %2d | %9d %9.0f %+6.1f%% | %s" % (
            row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10], row[11], row[12],
            got, 100 * err, shares(p, ("compute", "tp", "cp", "ep", "bubble", "dp", "optimizer"))))
    os.rmdir(work)
    for gpu, rows in by_gpu.items():
        if rows.errors:
            print("%s: %s" % (gpu, rows.summary("tokens/s")))
    if both.errors:
        print("both: " + both.summary("tokens/s"))


if __name__ == "__main__":
    main()
