#!/usr/bin/env bash
# sgai aiops: fitting an hour-of-week arrival profile (the held-back Alibaba openb pods), the model
# file it writes, and bad observations (line and column named, exit 1, no model left).
# Usage: aiops_test.sh CASE   (run from the repository root; $SGAI is the binary)
source "$(dirname "$0")/lib.sh"
case_name=$1
O=../shared/data/ml-clusters/alibaba-clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv

case "$case_name" in
  aiops_fit)
    shared_or_skip
    run "$SGAI" aiops fit $O --column creation_time --from 9936000 --hold-out 12355200 --out "$tmp/m.json"
    expect_rc 0
    grep -q '5845 gaps fitted' <<<"$out" || fail "$out"
    ks=$(sed -n 's/.*profile \([0-9.]*\), one exponential \([0-9.]*\)/\1 \2/p' <<<"$out")
    /usr/bin/python3 -c "
import sys,json
p,e=map(float,'$ks'.split())
assert p <= 0.15 and p < e, (p, e)
m=json.load(open('$tmp/m.json'))
assert m['sgai_aiops_model'] == 1 and len(m['arrivals']['hours']) == 168
" || fail "KS or model: $out"
    # the same inputs give the same model
    run "$SGAI" aiops fit $O --column creation_time --from 9936000 --hold-out 12355200 --out "$tmp/m2.json"
    cmp -s "$tmp/m.json" "$tmp/m2.json" || fail "not deterministic"
    # ISO 8601 dates: the real weekday
    printf 'when\n2023-05-01T16:00:00Z\n2023-05-01T16:00:30Z\n2023-05-01T16:01:30Z\n2023-05-01T16:03:00Z\n' >"$tmp/iso.csv"
    run "$SGAI" aiops fit "$tmp/iso.csv" --column when --out "$tmp/iso.json"; expect_rc 0
    grep -q 'from the dates' "$tmp/iso.json" || fail "$(cat "$tmp/iso.json" | head -5)" ;;
  aiops_fit_kinds)
    shared_or_skip
    # training time, one stratum: Philly's 83,154 runtimes (zeros left out)
    P=../shared/data/ml-clusters/alibaba-clusterdata/cluster-trace-gpu-v2020/analysis/philly_runtime.csv
    printf 'framework,seconds\n' >"$tmp/train.csv"
    for i in $(seq 1 200); do echo "tensorflow,$((150 + i % 60))" >>"$tmp/train.csv"; echo "sparkml,$((8 + i % 5))" >>"$tmp/train.csv"; done
    run "$SGAI" aiops fit "$tmp/train.csv" --kind training --column seconds --framework-column framework --out "$tmp/t.json"
    expect_rc 0
    grep -q 'Framework sparkml: 200 durations, share 0.5000' <<<"$out" || fail "$out"
    printf 'rows,columns,bytes\n' >"$tmp/assets.csv"
    for i in $(seq 1 300); do echo "$((100 * i)),$((2 + i % 9)),$((400 * i * (2 + i % 9)))" >>"$tmp/assets.csv"; done
    echo "10,1,40" >>"$tmp/assets.csv"
    run "$SGAI" aiops fit "$tmp/assets.csv" --kind assets --out "$tmp/a.json"; expect_rc 0
    grep -q 'Assets: 300 fitted, 1 left out' <<<"$out" || fail "$out"
    printf 'size,seconds\n1,2.7\n2,7.4\n3,20.1\n4,54.6\n' >"$tmp/pre.csv"
    run "$SGAI" aiops fit "$tmp/pre.csv" --kind preprocess --size-column size --column seconds --out "$tmp/p.json"
    expect_rc 0
    /usr/bin/python3 -c "
