#!/usr/bin/env bash
# CLI tests of sgai's workload manager driven by a scheduler process over Batsim's protocol
# (--socket-endpoint): every decision kind, every malformed or impossible decision, a scheduler
# that dies or hangs, signals while waiting, the Python example against the internal EASY, and
# batsched itself when its binary is there.
# Usage: batsim_protocol_test.sh CASE   (run from the repository root; $SGAI is the binary)
source "$(dirname "$0")/lib.sh"
case_name=$1
F=tests/fixtures
S=$F/batsim/scripted_scheduler.py
ML=../shared/data/batsim/medium_late
sock="ipc://$tmp/scheduler.sock"
# scheduler MODE: starts the scripted scheduler in the background, its log in $tmp/log
# (it has bound its socket once its log exists: waits for that, so that a loaded machine's slow
# Python start-up does not count against sgai's --socket-timeout)
scheduler() {
  rm -f "$tmp/log"
  timeout 60 /usr/bin/python3 $S "$1" "$sock" "$tmp/log" >"$tmp/sched.out" 2>&1 &
  spid=$!
  for _ in $(seq 400); do [ -e "$tmp/log" ] && break; sleep 0.05; done
}
external() { run "$SGAI" batch run --platform $F/platforms/sleep4.xml --workload $F/batsim/delays.json \
  --socket-endpoint "$sock" --out "$1" "${@:2}"; }

case "$case_name" in
  batsim_protocol_features)
    scheduler features
    external "$tmp/o" --socket-timeout 20; expect_rc 0; no_backtrace; wait $spid || fail "the scheduler: $(cat "$tmp/sched.out")"
    for line in "0.0 SIMULATION_BEGINS" "0.0 JOB_SUBMITTED {\"job\": {\"id\": \"w0!1\", \"profile\": \"d20\", \"res\": 2, \"subtime\": 0.0, \"walltime\": 100.0}, \"job_id\": \"w0!1\"}" \
                "2.0 RESOURCE_STATE_CHANGED {\"resources\": \"3\", \"state\": \"1\"}" "7.5 REQUESTED_CALL {}" \
                "8.5 RESOURCE_STATE_CHANGED {\"resources\": \"3\", \"state\": \"0\"}" \
                "12.0 NOTIFY {\"type\": \"no_more_static_job_to_submit\"}" \
                "13.5 JOB_COMPLETED {\"alloc\": \"2-3\", \"job_id\": \"w0!2\", \"job_state\": \"COMPLETED_SUCCESSFULLY\", \"return_code\": 0}" \
                "15.0 JOB_KILLED {\"job_ids\": [\"w0!4\"], \"job_progress\": {\"w0!4\": {\"profile\": \"d20\"}}}" \
                "20.0 SIMULATION_ENDS {}"; do
      grep -qF -- "$line" "$tmp/log" || fail "the scheduler did not receive: $line"
    done
    # the energy asked at 7.5 s: machines 0-2 at idle power (90 W: delay jobs compute nothing), 3
    # switching off for 2 s (100 W) then asleep (9 W); the master host is no machine
    /usr/bin/python3 - "$tmp/log" <<'PY' || fail "the ANSWER"
import json, sys
for line in open(sys.argv[1]):
    if " ANSWER " in line:
        got = json.loads(line.split(" ANSWER ", 1)[1])["consumed_energy"]
        want = 7.5 * 3 * 90 + 2 * 100 + 5.5 * 9
        assert abs(got - want) < 1e-6 * want, (got, want)
        break
else:
    raise SystemExit("no ANSWER")
PY
    /usr/bin/python3 - "$tmp/o/jobs.csv" <<'PY' || fail "jobs.csv: $(cat "$tmp/o/jobs.csv")"
