#!/usr/bin/python3
"""sgai train predict against Korthikanti et al.'s A100 measurements: one layer's forward and backward
inside Megatron-LM, whole iterations, and which configurations fit (docs/validation.md).

Measured: V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models"
(MLSys 2023, arXiv 2205.05198), on Selene (DGX A100 80GB, NVSwitch, 8 HDR 200 Gb/s HCAs a node),
mixed precision:
  - Table 3: the configurations (22B, 175B, 530B, 1T: heads, hidden, layers, TP 8, PP, GPUs, global
    and micro-batch); section 6: sequence 2,048, vocabulary 51,200, no data parallelism, the
    interleaved schedule with three chunks a stage for 175B and 530B;
  - Table 4: the forward and backward time of one transformer layer of the 22B model in five
    experiments (baseline, sequence parallelism, full recomputation, selective recomputation,
    selective + sequence parallelism), measured in training;
  - Table 5: the iteration time with full recomputation (no sequence parallelism) and with the
    present work (sequence parallelism and selective recomputation), with the present work's MFU
    and HFU;
  - section 6.1: "Without the memory savings provided by sequence parallelism and selective
    activation recomputation together, none of these models will fit into memory".
Every setting is published; the rest is the Megatron-LM of the time: its unfused attention (no
flash attention before 2023), dropout 0.1, learned positions, fp16 (the A100's fp16 and bf16
tensor rates are the same; without data parallelism the iteration time does not depend on which).
Platform: platforms/dgx-a100-superpod.json, as Selene was built. Nothing is fitted to these tables.

Table 4's experiments without full or selective-and-sequence-parallel savings do not fit the 22B
model (the paper's section 6.1; sgai agrees, below), so their layer times are taken from the same
model with 8 layers, which fits: a layer's time does not depend on the number of layers.
Usage: tools/validate/megatron_recompute.py [--sgai build/tools/sgai]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from megatron_table import spearman  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLATFORM = os.path.join(ROOT, "platforms", "dgx-a100-superpod.json")

# Table 3: model, heads, hidden, layers, PP, GPUs, global batch, micro-batch, layers per virtual
# stage (section 6: three chunks a stage for 175B and 530B); Table 5: iteration seconds with full
# recomputation and with the present work, the present work's MFU and HFU (%)
MODELS = [
    ("22B", 64, 6144, 48, 1, 8, 4, 4, None, 1.42, 1.10, 41.5, 43.7),
    ("175B", 96, 12288, 96, 8, 64, 64, 1, 4, 18.13, 13.75, 51.4, 52.8),
    ("530B", 128, 20480, 105, 35, 280, 280, 1, 1, 49.05, 37.83, 56.0, 57.0),
    ("1T", 160, 25600, 128, 64, 512, 512, 1, None, 94.42, 71.49, 56.3, 57.0),
]

# Table 4 (22B): experiment, forward, backward, combined (ms)
LAYER = [
    ("baseline, no recompute", 7.7, 11.9, 19.6),
    ("sequence parallelism", 7.2, 11.8, 19.0),
    ("full recompute", 7.7, 19.5, 27.2),
    ("selective recompute", 7.7, 13.2, 20.9),
    ("selective + sequence", 7.2, 13.1, 20.3),
]
MODES = {
    "baseline, no recompute": [],
    "sequence parallelism": ["--sequence-parallel"],
    "full recompute": ["--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1"],
    "selective recompute": ["--recompute-granularity", "selective"],
    "selective + sequence": ["--recompute-granularity", "selective", "--sequence-parallel"],
}
FITS = ("full recompute", "selective + sequence")  # what section 6.1 says fits


def arguments(model, layers=None):
    name, heads, hidden, n, pp, gpus, gbs, mbs, lpv = model[:9]
    a = ["--num-layers", str(layers or n), "--hidden-size", str(hidden), "--num-attention-heads", str(heads),
         "--seq-length", "2048", "--max-position-embeddings", "2048", "--vocab-size", "51200",
         "--micro-batch-size", str(mbs), "--global-batch-size", str(gbs), "--tensor-model-parallel-size", "8",
         "--pipeline-model-parallel-size", str(pp), "--fp16", "--attention-backend", "unfused"]
    if lpv:
        a += ["--num-layers-per-virtual-pipeline-stage", str(lpv)]
    return a


def predict(sgai, args, gpus, work):
    """The prediction as JSON, or (None, the stage's bytes) when sgai finds it does not fit."""
    out = os.path.join(work, "p.json")
    r = subprocess.run([sgai, "train", "predict"] + args + ["--platform", PLATFORM, "--gpus", str(gpus), "--json", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        m = re.search(r"stage (\d+) needs ([0-9.]+) GB per GPU", r.stderr)
        if not m:
            sys.exit("sgai train predict failed:\n%s%s" % (r.stdout, r.stderr))
        return None, float(m.group(2)) * 1e9
    with open(out) as f:
        p = json.load(f)
    os.remove(out)
    return p, p["largest_stage_memory_bytes"]


def layer_ms(p):
    s = p["layer_s"]
    fwd = sum(s[k + "_fwd"] for k in ("gemm", "attention", "stream", "tp", "cp", "ep"))
    bwd = sum(s[k + "_bwd"] for k in ("gemm", "attention", "stream", "tp", "cp", "ep"))
    return 1e3 * fwd, 1e3 * bwd


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sgai", default=os.path.join(ROOT, "build", "tools", "sgai"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sgai-recompute-")
    print("Korthikanti et al. 2022 (MLSys'23), A100 80GB (measured) against sgai train predict on %s" %
          os.path.relpath(PLATFORM, ROOT))

    print("\nTable 4: one layer of the 22B model (TP 8, micro-batch 4, sequence 2,048), ms")
    print("%-24s | %5s %5s %5s | %5s %5s %5s | %7s %7s %7s" % (
        "experiment", "fwd", "bwd", "sum", "sgai", "sgai", "sgai", "fwd", "bwd", "sum"))
    layer_errors = []
    m22 = MODELS[0]
    for name, fwd, bwd, comb in LAYER:
        p, _ = predict(a.sgai, arguments(m22) + MODES[name], m22[5], work)
        if p is None:
            p, _ = predict(a.sgai, arguments(m22, layers=8) + MODES[name], m22[5], work)
        f, b = layer_ms(p)
        e = (f + b) / comb - 1
        layer_errors.append(e)
        print("%-24s | %5.1f %5.1f %5.1f | %5.2f %5.2f %5.2f | %+6.1f%% %+6.1f%% %+6.1f%%" % (
            name, fwd, bwd, comb, f, b, f + b, 100 * (f / fwd - 1), 100 * (b / bwd - 1), 100 * e))
    print("mean absolute error of the layer's time (forward + backward) %.1f%%" %
          (100 * sum(abs(e) for e in layer_errors) / len(layer_errors)))

    print("\nTable 5: iteration time (no data parallelism)")
    print("%-5s %4s %3s %2s %-15s | %8s %8s %7s | %5s %5s | %5s %5s | %s" % (
        "model", "gpus", "pp", "v", "recomputation", "measured", "sgai", "time", "MFU", "sgai", "HFU", "sgai",
        "sgai's breakdown: compute, TP, bubble, optimizer (% of the iteration)"))
    errors, gains, measured_mfu, sgai_mfu = [], [], [], []
    for m in MODELS:
        name, pp, gpus, lpv, full_s, present_s, mfu, hfu = m[0], m[4], m[5], m[8], m[9], m[10], m[11], m[12]
        times = {}
        for mode, meas in (("full recompute", full_s), ("selective + sequence", present_s)):
            p, _ = predict(a.sgai, arguments(m) + MODES[mode], gpus, work)
            if p is None:
                sys.exit("%s, %s: sgai finds it does not fit, where the paper ran it" % (name, mode))
            t = p["iteration_s"]
            times[mode] = t
            errors.append(t / meas - 1)
            b = p["breakdown_s"]
            share = lambda k: 100 * b[k] / t
            present = mode != "full recompute"
            if present:
                measured_mfu.append(mfu)
                sgai_mfu.append(100 * p["mfu"])
            print("%-5s %4d %3d %2s %-15s | %8.2f %8.2f %+6.1f%% | %5s %5.1f | %5s %5.1f | %.0f, %.0f, %.0f, %.0f" % (
                name, gpus, pp, (int(m[3] / pp / lpv) if lpv else 1), "selective + SP" if present else "full",
                meas, t, 100 * (t / meas - 1), ("%.1f" % mfu) if present else "", 100 * p["mfu"],
                ("%.1f" % hfu) if present else "", 100 * p["hfu"],
                share("compute"), share("tp"), share("bubble"), share("optimizer")))
        gains.append((name, full_s / present_s - 1, times["full recompute"] / times["selective + sequence"] - 1))
    print("mean absolute error of the iteration times %.1f%% (worst %+.1f%%); Spearman rank correlation of the "
          "present work's MFUs %.2f" % (100 * sum(abs(e) for e in errors) / len(errors),
                                        100 * max(errors, key=abs), spearman(measured_mfu, sgai_mfu)))
    print("throughput gained by the present work over full recomputation, measured / sgai: " +
          ", ".join("%s %.1f%% / %.1f%%" % (n, 100 * g, 100 * s) for n, g, s in gains))

    print("\nMemory (section 6.1: only with full recomputation, or sequence parallelism and selective "
          "recomputation together, does a model fit in 80 GB): sgai's largest stage, GB")
    print("%-5s | %s" % ("model", " | ".join("%-22s" % n for n, _, _, _ in LAYER)))
    agree = True
    for m in MODELS:
        cells = []
        for name, _, _, _ in LAYER:
            p, need = predict(a.sgai, arguments(m) + MODES[name], m[5], work)
            fits = p is not None
            agree = agree and fits == (name in FITS)
            cells.append("%-22s" % ("%.1f %s" % (need / 1e9, "fits" if fits else "does not fit")))
        print("%-5s | %s" % (m[0], " | ".join(cells)))
    print("sgai's verdicts %s the paper's statement" % ("agree with" if agree else "DIFFER from"))
    os.rmdir(work)


if __name__ == "__main__":
    main()
