#!/usr/bin/env bash
# Golden command-line tests of the sgai binary: exit status, one error line on stderr, outputs.
# Usage: cli_test.sh CASE   (run from the repository root; $SGAI is the binary)
source "$(dirname "$0")/lib.sh"
case_name=$1

case "$case_name" in
  version)
    run "$SGAI" --version; expect_rc 0
    [[ "$out" =~ ^sgai\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "version output: $out" ;;
  help)
    run "$SGAI" --help; expect_rc 0
    for w in platform run; do grep -q "$w" "$tmp/out" || fail "help lacks $w"; done
    for sub in "platform generate" "platform inspect" "platform convert" "platform import-machines" "workload swf2json" "workload stats" "workload generate" "batch run" "batch plot" "chakra jsonize" "chakra dejsonize" "chakra stats" "chakra visualize" "chakra timeline" "chakra convert" "chakra generate" "chakra generate microbenchmark" "chakra generate training" "chakra generate dag" "chakra synth" "replay" "run"; do
      run "$SGAI" $sub --help; expect_rc 0
    done ;;
  usage_errors)
    run "$SGAI"; expect_rc 2; expect_one_error_line "a command is required after 'sgai' (platform, workload, batch, chakra, replay, plot, collective, run"
    run "$SGAI" platform; expect_rc 2; expect_one_error_line "a command is required after 'platform' (generate, inspect"
    run "$SGAI" platform generate; expect_rc 2; expect_one_error_line "platform is required"
    run "$SGAI" platform generate platforms/gaia.json --bogus; expect_rc 2; expect_one_error_line "--bogus"
    run "$SGAI" platform generate platforms/gaia.json --granularity socket; expect_rc 2; expect_one_error_line "socket"
    run "$SGAI" frobnicate; expect_rc 2; expect_one_error_line "frobnicate" ;;
  bogus_platforms)
    n=0
    for f in tests/fixtures/platforms/bogus_*.json; do
      [[ $f == *hdeeprm* ]] && continue
      run "$SGAI" platform generate "$f" --out "$tmp/gen"; expect_rc 1; expect_one_error_line "$f"
      [ -z "$(ls -A "$tmp/gen" 2>/dev/null)" ] || fail "$f left files: $(ls "$tmp/gen")"
      n=$((n + 1))
    done
    [ "$n" -ge 10 ] || fail "only $n bogus fixtures" ;;
  generate_hdeeprm_unchanged)
    shared_or_skip
    for p in gaia mc2 learning das2 pik ricc; do
      run "$SGAI" platform generate "../shared/data/platforms/hdeeprm/platform_examples/$p.json" --out "$tmp/gen"
      expect_rc 0
      [ -s "$tmp/gen/$p.xml" ] && [ -s "$tmp/gen/$p.hierarchy.json" ] || fail "$p outputs missing"
      grep -q watt_per_state "$tmp/gen/$p.xml" && fail "$p.xml uses watt_per_state"
      run "$SGAI" platform inspect "$tmp/gen/$p.xml"; expect_rc 0
    done
    run "$SGAI" platform inspect "$tmp/gen/gaia.xml"; expect_rc 0; grep -q "hosts: 2280" "$tmp/out" || fail "gaia: $out" ;;
  generate_outputs)
    run "$SGAI" platform generate platforms/hgx-h100.json --out "$tmp/gen" --deployment worker; expect_rc 0
    for f in hgx-h100.xml hgx-h100.hierarchy.json hgx-h100.deployment.xml; do [ -s "$tmp/gen/$f" ] || fail "missing $f"; done
    [ "$(grep -c '<actor ' "$tmp/gen/hgx-h100.deployment.xml")" -eq 10 ] || fail "deployment actors"
    run "$SGAI" platform generate platforms/hgx-h100-cluster.json --out "$tmp/gen2"; expect_rc 0
    grep -q "no SimGrid XML" "$tmp/out" || fail "expected the XML limitation note: $out"
    [ -s "$tmp/gen2/hgx-h100-cluster.hierarchy.json" ] || fail "hierarchy missing" ;;
  inspect_route)
    run "$SGAI" platform inspect platforms/gaia.json --route gaia_cluster-n0-p0-c0 gaia_cluster-n1-p0-c0; expect_rc 0
    grep -q "gaia_cluster-n0-nic_UP" "$tmp/out" || fail "route: $out"
    grep -q "hosts: 2280" "$tmp/out" || fail "hosts: $out"
    grep -q "power range" "$tmp/out" || fail "power: $out"
    run "$SGAI" platform inspect platforms/gaia.json --route nowhere gaia_cluster-n1-p0-c0; expect_rc 1
    expect_one_error_line "unknown host 'nowhere'" ;;
  bad_xml)
    printf "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\"><host id=\"h\" speed=\"1f\"><prop id=\"wattage_per_state\" value=\"1:2:3:4\"/></host></zone></platform>\n" >"$tmp/b.xml"
    run "$SGAI" platform inspect "$tmp/b.xml"; expect_rc 1; expect_one_error_line "$tmp/b.xml"
    printf "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\"><host id=\"h\" speed=\"fast\"/></zone></platform>\n" >"$tmp/c.xml"
    run "$SGAI" platform inspect "$tmp/c.xml"; expect_rc 1; expect_one_error_line "cannot parse number"
    run "$SGAI" platform inspect "$tmp/missing.xml"; expect_rc 1; expect_one_error_line "no such platform file" ;;
  simgrid_passthrough)
    run "$SGAI" platform inspect platforms/learning.json --cfg=network/model:CM02 --log=root.thres:warning; expect_rc 0
    run "$SGAI" --cfg=network/model:Bogus platform inspect platforms/learning.json; expect_rc 2
    expect_one_error_line "unknown network/model 'Bogus'"
    run "$SGAI" platform inspect platforms/learning.json --cfg=no/such:key; expect_rc 2; expect_one_error_line "Bad config key"
    run "$SGAI" platform inspect platforms/learning.json --log=foo; expect_rc 2; expect_one_error_line "bad --log setting 'foo'"
    run "$SGAI" platform inspect platforms/learning.json --log=root.thres:loud; expect_rc 2; expect_one_error_line "unknown priority" ;;
  run_default)
    run "$SGAI" run --out "$tmp/r"; expect_rc 0
    grep -q "Results in $tmp/r" "$tmp/out" || fail "where are the results: $out"
    for f in summary.json config.json jobs.csv schedule.json schedule.csv machine_states.csv energy.csv \
             pstate_changes.csv overutilization.csv energy_hosts.csv energy_links.csv hierarchy.json platform.xml; do
      [ -s "$tmp/r/$f" ] || fail "missing $f"
    done
    grep -q '"batch"' "$tmp/r/summary.json" || fail "the default experiment is not a batch run"
    for f in ranks.csv collectives.csv replay_log.csv summary.json energy_hosts.csv; do
      [ -s "$tmp/r/replay/$f" ] || fail "missing replay/$f: the replay quick-start did not run"
    done
    grep -q "Results in $tmp/r/replay" "$tmp/out" || fail "where are the replay results: $out"
    [ "$(wc -l <"$tmp/r/jobs.csv")" -eq 501 ] || fail "jobs.csv: $(wc -l <"$tmp/r/jobs.csv") lines" ;;
  run_deterministic)
    for x in quickstart rigid-jobs replay-hgx; do
      run "$SGAI" run deploy/experiments/$x.json --out "$tmp/a"; expect_rc 0
      run "$SGAI" run deploy/experiments/$x.json --out "$tmp/b"; expect_rc 0
      for f in "$tmp"/a/*; do
        f=$(basename "$f")
        [ "$f" = summary.json ] || [ "$f" = config.json ] && continue
        cmp -s "$tmp/a/$f" "$tmp/b/$f" || fail "$x: $f differs between two runs with the same seed"
      done
      rm -rf "$tmp/a" "$tmp/b"
    done
    run "$SGAI" run deploy/experiments/rigid-jobs.json --out "$tmp/a"; expect_rc 0
    run "$SGAI" run deploy/experiments/rigid-jobs.json --out "$tmp/c" --seed 7; expect_rc 0
    cmp -s "$tmp/a/jobs.csv" "$tmp/c/jobs.csv" && fail "another seed gave the same jobs"
    grep -q '"seed": 7' "$tmp/c/config.json" || fail "seed not recorded" ;;
  batch_validation)
    shared_or_skip
    run env SGAI="$SGAI" tools/validate/batch.sh; expect_rc 0
    grep -q "same starting time: 801 (100.00%)" "$tmp/out" || fail "medium_late: $out"
    for r in "low_power    6 .* 6 " "high_gflops  6.6 .* 6.6 " "high_mem_bw  8.4 .* 8.4 "; do
      grep -Eq "$r" "$tmp/out" || fail "learning scenario ($r): $out"
    done
    # consolidation uses less energy than spreading on every log
    n=$(awk '/^== 3/{on=1; next} on && $4 ~ /^-[0-9.]+%$/ {n++} END {print n+0}' "$tmp/out")
    [ "$n" -eq 4 ] || fail "consolidation saved energy on $n of 4 logs: $out" ;;
  replay_contended_equivalence)
    # collectives worked out at once (their transfers that start together sharing links included)
    # against the step-by-step run on 200 random networks, systems and collectives, some of them two
    # jobs on one network, which must be refused (tools/validate/contended_equivalence.py; thousands:
    # --cases 3000)
    python3 tools/validate/contended_equivalence.py --sgai "$SGAI" --cases 200 --seed 7 --jobs 2 --check >"$tmp/out" 2>&1 ||
      fail "$(cat "$tmp/out")"
    cat "$tmp/out"
    refused=$(grep -o 'refused: [0-9]*%' "$tmp/out" | grep -o '[0-9]*')
    shared=$(grep -o 'shared links: [0-9]*' "$tmp/out" | grep -o '[0-9]*')
    [ "${refused:-0}" -ge 25 ] || fail "only ${refused}% of the cases refused: $(cat "$tmp/out")"
    [ "${shared:-0}" -gt 1000 ] || fail "few transfers shared links: $(cat "$tmp/out")" ;;
  replay_validation)
    shared_or_skip
    bash tools/validate/replay.sh "$(dirname "$(dirname "$SGAI")")" >"$tmp/out" 2>"$tmp/err" || fail "validation script failed: $(cat "$tmp/err")"
    d=$(grep -o 'difference [-+0-9.]*%' "$tmp/out" | grep -o '[-+0-9.]*' | head -1)
    awk -v d="$d" 'BEGIN { exit !(d < 1 && d > -1) }' || fail "rt_template differs by $d% from ASTRA-sim"
    [ "$(grep -cE '^(all_reduce|all_gather|reduce_scatter|all_to_all) ' "$tmp/out")" -eq 12 ] || fail "12 microbenchmarks expected: $(cat "$tmp/out")"
    bus=$(awk '$1 == 8589934592 { print $4 }' "$tmp/out")
    awk -v b="$bus" 'BEGIN { exit !(b > 370.67 / 1.1 && b < 370.67 / 0.9) }' || fail "HGX 8 GiB bus bandwidth $bus GB/s: time not within 10% of the measured 370.67" ;;
  collective_bench)
    # nccl-tests on a platform, NCCL's choice of algorithm and protocol (docs/replay.md): one line per
    # size in nccl-tests' columns. HGX H100 node, 8 GPUs: 8 B is ring/LL, NCCL's base latency 6.6 us
    # plus 14 steps at the 1.4 us NVSwitch path (above LL's 0.6 us hop): 26.2 us; 8 GiB is NVLS, each
    # GPU moving S (1 + 1/8) each way at 0.85 x 370.8 GB/s: busbw 2 x 7/9 x 315.18 = 490.3 GB/s less
    # NVLS's 25 us latency. Its scratch folders go to a TMPDIR of its own (other tests run the bench
    # beside it)
    export TMPDIR="$tmp/scratch"
    mkdir -p "$TMPDIR"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --gpus 8 --sizes 8:8GiB --factor 1024; expect_rc 0
    [ "$(grep -c '^ *[0-9]' "$tmp/out")" -eq 4 ] || fail "4 sizes expected: $out"
    grep -q "^#       size         count      type   redop    root     time   algbw   busbw" "$tmp/out" || fail "header: $out"
    awk '$1 == 8 && $6 == "26.20" && $10 == "ring/LL" { ok = 1 } END { exit !ok }' "$tmp/out" || fail "8 B: $out"
    bus=$(awk '$1 == 8589934592 && $10 == "nvls/Simple" { print $8 }' "$tmp/out")
    awk -v b="$bus" 'BEGIN { exit !(b > 489 && b < 490.3) }' || fail "8 GiB NVLS busbw $bus"
    # the ring forced (NCCL_ALGO=ring): NVLink 4's payload rate, 18 links x 20.6 GB/s, reductions in the kernels
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --sizes 8GiB --algo ring; expect_rc 0
    bus=$(awk '$1 == 8589934592 && $10 == "ring/Simple" { print $8 }' "$tmp/out")
    awk -v b="$bus" 'BEGIN { exit !(b > 370 && b < 370.8) }' || fail "8 GiB ring busbw $bus"
    # a forced protocol is recorded
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --sizes 1MiB --algo ring --proto LL128; expect_rc 0
    grep -q ' ring/LL128$' "$tmp/out" || fail "LL128 forced: $out"
    # NVLS needs more than 4 GPUs of one NVSwitch domain (one error line)
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --gpus 4 --algo nvls --sizes 1MiB; expect_rc 1
    expect_one_error_line "NCCL has no nvls ALL_REDUCE over 4 ranks on 1 node(s)"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --op all_gather --algo nvls; expect_rc 2
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --proto LL --algo direct; expect_rc 2
    [ -z "$(ls -A "$TMPDIR")" ] || fail "scratch folder left in TMPDIR: $(ls -A "$TMPDIR")"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --gpus 16; expect_rc 1
    expect_one_error_line "has 8 GPUs, fewer than the 16 --gpus asks for"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --op all_gather --algo tree; expect_rc 2
    # nccl-tests' sendrecv across two rail-optimized DGX H100 nodes (tests/fixtures/platforms/rails_2dgx.json):
    # GPU 7 of each node sends 1 GiB to GPU 0 of the other; with PXN (NCCL's default) each crosses NVLink
    # to GPU 0 of its node and leaves on rail 0 at the NIC's 50 GB/s; with --pxn-disable both leave by
    # NIC 7 and share rail 7's 400 Gb/s uplink to the spine: 25 GB/s each
    run "$SGAI" collective bench --platform tests/fixtures/platforms/rails_2dgx.json --gpus 16 --op sendrecv --sizes 1GiB
    expect_rc 0
    bus=$(awk '$1 == 1073741824 && $10 == "p2p" { print $8 }' "$tmp/out")
    awk -v b="$bus" 'BEGIN { exit !(b > 48 && b <= 50) }' || fail "sendrecv with PXN: $bus GB/s: $out"
    run "$SGAI" collective bench --platform tests/fixtures/platforms/rails_2dgx.json --gpus 16 --op sendrecv --sizes 1GiB \
      --pxn-disable
    expect_rc 0
    bus=$(awk '$1 == 1073741824 && $10 == "p2p" { print $8 }' "$tmp/out")
    awk -v b="$bus" 'BEGIN { exit !(b > 24 && b <= 25) }' || fail "sendrecv without PXN: $bus GB/s: $out"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --op sendrecv --algo ring; expect_rc 2
    expect_one_error_line "--op sendrecv is point-to-point"
    # the model's breakdown beside each row: the EFA transport's 35 us network steps on 4 x P6-B200
    run "$SGAI" collective bench --platform platforms/p6-b200-4node-efa.json --gpus 32 --sizes 32KiB --breakdown
    expect_rc 0
    awk '$1 == 32768 && $10 == "tree/LL" && $14 == "8" && $15 == "7.35" && $16 == "(slots)" { ok = 1 } END { exit !ok }' \
      "$tmp/out" || fail "breakdown: $out"
    # NCCL's channels by size: a 64 KiB Simple ring runs on 2 channels (one per 32 KiB), so on 2 of
    # the 8 rails' rings; from 512 KiB on all 16 channels over the 8 rails
    run "$SGAI" collective bench --platform tests/fixtures/platforms/rails_2dgx.json --gpus 16 --sizes 64KiB:512KiB \
      --factor 8 --algo ring --proto Simple --breakdown
    expect_rc 0
    awk '$1 == 65536 && $10 == "ring" && $11 == "x2/Simple" && $15 == "2" { a = 1 }
         $1 == 524288 && $10 == "ring" && $11 == "x8/Simple" && $15 == "16" { b = 1 } END { exit !(a && b) }' "$tmp/out" ||
      fail "channels by size: $out"
    # SHARP: on 4 DGX H100 nodes whose switches reduce, NCCL runs NVLS across nodes; each GPU sends its
    # shard S/8 once over its NIC (50 GB/s) while the NVSwitch moves S (1 + 1/8) at 0.85 x 370.8 GB/s:
    # 4 GiB take 43 us (NCCL's latency, less the path) + 15.332 ms
    run "$SGAI" collective bench --platform tests/fixtures/platforms/rails_4dgx_sharp.json --gpus 32 --sizes 4GiB
    expect_rc 0
    awk '$1 == 4294967296 && $10 == "nvls" && $11 == "sharp/Simple" && $6 > 15332 && $6 < 15376 { ok = 1 }
         END { exit !ok }' "$tmp/out" || fail "NVLS with SHARP: $out"
    run "$SGAI" collective bench --platform tests/fixtures/platforms/rails_2dgx.json --gpus 16 --sizes 1GiB --algo nvls
    expect_rc 1
    expect_one_error_line "across nodes where the switches reduce (SHARP)"
    # host-staged (no GPUDirect RDMA): each GPU's traffic between nodes crosses its PCIe Gen5 path twice,
    # 31.5 GB/s, one stream after another; the rails' rings on 2 DGX nodes: each ring's boundary GPU
    # sends S/8 x 30/16 across, 1 GiB in 7.990 ms (+ NCCL's latency)
    run "$SGAI" collective bench --platform tests/fixtures/platforms/staged_2dgx.json --gpus 16 --sizes 1GiB --algo ring
    expect_rc 0
    awk '$1 == 1073741824 && $6 > 7990 && $6 < 8070 { ok = 1 } END { exit !ok }' "$tmp/out" || fail "host-staged: $out"
    # two DGX H100 nodes (a 3.2 Tb/s port each): NCCL's model picks its tree for small all-reduces and
    # NVLS-tree for large ones; NVLS-tree beats the rails' rings at 1 GiB (each GPU: S (1 + 1/8) through
    # the switch at 0.85 x 370.8 GB/s, S/8 to the other node), the node's port never binding
    run "$SGAI" collective bench --platform platforms/hgx-h100-cluster.json --gpus 16 --sizes 1KiB:1GiB --factor 1024; expect_rc 0
    awk '$1 == 1024 && $10 == "tree/LL" { ok = 1 } END { exit !ok }' "$tmp/out" || fail "1 KiB on 2 nodes: $out"
    nvls_tree=$(awk '$1 == 1073741824 && $10 == "nvls_tree/Simple" { print $8 }' "$tmp/out")
    run "$SGAI" collective bench --platform platforms/hgx-h100-cluster.json --gpus 16 --sizes 1GiB --algo ring; expect_rc 0
    ring=$(awk '$1 == 1073741824 && $10 == "ring" { print $8 }' "$tmp/out")
    awk -v t="$nvls_tree" -v r="$ring" 'BEGIN { exit !(t > 500 && t < 540 && r > 380 && r < 400) }' ||
      fail "2 nodes, 1 GiB: NVLS-tree $nvls_tree, ring $ring GB/s"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --gpus 8 --algo nvls_tree --sizes 1MiB; expect_rc 1
    expect_one_error_line "NCCL has no nvls_tree ALL_REDUCE over 8 ranks on 1 node(s)"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --sizes 1GiB:1MiB; expect_rc 1
    expect_one_error_line "--sizes: the last size '1MiB' is below the first '1GiB'"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --sizes 8x:1GiB; expect_rc 1
    expect_one_error_line "--sizes: '8x' is not a whole number of bytes from 1B to 1TiB"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --dims 4,4; expect_rc 2
    expect_one_error_line "--dims: the levels make 16 GPUs, not the 8 of --gpus"
    run "$SGAI" collective bench --platform platforms/hgx-h100.json --channels 65; expect_rc 2
    run "$SGAI" collective bench --platform tests/fixtures/nowhere.json; expect_rc 1 ;;
  replay_platform)
    # traces on a platform's GPUs from the command line (the replay experiment's inputs)
    run "$SGAI" replay --workload workloads/chakra/gpt-dp8/gpt --comm-group workloads/chakra/gpt-dp8/gpt.groups.json \
      --platform platforms/hgx-h100.json --system deploy/systems/hgx-h100-ring.json --out "$tmp/p"; expect_rc 0
    grep -q '^job,group,type,bytes,algorithm,ranks,start_ns,end_ns,duration_ns' "$tmp/p/collectives.csv" || fail "collectives.csv"
    [ "$(grep -c ',hgx-n0-gpu' "$tmp/p/ranks.csv")" -eq 8 ] || fail "8 ranks on the node's GPUs"
    grep -q '"network_model": "CM02"' "$tmp/p/summary.json" || fail "GPU platform model"
    # ASTRA-sim's congestion-unaware backend on the platform: the two chunks in flight no longer share
    # each GPU's NVSwitch link, so the collectives are faster
    run "$SGAI" replay --workload workloads/chakra/gpt-dp8/gpt --comm-group workloads/chakra/gpt-dp8/gpt.groups.json \
      --platform platforms/hgx-h100.json --system deploy/systems/hgx-h100-ring.json --congestion unaware --out "$tmp/u"
    expect_rc 0
    a=$(awk -F, 'NR == 2 { print $9 }' "$tmp/p/collectives.csv"); u=$(awk -F, 'NR == 2 { print $9 }' "$tmp/u/collectives.csv")
    awk -v a="$a" -v u="$u" 'BEGIN { exit !(u < a) }' || fail "unaware $u ns not below aware $a ns"
    run "$SGAI" replay --workload workloads/chakra/gpt-dp8/gpt --platform platforms/hgx-h100.json --pstate 1 --out "$tmp/q"
    expect_rc 2; expect_one_error_line "--pstate describes ASTRA-sim's NPUs"
    run "$SGAI" replay --workload workloads/chakra/gpt-dp8/gpt --out "$tmp/q"; expect_rc 2
    expect_one_error_line "--network and --system are required" ;;
  nccl_measured)
    # the measured NCCL tables read and compared (docs/validation.md); the HGX H100 peak within 10%
    shared_or_skip
    /usr/bin/python3 tools/validate/nccl_measured.py --sgai "$SGAI" >"$tmp/out" 2>"$tmp/err" ||
      fail "nccl_measured: $(cat "$tmp/err")"
    [ "$(grep -c '^== ' "$tmp/out")" -eq 10 ] || fail "10 tables expected: $(cat "$tmp/out")"
    e=$(awk '/^== 8 x H100/ { on = 1 } on && $1 == "8" { gsub("%", "", $6); print $6 }' "$tmp/out")
    awk -v e="$e" 'BEGIN { exit !(e < 10 && e > -10) }' || fail "HGX H100 peak: time error $e%"
    # the one-node tables (NVLS on and off, the H200 collectives, the H100 peak): each within 10%
    awk '/^== 8 x/ { on = 1 } /^== [14] x/ { on = 0 } on && /geometric mean/ { n++; v = $5; sub("%", "", v); if (v + 0 > 10) bad = bad " " v }
         END { exit !(n == 6 && bad == "") }' "$tmp/out" || fail "one-node tables over 10%: $(grep -E '^==|geometric' "$tmp/out")"
    # 4 x P6-B200 over EFA: every row from 512 MiB within 10%; the smaller rows with NCCL's model beside
    awk '/^== 4 x P6-B200 .* >= 16 MiB/ { on = 1; next } /^==/ { on = 0 }
         on { for (i = 1; i <= NF && $i !~ /^[0-9]+$/; i++); if (i <= NF && $i >= 536870912) {
           n++; v = $(i + 3); sub("%", "", v); v += 0; if (v > 10 || v < -10) bad = bad " " $1 v } }
         END { exit !(n == 6 && bad == "") }' "$tmp/out" || fail "4 x P6-B200 from 512 MiB: $(grep -A13 '>= 16 MiB' "$tmp/out")"
    grep -A3 '^== 4 x P6-B200 .* < 16 MiB' "$tmp/out" | grep -q "NCCL's model (us) = latency + bandwidth" ||
      fail "no model breakdown beside the smaller rows" ;;
  astra_grid)
    # every ASTRA-sim microbenchmark cell and the multi-dimensional networks against ASTRA-sim's own
    # figures (tools/validate/astra-sim/*.csv): >= 90% within 5%, multi-dimensional within 1%
    shared_or_skip
    /usr/bin/python3 tools/validate/astra_grid.py --sgai "$SGAI" --check >"$tmp/out" 2>"$tmp/err" ||
      fail "astra_grid: $(tail -3 "$tmp/err") $(tail -8 "$tmp/out")"
    grep -q "multi-dimensional (unaware): largest difference" "$tmp/out" || fail "no multi-dimensional summary" ;;
  gpu_jct_reference)
    # the count-based reference of GPU-cluster scheduling on Tiresias' 60-job trace: nothing queues on
    # 64 GPUs (mean JCT = mean duration, 178.4 s); on 8, 2D-LAS beats strict FIFO as Tiresias reports
    shared_or_skip
    # ... and sgai's GPU-cluster manager on the same trace: within 15% of it on 8 GPUs, 178.4 s on 64
    /usr/bin/python3 tools/validate/gpu_jct_reference.py --sgai "$SGAI" --check >"$tmp/out" 2>"$tmp/err" ||
      fail "gpu_jct_reference: $(cat "$tmp/err") $(cat "$tmp/out")"
    grep -q '^    8  fifo 1556.5 ' "$tmp/out" || fail "no sgai line for 8 GPUs: $(cat "$tmp/out")"
    awk '$1 == 8 && $2 > 1500 && $2 < 1600 && $6 > 760 && $6 < 820 { ok = 1 } END { exit !ok }' "$tmp/out" ||
      fail "8 GPUs: $(cat "$tmp/out")"
    printf 'job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,2,-5,10,vgg19,100,0\n' >"$tmp/bad.csv"
    /usr/bin/python3 tools/validate/gpu_jct_reference.py "$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err" && fail "a negative submit_time ran"
    grep -q "bad.csv: line 2: num_gpu >= 1, submit_time >= 0 and duration > 0 needed" "$tmp/err" || fail "$(cat "$tmp/err")" ;;
  gpu_cluster)
    # training jobs on GPUs: a run, its outputs and charts; bad input, one line each, exit 1, nothing written
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload workloads/gpu/tiresias-60.json \
      --order las --out "$tmp/g"; expect_rc 0
    head -1 "$tmp/g/jobs.csv" | grep -q '^job_id,workload_name,profile,submission_time,requested_number_of_resources,.*,model,iterations,simulated_iterations,preemptions,compute_time,alone_iteration_time,mix_iteration_time,bytes_moved,allreduce,link_energy$' ||
      fail "jobs.csv header: $(head -1 "$tmp/g/jobs.csv")"
    [ "$(grep -c ',COMPLETED_SUCCESSFULLY,' "$tmp/g/jobs.csv")" = 60 ] || fail "not 60 jobs completed"
    grep -q ',preempted$' "$tmp/g/gpu_allocations.csv" || fail "2D-LAS preempted nothing"
    grep -q '"mean_jct_s": 79[0-9]\.' "$tmp/g/summary.json" || fail "2D-LAS mean JCT: $(cat "$tmp/g/summary.json")"
    run "$SGAI" batch plot "$tmp/g"; expect_rc 0
    for f in gantt job_energy links lifecycles; do [ -s "$tmp/g/$f.png" ] || fail "no $f.png"; done
    # the same inputs give the same outputs
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload workloads/gpu/tiresias-60.json \
      --order las --out "$tmp/g2"; expect_rc 0
    cmp -s "$tmp/g/jobs.csv" "$tmp/g2/jobs.csv" || fail "jobs.csv differs between two runs"
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload workloads/gpu/tiresias-60.json \
      --order lifo --out "$tmp/b"; expect_rc 1
    expect_one_error_line "--order: unknown order 'lifo' (known: 'fifo', 'sjf', 'smallest', 'las')"
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload workloads/gpu/tiresias-60.json \
      --placement tight --out "$tmp/b"; expect_rc 1
    expect_one_error_line "--placement: unknown placement 'tight' (known: 'first', 'pack', 'spread', 'topology')"
    # options out of their bounds are usage errors
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload workloads/gpu/tiresias-60.json \
      --simulated-iterations 0 --out "$tmp/b"; expect_rc 2; expect_one_error_line "--simulated-iterations"
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload workloads/gpu/tiresias-60.json \
      --measure-error 2 --out "$tmp/b"; expect_rc 2; expect_one_error_line "--measure-error"
    run "$SGAI" batch gpu --platform platforms/learning.json --workload workloads/gpu/tiresias-60.json --out "$tmp/b"
    expect_rc 1; expect_one_error_line "learning.json: the GPU-cluster manager needs an sgai JSON platform with GPUs"
    printf '{"jobs": [{"id": "big", "subtime": 0, "res": 9, "profile": "p"}], "profiles": {"p": {"type": "training", "model": "m", "iterations": 2, "compute_time": 1}}}' >"$tmp/big.json"
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload "$tmp/big.json" --out "$tmp/b"
    expect_rc 1; expect_one_error_line "big.json: job 'big': asks for 9 GPUs; the platform has 8"
    printf '{"jobs": [{"id": "t", "subtime": 0, "res": 2, "profile": "p"}], "profiles": {"p": {"type": "training", "model": "m", "iterations": 2, "compute_time": 1, "gpu_type": "H100 SXM5 80GB"}}}' >"$tmp/type.json"
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload "$tmp/type.json" --out "$tmp/b"
    expect_rc 1; expect_one_error_line "job 't': asks for GPUs of type 'H100 SXM5 80GB'; the platform has 8 P100 SXM2 16GB"
    run "$SGAI" batch gpu --platform platforms/tiresias-p100-2node.json --workload tests/fixtures/workloads/tiny.json --out "$tmp/b"
    expect_rc 1; expect_one_error_line "is not a training profile: the GPU-cluster manager runs training jobs only"
    run "$SGAI" batch gpu --platform platforms/hgx-h100.json --workload "$tmp/type.json" --pstate 3 --out "$tmp/b"
    expect_rc 1; expect_one_error_line "pstate: P-state 3 of GPU hgx-n0-gpu0, which has 3 (0 to 2)"
    # an experiment's pinned placements and node P-states
    printf '{"sgai_experiment": 1, "name": "pin", "platform": {"file": "%s/platforms/hgx-h100.json"}, "components": [{"type": "gpu_cluster", "options": {"workload": "%s", "pinned": {"t": [6, 7]}, "node_pstates": {"hgx-n0": 2}}}]}' \
      "$PWD" "$tmp/type.json" >"$tmp/pin.json"
    run "$SGAI" run "$tmp/pin.json" --out "$tmp/p"; expect_rc 0
    grep -q '^t,.*,6-7,' "$tmp/p/jobs.csv" || fail "pinned job not on GPUs 6-7: $(cat "$tmp/p/jobs.csv")"
    sed 's/"hgx-n0": 2/"hgx-n9": 2/' "$tmp/pin.json" >"$tmp/pin9.json"
    run "$SGAI" run "$tmp/pin9.json" --out "$tmp/b"; expect_rc 1; expect_one_error_line "no node 'hgx-n9' in the platform"
    [ ! -e "$tmp/b" ] || fail "output folder written for bad input"
    # jobs replaying Chakra traces: ETs from sgai chakra generate training, and the same iteration
    # generated from the profile; each packed on a node of its own, alone: the same iteration time
    run "$SGAI" chakra generate training --layers 4 --hidden 1024 --seq 512 --batch 8 --dp 2 --tp 2 --pp 2 \
      --microbatches 2 --out "$tmp/ets" --prefix gpt; expect_rc 0
    printf '{"jobs": [{"id": "ets", "subtime": 0, "res": 8, "profile": "e"}, {"id": "gen", "subtime": 0, "res": 8, "profile": "g"}], "profiles": {"e": {"type": "training", "model": "gpt", "iterations": 20, "traces": "ets/gpt", "comm_groups": "ets/gpt.groups.json"}, "g": {"type": "training", "model": "gpt", "iterations": 20, "parallelism": {"data": 2, "tensor": 2, "pipeline": 2, "microbatches": 2}, "transformer": {"layers": 4, "hidden": 1024, "sequence": 512, "batch": 8}}}}' >"$tmp/traced.json"
    run "$SGAI" batch gpu --platform platforms/hgx-h100-cluster.json --workload "$tmp/traced.json" --out "$tmp/tr"; expect_rc 0
    [ "$(grep -c ',COMPLETED_SUCCESSFULLY,.*,gpt,20,.*,trace,' "$tmp/tr/jobs.csv")" = 2 ] || fail "traced jobs: $(cat "$tmp/tr/jobs.csv")"
    awk -F, 'NR == 2 { a = $22; m = $23 } NR == 3 { if (($22 - a) / a > 1e-9 || (a - $22) / a > 1e-9 || ($23 - m) / m > 1e-9 || (m - $23) / m > 1e-9) exit 1 }' \
      "$tmp/tr/jobs.csv" || fail "ETs and generated differ: $(cat "$tmp/tr/jobs.csv")"
    for f in gpu_allocations.csv links.csv energy_hosts.csv summary.json; do [ -s "$tmp/tr/$f" ] || fail "traced run: no $f"; done
    sed 's/"id": "ets", "subtime": 0, "res": 8/"id": "ets", "subtime": 0, "res": 4/' "$tmp/traced.json" >"$tmp/ranks.json"
    run "$SGAI" batch gpu --platform platforms/hgx-h100-cluster.json --workload "$tmp/ranks.json" --out "$tmp/b"
    expect_rc 1; expect_one_error_line "ranks.json: job 'ets': its profile 'e' has 8 ranks (one per GPU) but the job asks for 4 GPUs"
    sed 's#"traces": "ets/gpt"#"traces": "ets/none"#' "$tmp/traced.json" >"$tmp/none.json"
    run "$SGAI" batch gpu --platform platforms/hgx-h100-cluster.json --workload "$tmp/none.json" --out "$tmp/b"
    expect_rc 1; expect_one_error_line "none.json: profile 'e': traces 'ets/none': no such ET file, folder or workload prefix"
    [ ! -e "$tmp/b" ] || fail "output folder written for bad input"
    no_backtrace ;;
  rl)
    # the learning agents (sgai rl, built with libtorch): the thesis' 5.4 scenario trained, plotted,
    # evaluated; bad input, one line each, nothing written
    shared_or_skip
    [ -x "$(dirname "$SGAI")/sgai-rl" ] || { echo "sgai-rl not built (no libtorch-dev): skipped"; exit 77; }
    d=../shared/data/platforms/hdeeprm
    learn=(--platform platforms/learning.json --workload $d/workload_examples/learning.json)
    run "$SGAI" rl train "${learn[@]}" --actions $d/thesis_experiments/learning/options.json --observation minimal \
      --sensitivity 0.05 --reward makespan --agent actor-critic --episodes 200 --seed 3 --out "$tmp/t"; expect_rc 0
    head -1 "$tmp/t/episodes.csv" | grep -q '^episode,steps,reward_sum,last_reward,loss,policy_loss,value_loss,truncated,makespan_s,mean_bounded_slowdown,mean_waiting_s,energy_j,p_shortest/high_gflops,p_shortest/high_mem_bw,p_shortest/low_power,p_first/high_gflops,p_first/high_mem_bw$' ||
      fail "episodes.csv header: $(head -1 "$tmp/t/episodes.csv")"
    [ "$(wc -l <"$tmp/t/episodes.csv")" = 201 ] || fail "not 200 episodes"
    # learned: the last episodes take a high_mem_bw action (reward 8.4)
    [ "$(tail -20 "$tmp/t/episodes.csv" | cut -d, -f4 | sort -u)" = 8.4 ] || fail "not learned: $(tail -3 "$tmp/t/episodes.csv")"
    run "$SGAI" rl train "${learn[@]}" --actions $d/thesis_experiments/learning/options.json --observation minimal \
      --sensitivity 0.05 --reward makespan --agent actor-critic --episodes 200 --seed 3 --out "$tmp/t2"; expect_rc 0
    cmp -s "$tmp/t/episodes.csv" "$tmp/t2/episodes.csv" || fail "the same seed gave other episodes"
    # episodes cycle through several workloads (parts of a log)
    run "$SGAI" rl train "${learn[@]}" --and-workload $d/workload_examples/learning.json --observation minimal \
      --episodes 4 --out "$tmp/m"; expect_rc 0
    grep -q '"more_workloads": \[' "$tmp/m/config.json" || fail "config.json lacks the further workloads"
    [ "$(wc -l <"$tmp/m/episodes.csv")" = 5 ] || fail "not 4 episodes over two workloads"
    run "$SGAI" rl plot "$tmp/t"; expect_rc 0
    for f in losses rewards preferences; do [ -s "$tmp/t/$f.png" ] || fail "no $f.png"; done
    run "$SGAI" rl evaluate --model "$tmp/t/model.pt" "${learn[@]}" --out "$tmp/e"; expect_rc 0
    grep -q '^agent,1,8.4,0,2,5.25,' "$tmp/e/evaluation.csv" || fail "evaluation: $(cat "$tmp/e/evaluation.csv")"
    [ "$(wc -l <"$tmp/e/evaluation.csv")" = 8 ] || fail "not agent + 5 actions + random"
    # bad input
    run "$SGAI" rl train "${learn[@]}" --observation normal --episodes 2 --out "$tmp/n"; expect_rc 0
    run "$SGAI" rl evaluate --model "$tmp/n/model.pt" --platform platforms/gaia.json \
      --workload workloads/kth-sp2-first500.json --out "$tmp/b"; expect_rc 1
    expect_one_error_line "model.pt: the model was trained on observations of 36 values; here (normal observation of platforms/gaia.json) they have"
    run "$SGAI" rl evaluate --model platforms/learning.json "${learn[@]}" --out "$tmp/b"; expect_rc 1
    expect_one_error_line "learning.json: not a model sgai saved"
    run "$SGAI" rl train "${learn[@]}" --actions shortest:fastest --episodes 2 --out "$tmp/b"; expect_rc 2
    expect_one_error_line "--actions: unknown resource selection policy 'fastest' (known: "
    run "$SGAI" rl train "${learn[@]}" --episodes 0 --out "$tmp/b"; expect_rc 2; expect_one_error_line "--episodes"
    run "$SGAI" rl train "${learn[@]}" --reward speed --episodes 2 --out "$tmp/b"; expect_rc 2; expect_one_error_line "--reward"
    run "$SGAI" rl train "${learn[@]}" --observation huge --episodes 2 --out "$tmp/b"; expect_rc 2
    expect_one_error_line "--observation"
    run "$SGAI" rl train --platform platforms/learning.json --workload tests/fixtures/workloads/none.json \
      --episodes 2 --out "$tmp/b"; expect_rc 1; expect_one_error_line "none.json"
    [ ! -e "$tmp/b" ] || fail "output folder written for bad input"
    no_backtrace ;;
  gpu_traces)
    # the GPU-cluster trace converters on the public traces, with what each kept and skipped
    shared_or_skip
    d=../shared/data/ml-clusters
    thr=$d/gavel/scheduler/simulation_throughputs.json
    run "$SGAI" workload tiresias $d/tiresias/simulator/60_job.csv --out "$tmp/t.json"; expect_rc 0
    grep -q "kept 60 training jobs asking for 170 GPUs" <<<"$out" || fail "tiresias: $out"
    grep -q "6 jobs: model googlenet is not in Tiresias' models.py: inception3's gradient" <<<"$out" || fail "googlenet: $out"
    run "$SGAI" workload alibaba $d/alibaba-clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv \
      --throughputs $thr --out "$tmp/a.json"; expect_rc 0
    for line in "Read 8152 rows" "skipped 1088: no GPU" "skipped 3078: a fraction of a GPU" "skipped 356: never scheduled" \
      "kept 3630 training jobs asking for 3998 GPUs" "21 jobs: still running at the trace's end"; do
      grep -qF "$line" <<<"$out" || fail "alibaba lacks '$line': $out"
    done
    run "$SGAI" workload alibaba $d/alibaba-clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv \
      --throughputs $thr --qos BE --seed 7 --out "$tmp/be.json"; expect_rc 0
    grep -q "skipped 3000: qos LS, not BE" <<<"$out" || fail "--qos BE: $out"
    run "$SGAI" workload gavel "$d/gavel/scheduler/traces/msr/seed=0/11cb48.trace" --throughputs $thr --out "$tmp/g.json"
    expect_rc 0; grep -q "kept 2000 training jobs" <<<"$out" || fail "gavel: $out"
    # the workloads read back as training jobs, deterministic from the same inputs and seed
    run "$SGAI" workload stats "$tmp/g.json" size; expect_rc 0; grep -q "over 2000 of 2000 jobs" <<<"$out" || fail "$out"
    cp "$tmp/a.json" "$tmp/a1.json"
    run "$SGAI" workload alibaba $d/alibaba-clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv \
      --throughputs $thr --out "$tmp/a.json"; expect_rc 0
    cmp -s "$tmp/a.json" "$tmp/a1.json" || fail "alibaba differs between two runs"
    # bad rows: one line naming the file, the line and the column; nothing written
    printf 'job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,2,-5,10,vgg19,100,0\n' >"$tmp/bad.csv"
    run "$SGAI" workload tiresias "$tmp/bad.csv" --out "$tmp/bad.json"; expect_rc 1
    expect_one_error_line "bad.csv: line 2, column submit_time: '-5' is negative"; [ ! -e "$tmp/bad.json" ] || fail "half output"
    printf 'LM (batch size 5)\tcmd\t-n\t1\t10\t0\t1\nMystery\tcmd\t-n\t1\t10\t0\t1\n' >"$tmp/bad.trace"
    run "$SGAI" workload gavel "$tmp/bad.trace" --throughputs $thr --out "$tmp/bad.json"; expect_rc 1
    expect_one_error_line "bad.trace: line 2, column job type: 'Mystery' has no v100 throughput at 1 GPUs"
    run "$SGAI" workload gavel "$tmp/bad.trace" --out "$tmp/bad.json"; expect_rc 2; expect_one_error_line "--throughputs is required"
    run "$SGAI" workload alibaba "$tmp/bad.csv" --throughputs $thr --qos XX --out "$tmp/bad.json"; expect_rc 2
    expect_one_error_line "--qos"
    [ ! -e "$tmp/bad.json" ] || fail "half output" ;;
  astra_model_parallel)
    # generated DP x TP x PP iterations on ASTRA-sim's 2-D networks and two 3-D ones against ASTRA-sim's
    # own per-rank figures (tools/validate/astra-sim/model_parallel_unaware.csv): communication and
    # wall time within 1%, compute within 0.01%
    shared_or_skip
    /usr/bin/python3 tools/validate/astra_model_parallel.py --sgai "$SGAI" --check >"$tmp/out" 2>"$tmp/err" ||
      fail "astra_model_parallel: $(tail -3 "$tmp/err") $(tail -8 "$tmp/out")"
    [ "$(grep -c ' 32 ' "$tmp/out")" = 28 ] || fail "not 28 cases of 32 ranks: $(cat "$tmp/out")" ;;
  replay_unaware_equals_aware)
    # With one chunk in flight per dimension no link carries two transfers at once: the
    # congestion-unaware collective (worked out without SimGrid communications) must take the time of
    # the one run step by step on SimGrid's shared links, on one ring and on two ring dimensions
    # (chunks overlapping across them), with endpoint delays and reductions.
    printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$tmp/n1.yml"
    printf 'topology: [ Ring, Ring ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 50.0, 10.0 ]\nlatency: [ 500.0, 5000.0 ]\n' >"$tmp/n2.yml"
    for net in n1 n2; do
      impl='["ring"]'; [ $net = n2 ] && impl='["ring", "ring"]'
      printf '{"preferred-dataset-splits": 4, "active-chunks-per-dimension": 1, "endpoint-delay": 10, "local-mem-bw": 50,
 "all-reduce-implementation": %s, "all-gather-implementation": %s, "reduce-scatter-implementation": %s,
 "all-to-all-implementation": %s}\n' "$impl" "$impl" "$impl" "$impl" >"$tmp/sys_$net.json"
      for c in all_reduce all_gather reduce_scatter all_to_all; do
        run "$SGAI" chakra generate microbenchmark --collective $c --ranks 8 --size 1MiB --out "$tmp/mb_$c"; expect_rc 0
        run "$SGAI" replay --workload "$tmp/mb_$c/$c" --system "$tmp/sys_$net.json" --network "$tmp/$net.yml" \
          --congestion aware --step-by-step --out "$tmp/${net}_${c}_aware"; expect_rc 0
        run "$SGAI" replay --workload "$tmp/mb_$c/$c" --system "$tmp/sys_$net.json" --network "$tmp/$net.yml" \
          --congestion unaware --out "$tmp/${net}_${c}_unaware"; expect_rc 0
        a=$(awk -F, 'NR == 2 { print $9 }' "$tmp/${net}_${c}_aware/collectives.csv")
        u=$(awk -F, 'NR == 2 { print $9 }' "$tmp/${net}_${c}_unaware/collectives.csv")
        awk -v a="$a" -v u="$u" 'BEGIN { d = a - u; if (d < 0) d = -d; exit !(a > 0 && d <= 0.002 + 1e-9 * a) }' ||
          fail "$net $c: unaware $u ns, aware $a ns"
      done
    done ;;
  replay_alone_equals_step_by_step)
    # A congestion-aware collective that has the network to itself is worked out at once
    # (CollectiveRun::work_out_alone); it must give what SimGrid gives running its transfers step by
    # step (--step-by-step): every collective's start and end to 0.002 ns, the same ranks.csv and
    # links.csv. Transfers that start at one instant may share links (2 chunks in flight per
    # dimension: both chunks' transfers together), timed as SimGrid shares them; it must not be worked
    # out at once when another job's ranks still run.
    same_run() { # the two output folders: collectives' times to 0.002 ns, other columns and files equal
      awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; next }
        { split(a[FNR], x, ","); for (i = 1; i <= NF; i++) { d = x[i] - $i; if (d < 0) d = -d
            if (i >= 7 && i <= 9 ? d > 0.002 + 1e-12 * $i : (i == 10 || i == 11 ? d > 0.0011 : x[i] != $i)) bad = 1 } }
        END { exit !(FNR == n && !bad) }' "$1/collectives.csv" "$2/collectives.csv" ||
        fail "$3: collectives differ: $(diff "$1/collectives.csv" "$2/collectives.csv" | head -4)"
      for f in ranks.csv links.csv; do
        awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; next }
          { split(a[FNR], x, ","); for (i = 1; i <= NF; i++) { d = x[i] - $i; if (d < 0) d = -d
              if (x[i] != $i && !(d <= 0.002 + 1e-12 * ($i < 0 ? -$i : $i))) bad = 1 } }
          END { exit !(FNR == n && !bad) }' "$1/$f" "$2/$f" || fail "$3: $f differs: $(diff "$1/$f" "$2/$f" | head -4)"
      done
    }
    alone_count() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['collectives_worked_out_at_once'])" "$1/summary.json"; }
    printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$tmp/n1.yml"
    printf 'topology: [ Ring, Switch ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 50.0, 10.0 ]\nlatency: [ 500.0, 5000.0 ]\n' >"$tmp/n2.yml"
    for active in 1 2; do
      for net in n1 n2; do
        impl='["ring"]'; [ $net = n2 ] && impl='["ring", "ring"]'
        printf '{"preferred-dataset-splits": 4, "active-chunks-per-dimension": %d, "endpoint-delay": 10, "local-mem-bw": 50,
 "all-reduce-implementation": %s, "all-gather-implementation": %s, "reduce-scatter-implementation": %s,
 "all-to-all-implementation": %s}\n' $active "$impl" "$impl" "$impl" "$impl" >"$tmp/sys_$net$active.json"
        for c in all_reduce all_gather reduce_scatter all_to_all broadcast; do
          [ -d "$tmp/mb_$c" ] || { run "$SGAI" chakra generate microbenchmark --collective $c --ranks 8 --size 1MiB \
            --count 3 --out "$tmp/mb_$c"; expect_rc 0; }
          for how in alone step; do
            flag=; [ $how = step ] && flag=--step-by-step
            run "$SGAI" replay --workload "$tmp/mb_$c/$c" --system "$tmp/sys_$net$active.json" --network "$tmp/$net.yml" \
              $flag --out "$tmp/$net${active}_${c}_$how"; expect_rc 0
          done
          same_run "$tmp/$net${active}_${c}_alone" "$tmp/$net${active}_${c}_step" "$net, $active in flight, $c"
          [ "$(alone_count "$tmp/$net${active}_${c}_step")" = 0 ] || fail "--step-by-step worked a collective out at once"
          n=$(alone_count "$tmp/$net${active}_${c}_alone")
          if [ $active = 2 ]; then
            if [ $net = n1 ] && [ $c = all_reduce ]; then # both chunks' transfers share each ring link
              [ "$n" = 3 ] || fail "$net $c: $n of 3 collectives with two chunks sharing links worked out at once"
            fi
          elif [ $c = broadcast ] && [ $net = n1 ]; then # the chain's ranks end one after another, and
            # nothing but collectives of every rank follows: a rank that ends first cannot send into them
            [ "$n" = 3 ] || fail "$net $c: $n of 3 broadcasts (ranks ending apart, nothing else to send) worked out at once"
          elif [ $net = n1 ]; then
            [ "$n" = 3 ] || fail "$net $c: $n of 3 collectives alone on the ring worked out at once"
          fi
        done
      done
    done
    # ranks that end apart while a send is still to come: a rank that ends first could send into the
    # others' last transfers, so the broadcast before the send runs on SimGrid
    mkdir -p "$tmp/bsend"
    for r in 0 1 2 3 4 5 6 7; do
      run "$SGAI" chakra jsonize "$tmp/mb_broadcast/broadcast.$r.et" --out "$tmp/bsend/$r.json"; expect_rc 0
    done
    python3 - "$tmp/bsend" <<'PY'
import json, sys
for r, kind, peer in ((0, "COMM_SEND_NODE", "comm_dst"), (1, "COMM_RECV_NODE", "comm_src")):
    path = "%s/%d.json" % (sys.argv[1], r)
    t = json.load(open(path))
    last = t["nodes"][0]["id"]
    t["nodes"].insert(1, {"id": 1000, "name": "p2p", "type": kind, "data_deps": [last],
                          "attr": [{"name": peer, "int64_val": 1 - r}, {"name": "comm_size", "int64_val": 1048576}]})
    json.dump(t, open(path, "w"))
PY
    for r in 0 1 2 3 4 5 6 7; do
      run "$SGAI" chakra dejsonize "$tmp/bsend/$r.json" --out "$tmp/bsend/b.$r.et"; expect_rc 0
    done
    for how in alone step; do
      flag=; [ $how = step ] && flag=--step-by-step
      run "$SGAI" replay --workload "$tmp/bsend/b" --system "$tmp/sys_n11.json" --network "$tmp/n1.yml" $flag \
        --out "$tmp/bsend_$how"; expect_rc 0
    done
    same_run "$tmp/bsend_alone" "$tmp/bsend_step" "broadcasts with a send after them"
    n=$(alone_count "$tmp/bsend_alone")
    [ "$n" = 2 ] || fail "broadcasts then a send: $n worked out at once (2 expected: those after the send)"
    # two jobs on the ring, each its own half: neither has the network to itself
    printf '{"preferred-dataset-splits": 4, "active-chunks-per-dimension": 1, "all-reduce-implementation": ["ring"]}\n' >"$tmp/sys4.json"
    run "$SGAI" chakra generate microbenchmark --collective all_reduce --ranks 4 --size 1MiB --count 2 --out "$tmp/mb4"; expect_rc 0
    run "$SGAI" replay --workload "$tmp/mb4/all_reduce" --workload "$tmp/mb4/all_reduce" --npus 0,2,4,6 --npus 1,3,5,7 \
      --system "$tmp/sys4.json" --network "$tmp/n1.yml" --out "$tmp/two"; expect_rc 0
    [ "$(alone_count "$tmp/two")" = 0 ] || fail "a collective was worked out at once beside another job"
    run "$SGAI" replay --workload "$tmp/mb4/all_reduce" --workload "$tmp/mb4/all_reduce" --npus 0,2,4,6 --npus 1,3,5,7 \
      --system "$tmp/sys4.json" --network "$tmp/n1.yml" --step-by-step --out "$tmp/two_step"; expect_rc 0
    same_run "$tmp/two" "$tmp/two_step" "two jobs"
    # links drawing power: SimGrid's link-energy plugin needs the communications, so nothing is
    # worked out at once, and the links' energy is the step-by-step run's
    for how in alone step; do
      flag=; [ $how = step ] && flag=--step-by-step
      run "$SGAI" replay --workload "$tmp/mb4/all_reduce" --system "$tmp/sys4.json" --network "$tmp/n1.yml" --npus 0,1,2,3 \
        --link-idle-w 2 --link-busy-w 7 $flag --out "$tmp/energy_$how"; expect_rc 0
    done
    [ "$(alone_count "$tmp/energy_alone")" = 0 ] || fail "a collective was worked out at once while links draw power"
    cmp -s "$tmp/energy_alone/energy.csv" "$tmp/energy_step/energy.csv" || fail "link energy differs"
    awk -F, '$1 == "link" && $3 > 0 { found = 1 } END { exit !found }' "$tmp/energy_alone/energy.csv" || fail "no link energy: $(head -3 "$tmp/energy_alone/energy.csv")"
    run "$SGAI" replay --workload "$tmp/mb4/all_reduce" --system "$tmp/sys4.json" --network "$tmp/n1.yml" \
      --congestion unaware --step-by-step --out "$tmp/bad"; expect_rc 2
    expect_one_error_line "--step-by-step goes with --congestion aware"
    # the experiment option: a boolean, named with its place when it is not one
    python3 - "$PWD/deploy/experiments/replay-hgx.json" "$tmp/exp.json" <<'PY'
import json, os, sys
e = json.load(open(sys.argv[1]))
base = os.path.dirname(sys.argv[1])
e["platform"]["file"] = os.path.normpath(os.path.join(base, e["platform"]["file"]))
o = e["components"][0]["options"]
o["workloads"] = [os.path.normpath(os.path.join(base, w)) for w in o["workloads"]]
for k in ("comm_groups", "system"):
    o[k] = os.path.normpath(os.path.join(base, o[k]))
o["step_by_step"] = "yes"
json.dump(e, open(sys.argv[2], "w"))
PY
    run "$SGAI" run "$tmp/exp.json" --out "$tmp/bad_exp"; expect_rc 1
    expect_one_error_line "at /components/0/options/step_by_step"
    [ ! -e "$tmp/bad_exp" ] || fail "a refused experiment left output behind" ;;
  replay_tools)
    run "$SGAI" chakra generate microbenchmark --collective all_reduce --ranks 4 --size 1MiB --out "$tmp/mb"; expect_rc 0
    printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$tmp/ring4.yml"
    printf '{"preferred-dataset-splits": 2, "all-reduce-implementation": ["ring"], "local-mem-bw": 50}\n' >"$tmp/sys.json"
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" --out "$tmp/r"; expect_rc 0
    grep -q "^sys\[3\], Wall time: " "$tmp/out" || fail "ASTRA-sim style lines: $out"
    for f in ranks.csv collectives.csv energy.csv links.csv replay_log.csv summary.json; do [ -s "$tmp/r/$f" ] || fail "$f missing"; done
    # ASTRA-sim's congestion-unaware backend: nothing shared, no SimGrid communication on the links
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" \
      --congestion unaware --out "$tmp/ru"; expect_rc 0
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" \
      --congestion sideways --out "$tmp/rx"; expect_rc 2
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" \
      --sends sideways --out "$tmp/rx"; expect_rc 2
    # a GPU platform runs CM02 unless the user names another model
    run "$SGAI" run deploy/experiments/replay-hgx.json --cfg=network/model:LV08 --out "$tmp/lv"; expect_rc 0
    grep -q '"network_model": "LV08"' "$tmp/lv/summary.json" || fail "--cfg=network/model:LV08 not honoured"
    run "$SGAI" chakra timeline "$tmp/r/replay_log.csv" --out "$tmp/tl.json"; expect_rc 0
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['traceEvents']) >= 4" "$tmp/tl.json" || fail "timeline is not a Chrome trace"
    # a power cap (P-state 2) on the same trace: no faster, energy per NPU changes
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" --out "$tmp/r2" --pstate 2; expect_rc 0
    # bad input: one error line naming the file and the place, nothing written
    printf 'topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' >"$tmp/ring8.yml"
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring8.yml" --out "$tmp/bad1"; expect_rc 1
    expect_one_error_line "the dimensions (8) make 8 NPUs but the workload"
    [ ! -e "$tmp/bad1" ] || fail "replay left output behind"
    printf 'topology: [ Ring, Torus ]\nnpus_count: [ 2, 2 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n' >"$tmp/torus.yml"
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/torus.yml" --out "$tmp/bad2"; expect_rc 1
    expect_one_error_line "$tmp/torus.yml: line 1: topology[1] 'Torus' is not Ring, Switch or FullyConnected"
    printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50Gbps ]\nlatency: [ 500 ]\n' >"$tmp/units.yml"
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/units.yml" --out "$tmp/bad3"; expect_rc 1
    expect_one_error_line "bandwidth[0] '50Gbps' is not a number"
    printf '{"all-reduce-implementation": ["butterfly"]}\n' >"$tmp/badsys.json"
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/badsys.json" --network "$tmp/ring4.yml" --out "$tmp/bad4"; expect_rc 1
    expect_one_error_line "$tmp/badsys.json: at /all-reduce-implementation/0: unknown implementation 'butterfly'"
    printf '{"preferred-dataset-split": 2}\n' >"$tmp/typo.json"
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/typo.json" --network "$tmp/ring4.yml" --out "$tmp/bad5"; expect_rc 1
    expect_one_error_line "unknown key 'preferred-dataset-split'"
    printf '{"0": [0, 1, 2, 9]}\n' >"$tmp/groups.json"
    run "$SGAI" replay --workload "$tmp/mb/all_reduce" --system "$tmp/sys.json" --network "$tmp/ring4.yml" --comm-group "$tmp/groups.json" --out "$tmp/bad6"; expect_rc 1
    expect_one_error_line "rank 9 does not exist (the job has 4 ranks)" ;;
  chakra_tools)
    run "$SGAI" chakra generate microbenchmark --collective all_gather --ranks 4 --size 64KiB --out "$tmp/mb"; expect_rc 0
    for r in 0 1 2 3; do [ -s "$tmp/mb/all_gather.$r.et" ] || fail "rank $r missing"; done
    run "$SGAI" chakra stats "$tmp/mb/all_gather" --json "$tmp/s.json"; expect_rc 0
    grep -q "All 4 ranks" "$tmp/out" || fail "stats over the ranks: $out"
    grep -q "ALL_GATHER: 4 collectives, 0.250 MiB" "$tmp/out" || fail "stats: $out"
    grep -q '"ranks": 4' "$tmp/s.json" || fail "stats json"
    run "$SGAI" chakra jsonize "$tmp/mb/all_gather.2.et" --out "$tmp/a.json"; expect_rc 0
    run "$SGAI" chakra dejsonize "$tmp/a.json" --out "$tmp/b.2.et"; expect_rc 0
    cmp -s "$tmp/mb/all_gather.2.et" "$tmp/b.2.et" || fail "jsonize/dejsonize changed the bytes"
    run "$SGAI" chakra generate training --layers 4 --hidden 256 --seq 64 --batch 2 --dp 2 --pp 2 --out "$tmp/tr"; expect_rc 0
    run "$SGAI" chakra stats "$tmp/tr/training"; expect_rc 0; grep -q "All 4 ranks" "$tmp/out" || fail "$out"
    run "$SGAI" chakra generate training --layers 1 --pp 2 --out "$tmp/tr2"; expect_rc 2; expect_one_error_line "1 layers for 2 pipeline stages"
    # synthetic traces fitted to the training iteration: 2 groups of 4 ranks, model reusable
    run "$SGAI" chakra synth "$tmp/tr/training" --ranks 8 --group-size 4 --out "$tmp/syn"; expect_rc 0
    grep -q "^ALL_REDUCE " "$tmp/out" || fail "synth report: $out"
    for r in 0 7; do [ -s "$tmp/syn/synth.$r.et" ] || fail "synth rank $r missing"; done
    grep -q '"1": \[4, 5, 6, 7\]' "$tmp/syn/synth.groups.json" || fail "groups: $(cat "$tmp/syn/synth.groups.json")"
    run "$SGAI" chakra synth --model "$tmp/syn/synth.model.json" --ranks 16 --out "$tmp/syn2" --seed 9; expect_rc 0
    run "$SGAI" chakra stats "$tmp/syn2/synth"; expect_rc 0; grep -q "All 16 ranks" "$tmp/out" || fail "$out"
    run "$SGAI" chakra synth "$tmp/tr/training" --ranks 6 --group-size 4 --out "$tmp/syn3"; expect_rc 2
    expect_one_error_line "a group size of 4 does not divide 6 ranks"
    [ ! -e "$tmp/syn3" ] || fail "synth left output behind"
    sed '0,/"weight"/s//"wieght"/' "$tmp/syn/synth.model.json" >"$tmp/badmodel.json"
    run "$SGAI" chakra synth --model "$tmp/badmodel.json" --out "$tmp/syn4"; expect_rc 1
    expect_one_error_line "$tmp/badmodel.json: at /sizes/ALL_REDUCE/components/0: missing field 'weight'"
    run "$SGAI" chakra synth "$tmp/mb/all_gather" --model "$tmp/syn/synth.model.json" --out "$tmp/syn5"; expect_rc 2
    expect_one_error_line "either input traces or --model"
    run "$SGAI" chakra generate dag --nodes 5000 --out "$tmp/d.0.et"; expect_rc 0
    run "$SGAI" chakra stats "$tmp/d.0.et"; expect_rc 0; grep -q "nodes 5000 (COMP_NODE 5000)" "$tmp/out" || fail "$out"
    # bad input: one error line naming the file and the place, nothing written
    head -c 100 "$tmp/d.0.et" >"$tmp/cut.0.et"
    run "$SGAI" chakra stats "$tmp/cut.0.et"; expect_rc 1; expect_one_error_line "$tmp/cut.0.et: byte "
    run "$SGAI" chakra jsonize "$tmp/cut.0.et" --out "$tmp/cut.json"; expect_rc 1; expect_one_error_line "goes past the end"
    [ ! -e "$tmp/cut.json" ] || fail "jsonize left a half-written file"
    sed 's/"name": "all_gather_4npus_64KB"/"name": "x", "nmae": "y"/' "$tmp/a.json" >"$tmp/bad.json"
    run "$SGAI" chakra dejsonize "$tmp/bad.json" --out "$tmp/bad.0.et"; expect_rc 1
    expect_one_error_line "at /nodes/0/nmae: unknown key 'nmae'"
    [ ! -e "$tmp/bad.0.et" ] || fail "dejsonize left a file"
    run "$SGAI" chakra stats "$tmp/mb/all_gather" --replay-log "$tmp/log.csv"; expect_rc 0
    run "$SGAI" chakra timeline "$tmp/log.csv" --out "$tmp/tl.json"; expect_rc 0
    grep -q '"traceEvents"' "$tmp/tl.json" || fail "timeline"
    run "$SGAI" chakra visualize "$tmp/d.0.et" --out "$tmp/d.dot" --max-nodes 50; expect_rc 0
    grep -q "truncated" "$tmp/out" || fail "visualize should say it truncated: $out"
    [ "$(grep -c '\[label=' "$tmp/d.dot")" -eq 50 ] || fail "50 nodes expected in the dot file"
    if command -v dot >/dev/null; then
      run "$SGAI" chakra visualize "$tmp/d.0.et" --out "$tmp/d.svg" --max-nodes 20; expect_rc 0
      grep -q "<svg" "$tmp/d.svg" || fail "no svg"
    fi
    run "$SGAI" chakra visualize "$tmp/d.0.et" --out "$tmp/e.dot" --type COMPUTE; expect_rc 2; expect_one_error_line "unknown node type 'COMPUTE'"
    run "$SGAI" chakra stats "$tmp/nothing"; expect_rc 1; expect_one_error_line "no such ET file, folder or workload prefix"
    run "$SGAI" chakra generate microbenchmark --collective allreduce --out "$tmp/x"; expect_rc 2
    expect_one_error_line "unknown collective 'allreduce'"
    printf '{"nodes": [{"id": 1, "name": "x"}]}' >"$tmp/host.json"
    run "$SGAI" chakra convert "$tmp/host.json" --out "$tmp/h.0.et"; expect_rc 1; expect_one_error_line "at /nodes/0: missing field 'parent'"
    [ ! -e "$tmp/h.0.et" ] || fail "convert wrote a file on bad input"
    if [ -d ../shared/data/pytorch-et/param ]; then
      mkdir -p "$tmp/dlrm" && tar -xzf ../shared/data/pytorch-et/param/dlrm_pytorch_et.tar.gz -C "$tmp/dlrm" &&
        tar -xzf ../shared/data/pytorch-et/param/dlrm_kineto.tar.gz -C "$tmp/dlrm"
      run "$SGAI" chakra convert "$tmp/dlrm/dlrm_pytorch_et/dlrm_eg_2.json" --kineto "$tmp"/dlrm/dlrm_kineto/worker2_*.json --out "$tmp/dlrm.2.et"
      expect_rc 0; grep -q "ALL_TO_ALL: 5" "$tmp/out" || fail "convert: $out"
      grep -q "kept as INVALID_NODE" "$tmp/err" || fail "no warning about unknown operators: $err"
    fi
    if [ -d ../shared/data/chakra ]; then
      run "$SGAI" chakra stats ../shared/data/chakra/mlcommons-chakra.0.et --deps all; expect_rc 1; expect_one_error_line "through control dependencies"
      run "$SGAI" chakra stats ../shared/data/chakra/mlcommons-chakra.0.et --deps data; expect_rc 0
      grep -q "nodes 3664 (COMP_NODE 3643, COMM_COLL_NODE 21)" "$tmp/out" || fail "$out"
    fi ;;
  shipped_experiments)
    shared_or_skip
    for e in deploy/experiments/*.json; do
      run "$SGAI" run "$e" --out "$tmp/x"; expect_rc 0
      [ -s "$tmp/x/summary.json" ] || fail "$e: no summary"
      rm -rf "$tmp/x"
    done ;;
  batch_run)
    run "$SGAI" batch run --platform tests/fixtures/platforms/tiny_nodes.json --workload tests/fixtures/workloads/interference.json \
      --jobs first --resources first --series overutilization --out "$tmp/b"; expect_rc 0
    [ ! -e "$tmp/b/machine_states.csv" ] || fail "machine_states.csv written without being asked for"
    head -1 "$tmp/b/jobs.csv" | grep -qx "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata" || fail "jobs.csv header"
    grep -q '^f,.*,REJECTED,' "$tmp/b/jobs.csv" || fail "job f (11 cores of 10) not rejected"
    grep -q '^e,.*,COMPLETED_WALLTIME_REACHED,' "$tmp/b/jobs.csv" || fail "job e not killed at its walltime"
    grep -q '"jobs_rejected": 1' "$tmp/b/schedule.json" || fail "schedule.json"
    [ "$(wc -l <"$tmp/b/schedule.csv")" -eq 2 ] || fail "schedule.csv is not one row"
    [ "$(wc -l <"$tmp/b/overutilization.csv")" -gt 1 ] || fail "no over-utilization span"
    run "$SGAI" batch run --platform platforms/learning.json --workload tests/fixtures/workloads/tiny.swf --backfill conservative --out "$tmp/s"
    expect_rc 0; [ -s "$tmp/s/jobs.csv" ] || fail "SWF workload run" ;;
  batch_slurm)
    d=tests/fixtures/slurm
    run "$SGAI" batch run --platform tests/fixtures/platforms/tiny_nodes.json --workload $d/jobs.json --backfill slurm \
      --slurm-conf $d/site.conf --slurm-associations $d/assoc.cfg --out "$tmp/s"; expect_rc 0
    [ "$(grep -c ',COMPLETED_SUCCESSFULLY,' "$tmp/s/jobs.csv")" -eq 6 ] || fail "not every job ran: $(cat "$tmp/s/jobs.csv")"
    # Slurm ends a job at its time limit (10 s here; it needs about 70)
    grep -q '^g,.*,COMPLETED_WALLTIME_REACHED,[0-9.]*,10,' "$tmp/s/jobs.csv" || fail "g not ended at its limit: $(grep ^g, "$tmp/s/jobs.csv")"
    grep -q "site.conf: not modelled, read and left: ClusterName, SlurmctldHost, NodeName lines" "$tmp/err" || fail "no warning on the lines left: $err"
    grep -q "assoc.cfg: no association for dave (fair-share factor 0)" "$tmp/err" || fail "no warning on dave: $err"
    grep -q '"slurm_conf"' "$tmp/s/config.json" || fail "config.json lacks slurm_conf"
    for f in $d/bogus_*.conf; do
      run "$SGAI" batch run --platform tests/fixtures/platforms/tiny_nodes.json --workload $d/jobs.json --backfill slurm \
        --slurm-conf "$f" --out "$tmp/o"; expect_rc 1
      expect_one_error_line "$(basename "$f"): line 2"
      [ ! -e "$tmp/o" ] || fail "$f: output folder written"
    done
    run "$SGAI" batch run --platform tests/fixtures/platforms/tiny_nodes.json --workload $d/jobs.json --backfill slurm --out "$tmp/o"
    expect_rc 2; expect_one_error_line "--backfill slurm needs --slurm-conf"
    printf 'PartitionName=batch Nodes=ALL\n' >"$tmp/nodefault.conf"
    run "$SGAI" batch run --platform tests/fixtures/platforms/tiny_nodes.json --workload $d/jobs.json --backfill slurm \
      --slurm-conf "$tmp/nodefault.conf" --out "$tmp/o"; expect_rc 1
    expect_one_error_line "jobs.json: job 'a': names no partition, and $tmp/nodefault.conf has no Default=YES partition" ;;
  batch_plot)
    /usr/bin/python3 -c "import matplotlib" 2>/dev/null || { echo "no python3-matplotlib: skipped"; exit 77; }
    run "$SGAI" batch run --platform tests/fixtures/platforms/tiny_nodes.json --workload tests/fixtures/workloads/interference.json --out "$tmp/n"
    expect_rc 0
    run "$SGAI" batch plot "$tmp/n"; expect_rc 0 # no time series: the job charts only
    [ -s "$tmp/n/gantt.png" ] && [ ! -e "$tmp/n/queue.png" ] || fail "charts without the time series"
    grep -q "not written (--series machine_states)" "$tmp/err" || fail "the missing series is not said"
    run "$SGAI" batch run --platform tests/fixtures/platforms/tiny_nodes.json --workload tests/fixtures/workloads/interference.json \
      --series all --out "$tmp/b"
    expect_rc 0
    run "$SGAI" batch plot "$tmp/b"; expect_rc 0
    for f in gantt utilization queue lifecycles overutilization; do
      [ "$(head -c 4 "$tmp/b/$f.png" | tail -c 3)" = PNG ] || fail "$f.png is not a PNG"
    done
    run "$SGAI" batch plot "$tmp/nowhere"; expect_rc 1; expect_one_error_line "no jobs.csv here"
    printf 'job_id,submission_time,final_state,starting_time,finish_time,allocated_resources\n1,0,COMPLETED_SUCCESSFULLY,zero,1,0\n' >"$tmp/b/jobs.csv"
    run "$SGAI" batch plot "$tmp/b"; expect_rc 1; expect_one_error_line "jobs.csv: line 2: column starting_time: 'zero' is not a number" ;;
  bad_workloads)
    for f in tests/fixtures/workloads/bogus_*; do
      run "$SGAI" batch run --platform platforms/learning.json --workload "$f" --out "$tmp/o"; expect_rc 1
      expect_one_error_line "$(basename "$f")"
      [ ! -e "$tmp/o" ] || fail "$f: output folder written"
    done
    run "$SGAI" batch run --platform platforms/learning.json --workload tests/fixtures/workloads/bogus_fields.swf --out "$tmp/o"; expect_rc 1
    expect_one_error_line "line 3: expected the 18 fields"
    run "$SGAI" batch run --platform platforms/learning.json --workload tests/fixtures/workloads/bogus_number.swf --out "$tmp/o"; expect_rc 1
    expect_one_error_line "line 2: field 4 (run time) '4x0' is not a number"
    run "$SGAI" batch run --platform platforms/learning.json --workload tests/fixtures/workloads/bogus_missing_profile.json --out "$tmp/o"; expect_rc 1
    expect_one_error_line "names profile 'nope', which is not in 'profiles'"
    run "$SGAI" batch run --platform platforms/learning.json --workload tests/fixtures/workloads/bogus_negative_subtime.json --out "$tmp/o"; expect_rc 1
    expect_one_error_line "submission time -5 must be >= 0"
    run "$SGAI" workload swf2json tests/fixtures/workloads/bogus_fields.swf --out "$tmp/w.json"; expect_rc 1
    expect_one_error_line "bogus_fields.swf: line 3"; [ ! -e "$tmp/w.json" ] || fail "swf2json wrote a half output"
    run "$SGAI" workload stats tests/fixtures/workloads/bogus_number.swf size; expect_rc 1; expect_one_error_line "line 2"
    run "$SGAI" workload stats tests/fixtures/workloads/tiny.json height; expect_rc 2; expect_one_error_line "height"
    run "$SGAI" batch run --platform platforms/learning.json --workload tests/fixtures/workloads/tiny.json --jobs bogus --out "$tmp/o"
    expect_rc 1; expect_one_error_line "unknown job selection policy 'bogus' (known: first, random, shortest, smallest, low_mem, low_mem_bw)"
    run "$SGAI" batch run --platform platforms/learning.json --workload tests/fixtures/workloads/tiny.json --resources fastest --out "$tmp/o"
    expect_rc 1; expect_one_error_line "unknown resource selection policy 'fastest' (known: first, random, high_gflops, high_cores, high_mem, high_mem_bw, low_power)"
    run "$SGAI" batch run --platform platforms/learning.json --workload tests/fixtures/workloads/tiny.json --backfill aggressive --out "$tmp/o"
    expect_rc 1; expect_one_error_line "unknown backfilling 'aggressive'"
    [ ! -e "$tmp/o" ] || fail "output folder written for bad input"
    ls -a "$tmp" | grep -q sgai-tmp && fail "staging folder left behind"
    run "$SGAI" workload generate --jobs 10 --run-time 0:10 --out "$tmp/g.json"; expect_rc 2; expect_one_error_line "--run-time: bad range '0:10': expected MIN:MAX times with 0 < MIN"
    run "$SGAI" workload generate --jobs 10 --load 0.5 --out "$tmp/g.json"; expect_rc 2; expect_one_error_line "--load needs --cores"
    run "$SGAI" workload generate --jobs 10 --mem-bw 5:2 --out "$tmp/g.json"; expect_rc 2; expect_one_error_line "--mem-bw: bad range '5:2'"
    run "$SGAI" workload generate --jobs 10 --interarrival fast --out "$tmp/g.json"; expect_rc 2; expect_one_error_line "--interarrival: 'fast' is not a time"
    [ ! -e "$tmp/g.json" ] || fail "generate wrote a file on bad input"
    run "$SGAI" workload generate --jobs 50 --load 0.8 --cores 64 --seed 3 --out "$tmp/g.json"; expect_rc 0
    run "$SGAI" workload stats "$tmp/g.json" size; expect_rc 0; grep -q "size over 50 of 50 jobs" "$tmp/out" || fail "stats: $out"
    true ;;
  bad_experiment)
    cat >"$tmp/e.json" <<'JSON'
{ "sgai_experiment": 1, "name": "x", "platform": { "file": "PLATFORM" },
  "components": [ { "type": "jobs", "options": { "jobs": [ { "id": "a", "submit": 0, "cores": 1, "work": "1Gf", "wrok": 1 } ] } } ] }
JSON
    sed -i "s|PLATFORM|$PWD/platforms/learning.json|" "$tmp/e.json"
    run "$SGAI" run "$tmp/e.json" --out "$tmp/r"; expect_rc 1
    expect_one_error_line "at /components/0/options/jobs/0/wrok: unknown key 'wrok'"
    [ ! -e "$tmp/r" ] || fail "output folder created for a bad experiment"
    sed -i 's/"type": "jobs"/"type": "jobz"/' "$tmp/e.json"
    run "$SGAI" run "$tmp/e.json" --out "$tmp/r"; expect_rc 1; expect_one_error_line "unknown component type 'jobz'"
    cat >"$tmp/f.json" <<JSON
{ "sgai_experiment": 1, "name": "x", "platform": { "file": "$PWD/platforms/learning.json" },
  "components": [ { "type": "jobs", "options": { "jobs": [ { "id": "a", "submit": 0, "cores": 5, "work": "1Gf" } ] } } ] }
JSON
    run "$SGAI" run "$tmp/f.json" --out "$tmp/r"; expect_rc 1; expect_one_error_line "needs 5 cores but the platform has 4"
    [ ! -e "$tmp/r" ] || fail "output folder created for a failed experiment" ;;
  platform_superpod)
    # sgai platform superpod: a DGX H100 SuperPOD of N nodes, loadable; rails on their leaves (4
    # links between the same GPU of two nodes of one unit), other units through a spine (6)
    run "$SGAI" platform superpod --nodes 40 --out "$tmp/pod.json"; expect_rc 0
    run "$SGAI" platform inspect "$tmp/pod.json" --route pod-n0-gpu2 pod-n31-gpu2; expect_rc 0
    grep -q "hosts: 400" "$tmp/out" || fail "40 nodes: $out"
    grep -q "route pod-n0-gpu2 -> pod-n31-gpu2: 4 links" "$tmp/out" || fail "rail route: $out"
    run "$SGAI" platform inspect "$tmp/pod.json" --route pod-n0-gpu2 pod-n39-gpu2; expect_rc 0
    grep -q "route pod-n0-gpu2 -> pod-n39-gpu2: 6 links" "$tmp/out" || fail "across units: $out"
    run "$SGAI" platform superpod --nodes 0 --out "$tmp/zero.json"; expect_rc 2
    [ ! -e "$tmp/zero.json" ] || fail "a file written for 0 nodes"
    run "$SGAI" platform superpod --nodes 8193 --out "$tmp/big.json"; expect_rc 2
    run "$SGAI" platform superpod --nodes 8 --out /proc/sgai-pod.json; expect_rc 1
    expect_one_error_line "--out: '/proc' is not writable"
    no_backtrace ;;
  platforms_up_to_date)
    shared_or_skip
    SGAI="$SGAI" platforms/make-platforms.sh "$tmp" >/dev/null || fail "make-platforms.sh failed"
    for p in gaia mc2 learning metacentrum2013 dgx-h100-superpod-rails; do
      cmp -s "$tmp/$p.json" "platforms/$p.json" || fail "platforms/$p.json is stale: run platforms/make-platforms.sh"
    done ;;
  workloads_up_to_date)
    shared_or_skip
    SGAI="$SGAI" workloads/make-workloads.sh "$tmp" >/dev/null || fail "make-workloads.sh failed"
    for f in "$tmp"/*.json "$tmp"/gpu/*.json; do
      rel=${f#"$tmp"/}
      cmp -s "$f" "workloads/$rel" || fail "workloads/$rel is stale: run workloads/make-workloads.sh"
    done ;;
  convert_roundtrip)
    shared_or_skip
    run "$SGAI" platform convert ../shared/data/platforms/hdeeprm/platform_examples/gaia.json --out "$tmp/g.json"; expect_rc 0
    run "$SGAI" platform convert "$tmp/g.json" --out "$tmp/h.json"; expect_rc 1; expect_one_error_line "already an sgai platform"
    [ ! -e "$tmp/h.json" ] || fail "output written on error"
    run "$SGAI" platform import-machines ../shared/data/platforms/machines/mc.config --processors tests/fixtures/platforms/tiny_types.json --out "$tmp/m.json"
    expect_rc 1; [ ! -e "$tmp/m.json" ] || fail "output written on error" ;;
  *)
    fail "unknown case $case_name" ;;
esac
echo "ok: $case_name"
