#!/usr/bin/env python3
"""Builds the hostile-input corpus of every sgai command: bad files (mutations of the fixtures and
of small slices of ../shared/data) and bad command lines.

Usage: gen.py OUTDIR GROUP...   (run from the repository root; $SGAI is the binary, used to make a
few valid base files: a batch run's folder, a jsonized ET, a replay log)

Writes OUTDIR/inputs/ (the files the cases read; the runner checks they stay unchanged) and
OUTDIR/cases.json: a list of cases, each
  {"id": "GROUP.NAME", "argv": [...], "expect": "fail" | "ok" | "any", "rc": optional exact status,
   "names": [strings the error line must hold], "setup": [[op, path, ...], ...]}
In argv and setup, {in} is the inputs folder, {s} the case's scratch folder (its working directory)
and {o} the scratch output folder {s}/out, the only place a case may write to.
Setup ops: ["file", REL, TEXT], ["copy", SRC, REL], ["dir", REL], ["chmod", REL, MODE], ["rm", REL],
["mknod", REL] (a character device like /dev/null; a plain empty file when not root)
(REL is relative to {s}). Everything is deterministic: the same corpus on every run.
"""
import gzip
import json
import os
import random
import shutil
import subprocess
import sys

REPO = os.getcwd()
FIX = os.path.join(REPO, "tests/fixtures")
SHARED = os.path.realpath(os.path.join(REPO, "../shared/data"))
HAVE_SHARED = os.path.isdir(SHARED)
SGAI = os.environ.get("SGAI", "")

OUT = os.path.abspath(sys.argv[1])
GROUPS = sys.argv[2:] or ["platform", "workload", "batch", "chakra", "replay", "run"]
IN = os.path.join(OUT, "inputs")
rng = random.Random(20240607)
cases = []
ids = set()


def case(group, name, argv, expect="fail", rc=None, names=None, setup=None):
    cid = f"{group}.{name}"
    assert cid not in ids, cid
    ids.add(cid)
    c = {"id": cid, "argv": argv, "expect": expect}
    if argv[:2] == ["batch", "plot"] and setup and ["copy", "{in}/b/run", "run"] in setup:
        c["out"] = "run"  # batch plot writes into the folder it reads
    if rc is not None:
        c["rc"] = rc
    if names:
        c["names"] = names
    if setup:
        c["setup"] = setup
    cases.append(c)


