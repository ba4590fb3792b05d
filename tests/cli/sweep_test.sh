#!/usr/bin/env bash
# sgai sweep: a campaign run locally (the shipped example), killed mid-run and resumed (each run
# recorded once, the stopped ones rerun), exported, and bad campaign files.
# Usage: sweep_test.sh CASE   (run from the repository root; $SGAI is the binary)
source "$(dirname "$0")/lib.sh"
case_name=$1

case "$case_name" in
  sweep_local)
    C=deploy/campaigns/quickstart-backfill.json
    run "$SGAI" sweep run $C --dir "$tmp/c" --jobs 2; expect_rc 0
    grep -q '12 done, 0 failed' <<<"$out" || fail "$out"
    [ "$(db_count "$tmp/c/campaign.sqlite" "SELECT COUNT(DISTINCT point) FROM runs")" -eq 12 ] || fail "points"
    run "$SGAI" sweep status $C --dir "$tmp/c"; expect_rc 0
    grep -q '^Best: run [0-9]*, /components/batch/mean_bounded_slowdown = ' <<<"$out" || fail "$out"
    # the SLA's 12 runs are spent: running again adds nothing
    run "$SGAI" sweep run $C --dir "$tmp/c" --jobs 2; expect_rc 0
    grep -q '0 runs ended in this call; 12 done' <<<"$out" || fail "$out"
    run "$SGAI" sweep export $C --dir "$tmp/c" --out "$tmp/runs.csv"; expect_rc 0
    [ "$(wc -l <"$tmp/runs.csv")" -eq 13 ] || fail "$(cat "$tmp/runs.csv")"
    head -1 "$tmp/runs.csv" | grep -q '^run,status,origin,attempts,backfill,jobs,resources,objective,wall_s$' || fail "header"
    # the best value found is the best of the exported runs
    best=$(sed -n 's/^Best: run [0-9]*, [^=]*= \([0-9.e+]*\) .*/\1/p' <<<"$out")
    # a full sweep of the same space in another folder finds every point once
    sed 's/"max_runs": 12/"max_runs": 100/' $C >"$tmp/full.json"
    sed -i "s|\"../experiments/quickstart.json\"|\"$PWD/deploy/experiments/quickstart.json\"|" "$tmp/full.json"
    run "$SGAI" sweep run "$tmp/full.json" --dir "$tmp/f" --jobs 2 --strategy full; expect_rc 0
    grep -q '24 done' <<<"$out" || fail "$out"
    run "$SGAI" sweep init "$tmp/full.json" --dir "$tmp/f"; expect_rc 1
    expect_one_error_line "already"
    nothing_left "$tmp" ;;
  sweep_resume)
    # a 20-run campaign (24 points of about a second each, a week of the AI-ops example, 20 runs
    # allowed), 2 at a time; SIGTERM after 3 s
    cat >"$tmp/c.json" <<JSON
{"sgai_campaign": 1, "experiment": "$PWD/deploy/experiments/aiops-week.json",
 "parameters": [{"name": "seed", "pointer": "/seed", "range": {"from": 1, "to": 12, "step": 1}},
                {"name": "transfers", "pointer": "/components/0/options/transfers", "values": ["analytic", "contended"]}],
 "objective": {"figure": "/components/aiops/aiops_mean_staleness", "goal": "minimise"},
 "sla": {"max_runs": 20}}