import csv, sys
rows = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert rows["1"]["metadata"] == "tagged" and rows["2"]["metadata"] == "", rows
assert (rows["2"]["starting_time"], rows["2"]["allocated_resources"]) == ("8.5", "2-3"), rows["2"]  # m3 woke at 8.5
assert rows["3"]["final_state"] == "REJECTED", rows["3"]
assert (rows["4"]["final_state"], rows["4"]["finish_time"]) == ("COMPLETED_KILLED", "15"), rows["4"]
PY
    ;;
  batsim_protocol_dynamic)
    scheduler dynamic
    external "$tmp/d" --enable-dynamic-jobs --acknowledge-dynamic-jobs --socket-timeout 20; expect_rc 0; no_backtrace
    wait $spid || fail "the scheduler: $(cat "$tmp/sched.out")"
    for line in "0.0 JOB_SUBMITTED {\"job\": {\"id\": \"dyn!a\", \"profile\": \"d4\", \"res\": 2, \"subtime\": 0.0, \"walltime\": 50.0}, \"job_id\": \"dyn!a\"}" \
                "3.0 JOB_SUBMITTED {\"job\": {\"id\": \"dyn!b\", \"profile\": \"d4\", \"res\": 1, \"subtime\": 3.0}, \"job_id\": \"dyn!b\"}" \
                "4.0 JOB_COMPLETED {\"alloc\": \"2-3\", \"job_id\": \"dyn!a\"" "45.0 SIMULATION_ENDS {}"; do
      grep -qF -- "$line" "$tmp/log" || fail "the scheduler did not receive: $line"
    done
    ! grep -q "JOB_COMPLETED.*dyn!c" "$tmp/log" || fail "a job ended by CHANGE_JOB_STATE was reported"
    grep -q "SIMULATION_BEGINS.*\"dynamic-jobs-acknowledged\": true, \"dynamic-jobs-enabled\": true" "$tmp/log" \
      || fail "SIMULATION_BEGINS' config: $(grep SIMULATION_BEGINS "$tmp/log" | cut -c1-400)"
    /usr/bin/python3 - "$tmp/d/jobs.csv" <<'PY' || fail "jobs.csv: $(cat "$tmp/d/jobs.csv")"
import csv, sys
rows = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[1]))}
want = {"a": ("dyn", "COMPLETED_SUCCESSFULLY", "0", "4", "2-3"), "b": ("dyn", "COMPLETED_SUCCESSFULLY", "9", "13", "2"),
        "c": ("dyn", "COMPLETED_FAILED", "3", "6", ""), "d": ("dyn", "REJECTED", "-1", "-1", "")}
for k, w in want.items():
    r = rows[k]
    got = (r["workload_name"], r["final_state"], r["starting_time"], r["finish_time"], r["allocated_resources"])
    assert got == w, (k, got, w)
assert len(rows) == 8, len(rows)
PY
    # registrations without --enable-dynamic-jobs; a registration never finished
    scheduler dynamic
    external "$tmp/d1" --socket-timeout 5; expect_rc 1
    expect_one_error_line "reply 1: event 0 (REGISTER_PROFILE): dynamic jobs are not enabled (--enable-dynamic-jobs"
    kill $spid 2>/dev/null; wait $spid 2>/dev/null
    scheduler dynamic_unfinished
    external "$tmp/d2" --enable-dynamic-jobs --socket-timeout 5; expect_rc 1
    expect_one_error_line "dynamic jobs are enabled and nothing is left to happen, but the scheduler never sent NOTIFY registration_finished (at 45 s)"
    kill $spid 2>/dev/null; wait $spid 2>/dev/null
    [ ! -e "$tmp/d1" ] && [ ! -e "$tmp/d2" ] || fail "a half-written output folder"
    run "$SGAI" batch run --platform $F/platforms/sleep4.xml --workload $F/batsim/delays.json --socket-endpoint "$sock" \
      --acknowledge-dynamic-jobs --out "$tmp/u"
    expect_rc 2; expect_one_error_line "--acknowledge-dynamic-jobs needs --enable-dynamic-jobs"
    run "$SGAI" batch run --platform $F/platforms/sleep4.xml --workload $F/batsim/delays.json --enable-dynamic-jobs \
      --out "$tmp/u"
    expect_rc 2; expect_one_error_line "--enable-dynamic-jobs and --acknowledge-dynamic-jobs need --socket-endpoint" ;;
  batsim_protocol_bogus)
    while IFS='|' read -r mode message; do
      scheduler "$mode"
      external "$tmp/b_$mode" --socket-timeout 2; expect_rc 1; expect_one_error_line "$message"; no_backtrace
      [ ! -e "$tmp/b_$mode" ] || fail "$mode: a half-written output folder"
      nothing_left "$tmp"
      kill $spid 2>/dev/null; wait $spid 2>/dev/null
    done <<'CASES'
