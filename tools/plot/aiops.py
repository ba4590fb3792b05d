#!/usr/bin/env python3
"""Plots the output folder of `sgai aiops run` from its database, aiops.sqlite (schema version 1).

Writes into that folder (the charts are drawn under temporary names, NAME.tmp-PID, and renamed into
place only when all are drawn, so a failure leaves none behind):
  aiops-utilisation.png  each pool's utilisation per simulated hour (daily means beyond 14 days)
  aiops-arrivals.png     mean arrivals per hour of the week (PipeSim's Figure 10)
  aiops-wait.png         p50 and p95 of the pipelines' wait, by arrival day (by hour under 3 days)
  aiops-store.png        the store's bytes read and written per hour, in GB/h (daily means beyond 14 days)
  aiops-staleness.png    the deployed models' mean staleness per hour, and the retrainings triggered
                         (left out when the run deployed no models)
  aiops-qq.png           Q-Q plots (PipeSim's Figure 12): each task kind's compute seconds against the
                         log-normal fitted to them, and the interarrival gaps against an exponential

Usage: aiops.py DIR
"""
import math
import os
import signal
import sqlite3
import statistics
import sys
import urllib.parse

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("aiops.py: error: needs matplotlib (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
    sys.exit(1)

SCHEMA_VERSION = 1
HOUR = 3600.0
DAY = 86400.0
WEEK_HOURS = 168
DAYS_BEYOND = 14  # longer runs are drawn against days, from daily means
QQ_POINTS = 2000  # quantile points per Q-Q subplot
QQ_SAMPLE = 20000  # values drawn from each kind's durations for its quantiles and KS distance
QQ_KINDS = 6
# Thinning without random numbers: row r is kept when frac(r * WEYL / 2^32) < fraction. The
# multiplier is 2^32 / golden ratio, so the kept rows are spread evenly and do not alias with any
# periodic order the rows were written in (a plain rowid % N could keep only one kind of task).
WEYL = 2654435761
WEYL_MOD = 1 << 32
COLOURS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]

TEMPORARIES = []  # charts drawn but not yet renamed into place
DB_PATH = ""  # named in the error lines of failed queries


def remove_temporaries():
    for t in TEMPORARIES:
        try:
            os.remove(t)
        except OSError:
            pass
    TEMPORARIES.clear()


def fail(msg):
    remove_temporaries()
    print(f"aiops.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def on_signal(signum, frame):
    remove_temporaries()
    os._exit(128 + signum)


# ------------------------------------------------------------------------------------ database


def open_database(path):
    if not os.path.isfile(path):
        fail(f"{path}: no such file: expected the output folder of sgai aiops run")
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # a file that is not a database fails here
    except sqlite3.Error as e:
        fail(f"{path}: not an AI-ops database: {e}")
    if version != SCHEMA_VERSION:
        fail(f"{path}: an AI-ops database of schema version {SCHEMA_VERSION} is expected, not {version}")
    return db


def rows(db, sql, args=()):
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.Error as e:
        fail(f"{DB_PATH}: {e}")


def one(db, sql, args=()):
    r = rows(db, sql, args)
    return r[0] if r else None


def run_figures(db):
    """origin_hour and the simulated duration in seconds."""
    run = dict(rows(db, "SELECT key, value FROM run"))
    try:
        origin = int(float(run.get("origin_hour", "0"))) % WEEK_HOURS
    except ValueError:
        fail(f"{DB_PATH}: table run: origin_hour {run['origin_hour']!r} is not an hour of the week")
    duration = None
    if "duration_s" in run:
        try:
            duration = float(run["duration_s"])
        except ValueError:
            fail(f"{DB_PATH}: table run: duration_s {run['duration_s']!r} is not a number of seconds")
        if not math.isfinite(duration) or duration < 0:
            fail(f"{DB_PATH}: table run: duration_s {run['duration_s']!r} is not a number of seconds")
    if duration is None:  # not recorded: the hours the run has rows for
        last = one(db, "SELECT MAX(hour) FROM hourly_arrivals")[0]
        duration = (last + 1) * HOUR if last is not None else 0.0
    return origin, duration


def ln_in_sql(db):
    """Whether this SQLite has ln(); if not, Python's is registered (slower, same result)."""
    try:
        db.execute("SELECT ln(2.0)").fetchone()
    except sqlite3.OperationalError:
        db.create_function("ln", 1, lambda x: math.log(x) if x is not None and x > 0 else None, deterministic=True)


# ------------------------------------------------------------------------------------ drawing


def save(fig, path):
    temp = f"{path}.tmp-{os.getpid()}"
    TEMPORARIES.append(temp)
    try:
        fig.tight_layout()
        fig.savefig(temp, dpi=110, format="png", metadata={"Software": None})
    except OSError as e:
        fail(f"{path}: cannot write: {e.strerror}")
    except (ValueError, OverflowError, MemoryError) as e:
        fail(f"{path}: cannot draw this chart: {e}")
    plt.close(fig)


class TimeAxis:
    """Simulated hours on x, or days for runs longer than DAYS_BEYOND days (drawn from daily means)."""

    def __init__(self, duration):
        self.daily = duration > DAYS_BEYOND * DAY
        self.label = "simulated time (days)" if self.daily else "simulated time (hours)"

    def bin_sql(self, column="hour"):
        return f"({column} / 24)" if self.daily else column

    def step(self, ax, xs, ys, **kw):
        """Values that hold over [x, x + 1) bins, as a step line."""
        if not xs:
            return
        ax.step(list(xs) + [xs[-1] + 1], list(ys) + [ys[-1]], where="post", **kw)


def no_data(ax, text):
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="#555555")


