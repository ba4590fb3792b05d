#!/usr/bin/env python3
"""Plots power.csv of an output folder (`sgai replay ... --power-series PERIOD`, or an experiment's
simgrid/power_series): power.png, the platform's power over time (hosts, links, total), each
period's average as a step, with the energy it integrates to in the title. The chart is drawn under
a temporary name and renamed into place.

Usage: power_plot.py OUTDIR
"""
import csv
import os
import sys

from plotting import fail, pyplot

plt = pyplot("the power plot")


def main():
    if len(sys.argv) != 2:
        fail("usage: power_plot.py OUTDIR")
    folder = sys.argv[1]
    path = os.path.join(folder, "power.csv")
    if not os.path.isfile(path):
        fail(f"{folder}: no power.csv here (ask for one with --power-series PERIOD)")
    rows = []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        want = ["start_s", "end_s", "jobs_w", "hosts_w", "links_w", "total_w"]
        if reader.fieldnames != want:
            fail(f"{path}: line 1: expected the columns {','.join(want)}")
        for n, r in enumerate(reader, start=2):
            try:
                rows.append([float(r[k]) for k in want])
            except (TypeError, ValueError):
                fail(f"{path}: line {n}: not a number in {r}")
    if not rows:
        fail(f"{path}: no rows")
    t = [r[0] for r in rows] + [rows[-1][1]]
    energy = sum((r[1] - r[0]) * r[5] for r in rows)
    jobs = sum((r[1] - r[0]) * r[2] for r in rows)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    for col, label in ((3, "hosts"), (4, "links"), (5, "total")):
        top.stairs([r[col] for r in rows], t, label=label, linewidth=1.2 if col == 5 else 0.8)
    top.set_ylabel("platform (W)")
    top.set_title(f"Power over {t[-1]:.4g} s: platform {energy / 1e6:.4g} MJ, the jobs' hosts {jobs / 1e6:.4g} MJ "
                  f"({len(rows)} periods of {rows[0][1] - rows[0][0]:.3g} s)")
    top.legend(loc="lower right")
    bottom.stairs([r[2] for r in rows], t, label="the jobs' hosts", color="C3")
    bottom.set_ylabel("the jobs' hosts (W)")
    bottom.set_xlabel("simulated time (s)")
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    out = os.path.join(folder, "power.png")
    tmp = out + ".tmp.png"
    fig.tight_layout()
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, out)
    print(f"Wrote {out}")


main()
