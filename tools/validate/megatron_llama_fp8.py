#!/usr/bin/python3
"""sgai train predict against Megatron-LM's published Llama 3 FP8 table (docs/validation.md).

Measured: NVIDIA/Megatron-LM, examples/llama/README.md ("FP8 Performance", the README of the
core_r0.12.0 era, 2025): Llama 3 8B on 8 GPUs, 70B on 64, 405B on 1,024, each row's global and
micro-batch, sequence 8,192, TP, PP, CP and virtual stages, and its tokens per second per GPU (the
figure compared here: it does not depend on how FLOPs are counted) and TFLOP/s per GPU. The README
says its configuration "follows those defined in NeMo Framework's performance scripts"; the GPUs are
H100 (the example script it runs is train_llama3_8b_h100_fp8.sh), here DGX H100 nodes.
The settings the table does not give are the example script's, for every row (examples/llama/
train_llama3_8b_h100_fp8.sh): FP8 hybrid with FP8 parameters (fp8-param-gather), gradients reduced
in bf16, the distributed optimizer with both overlaps, sequence parallelism, cuDNN's fused attention,
SwiGLU, RMSNorm, no dropout, untied embeddings, no recomputation. Beyond it: with TP > 1, Transformer
Engine's TP overlap (tp-comm-overlap), as NeMo's performance scripts set it for these layouts (their
userbuffers configurations userbuffers_fp8_h100_h8192_tp4_mbs1_seqlen8192 and
userbuffers_fp8_h100_h16384_tp8_cp2_mbs1_seqlen8192); the 405B model's 126 layers on 8 stages of 8
virtual stages with the embedding and the loss counted as layers (128 = 64 chunks of 2), the layout
Megatron-Core offers for it. Models: Llama 3's published shapes (Dubey et al. 2024, Table 3),
vocabulary 128,256. Platform: platforms/dgx-h100-superpod.json. Nothing is fitted to the table.

Usage: tools/validate/megatron_llama_fp8.py [--sgai build/tools/sgai]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from megatron_table import Comparison, run_prediction, shares, start  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLATFORM = os.path.join(ROOT, "platforms", "dgx-h100-superpod.json")

# the example script's settings (train_llama3_8b_h100_fp8.sh)
SCRIPT = {"swiglu": True, "normalization": "RMSNorm", "position-embedding-type": "rope", "untie-embeddings-and-output-weights": True,
          "disable-bias-linear": True, "attention-dropout": 0.0, "hidden-dropout": 0.0, "vocab-size": 128256,
          "seq-length": 8192, "micro-batch-size": 1, "bf16": True, "grad-reduce-in-bf16": True,
          "fp8-format": "hybrid", "fp8-param-gather": True, "use-distributed-optimizer": True,
          "overlap-grad-reduce": True, "overlap-param-gather": True, "sequence-parallel": True,
          "attention-backend": "fused"}
MODELS = {
    "LLAMA3-8B": {"num-layers": 32, "hidden-size": 4096, "ffn-hidden-size": 14336, "num-attention-heads": 32,
                  "num-query-groups": 8},
    "LLAMA3-70B": {"num-layers": 80, "hidden-size": 8192, "ffn-hidden-size": 28672, "num-attention-heads": 64,
                   "num-query-groups": 8},
    "LLAMA3-405B": {"num-layers": 126, "hidden-size": 16384, "ffn-hidden-size": 53248, "num-attention-heads": 128,
                    "num-query-groups": 8, "account-for-embedding-in-pipeline-split": True,
                    "account-for-loss-in-pipeline-split": True},
}
# the table: model, GPUs, GBS, MBS, TP, PP, CP, VP, tokens/s per GPU, TFLOP/s per GPU
ROWS = [
    ("LLAMA3-8B", 8, 128, 1, 1, 1, 2, 1, 13812, 800),
    ("LLAMA3-70B", 64, 128, 1, 4, 8, 1, 5, 1621, 780),
    ("LLAMA3-405B", 1024, 512, 1, 8, 8, 2, 8, 315, 834),
]


def description(row):
    model, gpus, gbs, mbs, tp, pp, cp, vp = row[:8]
    d = dict(SCRIPT, **MODELS[model])
    d.update({"global-batch-size": gbs, "micro-batch-size": mbs, "tensor-model-parallel-size": tp,
              "pipeline-model-parallel-size": pp, "context-parallel-size": cp})
    if tp > 1:
        d["tp-comm-overlap"] = True
    if vp > 1:
        d["num-virtual-stages-per-pipeline-rank"] = vp
    return d


def main():
    a, work = start(__doc__, "sgai-llama-fp8-")
    print("Megatron-LM examples/llama FP8 table (measured, H100) against sgai train predict on %s" %
          os.path.relpath(PLATFORM, ROOT))
    print("%-11s %4s %3s %2s %2s %2s %2s | %8s %8s %7s | %7s %7s | %s" % (
        "model", "gpus", "gbs", "tp", "pp", "cp", "vp", "tokens/s", "sgai", "error", "TFLOP/s", "sgai",
        "sgai's breakdown: compute, TP, CP, bubble, DP, optimizer (% of the iteration)"))
    rows = Comparison()
    for row in ROWS:
        p, error = run_prediction(a.sgai, description(row), PLATFORM, row[1], work, "%s-%d" % (row[0], row[1]))
        if error:
            sys.exit("sgai train predict failed for %s-%d: %s" % (row[0], row[1], error))
        got = p["tokens_per_s"] / row[1]
        err = rows.add(row[0], row[8], got)
        print("%-11s %4d %3d %2d %2d %2d %2d | %8d %8.0f %+6.1f%% | %7d %7.1f | %s" % (
            row[0], row[1], row[2], row[4], row[5], row[6], row[7], row[8], got, 100 * err, row[9],
            p["tflops_per_gpu"], shares(p)))
    os.rmdir(work)
    print(rows.summary("tokens/s"))

if __name__ == "__main__":
    main()
