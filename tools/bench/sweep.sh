#!/usr/bin/env bash
# The campaign runner's own cost (issue 26): N runs of a trivial experiment (the quick-start batch
# run, about 0.1 s) through `sgai sweep run --strategy full --jobs J`. Prints the campaign's wall
# time, the runs' summed wall time (the campaign database's wall_s), and the overhead per run
# beyond the runs: (campaign wall x jobs - summed run wall) / runs. Target: <= 10 ms.
#   tools/bench/sweep.sh [RUNS] [JOBS]   (default 1000 runs, 2 at a time)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="${SGAI_BUILD_DIR:-$here/build}"
runs=${1:-1000}
jobs=${2:-2}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/bench.json" <<JSON
{"sgai_campaign": 1, "name": "bench", "experiment": "$here/deploy/experiments/quickstart.json",
 "parameters": [{"name": "seed", "pointer": "/seed", "range": {"from": 1, "to": $runs, "step": 1}}],
 "objective": {"figure": "/components/batch/mean_bounded_slowdown"}}
JSON
start=$(date +%s.%N)
"$build/tools/sgai" sweep run "$work/bench.json" --dir "$work/c" --jobs "$jobs" --strategy full >/dev/null
end=$(date +%s.%N)
/usr/bin/python3 - "$work/c/campaign.sqlite" "$start" "$end" "$jobs" <<'PY'
import sqlite3, sys
db, start, end, jobs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
n, total, done = sqlite3.connect(db).execute(
    "SELECT COUNT(*), SUM(wall_s), SUM(status = 'done') FROM runs").fetchone()
wall = end - start
print(f"{n} runs ({done} done), {jobs} at a time: campaign {wall:.2f} s, runs {total:.2f} s summed "
      f"({total / n * 1000:.1f} ms each)")
print(f"overhead beyond the runs: {(wall * jobs - total) / n * 1000:.2f} ms per run")
PY
