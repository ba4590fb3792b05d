#!/usr/bin/env python3
"""Plots the output folder of `sgai batch run` (or of an experiment with a batch component).

Writes, beside the CSV files (every input is read and checked first; the charts are drawn under
temporary names, NAME.tmp-PID, and renamed into place only when all are drawn):
  gantt.png            jobs on cores (allocated_resources) over time, coloured by final state; for a
                       GPU-cluster run (gpu_allocations.csv), jobs on GPUs, each time they held them,
                       preempted spans apart
  links.png            GPU-cluster runs (links.csv): the 20 links that carried the most bytes
  job_energy.png       GPU-cluster runs: each job's GPU energy (consumed_energy), the 30 largest
  utilization.png      busy cores and flop/s in use over time (machine_states.csv)
  queue.png            queued and running jobs over time (machine_states.csv)
  lifecycles.png       each job's waiting and running spans, in submission order
  overutilization.png  memory-bandwidth over-utilization spans per processor

Usage: batch_plot.py OUTDIR
"""
import csv
import math
import os
import signal
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch
except ImportError:
    print("sgai: error: batch plot needs matplotlib (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
    sys.exit(1)

STATE_COLOURS = {
    "COMPLETED_SUCCESSFULLY": "#4c72b0",
    "COMPLETED_WALLTIME_REACHED": "#dd8452",
    "COMPLETED_FAILED": "#c44e52",
    "COMPLETED_KILLED": "#8172b3",
}


TEMPORARIES = []  # charts drawn but not yet renamed into place


def remove_temporaries():
    for t in TEMPORARIES:
        try:
            os.remove(t)
        except OSError:
            pass
    TEMPORARIES.clear()


def fail(msg):
    remove_temporaries()
    print(f"sgai: error: {msg}", file=sys.stderr)
    sys.exit(1)


def on_signal(signum, frame):
    remove_temporaries()
    os._exit(128 + signum)


def read_csv(path, required):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = reader.fieldnames
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    except UnicodeDecodeError as e:
        fail(f"{path}: byte offset {e.start}: not UTF-8 text: expected the CSV written by sgai batch run")
    except csv.Error as e:
        fail(f"{path}: not CSV: {e}")
    if not header:
        fail(f"{path}: empty: expected a header line with {', '.join(required)}")
    missing = [c for c in required if c not in header]
    if missing:
        fail(f"{path}: line 1: missing columns {', '.join(missing)}")
    for i, r in enumerate(rows, start=2):
        if None in r or any(r[c] is None for c in required):
            fail(f"{path}: line {i}: {len(header)} columns expected")
    return rows


def number(path, line, row, key):
    try:
        v = float(row[key])
    except (TypeError, ValueError):
        fail(f"{path}: line {line}: column {key}: {row[key]!r} is not a number")
    if not math.isfinite(v) or abs(v) > 1e15:
        fail(f"{path}: line {line}: column {key}: {row[key]!r} is not a finite time or count (at most 1e15)")
    return v


def intervals(text):
    """'1-3 5' -> [(1, 3), (5, 5)]"""
    out = []
    for part in text.split():
        a, _, b = part.partition("-")
        first, last = int(a), int(b or a)
        if not 0 <= first <= last < 1 << 32:
            raise ValueError(part)
        out.append((first, last))
    return out


def save(fig, path):
    temp = f"{path}.tmp-{os.getpid()}"
    TEMPORARIES.append(temp)
    try:
        fig.tight_layout()
        fig.savefig(temp, dpi=120, format="png")
    except OSError as e:
        fail(f"{path}: cannot write: {e.strerror}")
    except (ValueError, OverflowError, MemoryError) as e:
        fail(f"{path}: cannot draw this chart: {e}")
    plt.close(fig)


def spans_of(path_csv, line, row, column):
    try:
        return intervals(row[column])
    except ValueError:
        fail(f"{path_csv}: line {line}: {column} {row[column]!r} are not intervals")


def draw_gantt(out, bars, ylabel, title, legend):
    """bars: (start, finish, [(first, last)], colour); legend: [(colour, label)]."""
    fig, ax = plt.subplots(figsize=(12, 6))
    polys, colours, top = [], [], 0
    for s, f, spans, colour in bars:
        for a, b in spans:
            polys.append([(s, a), (f, a), (f, b + 1), (s, b + 1)])
            colours.append(colour)
            top = max(top, b + 1)
    ax.add_collection(PolyCollection(polys, facecolors=colours, edgecolors="black", linewidths=0.2))
    ax.autoscale()
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, max(top, 1))
    ax.set_title(title(len(polys)))
    ax.legend(handles=[Patch(color=c, label=l) for c, l in legend], loc="upper right", fontsize=8)
    save(fig, out)


