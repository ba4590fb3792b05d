#!/usr/bin/env python3
"""Collectives worked out at once against the step-by-step run, on random cases (issue 51).

Each case is a random network, a random system (algorithm per dimension, chunks, chunks in
flight, endpoint delay) and a random microbenchmark (collective, size, count), sometimes two jobs
sharing the network, each job starting after a random offset (a computation before its first
collective). The network is an ASTRA-sim network (1 or 2 dimensions of Ring, Switch or
FullyConnected: rings, tori, switches) or, for a quarter of the cases, an sgai platform: a two-level
fat tree of one-GPU nodes whose uplinks are oversubscribed 1:1, 2:1 or 4:1. `sgai replay` runs it
twice: as it is (collectives whose transfers have the network to themselves worked out at once,
those sharing links among themselves included) and with --step-by-step (every transfer on
SimGrid). Every collective's start and end must agree to 1e-6 (relative; collectives.csv prints
0.001 ns) or to 5 ns (SimGrid's 1 ns timing precision step by step: see relative()), and
ranks.csv's times too. Prints how many cases had every collective worked out at once, some, or
none (refused: the shortcut declined them), and the largest difference. Exit 1 on a difference
above the bound (with --check) or a failed run.

Usage: tools/validate/contended_equivalence.py [--sgai build/tools/sgai] [--cases 300] [--seed 1]
       [--check] [--keep DIR] [--jobs N]
"""
import argparse
import concurrent.futures
import copy
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading

KINDS = ["Ring", "Switch", "FullyConnected"]
ABSOLUTE_NS = 5.0
COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]
ALGORITHMS = ["ring", "direct", "halvingDoubling", "doubleBinaryTree"]


def random_fat_tree(rng):
    """(leaf nodes, leaf uplinks, leaves, node link Gb/s, uplink Gb/s): oversubscribed 1, 2 or 4 to 1."""
    down, up, leaves = rng.choice([2, 4]), rng.choice([1, 2]), rng.choice([2, 4])
    node_gbps = rng.choice([100, 200, 400])
    return (down, up, leaves, node_gbps, node_gbps * down / (up * rng.choice([1, 2, 4])))


def random_system(rng, algorithms):
    """The system keys both kinds of case draw: endpoint delay, chunks in flight, chunks, and the
    algorithms (one per dimension) for every collective."""
    system = {
        "endpoint-delay": rng.choice([0, 10, 20]),
        "active-chunks-per-dimension": rng.choice([1, 1, 1, 2]),
        "preferred-dataset-splits": rng.choice([1, 2, 4, 8]),
        "local-mem-bw": 50,
    }
    for c in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
        system[c + "-implementation"] = algorithms
    return system


def random_case(rng):
    if rng.random() < 0.25:
        return random_platform_case(rng)
    dims = []
    for _ in range(rng.choice([1, 1, 2])):
        kind = rng.choice(KINDS)
        npus = rng.choice([2, 4, 8]) if kind != "FullyConnected" else rng.choice([2, 3, 4])
        if kind == "Ring" and rng.random() < 0.3:
            npus = rng.choice([3, 5, 6, 7])
        dims.append((kind, npus, rng.choice([12.5, 25.0, 50.0, 100.0, 400.0]), rng.choice([100.0, 500.0, 1000.0, 2000.0])))
    collective = rng.choice(COLLECTIVES)
    algorithms = []
    for kind, npus, _, _ in dims:
        choices = ["ring", "direct"]
        if npus & (npus - 1) == 0 and collective != "all_to_all":
            choices.append("halvingDoubling")
        if collective == "all_reduce":
            choices.append("doubleBinaryTree")
        algorithms.append(rng.choice(choices))
    system = random_system(rng, algorithms)
    system.update({"scheduling-policy": "LIFO", "collective-optimization": rng.choice(["baseline", "localBWAware"]),
                   "boost-mode": 0})
    ranks = 1
    for _, npus, _, _ in dims:
        ranks *= npus
    jobs = 2 if ranks >= 4 and ranks % 2 == 0 and rng.random() < 0.5 else 1
    return {
        "offsets": random_offsets(rng, jobs),
        "dims": dims,
        "system": system,
        "collective": collective,
        # (64 KiB and up: a transfer of well under a nanosecond meets SimGrid's 1 ns timing precision
        # step by step, a difference of the lone-flow work-out that docs/replay.md describes)
        "size": rng.choice([65536, 1048576, 4194304, 16777216]),
        "count": rng.choice([1, 2, 3]),
        "ranks": ranks,
        "jobs": jobs,
    }


