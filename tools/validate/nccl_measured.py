#!/usr/bin/python3
"""sgai collective bench against measured NCCL figures (docs/validation.md).

Measured data: ../shared/data/nccl/ml-engineering/network/README.md (stas00/ml-engineering, CC-BY-SA
4.0), read from its tables as they are:
  - all-reduce busbw on 1 and 4 P6-B200 nodes (8 x B200, NVLink 5, 8 x 400 Gb/s EFA v4; NCCL 2.27.7),
    32 KiB to 16 GiB ("Inter-node speed depends on intra-node speed");
  - 4 to 8 GPUs of an 8 x H200 and an 8 x B200 node at 8 GiB, NVLS on and off;
  - 8 x H200 at 16 GiB: all-reduce (NVLS on, off), all-gather, reduce-scatter;
and the HGX-H100 node's peak all-reduce bus bandwidth that ASTRA-sim's hgx_h100_8gpu.yml records
(370.67 GB/s, taken at 8 GiB).
The platforms are sgai's (platforms/hgx-h100.json, hgx-h200.json, p6-b200.json,
p6-b200-4node.json), built from datasheet figures (docs/platforms.md), nothing fitted to these
tables. Time error of a row = busbw_measured / busbw_sgai - 1 (same payload, same bus factor); a
table's figure is the geometric mean of |time ratio| - 1 over its payloads of at least 1 MiB (and
over the smaller ones, reported apart).
Usage: tools/validate/nccl_measured.py [--sgai build/tools/sgai]
"""
import argparse
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "..", "shared", "data", "nccl", "ml-engineering", "network", "README.md")
UNITS = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def size_bytes(text):
    m = re.fullmatch(r"(\d+)(KiB|MiB|GiB)", text.strip())
    return int(m.group(1)) * UNITS[m.group(2)]


def gbps(text):
    return float(text.strip().replace("GBps", ""))


def tables(text):
    """Markdown tables in order: lists of rows (lists of cells), header first."""
    out, cur = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                cur.append(cells)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def find(tabs, header_start):
    for t in tabs:
        if t and t[0][0].startswith(header_start[0]) and all(h in t[0] for h in header_start):
            return t
    sys.exit(f"{README}: no table with the header {header_start}")


PICKED = {}  # (platform, gpus, bytes) -> the algorithm/protocol sgai ran (the bench line's last column)
MODEL = {}  # (platform, gpus, bytes) -> NCCL's model of it (--breakdown): model, latency, bandwidth us, pipeline


def bench(sgai, platform, gpus, sizes, op="all_reduce", extra=()):
    """busbw per size (bytes -> GB/s) from sgai collective bench, with NCCL's model of each row."""
    out = {}
    for s in sizes:
        p = subprocess.run([sgai, "collective", "bench", "--platform", os.path.join(ROOT, "platforms", platform),
                            "--gpus", str(gpus), "--op", op, "--sizes", str(s), "--breakdown", *extra],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"sgai collective bench failed: {p.stderr.strip()}")
        for line in p.stdout.splitlines():
            f = line.split()
            if f and f[0].isdigit():
                out[int(f[0])] = float(f[7])
                if not extra:
                    # algorithm (one or two words: "ring x8/LL128", "nvls sharp/Simple"), then model, latency,
                    # bandwidth, channels, pipeline
                    rest = f[9:]
                    n = 2 if len(rest) > 1 and "/" not in rest[0] else 1
                    PICKED[(platform, gpus, int(f[0]))] = " ".join(rest[:n])
                    if len(rest) >= n + 4:
                        MODEL[(platform, gpus, int(f[0]))] = " ".join(rest[n:])
    return out


def geo(errors):
    return math.exp(sum(abs(math.log(1 + e)) for e in errors) / len(errors)) - 1 if errors else float("nan")


