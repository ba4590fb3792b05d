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
# The first 500 jobs of SDSC's Paragon (1996, 400 processors) and NASA Ames' iPSC/860 (1993, 128),
# the same way: with KTH's, the three workloads of the shipped campaign (deploy/campaigns/hdeeprm-swf.json).
"$SGAI" workload swf2json "$data/swf/SDSC-Par-1996-3.1-cln.swf" --first 500 --seed 1 --out "$out/sdsc-par-first500.json"
"$SGAI" workload swf2json "$data/swf/NASA-iPSC-1993-3.1-cln.swf.gz" --first 500 --seed 1 --out "$out/nasa-ipsc-first500.json"
# One training iteration of a 4-layer GPT-style model (hidden 2048, sequence 1024, batch 16) with
# 8-way data parallelism and 2 microbatches: 8 Chakra ranks for the replay quick-start on one
# HGX-H100 node (gradients all-reduced in 25 MiB buckets), with their communicator groups.
rm -rf "$out/chakra/gpt-dp8"
"$SGAI" chakra generate training --layers 4 --hidden 2048 --seq 1024 --batch 16 --dp 8 --microbatches 2 \
  --out "$out/chakra/gpt-dp8" --prefix gpt >/dev/null
# Training jobs of the public GPU-cluster traces (docs/workloads.md): Tiresias' 60-job trace, and the
# 360 whole-GPU pods of Alibaba's busiest day (148) of its 2023 pod list, each training a Gavel job
# type drawn by a seeded hash of its name (seed 1), timed by Gavel's V100 throughputs.
mkdir -p "$out/gpu"
"$SGAI" workload tiresias "$data/ml-clusters/tiresias/simulator/60_job.csv" --out "$out/gpu/tiresias-60.json" >/dev/null
"$SGAI" workload alibaba "$data/ml-clusters/alibaba-clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv" \
  --throughputs "$data/ml-clusters/gavel/scheduler/simulation_throughputs.json" --day 148 --seed 1 \
  --out "$out/gpu/alibaba-day148.json" >/dev/null
