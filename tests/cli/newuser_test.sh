#!/bin/bash
# What a new user runs first, checked as they would read it (issue 48): no SimGrid log noise,
# outputs as their docs list them, the trace's own rank, a stopped campaign run shown as stopped,
# figures printed with their digits, and one note where a platform lacks wattage.
# Usage: SGAI=build/tools/sgai tests/cli/newuser_test.sh CASE (from the repository root)
source "$(dirname "$0")/lib.sh"

# SimGrid's log lines (INFO and above) in a run's output: "[time] [category/PRIORITY] ..." or
# "[host:actor:(pid) time] [category/PRIORITY] ...", sgai's own categories (sgai_*) aside, and the
# configuration lines docs/cli.md documents ("Configuration change: Set 'x' to 'y'", which a --cfg
# given by the user prints).
simgrid_lines() {
  grep -hE '\[[a-z0-9_]+/(INFO|WARNING|ERROR|CRITICAL)\]' "$@" | grep -vE '\[sgai_[a-z0-9_]+/INFO\]' |
    grep -vE "\[xbt_cfg/INFO\] Configuration change: Set '[^']+' to '[^']*'$" || true
}

case "${1:-}" in
  quiet_sleeps)
    # a what-if run on SimGrid sleeps no shorter than SimGrid's clock resolves: not one INFO line
    shared_or_skip
    run "$SGAI" whatif predict ../shared/data/kineto/hta/ns_resolution_trace --apply ddp \
      --platform platforms/hgx-h100.json --ranks 8 --out "$tmp/w"; expect_rc 0
    n=$(grep -c 'sleep_for()' "$tmp/out" "$tmp/err" | awk -F: '{s+=$2} END {print s}')
    [ "$n" -eq 0 ] || fail "$n sleep_for() lines: $(grep -m2 'sleep_for' "$tmp/err")"
    [ -z "$(simgrid_lines "$tmp/out" "$tmp/err")" ] || fail "SimGrid lines: $(simgrid_lines "$tmp/out" "$tmp/err")"
    grep -q '^Iteration (mean of 5): .* (replay)$' "$tmp/out" || fail "no replayed iteration: $out" ;;

  aiops_summary)
    # summary.csv holds exactly the figures docs/aiops.md lists, in its order, energy included when
    # the platform's links have no wattage (0 J, said once) and the database's size
    list=$(sed -n '/^- `summary.csv` (`figure,value`), always these figures in this order:/,/^  `links_energy_j`, `database_bytes`\./p' docs/aiops.md |
      tr '\n' ' ' | sed 's/.*in this order://; s/\. .*//' | grep -oE '`[a-z_]+`' | tr -d '`' | paste -sd,)
    [ "$(tr ',' '\n' <<<"$list" | wc -l)" -eq 15 ] || fail "docs/aiops.md's list not found: '$list'"
    run "$SGAI" aiops run deploy/aiops/health-week.json --out "$tmp/a"; expect_rc 0
    got=$(tail -n +2 "$tmp/a/summary.csv" | cut -d, -f1 | paste -sd,)
    [ "$got" = "$list" ] || fail "summary.csv's figures $got, docs/aiops.md lists $list"
    grep -qx 'links_energy_j,0' "$tmp/a/summary.csv" || fail "links_energy_j: $(grep links_ "$tmp/a/summary.csv")"
    bytes=$(stat -c %s "$tmp/a/aiops.sqlite")
    grep -qx "database_bytes,$bytes" "$tmp/a/summary.csv" || fail "database_bytes is not the database's $bytes bytes"
    grep -qx "  database_bytes: $bytes" "$tmp/out" || fail "the terminal rounds database_bytes: $out"
    [ "$(grep -c '^Note: no link energy: none of the platform' "$tmp/out")" -eq 1 ] || fail "no single link note: $out"
    run "$SGAI" aiops run deploy/aiops/health-week.json --no-database --out "$tmp/b"; expect_rc 0
    grep -qx 'database_bytes,0' "$tmp/b/summary.csv" || fail "without a database: $(tail -1 "$tmp/b/summary.csv")" ;;

  whatif_rank)
    # rank 1 of a two-rank job, given alone: rank 1 in the graph, steps.csv, summary and terminal
    shared_or_skip
    trace=../shared/data/kineto/hta/df_index_resolver
    run "$SGAI" whatif graph "$trace" --out "$tmp/g"; expect_rc 0
    grep -q '^  rank 1 ProfilerStep#2: ' "$tmp/out" || fail "iterations: $(grep ProfilerStep "$tmp/out" | head -2)"
    ! grep -q 'rank 0' "$tmp/out" || fail "rank 0 shown: $(grep -m1 'rank 0' "$tmp/out")"
    pids=$(/usr/bin/python3 -c 'import json,sys; print(sorted({e["pid"] for e in json.load(open(sys.argv[1]))["traceEvents"]}))' "$tmp/g/graph.json")
    [ "$pids" = "[1]" ] || fail "graph.json's processes $pids"
    run "$SGAI" whatif predict "$trace" --apply amp --out "$tmp/p"; expect_rc 0
    [ "$(tail -n +2 "$tmp/p/steps.csv" | cut -d, -f1 | sort -u)" = 1 ] || fail "steps.csv ranks: $(cut -d, -f1 "$tmp/p/steps.csv" | sort -u | paste -sd' ')"
    grep -q '"trace_ranks": \[1\]' "$tmp/p/summary.json" || fail "summary.json: $(head -5 "$tmp/p/summary.json")"
    pids=$(/usr/bin/python3 -c 'import json,sys; print(sorted({e["pid"] for e in json.load(open(sys.argv[1]))["traceEvents"]}))' "$tmp/p/prediction.json")
    [ "$pids" = "[1]" ] || fail "prediction.json's processes $pids" ;;

  sweep_stopped)
    # SIGTERM stops a campaign mid-run: status says stopped (will be rerun) at once, not running;
    # while a runner holds the folder, a second runner is refused and its runs show as running
    cat >"$tmp/c.json" <<JSON
{"sgai_campaign": 1, "experiment": "$PWD/deploy/experiments/aiops-week.json",
 "parameters": [{"name": "seed", "pointer": "/seed", "range": {"from": 1, "to": 12, "step": 1}}],
 "objective": {"figure": "/components/aiops/aiops_mean_staleness", "goal": "minimise"}}
