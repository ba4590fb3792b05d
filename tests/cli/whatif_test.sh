#!/usr/bin/env bash
# sgai whatif: the graph and prediction commands on the shared Kineto traces, their outputs, and
# bad input (one 'sgai: error:' line naming the file, exit 1, nothing left behind).
# Usage: whatif_test.sh CASE   (run from the repository root; $SGAI is the binary)
source "$(dirname "$0")/lib.sh"
case_name=$1
H=../shared/data/kineto/hta

# bad_input PART... -- CMD...: exit 1, one error line holding every part, no output folder left
bad_input() {
  local parts=() p
  while [ "$1" != -- ]; do parts+=("$1"); shift; done
  shift
  run "$@"; expect_rc 1
  expect_one_error_line "${parts[0]}"
  for p in "${parts[@]}"; do
    grep '^sgai: error:' "$tmp/err" | grep -qF -- "$p" || fail "error line lacks '$p': $err"
  done
  no_backtrace
}

case "$case_name" in
  whatif_graph)
    shared_or_skip
    run "$SGAI" whatif graph $H/ns_resolution_trace --out "$tmp/g"; expect_rc 0
    grep -q 'catalogue V100 SXM2 32GB' <<<"$out" || fail "the GPU from deviceProperties: $out"
    grep -q '^Critical path: ' <<<"$out" || fail "no critical path: $out"
    grep -q 'ProfilerStep#105: 95.699 ms' <<<"$out" || fail "the last step: $out"
    /usr/bin/python3 -c "
import json,sys
d=json.load(open('$tmp/g/graph.json'))
ev=[e for e in d['traceEvents'] if e.get('ph')=='X']
assert len(ev) > 20000, len(ev)
assert any(e['args'].get('critical') for e in ev)
" || fail "graph.json is no Perfetto trace with the path marked"
    nothing_left "$tmp"
    run "$SGAI" whatif list; expect_rc 0
    for o in amp amp-daydream fused-optimizer gpu power-cap bandwidth; do
      grep -q "^$o " <<<"$out" || fail "whatif list lacks $o"
    done ;;
  whatif_predict)
    shared_or_skip
    run "$SGAI" whatif predict $H/ns_resolution_trace --apply amp --out "$tmp/p"; expect_rc 0
    for f in summary.json steps.csv threads.csv layers.csv prediction.json; do
      [ -s "$tmp/p/$f" ] || fail "no $f"
    done
    grep -q 'speed-up' <<<"$out" || fail "$out"
    /usr/bin/python3 -c "
import json
s=json.load(open('$tmp/p/summary.json'))
assert s['iterations'] == 5 and s['catalogue_gpu'] == 'V100 SXM2 32GB', s
assert abs(s['baseline_ms'] - s['measured_ms']) < 0.05 * s['measured_ms'], s
assert s['predicted_ms'] < s['baseline_ms'] and s['speedup'] > 1, s
assert s['predicted_energy_j'] < s['energy_j'], s
" || fail "summary.json: $(cat "$tmp/p/summary.json")"
    [ "$(wc -l <"$tmp/p/steps.csv")" -eq 6 ] || fail "steps.csv: one row per step"
    # the same on SimGrid, within 5% of the walk; deterministic
    run "$SGAI" whatif predict $H/ns_resolution_trace --apply amp --via replay --out "$tmp/r"; expect_rc 0
    /usr/bin/python3 -c "
import json
w=json.load(open('$tmp/p/summary.json')); r=json.load(open('$tmp/r/summary.json'))
assert abs(w['predicted_ms'] - r['predicted_ms']) <= 0.05 * w['predicted_ms'], (w, r)
assert r['simgrid_energy_j'] > 0
" || fail "replay vs walk"
    run "$SGAI" whatif predict $H/ns_resolution_trace --apply amp --out "$tmp/p2"; expect_rc 0
    cmp -s "$tmp/p/steps.csv" "$tmp/p2/steps.csv" || fail "not deterministic"
    # composition, another GPU and a power cap
    run "$SGAI" whatif predict $H/ns_resolution_trace --apply gpu,power-cap --target "A100 SXM4 40GB" \
      --power-cap 250 --out "$tmp/c"; expect_rc 0
    grep -q 'Applied gpu' <<<"$out" && grep -q 'Applied power-cap' <<<"$out" || fail "$out"
    # one rank's trace as 8 copies on an HGX H100's GPUs: the buckets' all-reduces over NVSwitch
    run "$SGAI" whatif predict $H/ns_resolution_trace --apply ddp --via replay --platform platforms/hgx-h100.json \
      --ranks 8 --out "$tmp/h"; expect_rc 0
    /usr/bin/python3 -c "