def gantt(jobs, path_csv, out):
    bars = []
    for i, j in enumerate(jobs, start=2):
        if not j["allocated_resources"] or j["starting_time"] in ("", "-1"):
            continue
        bars.append((number(path_csv, i, j, "starting_time"), number(path_csv, i, j, "finish_time"),
                     spans_of(path_csv, i, j, "allocated_resources"),
                     STATE_COLOURS.get(j["final_state"], "#937860")))
    names = {v: k for k, v in STATE_COLOURS.items()}
    used = sorted({b[3] for b in bars})
    draw_gantt(out, bars, "core", lambda n: f"Gantt chart: {n} allocations",
               [(c, names.get(c, "other")) for c in used])


def gpu_gantt(allocs, path_csv, out):
    colour = {"completed": "#4c72b0", "preempted": "#dd8452"}
    bars = []
    for i, a in enumerate(allocs, start=2):
        if a["ended"] not in colour:
            fail(f"{path_csv}: line {i}: ended {a['ended']!r} is neither completed nor preempted")
        bars.append((number(path_csv, i, a, "start"), number(path_csv, i, a, "end"), spans_of(path_csv, i, a, "gpus"),
                     colour[a["ended"]]))
    draw_gantt(out, bars, "GPU", lambda n: f"GPU Gantt chart: {len(allocs)} allocations",
               [(c, f"ended {k}") for k, c in colour.items()])


def horizontal_bars(out, rows, xlabel, title, colour):
    """rows: (value, label), drawn largest first from the top."""
    fig, ax = plt.subplots(figsize=(10, 0.3 * max(len(rows), 4) + 1.5))
    ax.barh([name for _, name in reversed(rows)], [v for v, _ in reversed(rows)], color=colour)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.tick_params(axis="y", labelsize=7)
    save(fig, out)


def busiest_links(links, path_csv, out, top=20):
    rows = []
    for i, l in enumerate(links, start=2):
        try:
            b = float(l["bytes"])
        except ValueError:
            b = float("nan")
        if not math.isfinite(b) or b < 0:
            fail(f"{path_csv}: line {i}: column bytes: {l['bytes']!r} is not a byte count")
        rows.append((b / 1e9, l["link"]))
    rows = sorted(rows, reverse=True)[:top]
    horizontal_bars(out, rows, "GB carried", f"The {len(rows)} busiest links", "#4c72b0")


def job_energy(jobs, path_csv, out, top=30):
    rows = [(number(path_csv, i, j, "consumed_energy") / 1e6, j["job_id"]) for i, j in enumerate(jobs, start=2)]
    rows = sorted(rows, reverse=True)[:top]
    horizontal_bars(out, rows, "GPU energy (MJ)", f"Energy of the {len(rows)} most energy-hungry jobs", "#55a868")


def machine(states, path_csv, outdir):
    t = [number(path_csv, i, r, "time") for i, r in enumerate(states, start=2)]
    busy = [number(path_csv, i, r, "busy_cores") for i, r in enumerate(states, start=2)]
    idle = [number(path_csv, i, r, "idle_cores") for i, r in enumerate(states, start=2)]
    flops = [number(path_csv, i, r, "flops_in_use") for i, r in enumerate(states, start=2)]
    queued = [number(path_csv, i, r, "queued_jobs") for i, r in enumerate(states, start=2)]
    running = [number(path_csv, i, r, "running_jobs") for i, r in enumerate(states, start=2)]

    fig, ax = plt.subplots(figsize=(12, 4))
    total = [b + i for b, i in zip(busy, idle)]
    ax.step(t, [100 * b / n if n else 0 for b, n in zip(busy, total)], where="post", color="#4c72b0")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("busy cores (%)", color="#4c72b0")
    ax.set_ylim(0, 105)
    ax2 = ax.twinx()
    ax2.step(t, [f / 1e9 for f in flops], where="post", color="#dd8452", alpha=0.7)
    ax2.set_ylabel("Gflop/s in use", color="#dd8452")
    ax.set_title("Utilization")
    save(fig, os.path.join(outdir, "utilization.png"))

    fig, ax = plt.subplots(figsize=(12, 4))
    ax.step(t, queued, where="post", label="queued jobs")
    ax.step(t, running, where="post", label="running jobs")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("jobs")
    ax.legend(loc="upper right")
    ax.set_title("Queue")
    save(fig, os.path.join(outdir, "queue.png"))