def utilisation(db, axis, out):
    pools = rows(db, "SELECT id, name, slots FROM resources WHERE kind = 'pool' ORDER BY id")
    by = axis.bin_sql()
    data = {}
    for r, b, u in rows(db, f"SELECT h.resource, {by} AS b, SUM(h.busy_s) / SUM(h.capacity_s) FROM hourly h "
                            "JOIN resources r ON r.id = h.resource WHERE r.kind = 'pool' GROUP BY h.resource, b "
                            "ORDER BY h.resource, b"):
        data.setdefault(r, []).append((b, 100 * (u or 0.0)))
    fig, ax = plt.subplots(figsize=(12, 4.5))
    for k, (rid, name, slots) in enumerate(pools):
        series = data.get(rid, [])
        axis.step(ax, [b for b, _ in series], [u for _, u in series], color=COLOURS[k % len(COLOURS)],
                  lw=0.9, label=f"{name} ({slots} slots)")
    if not any(data.values()):
        no_data(ax, "no pool has hourly rows")
    else:
        ax.legend(loc="upper right", fontsize=8)
    ax.set_xlabel(axis.label)
    ax.set_ylabel("utilisation, daily mean (%)" if axis.daily else "utilisation (%)")
    ax.set_ylim(bottom=0)
    ax.margins(x=0)
    ax.set_title("Pool utilisation (busy slot-seconds / slot-seconds), " + ("per day" if axis.daily else "per hour"))
    save(fig, out)


DAY_NAMES = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def arrivals(db, origin, duration, out):
    hours = max(1, math.ceil(duration / HOUR - 1e-9))
    covered = [0] * WEEK_HOURS  # how many of the run's hours fall on each hour of the week
    for h in range(min(hours, WEEK_HOURS)):
        covered[(origin + h) % WEEK_HOURS] = (hours - 1 - h) // WEEK_HOURS + 1
    total = [0] * WEEK_HOURS
    for how, n in rows(db, "SELECT (hour + ?) % 168 AS how, SUM(arrivals) FROM hourly_arrivals WHERE hour < ? "
                           "GROUP BY how", (origin, hours)):
        total[how] = n
    mean = [t / c if c else float("nan") for t, c in zip(total, covered)]
    weeks = hours / WEEK_HOURS
    fig, ax = plt.subplots(figsize=(12, 4.5))
    ax.bar([h + 0.5 for h in range(WEEK_HOURS)], mean, width=1.0, color="#4c72b0", edgecolor="#2d4a7a", lw=0.3)
    ax.set_xlim(0, WEEK_HOURS)
    ax.set_xticks(range(0, WEEK_HOURS + 1, 24))
    ax.set_xticklabels([])
    ax.set_xticks([12 + 24 * d for d in range(7)], minor=True)
    ax.set_xticklabels(DAY_NAMES, minor=True)
    ax.tick_params(axis="x", which="minor", length=0)
    ax.grid(axis="x", which="major", color="#bbbbbb", lw=0.6)
    ax.set_axisbelow(True)
    ax.set_xlabel("hour of the week (ticks at 00:00)")
    ax.set_ylabel("arrivals per hour (mean)")
    ax.set_title(f"Pipeline arrivals per hour of the week: {sum(total)} arrivals over {weeks:.3g} "
                 f"week{'' if weeks == 1 else 's'}")
    save(fig, out)


