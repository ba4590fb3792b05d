#!/usr/bin/env bash
# Sets sgai up on Debian 12 (installs the missing packages of tools/setup/debian-packages.txt,
# configures and builds in build/), then:
#   tools/setup.sh quickstart   runs the default experiment (sgai run) and says where the results are
#   tools/setup.sh test         runs every check: formatting, sanitizer build of the unit and
#                               simulation tests, then the whole test suite (ends with ctest's summary);
#                               with CI=true, a brief libFuzzer run of each fuzz target after it
#   tools/setup.sh build        only sets up and builds
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mode=${1:-quickstart}
jobs=$(nproc 2>/dev/null || echo 2)

say() { printf '\n== %s\n' "$*"; }

install_packages() {
  local missing=()
  while read -r pkg; do
    [[ -z "$pkg" || "$pkg" == \#* ]] && continue
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

build() {
  local dir=$1
  shift
  say "configuring and building $dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" -- --no-print-directory
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
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSGAI_SANITIZE=ON -DSGAI_WERROR=ON >/dev/null
  cmake --build build-asan -j "$jobs" --target unit_tests sim_tests -- --no-print-directory
  # SimGrid keeps global state until exit: leak reports there are not ours.
  ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-asan -L "unit|simulation" -j "$jobs" --output-on-failure | tail -n 4
}

install_packages
case "$mode" in
  build)
    build build ;;
  quickstart)
    build build
    say "running the default experiment: sgai run"
    build/tools/sgai run ;;
  test)
    format_check
    extra=()
    [ "${CI:-}" = "true" ] && extra+=(-DSGAI_WERROR=ON)
    build build "${extra[@]}"
    sanitizer_tests
    say "the whole test suite"
    ctest --test-dir build -j "$jobs" --output-on-failure
    if [ "${CI:-}" = "true" ]; then
      say "fuzzing briefly (longer runs: tools/fuzz.sh TARGET SECONDS)"
      tools/fuzz.sh platform_json 30
      tools/fuzz.sh chakra_et 60
    fi ;;
  *)
    echo "usage: tools/setup.sh [quickstart|test|build]" >&2
    exit 2 ;;
esac