bogus_unknown_job|reply 2: event 0 (EXECUTE_JOB): unknown job 'w0!nope' (no JOB_SUBMITTED named it)
bogus_outside|reply 2: at /events/0/data/alloc: resource 7 in interval set '0-1 7' is not on the platform (ids 0 to 3)
bogus_overlap|reply 2: event 1 (EXECUTE_JOB): job 'w0!2': alloc '1-2': resource 1 (host m1) is running job 'w0!1'
bogus_past|reply 2: at /events/0/timestamp: event dated -5 s, before now (0 s): it would change the past
bogus_size|reply 2: event 0 (EXECUTE_JOB): job 'w0!1' asks 2 resources, alloc '0' gives 1
bogus_unknown_type|reply 2: at /events/0/type: unknown event type 'EXECUTE_JOBS'
bogus_call_now|reply 2: at /events/0/data/timestamp: a call is asked for 0 s, not after now (0 s)
bogus_twice|reply 2: event 1 (EXECUTE_JOB): job 'w0!1' is not waiting
bogus_malformed|reply 2: line 1, column 3: invalid JSON
bogus_no_now|reply 2: at (root): missing field 'now'
bogus_kill_waiting|reply 4: event 0 (KILL_JOB): job 'w0!3' is waiting, not running
bogus_reject_running|reply 4: event 0 (REJECT_JOB): job 'w0!1' cannot be rejected: it is RUNNING, not waiting
bogus_sleep_busy|reply 4: event 0 (SET_RESOURCE_STATE): resources '0': host m0 cannot be switched off: it is computing
bogus_ends_events|the reply to SIMULATION_ENDS holds 1 event; it must hold none
bogus_die|no reply to request 3 within 2 s (the scheduler died, hangs, or listens elsewhere
bogus_hang|no reply to request 3 within 2 s
CASES
    # a scheduler killed (SIGKILL) while sgai waits for its reply
    scheduler bogus_hang
    "$SGAI" batch run --platform $F/platforms/sleep4.xml --workload $F/batsim/delays.json --socket-endpoint "$sock" \
      --socket-timeout 3 --out "$tmp/k" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 100); do grep -q JOB_SUBMITTED "$tmp/log" 2>/dev/null && break; sleep 0.1; done
    sleep 0.3
    pkill -KILL -f "scripted_scheduler.py bogus_hang $sock"
    wait $pid; rc=$?; err=$(cat "$tmp/err")
    expect_rc 1; expect_one_error_line "no reply to request 3 within 3 s"; no_backtrace
    [ ! -e "$tmp/k" ] || fail "a killed scheduler: a half-written output folder"
    wait $spid 2>/dev/null
    # nobody listening at all
    external "$tmp/none" --socket-timeout 1; expect_rc 1; expect_one_error_line "no reply to request 1 within 1 s"
    [ ! -e "$tmp/none" ] || fail "no scheduler: a half-written output folder" ;;
  batsim_protocol_signals)
    for sig in INT TERM; do
      scheduler bogus_hang
      "$SGAI" batch run --platform $F/platforms/sleep4.xml --workload $F/batsim/delays.json --socket-endpoint "$sock" \
        --out "$tmp/s$sig" >"$tmp/out" 2>"$tmp/err" &
      pid=$!
      for _ in $(seq 100); do grep -q JOB_SUBMITTED "$tmp/log" 2>/dev/null && break; sleep 0.1; done
      sleep 0.5
      kill -$sig $pid; wait $pid; rc=$?; err=$(cat "$tmp/err")
      [ $sig = INT ] && expect_rc 130 || expect_rc 143
      grep -qx "sgai: interrupted by SIG$sig: run stopped, partial outputs removed" "$tmp/err" || fail "the line: $err"
      [ ! -e "$tmp/s$sig" ] || fail "SIG$sig left the output folder"
      nothing_left "$tmp"
      kill $spid 2>/dev/null; wait $spid 2>/dev/null
    done ;;
  batsim_protocol_usage)
    for bad in "--backfill easy" "--jobs shortest" "--resources random"; do
      # shellcheck disable=SC2086
      run "$SGAI" batch run --platform $F/platforms/sleep4.xml --workload $F/batsim/delays.json --socket-endpoint "$sock" \
        --out "$tmp/u" $bad
      expect_rc 2; expect_one_error_line "--socket-endpoint: the external scheduler decides alone"
    done
    run "$SGAI" batch run --platform $F/platforms/sleep4.xml --workload $F/batsim/delays.json --socket-endpoint "nonsense" \
      --out "$tmp/u"
    expect_rc 2; expect_one_error_line "--socket-endpoint: ZeroMQ cannot connect to 'nonsense'"
    run "$SGAI" batch run --platform $F/platforms/sleep4.xml --workload $F/batsim/delays.json --socket-endpoint "$sock" \
      --socket-timeout 0 --out "$tmp/u"
    expect_rc 2
    [ ! -e "$tmp/u" ] || fail "a usage error left an output folder" ;;
  batsim_protocol_python)
    shared_or_skip
    # the example scheduler (examples/python/batsim_easy.py) against sgai's own EASY, job for job
    /usr/bin/python3 examples/python/batsim_easy.py "$sock" >"$tmp/sched.out" 2>&1 &
    spid=$!
    run "$SGAI" batch run --platform $ML/platform.xml --workload $ML/medium_late.json --socket-endpoint "$sock" \
      --out "$tmp/py"
    expect_rc 0; wait $spid || fail "the example: $(cat "$tmp/sched.out")"
    run "$SGAI" batch run --platform $ML/platform.xml --workload $ML/medium_late.json --backfill easy --out "$tmp/in"
    expect_rc 0
    /usr/bin/python3 - "$tmp/py/jobs.csv" "$tmp/in/jobs.csv" <<'PY' || fail "the example's schedule differs"
