#!/usr/bin/env bash
# Benchmark of an external scheduler driving the workload manager over Batsim's protocol
# (docs/batch.md, docs/benchmarks.md): the whole KTH-SP2 log (28,467 jobs; `sgai workload swf2json
# --reference-speed 9.04Gf --walltime`) on gaia's first 100 cores,
#   - FCFS without backfilling inside sgai (--jobs first), for reference;
#   - the same FCFS as a trivial scheduler process (Python, python3-zmq) through the socket;
#   - EASY inside sgai and the Python example scheduler (examples/python/batsim_easy.py);
#   - batsched's fcfs_fast and easy_bf when $BATSCHED names its binary (docs/batsim-peer.md).
# Prints wall seconds, sgai's CPU seconds, requests and scheduler events (schedule.json) and the
# requests and decisions per wall second; the schedules of each pair are compared job for job.
# Usage: tools/bench/batsim_socket.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
sgai=$build/tools/sgai
data=$root/../shared/data
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$root"
# (--walltime: each job's requested time as its walltime, which batsched's backfilling needs)
"$sgai" workload swf2json "$data/swf/KTH-SP2-1996-2.1-cln.swf" --reference-speed 9.04Gf --walltime \
  --out "$work/kth.json" >/dev/null
cat >"$work/fcfs.py" <<'PY'
import json, sys, zmq
s = zmq.Context().socket(zmq.REP); s.bind(sys.argv[1])
free, queue, running = set(), [], {}
while True:
    m = json.loads(s.recv()); now = m["now"]; end = False; out = []
    for e in m["events"]:
        t, d = e["type"], e["data"]
        if t == "SIMULATION_BEGINS": free = set(r["id"] for r in d["compute_resources"])
        elif t == "JOB_SUBMITTED": queue.append((d["job_id"], d["job"]["res"]))
        elif t == "JOB_COMPLETED": free.update(running.pop(d["job_id"]))
        elif t == "SIMULATION_ENDS": end = True
    while not end and queue and queue[0][1] <= len(free):
        j, n = queue.pop(0); a = sorted(free)[:n]; free.difference_update(a); running[j] = a
        out.append({"timestamp": now, "type": "EXECUTE_JOB", "data": {"job_id": j, "alloc": " ".join(map(str, a))}})
    s.send_string(json.dumps({"now": now, "events": out}))
    if end: break
PY
n=0
run() { # name [scheduler command...] -- sgai options...
  local name=$1; shift
  local cmd=() opts=()
  while [ "$1" != "--" ]; do cmd+=("$1"); shift; done; shift
  opts=("$@")
  n=$((n + 1))
  if [ ${#cmd[@]} -gt 0 ]; then
    "${cmd[@]}" "ipc://$work/s$n.sock" >"$work/$name.sched" 2>&1 &
    opts+=(--socket-endpoint "ipc://$work/s$n.sock")
  fi
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$work/$name.time" "$sgai" batch run --platform platforms/gaia.json \
    --workload "$work/kth.json" --max-resources 100 --out "$work/$name" "${opts[@]}" >/dev/null 2>&1
  t1=$(date +%s.%N)
  wait 2>/dev/null || true
  /usr/bin/python3 - "$name" "$work/$name" "$t0" "$t1" "$(cat "$work/$name.time")" <<'PY'
import json, sys
name, out, t0, t1, cpu = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
wall = t1 - t0
cpu = sum(map(float, cpu.split()))
s = json.load(open(out + "/schedule.json"))
req, ev = s.get("scheduler_requests", 0), s.get("scheduler_events", 0)
rate = f"{req / wall:8.0f} requests/s {ev / wall:8.0f} decisions/s" if req else ""
print(f"{name:28s} wall {wall:7.2f} s  sgai CPU {cpu:6.2f} s  makespan {s['makespan_s']:.0f}  requests {req:6.0f}  events {ev:6.0f}  {rate}")
PY
}
same() {
  /usr/bin/python3 - "$work/$1/jobs.csv" "$work/$2/jobs.csv" <<'PY'
import csv, sys
a = {r["job_id"]: float(r["starting_time"]) for r in csv.DictReader(open(sys.argv[1]))}
b = {r["job_id"]: float(r["starting_time"]) for r in csv.DictReader(open(sys.argv[2]))}
same = sum(abs(a[k] - b[k]) <= 1e-9 * max(1, abs(b[k])) for k in b)
print(f"  same starting times (to 1e-9): {same}/{len(b)}")
PY
}
run internal_fcfs -- --jobs first
run socket_fcfs_python /usr/bin/python3 "$work/fcfs.py" --
same internal_fcfs socket_fcfs_python
run internal_easy -- --backfill easy
run socket_easy_python /usr/bin/python3 examples/python/batsim_easy.py --
same internal_easy socket_easy_python
if [ -n "${BATSCHED:-}" ]; then
  run socket_batsched_fcfs_fast "$BATSCHED" -v fcfs_fast --verbosity quiet -s --
  same internal_fcfs socket_batsched_fcfs_fast
  run socket_batsched_easy_bf "$BATSCHED" -v easy_bf --verbosity quiet -s --
  same internal_easy socket_batsched_easy_bf
fi