def random_offsets(rng, jobs):
    """Each job's start in whole microseconds: 0, or (half the time) 1 to 40."""
    return [rng.randint(1, 40) if rng.random() < 0.5 else 0 for _ in range(jobs)]


def random_platform_case(rng):
    tree = random_fat_tree(rng)
    collective = rng.choice(COLLECTIVES)
    ranks = tree[0] * tree[2]
    choices = ["ring", "direct"] + (["halvingDoubling"] if collective != "all_to_all" else [])
    algorithm = [rng.choice(choices)]
    jobs = 2 if rng.random() < 0.5 else 1
    return {
        "tree": tree,
        "system": random_system(rng, algorithm),
        "collective": collective,
        "size": rng.choice([65536, 1048576, 4194304]),
        "count": rng.choice([1, 2, 3]),
        "ranks": ranks,
        "jobs": jobs,
        "offsets": random_offsets(rng, jobs),
    }


def write_platform(case, folder):
    """The fat tree as an sgai platform (its catalogue beside it); returns its path."""
    down, up, leaves, node_gbps, up_gbps = case["tree"]
    with open(os.path.join(folder, "types.json"), "w") as f:
        json.dump({"sgai_catalogue": 1,
                   "gpu_types": {"G": {"peak_flops": {"fp16": "100Tf"}, "default_precision": "fp16",
                                       "memory_capacity": "16GiB", "memory_bandwidth": "1TBps",
                                       "idle_power": "50W", "max_power": "300W"}},
                   "node_types": {"A": {"gpus": [{"type": "G", "number": 1}]}}}, f)
    path = os.path.join(folder, "tree.json")
    with open(path, "w") as f:
        json.dump({"sgai_platform": 1, "name": "tree", "catalogues": ["types.json"], "granularity": "processor",
                   "clusters": [{"id": "c", "nodes": [{"type": "A", "number": down * leaves}],
                                 "topology": {"kind": "fat_tree", "levels": [
                                     {"down": down, "up": up,
                                      "link": {"bandwidth": "%gGbps" % node_gbps, "latency": "500ns"}},
                                     {"down": leaves, "up": 1,
                                      "link": {"bandwidth": "%gGbps" % up_gbps, "latency": "1us"}}]}}]}, f)
    return path


_TEMPLATES = {}  # (collective, size, count) -> rank 0's trace as JSON (the same for every rank count)
_TEMPLATES_LOCK = threading.Lock()


def add_offset(sgai, prefix, offset_us, folder, key):
    """Puts a computation of offset_us microseconds before rank 0's first node (its trace as JSON,
    edited, dejsonized): the job's first collective starts once every rank has come to it."""
    et = "%s.0.et" % prefix
    js = os.path.join(folder, "r0.json")
    with _TEMPLATES_LOCK:
        template = _TEMPLATES.get(key)
    if template is None:
        subprocess.run([sgai, "chakra", "jsonize", et, "--out", js], check=True, stdout=subprocess.DEVNULL)
        with open(js) as f:
            template = json.load(f)
        with _TEMPLATES_LOCK:
            _TEMPLATES[key] = template
    t = copy.deepcopy(template)
    first = t["nodes"][0]
    t["nodes"].insert(0, {"id": max(n["id"] for n in t["nodes"]) + 1, "name": "offset", "type": "COMP_NODE",
                          "duration_micros": offset_us, "attr": [{"name": "is_cpu_op", "bool_val": False}]})
    first["data_deps"] = first.get("data_deps", []) + [t["nodes"][0]["id"]]
    with open(js, "w") as f:
        json.dump(t, f)
    subprocess.run([sgai, "chakra", "dejsonize", js, "--out", et], check=True, stdout=subprocess.DEVNULL)
    os.remove(js)