JSON
    "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/d" --jobs 2 --strategy full >"$tmp/first.out" 2>"$tmp/first.err" &
    pid=$!
    sleep 3
    kill -TERM $pid
    wait $pid; rc=$?
    [ "$rc" -eq 143 ] || fail "the killed campaign exited $rc: $(cat "$tmp/first.err")"
    done_before=$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE status = 'done'")
    running=$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE status = 'running'")
    [ "$running" -ge 1 ] || fail "no run was stopped mid-way ($done_before done)"
    [ "$done_before" -lt 20 ] || fail "everything ran before the kill"
    run "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/d" --jobs 2 --strategy full; expect_rc 0
    grep -q "Resumed: $running run" <<<"$out" || fail "$out"
    # the budget holds across the kill: 20 runs, the stopped ones among them
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE status = 'done'")" -eq 20 ] || fail "not 20 done"
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs")" -eq 20 ] || fail "not 20 runs"
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(DISTINCT point) FROM runs")" -eq 20 ] || fail "a point twice"
    # the stopped runs ran again (two attempts), the others once
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE attempts = 2")" -eq "$running" ] || fail "attempts"
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE attempts = 1")" -eq $((20 - running)) ] || fail "attempts"
    for r in $(seq 1 20); do [ -s "$tmp/d/runs/$r/out/summary.json" ] || fail "run $r has no summary"; done ;;
  sweep_slurm)
    # A 20-run campaign on a one-machine Slurm cluster started here (tests/cli/slurm_cluster.sh),
    # daemons included in at most 60 s: 4 runs locally, then 16 on Slurm; one pending array task
    # cancelled: it left the queue without a result, so it ran again once (recorded), the others
    # once. Never skipped: when the
    # daemons cannot start, the daemon's log lines say why and the test fails.
    t0=$(date +%s.%N)
    source tests/cli/slurm_cluster.sh
    trap 'slurm_stop; rm -rf "$tmp"' EXIT
    slurm_start "$tmp/slurm" || fail "the test cluster did not start (above: the daemons' reasons)"
    cat >"$tmp/c.json" <<JSON
{"sgai_campaign": 1, "name": "twenty", "experiment": "$PWD/deploy/experiments/quickstart.json",
 "parameters": [{"name": "seed", "pointer": "/seed", "range": {"from": 1, "to": 10, "step": 1}},
                {"name": "backfill", "pointer": "/components/0/options/backfill", "values": ["easy", "conservative"]}],
 "objective": {"figure": "/components/batch/mean_bounded_slowdown", "goal": "minimise"}}
JSON
    # the campaign moves between runners: 4 runs here first, the 16 others on Slurm
    run "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/d" --runs 4 --jobs 2 --strategy full; expect_rc 0
    "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/d" --runner slurm --poll 0.5 --strategy full --throttle 2 \
      >"$tmp/runner.out" 2>&1 &
    pid=$!
    victim=""
    for _ in $(seq 100); do # the last array task while it waits
      victim=$(squeue -h -r -t PENDING -o '%i' 2>/dev/null | sort -t_ -k2 -n | tail -1)
      [ -n "$victim" ] && break
      sleep 0.1
    done
    [ -n "$victim" ] || fail "no pending task to cancel: $(cat "$tmp/runner.out")"
    scancel "$victim" || fail "scancel $victim"
    wait $pid || fail "the Slurm runner failed: $(cat "$tmp/runner.out")"
    out=$(cat "$tmp/runner.out")
    grep -q "20 done, 0 failed, 0 queued of 20 points" <<<"$out" || fail "$out"
    grep -q "Slurm task $victim left the queue without a result: queued again (once)" <<<"$out" || fail "$out"
    D="$tmp/d/campaign.sqlite"
    [ "$(db_count "$D" "SELECT COUNT(DISTINCT point) FROM runs WHERE status = 'done'")" -eq 20 ] || fail "points"
    [ "$(db_count "$D" "SELECT COUNT(*) FROM runs WHERE runner = 'slurm'")" -eq 16 ] || fail "not 16 runs on Slurm"
    [ "$(db_count "$D" "SELECT COUNT(*) FROM runs WHERE lost = 1 AND attempts = 2")" -eq 1 ] || fail "the lost run"
    [ "$(db_count "$D" "SELECT COUNT(*) FROM runs WHERE lost = 0 AND attempts = 1")" -eq 19 ] || fail "attempts"
    for r in $(seq 5 20); do [ -s "$tmp/d/runs/$r/result.json" ] || fail "run $r has no result.json"; done
    [ "$(ls "$tmp/d/slurm/"*_*.out | wc -l)" -eq 16 ] || fail "the tasks' Slurm outputs are not in the campaign's folder"
    ! ls slurm-*.out >/dev/null 2>&1 || fail "Slurm outputs in the working folder"
    # Slurm's own completion log agrees: 16 tasks completed (the cancelled one never ran)
    [ "$(grep -c 'JobState=COMPLETED' "$tmp/slurm/jobcomp.txt")" -eq 16 ] || fail "jobcomp: $(cat "$tmp/slurm/jobcomp.txt")"
    # another call finds nothing to do
    run "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/d" --runner slurm --poll 0.5 --strategy full; expect_rc 0
    grep -q '0 runs ended in this call; 20 done' <<<"$out" || fail "$out"
    # the Slurm runner killed while its tasks run: the local runner refuses the campaign meanwhile,
    # and the Slurm runner resumes it, each run once
    "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/k" --runner slurm --poll 0.5 --strategy full --throttle 2 \
      >"$tmp/killed.out" 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q "Submitted" "$tmp/killed.out" && break; sleep 0.1; done
    kill -TERM $pid
    wait $pid
    run "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/k" --jobs 2; expect_rc 1
    expect_one_error_line "is on Slurm (task "
    run "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/k" --runner slurm --poll 0.5 --strategy full; expect_rc 0
    grep -q "20 done, 0 failed, 0 queued of 20 points" <<<"$out" || fail "$out"
    K="$tmp/k/campaign.sqlite"
    [ "$(db_count "$K" "SELECT COUNT(*) FROM runs WHERE attempts = 1 AND lost = 0")" -eq 20 ] || fail "a run twice"
    # bad set-ups: sbatch's own error shown, exit 1, no campaign folder
    run "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/e" --runner slurm --sbatch=--partition=nowhere; expect_rc 1
    expect_one_error_line "sbatch refuses the campaign's array job: sbatch: error: invalid partition specified: nowhere"
    [ ! -e "$tmp/e" ] || fail "a refused campaign left a folder"
    echo "NodeName=localhost CPUs=1" >"$tmp/bad.conf" # no ClusterName: scontrol stops at once
    run env SLURM_CONF="$tmp/bad.conf" "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/e" --runner slurm; expect_rc 1
    expect_one_error_line "scontrol show config\` failed: scontrol: error: ClusterName needs to be specified"
    [ ! -e "$tmp/e" ] || fail "a misconfigured Slurm left a folder"
    run env SLURM_CONF="$tmp/none.conf" "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/e" --runner slurm; expect_rc 1
    expect_one_error_line "SLURM_CONF names $tmp/none.conf, which does not exist"
    run env PATH=/nowhere "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/e" --runner slurm; expect_rc 1
    expect_one_error_line "cannot run scontrol"
    [ ! -e "$tmp/e" ] || fail "a missing Slurm left a folder"
    elapsed=$(echo "$(date +%s.%N) - $t0" | bc)
    echo "the Slurm test took $elapsed s, daemons included"
    (( $(echo "$elapsed <= 60" | bc) )) || fail "over 60 s: $elapsed s" ;;
  sweep_slurm_training)
    # a configuration search on Slurm (apart from sweep_slurm, whose 20-run campaign and failure
    # cases keep their 60 s bound): the 70B row's 12 layouts as training experiments (docs/training.md),
    # each task's prediction the one train predict makes; the 3 that do not fit fail their runs
    source tests/cli/slurm_cluster.sh
    trap 'slurm_stop; rm -rf "$tmp"' EXIT
    slurm_start "$tmp/slurm" || fail "the test cluster did not start (above: the daemons' reasons)"
    python3 - "$tmp/t.json" "$PWD/deploy/experiments/training-70b.json" <<'PY'
