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

Usage: tools/validate/gpu_jct_reference.py [TRACE.csv] [--gpus 8 64] [--check]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?", default=TRACE)
    ap.add_argument("--gpus", type=int, nargs="+", default=[8, 64])
    ap.add_argument("--check", action="store_true")
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
        if bad:
            sys.exit("; ".join(bad))


if __name__ == "__main__":
    main()