def nearest_rank(n, p):
    """The 0-based index of the nearest-rank p-percentile of n sorted values (as `sgai aiops query waits`)."""
    return min(n, max(math.ceil(p * n), 1)) - 1


def wait(db, duration, out):
    """pipelines.wait: the seconds its tasks spent queued for a slot, summed."""
    daily = duration >= 3 * DAY
    xs, p50, p95, top, total = [], [], [], [], 0
    if daily:  # the (day, wait) index gives each percentile without reading the day's rows
        for day, n, longest in rows(db, "SELECT day, COUNT(*), MAX(wait) FROM pipelines GROUP BY day ORDER BY day"):
            q = [one(db, "SELECT wait FROM pipelines WHERE day = ? ORDER BY wait LIMIT 1 OFFSET ?",
                     (day, nearest_rank(n, p)))[0] for p in (0.5, 0.95)]
            xs.append(day)
            p50.append(q[0])
            p95.append(q[1])
            top.append(longest)
            total += n
    else:
        groups = {}
        for arrival, w in rows(db, "SELECT arrival, wait FROM pipelines"):
            groups.setdefault(math.floor(arrival / HOUR), []).append(w)
        for h in sorted(groups):
            v = sorted(groups[h])
            xs.append(h)
            p50.append(v[nearest_rank(len(v), 0.5)])
            p95.append(v[nearest_rank(len(v), 0.95)])
            top.append(v[-1])
            total += len(v)
    unit = "day" if daily else "hour"
    fig, ax = plt.subplots(figsize=(12, 4.5))
    if xs:
        mid = [x + 0.5 for x in xs]
        ax.plot(mid, top, "-", lw=0.6, color="#999999", label="max")
        ax.plot(mid, p95, "o-", ms=2.5, lw=0.9, color="#c44e52", label="p95")
        ax.plot(mid, p50, "o-", ms=2.5, lw=0.9, color="#4c72b0", label="p50")
        ax.legend(loc="upper right", fontsize=8)
        ax.set_xlim(xs[0], xs[-1] + 1)
        if max(top) == 0:
            ax.set_ylim(0, 1)
            no_data(ax, "no pipeline waited")
        elif max(p95) == 0:
            no_data(ax, f"p50 and p95 are 0 s in every {unit}")
    else:
        no_data(ax, "no pipelines")
    ax.set_xlabel(f"arrival time (simulated {unit}s)")
    ax.set_ylabel("wait: its tasks' queueing, summed (s)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Pipeline wait by arrival {unit}: p50, p95 and max of {total} pipelines")
    save(fig, out)


def store(db, axis, out):
    stores = rows(db, "SELECT id, name FROM resources WHERE kind = 'store' ORDER BY id")
    by = axis.bin_sql()
    series = rows(db, f"SELECT {by} AS b, SUM(h.bytes_read), SUM(h.bytes_written), COUNT(DISTINCT h.hour) "
                      "FROM hourly h JOIN resources r ON r.id = h.resource WHERE r.kind = 'store' "
                      "GROUP BY b ORDER BY b")
    xs = [s[0] for s in series]
    read = [s[1] / 1e9 / s[3] for s in series]
    written = [s[2] / 1e9 / s[3] for s in series]
    fig, ax = plt.subplots(figsize=(12, 4.5))
    axis.step(ax, xs, read, color="#4c72b0", lw=0.9, label="read")
    axis.step(ax, xs, written, color="#dd8452", lw=0.9, label="written")
    if series:
        ax.legend(loc="upper right", fontsize=8)
    else:
        no_data(ax, "no store resource has hourly rows")
    ax.set_xlabel(axis.label)
    ax.set_ylabel("traffic, daily mean (GB/h)" if axis.daily else "traffic (GB/h)")
    ax.set_ylim(bottom=0)
    ax.margins(x=0)
    names = ", ".join(n for _, n in stores) or "no store"
    ax.set_title(f"Store traffic ({names}): {sum(s[1] for s in series) / 1e12:.4g} TB read, "
                 f"{sum(s[2] for s in series) / 1e12:.4g} TB written")
    save(fig, out)


