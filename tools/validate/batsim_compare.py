#!/usr/bin/python3
"""One line comparing an sgai batch run with a Batsim run of the same workload: jobs with Batsim's
starting time (1e-4 s), energy against consumed_joules, makespan, and (an external scheduler's
run) the requests sgai sent. Used by tools/validate/batsim_peer.sh and batsim_protocol.sh.
Usage: batsim_compare.py NAME SGAI_OUT BATSIM_RUN [--requests]"""
import csv
import json
import sys

name, mine, theirs = sys.argv[1:4]
a = {r["job_id"]: r for r in csv.DictReader(open(mine + "/jobs.csv"))}
b = {r["job_id"]: r for r in csv.DictReader(open(theirs + "/out_jobs.csv"))}
same = sum(abs(float(a[k]["starting_time"]) - float(b[k]["starting_time"])) < 1e-4 for k in b)
s = json.load(open(mine + "/schedule.json"))
t = next(csv.DictReader(open(theirs + "/out_schedule.csv")))
e, eb = s["energy_j"], float(t["consumed_joules"])
m, mb = s["makespan_s"], float(t["makespan"])
line = (f"{name:45s} {same:5d}/{len(b)} {e:13.0f} {eb:13.0f} {100 * (e - eb) / eb:+7.2f}% "
        f"{m:11.2f} {mb:11.2f} {100 * (m - mb) / mb:+7.2f}%")
if "--requests" in sys.argv[4:]:
    line += f" {s['scheduler_requests']:9.0f}"
print(line)