import csv, sys
a = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[1]))}
b = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[2]))}
assert len(a) == len(b) == 801
diff = [k for k in b if (a[k]["starting_time"], a[k]["allocated_resources"]) != (b[k]["starting_time"], b[k]["allocated_resources"])]
assert not diff, f"{len(diff)} jobs differ, first {diff[:3]}"
PY
    cmp <(cut -d, -f1-15 "$tmp/py/jobs.csv") <(cut -d, -f1-15 "$tmp/in/jobs.csv") || fail "jobs.csv differs" ;;
  batsim_protocol_batsched)
    shared_or_skip
    bs=${BATSCHED:-$(command -v batsched)}
    [ -n "$bs" ] && [ -x "$bs" ] || { echo "no batsched binary (set BATSCHED; docs/batsim-peer.md builds one): skipped"; exit 77; }
    # batsched's easy_bf through the socket gives Batsim's own medium_late schedule (easy/)
    "$bs" -v easy_bf -s "$sock" >"$tmp/sched.out" 2>&1 &
    spid=$!
    run "$SGAI" batch run --platform $ML/platform.xml --workload $ML/medium_late.json --socket-endpoint "$sock" \
      --out "$tmp/bs"
    expect_rc 0; wait $spid
    /usr/bin/python3 - "$tmp/bs" $ML/easy <<'PY' || fail "batsched's easy_bf through sgai"
import csv, json, sys
a = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[1] + "/jobs.csv"))}
b = {r["job_id"]: r for r in csv.DictReader(open(sys.argv[2] + "/out_jobs.csv"))}
same = sum(abs(float(a[k]["starting_time"]) - float(b[k]["starting_time"])) < 1e-4 for k in b)
assert same == len(b) == 801, same
e = json.load(open(sys.argv[1] + "/schedule.json"))["energy_j"]
eb = float(next(csv.DictReader(open(sys.argv[2] + "/out_schedule.csv")))["consumed_joules"])
assert abs(e - eb) <= 0.005 * eb, (e, eb)
PY
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