def staleness(db, axis, out):
    by = axis.bin_sql()
    series = rows(db, f"SELECT {by} AS b, AVG(mean_staleness) FROM hourly_arrivals GROUP BY b ORDER BY b")
    triggers = rows(db, "SELECT time, staleness FROM samples WHERE event = 'triggered' ORDER BY time")
    models = one(db, "SELECT COUNT(DISTINCT model) FROM versions")[0]
    fig, ax = plt.subplots(figsize=(12, 4.5))
    axis.step(ax, [b for b, _ in series], [s for _, s in series], color="#4c72b0", lw=1.0,
              label=f"mean over the {models} deployed models" + (", daily mean" if axis.daily else ""))
    if triggers:
        scale = DAY if axis.daily else HOUR
        ax.plot([t / scale for t, _ in triggers], [s for _, s in triggers], "v", ms=5, color="#c44e52",
                label=f"{len(triggers)} retrainings triggered (at the model's staleness then)")
    if series or triggers:
        ax.legend(loc="lower right", fontsize=8)
    else:
        no_data(ax, "no hourly rows")
    ax.set_xlabel(axis.label)
    ax.set_ylabel("staleness (fraction of the metric lost)")
    top = max([s for _, s in series] + [s for _, s in triggers] + [0.0])
    ax.set_ylim(0, top * 1.1 if top > 0 else 1)
    ax.margins(x=0)
    ax.set_title("Staleness of the deployed models, per " + ("day" if axis.daily else "hour"))
    save(fig, out)


# ------------------------------------------------------------------------------------ Q-Q plots

NORMAL = statistics.NormalDist()


def thinned(fraction):
    """The SQL bound for a thinning that keeps about `fraction` of the rows (see WEYL)."""
    return min(WEYL_MOD, math.ceil(fraction * WEYL_MOD))


def ks_distance(sorted_values, cdf):
    n = len(sorted_values)
    d = 0.0
    for i, x in enumerate(sorted_values):
        f = cdf(x)
        d = max(d, f - i / n, (i + 1) / n - f)
    return d


def qq_panel(ax, data, quantile, cdf, log, xlabel, ylabel, title):
    """data: sorted sample; quantile(p) and cdf(x): of the fitted distribution."""
    n = len(data)
    m = min(n, QQ_POINTS)
    idx = [min(n - 1, int((j + 0.5) / m * n)) for j in range(m)]
    xs = [quantile((k + 0.5) / n) for k in idx]
    ys = [data[k] for k in idx]
    d = ks_distance(data, cdf)
    ax.plot(xs, ys, ".", ms=2.5, color="#4c72b0")
    lo, hi = min(xs + ys), max(xs + ys)
    ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(which="both", labelsize=7)
    ax.set_title(f"{title}\nKS distance D = {d:.3f}", fontsize=9)


def arrival_gaps(db, origin, bound):
    """A thinned sample of the gaps between consecutive arrivals of the given origin. The simulator
    numbers pipelines as they arrive, so id order is arrival order, read without sorting; when it is
    not, the rows are read again sorted by arrival."""
    for order in ("id", "arrival, id"):
        gaps, previous, ordered = [], None, True
        try:
            for r, (a,) in enumerate(db.execute(f"SELECT arrival FROM pipelines WHERE origin = ? ORDER BY {order}",
                                                (origin,))):
                if previous is not None:
                    if a < previous:
                        ordered = False
                        break
                    if (r * WEYL) % WEYL_MOD < bound:
                        gaps.append(a - previous)
                previous = a
        except sqlite3.Error as e:
            fail(f"{DB_PATH}: {e}")
        if ordered:
            return gaps
    return gaps