import json, sys
c = json.load(open("deploy/campaigns/training-70b-layouts.json"))
c["experiment"] = sys.argv[2]
json.dump(c, open(sys.argv[1], "w"))
PY
    run "$SGAI" sweep run "$tmp/t.json" --dir "$tmp/t" --runner slurm --poll 0.5 --strategy full; expect_rc 0
    grep -q "9 done, 3 failed, 0 queued of 12 points" <<<"$out" || fail "$out"
    T="$tmp/t/campaign.sqlite"
    [ "$(db_count "$T" "SELECT COUNT(*) FROM runs WHERE runner = 'slurm'")" -eq 12 ] || fail "not 12 runs on Slurm"
    run "$SGAI" sweep export "$tmp/t.json" --dir "$tmp/t" --out "$tmp/t.csv"; expect_rc 0
    grep -q "^7,done,full,1,8,2,1,798980\." "$tmp/t.csv" || fail "the published layout's point: $(cat "$tmp/t.csv")" ;;
  sweep_linked)
    # a parameter with linked pointers ("with"): the shipped campaign's workload sets the core count
    # of its machine too; its first run on the SDSC log runs on 400 cores
    C=deploy/campaigns/hdeeprm-swf.json
    run "$SGAI" sweep run $C --dir "$tmp/c" --jobs 1 --runs 1 --strategy full; expect_rc 0
    grep -q '1 done, 0 failed' <<<"$out" || fail "$out"
    /usr/bin/python3 - "$tmp/c/runs/1/experiment.json" "$tmp/c/runs/1/out/summary.json" <<'PY' || fail "the linked value"
