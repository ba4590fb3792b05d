#!/usr/bin/python3
"""Count-based reference for GPU-cluster scheduling (issue: training jobs on shared GPU clusters).

A cluster is a count of GPUs; a job holds its GPUs for its trace duration (no network, no placement),
as Tiresias' simulator does with its "count" placement (SymbioticLab/Tiresias, simulator/run_sim.py,
read to understand; this is written anew). sgai's workload manager, when it runs the same trace with
its GPU jobs, is compared with these mean job completion times (JCT = end - submission).

Policies:
  fifo        strict FIFO (YARN-CS): jobs start in submission order; the first that does not fit
              blocks the others
  fifo-ff     FIFO first-fit: in submission order, any waiting job that fits starts
  sjf         shortest job first (oracle: the duration is known), non-preemptive, first-fit
  srtf        shortest remaining time first, preemptive at every arrival and end (Tiresias'
              "shortest"), first-fit
  las2d       Tiresias' 2D-LAS: priority queues by attained service in GPU-seconds (executed time x
              GPUs; 2 queues, a job leaves the first at 3,250 GPU-s), FIFO by entry within a queue,
              first-fit, preemptive at every arrival, end and queue change

With --sgai BIN, the same trace also runs through sgai's GPU-cluster manager (sgai workload tiresias,
then sgai batch gpu, placement pack) on platforms/tiresias-p100-2node.json (8 GPUs) and
platforms/tiresias-p100.json (64 GPUs), each job iterating its compute and its gradient all-reduce on
the platform's links; the table gives sgai's mean JCT beside the reference's, and --check also asks
sgai's to be within 15% of the reference on 8 GPUs, 178.4 s within 1% on 64, and SJF <= 2D-LAS <
strict FIFO with 2D-LAS / FIFO <= 0.8 on 8.

Usage: tools/validate/gpu_jct_reference.py [TRACE.csv] [--gpus 8 64] [--check] [--sgai BIN]
  TRACE.csv defaults to ../shared/data/ml-clusters/tiresias/simulator/60_job.csv (job_id, num_gpu,
  submit_time, iterations, model_name, duration, interval). --check exits 1 unless, on 64 GPUs,
  every policy's mean JCT equals the mean duration (nothing queues) and, on 8 GPUs,
  sjf <= las2d < fifo with las2d / fifo <= 0.8.
"""
import argparse
import csv
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACE = os.path.join(ROOT, "..", "shared", "data", "ml-clusters", "tiresias", "simulator", "60_job.csv")
POLICIES = ["fifo", "fifo-ff", "sjf", "srtf", "las2d"]
LAS_THRESHOLD = 3250.0  # GPU-seconds


