#!/usr/bin/python3
"""sgai train predict against Megatron-Core's published H100 weak-scaling table (docs/validation.md).

Measured: ../shared/data/training/megatron-core-h100-weak-scaling.csv (NVIDIA/Megatron-LM README,
"Performance Benchmarking", July 2024): 9 GPT models, 48 to 6,144 H100 GPUs, per-GPU TFLOP/s and MFU.
Platform: platforms/dgx-h100-superpod.json, 768 DGX H100 nodes (8 H100 SXM5, NVSwitch, 8 ConnectX-7
NDR 400 Gb/s NICs each) on a non-blocking fat tree: the nodes NVIDIA's H100 clusters were built
of at the time; the table does not name its cluster.

The settings Megatron-Core did not publish follow one rule for every row, written in
docs/training.md before any comparison:
  - micro-batch 1, no activation recomputation, hidden and attention dropout 0.1 (Megatron's
    defaults), GeLU FFN of 4 h, LayerNorm, untied embedding and LM head, BF16;
  - with TP > 1: sequence parallelism and --tp-comm-overlap (the README says TP communication is
    overlapped; Megatron needs sequence parallelism for it);
  - the distributed optimizer with --overlap-grad-reduce and --overlap-param-gather (the README);
  - virtual pipeline stages at the maximum, one layer each, as NeMo's published GPT-3 175B recipe
    sets them ("virtual_pipeline_model_parallel_size: 12 # interleaved pipeline, set to maximum",
    NeMo-Megatron-Launcher conf/training/gpt3/175b.yaml: 96 layers, PP 8);
  - attention: cuDNN's fused flash attention (Transformer Engine's FusedAttention) at the
    FlashAttention-3 paper's published H100 figures (the catalogue's "attention").
Nothing is fitted to the table: every kernel and network figure comes from the catalogue.

Prints each row: measured and predicted TFLOP/s per GPU and MFU, the error, where the predicted time
goes, then the mean absolute error, the worst row, Spearman's rank correlation of the MFUs (all rows,
then the pipelined and the other rows apart), each row's measured iteration (its FLOPs at the measured
rate) less sgai's, in all and per micro-batch of a replica, each pipelined row's sensitivity to the virtual-stage
count (1, 2 when it divides, the rule's), and every row's to the micro-batch size (1, the rule's, then 2 and 4, the rule's virtual stages; "no fit" when
sgai finds the stage's memory above the GPU's), with the mean absolute error and the Spearman rank
correlation each size would give taken for every row alike (a sensitivity, not the comparison: the
rule's micro-batch stands).

Then Megatron-Core's strong scaling from the same README and commit: its 177B GPT (GPT-3 175B with the
larger vocabulary) at a global batch of 1,152 sequences on 96 to 4,608 H100 GPUs. The README's text gives
the ends ("a reduction in MFU from 47% to 42%"); the points between are read from its figure
(`images/strong_scaling.png`, NVIDIA/Megatron-LM commit f2e5db4, "Megatron-Core r0.8.0"; STRONG below).
Every point is labelled 177B and the smallest, 96 GPUs, is the 177B row's TP 8 x PP 6 with DP 2, so every
point is taken as that row's layout with DP = GPUs / 48, the rule's settings as above.
Usage: tools/validate/megatron_table.py [--sgai build/tools/sgai] [--keep DIR]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "..", "shared", "data", "training", "megatron-core-h100-weak-scaling.csv")
PLATFORM = os.path.join(ROOT, "platforms", "dgx-h100-superpod.json")

# Megatron-Core's strong scaling (README, "We also strong scaled the standard GPT-3 model ... from 96 H100
# GPUs to 4608 GPUs, using the same batch size of 1152 sequences throughout ... a reduction in MFU from 47%
# to 42%"): (GPUs, aggregate PFLOP/s) read from images/strong_scaling.png at commit f2e5db4 (4737 x 2125
# pixels). Each dot's centre, mapped through the figure's log axes calibrated on its grid lines (x: 100 at
# pixel 647.5, 1,000 at 2,993; y: 1,000 PFLOP/s at 593, 100 at 1,306), gives GPU counts within 0.4% of
# 96, 144, 288, 576, 1,152, 2,304, 3,072 and 4,608 (DP 2 to 96; those are taken) and MFUs of 46.9% at 96
# and 41.8% at 4,608 (the text's 47% and 42%); the 2,304-GPU point reads 1,001.3 PFLOP/s, the weak-scaling
# table's 997.2 for the same run (0.4%).
STRONG = [(96, 44.5), (144, 66.9), (288, 132.6), (576, 262.9), (1152, 517.6), (2304, 1001.3), (3072, 1304.5),
          (4608, 1905.8)]
STRONG_ROW = {"model": "177B", "attention_heads": "96", "hidden": "12288", "layers": "96", "tp": "8", "pp": "6",
              "global_batch": "1152"}


def description(row, layers_per_virtual, micro_batch=1):
    """The row as Megatron-LM's arguments, by the rule above (micro_batch: for the sensitivity)."""
    tp, pp = int(row["tp"]), int(row["pp"])
    d = {
        "num-layers": int(row["layers"]),
        "hidden-size": int(row["hidden"]),
        "num-attention-heads": int(row["attention_heads"]),
        "seq-length": 4096,
        "vocab-size": 131072,
        "untie-embeddings-and-output-weights": True,
        "micro-batch-size": micro_batch,
        "global-batch-size": int(row["global_batch"]),
        "tensor-model-parallel-size": tp,
        "pipeline-model-parallel-size": pp,
        "use-distributed-optimizer": True,
        "overlap-grad-reduce": True,
        "overlap-param-gather": True,
    }
    if tp > 1:
        d["sequence-parallel"] = True
        d["tp-comm-overlap"] = True
    if pp > 1 and layers_per_virtual:
        d["num-layers-per-virtual-pipeline-stage"] = layers_per_virtual
    return d


