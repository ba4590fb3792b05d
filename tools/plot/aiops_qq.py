#!/usr/bin/env python3
"""Q-Q plots of sgai's AI-ops fits against held-back or fitted data (docs/validation.md).

  aiops_qq.py arrivals MODEL.json OBS.csv COLUMN FROM HOLD_OUT OUT.png
      held-back interarrival gaps (starting at or after HOLD_OUT): each gap's CDF value through the
      hour-of-week cluster it starts in, against the uniform's quantiles (a straight line when the
      profile fits), beside one exponential fitted to the gaps before HOLD_OUT
  aiops_qq.py training MODEL.json OBS.csv COLUMN OUT.png
      log10 training seconds: the data's quantiles against the fitted mixture's
"""
import csv
import json
import math
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


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "arrivals" and len(sys.argv) == 8:
        arrivals(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6]), sys.argv[7])
    elif len(sys.argv) >= 2 and sys.argv[1] == "training" and len(sys.argv) == 6:
        training(*sys.argv[2:6])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