import json
s=json.load(open('$tmp/h/summary.json'))
assert s['network_collectives'] == 25 and s['platform_ranks'] == 8, s
assert s['simgrid_predicted_energy_j'] > 0, s
" || fail "platform run: $(cat "$tmp/h/summary.json")"
    run "$SGAI" whatif predict $H/ns_resolution_trace --apply ddp --no-nccl --out "$tmp/h2"
    expect_rc 2; expect_one_error_line "--no-nccl goes with --platform"
    # --ranks is ddp's world in the walk too: 32 ranks over 10 Gb/s are slower than 2
    run "$SGAI" whatif predict $H/ns_resolution_trace --apply ddp --ranks 32 --param ddp.bandwidth=1.25 --out "$tmp/r32"
    expect_rc 0
    run "$SGAI" whatif predict $H/ns_resolution_trace --apply ddp --ranks 2 --param ddp.bandwidth=1.25 --out "$tmp/r2"
    expect_rc 0
    /usr/bin/python3 -c "
import json
a=json.load(open('$tmp/r32/summary.json')); b=json.load(open('$tmp/r2/summary.json'))
assert a['predicted_ms'] > b['predicted_ms'], (a, b)
" || fail "--ranks"
    # eight DLRM ranks joined at their collectives
    mkdir -p "$tmp/dlrm" && tar -xzf ../shared/data/pytorch-et/param/dlrm_kineto.tar.gz -C "$tmp/dlrm"
    run "$SGAI" whatif predict "$tmp/dlrm/dlrm_kineto" --apply bandwidth --out "$tmp/d"; expect_rc 0
    grep -q '8 ranks' <<<"$out" || fail "$out"
    [ "$(wc -l <"$tmp/d/steps.csv")" -eq 9 ] || fail "one step per rank" ;;
  whatif_errors)
    shared_or_skip
    bad_input "$H/cpu_only" "no GPU activity" -- "$SGAI" whatif graph $H/cpu_only
    bad_input "no GPU activity" -- "$SGAI" whatif predict $H/rank_non_gpu --apply amp --out "$tmp/x1"
    [ ! -e "$tmp/x1" ] || fail "an error left $tmp/x1"
    echo '{"nodes": []}' >"$tmp/not_chrome.json"
    bad_input "$tmp/not_chrome.json" "not a Chrome trace" -- "$SGAI" whatif graph "$tmp/not_chrome.json"
    printf '{"traceEvents": [' >"$tmp/cut.json"
    bad_input "$tmp/cut.json" "not JSON" -- "$SGAI" whatif graph "$tmp/cut.json"
    bad_input "fused-optimizer" "already runs a fused optimizer" -- \
      "$SGAI" whatif predict $H/trace_diff/control --apply fused-optimizer --out "$tmp/x2"
    [ ! -e "$tmp/x2" ] || fail "an error left $tmp/x2"
    bad_input "unknown optimization 'warp'" -- "$SGAI" whatif predict $H/amd_trace --apply warp --out "$tmp/x3"
    bad_input "unknown GPU type 'Z80'" -- "$SGAI" whatif predict $H/amd_trace --apply gpu --target Z80 --out "$tmp/x4"
    bad_input "power-cap" "no cap given" -- "$SGAI" whatif predict $H/amd_trace --apply power-cap --out "$tmp/x5"
    # a rank set with a rank twice
    mkdir -p "$tmp/twice" && cp $H/trace_filter/sampled_rank-0.json.gz "$tmp/twice/a.json.gz" &&
      cp $H/trace_filter/sampled_rank-0.json.gz "$tmp/twice/b.json.gz"
    run "$SGAI" whatif graph "$tmp/twice"; expect_rc 1; expect_one_error_line "again"
    # GPU events without their launch: counted, the step left out, the rest predicted
    run "$SGAI" whatif predict $H/negative_queue_length_values_check --apply amp --out "$tmp/n"; expect_rc 0
    grep -q 'mean of 4' <<<"$out" || fail "the step with unlaunched GPU events is no baseline: $out"
    grep -q '^0,ProfilerStep#550,no,' "$tmp/n/steps.csv" || fail "$(head -3 "$tmp/n/steps.csv")"
    nothing_left "$tmp" ;;
  whatif_bogus)
    # every bogus trace: exit 1, one error line naming the file, nothing written
    for f in tests/fixtures/kineto/bogus_*.json; do
      run "$SGAI" whatif predict "$f" --apply amp --out "$tmp/b"; expect_rc 1
      expect_one_error_line "$f"
      no_backtrace
      [ ! -e "$tmp/b" ] || fail "$f left an output folder"
    done ;;
  *)
    fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
