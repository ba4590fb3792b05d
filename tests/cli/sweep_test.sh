#!/usr/bin/env bash
# sgai sweep: a campaign run locally (the shipped example), killed mid-run and resumed (each run
# recorded once, the stopped ones rerun), exported, and bad campaign files.
# Usage: sweep_test.sh CASE   (run from the repository root; $SGAI is the binary)
source "$(dirname "$0")/lib.sh"
case_name=$1

db_count() { /usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$@"; }

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
    # 20 points of about a second each (a week of the AI-ops example), 2 at a time, 15 runs allowed;
    # SIGTERM after 3 s
    cat >"$tmp/c.json" <<JSON
{"sgai_campaign": 1, "experiment": "$PWD/deploy/experiments/aiops-week.json",
 "parameters": [{"name": "seed", "pointer": "/seed", "range": {"from": 1, "to": 10, "step": 1}},
                {"name": "transfers", "pointer": "/components/0/options/transfers", "values": ["analytic", "contended"]}],
 "objective": {"figure": "/components/aiops/aiops_mean_staleness", "goal": "minimise"},
 "sla": {"max_runs": 15}}
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
    [ "$done_before" -lt 15 ] || fail "everything ran before the kill"
    run "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/d" --jobs 2 --strategy full; expect_rc 0
    grep -q "Resumed: $running run" <<<"$out" || fail "$out"
    # the budget holds across the kill: 15 runs, the stopped ones among them
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE status = 'done'")" -eq 15 ] || fail "not 15 done"
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs")" -eq 15 ] || fail "not 15 runs"
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(DISTINCT point) FROM runs")" -eq 15 ] || fail "a point twice"
    # the stopped runs ran again (two attempts), the others once
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE attempts = 2")" -eq "$running" ] || fail "attempts"
    [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE attempts = 1")" -eq $((15 - running)) ] || fail "attempts"
    for r in $(seq 1 15); do [ -s "$tmp/d/runs/$r/out/summary.json" ] || fail "run $r has no summary"; done ;;
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
    expect_one_error_line "another campaign's database" ;;
  *)
    fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