import json
p=json.load(open('$tmp/p.json'))['preprocess']
assert abs(p['b'] - 1) < 0.01 and abs(p['a'] - 1) < 0.02, p
" || fail "preprocess fit" ;;
  aiops_errors)
    printf 't\n5\n7\nsoon\n' >"$tmp/nan.csv"
    run "$SGAI" aiops fit "$tmp/nan.csv" --column t --out "$tmp/x.json"; expect_rc 1
    expect_one_error_line "line 4, column 't': not a number: 'soon'"
    printf 't\n5\n7\n6\n' >"$tmp/down.csv"
    run "$SGAI" aiops fit "$tmp/down.csv" --column t --out "$tmp/x.json"; expect_rc 1
    expect_one_error_line "line 4, column 't': times decrease"
    run "$SGAI" aiops fit "$tmp/down.csv" --column when --out "$tmp/x.json"; expect_rc 1
    expect_one_error_line "no column 'when'"
    printf 't\n5\n' >"$tmp/one.csv"
    run "$SGAI" aiops fit "$tmp/one.csv" --column t --out "$tmp/x.json"; expect_rc 1
    expect_one_error_line "at least two"
    run "$SGAI" aiops fit "$tmp/down.csv" --column t --origin funday:3 --out "$tmp/x.json"; expect_rc 2
    run "$SGAI" aiops fit "$tmp/down.csv" --kind preprocess --column t --out "$tmp/x.json"; expect_rc 2
    expect_one_error_line "--size-column"
    run "$SGAI" aiops fit "$tmp/down.csv" --kind assets --out "$tmp/x.json"; expect_rc 1
    expect_one_error_line "no column 'rows'"
    [ ! -e "$tmp/x.json" ] || fail "an error left a model"
    nothing_left "$tmp" ;;
  aiops_bogus)
    # every bogus observation file: exit 1, one error line naming the file, no model written
    for f in tests/fixtures/aiops/bogus_*.csv; do
      run "$SGAI" aiops fit "$f" --column t --out "$tmp/m.json"; expect_rc 1
      expect_one_error_line "$f"
      [ ! -e "$tmp/m.json" ] || fail "$f left a model"
    done
    nothing_left "$tmp" ;;
  aiops_bogus_experiments)
    # every bogus experiment: exit 1, one error line naming the file, no output folder
    for f in tests/fixtures/aiops/bogus_experiment_*.json; do
      run "$SGAI" aiops run "$f" --out "$tmp/result"; expect_rc 1
      expect_one_error_line "$f"
      [ ! -e "$tmp/result" ] || fail "$f left an output folder"
    done
    nothing_left "$tmp" ;;
  aiops_run)
    # the shipped week: the database, the CSV summaries, the five queries, the plots; the same seed
    # gives the same files, without the database only the CSVs
    E=deploy/aiops/health-week.json
    run "$SGAI" aiops run $E --out "$tmp/a"; expect_rc 0
    for f in aiops.sqlite summary.csv resources.csv deployed.csv; do [ -s "$tmp/a/$f" ] || fail "no $f"; done
    grep -q '^pipelines,1[0-9][0-9][0-9][0-9]$' "$tmp/a/summary.csv" || fail "$(cat "$tmp/a/summary.csv")"
    run "$SGAI" aiops query "$tmp/a/aiops.sqlite" utilisation --week 0; expect_rc 0
    [ "$(grep -c '^training,' <<<"$out")" -eq 168 ] || fail "utilisation: $(head -3 <<<"$out")"
    run "$SGAI" aiops query "$tmp/a/aiops.sqlite" arrivals; expect_rc 0
    [ "$(wc -l <<<"$out")" -eq 169 ] || fail "arrivals: $(head -3 <<<"$out")"
    # the default profile's peak at 16:00 against 04:00, Monday
    /usr/bin/python3 -c "
