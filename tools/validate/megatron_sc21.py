#!/usr/bin/python3
"""sgai train predict against Narayanan et al.'s A100 weak-scaling table (SC'21), every row launched as
Megatron-LM's own scripts launch it (docs/validation.md).

Measured: D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC'21 (arXiv 2104.04473), Table 1: 10 GPT models from 1.7B to 1T parameters on 32 to
3,072 A100 80GB GPUs of Selene, achieved teraFLOP/s per GPU (each row's aggregate petaFLOP/s in the
same table is GPUs x TFLOP/s, a check of the transcription below). The paper counts FLOPs with the
recomputation (its equation 3: 96 B s l h^2 (1 + s/6h + V/16lh)), which is `sgai train predict`'s
hardware count (`hardware_tflops_per_gpu`); its "MFU" column would be the model's count.
Configurations: Megatron-LM's examples/academic_paper_scripts/sc21, run_table_1.sh (TP, PP, micro-batch,
global batch, layers, hidden, heads, DDP implementation, virtual stages, full recomputation) and
CONFIG.sh (sequence 2,048, GPT-2's BPE vocabulary, fp16, ...), passed to sgai as written; every
setting is published, none is chosen here. Megatron-LM of 2021 (commit 6985e58) ran its unfused
attention, which sgai takes from the 2021 argument names (docs/training.md).
Platform: platforms/dgx-a100-superpod.json, DGX A100 nodes (8 A100 SXM4 80GB on NVSwitch, 8 HDR
200 Gb/s NICs) on a non-blocking fat tree, as Selene was built. Nothing is fitted to the table.

Prints each row (measured and predicted TFLOP/s per GPU, the error, where the predicted time goes),
then the mean absolute error, the worst row and Spearman's rank correlation of the throughputs.
Usage: tools/validate/megatron_sc21.py [--sgai build/tools/sgai] [--attention-backend B]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from megatron_table import spearman  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLATFORM = os.path.join(ROOT, "platforms", "dgx-a100-superpod.json")

# run_table_1.sh: model, TP, PP, MBS, GBS, layers, hidden, heads, DDP, nodes, layers per virtual
# stage (None: not interleaved); Table 1: TFLOP/s per GPU, aggregate PFLOP/s
ROWS = [
    ("1.7B", 1, 1, 16, 512, 24, 2304, 24, "torch", 4, None, 137, 4.4),
    ("3.6B", 2, 1, 16, 512, 30, 3072, 32, "torch", 8, None, 138, 8.8),
    ("7.5B", 4, 1, 16, 512, 36, 4096, 32, "torch", 16, None, 142, 18.2),
    ("18B", 8, 1, 8, 1024, 40, 6144, 48, "torch", 32, None, 135, 34.6),
    ("39B", 8, 2, 4, 1536, 48, 8192, 64, "local", 64, None, 138, 70.8),
    ("76B", 8, 4, 2, 1792, 60, 10240, 80, "local", 128, 5, 140, 143.8),
    ("145B", 8, 8, 2, 2304, 80, 12288, 96, "local", 192, 5, 148, 227.1),
    ("310B", 8, 16, 1, 2160, 96, 16384, 128, "local", 240, 3, 155, 297.4),
    ("530B", 8, 35, 1, 2520, 105, 20480, 128, "local", 315, 1, 163, 410.2),
    ("1T", 8, 64, 1, 3072, 128, 25600, 160, "local", 384, None, 163, 502.0),
]

# CONFIG.sh's MEGATRON_PARAMS after the row's own (paths as placeholders: sgai opens none of them)
CONFIG = ("--data-path /data/gpt --vocab-file gpt2-vocab.json --merge-file gpt2-merges.txt --log-interval 5 "
          "--seq-length 2048 --max-position-embeddings 2048 --train-iters 500 --lr-decay-iters 320 --lr 0.0001 "
          "--min-lr 0.00001 --lr-decay-style cosine --lr-warmup-fraction 0.01 --split 969,30,1 --eval-iters 100 "
          "--eval-interval 1000 --clip-grad 1.0 --fp16 --loss-scale 8192").split()


def arguments(row):
    name, tp, pp, mbs, gbs, layers, hidden, heads, ddp, nodes, lpv, _, _ = row
    extra = ["--activations-checkpoint-method", "uniform"]
    if lpv:
        extra += ["--num-layers-per-virtual-pipeline-stage", str(lpv)]
    return extra + ["--tensor-model-parallel-size", str(tp), "--pipeline-model-parallel-size", str(pp),
                    "--micro-batch-size", str(mbs), "--global-batch-size", str(gbs), "--num-layers", str(layers),
                    "--hidden-size", str(hidden), "--num-attention-heads", str(heads), "--DDP-impl", ddp] + CONFIG


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sgai", default=os.path.join(ROOT, "build", "tools", "sgai"))
    ap.add_argument("--attention-backend", help="another attention than the 2021 scripts' (e.g. flash)")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sgai-sc21-")
    print("Narayanan et al. 2021 (SC'21), Table 1, A100 (measured) against sgai train predict on %s" %
          os.path.relpath(PLATFORM, ROOT))
    print("%-5s %5s %3s %3s %3s %5s | %7s %7s %7s | %s" % (
        "model", "gpus", "tp", "pp", "mbs", "batch", "TFLOP/s", "sgai", "error",
        "sgai's breakdown: compute, TP, bubble, DP, optimizer (% of the iteration)"))
    errors, measured, predicted = [], [], []
    for row in ROWS:
        name, tp, pp, mbs, gbs, nodes, meas, aggregate = row[0], row[1], row[2], row[3], row[4], row[9], row[11], row[12]
        gpus = 8 * nodes
        if abs(gpus * meas / 1000 - aggregate) > 0.01 * aggregate:
            sys.exit("%s: %d GPUs x %g TFLOP/s is not the table's %g PFLOP/s" % (name, gpus, meas, aggregate))
        out = os.path.join(work, name + ".json")
        cmd = [a.sgai, "train", "predict"] + arguments(row) + ["--platform", PLATFORM, "--gpus", str(gpus), "--json", out]
        if a.attention_backend:
            cmd += ["--attention-backend", a.attention_backend]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("sgai train predict failed for %s:\n%s%s" % (name, r.stdout, r.stderr))
        with open(out) as f:
            p = json.load(f)
        os.remove(out)
        got = p["hardware_tflops_per_gpu"]
        err = got / meas - 1
        errors.append(err)
        measured.append(meas)
        predicted.append(got)
        b = p["breakdown_s"]
        share = lambda k: 100 * b[k] / p["iteration_s"]
        print("%-5s %5d %3d %3d %3d %5d | %7.1f %7.1f %+6.1f%% | %.0f, %.0f, %.0f, %.0f, %.0f" % (
            name, gpus, tp, pp, mbs, gbs, meas, got, 100 * err,
            share("compute"), share("tp"), share("bubble"), share("dp"), share("optimizer")))
    os.rmdir(work)
    mae = sum(abs(e) for e in errors) / len(errors)
    worst = max(range(len(errors)), key=lambda i: abs(errors[i]))
    print("mean absolute error %.1f%%, worst %s at %+.1f%%, Spearman rank correlation of the throughputs %.2f" % (
        100 * mae, ROWS[worst][0], 100 * errors[worst], spearman(measured, predicted)))


if __name__ == "__main__":
    main()