def predict(sgai, row, layers_per_virtual, work):
    name = "%s-%s" % (row["model"], layers_per_virtual or "none")
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(description(row, layers_per_virtual), f, indent=1)
    out = os.path.join(work, name + ".prediction.json")
    r = subprocess.run([sgai, "train", "predict", path, "--platform", PLATFORM, "--gpus", row["gpus"], "--json", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("sgai train predict failed for %s:\n%s%s" % (name, r.stdout, r.stderr))
    with open(out) as f:
        return json.load(f)


def start(doc, prefix):
    """What every training validation script starts with: its command line (--sgai, the binary to
    run) and a fresh work folder named from prefix. Returns (arguments, folder)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--sgai", default=os.path.join(ROOT, "build", "tools", "sgai"))
    return ap.parse_args(), tempfile.mkdtemp(prefix=prefix)


def run_prediction(sgai, d, platform, gpus, work, name, options=()):
    """Writes the description d into work, runs sgai train predict --json on it (with `options`, such
    as the run's --nccl-algo) and removes both files: (the prediction, None), or (None, the last line
    sgai printed) when it refused."""
    path = os.path.join(work, name + ".json")
    out = os.path.join(work, name + ".prediction.json")
    with open(path, "w") as f:
        json.dump(d, f, indent=1)
    r = subprocess.run([sgai, "train", "predict", path, "--platform", platform, "--gpus", str(gpus), "--json", out] +
                       list(options), capture_output=True, text=True)
    os.remove(path)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["?"])[-1]
    with open(out) as f:
        p = json.load(f)
    os.remove(out)
    return p, None


def shares(p, keys=("compute", "tp", "cp", "bubble", "dp", "optimizer")):
    """Where a prediction's iteration goes, as percentages: "76, 19, 0, 4, 1, 0"."""
    return ", ".join("%.0f" % (100 * p["breakdown_s"][k] / p["iteration_s"]) for k in keys)


class Comparison:
    """Measured figures against predicted ones, row by row, and the summary line."""

    def __init__(self):
        self.names, self.measured, self.predicted, self.errors = [], [], [], []

    def add(self, name, measured, predicted):
        """The row's relative error (predicted / measured - 1)."""
        self.names.append(name)
        self.measured.append(measured)
        self.predicted.append(predicted)
        self.errors.append(predicted / measured - 1)
        return self.errors[-1]

    def summary(self, of):
        e = self.errors
        worst = max(range(len(e)), key=lambda i: abs(e[i]))
        return "%d rows: mean absolute error %.1f%%, worst %s at %+.1f%%, Spearman rank correlation of the %s %.2f" % (
            len(e), 100 * sum(abs(x) for x in e) / len(e), self.names[worst], 100 * e[worst], of,
            spearman(self.measured, self.predicted))


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb)


def strong_scaling(sgai, work):
    """Megatron-Core's strong scaling (STRONG) beside sgai's predictions under the rule, and how much the
    MFU falls from the first point to the last under the rule's virtual stages, two and one."""
    print("Megatron-Core H100 strong scaling, 177B (TP 8, PP 6, batch 1152; measured: the README's figure) "
          "against sgai")
    print("%5s %3s %4s | %8s %8s %7s | %6s %6s | %s" % ("gpus", "dp", "m", "TFLOP/s", "sgai", "error", "MFU", "sgai",
                                                     "sgai's breakdown: compute, TP, bubble, DP, optimizer (%)"))
    layers, pp = int(STRONG_ROW["layers"]), int(STRONG_ROW["pp"])
    comparison, mfus = Comparison(), {}
    for label, lpv in (("rule", 1), ("v=2", layers // pp // 2), ("v=1", 0)):
        mfus[label] = []
        for gpus, pflops in STRONG:
            dp = gpus // (int(STRONG_ROW["tp"]) * pp)
            p, refused = run_prediction(sgai, description(STRONG_ROW, lpv), PLATFORM, gpus, work,
                                        "strong-%d-%s" % (gpus, label.replace("=", "")))
            if p is None:
                sys.exit("sgai train predict refused the 177B on %d GPUs: %s" % (gpus, refused))
            mfus[label].append(p["mfu"] * 100)
            if label != "rule":
                continue
            measured = pflops * 1000 / gpus
            err = comparison.add(str(gpus), measured, p["tflops_per_gpu"])
            print("%5d %3d %4d | %8.1f %8.1f %+6.1f%% | %5.1f%% %5.1f%% | %s" % (
                gpus, dp, int(STRONG_ROW["global_batch"]) // dp, measured, p["tflops_per_gpu"], 100 * err,
                100 * measured / (p["tflops_per_gpu"] / p["mfu"]), p["mfu"] * 100,
                shares(p, ("compute", "tp", "bubble", "dp", "optimizer"))))
    print(comparison.summary("per-GPU TFLOP/s"))
    fall = lambda xs: 100 * (xs[-1] / xs[0] - 1)
    figure = [pf * 1000 / g for g, pf in STRONG]
    print("MFU from %d to %d GPUs: measured 47%% -> 42%% (the README; %+.1f%% in the figure); sgai %s" % (
        STRONG[0][0], STRONG[-1][0], fall(figure), "; ".join(
            "%s (%s) %.1f%% -> %.1f%% (%+.1f%%)" % (label, what, m[0], m[-1], fall(m)) for (label, what), m in
            zip((("rule", "v=16"), ("v=2", "8 layers a virtual stage"), ("v=1", "1F1B")),
                (mfus["rule"], mfus["v=2"], mfus["v=1"])))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sgai", default=os.path.join(ROOT, "build", "tools", "sgai"))
    ap.add_argument("--keep", help="keep the descriptions and predictions in this folder")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(TABLE)))
    work = a.keep or tempfile.mkdtemp(prefix="sgai-megatron-")
    os.makedirs(work, exist_ok=True)
    print("Megatron-Core H100 weak scaling (measured) against sgai train predict on %s" % os.path.relpath(PLATFORM, ROOT))
    print("%-5s %5s %3s %3s %3s %6s | %8s %8s %7s | %6s %6s | %s" % (
        "model", "gpus", "tp", "pp", "v", "batch", "TFLOP/s", "sgai", "error", "MFU", "sgai",
        "sgai's breakdown: compute, TP, bubble, DP, optimizer (% of the iteration)"))
    errors, measured_mfu, predicted_mfu, sens, unaccounted = [], [], [], [], []
    for row in rows:
        pp, layers = int(row["pp"]), int(row["layers"])
        rule = 1 if pp > 1 else 0  # one layer per virtual stage: v = layers / PP
        p = predict(a.sgai, row, rule, work)
        meas = float(row["tflops_per_gpu"])
        err = p["tflops_per_gpu"] / meas - 1
        errors.append(err)
        measured_mfu.append(float(row["mfu_percent"]))
        predicted_mfu.append(p["mfu"] * 100)
        b = p["breakdown_s"]
        share = lambda k: 100 * b[k] / p["iteration_s"]
        # the measured iteration (the same FLOPs at the measured rate) less sgai's, over the micro-batches a
        # replica runs
        measured_s = p["tflops_per_gpu"] * p["iteration_s"] / meas
        micro = int(row["global_batch"]) // (int(row["gpus"]) // (int(row["tp"]) * pp))
        unaccounted.append("%s %+.0f ms (%d x %+.1f)" % (row["model"], 1000 * (measured_s - p["iteration_s"]), micro,
                                                       1000 * (measured_s - p["iteration_s"]) / micro))
        print("%-5s %5s %3s %3d %3d %6s | %8.1f %8.1f %+6.1f%% | %5.1f%% %5.1f%% | %.0f, %.0f, %.0f, %.0f, %.0f" % (
            row["model"], row["gpus"], row["tp"], pp, layers // pp if rule else 1, row["global_batch"], meas,
            p["tflops_per_gpu"], 100 * err, float(row["mfu_percent"]), p["mfu"] * 100,
            share("compute"), share("tp"), share("bubble"), share("dp"), share("optimizer")))
        if pp > 1:
            per_stage = layers // pp
            line = []
            for lpv, label in ((0, "v=1"), (per_stage // 2 if per_stage % 2 == 0 else None, "v=2"), (1, "v=%d" % per_stage)):
                if lpv is None:
                    line.append("%s: not possible (%d layers a stage)" % (label, per_stage))
                    continue
                q = p if lpv == 1 else predict(a.sgai, row, lpv, work)
                line.append("%s: %.1f TFLOP/s (%+.1f%%)" % (label, q["tflops_per_gpu"], 100 * (q["tflops_per_gpu"] / meas - 1)))
            sens.append("  %-5s %s" % (row["model"], "; ".join(line)))
    # the micro-batch size: the rule's 1, then 2 and 4 for every row alike
    by_size = {1: (errors, predicted_mfu)}
    mb_lines = []
    for mb in (2, 4):
        errs, mfus = [], []
        for row in rows:
            pp = int(row["pp"])
            q, refused = run_prediction(a.sgai, description(row, 1 if pp > 1 else 0, mb), PLATFORM, row["gpus"], work,
                                        "%s-mb%d" % (row["model"], mb))
            if q is None:
                errs.append(None)
                mfus.append(None)
                need = re.search(r"(stage \d+) needs ([0-9.]+ GB)", refused)
                mb_lines.append((row["model"], mb, "no fit (%s needs %s a GPU)" % need.groups() if need else refused))
                continue
            errs.append(q["tflops_per_gpu"] / float(row["tflops_per_gpu"]) - 1)
            mfus.append(q["mfu"] * 100)
            mb_lines.append((row["model"], mb, "%.1f TFLOP/s (%+.1f%%, MFU %.1f%%)" % (q["tflops_per_gpu"], 100 * errs[-1],
                                                                                    mfus[-1])))
        by_size[mb] = (errs, mfus)
    mae = sum(abs(e) for e in errors) / len(errors)
    worst = max(range(len(errors)), key=lambda i: abs(errors[i]))
    print("mean absolute error %.1f%%, worst %s at %+.1f%%, Spearman rank correlation of the MFUs %.2f" % (
        100 * mae, rows[worst]["model"], 100 * errors[worst], spearman(measured_mfu, predicted_mfu)))
    piped = [i for i, row in enumerate(rows) if int(row["pp"]) > 1]
    flat = [i for i in range(len(rows)) if i not in piped]
    print("Spearman of the MFUs over the %d pipelined rows %.2f, over the %d others %.2f" % (
        len(piped), spearman([measured_mfu[i] for i in piped], [predicted_mfu[i] for i in piped]), len(flat),
        spearman([measured_mfu[i] for i in flat], [predicted_mfu[i] for i in flat])))
    print("measured iteration less sgai's (micro-batches a replica x ms each): " + ", ".join(unaccounted))
    print("sensitivity to the virtual stages (the rule: one layer each):")
    for s in sens:
        print(s)
    print("sensitivity to the micro-batch size (the rule: 1; the rule's virtual stages):")
    for row, e, m in zip(rows, errors, predicted_mfu):
        line = ["mb=1: %.1f TFLOP/s (%+.1f%%, MFU %.1f%%)" % (float(row["tflops_per_gpu"]) * (1 + e), 100 * e, m)]
        line += ["mb=%d: %s" % (mb, text) for name, mb, text in mb_lines if name == row["model"]]
        print("  %-5s %s" % (row["model"], "; ".join(line)))
    for mb, (errs, mfus) in sorted(by_size.items()):
        fit = [i for i, x in enumerate(errs) if x is not None]
        print("  micro-batch %d for every row: %d rows fit, mean absolute error %.1f%%, Spearman of the MFUs %.2f" % (
            mb, len(fit), 100 * sum(abs(errs[i]) for i in fit) / len(fit),
            spearman([measured_mfu[i] for i in fit], [mfus[i] for i in fit])))
    strong_scaling(a.sgai, work)
    if not a.keep:
        for f in os.listdir(work):
            os.remove(os.path.join(work, f))
        os.rmdir(work)


if __name__ == "__main__":
    main()