def lifecycles(jobs, path_csv, out):
    rows = []
    for i, j in enumerate(jobs, start=2):
        sub = number(path_csv, i, j, "submission_time")
        if j["final_state"] == "REJECTED" or j["starting_time"] in ("", "-1"):
            rows.append((sub, sub, sub))
            continue
        rows.append((sub, number(path_csv, i, j, "starting_time"), number(path_csv, i, j, "finish_time")))
    rows.sort()
    fig, ax = plt.subplots(figsize=(12, 6))
    y = list(range(len(rows)))
    ax.hlines(y, [r[0] for r in rows], [r[1] for r in rows], color="#c44e52", linewidth=1, label="waiting")
    ax.hlines(y, [r[1] for r in rows], [r[2] for r in rows], color="#4c72b0", linewidth=1, label="running")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("job (submission order)")
    ax.legend(loc="lower right")
    ax.set_title("Job life cycles")
    save(fig, out)


def overutilization(spans, path_csv, out):
    fig, ax = plt.subplots(figsize=(12, 4))
    procs = sorted({int(number(path_csv, i, s, "processor")) for i, s in enumerate(spans, start=2)})
    row = {p: k for k, p in enumerate(procs)}
    cmap = plt.get_cmap("inferno_r")
    for i, s in enumerate(spans, start=2):
        start = number(path_csv, i, s, "start")
        end = number(path_csv, i, s, "end")
        ratio = number(path_csv, i, s, "peak_demand_gbps") / max(number(path_csv, i, s, "capacity_gbps"), 1e-300)
        ax.broken_barh([(start, end - start)], (row[int(number(path_csv, i, s, "processor"))], 0.8),
                       facecolors=cmap(min(ratio / 3, 1.0)))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("processor (over-utilized ones)")
    ax.set_yticks([k + 0.4 for k in range(len(procs))] if len(procs) <= 40 else [])
    if len(procs) <= 40:
        ax.set_yticklabels([str(p) for p in procs], fontsize=7)
    ax.set_title(f"Memory-bandwidth over-utilization: {len(spans)} spans on {len(procs)} processors "
                 "(darker: higher demand / capacity)")
    if not spans:
        ax.text(0.5, 0.5, "no over-utilization", transform=ax.transAxes, ha="center")
    ax.autoscale()
    save(fig, out)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    outdir = sys.argv[1]
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    # Every input first: a bad one stops the plot before any chart is drawn.
    jobs_csv = os.path.join(outdir, "jobs.csv")
    jobs = read_csv(jobs_csv, ["job_id", "submission_time", "final_state", "starting_time", "finish_time",
                               "allocated_resources"])
    # (the time series are written on request: `--series`; a chart whose series is absent is left out)
    states_csv = os.path.join(outdir, "machine_states.csv")
    states = None
    if os.path.exists(states_csv):
        states = read_csv(states_csv, ["time", "flops_in_use", "busy_cores", "idle_cores", "queued_jobs",
                                       "running_jobs"])
    over_csv = os.path.join(outdir, "overutilization.csv")
    spans = None
    if os.path.exists(over_csv):
        spans = read_csv(over_csv, ["processor", "start", "end", "peak_demand_gbps", "capacity_gbps"])
    allocs_csv = os.path.join(outdir, "gpu_allocations.csv")
    allocs = links = None
    links_csv = os.path.join(outdir, "links.csv")
    if os.path.exists(allocs_csv):  # a GPU-cluster run
        allocs = read_csv(allocs_csv, ["job_id", "start", "end", "gpus", "ended"])
        for j in jobs:
            if "consumed_energy" not in j:
                fail(f"{jobs_csv}: no consumed_energy column")
        if os.path.exists(links_csv):
            links = read_csv(links_csv, ["link", "bytes"])
    if allocs is not None:
        gpu_gantt(allocs, allocs_csv, os.path.join(outdir, "gantt.png"))
        job_energy(jobs, jobs_csv, os.path.join(outdir, "job_energy.png"))
        if links:
            busiest_links(links, links_csv, os.path.join(outdir, "links.png"))
    else:
        gantt(jobs, jobs_csv, os.path.join(outdir, "gantt.png"))
    lifecycles(jobs, jobs_csv, os.path.join(outdir, "lifecycles.png"))
    if states is not None:
        machine(states, states_csv, outdir)
    elif allocs is None:
        print(f"{states_csv}: not written (--series machine_states): no utilization.png or queue.png", file=sys.stderr)
    if spans is not None:
        overutilization(spans, over_csv, os.path.join(outdir, "overutilization.png"))
    elif allocs is None:
        print(f"{over_csv}: not written (--series overutilization): no overutilization.png", file=sys.stderr)
    # All drawn: into place.
    for temp in list(TEMPORARIES):
        final = temp[: temp.rindex(".tmp-")]
        try:
            os.replace(temp, final)
        except OSError as e:
            fail(f"{final}: cannot write: {e.strerror}")
        TEMPORARIES.remove(temp)
        print(final)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # whatever slipped through: still one line, and no chart left half-made
        fail(f"{sys.argv[1]}: cannot plot: {type(e).__name__}: {e}")