def read_trace(path):
    jobs = []
    with open(path, newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:
                j = {"id": int(row["job_id"]), "gpus": int(row["num_gpu"]), "submit": float(row["submit_time"]),
                     "duration": float(row["duration"])}
            except (KeyError, TypeError, ValueError) as e:
                sys.exit(f"{path}: line {line}: a missing or malformed field ({e})")
            if j["gpus"] < 1 or j["submit"] < 0 or j["duration"] <= 0:
                sys.exit(f"{path}: line {line}: num_gpu >= 1, submit_time >= 0 and duration > 0 needed")
            jobs.append(j)
    return sorted(jobs, key=lambda j: (j["submit"], j["id"]))


def simulate(jobs, gpus, policy):
    """Returns {job id: completion time}."""
    if any(j["gpus"] > gpus for j in jobs):
        sys.exit(f"a job asks for more than the cluster's {gpus} GPUs")
    arrivals = list(jobs)
    waiting, running, done = [], [], {}
    state = {j["id"]: {"left": j["duration"], "attained": 0.0, "queue": 0, "entered": j["submit"], "seq": i}
             for i, j in enumerate(jobs)}
    now, seq = 0.0, len(jobs)
    preemptive = policy in ("srtf", "las2d")
    while arrivals or waiting or running:
        # the next event: an arrival, an end, or (2D-LAS) a running job crossing the threshold
        t_next = arrivals[0]["submit"] if arrivals else float("inf")
        for j in running:
            s = state[j["id"]]
            t_next = min(t_next, now + s["left"])
            if policy == "las2d" and s["queue"] == 0:
                t_next = min(t_next, now + (LAS_THRESHOLD - s["attained"]) / j["gpus"])
        dt = t_next - now
        for j in running:
            s = state[j["id"]]
            s["left"] -= dt
            s["attained"] += dt * j["gpus"]
        now = t_next
        for j in list(running):
            s = state[j["id"]]
            if s["left"] <= 1e-9:
                running.remove(j)
                done[j["id"]] = now
            elif policy == "las2d" and s["queue"] == 0 and s["attained"] >= LAS_THRESHOLD - 1e-9:
                s["queue"], s["entered"], s["seq"] = 1, now, seq
                seq += 1
        while arrivals and arrivals[0]["submit"] <= now + 1e-9:
            waiting.append(arrivals.pop(0))
        # decide who runs
        if preemptive:
            candidates = running + waiting
            if policy == "srtf":
                candidates.sort(key=lambda j: (state[j["id"]]["left"], j["submit"], j["id"]))
            else:
                candidates.sort(key=lambda j: (state[j["id"]]["queue"], state[j["id"]]["entered"],
                                               state[j["id"]]["seq"]))
            free, chosen = gpus, []
            for j in candidates:
                if j["gpus"] <= free:
                    chosen.append(j)
                    free -= j["gpus"]
            running = chosen
            waiting = [j for j in candidates if j not in chosen]
            waiting.sort(key=lambda j: (j["submit"], j["id"]))
        else:
            free = gpus - sum(j["gpus"] for j in running)
            order = sorted(waiting, key=lambda j: (j["duration"], j["submit"], j["id"])) if policy == "sjf" else waiting
            for j in list(order):
                if j["gpus"] <= free:
                    running.append(j)
                    waiting.remove(j)
                    free -= j["gpus"]
                elif policy == "fifo":
                    break
    return done


def mean_jct(jobs, done):
    return sum(done[j["id"]] - j["submit"] for j in jobs) / len(jobs)


SGAI_RUNS = [("fifo", ["--order", "fifo"]), ("fifo-ff", ["--order", "fifo", "--backfill"]),
             ("sjf", ["--order", "sjf"]), ("las2d", ["--order", "las"])]
PLATFORMS = {8: "tiresias-p100-2node.json", 64: "tiresias-p100.json"}


def compare_sgai(sgai, trace, results, mean_duration):
    """Runs sgai's manager on each platform and policy; prints the table; returns what is off."""
    import json
    import subprocess
    import tempfile
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        w = os.path.join(tmp, "w.json")
        subprocess.run([sgai, "workload", "tiresias", trace, "--out", w], check=True, stdout=subprocess.DEVNULL)
        print(f"\nsgai batch gpu (placement pack): mean JCT, s (reference, sgai, error)")
        for gpus, plat in PLATFORMS.items():
            line = f"{gpus:>5}"
            got = {}
            for name, args in SGAI_RUNS:
                out = os.path.join(tmp, f"o-{gpus}-{name}")
                subprocess.run([sgai, "batch", "gpu", "--platform", os.path.join(ROOT, "platforms", plat),
                                "--workload", w, "--placement", "pack", "--out", out] + args,
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                with open(os.path.join(out, "summary.json")) as f:
                    got[name] = json.load(f)["components"]["gpu_cluster"]["mean_jct_s"]
                ref = results.get(gpus, {}).get(name)
                err = (got[name] - ref) / ref if ref else float("nan")
                line += f"  {name} {ref:.1f} {got[name]:.1f} {100 * err:+.1f}%"
                if gpus == 64 and abs(got[name] - mean_duration) > 0.01 * mean_duration:
                    bad.append(f"sgai {name} on 64 GPUs: {got[name]:.1f} s, not {mean_duration:.1f} within 1%")
                if gpus == 8 and abs(err) > 0.15:
                    bad.append(f"sgai {name} on 8 GPUs: {got[name]:.1f} s, {100 * err:+.1f}% from the reference")
            print(line)
            if gpus == 8 and not (got["sjf"] <= got["las2d"] < got["fifo"] and got["las2d"] / got["fifo"] <= 0.8):
                bad.append(f"sgai on 8 GPUs: sjf {got['sjf']:.1f}, las2d {got['las2d']:.1f}, fifo {got['fifo']:.1f}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?", default=TRACE)
    ap.add_argument("--gpus", type=int, nargs="+", default=[8, 64])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--sgai", help="the sgai binary: run the trace through its GPU-cluster manager too")
    a = ap.parse_args()
    if not os.path.exists(a.trace):
        sys.exit(f"no {a.trace}")
    jobs = read_trace(a.trace)
    mean_duration = sum(j["duration"] for j in jobs) / len(jobs)
    print(f"{a.trace}: {len(jobs)} jobs, mean duration {mean_duration:.1f} s")
    print(f"{'GPUs':>5} " + " ".join(f"{p:>9}" for p in POLICIES))
    results = {}
    for g in a.gpus:
        results[g] = {p: mean_jct(jobs, simulate(jobs, g, p)) for p in POLICIES}
        print(f"{g:>5} " + " ".join(f"{results[g][p]:>9.1f}" for p in POLICIES))
    if a.check:
        bad = []
        if 64 in results and any(abs(v - mean_duration) > 1e-6 for v in results[64].values()):
            bad.append("on 64 GPUs some policy queues")
        if 8 in results:
            r = results[8]
            if not (r["sjf"] <= r["las2d"] < r["fifo"] and r["las2d"] / r["fifo"] <= 0.8):
                bad.append(f"on 8 GPUs: sjf {r['sjf']:.1f}, las2d {r['las2d']:.1f}, fifo {r['fifo']:.1f}")
        if a.sgai:
            bad += compare_sgai(a.sgai, a.trace, results, mean_duration)
        if bad:
            sys.exit("; ".join(bad))
    elif a.sgai:
        compare_sgai(a.sgai, a.trace, results, mean_duration)


if __name__ == "__main__":
    main()
