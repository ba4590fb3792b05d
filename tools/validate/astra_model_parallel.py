#!/usr/bin/python3
"""Model-parallel training iterations: sgai replay against ASTRA-sim 2.x, rank by rank (docs/validation.md).

Workloads: one iteration of a GPT-style model (`sgai chakra generate training`: 4 layers, hidden 2048,
sequence 1024, batch 16, 4 microbatches; 8 layers for 8 pipeline stages) on 32 ranks under seven
layouts of data (DP), tensor (TP) and pipeline (PP) parallelism, with the communicator groups the
generator writes (ASTRA-sim's format). Networks: the two 32-NPU multi-dimensional networks of ASTRA-sim's
inputs (hgx_h100_32gpu: [Switch 8, Ring 4]; tpu_v3_32_2dtorus: [Ring 4, Ring 8]) and two 3-D ones
(below). System: ASTRA-sim's hgx_h100_8gpu.json (ring, 4 chunks, 2 active, endpoint delay 1 ns,
local-mem-bw 3,350 GB/s, roofline at 700 TFLOP/s) without its local-memory tracking (which needs
trace attributes the generator does not write), ring in every dimension.

sgai runs with --congestion unaware, against ASTRA-sim's congestion-unaware backend (its
congestion-aware one takes one dimension only). Per rank: compute ("GPU time"), communication (the
union of the communication nodes' intervals, "Comm time") and wall time.

The reference figures in tools/validate/astra-sim/model_parallel_unaware.csv were produced by
ASTRA-sim itself (astra-sim 518bd51, analytical backend 599a047, built outside the repository as
../shared/peers/astra-sim.md says) with `astra_model_parallel.py peer BIN_DIR`.

Usage:
  tools/validate/astra_model_parallel.py [--sgai build/tools/sgai] [--check]
      prints, per network and layout, the largest relative error over the 32 ranks of compute,
      communication and wall time; --check exits 1 unless every communication and wall time is
      within 1% and every compute time within 0.01%.
  tools/validate/astra_model_parallel.py peer BIN_DIR   regenerate the reference CSV
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
DATA = os.path.join(ROOT, "..", "shared", "data", "astra-sim")
REF = os.path.join(ROOT, "tools", "validate", "astra-sim", "model_parallel_unaware.csv")
REMOTE_MEM = os.path.join(DATA, "examples/remote_memory/analytical/no_memory_expansion.json")
SYSTEM = os.path.join(DATA, "inputs/system/analytical/hgx_h100_8gpu.json")
NETWORKS = {
    "hgx_h100_32gpu": ("file", os.path.join(DATA, "inputs/network/hgx_h100_32gpu.yml")),
    "tpu_v3_32_2dtorus": ("file", os.path.join(DATA, "inputs/network/tpu_v3_32_2dtorus.yml")),
    "3d_ring_fc_switch": ("text", "topology: [ Ring, FullyConnected, Switch ]\nnpus_count: [ 2, 4, 4 ]\n"
                                  "bandwidth: [ 200.0, 100.0, 50.0 ]\nlatency: [ 500.0, 700.0, 1000.0 ]\n"),
    "3d_switch_switch_ring": ("text", "topology: [ Switch, Switch, Ring ]\nnpus_count: [ 4, 2, 4 ]\n"
                                      "bandwidth: [ 300.0, 100.0, 25.0 ]\nlatency: [ 500.0, 800.0, 2000.0 ]\n"),
}
# (dp, tp, pp, layers)
LAYOUTS = [(2, 8, 2, 4), (4, 4, 2, 4), (2, 4, 4, 4), (8, 2, 2, 4), (1, 8, 4, 4), (32, 1, 1, 4), (4, 1, 8, 8)]
IMPL_KEYS = ["all-reduce-implementation", "all-gather-implementation", "reduce-scatter-implementation",
             "all-to-all-implementation"]


def layout_name(layout):
    dp, tp, pp, _ = layout
    return f"dp{dp}_tp{tp}_pp{pp}"


def dims_of(network_text):
    m = re.search(r"npus_count:\s*\[([^\]]*)\]", network_text)
    return len([x for x in m.group(1).split(",") if x.strip()])


def prepare(work, sgai):
    """Writes the networks, one system per dimension count and every layout's trace; returns
    {network: (network path, system path)} and {layout: workload prefix}."""
    with open(SYSTEM) as f:
        base = json.load(f)
    for k in ("track-local-mem", "local-mem-trace-filename"):
        base.pop(k, None)
    nets = {}
    for name, (kind, value) in NETWORKS.items():
        if kind == "file":
            path = value
        else:
            path = os.path.join(work, name + ".yml")
            with open(path, "w") as f:
                f.write(value)
        with open(path) as f:
            n = dims_of(f.read())
        system = os.path.join(work, f"system_{n}d.json")
        if not os.path.exists(system):
            s = dict(base)
            for k in IMPL_KEYS:
                s[k] = ["ring"] * n
            with open(system, "w") as f:
                json.dump(s, f, indent=1)
        nets[name] = (path, system)
    traces = {}
    for layout in LAYOUTS:
        dp, tp, pp, layers = layout
        out = os.path.join(work, layout_name(layout))
        subprocess.run([sgai, "chakra", "generate", "training", "--layers", str(layers), "--hidden", "2048", "--seq",
                        "1024", "--batch", "16", "--dp", str(dp), "--tp", str(tp), "--pp", str(pp), "--microbatches",
                        "4", "--out", out], check=True, stdout=subprocess.DEVNULL)
        traces[layout_name(layout)] = os.path.join(out, "training")
    return nets, traces


def run_peer(bin_dir):
    exe = os.path.join(bin_dir, "AstraSim_Analytical_Congestion_Unaware")
    sgai = os.path.join(ROOT, "build", "tools", "sgai")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        nets, traces = prepare(work, sgai)
        for net, (network, system) in nets.items():
            for layout, prefix in traces.items():
                run_dir = os.path.join(work, "run")
                os.makedirs(run_dir, exist_ok=True)
                out = subprocess.run([exe, f"--workload-configuration={prefix}", f"--system-configuration={system}",
                                      f"--network-configuration={network}",
                                      f"--remote-memory-configuration={REMOTE_MEM}",
                                      f"--comm-group-configuration={prefix}.groups.json"],
                                     cwd=run_dir, capture_output=True, text=True, check=True).stdout
                figures = {}
                for m in re.finditer(r"sys\[(\d+)\], (Wall|GPU|Comm) time: (\d+)", out):
                    figures.setdefault(int(m.group(1)), {})[m.group(2)] = int(m.group(3))
                if len(figures) != 32:
                    sys.exit(f"ASTRA-sim gave {len(figures)} ranks for {net} {layout}")
                for rank in sorted(figures):
                    f = figures[rank]
                    rows.append([net, layout, rank, f["Wall"], f["GPU"], f["Comm"]])
    with open(REF, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["network", "layout", "rank", "wall_ns", "gpu_ns", "comm_ns"])
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {REF}")


def run_sgai(sgai, check):
    ref = {}
    with open(REF) as f:
        for row in csv.DictReader(f):
            ref[(row["network"], row["layout"], int(row["rank"]))] = row
    worst = {"compute": 0.0, "comm": 0.0, "wall": 0.0}
    with tempfile.TemporaryDirectory() as work:
        nets, traces = prepare(work, sgai)
        print(f"{'network':<22} {'layout':<14} {'ranks':>5} {'compute err':>12} {'comm err':>9} {'wall err':>9} "
              f"{'ASTRA comm ms':>14}")
        for net, (network, system) in nets.items():
            for layout, prefix in traces.items():
                out = os.path.join(work, "out")
                subprocess.run([sgai, "replay", "--workload", prefix, "--system", system, "--network", network,
                                "--comm-group", prefix + ".groups.json", "--congestion", "unaware", "--out", out],
                               check=True, stdout=subprocess.DEVNULL)
                errs = {"compute": 0.0, "comm": 0.0, "wall": 0.0}
                ranks, comm_ms = 0, 0.0
                with open(os.path.join(out, "ranks.csv")) as f:
                    for row in csv.DictReader(f):
                        a = ref[(net, layout, int(row["rank"]))]
                        ranks += 1
                        comm_ms = max(comm_ms, float(a["comm_ns"]) / 1e6)
                        for key, mine, theirs in (("compute", "compute_time_ns", "gpu_ns"),
                                                  ("comm", "comm_time_ns", "comm_ns"),
                                                  ("wall", "wall_time_ns", "wall_ns")):
                            e = abs(float(row[mine]) / float(a[theirs]) - 1)
                            errs[key] = max(errs[key], e)
                for k in errs:
                    worst[k] = max(worst[k], errs[k])
                print(f"{net:<22} {layout:<14} {ranks:>5} {errs['compute']:>11.4%} {errs['comm']:>8.3%} "
                      f"{errs['wall']:>8.3%} {comm_ms:>14.3f}")
    print(f"largest errors over every rank: compute {worst['compute']:.4%}, communication {worst['comm']:.3%}, "
          f"wall {worst['wall']:.3%}")
    if check and (worst["compute"] > 1e-4 or worst["comm"] > 0.01 or worst["wall"] > 0.01):
        sys.exit("outside the bounds: compute 0.01%, communication and wall 1%")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "peer":
        if len(sys.argv) != 3:
            sys.exit("usage: astra_model_parallel.py peer BIN_DIR")
        run_peer(sys.argv[2])
        return
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sgai", default=os.path.join(ROOT, "build", "tools", "sgai"))
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    run_sgai(a.sgai, a.check)


if __name__ == "__main__":
    main()
