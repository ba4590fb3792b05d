# Sourced by the benchmarks that pair `sgai replay` with ASTRA-sim on the same inputs
# (replay_vs_astra.sh, replay_contended.sh).

# timed FILE CMD...: runs CMD under GNU time, its output to FILE.log; sets cpu (user + system
# seconds) and mib (peak resident MiB).
timed() {
  local f=$1 u s kb
  shift
  /usr/bin/time -f "%U %S %M" -o "$f.time" "$@" >"$f.log" 2>&1
  read -r u s kb <"$f.time"
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
  mib=$(awk -v kb="$kb" 'BEGIN { printf "%.1f", kb / 1024 }')
}

# astra_timed DIR BINARY WORKLOAD SYSTEM NETWORK MEMORY: ASTRA-sim run from an empty DIR (it writes
# log/ into the current folder), timed as above; sets sim to its last rank's "finished, N cycles".
astra_timed() {
  local dir=$1 bin=$2
  mkdir -p "$dir" && rm -rf "${dir:?}"/*
  pushd "$dir" >/dev/null
  timed "$dir/run" "$bin" --workload-configuration="$3" --system-configuration="$4" --network-configuration="$5" \
    --remote-memory-configuration="$6"
  popd >/dev/null
  sim=$(grep -o 'finished, [0-9]* cycles' "$dir/run.log" | awk '{print $2}' | sort -n | tail -1)
}
