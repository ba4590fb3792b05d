#!/usr/bin/python3
"""sgai train predict against kernel times measured inside training steps on H100 (docs/validation.md).

Measured: NVIDIA-NeMo/Automodel, MFSDP-llama3-70b-repro/analysis_report_no_flag.md (commit
5b81480e4a4204d2406c1bc3dd3ee54c07faece7, dated 2026-04-14): Nsight Systems profiles of Llama 3.1 70B
pre-training on 8 nodes of H100 SXM (64 GPUs), TP 1, CP 1, PP 1, DP 64, micro-batch 1, global batch
128 (2 micro-batches a step), sequence 4,096, full recomputation, BF16, Transformer Engine's cuDNN
attention, run by Megatron-LM's own FSDP (`--use-megatron-fsdp`, container pytorch26.03 with TE
2.14) and by NeMo Automodel's PyTorch FSDP2 on the same cluster. The report gives each run's step
time and its kernels summed per step (section 4.3) and each collective's average duration
(sections 4.1, 4.2).

sgai describes the run with Megatron-LM's arguments (`use-torch-fsdp2`: each layer a unit, gathered
for its forward and again for its backward, its gradients reduce-scattered, every micro-batch; the
profiles count 322 all-gathers and 162 reduce-scatters a step, 2 x 80 x 2 and 80 x 2 plus the
embedding's and the head's) on platforms/dgx-h100-superpod.json (DGX H100 nodes, a NIC per GPU).
Nothing is fitted. The measured GEMM sum includes the LM head's (printed: its share of the GEMM
FLOPs); sgai's is the layers' GEMMs. sgai's all-gather and reduce-scatter per call are a layer's
share of its whole-model gathering and reduction (NCCL's model; bandwidth-bound at 1.7 and 3.4 GB).
Usage: tools/validate/nsys_llama70b_h100.py [--sgai build/tools/sgai]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLATFORM = os.path.join(ROOT, "platforms", "dgx-h100-superpod.json")

LAYERS, HIDDEN, FFN, HEADS, GROUPS, SEQ, VOCAB, MICRO = 80, 8192, 28672, 64, 8, 4096, 128256, 2
DESCRIPTION = {
    "num-layers": LAYERS, "hidden-size": HIDDEN, "ffn-hidden-size": FFN, "num-attention-heads": HEADS,
    "num-query-groups": GROUPS, "seq-length": SEQ, "vocab-size": VOCAB, "swiglu": True,
    "normalization": "RMSNorm", "position-embedding-type": "rope", "hidden-dropout": 0, "attention-dropout": 0,
    "untie-embeddings-and-output-weights": True, "micro-batch-size": 1, "global-batch-size": 128,
    "use-torch-fsdp2": True, "recompute-granularity": "full", "recompute-method": "uniform",
    "recompute-num-layers": 1, "bf16": True, "attention-backend": "fused",
}
# section 4.3 (per step, ms) and 4.1-4.2 (average per call, us): Megatron-FSDP, FSDP2
MEASURED = {
    "step": (8931, 8624),
    "gemm": (7226, 6503),
    "attention": (199 + 283, 190 + 269),
    "all_gathers": (326, 322),
    "reduce_scatters": (164, 162),
    "all_gather_us": (12669, 10276),
    "reduce_scatter_us": (21491, 21494),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sgai", default=os.path.join(ROOT, "build", "tools", "sgai"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sgai-nsys70b-")
    desc, out = os.path.join(work, "llama70b.json"), os.path.join(work, "p.json")
    with open(desc, "w") as f:
        json.dump(DESCRIPTION, f)
    r = subprocess.run([a.sgai, "train", "predict", desc, "--platform", PLATFORM, "--gpus", "64", "--json", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("sgai train predict failed:\n%s%s" % (r.stdout, r.stderr))
    with open(out) as f:
        p = json.load(f)
    for x in (desc, out):
        os.remove(x)
    os.rmdir(work)
    s, calls = p["layer_s"], MICRO * LAYERS
    kv = HIDDEN // HEADS * GROUPS
    layer_macs = HIDDEN * (HIDDEN + 2 * kv) + HIDDEN * HIDDEN + 3 * HIDDEN * FFN
    head_share = 3 * HIDDEN * VOCAB / (3 * HIDDEN * VOCAB + 4 * LAYERS * layer_macs)  # recomputed forward: 4 x
    sgai = {
        "step": 1e3 * p["iteration_s"],
        "gemm": 1e3 * calls * (s["gemm_fwd"] + s["gemm_bwd"]),
        "attention": 1e3 * calls * (s["attention_fwd"] + s["attention_bwd"]),
        "all_gathers": 2 * calls,
        "reduce_scatters": calls,
        "all_gather_us": 1e6 * p["dp_gather_s"] / LAYERS,
        "reduce_scatter_us": 1e6 * p["dp_reduce_s"] / LAYERS,
    }
    names = {
        "step": "step (ms)",
        "gemm": "GEMMs a step (ms)",
        "attention": "attention fwd + bwd a step (ms)",
        "all_gathers": "all-gathers a step (layers)",
        "reduce_scatters": "reduce-scatters a step (layers)",
        "all_gather_us": "all-gather, a layer (us)",
        "reduce_scatter_us": "reduce-scatter, a layer (us)",
    }
    print("Llama 3.1 70B on 64 H100 SXM (TP 1, DP 64, FSDP, 2 micro-batches of 1 x 4,096, full recomputation), "
          "measured in training (NVIDIA-NeMo/Automodel's nsys reports) against sgai train predict on %s" %
          os.path.relpath(PLATFORM, ROOT))
    print("%-34s | %13s %13s | %10s | %8s %8s" % ("", "Megatron-FSDP", "FSDP2", "sgai", "vs MFSDP", "vs FSDP2"))
    for k, label in names.items():
        mf, f2 = MEASURED[k]
        print("%-34s | %13.0f %13.0f | %10.0f | %+7.1f%% %+7.1f%%" % (
            label, mf, f2, sgai[k], 100 * (sgai[k] / mf - 1), 100 * (sgai[k] / f2 - 1)))
    print("the measured GEMMs include the LM head's, %.1f%% of the GEMM FLOPs; sgai's overlapped collectives' "
          "SMs slow its GEMMs and attention by %.1f%%; MFU %.1f%% (the report: about 40.1%% and 41.5%%)" % (
              100 * head_share, 100 * p["dp_sm_share"], 100 * p["mfu"]))
    b = p["breakdown_s"]
    rest = sgai["step"] - sgai["gemm"] - sgai["attention"]
    print("outside GEMMs and attention: measured %.0f ms (Megatron-FSDP) and %.0f ms (FSDP2: 878 ms of it its "
          "buffer copies, mostly beside the collectives), sgai %.0f ms (streaming kernels, the head and "
          "embedding, exposed DP %.0f, optimizer %.0f)" % (
              MEASURED["step"][0] - MEASURED["gemm"][0] - MEASURED["attention"][0],
              MEASURED["step"][1] - MEASURED["gemm"][1] - MEASURED["attention"][1], rest,
              1e3 * b["dp"], 1e3 * b["optimizer"]))


if __name__ == "__main__":
    main()
