#!/usr/bin/env bash
# Sets sgai up on Debian 12 (installs the missing packages of tools/setup/debian-packages.txt,
# configures and builds in build/), then:
#   tools/setup.sh quickstart   installs and builds only what running needs (the sgai binary), runs
#                               the default experiment (sgai run) and says where the results are
#   tools/setup.sh test         installs the test packages too and runs every check: formatting,
#                               sanitizer build of the unit and simulation tests, then the whole test
#                               suite (ends with ctest's summary), then the install check
#                               (tests/install/check.sh); prints each phase's time and the
#                               total (libFuzzer runs: tools/fuzz.sh, docs/fuzzing.md)
#   tools/setup.sh build        only sets up and builds everything
#   tools/setup.sh fuzz-packages  installs what tools/fuzz.sh needs (clang, libFuzzer's runtime)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mode=${1:-quickstart}
jobs=$(nproc 2>/dev/null || echo 2)

phase_started=$(date +%s)
# phase_done: the time the phase under way took, once it has a name
phase_done() {
  [ -z "${phase_name:-}" ] || printf '(%s: %d s)\n' "$phase_name" $(($(date +%s) - phase_started))
}
# say TEXT: a phase's heading, after the time the previous phase took
say() {
  phase_done
  phase_started=$(date +%s)
  phase_name=$1
  printf '\n== %s\n' "$*"
}

# install_packages [test|fuzz]: the packages above the "# test only" line; with "test" those up to
# the "# fuzzing only" line too; with "fuzz" the "fuzzing only" ones alone (tools/fuzz.sh).
install_packages() {
  local missing=() section=run
  while read -r pkg; do
    [[ "$pkg" == "# test only"* ]] && section=test
    [[ "$pkg" == "# fuzzing only"* ]] && section=fuzz
    [[ -z "$pkg" || "$pkg" == \#* ]] && continue
    case "${1:-run}:$section" in
      run:run | test:run | test:test | fuzz:fuzz) ;;
      *) continue ;;
    esac
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done <tools/setup/debian-packages.txt
  if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

# Every build here is a unity build (cmake/unity.cmake): a fresh build takes a third less time.
# Developers who edit and rebuild: cmake -S . -B build -DSGAI_UNITY=OFF compiles file by file.
unity=-DSGAI_UNITY=ON

# build DIR [cmake options...]: configures and builds everything (tests and benchmarks included).
build() {
  local dir=$1
  shift
  say "configuring and building $dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DSGAI_BUILD_TESTS=ON $unity "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" -- --no-print-directory
}

# The sgai binary alone, without the test suite (quickstart).
build_binary() {
  say "configuring and building the sgai binary in build"
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSGAI_BUILD_TESTS=OFF $unity >/dev/null
  cmake --build build -j "$jobs" --target sgai -- --no-print-directory
}

# ctest's per-test lines are padded to the longest test name (over 100 columns): this prints them
# as "  12/231 Passed   0.01 s  Name", cut to 80 columns; every other line (the summary, the output
# of failing tests) passes unchanged. ctest's exit status is kept (pipefail).
ctest_compact() {
  awk '
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / && match($0, / +[0-9.]+ sec$/) {
      time = substr($0, RSTART); sub(/ sec$/, "", time); gsub(/ /, "", time)
      rest = substr($0, 1, RSTART - 1)
      status = rest; sub(/^[^:]*: +[^ ]+ \.+ */, "", status); sub(/^\*+/, "", status)
      line = sprintf("%8s %-7s %6s s  %s", $1, status, time, $4)
      if (length(line) > 80) line = substr(line, 1, 77) "..."
      print line; fflush(); next
    }
    /^ +Start +[0-9]+: / { next }
    { print; fflush() }'
}

format_check() {
  say "checking formatting (clang-format, .clang-format)"
  local bad
  bad=$(git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run 2>&1 | grep -c 'warning:' || true)
  if [ "$bad" -gt 0 ]; then
    git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run 2>&1 | grep 'warning:' | head -20
    echo "clang-format would change $bad places: run clang-format -i on the files above" >&2
    exit 1
  fi
  echo "formatting ok"
}

sanitizer_tests() {
  say "unit and simulation tests under AddressSanitizer + UndefinedBehaviorSanitizer"
  # -g1: line tables only, which the sanitizers' reports need (file:line in every frame); full debug
  # information made this build 18% longer (823 s against 671 s cold on a 2-core VM, 2026-12-02)
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DSGAI_SANITIZE=ON -DSGAI_WERROR=ON \
    -DSGAI_TORCH=OFF $unity >/dev/null
  cmake --build build-asan -j "$jobs" --target unit_tests sim_tests whatif_tests whatif_sim_tests aiops_tests aiops_sim_tests sweep_tests \
    fuzz_corpus_tests -- --no-print-directory
  # SimGrid keeps global state until exit: leak reports there are not ours. The passing tests'
  # lines go to a log; the summary line is printed, and on failure every failing test's output.
  # Left to the whole suite: four tests that walk the same real traces again for their figures
  # (WhatIfTraces.EveryOptimizationRunsOnARealTrace runs each optimization on them here), 445 of
  # this phase's 1,700 CPU seconds on a 2-core VM.
  local log=build-asan/sanitizer-ctest.log
  local again='^(WhatIfTraces\.(EveryBaselineStepWalksWithin5PercentOfMeasured|AmpKeepsDaydreamsInvariantsOnTheResNetTraces'
  again+='|FusedOptimizerSavesAtMostTheWeightUpdatePhase)|WhatIfSim\.EveryBaselineTraceReplaysWithin5PercentOfTheWalk)$'
  if ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-asan -L "unit|simulation" -E "$again" -j "$jobs" --output-on-failure >"$log" 2>&1; then
    grep -E "tests passed|Total Test time" "$log"
  else
    grep -vE "^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed |^ +Start +[0-9]+: " "$log" | ctest_compact
    echo "sanitizer tests failed (whole log: $log)" >&2
    exit 1
  fi
}

started=$(date +%s)
case "$mode" in
  build)
    install_packages test
    build build ;;
  quickstart)
    install_packages
    build_binary
    say "running the default experiment: sgai run"
    build/tools/sgai run
    say "plot the schedule: build/tools/sgai batch plot results/quickstart   (PNG files in results/quickstart)" ;;
  test)
    install_packages test
    format_check
    extra=()
    [ "${CI:-}" = "true" ] && extra+=(-DSGAI_WERROR=ON)
    build build "${extra[@]}"
    sanitizer_tests
    say "the whole test suite"
    ctest --test-dir build -j "$jobs" --output-on-failure | ctest_compact
    say "the install as a user gets it (tests/install/check.sh: install, build tree moved away, examples)"
    tests/install/check.sh build
    phase_done ;;
  fuzz-packages)
    install_packages fuzz ;;
  *)
    echo "usage: tools/setup.sh [quickstart|test|build|fuzz-packages]" >&2
    exit 2 ;;
esac
if [ "$mode" = test ]; then
  elapsed=$(($(date +%s) - started))
  printf '\n== tools/setup.sh test took %d min %02d s\n' $((elapsed / 60)) $((elapsed % 60))
fi