import json, sys
o = json.load(open(sys.argv[1]))["components"][0]["options"]
assert o["workload"].endswith("kth-sp2-first500.json") and o["max_resources"] == 100, o
assert json.load(open(sys.argv[2]))["components"]["batch"]["cores"] == 100
PY
    sed 's/"with": { "\/components\/0\/options\/max_resources": \[100, 400, 128\] }/"with": { "\/components\/0\/options\/max_resources": [100, 400] }/' $C >"$tmp/short.json"
    sed -i "s|\"../experiments/hdeeprm-swf.json\"|\"$PWD/deploy/experiments/hdeeprm-swf.json\"|" "$tmp/short.json"
    run "$SGAI" sweep run "$tmp/short.json" --dir "$tmp/d"; expect_rc 1
    expect_one_error_line "a linked pointer takes one value per value of the parameter (3), not 2"
    sed 's/options\/max_resources": \[/options\/maximum": [/' "$tmp/short.json" >"$tmp/missing.json"
    run "$SGAI" sweep run "$tmp/missing.json" --dir "$tmp/d"; expect_rc 1
    expect_one_error_line "has nothing at '/components/0/options/maximum'"
    [ ! -e "$tmp/d" ] || fail "a bad campaign left a folder" ;;
  sweep_bogus)
    # every bogus campaign: exit 1, one error line naming the file, no campaign folder
    for f in tests/fixtures/sweep/bogus_*.json; do
      run "$SGAI" sweep run "$f" --dir "$tmp/d"; expect_rc 1
      expect_one_error_line "$f"
      [ ! -e "$tmp/d" ] || fail "$f left a campaign folder"
    done ;;
  sweep_errors)
    B=deploy/experiments/quickstart.json
    bad() { # bad NAME JSON EXPECTED
      printf '%s' "$2" >"$tmp/$1.json"
      run "$SGAI" sweep run "$tmp/$1.json" --dir "$tmp/d-$1"; expect_rc 1
      expect_one_error_line "$3"
      [ ! -e "$tmp/d-$1" ] || fail "$1 left a campaign folder"
    }
    E="\"experiment\": \"$PWD/$B\""
    O='"objective": {"figure": "/components/batch/mean_bounded_slowdown"}'
    bad pointer "{\"sgai_campaign\": 1, $E, $O, \"parameters\": [{\"name\": \"x\", \"pointer\": \"/components/0/options/nothing\", \"values\": [1]}]}" "has nothing at '/components/0/options/nothing'"
    bad empty "{\"sgai_campaign\": 1, $E, $O, \"parameters\": [{\"name\": \"x\", \"pointer\": \"/seed\", \"values\": []}]}" "/parameters/0/values"
    bad deadline "{\"sgai_campaign\": 1, $E, $O, \"sla\": {\"deadline\": \"-1h\"}, \"parameters\": [{\"name\": \"x\", \"pointer\": \"/seed\", \"values\": [1]}]}" "deadline"
    bad missing "{\"sgai_campaign\": 1, \"experiment\": \"$tmp/none.json\", $O, \"parameters\": [{\"name\": \"x\", \"pointer\": \"/seed\", \"values\": [1]}]}" "none.json"
    # an objective the runs do not report: exit 1 once the first run ends
    printf '%s' "{\"sgai_campaign\": 1, $E, \"objective\": {\"figure\": \"/components/batch/speed\"}, \"parameters\": [{\"name\": \"x\", \"pointer\": \"/seed\", \"values\": [1, 2]}]}" >"$tmp/obj.json"
    run "$SGAI" sweep run "$tmp/obj.json" --dir "$tmp/d-obj" --jobs 1; expect_rc 1
    expect_one_error_line "no number at '/components/batch/speed'"
    # another campaign's database
    printf '%s' "{\"sgai_campaign\": 1, $E, $O, \"parameters\": [{\"name\": \"x\", \"pointer\": \"/seed\", \"values\": [1, 2, 3]}]}" >"$tmp/other.json"
    run "$SGAI" sweep status "$tmp/other.json" --dir "$tmp/d-obj"; expect_rc 1
    expect_one_error_line "another campaign's database"
    # no database yet: status, suggest, accept, serve and export say so, and make nothing
    for cmd in status suggest accept serve; do
      run "$SGAI" sweep $cmd "$tmp/other.json" --dir "$tmp/none"; expect_rc 1
      expect_one_error_line "no campaign database here"
    done
    run "$SGAI" sweep export "$tmp/other.json" --dir "$tmp/none" --out "$tmp/x.csv"; expect_rc 1
    expect_one_error_line "no campaign database here"
    [ ! -e "$tmp/none" ] && [ ! -e "$tmp/x.csv" ] || fail "a command without a database made something" ;;
  *)
    fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