JSON
    "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/d" --jobs 2 --strategy full >"$tmp/first.out" 2>"$tmp/first.err" &
    pid=$!
    for _ in $(seq 1 100); do
      [ "$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE status = 'running'" 2>/dev/null)" -ge 1 ] 2>/dev/null && break
      sleep 0.1
    done
    run "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/d" --jobs 2; expect_rc 1
    expect_one_error_line "another sgai sweep run is running the campaign"
    run "$SGAI" sweep status "$tmp/c.json" --dir "$tmp/d"; expect_rc 0
    grep -q ' [1-9][0-9]* running, ' <<<"$out" || fail "while it runs: $out"
    ! grep -q 'stopped' <<<"$out" || fail "while it runs: $out"
    kill -TERM $pid
    wait $pid; rc=$?
    [ "$rc" -eq 143 ] || fail "the killed campaign exited $rc: $(cat "$tmp/first.err")"
    running=$(db_count "$tmp/d/campaign.sqlite" "SELECT COUNT(*) FROM runs WHERE status = 'running'")
    [ "$running" -ge 1 ] || fail "no run was stopped mid-way"
    run "$SGAI" sweep status "$tmp/c.json" --dir "$tmp/d"; expect_rc 0
    grep -q " 0 running, $running stopped (will be rerun), " <<<"$out" || fail "after SIGTERM ($running stopped): $out"
    run "$SGAI" sweep run "$tmp/c.json" --dir "$tmp/d" --jobs 2 --runs 1; expect_rc 0
    grep -q "Resumed: $running run" <<<"$out" || fail "$out" ;;

  rl_digits)
    # the 5.4 scenario's makespans (5.25 s with high_mem_bw, 6.364 s with high_gflops, 7 s) shown to the
    # millisecond in sgai rl evaluate's table (it printed 5.2 and 6.4)
    shared_or_skip
    [ -x "$(dirname "$SGAI")/sgai-rl" ] || { echo "sgai-rl not built (no libtorch-dev): skipped"; exit 77; }
    d=../shared/data/platforms/hdeeprm
    learn=(--platform platforms/learning.json --workload $d/workload_examples/learning.json)
    run "$SGAI" rl train "${learn[@]}" --actions $d/thesis_experiments/learning/options.json --episodes 2 \
      --out "$tmp/t"; expect_rc 0
    run "$SGAI" rl evaluate --model "$tmp/t/model.pt" "${learn[@]}" --out "$tmp/e"; expect_rc 0
    # every policy's row shows the makespan of evaluation.csv to the millisecond
    tail -n +2 "$tmp/e/evaluation.csv" | while IFS=, read -r policy _ _ _ _ makespan _; do
      want=$(printf '%.3f' "$makespan")
      grep -qE "^$policy +[0-9.]+ +$want " <<<"$out" || fail "$policy's makespan $makespan is not shown as $want: $out"
    done || exit 1
    grep -qE '^shortest/high_mem_bw +[0-9.]+ +5\.250 ' <<<"$out" || fail "5.25 s not shown: $out"
    grep -qE '^shortest/high_gflops +[0-9.]+ +6\.364 ' <<<"$out" || fail "6.364 s not shown: $out" ;;

  energy_notes)
    # a platform whose links have no wattage_range: link energy 0 J, and the run says so once
    shared_or_skip
    run "$SGAI" workload tiresias ../shared/data/ml-clusters/tiresias/simulator/60_job.csv --out "$tmp/t60.json"
    expect_rc 0
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload "$tmp/t60.json" --order fifo \
      --out "$tmp/f"; expect_rc 0
    [ "$(grep -c 'no link energy' "$tmp/out" "$tmp/err" | awk -F: '{s+=$2} END {print s}')" -eq 1 ] ||
      fail "not one link note: $out"
    grep -qx "Note: no link energy: none of the platform's 44 links has wattage_range (first: conflux-n0-nic_DOWN), so links count 0 J." "$tmp/out" ||
      fail "the note: $out"
    grep -q '"links_note": "no link energy: ' "$tmp/f/summary.json" || fail "summary.json lacks the note"
    # an HGX node whose NICs have wattage and NVLinks not: the note counts them
    run "$SGAI" run deploy/experiments/replay-hgx.json --out "$tmp/h"; expect_rc 0
    grep -qx "Note: link energy leaves out 34 of 36 links, which have no wattage_range (first: hgx-n0-gpu0-nvlink_DOWN)." "$tmp/out" ||
      fail "the note on the NVLinks without wattage: $out" ;;

  page_diagnostics)
    # when chromedriver cannot start the browser, cli.sweep_page shows chromedriver's answer and the
    # browser's own lines (here a browser that says why and exits), not only "HTTP Error 500"
    command -v chromedriver >/dev/null || fail "no chromedriver (tools/setup.sh test installs it)"
    printf '#!/bin/sh\necho "broken browser: cannot open the display (cli.page_diagnostics)" >&2\nexit 1\n' >"$tmp/chromium"
    chmod +x "$tmp/chromium"
    SWEEP_PAGE_CHROMIUM="$tmp/chromium" run timeout 60 /usr/bin/python3 tests/cli/sweep_page_test.py; expect_rc 1
    grep -q '^FAIL: chromedriver refused the session: HTTP 500: session not created' "$tmp/err" ||
      fail "chromedriver's answer not shown: $err"
    grep -q 'broken browser: cannot open the display (cli.page_diagnostics)' "$tmp/err" ||
      fail "the browser's own line not shown: $err" ;;

  readme_tour)
    # every sgai command of README.md's tour, as written (--log at its default), in a copy of the
    # checkout's layout (results/ and the campaign folders land in $tmp): each exits 0 and prints no
    # SimGrid INFO or WARNING line but the documented configuration lines. The tour's scripts
    # (tools/validate, tools/bench) are checked by their own cases; sweep serve runs until its page
    # answers (on a free port, with --port 0).
    shared_or_skip
    root=$tmp/root
    mkdir -p "$root"
    for f in * .[!.]*; do
      case "$f" in results | deploy | .git | build*) ;; *) ln -s "$PWD/$f" "$root/$f" ;; esac
    done
    cp -r deploy "$root/deploy"
    mkdir -p "$root/build/tools"
    ln -s "$SGAI" "$root/build/tools/sgai"
    [ ! -x "$(dirname "$SGAI")/sgai-rl" ] || ln -s "$(dirname "$SGAI")/sgai-rl" "$root/build/tools/sgai-rl"
    ln -s "$(realpath ../shared)" "$tmp/shared"
    /usr/bin/python3 - README.md >"$tmp/tour.txt" <<'PY' || fail "README.md has no tour"
