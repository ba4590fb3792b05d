#!/usr/bin/env bash
# Regenerates the workloads shipped in workloads/ from the logs in ../shared/data.
# Usage: workloads/make-workloads.sh [OUTDIR]   (default: workloads/; $SGAI: the sgai binary)
set -euo pipefail
cd "$(dirname "$0")/.."
SGAI=${SGAI:-build/tools/sgai}
out=${1:-workloads}
data=../shared/data
# KTH's IBM SP2 (100 processors), first 500 jobs after cleaning; memory bandwidth per core
# uniform in 4-24 GB/s (HDeepRM's default), seed 1.
"$SGAI" workload swf2json "$data/swf/KTH-SP2-1996-2.1-cln.swf" --first 500 --seed 1 --out "$out/kth-sp2-first500.json"
# One training iteration of a 4-layer GPT-style model (hidden 2048, sequence 1024, batch 16) with
# 8-way data parallelism and 2 microbatches: 8 Chakra ranks for the replay quick-start on one
# HGX-H100 node (gradients all-reduced in 25 MiB buckets), with their communicator groups.
rm -rf "$out/chakra/gpt-dp8"
"$SGAI" chakra generate training --layers 4 --hidden 2048 --seq 1024 --batch 16 --dp 8 --microbatches 2 \
  --out "$out/chakra/gpt-dp8" --prefix gpt >/dev/null
