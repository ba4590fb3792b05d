#!/usr/bin/env bash
# The AI-ops simulator's speed and memory (issue 25): one simulated year at the default model's mean
# interarrival of 44 s (about 717,000 pipelines, PipeSim's largest run: 517 s and 850 MB) on
# platforms/aiops-health.json (deploy/aiops/bench-year.json), in each transfer mode, with and without
# the SQLite database: pipelines, tasks, SimGrid activities, wall s, peak RSS, us per pipeline and
# database size, one line each. Floors with SQLite: analytic <= 30 s, contended <= 90 s, every line
# <= 300 MB.
#   --years N   also N simulated years in contended mode with the database (peak memory against the
#               one-year line, database size) and the five dashboard queries on it (median of 3)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="${SGAI_BUILD_DIR:-$here/build}"
sgai="$build/tools/sgai"
years=0
if [[ "${1:-}" == "--years" ]]; then years="$2"; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run MODE DB DAYS: prints "pipelines tasks activities wall_s peak_mb db_mb"
run() {
  local mode=$1 db=$2 days=$3 out="$work/run-$1-$2-$3" extra=()
  [[ $db == no ]] && extra=(--no-database)
  /usr/bin/time -f "%e %M" -o "$work/time" "$sgai" aiops run "$here/deploy/aiops/bench-year.json" \
    --out "$out" --transfers "$mode" --duration "${days}d" --quiet "${extra[@]}"
  local wall rss
  read -r wall rss < "$work/time"
  local pipelines tasks activities
  pipelines=$(awk -F, '$1=="pipelines"{print $2}' "$out/summary.csv")
  tasks=$(awk -F, '$1=="tasks"{print $2}' "$out/summary.csv")
  activities=$(awk -F, '$1=="activities"{print $2}' "$out/summary.csv")
  local dbmb=0
  [[ -f "$out/aiops.sqlite" ]] && dbmb=$(( $(stat -c %s "$out/aiops.sqlite") / 1048576 ))
  echo "$pipelines $tasks $activities $wall $(( rss / 1024 )) $dbmb"
}

printf "%-10s %-8s %10s %10s %11s %7s %8s %10s %8s\n" mode sqlite pipelines tasks activities wall_s peak_MB us/pipeline db_MB
line() {
  local mode=$1 db=$2 days=$3
  read -r p t a w m d < <(run "$mode" "$db" "$days")
  printf "%-10s %-8s %10d %10d %11d %7.1f %8d %10.1f %8d\n" "$mode" "$db" "$p" "$t" "$a" "$w" "$m" \
    "$(awk -v w="$w" -v p="$p" 'BEGIN{print w * 1e6 / p}')" "$d"
  last_mb=$m
}
for mode in analytic contended; do
  for db in yes no; do
    line "$mode" "$db" 365
    [[ $mode == contended && $db == yes ]] && year_mb=$last_mb
  done
done

if (( years > 0 )); then
  days=$(( 365 * years ))
  echo
  echo "$years simulated years, contended, with SQLite:"
  line contended yes "$days"
  db="$work/run-contended-yes-$days/aiops.sqlite"
  awk -v a="$last_mb" -v b="$year_mb" 'BEGIN{printf "peak memory %d MB against %d MB for one year: %+.1f%%\n", a, b, (a - b) * 100 / b}'
  echo "database $(( $(stat -c %s "$db") / 1048576 )) MB"
  weeks=$(( days / 7 ))
  for q in "utilisation --week $(( weeks / 2 ))" arrivals waits "store --day $(( days / 2 ))" "pipeline --pipeline 1000000"; do
    times=()
    for i in 1 2 3; do
      s=$(date +%s.%N)
      # shellcheck disable=SC2086
      "$sgai" aiops query "$db" $q > "$work/query.csv"
      e=$(date +%s.%N)
      times+=("$(awk -v s="$s" -v e="$e" 'BEGIN{print e - s}')")
    done
    median=$(printf "%s\n" "${times[@]}" | sort -g | sed -n 2p)
    printf "query %-32s median of 3: %.3f s (%d lines)\n" "$q" "$median" "$(wc -l < "$work/query.csv")"
  done
fi