import re, sys
text = open(sys.argv[1]).read()
block = text.split("## A short tour", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
lines, cur = [], ""
for raw in block.splitlines():
    cur += raw.rstrip()
    if cur.endswith("\\"):
        cur = cur[:-1] + " "
        continue
    line = re.sub(r"\s+#\s.*$", "", cur).strip()  # a trailing comment
    cur = ""
    if re.match(r"^[A-Z]+=", line) or line.startswith("$S "):
        lines.append(line)
if sum(l.startswith("$S ") for l in lines) < 20:
    sys.exit(1)
print("\n".join(lines))
PY
    n=0
    while IFS= read -r line; do
      case "$line" in
        [A-Z]*=*) eval "$line"; continue ;;
      esac
      n=$((n + 1))
      if [[ "$line" == *"sweep serve"* ]]; then
        (cd "$root" && eval "exec $line --port 0" >"$tmp/c$n.out" 2>"$tmp/c$n.err") &
        serve=$!
        for _ in $(seq 1 100); do grep -q 'http://127.0.0.1:' "$tmp/c$n.out" 2>/dev/null && break; sleep 0.1; done
        url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$tmp/c$n.out" | head -1)
        [ -n "$url" ] && /usr/bin/python3 -c 'import sys,urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10).read()' "$url" ||
          fail "$line: no page ($(cat "$tmp/c$n.out" "$tmp/c$n.err"))"
        kill -TERM $serve; wait $serve
      else
        (cd "$root" && eval "$line" </dev/null >"$tmp/c$n.out" 2>"$tmp/c$n.err") ||
          fail "$line: exit $?: $(tail -3 "$tmp/c$n.err")"
      fi
      noise=$(simgrid_lines "$tmp/c$n.out" "$tmp/c$n.err")
      [ -z "$noise" ] || fail "$line printed SimGrid lines:\n$noise"
    done < <(sed 's/^S=.*/S=build\/tools\/sgai/' "$tmp/tour.txt")
    [ "$n" -ge 20 ] || fail "only $n commands run"
    echo "$n commands of the tour ran quietly" ;;

  *) echo "unknown case $1" >&2; exit 2 ;;
esac
echo "ok: $1"