def W(rel, data):
    """Writes an input file and returns its path as the cases see it ({in}/REL)."""
    p = os.path.join(IN, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    return "{in}/" + rel


def read(path, mode="rb"):
    with open(path, mode) as f:
        return f.read()


# ---- generic mutations -----------------------------------------------------------------------

GARBAGE = bytes(rng.randrange(256) for _ in range(512))
GZ_GARBAGE = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(rng.randrange(256) for _ in range(200))


def byte_mutations(data):
    """(name, bytes) pairs: damaged copies of a valid text file."""
    lines = data.split(b"\n")
    return [
        ("empty", b""),
        ("blank", b"   \n\n\t\n"),
        ("trunc_half", data[: len(data) // 2]),
        ("trunc_1", data[:1]),
        ("trunc_last", data[:-2] if len(data) > 2 else b""),
        ("garbage", GARBAGE),
        ("gzip_garbage", GZ_GARBAGE),
        ("gzipped", gzip.compress(data, mtime=0)),
        ("nul_inside", data[: len(data) // 3] + b"\x00\x00" + data[len(data) // 3:]),
        ("utf16", b"\xff\xfe" + data.decode("latin-1").encode("utf-16-le")),
        ("bad_utf8", data[: len(data) // 2] + b"\xc3\x28\xff" + data[len(data) // 2:]),
        ("long_line", data + b"\n" + b"A" * 300000),
        ("crlf", data.replace(b"\n", b"\r\n")),
        ("doubled", data + data),
        ("lines_reversed", b"\n".join(reversed(lines))),
    ]


def path_variants(group, prefix, make_argv, expect="fail"):
    """Cases where the input path itself is hostile; make_argv(path) -> argv."""
    for name, p in [("missing", "{s}/no/such/file.json"), ("folder", "{in}"), ("devnull", "/dev/null"),
                    ("proc", "/proc/self/status"), ("empty_path", ""), ("dotdot", "{in}/../nothing/../x"),
                    ("dir_slash", "{in}/"), ("unreadable", "{s}/locked.json")]:
        setup = [["file", "locked.json", "{}"], ["chmod", "locked.json", 0]] if name == "unreadable" else None
        case(group, f"{prefix}.path_{name}", make_argv(p), expect, setup=setup)


class Raw:
    """A JSON token written as is (NaN, 1e999, ...)."""

    def __init__(self, text):
        self.text = text


def dumps(obj):
    raws = {}

    def walk(o):
        if isinstance(o, Raw):
            key = f"@@RAW{len(raws)}@@"
            raws[key] = o.text
            return key
        if isinstance(o, dict):
            return {k: walk(v) for k, v in o.items()}
        if isinstance(o, list):
            return [walk(v) for v in o]
        return o

    text = json.dumps(walk(obj), indent=1, ensure_ascii=False)
    for k, v in raws.items():
        text = text.replace(f'"{k}"', v)
    return text


def get_parent(obj, ptr):
    parts = [p for p in ptr.split("/")[1:]]
    for p in parts[:-1]:
        obj = obj[int(p)] if isinstance(obj, list) else obj[p]
    last = parts[-1]
    return obj, (int(last) if isinstance(obj, list) else last)


def mutate(obj, ptr, value):
    o = json.loads(json.dumps(obj))
    parent, key = get_parent(o, ptr)
    if value is DELETE:
        del parent[key]
    else:
        parent[key] = value
    return o


DELETE = object()
BIG_STR = "x" * 100000
DEEP = Raw("[" * 100000 + "]" * 100000)
UNI = "\u00e9\u4e2d\U0001F600\u202e\u0000"

VALUES = {
    "delete": DELETE, "null": None, "str": "abc", "neg": -1, "zero": 0, "huge": 1e308, "inf": Raw("1e999"),
    "nan": Raw("NaN"), "negzero": Raw("-0.0"), "frac": 0.5, "i64": 9223372036854775807, "u64p1": Raw("18446744073709551616"),
    "obj": {}, "arr": [], "bool": True, "bigstr": BIG_STR, "uni": UNI, "deep": DEEP,
}


def json_mutations(obj, ptrs, values):
    for ptr in ptrs:
        for vname in values:
            yield ptr, vname, dumps(mutate(obj, ptr, VALUES[vname]))


def ptr_name(ptr):
    return ptr.strip("/").replace("/", "_") or "root"


def json_structural(obj):
    """(name, text) of whole-document damage of a JSON object."""
    text = dumps(obj)
    first_key = next(iter(obj))
    dup = text.replace("{", "{" + json.dumps(first_key) + ": " + json.dumps(obj[first_key]) + ",", 1)
    return [
        ("unknown_top_key", dumps({**obj, "zz_unknown": 1})),
        ("duplicate_top_key", dup),
        ("top_array", dumps([obj])),
        ("top_string", '"hello"'),
        ("top_number", "42"),
        ("top_null", "null"),
        ("trailing_garbage", text + "\n}garbage"),
        ("two_documents", text + "\n" + text),
        ("comment", "// comment\n" + text),
        ("single_quotes", text.replace('"', "'")),
        ("deep_nesting", "[" * 100000 + "]" * 100000),
        ("deep_object", '{"a":' * 50000 + "1" + "}" * 50000),
    ]


# ---- platform ----------------------------------------------------------------------------------

def gen_platform():
    g = "platform"
    tiny_types = read(f"{FIX}/platforms/tiny_types.json")
    W("p/tiny_types.json", tiny_types)
    flat = json.loads(read(f"{FIX}/platforms/tiny_flat.json"))
    flat_path = W("p/tiny_flat.json", dumps(flat))
    gen = lambda p, *a: ["platform", "generate", p, "--out", "{o}/g", *a]

    # valid ones are accepted
    case(g, "gen.valid", gen(flat_path), "ok")
    case(g, "inspect.valid", ["platform", "inspect", flat_path], "ok")

    # byte damage of a platform JSON
    for name, data in byte_mutations(read(f"{FIX}/platforms/tiny_flat.json")):
        if name in ("crlf", "lines_reversed", "gzipped"):
            continue
        p = W(f"p/bytes_{name}.json", data)
        case(g, f"gen.bytes_{name}", gen(p), names=[f"bytes_{name}.json"])
    for name, text in json_structural(flat):
        p = W(f"p/struct_{name}.json", text)
        case(g, f"gen.{name}", gen(p), names=[f"struct_{name}.json"])

    # field mutations of the sgai platform
    ptrs = ["/sgai_platform", "/name", "/catalogues", "/catalogues/0", "/granularity", "/clusters", "/clusters/0",
            "/clusters/0/id", "/clusters/0/nodes", "/clusters/0/nodes/0", "/clusters/0/nodes/0/type",
            "/clusters/0/nodes/0/number", "/clusters/0/local_links", "/clusters/0/local_links/type",
            "/clusters/0/local_links/latency", "/global_links", "/global_links/latency"]
    vals = ["delete", "null", "str", "neg", "huge", "nan", "obj", "uni"]
    accept = {("/name", "delete"), ("/granularity", "delete")}
    maybe = {("/name", "null"), ("/granularity", "null"), ("/clusters/0", "delete")}  # null: the default
    for ptr, v, text in json_mutations(flat, ptrs, vals):
        if ptr == "/name" and v in ("uni", "str", "neg", "huge", "nan"):
            continue  # the name escapes: hardening_test.sh's name_escapes
        n = f"{ptr_name(ptr)}.{v}"
        p = W(f"p/m_{n}.json", text)
        exp = "ok" if (ptr, v) in accept else ("any" if (ptr, v) in maybe or (v == "str" and ptr.endswith("/id")) else "fail")
        case(g, f"gen.{n}", gen(p), exp, names=[f"m_{n}.json"])
    for v in ["zero", "frac", "i64", "u64p1", "inf", "negzero"]:
        n = f"number.{v}"
        p = W(f"p/m_{n}.json", dumps(mutate(flat, "/clusters/0/nodes/0/number", VALUES[v])))
        case(g, f"gen.{n}", gen(p), names=[f"m_{n}.json"])
    for n, m in [("latency_neg", "-1us"), ("latency_unit", "5parsecs"), ("latency_inf", "1e999s"),
                 ("latency_nan", "nans"), ("latency_empty", ""), ("latency_huge", "1e300s"), ("latency_1e7", "1e7s")]:
        p = W(f"p/l_{n}.json", dumps(mutate(flat, "/clusters/0/local_links/latency", m)))
        case(g, f"gen.{n}", gen(p), names=[f"l_{n}.json"])
    for n, m in [("cat_abs", "/etc/passwd"), ("cat_dotdot", "../../../../etc/hostname"), ("cat_self", "m_cat_self.json"),
                 ("cat_dir", "."), ("cat_devnull", "/dev/null"), ("cat_missing", "nothing.json")]:
        p = W(f"p/m_{n}.json", dumps(mutate(flat, "/catalogues/0", m)))
        case(g, f"gen.{n}", gen(p), names=[f"m_{n}.json"])
    p = W("p/m_dup_cluster_id.json", dumps(mutate(flat, "/clusters/1/id", "alpha")))
    case(g, "gen.dup_cluster_id", gen(p), names=["m_dup_cluster_id.json"])
    p = W("p/m_many_clusters.json", dumps(mutate(flat, "/clusters/0/nodes/0/number", 10**9)))
    case(g, "gen.many_nodes", gen(p), names=["m_many_clusters.json"])
    p = W("p/m_slash_id.json", dumps(mutate(flat, "/clusters/0/id", "../../evil")))
    case(g, "gen.cluster_id_slash", gen(p), "any")

    # catalogue mutations
    types = json.loads(tiny_types)
    tptrs = ["/sgai_catalogue", "/processor_types/P2/cores", "/processor_types/P2/clock_rate",
             "/processor_types/P2/dpflops_per_cycle", "/processor_types/P2/mem_bw", "/processor_types/P2/power",
             "/memory_types/MEM/latency", "/network_types/Net10/bandwidth", "/network_types/Net10/idle_power",
             "/node_types/Duo/processors", "/node_types/Duo/processors/0/number", "/node_types/Duo/memory/capacity",
             "/gpu_types/G1/pstates", "/gpu_types/G1/pstates/0/speed", "/gpu_types/G1/memory_bandwidth"]
    for ptr, v, text in json_mutations(types, tptrs, ["delete", "str", "neg", "zero", "huge", "nan"]):
        n = f"{ptr_name(ptr)}.{v}"
        d = f"cat_{n}"
        W(f"p/{d}/tiny_types.json", text)
        p = W(f"p/{d}/tiny_flat.json", dumps(flat))
        gpu = ptr.startswith("/gpu_types")
        if gpu:
            gp = json.loads(read(f"{FIX}/platforms/tiny_gpu.json"))
            p = W(f"p/{d}/tiny_gpu.json", dumps(gp))
        exp = "any" if (v in ("delete", "zero") and ("idle_power" in ptr or "latency" in ptr or "power" in ptr
                                                     or "mem_bw" in ptr)) or ptr.endswith("/pstates") and v == "delete" else "fail"
        case(g, f"cat.{n}", gen(p), exp, names=["tiny_types.json"])
    for n, bw in [("bw_neg", "-10Gbps"), ("bw_zero", "0Gbps"), ("bw_unit", "10Gparsec"), ("bw_inf", "1e999Gbps"),
                  ("bw_nan", "nanGbps"), ("bw_empty", "")]:
        d = f"catbw_{n}"
        W(f"p/{d}/tiny_types.json", dumps(mutate(types, "/network_types/Net10/bandwidth", bw)))
        p = W(f"p/{d}/tiny_flat.json", dumps(flat))
        case(g, f"cat.{n}", gen(p), names=["tiny_types.json"])

    # topologies
    for topo, ptrs2 in [("tiny_torus", ["/clusters/0/topology/dimensions", "/clusters/0/topology/dimensions/0",
                                        "/clusters/0/topology/kind", "/clusters/0/topology/link"]),
                        ("tiny_fattree", ["/clusters/0/topology/levels", "/clusters/0/topology/levels/0/down",
                                          "/clusters/0/topology/levels/0/up", "/clusters/0/topology/levels/0/links"]),
                        ("tiny_dragonfly", ["/clusters/0/topology"])]:
        base = json.loads(read(f"{FIX}/platforms/{topo}.json"))
        for ptr, v, text in json_mutations(base, ptrs2, ["delete", "str", "neg", "zero", "huge", "arr"]):
            n = f"{topo}.{ptr_name(ptr)}.{v}"
            p = W(f"p/t_{n}.json", text)
            case(g, f"gen.{n}", gen(p), "any" if (ptr.endswith("/link") or ptr.endswith("/links")) and v == "delete" else "fail",
                 names=[f"t_{n}.json"])
    torus = json.loads(read(f"{FIX}/platforms/tiny_torus.json"))
    p = W("p/t_torus_huge.json", dumps(mutate(mutate(torus, "/clusters/0/topology/dimensions", [100000, 100000]),
                                                "/clusters/0/nodes/0/number", 10**10)))
    case(g, "gen.torus_huge", gen(p))

    # fixtures of fixed failures
    for name, where in [("bogus_cluster_id_control", "at /clusters/0/id"),
                        ("bogus_huge_clock", "at /types/processor_types/P/clock_rate")]:
        case(g, f"gen.{name}", gen(f"{FIX}/platforms/{name}.json"), names=[f"{name}.json", where])
    for fx in ["tiny_gpu", "tiny_mixed", "tiny_fattree_gpu", "tiny_torus"]:
        case(g, f"gen.{fx}_node_granularity", gen(f"{FIX}/platforms/{fx}.json", "--granularity", "node"), "ok")
    case(g, "import.bogus_machine_map", ["platform", "import-machines", f"{FIX}/machines/tiny_machines.config",
         "--processors", f"{FIX}/machines/bogus_machine_map.json", "--out", "{o}/m.json"],
         names=["bogus_machine_map.json", "at /memory_type"])
    case(g, "inspect.bogus_empty_platform", ["platform", "inspect", f"{FIX}/platforms/bogus_empty_platform.xml"], "ok")
    case(g, "import.tiny_valid", ["platform", "import-machines", f"{FIX}/machines/tiny_machines.config",
         "--processors", f"{FIX}/machines/tiny_machine_map.json", "--out", "{o}/m.json"], "ok")

    # generate's options and outputs
    case(g, "gen.gran_bogus", gen(flat_path, "--granularity", "bogus"), rc=2)
    case(g, "gen.gran_empty", gen(flat_path, "--granularity", ""), rc=2)
    case(g, "gen.types_missing", gen(flat_path, "--types", "{s}/none"))
    case(g, "gen.types_devnull", gen(flat_path, "--types", "/dev/null"))
    case(g, "gen.types_garbage", gen(flat_path, "--types", W("p/garbage_types.json", GARBAGE)))
    case(g, "gen.deployment_empty", gen(flat_path, "--deployment", ""), "any")
    case(g, "gen.deployment_xml", gen(flat_path, "--deployment", 'a"><evil/>'), "any")
    case(g, "gen.out_file", ["platform", "generate", flat_path, "--out", "{o}/f"], setup=[["file", "out/f", "x"]])
    case(g, "gen.out_proc", ["platform", "generate", flat_path, "--out", "/proc/sgai-hostile"])
    case(g, "gen.out_empty", ["platform", "generate", flat_path, "--out", ""], rc=2)
    case(g, "gen.out_readonly", ["platform", "generate", flat_path, "--out", "{o}/ro/g"],
         setup=[["dir", "out/ro"], ["chmod", "out/ro", 0o555]])
    # Never /dev/null itself as an output: a command that renames its result over it replaces the
    # machine's /dev/null with a file. A private device node in the scratch folder stands in.
    case(g, "gen.out_devnull", ["platform", "generate", flat_path, "--out", "{s}/devnull"], setup=[["mknod", "devnull"]])
    case(g, "gen.no_arg", ["platform", "generate"], rc=2)
    case(g, "gen.two_args", ["platform", "generate", flat_path, flat_path, "--out", "{o}/g"], rc=2)
    case(g, "gen.unknown_opt", gen(flat_path, "--bogus"), rc=2)
    path_variants(g, "gen", lambda p: gen(p))

    # HDeepRM files
    if HAVE_SHARED:
        hd = f"{SHARED}/platforms/hdeeprm"
        gaia = json.loads(read(f"{hd}/platform_examples/gaia.json"))
        data = f"{hd}/hdeeprm/data"
        hgen = lambda p: ["platform", "generate", p, "--types", data, "--out", "{o}/g"]
        for ptr, v, text in json_mutations(gaia, ["/clusters/0/nodes/0/type", "/clusters/0/nodes/0/number",
                                                  "/clusters", "/global_links", "/clusters/0/local_links"],
                                           ["delete", "str", "neg", "zero", "nan", "obj"]):
            n = f"hd.{ptr_name(ptr)}.{v}"
            p = W(f"p/{n}.json", text)
            case(g, f"gen.{n}", hgen(p), names=[f"{n}.json"])
        # a damaged catalogue folder
        for fname in ["node_types.json", "processor_types.json", "network_types.json", "memory_types.json"]:
            for mname, mdata in [("trunc", read(f"{data}/{fname}")[:100]), ("empty", b""), ("array", b"[]")]:
                d = f"p/hdata_{fname[:-5]}_{mname}"
                for f2 in os.listdir(data):
                    W(f"{d}/{f2}", read(f"{data}/{f2}"))
                W(f"{d}/{fname}", mdata)
                case(g, f"gen.hdata.{fname[:-5]}.{mname}",
                     ["platform", "generate", "{in}/p/hd_gaia.json", "--types", "{in}/" + d, "--out", "{o}/g"],
                     names=[fname])
        W("p/hd_gaia.json", dumps(gaia))
        case(g, "gen.hd_valid", hgen("{in}/p/hd_gaia.json"), "ok")
        case(g, "gen.hd_no_types", ["platform", "generate", "{in}/p/hd_gaia.json", "--out", "{o}/g"])

    # inspect
    ins = lambda p, *a: ["platform", "inspect", p, *a]
    case(g, "inspect.route_unknown", ins(flat_path, "--route", "nohost", "alsonot"))
    case(g, "inspect.route_one", ins(flat_path, "--route", "x"), rc=2)
    case(g, "inspect.route_empty", ins(flat_path, "--route", "", ""))
    case(g, "inspect.gran_bogus", ins(flat_path, "--granularity", "x"), rc=2)
    case(g, "inspect.cfg_bogus", ins(flat_path, "--cfg=bogus"), rc=2)
    case(g, "inspect.cfg_model", ins(flat_path, "--cfg=network/model:ns-3"), rc=2)
    case(g, "inspect.cfg_help", ins(flat_path, "--cfg=help"), "ok")
    case(g, "inspect.log_junk", ins(flat_path, "--log=junk"), rc=2)
    case(g, "inspect.log_empty", ins(flat_path, "--log="), rc=2)
    path_variants(g, "inspect", lambda p: ins(p))
    for name, data in byte_mutations(read(f"{FIX}/platforms/tiny_flat.json"))[:8]:
        p = W(f"p/ib_{name}.json", data)
        case(g, f"inspect.json_{name}", ins(p), names=[f"ib_{name}.json"])

    # SimGrid XML
    xml = read(f"{FIX}/golden/tiny_flat.xml")
    for name, data in byte_mutations(xml):
        if name in ("crlf", "gzipped"):
            continue
        p = W(f"p/x_{name}.xml", data)
        case(g, f"xml.{name}", ins(p), "any" if name in ("doubled",) else "fail", names=[f"x_{name}.xml"])
    xs = xml.decode()
    H = '<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
    xml_muts = [
        ("speed_abc", xs.replace('speed="', 'speed="abc', 1)),
        ("speed_neg", xs.replace('speed="', 'speed="-', 1)),
        ("speed_zero", __import__("re").sub(r'speed="[^"]*"', 'speed="0f"', xs, count=1)),
        ("speed_inf", __import__("re").sub(r'speed="[^"]*"', 'speed="1e999f"', xs, count=1)),
        ("bw_abc", __import__("re").sub(r'bandwidth="[^"]*"', 'bandwidth="fast"', xs, count=1)),
        ("bw_neg", __import__("re").sub(r'bandwidth="[^"]*"', 'bandwidth="-1Gbps"', xs, count=1)),
        ("lat_neg", __import__("re").sub(r'latency="[^"]*"', 'latency="-1s"', xs, count=1)),
        ("unknown_tag", xs.replace("</platform>", "<bogus/></platform>")),
        ("unknown_attr", xs.replace("<host ", '<host bogus="1" ', 1)),
        ("no_version", __import__("re").sub(r'<platform version="[^"]*"', "<platform", xs)),
        ("version_99", __import__("re").sub(r'<platform version="[^"]*"', '<platform version="99"', xs)),
        ("version_1", __import__("re").sub(r'<platform version="[^"]*"', '<platform version="1"', xs)),
        ("dup_host", xs.replace("</zone>", '<host id="h0" speed="1Gf"/></zone>', 1)),
        ("wattage_mismatch", __import__("re").sub(r'<prop id="wattage_per_state" value="[^"]*"',
                                                   '<prop id="wattage_per_state" value="1:2"', xs, count=1)),
        ("wattage_abc", __import__("re").sub(r'<prop id="wattage_per_state" value="[^"]*"',
                                              '<prop id="wattage_per_state" value="abc"', xs, count=1)),
        ("wattage_neg", __import__("re").sub(r'<prop id="wattage_per_state" value="[^"]*"',
                                              '<prop id="wattage_per_state" value="-5:-10:-20"', xs, count=1)),
        ("pstate_big", __import__("re").sub(r'pstate="[^"]*"', 'pstate="99"', xs, count=1) if "pstate=" in xs
         else xs.replace("<host ", '<host pstate="99" ', 1)),
        ("route_unknown", xs.replace("</zone>", '<route src="nohost" dst="nohost2"><link_ctn id="x"/></route></zone>', 1)),
        ("entity", '<?xml version="1.0"?>\n<!DOCTYPE platform [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'
         + xs.split("?>", 1)[-1]),
        ("deep_zones", H + '<platform version="4.1">' + '<zone id="z{}" routing="Full">' * 1
         + "".join(f'<zone id="z{i}" routing="Full">' for i in range(1, 3000)) + "</zone>" * 3000 + "</platform>"),
        ("many_hosts_bad_end", H + '<platform version="4.1"><zone id="z" routing="Full">'
         + "".join(f'<host id="h{i}" speed="1Gf"/>' for i in range(600)) + '<host id="h0" speed="1Gf"/></zone></platform>'),
        ("many_hosts_bad_route", H + '<platform version="4.1"><zone id="z" routing="Full">'
         + "".join(f'<host id="h{i}" speed="1Gf"/>' for i in range(600)) + '<route src="h0" dst="nope"/></zone></platform>'),
        ("long_id", xs.replace('<host id="', '<host id="' + "x" * 100000, 1)),
        ("empty_platform", H + '<platform version="4.1"></platform>'),
        ("empty_zone", H + '<platform version="4.1"><zone id="z" routing="Full"></zone></platform>'),
        ("bad_routing", H + '<platform version="4.1"><zone id="z" routing="Bogus"><host id="a" speed="1f"/></zone></platform>'),
        ("cluster_radical", H + '<platform version="4.1"><cluster id="c" prefix="c" suffix="" radical="0-99999999999" speed="1Gf" bw="1Gbps" lat="1us"/></platform>'),
        ("cluster_bad_radical", H + '<platform version="4.1"><cluster id="c" prefix="c" suffix="" radical="5-1,x" speed="1Gf" bw="1Gbps" lat="1us"/></platform>'),
        ("include", H + '<platform version="4.1"><include file="/etc/passwd"/></platform>'),
        ("trace_file", H + '<platform version="4.1"><zone id="z" routing="Full"><host id="a" speed="1Gf" availability_file="/nonexistent/trace"/></zone></platform>'),
        ("trace_inline_bad", H + '<platform version="4.1"><zone id="z" routing="Full"><host id="a" speed="1Gf"/><trace id="t" periodicity="-1">garbage\n1 2 3\n</trace></zone></platform>'),
        ("coords_bad", H + '<platform version="4.1"><zone id="z" routing="Vivaldi"><host id="a" speed="1Gf" coordinates="x y"/></zone></platform>'),
    ]
    for name, text in xml_muts:
        p = W(f"p/xm_{name}.xml", text)
        exp = "any" if name in ("version_1", "speed_zero", "no_version", "entity", "empty_zone", "wattage_neg", "dup_host",
                                "empty_platform",
                                "unknown_attr", "bw_neg", "lat_neg", "speed_neg", "pstate_big", "long_id") else "fail"
        case(g, f"xml.{name}", ins(p), exp, names=[f"xm_{name}.xml"])
    if HAVE_SHARED:
        B = f"{SHARED}/platforms/batsim/platforms"
        for f in ["cluster512.xml", "energy_platform.xml", "energy_platform_homogeneous_no_net_128.xml", "graphene.xml"]:
            text = read(f"{B}/{f}").decode()
            p = W(f"p/bs_{f[:-4]}_tag.xml", text.replace("</platform>", "<bogus/></platform>"))
            case(g, f"xml.bs_{f[:-4]}_tag", ins(p), names=[f"bs_{f[:-4]}_tag.xml"])
            p = W(f"p/bs_{f[:-4]}_trunc.xml", text[: len(text) * 2 // 3])
            case(g, f"xml.bs_{f[:-4]}_trunc", ins(p), names=[f"bs_{f[:-4]}_trunc.xml"])
        case(g, "xml.bs_energy_platform", ins(f"{B}/energy_platform.xml"), "any", names=["energy_platform.xml"])

    # convert
    conv = lambda p, *a: ["platform", "convert", p, *a]
    case(g, "convert.sgai_input", conv(flat_path, "--out", "{o}/c.json"), names=["tiny_flat.json"])
    case(g, "convert.no_out", conv(flat_path), rc=2)
    case(g, "convert.out_empty", conv(flat_path, "--out", ""), rc=2)
    path_variants(g, "convert", lambda p: conv(p, "--out", "{o}/c.json"))
    if HAVE_SHARED:
        hd = f"{SHARED}/platforms/hdeeprm"
        data = f"{hd}/hdeeprm/data"
        gaia_in = "{in}/p/hd_gaia.json"
        hconv = lambda p, out="{o}/c.json", *a: ["platform", "convert", p, "--types", data, "--out", out, *a]
        case(g, "convert.valid", hconv(gaia_in), "ok")
        case(g, "convert.out_is_input", ["platform", "convert", "{s}/gaia.json", "--types", data, "--out", "{s}/gaia.json"],
             setup=[["copy", gaia_in, "gaia.json"]])
        case(g, "convert.out_folder", hconv(gaia_in, "{o}/d"), setup=[["dir", "out/d"]])
        case(g, "convert.out_proc", hconv(gaia_in, "/proc/sgai-hostile.json"))
        case(g, "convert.out_devnull", hconv(gaia_in, "{s}/devnull"), setup=[["mknod", "devnull"]])
        case(g, "convert.out_readonly", hconv(gaia_in, "{o}/ro/c.json"), setup=[["dir", "out/ro"], ["chmod", "out/ro", 0o555]])
        case(g, "convert.out_under_file", hconv(gaia_in, "{o}/f/c.json"), setup=[["file", "out/f", "x"]])
        case(g, "convert.types_missing", ["platform", "convert", gaia_in, "--types", "{s}/none", "--out", "{o}/c.json"])
        case(g, "convert.gran_bogus", hconv(gaia_in, "{o}/c.json", "--granularity", "bogus"), rc=2)
        for name in ["hd.clusters_0_nodes_0_type.str", "hd.clusters_0_nodes_0_number.neg", "hd.clusters.obj",
                     "hd.global_links.delete", "hd.clusters_0_local_links.nan"]:
            case(g, f"convert.{name}", hconv("{in}/p/" + name + ".json"), names=[name + ".json"])
        for name, data2 in byte_mutations(read(f"{hd}/platform_examples/gaia.json"))[:10]:
            p = W(f"p/cb_{name}.json", data2)
            case(g, f"convert.bytes_{name}", hconv(p), names=[f"cb_{name}.json"])

    # import-machines
    imp = lambda c, m, out="{o}/m.json": ["platform", "import-machines", c, "--processors", m, "--out", out]
    if HAVE_SHARED:
        cfg = json.loads(read(f"{SHARED}/platforms/machines/seth.config"))
        mp = {"sgai_machine_map": 1, "name": "seth", "memory_type": "MEM",
              "catalogues": ["tiny_types.json"],
              "local_links": {"type": "Net10", "latency": "1us"},
              "groups": {"g0": {"processors": [{"type": "P2", "number": 2}]}}}
        cfg_path = W("p/seth.config", dumps(cfg))
        # the map's format: learn whether this one is accepted; the mutations are bad either way
        map_path = W("p/seth.map.json", dumps(mp))
        real_map = f"{REPO}/platforms/sources/metacentrum2013.map.json"
        mc = f"{SHARED}/platforms/machines/mc.config"
        case(g, "import.mc_valid", imp(mc, real_map), "ok")
        for ptr, v, text in json_mutations(cfg, ["/groups", "/groups/g0", "/groups/g0/core", "/groups/g0/mem",
                                                 "/resources", "/resources/g0", "/equivalence"],
                                           ["delete", "str", "neg", "zero", "huge", "nan", "arr"]):
            n = f"cfg.{ptr_name(ptr)}.{v}"
            p = W(f"p/im_{n}.config", text)
            exp = "any" if ptr == "/equivalence" else "fail"
            case(g, f"import.{n}", imp(p, real_map), exp, names=[f"im_{n}.config"])
        mcmap = json.loads(read(real_map))
        mcfg = json.loads(read(mc))
        mc_in = W("p/mc.config", dumps(mcfg))
        first = next(iter(mcmap["groups"]))
        for ptr, v, text in json_mutations(mcmap, ["/sgai_machine_map", "/name", "/memory_type", "/local_links",
                                                   "/global_links", "/groups", f"/groups/{first}",
                                                   f"/groups/{first}/processors", f"/groups/{first}/processors/0/type",
                                                   f"/groups/{first}/processors/0/number"],
                                           ["delete", "str", "neg", "zero", "nan", "obj"]):
            n = f"map.{ptr_name(ptr)}.{v}"
            p = W(f"p/im_{n}.json", text)
            exp = "any" if (ptr == "/name" and v in ("delete", "str")) or (ptr == "/memory_type" and v == "delete") else "fail"
            case(g, f"import.{n}", imp(mc_in, p), exp, names=[f"im_{n}.json"])
        p = W("p/im_map_unknown_key.json", dumps({**mcmap, "bogus": 1}))
        case(g, "import.map_unknown_key", imp(mc_in, p), names=["im_map_unknown_key.json"])
        p = W("p/im_cfg_unknown_key.config", dumps({**mcfg, "bogus": 1}))
        case(g, "import.cfg_unknown_key", imp(p, real_map), "any")
        for name, data2 in byte_mutations(read(mc))[:9]:
            p = W(f"p/imb_{name}.config", data2)
            case(g, f"import.cfg_bytes_{name}", imp(p, real_map), names=[f"imb_{name}.config"])
        case(g, "import.out_is_input", imp("{s}/mc.config", real_map, "{s}/mc.config"), setup=[["copy", mc_in, "mc.config"]])
        case(g, "import.out_is_map", imp(mc_in, "{s}/m.json", "{s}/m.json"), setup=[["copy", real_map, "m.json"]])
        case(g, "import.out_folder", imp(mc_in, real_map, "{o}/d"), setup=[["dir", "out/d"]])
        case(g, "import.out_proc", imp(mc_in, real_map, "/proc/sgai-hostile.json"))
        case(g, "import.out_empty", imp(mc_in, real_map, ""), rc=2)
        case(g, "import.map_missing", imp(mc_in, "{s}/none.json"))
        case(g, "import.map_devnull", imp(mc_in, "/dev/null"))
        case(g, "import.map_folder", imp(mc_in, "{in}"))
        case(g, "import.no_processors", ["platform", "import-machines", mc_in, "--out", "{o}/m.json"], rc=2)
        path_variants(g, "import", lambda p: imp(p, real_map))
        _ = cfg_path, map_path


# ---- workload ----------------------------------------------------------------------------------

SWF_HEAD = "; Version: 2.2\n; MaxProcs: 8\n"


def swf_line(fields):
    return " ".join(str(f) for f in fields) + "\n"


def gen_workload():
    g = "workload"
    swf = read(f"{FIX}/workloads/tiny.swf")
    s2j = lambda p, *a: ["workload", "swf2json", p, "--out", "{o}/w.json", *a]
    swf_path = W("w/tiny.swf", swf)
    case(g, "swf2json.valid", s2j(swf_path), "ok")
    for name, data in byte_mutations(swf):
        p = W(f"w/b_{name}.swf", data)
        exp = "any" if name in ("blank", "crlf", "gzipped", "trunc_last", "doubled", "lines_reversed", "trunc_half",
                                "empty", "trunc_1") else "fail"
        case(g, f"swf2json.bytes_{name}", s2j(p), exp, names=[f"b_{name}.swf"])
    p = W("w/gz_garbage.swf.gz", GZ_GARBAGE)
    case(g, "swf2json.gz_garbage", s2j(p), names=["gz_garbage.swf.gz"])
    p = W("w/gz_trunc.swf.gz", gzip.compress(swf * 20, mtime=0)[:60])
    case(g, "swf2json.gz_trunc", s2j(p), names=["gz_trunc.swf.gz"])
    p = W("w/gz_plain.swf.gz", swf)
    case(g, "swf2json.gz_is_plain", s2j(p), "any")
    good = [1, 100, 10, 50, 2, -1, -1, 2, 60, -1, 1, 1, 1, -1, -1, -1, -1, -1]
    names_f = ["id", "submit", "wait", "run", "procs", "cpu", "mem", "reqprocs", "reqtime", "reqmem", "status",
               "user", "group", "app", "queue", "partition", "prev", "think"]
    for i, fname in enumerate(names_f):
        for v in ["abc", "nan", "1e308", "-5", "1e999", "9999999999999999999999", "0x10", "1.5e3"]:
            if fname in ("cpu", "status", "user", "group", "app", "queue", "partition", "prev", "think", "wait") \
                    and v not in ("abc", "nan", "1e999"):
                continue
            f = list(good)
            f[i] = v
            p = W(f"w/f_{fname}_{v}.swf", SWF_HEAD + swf_line(f))
            exp = "any" if v in ("1.5e3", "0x10", "-5", "1e308", "9999999999999999999999") or \
                (v == "nan" and False) else "fail"
            case(g, f"swf2json.field_{fname}_{v}", s2j(p), exp, names=[f"f_{fname}_{v}.swf"])
    for n, text in [("few_fields", SWF_HEAD + "1 2 3\n"), ("many_fields", SWF_HEAD + swf_line(good + [1, 2, 3])),
                    ("all_dropped", SWF_HEAD + swf_line([1, 0, 0, -1, -1, -1, -1, -1, -1, -1, 1, 1, 1, -1, -1, -1, -1, -1])),
                    ("maxprocs_abc", "; MaxProcs: abc\n" + swf_line(good)),
                    ("maxprocs_neg", "; MaxProcs: -4\n" + swf_line(good)),
                    ("maxprocs_huge", "; MaxProcs: 1e999\n" + swf_line(good)),
                    ("header_only", SWF_HEAD), ("comment_long", ";" + "x" * 300000 + "\n" + swf_line(good)),
                    ("dup_ids", SWF_HEAD + swf_line(good) + swf_line(good)),
                    ("decreasing_submit", SWF_HEAD + swf_line(good) + swf_line([2, 1] + good[2:])),
                    ("tabs", SWF_HEAD + "\t".join(map(str, good)) + "\n"),
                    ("sep_commas", SWF_HEAD + ",".join(map(str, good)) + "\n")]:
        p = W(f"w/s_{n}.swf", text)
        exp = "any" if n in ("dup_ids", "decreasing_submit", "tabs", "header_only", "comment_long", "all_dropped",
                             "maxprocs_abc", "maxprocs_neg", "maxprocs_huge") else "fail"
        case(g, f"swf2json.{n}", s2j(p), exp, names=[f"s_{n}.swf"])
    for opt, vals in [("--first", ["0", "-1", "abc", "1e999", "99999999999999999999", ""]),
                      ("--offset", ["-1", "abc", "1.5", "99999999999999999999"]),
                      ("--reference-speed", ["0", "-1Gf", "abc", "1e999f", "nan", "", "1Zf"]),
                      ("--mem-bw", ["5:1", "abc", "-1:2", "1:1e999", ":", "1", "nan:nan"]),
                      ("--mem-bw-values", ["", "a,b", "-1", "1e999", ",,,", "nan"]),
                      ("--seed", ["-1", "abc", "1e3", "99999999999999999999"]),
                      ("--default-mem", ["-1", "abc", "nan", "inf", "1e999", "1e20"])]:
        for v in vals:
            case(g, f"swf2json.opt{opt}={v or 'empty'}", s2j(swf_path, opt, v), rc=2, names=[opt])
    case(g, "swf2json.membw_both", s2j(swf_path, "--mem-bw", "1:2", "--mem-bw-values", "4,8"), rc=2)
    case(g, "swf2json.out_is_input", ["workload", "swf2json", "{s}/t.swf", "--out", "{s}/t.swf"],
         setup=[["copy", swf_path, "t.swf"]])
    case(g, "swf2json.out_folder", ["workload", "swf2json", swf_path, "--out", "{o}"])
    case(g, "swf2json.out_proc", ["workload", "swf2json", swf_path, "--out", "/proc/sgai-hostile.json"])
    case(g, "swf2json.out_empty", ["workload", "swf2json", swf_path, "--out", ""], rc=2)
    case(g, "swf2json.out_readonly", ["workload", "swf2json", swf_path, "--out", "{o}/ro/w.json"],
         setup=[["dir", "out/ro"], ["chmod", "out/ro", 0o555]])
    case(g, "swf2json.out_under_file", ["workload", "swf2json", swf_path, "--out", "{o}/f/w.json"],
         setup=[["file", "out/f", "x"]])
    case(g, "swf2json.no_out", ["workload", "swf2json", swf_path], rc=2)
    path_variants(g, "swf2json", lambda p: s2j(p))

    # stats
    tiny = json.loads(read(f"{FIX}/workloads/tiny.json"))
    tiny_path = W("w/tiny.json", dumps(tiny))
    st = lambda p, f="req_time": ["workload", "stats", p, f]
    case(g, "stats.valid", st(tiny_path), "ok")
    case(g, "stats.field_bogus", st(tiny_path, "bogus"), rc=2)
    case(g, "stats.field_empty", st(tiny_path, ""), rc=2)
    case(g, "stats.no_field", ["workload", "stats", tiny_path], rc=2)
    path_variants(g, "stats", lambda p: st(p))
    for name, data in byte_mutations(read(f"{FIX}/workloads/tiny.json")):
        if name in ("crlf", "gzipped"):
            continue
        p = W(f"w/jb_{name}.json", data)
        case(g, f"stats.bytes_{name}", st(p), names=[f"jb_{name}.json"])
    for name, text in json_structural(tiny):
        p = W(f"w/js_{name}.json", text)
        case(g, f"stats.{name}", st(p), names=[f"js_{name}.json"])
    for name, data in byte_mutations(swf)[:7]:
        p = W(f"w/sb_{name}.swf", data)
        case(g, f"stats.swf_{name}", st(p, "size"), "any", names=[f"sb_{name}.swf"])

    # generate
    gen = lambda *a: ["workload", "generate", "--out", "{o}/w.json", *a]
    case(g, "generate.valid", gen("--jobs", "5"), "ok")
    for opt, vals in [("--jobs", ["0", "-1", "abc", "1e999", "99999999999999999999", "1000001", ""]),
                      ("--max-cores", ["0", "-1", "abc", "4294967296"]),
                      ("--serial-fraction", ["-0.1", "1.5", "nan", "inf", "abc"]),
                      ("--interarrival", ["-1s", "abc", "1e999s", "2d", "nan"]),
                      ("--load", ["0", "-1", "nan", "1e999", "abc"]),
                      ("--cores", ["0", "-5", "abc"]),
                      ("--run-time", ["0:1", "5:1", "abc", "1:1e999", "1m", "-1:5", "1:1e13"]),
                      ("--overestimate", ["0", "0.5", "nan", "1e999", "1e7"]),
                      ("--mem", ["5:1", "-1:1", "abc", "1:1e10"]),
                      ("--mem-bw", ["5:1", "abc", "1:1e7"]),
                      ("--reference-speed", ["0f", "abc", "1e999f", "-1Gf"]),
                      ("--seed", ["-1", "abc", "99999999999999999999"])]:
        for v in vals:
            extra = ["--jobs", "5"] if opt != "--jobs" else []
            case(g, f"generate.opt{opt}={v or 'empty'}", gen(*extra, opt, v), rc=2, names=[opt])
    case(g, "generate.load_no_cores", gen("--jobs", "5", "--load", "0.5"), rc=2)
    case(g, "generate.load_and_ia", gen("--jobs", "5", "--load", "0.5", "--cores", "8", "--interarrival", "1m"), rc=2)
    case(g, "generate.load_tiny_ia", gen("--jobs", "5", "--load", "0.001", "--cores", "1", "--run-time", "1d:1d"), rc=2)
    case(g, "generate.no_jobs", ["workload", "generate", "--out", "{o}/w.json"], rc=2)
    case(g, "generate.out_folder", ["workload", "generate", "--jobs", "3", "--out", "{o}"])
    case(g, "generate.out_proc", ["workload", "generate", "--jobs", "3", "--out", "/proc/sgai-hostile.json"])
    case(g, "generate.out_under_file", ["workload", "generate", "--jobs", "3", "--out", "{o}/f/w.json"],
         setup=[["file", "out/f", "x"]])
    case(g, "generate.out_devnull", ["workload", "generate", "--jobs", "3", "--out", "{s}/devnull"], setup=[["mknod", "devnull"]])
    case(g, "swf2json.out_devnull", s2j(swf_path)[:3] + ["--out", "{s}/devnull"], setup=[["mknod", "devnull"]])
    case(g, "workload.no_sub", ["workload"], "any")
    case(g, "workload.bogus_sub", ["workload", "bogus"], rc=2)


# ---- batch -------------------------------------------------------------------------------------

def gen_batch():
    g = "batch"
    W("b/tiny_types.json", read(f"{FIX}/platforms/tiny_types.json"))
    plat = W("b/tiny_flat.json", read(f"{FIX}/platforms/tiny_flat.json"))
    tiny = json.loads(read(f"{FIX}/workloads/tiny.json"))
    wl = W("b/tiny.json", dumps(tiny))
    br = lambda w, p=plat, *a: ["batch", "run", "--platform", p, "--workload", w, "--out", "{o}/r", *a]
    case(g, "run.valid", br(wl), "ok")
    ptrs = ["/nb_res", "/jobs", "/jobs/0", "/jobs/0/id", "/jobs/0/subtime", "/jobs/0/res", "/jobs/0/walltime",
            "/jobs/0/profile", "/profiles", "/profiles/d5", "/profiles/d5/type", "/profiles/d5/delay",
            "/profiles/ph/cpu", "/profiles/ph/com", "/profiles/ph/req_time", "/profiles/ph/mem", "/profiles/ph/mem_bw",
            "/profiles/par/cpu", "/profiles/par/com", "/profiles/par/cpu/0", "/profiles/par/com/1"]
    vals = ["delete", "null", "str", "neg", "zero", "huge", "nan", "inf", "obj", "bigstr", "frac"]
    accept_any = {("/nb_res", "null"), ("/jobs/0", "delete"), ("/profiles/ph/req_time", "null"), ("/profiles/ph/mem", "null"),
                  ("/profiles/ph/mem_bw", "null"), ("/nb_res", "delete"), ("/jobs/0/walltime", "delete"), ("/nb_res", "zero"), ("/nb_res", "huge"),
                  ("/nb_res", "frac"), ("/jobs/0/id", "str"), ("/jobs/0/id", "bigstr"), ("/jobs/0/id", "zero"),
                  ("/jobs/0/id", "neg"), ("/jobs/0/walltime", "neg"), ("/jobs/0/res", "huge"),
                  ("/jobs/0/subtime", "zero"), ("/jobs/0/walltime", "frac"), ("/jobs/0/subtime", "frac"),
                  ("/profiles/d5/delay", "zero"), ("/profiles/d5/delay", "frac"), ("/profiles/ph/cpu", "zero"),
                  ("/profiles/ph/com", "zero"), ("/profiles/ph/mem", "zero"), ("/profiles/ph/mem_bw", "zero"),
                  ("/profiles/ph/mem", "delete"), ("/profiles/ph/mem_bw", "delete"), ("/profiles/ph/req_time", "delete"),
                  ("/profiles/ph/com", "delete"), ("/profiles/ph/cpu", "frac"), ("/profiles/ph/com", "frac"),
                  ("/profiles/ph/req_time", "frac"), ("/profiles/ph/mem", "frac"), ("/profiles/ph/mem_bw", "frac"),
                  ("/profiles/par/cpu/0", "zero"), ("/profiles/par/com/1", "zero"), ("/profiles/par/cpu/0", "frac"),
                  ("/profiles/par/com/1", "frac"), ("/jobs/0/walltime", "zero"), ("/profiles/ph/req_time", "zero"),
                  ("/jobs/0/walltime", "null"), ("/profiles/ph/mem", "huge"), ("/profiles/ph/mem_bw", "huge"),
                  ("/profiles/par/com/1", "huge"), ("/profiles/ph/com", "huge")}
    for ptr, v, text in json_mutations(tiny, ptrs, vals):
        if v in ("bigstr", "inf", "frac") and ptr in ("/jobs", "/profiles", "/jobs/0", "/profiles/d5"):
            continue
        n = f"{ptr_name(ptr)}.{v}"
        p = W(f"b/w_{n}.json", text)
        case(g, f"wl.{n}", br(p), "any" if (ptr, v) in accept_any else "fail", names=[f"w_{n}.json"])
    for name, text in json_structural(tiny):
        p = W(f"b/ws_{name}.json", text)
        case(g, f"wl.{name}", br(p), names=[f"ws_{name}.json"])
    for name, data in byte_mutations(read(f"{FIX}/workloads/tiny.json"))[:11]:
        p = W(f"b/wb_{name}.json", data)
        case(g, f"wl.bytes_{name}", br(p), names=[f"wb_{name}.json"])
    # jobs that can never run
    for n, w in [("res_above_platform", mutate(tiny, "/jobs/0/res", 1000)),
                 ("all_too_big", {**tiny, "jobs": [{**j, "res": 11} for j in tiny["jobs"]]}),
                 ("mem_above_node", mutate(tiny, "/profiles/ph/mem", 1e9)),
                 ("membw_huge", mutate(tiny, "/profiles/ph/mem_bw", 1e6)),
                 ("par_cpu_len", mutate(tiny, "/profiles/par/cpu", [1e9, 1e9, 1e9])),
                 ("par_com_len", mutate(tiny, "/profiles/par/com", [0, 1])),
                 ("par_res_mismatch", mutate(tiny, "/jobs/2/res", 3)),
                 ("unknown_profile_type", mutate(tiny, "/profiles/d5/type", "composed")),
                 ("profile_unknown_key", mutate(tiny, "/profiles/d5/bogus", 1)),
                 ("job_unknown_key", mutate(tiny, "/jobs/0/bogus", 1)),
                 ("dup_job_id", mutate(tiny, "/jobs/1/id", 1)),
                 ("id_slash", mutate(tiny, "/jobs/0/id", "../../x")),
                 ("no_jobs", {**tiny, "jobs": []}),
                 ("subtime_1e12", mutate(tiny, "/jobs/0/subtime", 1e12)),
                 ("delay_1e12", mutate(tiny, "/profiles/d5/delay", 1e12)),
                 ("walltime_tiny", mutate(tiny, "/jobs/0/walltime", 1e-9)),
                 ("cpu_1e30", mutate(tiny, "/profiles/ph/cpu", 1e30)),
                 ("many_jobs_big", {**tiny, "jobs": [{"id": i, "subtime": 0, "res": 11, "profile": "d5"}
                                                     for i in range(50)]})]:
        p = W(f"b/x_{n}.json", dumps(w))
        exp = "any" if n in ("res_above_platform", "all_too_big", "mem_above_node", "membw_huge", "no_jobs",
                             "subtime_1e12", "delay_1e12", "walltime_tiny", "id_slash", "many_jobs_big",
                             "par_res_mismatch") else "fail"
        case(g, f"wl.{n}", br(p), exp, names=[f"x_{n}.json"])
    # SWF workloads
    swf = read(f"{FIX}/workloads/tiny.swf")
    for name, data in byte_mutations(swf)[:8]:
        p = W(f"b/sw_{name}.swf", data)
        case(g, f"swf.{name}", br(p), "any", names=[f"sw_{name}.swf"])
    p = W("b/gz_garbage.swf.gz", GZ_GARBAGE)
    case(g, "swf.gz_garbage", br(p), names=["gz_garbage.swf.gz"])
    # platforms
    for name in ["bogus_syntax", "bogus_zero_count", "bogus_too_large", "bogus_unknown_key", "bogus_torus_size"]:
        case(g, f"plat.{name}", br(wl, f"{FIX}/platforms/{name}.json"), names=[f"{name}.json"])
    case(g, "plat.bogus_empty_platform", br(wl, f"{FIX}/platforms/bogus_empty_platform.xml"),
         names=["bogus_empty_platform.xml"])
    for name, text in [("xml_trunc", read(f"{FIX}/golden/tiny_flat.xml")[:300]),
                       ("xml_garbage", b"<" + GARBAGE),
                       ("xml_wattage", read(f"{FIX}/golden/tiny_flat.xml").replace(b'wattage_per_state" value="', b'wattage_per_state" value="1:', 1))]:
        p = W(f"b/{name}.xml", text)
        case(g, f"plat.{name}", br(wl, p), "any" if name == "xml_wattage" else "fail", names=[f"{name}.xml"])
    if HAVE_SHARED:
        B = f"{SHARED}/platforms/batsim/platforms"
        c512 = read(f"{B}/cluster512.xml").decode()
        p = W("b/c512_bad.xml", c512.replace("</platform>", "<bogus/></platform>"))
        case(g, "plat.c512_bad_tag", br(wl, p), names=["c512_bad.xml"])
        p = W("b/c512_dup.xml", c512.replace("</zone>", '<host id="a0" speed="1Gf"/></zone>', 1) if "</zone>" in c512
              else c512.replace("</AS>", '<host id="a0" speed="1Gf"/></AS>', 1))
        case(g, "plat.c512_dup_host", br(wl, p), names=["c512_dup.xml"])
        case(g, "plat.energy_platform", br(wl, f"{B}/energy_platform.xml"), "any", names=["energy_platform.xml"])
    path_variants(g, "plat", lambda p: br(wl, p))
    path_variants(g, "wlpath", lambda p: br(p))
    # options
    for opt, vals in [("--jobs", ["bogus", "", "FIRST"]), ("--resources", ["bogus", "", "high"]),
                      ("--backfill", ["bogus", "", "EASY"]), ("--seed", ["-1", "abc", "1e999"]),
                      ("--max-resources", ["-1", "abc", "1e999", "99999999999999999999"]),
                      ("--granularity", ["bogus", ""])]:
        for v in vals:
            case(g, f"opt{opt}={v or 'empty'}", br(wl, plat, opt, v), names=[opt])
    case(g, "opt.max_resources_above", br(wl, plat, "--max-resources", "11"), names=["--max-resources"])
    case(g, "opt.types_missing", br(wl, plat, "--types", "{s}/nothing"))
    case(g, "opt.cfg_bogus", br(wl, plat, "--cfg=bogus"), rc=2)
    case(g, "opt.cfg_bad_value", br(wl, plat, "--cfg=network/crosstraffic:maybe"), rc=2)
    case(g, "opt.cfg_unknown", br(wl, plat, "--cfg=no/such:1"), rc=2)
    case(g, "opt.cfg_help", br(wl, plat, "--cfg=help"), "ok")
    case(g, "opt.cfg_stack_huge", br(wl, plat, "--cfg=contexts/stack-size:99999999999"), "any")
    case(g, "opt.cfg_maxmin_neg", br(wl, plat, "--cfg=maxmin/precision:-1"), "any")
    case(g, "opt.log_junk", br(wl, plat, "--log=junk"), rc=2)
    case(g, "opt.log_bad_cat", br(wl, plat, "--log=nope.thres:debug"), rc=2)
    case(g, "opt.log_bad_level", br(wl, plat, "--log=sgai.thres:loud"), rc=2)
    case(g, "opt.unknown", br(wl, plat, "--bogus"), rc=2)
    case(g, "opt.missing_out", ["batch", "run", "--platform", plat, "--workload", wl], rc=2)
    case(g, "opt.missing_platform", ["batch", "run", "--workload", wl, "--out", "{o}/r"], rc=2)
    case(g, "out.file", br(wl), setup=[["file", "out/r", "x"]])
    case(g, "out.under_file", ["batch", "run", "--platform", plat, "--workload", wl, "--out", "{o}/f/r"],
         setup=[["file", "out/f", "x"]])
    case(g, "out.proc", ["batch", "run", "--platform", plat, "--workload", wl, "--out", "/proc/sgai-hostile"])
    case(g, "out.readonly", ["batch", "run", "--platform", plat, "--workload", wl, "--out", "{o}/ro/r"],
         setup=[["dir", "out/ro"], ["chmod", "out/ro", 0o555]])
    case(g, "out.empty", ["batch", "run", "--platform", plat, "--workload", wl, "--out", ""], rc=2)
    case(g, "out.is_workload", ["batch", "run", "--platform", plat, "--workload", "{s}/w.json", "--out", "{s}/w.json"],
         setup=[["copy", wl, "w.json"]])
    case(g, "out.existing_run", br(wl), "ok", setup=[["dir", "out/r"], ["file", "out/r/jobs.csv", "old"]])

    # batch plot
    if SGAI:
        base = os.path.join(IN, "b/run")
        subprocess.run([SGAI, "batch", "run", "--platform", os.path.join(IN, "b/tiny_flat.json"), "--workload",
                        os.path.join(IN, "b/tiny.json"), "--out", base], check=True, capture_output=True)
        files = sorted(os.listdir(base))
        have_mpl = subprocess.run(["python3", "-c", "import matplotlib"], capture_output=True).returncode == 0
        bp = lambda d: ["batch", "plot", d]
        case(g, "plot.valid", ["batch", "plot", "{s}/run"], "ok" if have_mpl else "any",
             setup=[["copy", "{in}/b/run", "run"]])
        case(g, "plot.missing", bp("{s}/nothing"))
        case(g, "plot.file", bp("{in}/b/tiny.json"))
        case(g, "plot.devnull", bp("/dev/null"))
        case(g, "plot.empty_dir", bp("{s}/e"), setup=[["dir", "e"]])
        case(g, "plot.empty_arg", bp(""), rc=2)
        case(g, "plot.no_arg", ["batch", "plot"], rc=2)
        case(g, "plot.proc", bp("/proc"))
        for f in ["jobs.csv", "machine_states.csv", "summary.json", "config.json", "overutilization.csv",
                  "schedule.json", "hierarchy.json"]:
            if f not in files:
                continue
            for mname in ["missing", "empty", "garbage", "trunc", "badnum", "folder"]:
                setup = [["copy", "{in}/b/run", "run"]]
                target = f"run/{f}"
                if mname == "missing":
                    setup.append(["rm", target])
                elif mname == "empty":
                    setup.append(["file", target, ""])
                elif mname == "garbage":
                    setup.append(["file", target, GARBAGE.decode("latin-1")])
                elif mname == "trunc":
                    setup.append(["file", target, read(os.path.join(base, f)).decode()[:40]])
                elif mname == "badnum":
                    t = read(os.path.join(base, f)).decode()
                    setup.append(["file", target, __import__("re").sub(r"\d+\.?\d*", "nan", t)])
                else:
                    setup += [["rm", target], ["dir", target]]
                unread = f in ("schedule.json", "hierarchy.json", "config.json", "summary.json")
                case(g, f"plot.{f}.{mname}", ["batch", "plot", "{s}/run"], "any" if unread or (
                     f == "overutilization.csv" and mname in ("empty", "trunc", "badnum")) else "fail",
                     names=[f] if mname != "missing" or f == "jobs.csv" else None, setup=setup)
        case(g, "plot.bogus_plot_nan", ["batch", "plot", "{s}/run"], names=["jobs.csv", "line 2", "'nan'"],
             setup=[["copy", f"{FIX}/batch/bogus_plot_nan", "run"]])
        cases[-1]["out"] = "run"
        case(g, "plot.readonly", ["batch", "plot", "{s}/run"], "any",
             setup=[["copy", "{in}/b/run", "run"], ["chmod", "run", 0o555]])
    case(g, "batch.bogus_sub", ["batch", "bogus"], rc=2)


# ---- chakra ------------------------------------------------------------------------------------

def gen_chakra():
    g = "chakra"
    et = read(f"{REPO}/workloads/chakra/gpt-dp8/gpt.0.et")
    et_path = W("c/gpt.0.et", et)
    js = None
    if SGAI:
        subprocess.run([SGAI, "chakra", "jsonize", os.path.join(IN, "c/gpt.0.et"), "--out",
                        os.path.join(IN, "c/gpt.0.json")], check=True, capture_output=True)
        js = json.loads(read(os.path.join(IN, "c/gpt.0.json")))
        subprocess.run([SGAI, "chakra", "stats", os.path.join(IN, "c/gpt.0.et"), "--replay-log",
                        os.path.join(IN, "c/log.csv")], check=True, capture_output=True)
    jz = lambda p, out="{o}/x.json": ["chakra", "jsonize", p, "--out", out]
    dj = lambda p, out="{o}/x.et": ["chakra", "dejsonize", p, "--out", out]
    case(g, "jsonize.valid", jz(et_path), "ok")
    # ET byte damage
    et_muts = byte_mutations(et)[:11] + [
        ("flip_varint", et[:30] + b"\xff" * 12 + et[42:]),
        ("len_huge", et[:4] + b"\xff\xff\xff\xff\x0f" + et[9:]),
        ("one_byte_off", et[:-1]),
        ("zero_len_record", b"\x00" * 40),
        ("bit_flips", bytes(b ^ (0x10 if i % 37 == 5 else 0) for i, b in enumerate(et))),
        ("random_bytes_at_end", et + GARBAGE[:50]),
    ]
    for name, data in et_muts:
        p = W(f"c/e_{name}.et", data)
        for cmd, argv in [("jsonize", jz(p)), ("stats", ["chakra", "stats", p]),
                          ("visualize", ["chakra", "visualize", p, "--out", "{o}/v.dot"])]:
            exp = "any" if name in ("doubled", "random_bytes_at_end", "bit_flips") else "fail"
            case(g, f"{cmd}.et_{name}", argv, exp, names=[f"e_{name}.et"])
    for cmd, mk in [("jsonize", lambda p: jz(p)), ("stats", lambda p: ["chakra", "stats", p]),
                    ("visualize", lambda p: ["chakra", "visualize", p, "--out", "{o}/v.dot"]),
                    ("timeline", lambda p: ["chakra", "timeline", p, "--out", "{o}/t.json"]),
                    ("dejsonize", lambda p: dj(p)), ("convert", lambda p: ["chakra", "convert", p, "--out", "{o}/c.0.et"])]:
        path_variants(g, cmd, mk)
    case(g, "jsonize.out_devnull", jz(et_path, "{s}/devnull"), setup=[["mknod", "devnull"]])
    case(g, "jsonize.out_is_input", jz("{s}/a.et", "{s}/a.et"), setup=[["copy", et_path, "a.et"]])
    case(g, "jsonize.out_folder", jz(et_path, "{o}"))
    case(g, "jsonize.out_proc", jz(et_path, "/proc/sgai-hostile.json"))
    case(g, "jsonize.out_empty", jz(et_path, ""), rc=2)
    case(g, "jsonize.out_readonly", jz(et_path, "{o}/ro/x.json"), setup=[["dir", "out/ro"], ["chmod", "out/ro", 0o555]])
    case(g, "jsonize.out_under_file", jz(et_path, "{o}/f/x.json"), setup=[["file", "out/f", "x"]])
    if js:
        jpath = W("c/gpt.json", dumps(js))
        case(g, "dejsonize.valid", dj(jpath), "ok")
        ptrs = ["/chakra_json", "/metadata", "/metadata/version", "/nodes", "/nodes/0", "/nodes/0/id", "/nodes/0/name",
                "/nodes/0/type", "/nodes/0/attr", "/nodes/0/attr/1", "/nodes/0/attr/1/int64_val", "/nodes/0/attr/1/name",
                "/nodes/1/data_deps", "/nodes/1/data_deps/0"]
        vals = ["delete", "null", "str", "neg", "huge", "nan", "obj", "arr", "frac", "u64p1", "bigstr"]
        for ptr, v, text in json_mutations(js, ptrs, vals):
            n = f"{ptr_name(ptr)}.{v}"
            p = W(f"c/j_{n}.json", text)
            exp = "any" if (ptr, v) in {("/nodes/0/name", "bigstr"), ("/nodes/0/name", "str"), ("/nodes/1/data_deps", "delete"),
                                        ("/nodes/1/data_deps", "arr"), ("/metadata/version", "str"),
                                        ("/metadata/version", "bigstr"), ("/nodes/0/attr", "arr"),
                                        ("/nodes/0/attr/1", "delete"), ("/nodes/0/attr/1/name", "str"),
                                        ("/nodes/0/attr/1/name", "bigstr"), ("/metadata", "delete"),
                                        ("/nodes/0/attr", "delete"), ("/metadata/version", "delete"),
                                        # node 1 left with "data_deps": []: no dependency, the same ET
                                        ("/nodes/1/data_deps/0", "delete")} else "fail"
            case(g, f"dejsonize.{n}", dj(p), exp, names=[f"j_{n}.json"])
        for name, text in json_structural(js):
            p = W(f"c/js_{name}.json", text)
            case(g, f"dejsonize.{name}", dj(p), names=[f"js_{name}.json"])
        for n, mod in [("self_dep", lambda d: d["nodes"][1].__setitem__("data_deps", [1])),
                       ("dangling_dep", lambda d: d["nodes"][1].__setitem__("data_deps", [999999])),
                       ("cycle", lambda d: d["nodes"][0].__setitem__("data_deps", [len(d["nodes"]) - 1])),
                       ("dup_ids", lambda d: d["nodes"][1].__setitem__("id", d["nodes"][0]["id"])),
                       ("ctrl_cycle", lambda d: (d["nodes"][0].__setitem__("ctrl_deps", [1]),
                                                 d["nodes"][1].__setitem__("ctrl_deps", [0])))]:
            d = json.loads(json.dumps(js))
            mod(d)
            p = W(f"c/g_{n}.json", dumps(d))
            # a data dependency on a node not in the file is rejected; the rest is the feeder's to judge
            case(g, f"dejsonize.{n}", dj(p), "fail" if n == "dangling_dep" else "any", names=[f"g_{n}.json"])
            # an ET with that graph, for stats and visualize
            etp = os.path.join(IN, f"c/g_{n}.et")
            r = subprocess.run([SGAI, "chakra", "dejsonize", os.path.join(IN, f"c/g_{n}.json"), "--out", etp],
                               capture_output=True)
            if r.returncode == 0:
                case(g, f"stats.{n}", ["chakra", "stats", "{in}/c/" + f"g_{n}.et"], "fail" if n in ("cycle", "ctrl_cycle", "dangling_dep", "self_dep", "dup_ids") else "any",
                     names=[f"g_{n}.et"])
                case(g, f"visualize.{n}", ["chakra", "visualize", "{in}/c/" + f"g_{n}.et", "--out", "{o}/v.dot"], "any")
        case(g, "dejsonize.out_is_input", dj("{s}/a.json", "{s}/a.json"), setup=[["copy", jpath, "a.json"]])
        case(g, "dejsonize.out_folder", dj(jpath, "{o}"))
        case(g, "dejsonize.out_proc", dj(jpath, "/proc/sgai-hostile.et"))
    # stats options
    cs = lambda *a: ["chakra", "stats", *a]
    case(g, "stats.valid", cs(et_path), "ok")
    for v in ["0", "-1", "abc", "1e999", "4194305", ""]:
        case(g, f"stats.window={v or 'empty'}", cs(et_path, "--window", v), rc=2, names=["--window"])
    case(g, "stats.deps_bogus", cs(et_path, "--deps", "bogus"), rc=2)
    case(g, "stats.json_is_input", cs("{s}/a.et", "--json", "{s}/a.et"), setup=[["copy", et_path, "a.et"]])
    case(g, "stats.json_folder", cs(et_path, "--json", "{o}"))
    case(g, "stats.json_proc", cs(et_path, "--json", "/proc/sgai-hostile.json"))
    case(g, "stats.log_is_input", cs("{s}/a.et", "--replay-log", "{s}/a.et"), setup=[["copy", et_path, "a.et"]])
    case(g, "stats.json_eq_log", cs(et_path, "--json", "{o}/same", "--replay-log", "{o}/same"), "any")
    case(g, "stats.prefix_missing", cs("{in}/c/nothing"))
    case(g, "stats.empty_folder", cs("{s}/e"), setup=[["dir", "e"]])
    case(g, "stats.folder_of_junk", cs("{s}/j"), setup=[["dir", "j"], ["file", "j/a.0.et", "junk"], ["file", "j/a.1.et", ""]])
    case(g, "stats.no_input", ["chakra", "stats"], rc=2)
    # visualize options
    vz = lambda *a: ["chakra", "visualize", et_path, *a]
    case(g, "visualize.valid", vz("--out", "{o}/v.dot"), "ok")
    case(g, "visualize.ext_bogus", vz("--out", "{o}/v.bogus"), rc=2)
    case(g, "visualize.format_bogus", vz("--out", "{o}/v.dot", "--format", "gif"), rc=2)
    for v in ["0", "-1", "abc", "100001", "1e999"]:
        case(g, f"visualize.max_nodes={v}", vz("--out", "{o}/v.dot", "--max-nodes", v), rc=2, names=["--max-nodes"])
    for v in ["5:1", "abc", "1:2:3", "-1:5", "99999999999999999999999:"]:
        case(g, f"visualize.ids={v}", vz("--out", "{o}/v.dot", "--ids", v), rc=2, names=["--ids"])
    case(g, "visualize.type_bogus", vz("--out", "{o}/v.dot", "--type", "BOGUS_NODE"), rc=2)
    case(g, "visualize.name_nomatch", vz("--out", "{o}/v.dot", "--name", "zzzz"), "any")
    case(g, "visualize.out_is_input", ["chakra", "visualize", "{s}/a.et", "--out", "{s}/a.et", "--format", "dot"],
         setup=[["copy", et_path, "a.et"]])
    case(g, "visualize.out_proc", vz("--out", "/proc/sgai-hostile.dot"))
    # timeline
    tl = lambda p, out="{o}/t.json": ["chakra", "timeline", p, "--out", out]
    if os.path.exists(os.path.join(IN, "c/log.csv")):
        log = read(os.path.join(IN, "c/log.csv"))
        case(g, "timeline.valid", tl("{in}/c/log.csv"), "ok")
        lines = log.decode().split("\n")
        for name, data in byte_mutations(log)[:11]:
            p = W(f"c/l_{name}.csv", data)
            case(g, f"timeline.bytes_{name}", tl(p), "any" if name in ("trunc_half", "trunc_last", "doubled", "long_line",
                                                                     "blank", "empty") else "fail", names=[f"l_{name}.csv"])
        row = lines[1].split(",")
        for i in range(len(row)):
            for v in ["abc", "-1", "nan", "1e999", "", "9" * 30]:
                r = list(row)
                r[i] = v
                p = W(f"c/lf_{i}_{v or 'empty'}.csv", "\n".join([lines[0], ",".join(r)] + lines[2:]))
                exp = "any" if i >= 4 or (v == "-1" and i != 3) else "fail"
                case(g, f"timeline.field{i}={v or 'empty'}", tl(p), exp, names=[f"lf_{i}_{v or 'empty'}.csv"])
        p = W("c/l_header_only.csv", lines[0] + "\n")
        case(g, "timeline.header_only", tl(p), "any")
        p = W("c/l_bad_header.csv", "a,b,c\n" + "\n".join(lines[1:]))
        case(g, "timeline.bad_header", tl(p), names=["l_bad_header.csv"])
        p = W("c/l_few_cols.csv", "\n".join([lines[0]] + [",".join(l.split(",")[:3]) for l in lines[1:] if l]))
        case(g, "timeline.few_columns", tl(p), names=["l_few_cols.csv"])
        p = W("c/l_quotes.csv", "\n".join([lines[0]] + [l + ',"unterminated' for l in lines[1:] if l]))
        case(g, "timeline.extra_quote", tl(p), "any")
        p = W("c/l_end_before_issue.csv", "\n".join([lines[0], "0,5,callback,10,COMP_NODE,x", "0,5,issue,20,COMP_NODE,x"]))
        case(g, "timeline.end_before_issue", tl(p), "any")
        case(g, "timeline.out_is_input", tl("{s}/l.csv", "{s}/l.csv"), setup=[["copy", "{in}/c/log.csv", "l.csv"]])
        case(g, "timeline.out_folder", tl("{in}/c/log.csv", "{o}"))
    # convert (PyTorch ET)
    cv = lambda p, *a: ["chakra", "convert", p, "--out", "{o}/c.0.et", *a]
    if HAVE_SHARED:
        pet = json.loads(read(f"{SHARED}/pytorch-et/mlcommons-1.0.2-chakra.0.0.4.json"))
        pet_path = W("c/pet.json", dumps(pet))
        case(g, "convert.valid", cv(pet_path), "any")  # Chakra's own JSON flavour: refused ('parent')
        ptrs = ["/schema", "/nodes", "/nodes/0", "/nodes/0/id", "/nodes/0/name", "/nodes/0/ctrl_deps", "/nodes/0/inputs",
                "/nodes/0/attrs", "/nodes/1/id", "/nodes/1/ctrl_deps", "/nodes/3/inputs/values", "/nodes/3/outputs/shapes"]
        for ptr, v, text in json_mutations(pet, ptrs, ["delete", "str", "neg", "huge", "nan", "obj", "arr", "null"]):
            n = f"{ptr_name(ptr)}.{v}"
            p = W(f"c/p_{n}.json", text)
            case(g, f"convert.{n}", cv(p), "any", names=[f"p_{n}.json"])
        for name, text in json_structural(pet):
            p = W(f"c/ps_{name}.json", text)
            case(g, f"convert.{name}", cv(p), "fail" if name not in ("unknown_top_key", "duplicate_top_key") else "any",
                 names=[f"ps_{name}.json"])
        for name, data in byte_mutations(read(f"{SHARED}/pytorch-et/mlcommons-1.0.2-chakra.0.0.4.json"))[:11]:
            if name == "gzipped":
                continue
            p = W(f"c/pb_{name}.json", data)
            case(g, f"convert.bytes_{name}", cv(p), names=[f"pb_{name}.json"])
        p = W("c/pb.json.gz", GZ_GARBAGE)
        case(g, "convert.gz_garbage", cv(p), names=["pb.json.gz"])
        case(g, "convert.kineto_missing", cv(pet_path, "--kineto", "{s}/none.json"))
        case(g, "convert.kineto_garbage", cv(pet_path, "--kineto", W("c/k_garbage.json", GARBAGE)))
        case(g, "convert.kineto_empty", cv(pet_path, "--kineto", W("c/k_empty.json", "{}")), "any")
        case(g, "convert.kineto_events_str", cv(pet_path, "--kineto", W("c/k_str.json", '{"traceEvents": "x"}')))
        case(g, "convert.kineto_bad_event", cv(pet_path, "--kineto", W("c/k_ev.json", '{"traceEvents": [{"ph": "X", "ts": "abc", "dur": -1}]}')),
             "any")
        case(g, "convert.out_is_input", ["chakra", "convert", "{s}/p.json", "--out", "{s}/p.json"], setup=[["copy", pet_path, "p.json"]])
        case(g, "convert.out_proc", ["chakra", "convert", pet_path, "--out", "/proc/sgai-hostile.0.et"])
    # generate
    gm = lambda *a: ["chakra", "generate", "microbenchmark", "--out", "{o}/m", *a]
    gt = lambda *a: ["chakra", "generate", "training", "--out", "{o}/t", *a]
    gd = lambda *a: ["chakra", "generate", "dag", "--out", "{o}/d.et", *a]
    case(g, "gen_micro.valid", gm(), "ok")
    for opt, vals in [("--ranks", ["0", "-1", "abc", "65537", "1e999"]), ("--size", ["0", "-1", "abc", "2TiB", "1.5B", "nan"]),
                      ("--collective", ["bogus", ""]), ("--prefix", ["", "../evil", "/abs", "a/b", "..", "."])]:
        for v in vals:
            case(g, f"gen_micro{opt}={v or 'empty'}", gm(opt, v), "fail", names=[opt])
    for opt, vals in [("--layers", ["0", "-1", "4097", "abc"]), ("--hidden", ["0", "65537"]), ("--seq", ["0", "1048577"]),
                      ("--batch", ["0", "abc"]), ("--bytes", ["0", "17", "3"]), ("--dp", ["0", "-1", "65537"]),
                      ("--tp", ["0", "abc"]), ("--pp", ["0", "99"]), ("--microbatches", ["0", "65537"]),
                      ("--bucket", ["0", "abc", "2TiB"]), ("--prefix", ["", "../x"])]:
        for v in vals:
            case(g, f"gen_train{opt}={v or 'empty'}", gt(opt, v), "fail", names=[opt])
    # 65,536 ranks of 128 layers: 2,932,736 nodes, above the 2,000,000 sgai builds (with 64 layers,
    # 1,622,016 nodes: within the bound, a valid command)
    case(g, "gen_train.too_many_nodes", gt("--dp", "256", "--tp", "16", "--pp", "16", "--layers", "128"), "fail",
         names=["2,000,000"])
    case(g, "gen_train.flops_huge", gt("--hidden", "65536", "--seq", "1048576", "--batch", "65536"), "fail")
    for opt, vals in [("--nodes", ["0", "-1", "100000001", "abc"]), ("--width", ["0", "1048577"]), ("--seed", ["-1", "x"])]:
        for v in vals:
            case(g, f"gen_dag{opt}={v}", gd(opt, v), rc=2, names=[opt])
    case(g, "gen_dag.out_folder", ["chakra", "generate", "dag", "--out", "{o}"], "fail")
    case(g, "gen_micro.out_file", gm(), setup=[["file", "out/m", "x"]])
    case(g, "gen_micro.out_proc", ["chakra", "generate", "microbenchmark", "--out", "/proc/sgai-hostile"])
    case(g, "gen.no_sub", ["chakra", "generate"], "any")
    case(g, "gen.bogus_sub", ["chakra", "generate", "bogus", "--out", "{o}/x"], rc=2)
    # synth
    sy = lambda *a: ["chakra", "synth", *a]
    gpt = f"{REPO}/workloads/chakra/gpt-dp8/gpt"
    case(g, "synth.valid", sy(gpt, "--out", "{o}/s", "--ranks", "4"), "ok")
    for opt, vals in [("--ranks", ["0", "-1", "65537", "abc"]), ("--group-size", ["3", "-1", "65537"]),
                      ("--max-components", ["0", "17"]), ("--order", ["2", "-1"]), ("--seed", ["-1", "abc"]),
                      ("--prefix", ["", "../x", "/abs"])]:
        for v in vals:
            case(g, f"synth{opt}={v or 'empty'}", sy(gpt, "--out", "{o}/s", opt, v), "fail", names=[opt])
    case(g, "synth.no_input", sy("--out", "{o}/s"), rc=2)
    case(g, "synth.input_and_model", sy(gpt, "--model", "{in}/c/gpt.json", "--out", "{o}/s"), rc=2)
    case(g, "synth.model_missing", sy("--model", "{s}/none.model.json", "--out", "{o}/s"))
    case(g, "synth.model_garbage", sy("--model", W("c/m_garbage.model.json", GARBAGE), "--out", "{o}/s"),
         names=["m_garbage.model.json"])
    case(g, "synth.model_not_model", sy("--model", "{in}/c/gpt.json", "--out", "{o}/s"), names=["gpt.json"])
    for n, text in [("empty_obj", "{}"), ("arr", "[]"), ("nan", '{"version": NaN}')]:
        case(g, f"synth.model_{n}", sy("--model", W(f"c/m_{n}.model.json", text), "--out", "{o}/s"), names=[f"m_{n}.model.json"])
    if SGAI:
        r = subprocess.run([SGAI, "chakra", "synth", gpt, "--out", os.path.join(IN, "c/synth"), "--ranks", "2"],
                           capture_output=True)
        models = [f for f in os.listdir(os.path.join(IN, "c/synth")) if f.endswith(".model.json")] if r.returncode == 0 else []
        if models:
            model = json.loads(read(os.path.join(IN, "c/synth", models[0])))
            mpath = W("c/model.json", dumps(model))
            case(g, "synth.model_valid", sy("--model", mpath, "--out", "{o}/s"), "ok")

            def leaves(o, ptr=""):
                if isinstance(o, dict):
                    for k, v in o.items():
                        yield from leaves(v, f"{ptr}/{k}")
                elif isinstance(o, list) and o:
                    yield ptr
                    yield from leaves(o[0], f"{ptr}/0")
                else:
                    yield ptr
            lv = [p for p in leaves(model) if p][:24]
            for ptr, v, text in json_mutations(model, lv, ["delete", "str", "neg", "nan", "huge"]):
                n = f"{ptr_name(ptr)}.{v}"[:60]
                p = W(f"c/mm_{n}.json", text)
                case(g, f"synth.model.{n}", sy("--model", p, "--out", "{o}/s"), "any", names=[f"mm_{n}.json"])
    for name in ["e_garbage", "e_empty", "e_trunc_half"]:
        case(g, f"synth.input_{name}", sy("{in}/c/" + name + ".et", "--out", "{o}/s"), names=[name + ".et"])
    case(g, "synth.out_file", sy(gpt, "--out", "{o}/f"), setup=[["file", "out/f", "x"]])
    case(g, "chakra.bogus_sub", ["chakra", "bogus"], rc=2)


# ---- replay ------------------------------------------------------------------------------------

def gen_replay():
    g = "replay"
    A = f"{FIX}/astra"
    sysj = {"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
            "preferred-dataset-splits": 4, "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"],
            "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["ring"],
            "collective-optimization": "localBWAware", "local-mem-bw": 50, "boost-mode": 0}
    net = "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50.0 ]  # GB/s\nlatency: [ 500.0 ]  # ns\n"
    sys_path = W("r/system.json", dumps(sysj))
    net_path = W("r/network.yml", net)
    wl = f"{REPO}/workloads/chakra/gpt-dp8/gpt"
    groups = f"{REPO}/workloads/chakra/gpt-dp8/gpt.groups.json"
    rp = lambda *a, w=wl, s=sys_path, n=net_path: ["replay", "--workload", w, "--system", s, "--network", n,
                                                   "--out", "{o}/r", *a]
    case(g, "valid", rp(), "ok")
    case(g, "valid_groups", rp("--comm-group", groups), "any")
    for f in sorted(os.listdir(A)):
        if f.endswith(".json"):
            case(g, f"fixture.{f}", rp(s=f"{A}/{f}") if "groups" not in f else rp("--comm-group", f"{A}/{f}"), names=[f])
        else:
            case(g, f"fixture.{f}", rp(n=f"{A}/{f}"), names=[f])
    for ptr, v, text in json_mutations(sysj, ["/scheduling-policy", "/endpoint-delay", "/active-chunks-per-dimension",
                                              "/preferred-dataset-splits", "/all-reduce-implementation",
                                              "/all-reduce-implementation/0", "/collective-optimization", "/local-mem-bw",
                                              "/boost-mode"],
                                       ["delete", "str", "neg", "zero", "huge", "nan", "obj"]):
        n = f"{ptr_name(ptr)}.{v}"
        p = W(f"r/s_{n}.json", text)
        exp = "any" if v == "delete" or (v == "zero" and ptr in ("/endpoint-delay", "/boost-mode")) else "fail"
        case(g, f"system.{n}", rp(s=p), exp, names=[f"s_{n}.json"])
    for name, text in json_structural(sysj):
        p = W(f"r/ss_{name}.json", text)
        case(g, f"system.{name}", rp(s=p), names=[f"ss_{name}.json"])
    for name, data in byte_mutations(net.encode())[:11]:
        p = W(f"r/n_{name}.yml", data)
        case(g, f"network.bytes_{name}", rp(n=p), "any" if name in ("crlf", "doubled", "trunc_last") else "fail",
             names=[f"n_{name}.yml"])
    for n, text in [("npus_zero", net.replace("[ 8 ]", "[ 0 ]")), ("npus_neg", net.replace("[ 8 ]", "[ -8 ]")),
                    ("npus_huge", net.replace("[ 8 ]", "[ 99999999999 ]")), ("npus_abc", net.replace("[ 8 ]", "[ abc ]")),
                    ("npus_4", net.replace("[ 8 ]", "[ 4 ]")), ("bw_zero", net.replace("50.0", "0")),
                    ("bw_neg", net.replace("50.0", "-50")), ("bw_nan", net.replace("50.0", ".nan")),
                    ("bw_inf", net.replace("50.0", ".inf")), ("bw_huge", net.replace("50.0", "1e308")),
                    ("lat_neg", net.replace("500.0", "-1")), ("lat_nan", net.replace("500.0", ".nan")),
                    ("topo_bogus", net.replace("Ring", "Moebius")), ("dims_mismatch", net.replace("[ 8 ]", "[ 8, 2 ]")),
                    ("not_a_list", net.replace("[ Ring ]", "Ring")), ("dup_key", net + "npus_count: [ 4 ]\n"),
                    ("unknown_key", net + "bogus: 1\n"), ("anchors", "a: &x [1]\nb: *x\n" + net),
                    ("billion_laughs", "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                     "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                     "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" + net),
                    # YAML forbids tabs in indentation (yaml-cpp reads this one); a tab before a comment is fine
                    ("tabs", "topology:\n\t[ Ring ]\n" + net.split("\n", 1)[1]), ("tabs_inline", net.replace("  ", "\t")),
                    ("deep", "a: " + "[" * 20000 + "]" * 20000 + "\n" + net),
                    ("dims_many", "topology: [" + ",".join(["Ring"] * 64) + "]\nnpus_count: [" + ",".join(["2"] * 64)
                     + "]\nbandwidth: [" + ",".join(["1"] * 64) + "]\nlatency: [" + ",".join(["1"] * 64) + "]\n")]:
        p = W(f"r/nm_{n}.yml", text)
        exp = "any" if n in ("npus_4", "anchors", "bw_huge", "lat_neg", "tabs_inline") else "fail"
        case(g, f"network.{n}", rp(n=p), exp, names=[f"nm_{n}.yml"])
    for cmdname, mk in [("system", lambda p: rp(s=p)), ("network", lambda p: rp(n=p)),
                        ("workload", lambda p: rp(w=p)), ("commgroup", lambda p: rp("--comm-group", p))]:
        path_variants(g, cmdname, mk)
    # comm groups
    for n, text in [("garbage", GARBAGE), ("arr", "[]"), ("str_ids", '{"0": ["a", "b"]}'), ("huge_id", '{"0": [0, 99999999999]}'),
                    ("nan", '{"0": [NaN]}'), ("nested", '{"0": [[0, 1]]}'), ("empty_obj", "{}"), ("key_neg", '{"-1": [0, 1]}')]:
        p = W(f"r/cg_{n}.json", text)
        case(g, f"commgroup.{n}", rp("--comm-group", p), "any" if n in ("empty_obj",) else "fail", names=[f"cg_{n}.json"])
    # workloads
    if HAVE_SHARED:
        case(g, "workload.other_npus", rp(w=f"{SHARED}/astra-sim/examples/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce",
                                          n=W("r/n4.yml", net.replace("[ 8 ]", "[ 4 ]"))))
    case(g, "workload.garbage_ranks", rp(w="{s}/j/a"), setup=[["dir", "j"]] + [["file", f"j/a.{i}.et", "junk"] for i in range(8)])
    case(g, "workload.empty_ranks", rp(w="{s}/j/a"), setup=[["dir", "j"]] + [["file", f"j/a.{i}.et", ""] for i in range(8)])
    case(g, "workload.gap_ranks", rp(w="{s}/j/gpt"),
         setup=[["dir", "j"]] + [["copy", f"{wl}.{i}.et", f"j/gpt.{i}.et"] for i in (0, 1, 2, 3, 5, 6, 7)])
    case(g, "workload.two_on_8", rp("--workload", wl), "any")
    for v in ["0-8", "abc", "-1", "0,0,1,2,3,4,5,6", "7-0", "0-99999999999", "", "0-3 4-7 8-11"]:
        case(g, f"npus={v or 'empty'}", rp("--npus", v), names=["--npus"])
    for opt, vals in [("--peak-tflops", ["-1", "abc", "nan", "1e999"]), ("--gpu-idle-w", ["-1", "inf"]),
                      ("--gpu-busy-w", ["-5", "1e7"]), ("--link-idle-w", ["nan"]), ("--link-busy-w", ["-1"]),
                      ("--pstate", ["3", "-1", "abc"]), ("--deps", ["bogus", ""])]:
        for v in vals:
            case(g, f"opt{opt}={v or 'empty'}", rp(opt, v), rc=2, names=[opt])
    case(g, "opt.idle_above_busy", rp("--gpu-idle-w", "800", "--gpu-busy-w", "100"), "any")
    case(g, "opt.cfg_bogus", rp("--cfg=bogus"), rc=2)
    case(g, "opt.log_junk", rp("--log=junk"), rc=2)
    case(g, "out.file", rp(), setup=[["file", "out/r", "x"]])
    case(g, "out.proc", ["replay", "--workload", wl, "--system", sys_path, "--network", net_path, "--out", "/proc/sgai-hostile"])
    case(g, "out.empty", ["replay", "--workload", wl, "--system", sys_path, "--network", net_path, "--out", ""], rc=2)
    case(g, "out.is_system", ["replay", "--workload", wl, "--system", "{s}/s.json", "--network", net_path, "--out", "{s}/s.json"],
         setup=[["copy", sys_path, "s.json"]])
    case(g, "out.readonly", ["replay", "--workload", wl, "--system", sys_path, "--network", net_path, "--out", "{o}/ro/r"],
         setup=[["dir", "out/ro"], ["chmod", "out/ro", 0o555]])
    case(g, "missing_system", ["replay", "--workload", wl, "--network", net_path, "--out", "{o}/r"], rc=2)


# ---- run ---------------------------------------------------------------------------------------

def gen_run():
    g = "run"
    W("e/platforms/tiny_types.json", read(f"{FIX}/platforms/tiny_types.json"))
    W("e/platforms/tiny_flat.json", read(f"{FIX}/platforms/tiny_flat.json"))
    W("e/workloads/tiny.json", read(f"{FIX}/workloads/tiny.json"))
    exp = json.loads(read(f"{FIX}/experiments/tiny_batch.json"))
    exp_path = W("e/x/tiny_batch.json", dumps(exp))
    rn = lambda p, *a: ["run", p, "--out", "{o}/e", *a]
    case(g, "valid", rn(exp_path), "ok")
    ptrs = ["/sgai_experiment", "/name", "/description", "/platform", "/platform/file", "/components", "/components/0",
            "/components/0/type", "/components/0/options", "/components/0/options/workload",
            "/components/0/options/max_resources", "/components/0/options/jobs"]
    vals = ["delete", "null", "str", "neg", "zero", "huge", "nan", "obj", "arr", "bigstr", "uni"]
    for ptr, v, text in json_mutations(exp, ptrs, vals):
        if ptr == "/name" and v in ("uni", "bigstr", "str"):
            continue  # names: hardening_test.sh's name_escapes
        n = f"{ptr_name(ptr)}.{v}"
        p = W(f"e/x/m_{n}.json", text)
        ok = {("/description", "null"), ("/components/0/options/max_resources", "null"),
              ("/components/0/options/jobs", "null"), ("/description", "delete"), ("/description", "str"), ("/description", "bigstr"), ("/description", "uni"),
              ("/name", "delete"), ("/components/0/options/max_resources", "zero"),
              ("/components/0/options/max_resources", "delete"), ("/components/0/options/jobs", "delete")}
        case(g, f"exp.{n}", rn(p), "any" if (ptr, v) in ok else "fail", names=[f"m_{n}.json"])
    for name, text in json_structural(exp):
        p = W(f"e/x/s_{name}.json", text)
        case(g, f"exp.{name}", rn(p), names=[f"s_{name}.json"])
    for name, data in byte_mutations(read(f"{FIX}/experiments/tiny_batch.json"))[:11]:
        p = W(f"e/x/b_{name}.json", data)
        case(g, f"exp.bytes_{name}", rn(p), names=[f"b_{name}.json"])
    for n, e in [("platform_abs", mutate(exp, "/platform/file", "/etc/passwd")),
                 ("platform_dir", mutate(exp, "/platform/file", "..")),
                 ("workload_dir", mutate(exp, "/components/0/options/workload", "..")),
                 ("workload_devnull", mutate(exp, "/components/0/options/workload", "/dev/null")),
                 ("unknown_component", mutate(exp, "/components/0/type", "bogus")),
                 ("component_unknown_opt", mutate(exp, "/components/0/options/bogus", 1)),
                 ("component_name_slash", mutate(exp, "/components/0/name", "../../escape")),
                 ("component_name_dot", mutate(exp, "/components/0/name", ".")),
                 ("component_name_empty", mutate(exp, "/components/0/name", "")),
                 ("max_res_above", mutate(exp, "/components/0/options/max_resources", 11)),
                 ("jobs_policy_bogus", mutate(exp, "/components/0/options/jobs", "bogus")),
                 ("backfill_bogus", mutate(exp, "/components/0/options/backfill", "bogus")),
                 ("resources_bogus", mutate(exp, "/components/0/options/resources", "bogus")),
                 ("seed_neg", {**exp, "seed": -1}), ("seed_str", {**exp, "seed": "1"}), ("seed_huge", {**exp, "seed": 1e300}),
                 ("seed_frac", {**exp, "seed": 1.5}),
                 ("output_abs", {**exp, "output": "/tmp/sgai-hostile-out"}),
                 ("output_dotdot", {**exp, "output": "../../../sgai-hostile-out"}),
                 ("cfg_bogus", {**exp, "simgrid": {"cfg": ["bogus"]}}),
                 ("cfg_help", {**exp, "simgrid": {"cfg": ["help"]}}),
                 ("cfg_not_list", {**exp, "simgrid": {"cfg": "network/model:CM02"}}),
                 ("simgrid_unknown", {**exp, "simgrid": {"bogus": 1}}),
                 ("log_junk", {**exp, "simgrid": {"log": ["junk"]}}),
                 ("no_components", {**exp, "components": []}),
                 ("many_components", {**exp, "components": exp["components"] * 40}),
                 ("replay_empty_opts", {**exp, "components": [{"type": "replay", "options": {}}]}),
                 ("replay_bad_workload", {**exp, "components": [{"type": "replay", "options": {
                     "workloads": ["/nonexistent/x"], "system": "../../r/system.json"}}]}),
                 ("jobs_component", {**exp, "components": [{"type": "jobs", "options": {}}]}),
                 ("jobs_component_bad", {**exp, "components": [{"type": "jobs", "options": {"jobs": "x"}}]}),
                 ("xml_platform_bad", mutate(exp, "/platform/file", "../platforms/bad.xml"))]:
        p = W(f"e/x/x_{n}.json", dumps(e))
        exp_rc = "any" if n in ("component_name_slash", "output_abs", "output_dotdot", "many_components") else "fail"
        case(g, f"exp.{n}", rn(p), exp_rc, names=[f"x_{n}.json"])
    W("e/platforms/bad.xml", read(f"{FIX}/golden/tiny_flat.xml")[:200])
    case(g, "opt.seed_neg", rn(exp_path, "--seed", "-1"), rc=2, names=["--seed"])
    case(g, "opt.seed_abc", rn(exp_path, "--seed", "abc"), rc=2, names=["--seed"])
    case(g, "opt.out_empty", ["run", exp_path, "--out", ""], rc=2)
    case(g, "opt.out_file", rn(exp_path), setup=[["file", "out/e", "x"]])
    case(g, "opt.out_proc", ["run", exp_path, "--out", "/proc/sgai-hostile"])
    case(g, "opt.out_is_input", ["run", "{s}/e.json", "--out", "{s}/e.json"], setup=[["copy", exp_path, "e.json"]])
    case(g, "opt.out_readonly", ["run", exp_path, "--out", "{o}/ro/e"], setup=[["dir", "out/ro"], ["chmod", "out/ro", 0o555]])
    case(g, "opt.cfg_bogus", rn(exp_path, "--cfg=bogus"), rc=2)
    case(g, "opt.cfg_empty", rn(exp_path, "--cfg="), rc=2)
    case(g, "opt.log_junk", rn(exp_path, "--log=junk"), rc=2)
    case(g, "opt.two_files", ["run", exp_path, exp_path, "--out", "{o}/e"], rc=2)
    path_variants(g, "path", lambda p: rn(p))
    # top-level usage
    case(g, "top.bogus", ["bogus"], rc=2)
    case(g, "top.empty", [""], rc=2)
    case(g, "top.dashdash", ["--"], "any")
    case(g, "top.cfg_only", ["--cfg=bogus"], rc=2)
    case(g, "top.log_only", ["--log=junk"], rc=2)
    case(g, "top.cfg_help", ["--cfg=help"], "ok")
    case(g, "top.version_extra", ["--version", "x"], "any")
    case(g, "top.long_arg", ["platform", "inspect", "x" * 100000], "fail")
    case(g, "top.uni_arg", ["platform", "inspect", UNI.replace("\u0000", "") + ".json"], "fail")
    case(g, "top.newline_arg", ["platform", "inspect", "a\nsgai: error: fake.json"], "fail")


GEN = {"platform": gen_platform, "workload": gen_workload, "batch": gen_batch, "chakra": gen_chakra,
       "replay": gen_replay, "run": gen_run}

if __name__ == "__main__":
    if os.path.exists(IN):
        shutil.rmtree(IN)
    os.makedirs(IN)
    for grp in GROUPS:
        GEN[grp]()
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=0)
    print(f"{len(cases)} cases", file=sys.stderr)
