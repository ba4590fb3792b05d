#!/usr/bin/env python3
"""Plots the output folder of `sgai rl train` (episodes.csv), as the HDeepRM thesis shows training
(its figures 5.10 to 5.12):
  losses.png       the loss of each episode's update (policy, value, total), and its moving mean
  rewards.png      each episode's reward (the last step's, and the episode's sum), and its moving mean
  preferences.png  the policy's probability of each action at each episode's first observation

Every input is read and checked first; the charts are drawn under temporary names and renamed into
place only when all are drawn.

Usage: rl_plot.py OUTDIR
"""
import csv
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("sgai: error: rl plot needs matplotlib (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
    sys.exit(1)


def fail(message):
    print("sgai: error: " + message, file=sys.stderr)
    sys.exit(1)


def moving_mean(values, width):
    out, acc = [], 0.0
    for i, v in enumerate(values):
        acc += v
        if i >= width:
            acc -= values[i - width]
        out.append(acc / min(i + 1, width))
    return out


def read(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")
    if not rows:
        fail(f"{path}: empty")
    header = rows[0]
    need = ["episode", "reward_sum", "last_reward", "loss", "policy_loss", "value_loss"]
    for n in need:
        if n not in header:
            fail(f"{path}: line 1: no column {n!r} (expected the episodes.csv of sgai rl train)")
    prefs = [i for i, n in enumerate(header) if n.startswith("p_")]
    data = {n: [] for n in need}
    pref = {header[i][2:]: [] for i in prefs}
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header) and len(row) != len(header) - len(prefs):
            fail(f"{path}: line {line}: {len(row)} fields, expected {len(header)}")
        try:
            for n in need:
                data[n].append(float(row[header.index(n)]))
            for i in prefs:
                pref[header[i][2:]].append(float(row[i]) if i < len(row) else float("nan"))
        except ValueError:
            fail(f"{path}: line {line}: a field is not a number")
    if not data["episode"]:
        fail(f"{path}: no episode")
    return data, pref


def main():
    if len(sys.argv) != 2:
        fail("usage: rl_plot.py OUTDIR")
    outdir = sys.argv[1]
    data, pref = read(os.path.join(outdir, "episodes.csv"))
    ep = data["episode"]
    width = max(1, len(ep) // 20)
    charts = []

    fig, ax = plt.subplots(figsize=(9, 4.5))
    for key, label in (("loss", "loss"), ("policy_loss", "policy loss"), ("value_loss", "value loss")):
        if key == "value_loss" and not any(data[key]):
            continue
        ax.plot(ep, data[key], lw=0.6, alpha=0.5, label=label)
    ax.plot(ep, moving_mean(data["loss"], width), lw=1.8, color="black", label=f"loss, mean of {width}")
    ax.set_xlabel("episode")
    ax.set_ylabel("loss")
    ax.set_title("Losses")
    ax.legend()
    charts.append(("losses.png", fig))

    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.plot(ep, data["last_reward"], ".", ms=2, alpha=0.6, label="last step's reward")
    if any(abs(a - b) > 1e-12 for a, b in zip(data["reward_sum"], data["last_reward"])):
        ax.plot(ep, data["reward_sum"], lw=0.6, alpha=0.5, label="episode's reward sum")
    ax.plot(ep, moving_mean(data["last_reward"], width), lw=1.8, color="black", label=f"mean of {width}")
    ax.set_xlabel("episode")
    ax.set_ylabel("reward")
    ax.set_title("Rewards")
    ax.legend()
    charts.append(("rewards.png", fig))

    fig, ax = plt.subplots(figsize=(9, 4.5))
    if pref:
        names = list(pref)
        ax.stackplot(ep, [pref[n] for n in names], labels=names)
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7, ncol=max(1, len(names) // 12), loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_xlabel("episode")
    ax.set_ylabel("probability at the first observation")
    ax.set_title("Action preferences")
    fig.tight_layout()
    charts.append(("preferences.png", fig))

    written = []
    try:
        for name, f in charts:
            tmp = os.path.join(outdir, f"{name}.tmp-{os.getpid()}")
            f.savefig(tmp, dpi=110, format="png", bbox_inches="tight")
            written.append((tmp, os.path.join(outdir, name)))
        for tmp, final in written:
            os.replace(tmp, final)
    except OSError as e:
        for tmp, _ in written:
            if os.path.exists(tmp):
                os.remove(tmp)
        fail(f"{outdir}: cannot write the charts: {e.strerror}")
    for name, _ in charts:
        print(f"Wrote {os.path.join(outdir, name)}")


if __name__ == "__main__":
    main()