def show(title, rows, model=None):
    """rows: (label, bytes, measured busbw, sgai busbw); model: bytes -> NCCL's model of sgai's row
    (its time, latency and bandwidth terms in us, the proxy pipeline's rate per channel in GB/s)."""
    print(f"== {title}")
    head = f"  {'':24s} {'bytes':>12s} {'measured':>9s} {'sgai':>9s} {'time error':>10s}"
    if model:
        head += "   measured (us)   NCCL's model (us) = latency + bandwidth   channels, pipeline (GB/s)"
    print(head)
    big, small = [], []
    for label, b, meas, ours in rows:
        e = meas / ours - 1
        (big if b >= 2**20 else small).append(e)
        line = f"  {label:24s} {b:12d} {meas:9.2f} {ours:9.2f} {100 * e:+9.1f}%"
        if model and b in model:
            f = model[b].split()
            t_meas = b * 2 * 31 / 32 / meas / 1e3  # all-reduce bus factor 2(n-1)/n over 32 ranks
            line += f"   {t_meas:13.1f}   {f[0]:>9s} = {f[1]:>7s} + {f[2]:>9s}   {' '.join(f[3:])}"
        print(line)
    line = f"  geometric mean of |time error|: {100 * geo(big):.1f}% over payloads >= 1 MiB ({len(big)})"
    if small:
        line += f", {100 * geo(small):.1f}% below ({len(small)})"
    print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sgai", default=os.path.join(ROOT, "build", "tools", "sgai"))
    a = ap.parse_args()
    if not os.path.exists(README):
        sys.exit(f"no {README}: the comparison needs the shared data")
    tabs = tables(open(README, encoding="utf-8").read())

    sweep = find(tabs, ["payload", "1 node", "4 nodes"])
    rows = [(r[0], size_bytes(r[0]), gbps(r[1]), gbps(r[2])) for r in sweep[1:]]
    sizes = [b for _, b, _, _ in rows]
    one = bench(a.sgai, "p6-b200.json", 8, sizes)
    show("1 x P6-B200 (8 x B200), all-reduce, NCCL's choice",
         [(f"{l} {PICKED[('p6-b200.json', 8, b)]}", b, m1, one[b]) for l, b, m1, _ in rows])
    # NCCL's model across nodes: rings over the node's 8 rails, its tree (chains in the nodes) and
    # NVLS-tree (NVLS in the nodes), every GPU's path to the network working
    four = bench(a.sgai, "p6-b200-4node.json", 32, sizes)
    # (the transport is EFA as aws-ofi-nccl reports it on P6-B200: 35 us per network step, 8 MiB
    # buffers; platforms/catalogues/fabrics.json)
    model4 = {b: MODEL[("p6-b200-4node.json", 32, b)] for _, b, _, _ in rows if ("p6-b200-4node.json", 32, b) in MODEL}
    show("4 x P6-B200 (32 x B200), all-reduce >= 16 MiB, NCCL's choice",
         [(f"{l} {PICKED[('p6-b200-4node.json', 32, b)]}", b, m4, four[b]) for l, b, _, m4 in rows
          if b >= 16 * 2**20], model4)
    show("4 x P6-B200 (32 x B200), all-reduce < 16 MiB, NCCL's choice",
         [(f"{l} {PICKED[('p6-b200-4node.json', 32, b)]}", b, m4, four[b]) for l, b, _, m4 in rows
          if b < 16 * 2**20], model4)
    hier = bench(a.sgai, "p6-b200-4node.json", 32, sizes, extra=("--algo", "ring", "--dims", "8,4", "--chunks", "4"))
    show("4 x P6-B200 (32 x B200), all-reduce, ASTRA-sim's composition (ring in nodes, then across; 4 chunks)",
         [(l, b, m4, hier[b]) for l, b, _, m4 in rows if b >= 16 * 2**20])

    for gpu, platform, header in (("H200", "hgx-h200.json", ["GPUs", "algo NCCL picks"]),
                                  ("B200", "p6-b200.json", ["GPUs", "algo NCCL picks"])):
        t = [x for x in tabs if x and x[0][:2] == header]
        t = t[0] if gpu == "H200" else t[1]
        on, off = [], []
        for r in t[1:]:
            n = int(r[0])
            # NCCL_NVLS_ENABLE=0 "forces the ring" (the source); otherwise NCCL's choice, sgai's too
            ring = bench(a.sgai, platform, n, [8 * 2**30], extra=("--algo", "ring"))[8 * 2**30]
            auto = bench(a.sgai, platform, n, [8 * 2**30])[8 * 2**30]
            off.append((f"{n} GPUs, NVLS off", 8 * 2**30, gbps(r[3]), ring))
            on.append((f"{n} GPUs, {r[1]}", 8 * 2**30, gbps(r[2]), auto))
        show(f"8 x {gpu} node, 8 GiB all-reduce, NVLS off (ring)", off)
        show(f"8 x {gpu} node, 8 GiB all-reduce as NCCL picks (sgai: its own pick, NVLS above 4 GPUs)", on)

    coll = find(tabs, ["collective", "algo", "busbw"])
    rows = []
    for r in coll[1:]:
        op = "all_gather" if r[0].startswith("all-gather") else "reduce_scatter" if r[0].startswith("reduce") \
            else "all_reduce"
        extra = ("--algo", "ring") if "ENABLE=0" in r[0] else ()
        ours = bench(a.sgai, "hgx-h200.json", 8, [16 * 2**30], op=op, extra=extra)[16 * 2**30]
        rows.append((f"{r[0][:22]}", 16 * 2**30, gbps(r[2]), ours))
    show("8 x H200, 16 GiB collectives (NCCL's choice; NVLS off: ring)", rows)

    # ASTRA-sim's file records a ring's peak (its model is a ring)
    ours = bench(a.sgai, "hgx-h100.json", 8, [8 * 2**30], extra=("--algo", "ring"))[8 * 2**30]
    show("8 x H100 (HGX), peak ring all-reduce bus bandwidth (hgx_h100_8gpu.yml), 8 GiB",
         [("8 GPUs", 8 * 2**30, 370.67, ours)])


if __name__ == "__main__":
    main()
