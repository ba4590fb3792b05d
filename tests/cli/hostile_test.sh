#!/usr/bin/env bash
# Hostile inputs: a few hundred bad files and command lines for every sgai command (mutations of the
# fixtures and of small slices of ../shared/data, made by hostile/gen.py), each run with a time
# limit in its own scratch folder by hostile/run.py, which checks sgai's promises: exit 0, 1 or 2
# (0 only where the input is acceptable), one 'sgai: error:' line naming the file or option, no
# abort or backtrace, no hang, nothing written outside the output folder, nothing left behind.
# Failures owned by work still under way are listed, with their reason, in hostile/known_failures.txt.
# Usage: hostile_test.sh GROUP   (platform, workload, batch, chakra, replay or run, or hostile_GROUP; all)
# Environment: SGAI (the binary), HOSTILE_TIMEOUT (seconds per case, default 30), HOSTILE_ONLY (glob
# of case ids), HOSTILE_KEEP=1 keeps the corpus and the scratch folders of failed cases.
set -uo pipefail
SGAI=$(realpath "${SGAI:?set SGAI to the sgai binary}")
export SGAI
here=$(dirname "$0")/hostile
group=${1:?usage: hostile_test.sh GROUP}
group=${group#hostile_} # ctest's case names: hostile_platform, ...
[ "$group" = all ] && group="platform workload batch chakra replay run"
corpus=$(mktemp -d "${TMPDIR:-/tmp}/hostile-corpus.XXXXXX")
if [ "${HOSTILE_KEEP:-0}" = 1 ]; then
  echo "corpus kept in $corpus"
else
  trap 'chmod -R u+rwX "$corpus" 2>/dev/null; rm -rf "$corpus"' EXIT
fi
# shellcheck disable=SC2086
python3 "$here/gen.py" "$corpus" $group || { echo "FAIL: the generator failed"; exit 1; }
python3 "$here/run.py" "$corpus" "$here/known_failures.txt" --timeout "${HOSTILE_TIMEOUT:-30}" \
  --only "${HOSTILE_ONLY:-*}" ${HOSTILE_VERBOSE:+--verbose}
