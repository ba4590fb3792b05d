#!/usr/bin/python3
"""sgai replay against ASTRA-sim 2.x's analytical backends, cell by cell (docs/validation.md).

Grid (ASTRA-sim's inputs, unchanged workloads):
  microbenchmarks: all_reduce, all_gather, reduce_scatter, all_to_all (ASTRA-sim's 1 MB files of
    examples/workload/microbenchmarks) x 4, 8, 16 NPUs x Ring, Switch, FullyConnected (one dimension,
    50 GB/s, 500 ns) x ring, direct, halvingDoubling, doubleBinaryTree, with two system files:
    Ring_4chunks.json (4 chunks, 1 active, local-mem-bw 1,600 GB/s) and rt_template's system_cfg.json
    (local-mem-bw 50 GB/s), the four *-implementation keys set to the algorithm;
  multi-dimensional: the four collectives at 64 KiB, 1 MiB and 64 MiB (sgai chakra generate
    microbenchmark, byte-identical to ASTRA-sim's own generator) on every multi-dimensional network
    of inputs/network (hgx_h100_16gpu, hgx_h100_32gpu, tpu_v3_32_2dtorus) and a [Ring, Switch] 4 x 4
    network, ring in every dimension, Ring_4chunks otherwise.

The reference figures in tools/validate/astra-sim/*.csv were produced by ASTRA-sim itself (astra-sim
518bd51, analytical backend 599a047), built outside the repository as ../shared/peers/astra-sim.md
says, with `astra_grid.py peer BIN_DIR` (the simulated time is the largest "finished, N cycles" over
the ranks). halvingDoubling has no all-to-all in ASTRA-sim (it exits 1): those cells are left out.

Usage:
  tools/validate/astra_grid.py [--sgai build/tools/sgai] [--check]
      sgai with --congestion unaware against ASTRA-sim's congestion-unaware figures, and with
      --congestion aware (the default) against its congestion-aware ones; --check exits 1 unless
      >= 90% of the microbenchmark cells are within 5% (unaware) and every multi-dimensional one
      within 1%.
  tools/validate/astra_grid.py peer BIN_DIR   regenerate the reference CSVs from ASTRA-sim's binaries
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data", "astra-sim")
REF = os.path.join(ROOT, "tools", "validate", "astra-sim")
COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]
NPUS = [4, 8, 16]
TOPOLOGIES = ["Ring", "Switch", "FullyConnected"]
ALGORITHMS = ["ring", "direct", "halvingDoubling", "doubleBinaryTree"]
SYSTEMS = {
    "Ring_4chunks": os.path.join(DATA, "examples/system/native_collectives/Ring_4chunks.json"),
    "rt_template": os.path.join(DATA, "tests/rt_template/inputs/system_cfg.json"),
}
IMPL_KEYS = ["all-reduce-implementation", "all-gather-implementation", "reduce-scatter-implementation",
             "all-to-all-implementation"]
SIZES = [("64KiB", 65536), ("1MiB", 1048576), ("64MiB", 67108864)]
OWN_2D = "topology: [ Ring, Switch ]\nnpus_count: [ 4, 4 ]\nbandwidth: [ 200.0, 25.0 ]\nlatency: [ 500.0, 2000.0 ]\n"
REMOTE_MEM = os.path.join(DATA, "examples/remote_memory/analytical/no_memory_expansion.json")


def write_system(base, algos, path):
    with open(base) as f:
        j = json.load(f)
    for k in IMPL_KEYS:
        j[k] = list(algos)
    with open(path, "w") as f:
        json.dump(j, f, indent=4)
    return path


def write_network(topology, npus, path):
    with open(path, "w") as f:
        f.write(f"topology: [ {topology} ]\nnpus_count: [ {npus} ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n")
    return path


def npus_count(path):
    m = re.search(r"^\s*npus_count\s*:\s*\[([^\]]*)\]", open(path).read(), re.M)
    return [int(x) for x in m.group(1).split(",") if x.strip()]


def multidim_networks(work):
    nets = []
    d = os.path.join(DATA, "inputs/network")
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if name.endswith(".yml") and "tbd" not in open(p).read() and len(npus_count(p)) > 1:
            nets.append((name[:-4], p))
    own = os.path.join(work, "own_ring4_switch4.yml")
    with open(own, "w") as f:
        f.write(OWN_2D)
    nets.append(("own_ring4_switch4", own))
    return nets


def workload(sgai, work, collective, ranks, size):
    d = os.path.join(work, f"{collective}_{ranks}_{size}")
    if not os.path.isdir(d):
        subprocess.run([sgai, "chakra", "generate", "microbenchmark", "--collective", collective, "--ranks",
                        str(ranks), "--size", size, "--out", d, "--prefix", collective], check=True,
                       stdout=subprocess.DEVNULL)
    return os.path.join(d, collective)


def cells(work, sgai):
    """(kind, key, workload prefix, system, network) of every cell."""
    for c in COLLECTIVES:
        for n in NPUS:
            wl = os.path.join(DATA, f"examples/workload/microbenchmarks/{c}/{n}npus_1MB/{c}")
            for t in TOPOLOGIES:
                net = write_network(t, n, os.path.join(work, f"net_{t}_{n}.yml"))
                for a in ALGORITHMS:
                    for sname, sbase in SYSTEMS.items():
                        sysj = write_system(sbase, [a], os.path.join(work, f"sys_{sname}_{a}.json"))
                        yield "micro", (c, str(n), t, a, sname), wl, sysj, net
    for name, net in multidim_networks(work):
        dims = npus_count(net)
        ranks = math.prod(dims)
        sysj = write_system(SYSTEMS["Ring_4chunks"], ["ring"] * len(dims),
                            os.path.join(work, f"sys_ring_x{len(dims)}.json"))
        for c in COLLECTIVES:
            for size, nbytes in SIZES:
                yield "multi", (name, c, str(nbytes)), workload(sgai, work, c, ranks, size), sysj, net


def run_sgai(sgai, work, wl, sysj, net, congestion):
    p = subprocess.run([sgai, "replay", "--workload", wl, "--system", sysj, "--network", net, "--congestion",
                        congestion, "--out", os.path.join(work, "out")], capture_output=True, text=True)
    m = re.search(r"simulated (\d+) ns", p.stdout)
    return int(m.group(1)) if m else None


def run_astra(binary, work, wl, sysj, net):
    d = tempfile.mkdtemp(dir=work)
    p = subprocess.run([binary, f"--workload-configuration={wl}", f"--system-configuration={sysj}",
                        f"--network-configuration={net}", f"--remote-memory-configuration={REMOTE_MEM}"],
                       cwd=d, capture_output=True, text=True)
    shutil.rmtree(d, ignore_errors=True)
    done = [int(x) for x in re.findall(r"finished, (\d+) cycles", p.stdout + p.stderr)]
    if p.returncode != 0 or not done:
        return "", f"exit {p.returncode}"
    return max(done), ""


def peer(bin_dir, sgai):
    work = tempfile.mkdtemp()
    try:
        rows = {"unaware": [], "aware": []}
        multi = []
        for kind, key, wl, sysj, net in cells(work, sgai):
            for backend in (["unaware", "aware"] if kind == "micro" else ["unaware"]):
                binary = os.path.join(bin_dir, "AstraSim_Analytical_Congestion_" + backend.capitalize())
                ns, note = run_astra(binary, work, wl, sysj, net)
                (rows[backend] if kind == "micro" else multi).append(list(key) + [ns] + ([note] if kind == "micro" else []))
        os.makedirs(REF, exist_ok=True)
        for backend, r in rows.items():
            with open(os.path.join(REF, f"microbench_{backend}.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["collective", "npus", "topology", "algorithm", "system", "ns", "note"])
                w.writerows(r)
        with open(os.path.join(REF, "multidim_unaware.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["network", "collective", "bytes", "ns"])
            w.writerows(m for m in multi if m[-1] != "")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def read_ref(name, nkey):
    with open(os.path.join(REF, name)) as f:
        r = csv.reader(f)
        next(r)
        return {tuple(row[:nkey]): int(row[nkey]) for row in r if row[nkey]}


def compare(sgai, check):
    ref = {"unaware": read_ref("microbench_unaware.csv", 5), "aware": read_ref("microbench_aware.csv", 5)}
    multi_ref = read_ref("multidim_unaware.csv", 3)
    work = tempfile.mkdtemp()
    stats = {}
    multi_worst = 0.0
    try:
        print(f"{'collective':15s} {'npus':>4s} {'topology':15s} {'algorithm':17s} {'system':13s} "
              f"{'unaware':>9s} {'sgai':>9s} {'diff':>8s} {'aware':>9s} {'sgai':>9s} {'diff':>8s}")
        for kind, key, wl, sysj, net in cells(work, sgai):
            if kind == "micro":
                if key not in ref["unaware"]:
                    continue  # ASTRA-sim cannot run it (halvingDoubling all-to-all)
                line = " ".join(f"{k:{w}s}" for k, w in zip(key, ["15", ">4", "15", "17", "13"]))
                for backend in ("unaware", "aware"):
                    theirs = ref[backend][key]
                    ours = run_sgai(sgai, work, wl, sysj, net, backend)
                    if ours is None:
                        sys.exit(f"sgai replay failed on {key}")
                    d = 100 * (ours - theirs) / theirs
                    s = stats.setdefault((backend, key[4]), [0, 0])
                    s[0] += abs(d) <= 5
                    s[1] += 1
                    line += f" {theirs:9d} {ours:9d} {d:+7.2f}%"
                print(line)
            else:
                theirs = multi_ref[key]
                ours = run_sgai(sgai, work, wl, sysj, net, "unaware")
                d = 100 * (ours - theirs) / theirs
                multi_worst = max(multi_worst, abs(d))
                print(f"{key[0]:20s} {key[1]:15s} {key[2]:>9s} unaware {theirs:10d} sgai {ours:10d} {d:+8.2f}%")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for (backend, system), (ok, n) in sorted(stats.items()):
        print(f"microbenchmarks, {backend:7s} backends, {system:12s}: {ok}/{n} cells within 5% ({100 * ok / n:.1f}%)")
    ok = sum(v[0] for k, v in stats.items() if k[0] == "unaware")
    n = sum(v[1] for k, v in stats.items() if k[0] == "unaware")
    print(f"microbenchmarks against congestion-unaware ASTRA-sim, both systems: {ok}/{n} within 5% "
          f"({100 * ok / n:.1f}%)")
    print(f"multi-dimensional (unaware): largest difference {multi_worst:.2f}% over {len(multi_ref)} cells")
    if check and (ok < 0.9 * n or multi_worst > 1.0):
        sys.exit("below the thresholds (90% of the cells within 5%; multi-dimensional within 1%)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="compare", choices=["compare", "peer"])
    ap.add_argument("bin_dir", nargs="?")
    ap.add_argument("--sgai", default=os.path.join(ROOT, "build", "tools", "sgai"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if not os.path.isdir(DATA):
        sys.exit(f"no {DATA}: the comparison needs the shared data")
    if a.mode == "peer":
        if not a.bin_dir:
            sys.exit("peer needs the folder of ASTRA-sim's AstraSim_Analytical_Congestion_* binaries")
        peer(a.bin_dir, a.sgai)
    else:
        compare(a.sgai, a.check)


if __name__ == "__main__":
    main()