import sys
rows = dict(l.split(',') for l in sys.stdin.read().split()[1:])
assert int(rows['16']) > 2 * int(rows['4']), (rows['16'], rows['4'])" <<<"$out" || fail "no peak: $out"
    run "$SGAI" aiops query "$tmp/a/aiops.sqlite" waits; expect_rc 0
    [ "$(wc -l <<<"$out")" -ge 8 ] || fail "waits: $out"
    run "$SGAI" aiops query "$tmp/a/aiops.sqlite" store --day 2; expect_rc 0
    [ "$(wc -l <<<"$out")" -eq 25 ] || fail "store: $out"
    run "$SGAI" aiops query "$tmp/a/aiops.sqlite" pipeline --pipeline 100; expect_rc 0
    grep -q '^task,kind,resource' <<<"$out" || fail "pipeline: $out"
    run "$SGAI" aiops query "$tmp/a/aiops.sqlite" pipeline; expect_rc 2
    run "$SGAI" aiops query "$tmp/a/aiops.sqlite" pipeline --pipeline 99999999; expect_rc 1
    expect_one_error_line "no pipeline 99999999"
    run "$SGAI" aiops plot "$tmp/a"; expect_rc 0
    for p in utilisation arrivals wait store staleness qq; do [ -s "$tmp/a/aiops-$p.png" ] || fail "no $p plot: $out $err"; done
    run "$SGAI" aiops run $E --out "$tmp/b" --quiet; expect_rc 0
    [ -z "$out" ] || fail "--quiet printed: $out"
    for f in summary.csv resources.csv deployed.csv; do cmp -s "$tmp/a/$f" "$tmp/b/$f" || fail "$f differs"; done
    run "$SGAI" aiops run $E --out "$tmp/c" --no-database --seed 2 --duration 2d --transfers analytic; expect_rc 0
    [ ! -e "$tmp/c/aiops.sqlite" ] || fail "a database with --no-database"
    cmp -s "$tmp/a/summary.csv" "$tmp/c/summary.csv" && fail "another seed, the same figures"
    grep -q '^duration_s,172800$' "$tmp/c/summary.csv" || fail "$(cat "$tmp/c/summary.csv")" ;;
  aiops_run_errors)
    # bad experiments: one error line naming the file and the place, exit 1, no output folder
    E=deploy/aiops/health-week.json
    check() { # check NAME SED_EXPRESSION EXPECTED_TEXT
      sed "$2" $E >"$tmp/$1.json"
      sed -i 's|"../../platforms/|"'"$PWD"'/platforms/|; s|"default-model.json"|"'"$PWD"'/deploy/aiops/default-model.json"|' "$tmp/$1.json"
      run "$SGAI" aiops run "$tmp/$1.json" --out "$tmp/out-$1"; expect_rc 1
      expect_one_error_line "$3"
      [ ! -e "$tmp/out-$1" ] || fail "$1 left an output folder"
    }
    check host 's/"hosts": \["training"\]/"hosts": ["tpu-farm"]/' "no host or cluster 'tpu-farm'"
    check cycle 's/{ "name": "prep", "kind": "preprocess" },/{ "name": "prep", "kind": "preprocess", "after": ["eval"] },/' "cycle"
    check kind 's/"kind": "validate"/"kind": "audit"/' "no executor"
    check gate 's/"gate": 0.75/"gate": 7.5/' "/pipelines/2/tasks/2/gate"
    check model 's/"model": "default-model.json"/"model": "missing.json"/' "missing.json"
    check sections 's|"model": "default-model.json"|"model": "'"$PWD"'/deploy/aiops/openb-arrivals.json"|' "\"assets\""
    check store 's/"store": "store-n0"/"store": "nas"/' "no host 'nas'"
    check threshold 's/"kind": "schedule", "value": "4w"/"kind": "threshold", "value": 0/' "above 0"
    run "$SGAI" aiops run $E --out "$tmp/x" --transfers fast; expect_rc 2
    run "$SGAI" aiops query "$tmp/none.sqlite" arrivals; expect_rc 1
    expect_one_error_line "none.sqlite"
    run "$SGAI" aiops plot "$tmp/nothing"; expect_rc 1
    nothing_left "$tmp" ;;
  *)
    fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
