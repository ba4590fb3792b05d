#!/usr/bin/env python3
"""Derives the fuzz seeds that come from ../shared/data (small excerpts of real inputs) and from
sgai itself (Chakra JSON, synthesis model, replay log). Run from the repository root with an sgai
binary: tests/fuzz/make_seeds.py [SGAI]  (default build-fuzz/tools/sgai). The hand-made seeds and
the copies of tests/fixtures were written once and are kept as they are; this script rewrites only
the files it names below, deterministically."""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data")
FUZZ = os.path.join(ROOT, "tests", "fuzz")


def seeds(target, name):
    d = os.path.join(FUZZ, target + "_seeds")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, name)


def write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)


def head_lines(path, n, opener=open):
    with opener(path, "rt", errors="replace") as f:
        return "".join(line for _, line in zip(range(n), f))


def swf():
    for name, lines in (("KTH-SP2-1996-2.1-cln.swf", 60), ("SDSC-Par-1996-3.1-cln.swf", 100), ("hpc2n.swf", 40),
                        ("wagap-2013.swf", 12)):
        text = head_lines(os.path.join(DATA, "swf", name), lines)
        write(seeds("swf", name.replace(".swf", ".head.swf")), text)
    text = head_lines(os.path.join(DATA, "swf", "NASA-iPSC-1993-3.1-cln.swf.gz"), 40, gzip.open)
    write(seeds("swf", "NASA-iPSC.head.swf.gz"), gzip.compress(text.encode(), mtime=0))


def batsim():
    src = os.path.join(DATA, "batsim", "workloads", "example_workload_hpc_seed1_jobs250.json")
    with open(src) as f:
        w = json.load(f)
    w["jobs"] = w["jobs"][:8]
    used = {j["profile"] for j in w["jobs"]}
    w["profiles"] = {k: v for k, v in w["profiles"].items() if k in used}
    write(seeds("batsim", "hpc_seed1.head.json"), json.dumps(w, indent=1) + "\n")
    for name in ("test_delays.json", "test_homo_ptasks.json", "test_walltime.json"):
        shutil.copy(os.path.join(DATA, "batsim", "workloads", name), seeds("batsim", name))


def platform_xml():
    for name in ("cluster512.xml", "cluster_locality_4x128.xml", "properties_example.xml"):
        shutil.copy(os.path.join(DATA, "platforms", "batsim", "platforms", name), seeds("platform_xml", name))
    # the legacy energy platform, cut to its first hosts (AS, watt_* properties, old options)
    src = os.path.join(DATA, "platforms", "batsim", "platforms", "energy_platform_homogeneous_no_net_128.xml")
    if os.path.exists(src):
        with open(src) as f:
            text = f.read()
        head = text[: text.find('<host id="host2"')]
        write(seeds("platform_xml", "energy_legacy.head.xml"), head + "</AS>\n</platform>\n")


def astra():
    ex = os.path.join(DATA, "astra-sim", "examples")
    inp = os.path.join(DATA, "astra-sim", "inputs")
    for src in (os.path.join(ex, "network", "analytical", "Ring_4npus.yml"),
                os.path.join(ex, "network", "analytical", "HGX-H100-validated.yml"),
                os.path.join(inp, "network", "tpu_v3_32_ring.yml"), os.path.join(inp, "network", "dgx_v100_8gpu.yml")):
        shutil.copy(src, seeds("astra_network", os.path.basename(src)))
    for src in (os.path.join(ex, "system", "native_collectives", "Ring_4chunks.json"),
                os.path.join(ex, "system", "native_collectives", "HGX-H100-validated.json"),
                os.path.join(inp, "system", "analytical", "tpu_v3_32_2dtorus.json"),
                os.path.join(ex, "system", "custom_collectives", "custom_collective.json")):
        shutil.copy(src, seeds("astra_system", os.path.basename(src)))


def pytorch():
    with gzip.open(os.path.join(DATA, "pytorch-et", "param", "linear_et.json.gz"), "rt") as f:
        et = json.load(f)
    keep = [n for n in et["nodes"] if n["rf_id"] < 30 or n["name"].startswith("[pytorch|profiler")]
    et["nodes"] = keep
    host = json.dumps(et, separators=(",", ":"))
    with gzip.open(os.path.join(DATA, "pytorch-et", "param", "linear_kineto.json.gz"), "rt") as f:
        k = json.load(f)
    cpu = [e for e in k["traceEvents"] if e.get("cat") in ("cpu_op", "user_annotation")
           and e.get("args", {}).get("Ev Idx", 10**9) < 30]
    if cpu:
        t0 = min(e["ts"] for e in cpu)
        t1 = max(e["ts"] + e.get("dur", 0) for e in cpu)
        gpu = [e for e in k["traceEvents"] if e.get("cat") in ("cuda_runtime", "kernel", "gpu_memset")
               and t0 <= e.get("ts", -1) <= t1][:40]
    else:
        gpu = []
    kineto = json.dumps({"schemaVersion": k.get("schemaVersion", 1), "traceEvents": cpu + gpu},
                        separators=(",", ":"))
    write(seeds("pytorch_et", "linear.head.json"), host)
    write(seeds("pytorch_et", "linear.head+kineto.json"), host + "\n=====KINETO=====\n" + kineto)
    src = os.path.join(DATA, "pytorch-et", "mlcommons-1.0.2-chakra.0.0.4.json")
    with open(src) as f:
        et = json.load(f)
    et["nodes"] = [n for n in et["nodes"] if n["id"] < 40]
    write(seeds("pytorch_et", "mlcommons.head.json"), json.dumps(et, separators=(",", ":")))


def from_sgai(sgai):
    tmp = tempfile.mkdtemp()
    try:
        for et in ("all_reduce.0.et", "dag.0.et", "kinds.0.et"):
            out = seeds("chakra_json", et.replace(".et", ".json"))
            subprocess.run([sgai, "chakra", "jsonize", os.path.join(FUZZ, "chakra_seeds", et), "--out", out],
                           check=True, stdout=subprocess.DEVNULL)
        for inp, name in (("tests/fuzz/chakra_seeds/all_reduce", "all_reduce"),
                          ("../shared/data/chakra/mlcommons-chakra.0.et", "mlcommons")):
            subprocess.run([sgai, "chakra", "synth", inp, "--ranks", "4", "--out", os.path.join(tmp, name)], check=True,
                           stdout=subprocess.DEVNULL, cwd=ROOT)
            shutil.copy(os.path.join(tmp, name, "synth.model.json"), seeds("synth_model", name + ".model.json"))
        for et, name in (("dag.0.et", "dag.csv"), ("all_reduce", "all_reduce.csv")):
            subprocess.run([sgai, "chakra", "stats", os.path.join(FUZZ, "chakra_seeds", et), "--replay-log",
                            seeds("replay_log", name)], check=True, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    swf()
    batsim()
    platform_xml()
    astra()
    pytorch()
    from_sgai(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build-fuzz", "tools", "sgai"))
