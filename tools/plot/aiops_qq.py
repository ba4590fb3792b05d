#!/usr/bin/env python3
"""Q-Q plots of sgai's AI-ops fits against held-back or fitted data (docs/validation.md).

  aiops_qq.py arrivals MODEL.json OBS.csv COLUMN FROM HOLD_OUT OUT.png
      held-back interarrival gaps (starting at or after HOLD_OUT): each gap's CDF value through the
      hour-of-week cluster it starts in, against the uniform's quantiles (a straight line when the
      profile fits), beside one exponential fitted to the gaps before HOLD_OUT
  aiops_qq.py training MODEL.json OBS.csv COLUMN OUT.png
      log10 training seconds: the data's quantiles against the fitted mixture's
  aiops_qq.py simulated RUN_DIR MODEL.json OUT.png
      a run of `sgai aiops run` against the model it was given: its training times against the
      model's, its gaps through their hour's CDF against the uniform, its arrivals per hour of the
      week against the profile's rate
  aiops_qq.py trace RUN_DIR OBS.csv COLUMN FROM UNTIL OUT.png
      a run's arrivals against the trace times in [FROM, UNTIL) its profile was fitted to: gap
      quantiles, and arrivals per hour of the week
  aiops_qq.py runtimes RUN_DIR OBS.csv COLUMN OUT.png
      a run's training times against the durations its training mixture was fitted to
"""
import csv
import json
import math
import random
import sqlite3
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def norm_cdf(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


def dist_cdf(d, x):
    f, p = d["family"], d["params"]
    if x <= 0:
        return 0.0
    if f == "exponential":
        return -math.expm1(-p[0] * x)
    if f == "lognormal":
        return norm_cdf((math.log(x) - p[0]) / p[1])
    if f == "pareto":
        return 1 - (1 + x / p[1]) ** (-p[0])
    if f == "expweibull":
        return (-math.expm1(-((x / p[2]) ** p[1]))) ** p[0]
    raise ValueError(f)


def column(path, name):
    with open(path) as f:
        return [float(r[name]) for r in csv.DictReader(f)]


def arrivals(model, obs, col, start, hold, out):
    prof = json.load(open(model))["arrivals"]
    t = sorted(set(math.floor(v) for v in column(obs, col) if v >= start))
    gaps = [(t[i - 1], t[i] - t[i - 1]) for i in range(1, len(t))]
    fitted = [g for s, g in gaps if s < hold]
    held = [(s, g) for s, g in gaps if s >= hold]
    rate = len(fitted) / sum(fitted)
    u = sorted(dist_cdf(prof["hours"][(int(s // 3600) + prof["origin_hour"]) % 168], g / prof["factor"]) for s, g in held)
    ue = sorted(-math.expm1(-rate * g) for s, g in held)
    q = [(i + 0.5) / len(u) for i in range(len(u))]
    plt.figure(figsize=(5, 5))
    plt.plot(q, u, label="hour-of-week profile")
    plt.plot(q, ue, label="one exponential")
    plt.plot([0, 1], [0, 1], "k--", lw=0.8)
    plt.xlabel("uniform quantile")
    plt.ylabel("CDF value of a held-back gap")
    plt.title(f"{len(held)} held-back interarrival gaps")
    plt.legend()
    plt.tight_layout()
    plt.savefig(out, dpi=110)


def training(model, obs, col, out):
    fw = json.load(open(model))["training"]["frameworks"]
    comps = [c for f in fw.values() for c in
             [dict(c, weight=c["weight"] * f["share"]) for c in f["log_seconds"]["components"]]]
    data = sorted(math.log(v) for v in column(obs, col) if v > 0)

    def cdf(y):
        return sum(c["weight"] * norm_cdf((y - c["mean"][0]) / math.sqrt(c["covariance"][0][0])) for c in comps)

    def quantile(u):
        lo, hi = -50.0, 50.0
        for _ in range(80):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if cdf(mid) < u else (lo, mid)
        return (lo + hi) / 2

    n = 400
    idx = [int((i + 0.5) / n * len(data)) for i in range(n)]
    ys = [data[k] / math.log(10) for k in idx]
    xs = [quantile((k + 0.5) / len(data)) / math.log(10) for k in idx]
    plt.figure(figsize=(5, 5))
    plt.plot(xs, ys, ".", ms=3)
    lo, hi = min(xs + ys), max(xs + ys)
    plt.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    plt.xlabel("fitted mixture quantile, log10 s")
    plt.ylabel("data quantile, log10 s")
    plt.title(f"training time, {len(data)} runs")
    plt.tight_layout()
    plt.savefig(out, dpi=110)


def run_values(run_dir, sql):
    db = sqlite3.connect(f"file:{run_dir}/aiops.sqlite?mode=ro", uri=True)
    return [r[0] for r in db.execute(sql)]


def run_train(run_dir):
    return run_values(run_dir, "SELECT compute_s FROM tasks t JOIN kinds k ON k.id = t.kind WHERE k.name = 'train'")


def run_arrivals(run_dir):
    return sorted(run_values(run_dir, "SELECT arrival FROM pipelines WHERE origin = 0"))


def ks2(a, b):
    a, b = sorted(a), sorted(b)
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        x = min(a[i], b[j])
        while i < len(a) and a[i] <= x:
            i += 1
        while j < len(b) and b[j] <= x:
            j += 1
        d = max(d, abs(i / len(a) - j / len(b)))
    return d


def qq(ax, a, b, xlabel, ylabel, log=True):
    """Quantiles of b (y) against those of a (x), 400 points."""
    a, b = sorted(a), sorted(b)
    n = 400
    f = (lambda v: math.log10(v)) if log else (lambda v: v)
    xs = [f(a[int((i + 0.5) / n * len(a))]) for i in range(n)]
    ys = [f(b[int((i + 0.5) / n * len(b))]) for i in range(n)]
    ax.plot(xs, ys, ".", ms=3)
    lo, hi = min(xs + ys), max(xs + ys)
    ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def per_hour_of_week(times, origin):
    n = [0] * 168
    for t in times:
        n[(int(t // 3600) + origin) % 168] += 1
    total = sum(n)
    return [v / total for v in n]


def simulated(run_dir, model, out):
    m = json.load(open(model))
    rng = random.Random(1)
    fws = list(m["training"]["frameworks"].values())
    drawn = []
    for _ in range(100000):
        f = rng.choices(fws, [x["share"] for x in fws])[0]
        comps = f["log_seconds"]["components"]
        c = rng.choices(comps, [x["weight"] for x in comps])[0]
        drawn.append(math.exp(rng.gauss(c["mean"][0], math.sqrt(c["covariance"][0][0]))))
    train = run_train(run_dir)
    prof = m["arrivals"]
    times = run_arrivals(run_dir)
    u = sorted(dist_cdf(prof["hours"][(int(times[i - 1] // 3600) + prof["origin_hour"]) % 168],
                        (times[i] - times[i - 1]) / prof["factor"]) for i in range(1, len(times)))
    q = [(i + 0.5) / len(u) for i in range(len(u))]
    ks_u = max(abs(a - b) for a, b in zip(q, u)) + 0.5 / len(u)
    expected = [1 / hour_mean(prof["hours"][h]) for h in range(168)]
    total = sum(expected)
    expected = [e / total for e in expected]
    fig, ax = plt.subplots(1, 3, figsize=(14, 4.4))
    qq(ax[0], drawn, train, "model quantile, log10 s", "simulated quantile, log10 s")
    ax[0].set_title(f"training time: {len(train)} tasks, KS {ks2(train, drawn):.4f}")
    ax[1].plot(q[::max(1, len(q) // 400)], u[::max(1, len(u) // 400)], ".", ms=3)
    ax[1].plot([0, 1], [0, 1], "k--", lw=0.8)
    ax[1].set_xlabel("uniform quantile")
    ax[1].set_ylabel("gap's CDF value in its hour")
    ax[1].set_title(f"{len(u)} interarrival gaps, KS {ks_u:.4f}")
    ax[2].plot(range(168), per_hour_of_week(times, prof["origin_hour"]), label="simulated")
    ax[2].plot(range(168), expected, label="profile's rate")
    ax[2].set_xlabel("hour of the week (0: Monday 00:00)")
    ax[2].set_ylabel("share of arrivals")
    ax[2].set_title("arrivals per hour of the week")
    ax[2].legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def hour_mean(d):
    f, p = d["family"], d["params"]
    if f == "exponential":
        return 1 / p[0]
    if f == "lognormal":
        return math.exp(p[0] + p[1] ** 2 / 2)
    if f == "pareto":
        return p[1] / (p[0] - 1) if p[0] > 1 else float("inf")
    # exponentiated Weibull: integrate the survival function
    n, hi = 4000, p[2] * 60
    return sum((1 - dist_cdf(d, (i + 0.5) * hi / n)) * hi / n for i in range(n))


def trace(run_dir, obs, col, start, until, out):
    t = sorted(set(math.floor(v) for v in column(obs, col) if start <= v < until))
    observed = [t[i] - t[i - 1] for i in range(1, len(t))]
    times = run_arrivals(run_dir)
    sim = [times[i] - times[i - 1] for i in range(1, len(times))]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4.4))
    qq(ax[0], [g for g in observed if g > 0], [g for g in sim if g > 0], "trace quantile, log10 s",
       "simulated quantile, log10 s")
    ax[0].set_title(f"gaps: {len(sim)} simulated, {len(observed)} observed, KS {ks2(sim, observed):.4f}")
    ax[1].plot(range(168), per_hour_of_week([v - 0 for v in t], 0), label="trace (hours from its t = 0)")
    ax[1].plot(range(168), per_hour_of_week(times, 0), label="simulated")
    ax[1].set_xlabel("hour of the week")
    ax[1].set_ylabel("share of arrivals")
    ax[1].set_title("arrivals per hour of the week")
    ax[1].legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def runtimes(run_dir, obs, col, out):
    data = [v for v in column(obs, col) if v > 0]
    train = run_train(run_dir)
    fig, ax = plt.subplots(figsize=(5, 5))
    qq(ax, data, train, "observed quantile, log10 s", "simulated quantile, log10 s")
    ax.set_title(f"training time: {len(train)} simulated, {len(data)} observed, KS {ks2(train, data):.4f}",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "arrivals" and len(sys.argv) == 8:
        arrivals(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6]), sys.argv[7])
    elif len(sys.argv) >= 2 and sys.argv[1] == "training" and len(sys.argv) == 6:
        training(*sys.argv[2:6])
    elif len(sys.argv) >= 2 and sys.argv[1] == "simulated" and len(sys.argv) == 5:
        simulated(*sys.argv[2:5])
    elif len(sys.argv) >= 2 and sys.argv[1] == "trace" and len(sys.argv) == 8:
        trace(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6]), sys.argv[7])
    elif len(sys.argv) >= 2 and sys.argv[1] == "runtimes" and len(sys.argv) == 6:
        runtimes(*sys.argv[2:6])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