def qq(db, out):
    ln_in_sql(db)
    names = dict(rows(db, "SELECT id, name FROM kinds"))
    # one pass for the log-normal fits (maximum likelihood: mean and deviation of ln x) ...
    fits = rows(db, "SELECT kind, COUNT(*), SUM(compute_s > 0), SUM(CASE WHEN compute_s > 0 THEN ln(compute_s) END), "
                    "SUM(CASE WHEN compute_s > 0 THEN ln(compute_s) * ln(compute_s) END) FROM tasks GROUP BY kind")
    fits = sorted(fits, key=lambda f: (-f[1], f[0]))[:QQ_KINDS]
    fits.sort()
    # ... and one for a thinned sample of each kind's positive durations
    sample = {f[0]: [] for f in fits}
    if fits:
        bound = " ".join(f"WHEN {int(k)} THEN {thinned(QQ_SAMPLE / pos)}" for k, _, pos, _, _ in fits if pos)
        if bound:
            for k, x in rows(db, f"SELECT kind, compute_s FROM tasks WHERE compute_s > 0 AND "
                                 f"(rowid * {WEYL}) % {WEYL_MOD} < CASE kind {bound} ELSE 0 END"):
                sample[k].append(x)
    panels = len(fits) + 1
    cols = min(4, panels)
    lines = math.ceil(panels / cols)
    fig, axes = plt.subplots(lines, cols, figsize=(4.2 * cols, 4.0 * lines), squeeze=False)
    flat = [a for line in axes for a in line]
    for ax in flat[panels:]:
        ax.set_visible(False)
    for ax, (k, n, pos, s1, s2) in zip(flat, fits):
        name = names.get(k, f"kind {k}")
        data = sorted(sample[k])
        skipped = f", {n - pos} of 0 s left out" if n > pos else ""
        if pos < 2 or not data:
            no_data(ax, "too few durations to fit")
            ax.set_title(f"{name}: {n} tasks{skipped}", fontsize=9)
            continue
        mu = s1 / pos
        sigma = math.sqrt(max(0.0, s2 / pos - mu * mu))
        if not sigma > 0:
            no_data(ax, f"all {pos} durations equal ({math.exp(mu):.4g} s)")
            ax.set_title(f"{name}: {n} tasks", fontsize=9)
            continue
        fitted = statistics.NormalDist(mu, sigma)
        of = f" (quantiles of {len(data)})" if len(data) < pos else ""
        qq_panel(ax, data, lambda p: math.exp(fitted.inv_cdf(p)), lambda x: fitted.cdf(math.log(x)), True,
                 f"log-normal quantile (s), \u03bc={mu:.3g} \u03c3={sigma:.3g}", "compute_s quantile (s)",
                 f"{name}: {pos} tasks{of}{skipped}")
    # the interarrival gaps of the background arrivals against an exponential of their mean
    ax = flat[len(fits)]
    origin = one(db, "SELECT id FROM origins WHERE name = 'arrival'")
    n, first, last = one(db, "SELECT COUNT(*), MIN(arrival), MAX(arrival) FROM pipelines WHERE origin = ?",
                         (origin[0] if origin else -1,))
    if n < 3 or not last > first:
        no_data(ax, "fewer than 2 interarrival gaps")
        ax.set_title("interarrival gaps", fontsize=9)
    else:
        mean = (last - first) / (n - 1)
        gaps = sorted(arrival_gaps(db, origin[0], thinned(QQ_SAMPLE / (n - 1))))
        of = f" (quantiles of {len(gaps)})" if len(gaps) < n - 1 else ""
        qq_panel(ax, gaps, lambda p: -mean * math.log1p(-p), lambda x: -math.expm1(-x / mean), False,
                 f"exponential quantile (s), mean {mean:.3g} s", "interarrival gap quantile (s)",
                 f"interarrival gaps: {n - 1}{of}")
    fig.suptitle("Q-Q plots: task compute seconds against fitted log-normals; arrival gaps against an exponential",
                 fontsize=11)
    save(fig, out)


def main():
    global DB_PATH
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    outdir = sys.argv[1]
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    DB_PATH = os.path.join(outdir, "aiops.sqlite")
    db = open_database(DB_PATH)
    origin, duration = run_figures(db)
    axis = TimeAxis(duration)
    path = lambda name: os.path.join(outdir, name)  # noqa: E731
    utilisation(db, axis, path("aiops-utilisation.png"))
    arrivals(db, origin, duration, path("aiops-arrivals.png"))
    wait(db, duration, path("aiops-wait.png"))
    store(db, axis, path("aiops-store.png"))
    if one(db, "SELECT COUNT(*) FROM versions")[0] > 0:
        staleness(db, axis, path("aiops-staleness.png"))
    qq(db, path("aiops-qq.png"))
    db.close()
    # All drawn: into place.
    for temp in list(TEMPORARIES):
        final = temp[: temp.rindex(".tmp-")]
        try:
            os.replace(temp, final)
        except OSError as e:
            fail(f"{final}: cannot write: {e.strerror}")
        TEMPORARIES.remove(temp)
        print(f"Wrote {final}")


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as e:  # whatever slipped through: still one line, and no chart left half-made
        fail(f"{sys.argv[1]}: cannot plot: {type(e).__name__}: {e}")
