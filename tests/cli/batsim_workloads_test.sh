#!/usr/bin/env bash
# Batsim's 31 JSON workloads (../shared/data/batsim/workloads), unchanged, under `sgai batch run` on
# Batsim's cluster512_pfs.xml (512 one-core machines and a storage host).
#   batsim_workloads.all:      each runs (exit 0, every job in jobs.csv with a final state) or is
#                              rejected before the simulation (exit 1, one error line naming the job,
#                              the profile, its type and why; no output folder).
#   batsim_workloads.expected: the workloads whose jobs carry Batsim's expected_execution_time or
#                              expected_state (its own test annotations, or the profile's time), run
#                              one job at a time as Batsim's tests run them under batsched's
#                              sequencer (each job submitted after the previous one's walltime):
#                              every annotated job ends in the expected state after the expected time
#                              (1e-6 relative); a job whose id ends in -wr or -wt is killed at its
#                              walltime. On cluster512.xml, whose links give Batsim's figures.
#                              Trace-replay jobs (SMPI, usage traces) are left out: sgai rejects them.
# Usage: batsim_workloads_test.sh batsim_workloads.all|batsim_workloads.expected
source "$(dirname "$0")/lib.sh"
shared_or_skip
W=../shared/data/batsim/workloads
P=../shared/data/platforms/batsim/platforms/cluster512_pfs.xml

# The workloads sgai rejects, and the words of the rejection after the file name.
declare -A rejected=(
  [test_smpi_collectives]="job '1-ok': profile 'trace1' (type smpi) replays an SMPI trace, which needs SimGrid's SMPI runtime"
  [test_smpi_compute_only]="job '1-ok': profile 'trace1' (type smpi) replays an SMPI trace, which needs SimGrid's SMPI runtime"
  [test_smpi_mapping]="job '1': profile '1' (type smpi) replays an SMPI trace, which needs SimGrid's SMPI runtime"
  [test_smpi_mixed_comp_comm]="job '1-ok': profile 'trace1' (type smpi) replays an SMPI trace, which needs SimGrid's SMPI runtime"
  [test_walltime_smpi]="job ' 1': profile 'smpi_compute_only' (type smpi) replays an SMPI trace, which needs SimGrid's SMPI runtime"
  [test_usage_trace]="job 'j10-ok': profile 'ut-homo-onephase-100' (type usage_trace) replays a Batsim usage trace (FractionalComputation)"
)

case $1 in
  batsim_workloads.all)
    n=0
    for f in "$W"/*.json; do
      name=$(basename "$f" .json)
      run "$SGAI" batch run --platform "$P" --workload "$f" --out "$tmp/$name"
      no_backtrace
      nothing_left "$tmp"
      if [ -n "${rejected[$name]:-}" ]; then
        expect_rc 1
        expect_one_error_line "sgai: error: $(realpath -s "$f"): ${rejected[$name]}"
        grep -q "Running experiment" "$tmp/err" && fail "$name: rejected after the simulation started: $err"
        [ ! -e "$tmp/$name" ] || fail "$name: a rejected workload left its output folder"
      else
        [ "$rc" -eq 0 ] || fail "$name: exit status $rc: $err"
        python3 - "$f" "$tmp/$name/jobs.csv" <<'PY' || fail "$name: jobs.csv"
import csv, json, sys
w = json.load(open(sys.argv[1]))
rows = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[2]))}
ids = {str(j["id"]) for j in w["jobs"]}
assert set(rows) == ids, (sorted(ids - set(rows))[:5], sorted(set(rows) - ids)[:5])
final = {"COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED", "COMPLETED_FAILED", "REJECTED"}
assert all(r["final_state"] in final for r in rows.values()), [r for r in rows.values() if r["final_state"] not in final][:3]
PY
      fi
      n=$((n + 1))
    done
    [ "$n" -eq 31 ] || fail "expected Batsim's 31 workloads, found $n"
    # storage profiles need a storage host: small_platform.xml has none
    run "$SGAI" batch run --platform "${P%cluster512_pfs.xml}small_platform.xml" --max-resources 4 \
      --workload "$W/test_tuto_stencil.json" --out "$tmp/nostorage"
    expect_rc 1
    no_backtrace
    expect_one_error_line "job '0': its part initial_load: profile 'initial_load' (type parallel_homogeneous_pfs) reads and writes storage 'pfs', but the platform has no storage host"
    [ ! -e "$tmp/nostorage" ] || fail "a rejected workload left its output folder" ;;
  batsim_workloads.expected)
    # cluster512.xml: the platform whose links (1 GB/s, 5 us) and backbone give Batsim's figures
    python3 - "$SGAI" "$W" "${P%_pfs.xml}.xml" "$tmp" <<'PY' || fail "expected times"
import csv, json, os, subprocess, sys
sgai, W, P, tmp = sys.argv[1:]
checked = 0
for name in sorted(os.listdir(W)):
    w = json.load(open(os.path.join(W, name)))
    prof = w["profiles"]
    def expected(j):
        p = prof[j["profile"]]
        t = j.get("expected_execution_time", p.get("expected_execution_time"))
        s = j.get("expected_state")
        if s is None and str(j["id"]).endswith(("-wr", "-wt")):
            s, t = "COMPLETED_WALLTIME_REACHED", j.get("walltime")
        return t, s
    def runs_here(p):
        if p["type"] in ("TraceReplayProfile", "trace_replay", "smpi"):
            return False
        return all(runs_here(prof[q]) for q in p.get("seq", []))
    jobs = [j for j in w["jobs"] if expected(j) != (None, None) and runs_here(prof[j["profile"]])]
    if not jobs:
        continue
    # one at a time: each job submitted once the previous one's walltime (or expected time) is over
    t, seq = 0.0, []
    for j in jobs:
        k = dict(j, subtime=t)
        seq.append(k)
        t += max(j.get("walltime", 0), expected(j)[0] or 0) + 1000
    names = {j["profile"] for j in jobs}
    while True:  # the parts of composed profiles too
        more = {q for n in names for q in prof[n].get("seq", [])} - names
        if not more:
            break
        names |= more
    cut = dict(w, jobs=seq, profiles={n: prof[n] for n in names})
    src = os.path.join(tmp, name)
    json.dump(cut, open(src, "w"))
    out = os.path.join(tmp, name + ".out")
    r = subprocess.run([sgai, "batch", "run", "--platform", P, "--workload", src, "--out", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, (name, r.stderr[-500:])
    rows = {x["job_id"]: x for x in csv.DictReader(open(os.path.join(out, "jobs.csv")))}
    for j in jobs:
        t, s = expected(j)
        x = rows[str(j["id"])]
        if s is not None:
            assert x["final_state"] == s, (name, j["id"], s, x["final_state"])
        if t is not None:
            got = float(x["execution_time"])
            assert abs(got - t) <= 1e-6 * max(1, t), (name, j["id"], t, got)
        checked += 1
print("jobs with Batsim's expectations, all met:", checked)
assert checked >= 60, checked
PY
    ;;
  *) fail "unknown case $1" ;;
esac