def write_inputs(case, folder, sgai):
    system = os.path.join(folder, "sys.json")
    with open(system, "w") as f:
        json.dump(case["system"], f)
    per_job = case["ranks"] // case["jobs"]
    workloads = []
    for j in range(case["jobs"]):
        out = os.path.join(folder, "w%d" % j)
        subprocess.run([sgai, "chakra", "generate", "microbenchmark", "--collective", case["collective"], "--ranks",
                        str(per_job), "--size", str(case["size"]), "--count", str(case["count"]), "--out", out,
                        "--prefix", "w"], check=True, stdout=subprocess.DEVNULL)
        workloads.append(os.path.join(out, "w"))
        if case.get("offsets", [0] * case["jobs"])[j] > 0:
            add_offset(sgai, workloads[-1], case["offsets"][j], out, (case["collective"], case["size"], case["count"]))
    # interleaved jobs: job j on NPUs (GPUs) j, j + jobs, ...
    placement = [[j + case["jobs"] * k for k in range(per_job)] for j in range(case["jobs"])]
    if "tree" in case:
        args = ["--system", system, "--platform", write_platform(case, folder)]
        for w in workloads:
            args += ["--workload", w]
        args += ["--gpus"] + ["c-n%d-gpu0" % g for job in placement for g in job]
        return args
    net = os.path.join(folder, "net.yml")
    with open(net, "w") as f:
        f.write("topology: [ %s ]\n" % ", ".join(d[0] for d in case["dims"]))
        f.write("npus_count: [ %s ]\n" % ", ".join(str(d[1]) for d in case["dims"]))
        f.write("bandwidth: [ %s ]\n" % ", ".join(str(d[2]) for d in case["dims"]))
        f.write("latency: [ %s ]\n" % ", ".join(str(d[3]) for d in case["dims"]))
    args = ["--system", system, "--network", net]
    for j, w in enumerate(workloads):
        args += ["--workload", w]
        if case["jobs"] > 1:
            args += ["--npus", ",".join(str(g) for g in placement[j])]
    return args


