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
  *)
    fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
