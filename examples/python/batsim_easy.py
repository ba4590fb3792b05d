#!/usr/bin/python3
"""A scheduler process speaking Batsim's protocol: first come, first served with EASY backfilling.

It binds a ZeroMQ REP socket, as batsched does; sgai (or Batsim) connects to it and sends what
happens, this process answers with its decisions:

    python3 examples/python/batsim_easy.py tcp://*:28000 &
    sgai batch run --platform P --workload W --socket-endpoint tcp://localhost:28000 --out OUT

EASY: jobs start in arrival order while they fit; the first one that does not gets a reservation
(the earliest time enough resources are free, counting each running job's start + walltime, on the
lowest-numbered of the resources free then), and the jobs behind it start now if they fit without
delaying it: they end before the reservation begins, or leave its resources alone. Resources are
taken lowest-numbered first. This is batsched's easy_bf, and sgai's internal --backfill easy.
Needs only Python and python3-zmq (Debian).
"""
import json
import math
import sys

import zmq


def interval_set(ids):
    """[0, 1, 2, 5] -> "0-2 5" (Batsim's interval sets)."""
    ids, parts, i = sorted(ids), [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return " ".join(parts)


def parse_interval_set(text):
    ids = []
    for part in text.split():
        a, _, b = part.partition("-")
        ids.extend(range(int(a), int(b or a) + 1))
    return ids


class Easy:
    def __init__(self):
        self.free = set()     # resources free now
        self.queue = []       # waiting jobs, arrival order: (id, res, walltime)
        self.running = {}     # id -> (expected end, resources)

    def begin(self, data):
        self.free = {r["id"] for r in data["compute_resources"]}
        self.profiles = {w + "!" + name: p for w, ps in data["profiles"].items() for name, p in ps.items()}

    def submitted(self, data):
        """The requested time: the job's walltime, else its profile's req_time (HDeepRM's, which
        sgai's SWF conversion writes), else unknown."""
        job = data["job"]
        walltime = job.get("walltime", -1)
        if walltime <= 0:
            walltime = self.profiles.get(data["job_id"].split("!")[0] + "!" + job["profile"], {}).get("req_time", -1)
        self.queue.append((data["job_id"], job["res"], walltime if walltime > 0 else math.inf))

    def completed(self, data):
        _, resources = self.running.pop(data["job_id"])
        self.free.update(resources)

    def start(self, job, resources, now, decisions):
        job_id, _, walltime = job
        self.free.difference_update(resources)
        self.running[job_id] = (now + walltime, resources)
        decisions.append({"timestamp": now, "type": "EXECUTE_JOB",
                          "data": {"job_id": job_id, "alloc": interval_set(resources)}})

    def reservation(self, width, now):
        """Start and resources of the first fit of `width` resources after now, or None."""
        ends = sorted((end, rid) for rid, (end, _) in self.running.items() if now < end < math.inf)
        free_then, start = len(self.free), None
        for end, rid in ends:
            if free_then >= width:
                break
            free_then += len(self.running[rid][1])
            start = end
        if free_then < width or start is None:
            return None
        then = set(self.free)
        for end, rid in ends:
            if end <= start:
                then.update(self.running[rid][1])
        return start, set(sorted(then)[:width])

    def decide(self, now):
        decisions, started = [], []
        reserved, held, held_from = False, set(), math.inf
        for job in self.queue:
            if not self.free:
                break
            _, width, walltime = job
            allowed = self.free
            if reserved:
                clash = bool(held & self.free) and held_from < now + walltime
                if clash:
                    allowed = self.free - held
            if len(allowed) >= width:
                self.start(job, sorted(allowed)[:width], now, decisions)
                started.append(job)
            elif not reserved:
                fit = self.reservation(width, now)
                if fit:
                    reserved, (held_from, held) = True, fit
        self.queue = [j for j in self.queue if j not in started]
        return decisions


def serve(endpoint):
    socket = zmq.Context().socket(zmq.REP)
    socket.bind(endpoint)
    easy = Easy()
    while True:
        message = json.loads(socket.recv())
        now, ended = message["now"], False
        for event in message["events"]:
            kind, data = event["type"], event["data"]
            if kind == "SIMULATION_BEGINS":
                easy.begin(data)
            elif kind == "JOB_SUBMITTED":
                easy.submitted(data)
            elif kind == "JOB_COMPLETED":
                easy.completed(data)
            elif kind == "SIMULATION_ENDS":
                ended = True
        decisions = [] if ended else easy.decide(now)
        socket.send_string(json.dumps({"now": now, "events": decisions}))
        if ended:
            return


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: batsim_easy.py ENDPOINT (e.g. tcp://*:28000)")
    serve(sys.argv[1])