def run(sgai, args, out, step_by_step):
    """(exit status, last error line, CPU seconds of this run alone)."""
    cmd = [sgai, "replay"] + args + ["--out", out] + (["--step-by-step"] if step_by_step else [])
    with tempfile.TemporaryFile(mode="w+") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().strip().splitlines()
    return p.returncode, lines[-1:] if p.returncode else [], usage.ru_utime + usage.ru_stime


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def relative(a, b):
    """The difference of two times in ns as a fraction of the larger, or 0 within kNs (SimGrid's
    1 ns timing precision: a latency left under 1 ns at any event of the run is paid at that event,
    step by step; a work-out sees only its own collective's events)."""
    a, b = float(a), float(b)
    return 0.0 if abs(a - b) <= ABSOLUTE_NS else abs(a - b) / max(abs(a), abs(b), 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sgai", default=os.path.join(os.path.dirname(__file__), "../../build/tools/sgai"))
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cases run at a time")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = a.keep or tempfile.mkdtemp(prefix="contended-")
    os.makedirs(work, exist_ok=True)
    counts = {"all": 0, "some": 0, "none": 0, "invalid": 0}
    worst, worst_case, failed = 0.0, None, 0
    cpu = {"default": 0.0, "step": 0.0}
    collectives = {"worked_out": 0, "total": 0, "sharing": 0}
    cases = [random_case(rng) for _ in range(a.cases)]

    def one(i):
        """Runs case i both ways; returns (outcome, at_once, total, sharing, worst, where, cpu1, cpu2, message)."""
        case = cases[i]
        folder = os.path.join(work, "case%d" % i)
        os.makedirs(folder, exist_ok=True)
        args = write_inputs(case, folder, a.sgai)
        rc1, err1, c1 = run(a.sgai, args, os.path.join(folder, "default"), False)
        rc2, err2, c2 = run(a.sgai, args, os.path.join(folder, "step"), True)
        if rc1 != rc2 or err1 != err2:
            return ("failed", 0, 0, 0, 0.0, None, 0, 0, "case %d: the two runs disagree on the input: %s / %s" % (i, err1, err2))
        if rc1 != 0:  # an input both refuse (a combination the model does not run)
            return ("invalid", 0, 0, 0, 0.0, None, 0, 0, None)
        d, s_ = os.path.join(folder, "default"), os.path.join(folder, "step")
        summary = json.load(open(os.path.join(d, "summary.json")))
        summary = summary.get("components", {}).get("replay", summary)  # (a platform's run nests it)
        at_once, total = summary["collectives_worked_out_at_once"], summary["collectives"]
        worst, where, message = 0.0, None, None
        for name, keys in (("collectives.csv", ("start_ns", "end_ns")), ("ranks.csv", None)):
            x, y = rows(os.path.join(d, name)), rows(os.path.join(s_, name))
            if len(x) != len(y):
                message = "case %d: %s has %d rows against %d" % (i, name, len(x), len(y))
                continue

            # (lines of one instant may come in another order: compare them sorted by their names
            # and times rounded to a nanosecond)
            def key(r):
                names = tuple(v for k, v in r.items() if not k.endswith("_ns") and not k.endswith("GBps"))
                return names + tuple(round(float(v)) for k, v in r.items() if k.endswith("_ns"))
            x.sort(key=key)
            y.sort(key=key)
            for rx, ry in zip(x, y):
                for k in (keys or [k for k in rx if k.endswith("_ns")]):
                    diff = relative(rx[k], ry[k])
                    if diff > worst:
                        worst, where = diff, "case %d %s %s: %s against %s" % (i, name, k, rx[k], ry[k])
        if not a.keep:
            shutil.rmtree(folder)
        outcome = "failed" if message else "all" if at_once == total else "some" if at_once > 0 else "none"
        return (outcome, at_once, total, summary["transfers_worked_out_sharing_links"], worst, where, c1, c2, message)

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(one, range(a.cases)))
    for outcome, at_once, total, sharing, diff, where, c1, c2, message in results:
        if message:
            print(message)
            failed += 1
            continue
        counts[outcome] += 1
        collectives["worked_out"] += at_once
        collectives["total"] += total
        collectives["sharing"] += sharing
        cpu["default"] += c1
        cpu["step"] += c2
        if diff > worst:
            worst, worst_case = diff, where
    valid = counts["all"] + counts["some"] + counts["none"]
    print("%d cases (%d inputs both runs refuse): every collective worked out at once in %d, some in %d, none in %d "
          "(refused: %.0f%%)" % (a.cases, counts["invalid"], counts["all"], counts["some"], counts["none"],
                                 100.0 * counts["none"] / max(valid, 1)))
    trees = [r[0] for c, r in zip(cases, results) if "tree" in c]
    print("of them on oversubscribed fat trees: %d (every collective worked out at once in %d, none in %d); "
          "jobs starting after an offset: %d" % (len(trees), trees.count("all"), trees.count("none"),
                                                 sum(1 for c in cases if any(o > 0 for o in c["offsets"]))))
    print("collectives worked out at once: %d of %d; their transfers that shared links: %d"
          % (collectives["worked_out"], collectives["total"], collectives["sharing"]))
    print("largest relative difference beyond %g ns: %.3g%s" % (ABSOLUTE_NS, worst, " (" + worst_case + ")" if worst_case else ""))
    print("CPU s: as is %.2f, step by step %.2f" % (cpu["default"], cpu["step"]))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    if failed or (a.check and worst > 1e-6):
        sys.exit(1)


if __name__ == "__main__":
    main()
