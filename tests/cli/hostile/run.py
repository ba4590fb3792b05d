#!/usr/bin/env python3
"""Runs the hostile-input corpus written by gen.py and checks sgai's promises on each case:

- it ends within the time limit (else: a hang) and exits 0, 1 or 2 (never 134/139 or a signal);
- exit 0 only for a case marked acceptable ("ok" or "any"); "ok" cases must exit 0; a case with an
  exact status ("rc") gets that one;
- on failure: exactly one 'sgai: error:' line on stderr, holding the case's "names" (the file or
  option), and few other lines (no pages of warnings first);
- no abort text anywhere (backtrace, xbt_assert, "The Impossible Did Happen", CRITICAL, terminate);
- nothing written outside the scratch output folder {s}/out (the scratch folder is the working
  directory, TMPDIR and HOME), nothing in /tmp named after the process, no staging folder
  (.NAME.sgai-tmp-PID) or temporary file (NAME.tmp-PID) left anywhere, and on failure the output
  folder exactly as it was before;
- the shared inputs unchanged.

Usage: run.py CORPUS KNOWN_FAILURES_FILE [--timeout S] [--jobs N] [--only GLOB]
Prints a line per failure and 'N passed, N failed (K known failures skipped)'; exit 1 on a failure.
"""
import argparse
import concurrent.futures
import fnmatch
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("corpus")
ap.add_argument("known")
ap.add_argument("--timeout", type=float, default=30)
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--only", default="*")
ap.add_argument("--verbose", action="store_true")
args = ap.parse_args()

SGAI = os.path.realpath(os.environ["SGAI"])
CORPUS = os.path.abspath(args.corpus)
IN = os.path.join(CORPUS, "inputs")
SCRATCH = os.path.join(CORPUS, "scratch")
cases = [c for c in json.load(open(os.path.join(CORPUS, "cases.json"))) if fnmatch.fnmatch(c["id"], args.only)]

known = []  # (pattern, reason)
for line in open(args.known):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    pat, _, reason = line.partition(" ")
    known.append((pat, reason.strip()))


def known_reason(cid):
    for pat, reason in known:
        if fnmatch.fnmatch(cid, pat):
            return reason
    return None


ABORT = re.compile(r"Backtrace|xbt_assert|Impossible Did Happen|CRITICAL|terminate called|Aborted|core dumped|"
                   r"Segmentation fault|AddressSanitizer|runtime error:|Assertion .* failed|Traceback \(most recent")
LEFTOVER = re.compile(r"(^|/)\..*\.sgai-tmp-\d+$|\.tmp-\d+$|(^|/)\.sgai-tmp")
INFO_LINE = re.compile(r"^\[[0-9.]+\] \[(xbt_cfg|sgai_experiment|sgai_sim|sgai|sgai_batch|sgai_replay)/INFO\]")


TMP_BEFORE = set()  # /tmp's entries before the first case


def subst(s, sdir):
    return s.replace("{in}", IN).replace("{o}", os.path.join(sdir, "out")).replace("{s}", sdir)


def snapshot(root):
    """{relative path: (kind, size, mtime_ns, mode)} of a tree (no content reads: fast)."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            kind = "d" if stat.S_ISDIR(st.st_mode) else "f"
            snap[os.path.relpath(p, root)] = (kind, st.st_size if kind == "f" else 0,
                                              st.st_mtime_ns if kind == "f" else 0, stat.S_IFMT(st.st_mode))
    return snap


def tree_hash(root):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for name in sorted(filenames):
            p = os.path.join(dirpath, name)
            h.update(os.path.relpath(p, root).encode())
            try:
                with open(p, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
            except OSError:
                h.update(b"?")
    return h.hexdigest()


def setup(c, sdir):
    os.makedirs(os.path.join(sdir, "out"))
    os.makedirs(os.path.join(sdir, "tmp"))
    os.makedirs(os.path.join(sdir, "home"))
    for op in c.get("setup", []):
        kind, rel = op[0], op[1]
        if kind == "copy":
            src, dst = subst(op[1], sdir), os.path.join(sdir, op[2])
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if os.path.isdir(src):
                shutil.copytree(src, dst)
            else:
                shutil.copyfile(src, dst)
            continue
        p = os.path.join(sdir, rel)
        if kind == "file":
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(op[2].encode("latin-1") if all(ord(ch) < 256 for ch in op[2]) else op[2].encode())
        elif kind == "dir":
            os.makedirs(p, exist_ok=True)
        elif kind == "chmod":
            os.chmod(p, op[2])
        elif kind == "mknod":  # a stand-in for /dev/null (1, 3): it must stay a device
            if os.geteuid() == 0:
                os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            else:
                open(p, "w").close()
        elif kind == "rm":
            if os.path.isdir(p):
                shutil.rmtree(p)
            elif os.path.exists(p):
                os.remove(p)
        else:
            raise ValueError(kind)


def limits():
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (2 << 30, 2 << 30))


def make_writable(root):
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            try:
                os.chmod(os.path.join(dirpath, d), 0o755)
            except OSError:
                pass
        for f in filenames:
            try:
                os.chmod(os.path.join(dirpath, f), 0o644)
            except OSError:
                pass


def run_case(c):
    sdir = os.path.join(SCRATCH, c["id"].replace("/", "_"))
    if os.geteuid() == 0 and any(op[0] == "chmod" for op in c.get("setup", [])):
        c = dict(c, expect="any")  # root writes into read-only folders: no such case for root
    if os.path.exists(sdir):
        make_writable(sdir)
        shutil.rmtree(sdir)
    setup(c, sdir)
    before = snapshot(sdir)
    argv = [SGAI] + [subst(a, sdir) for a in c["argv"]]
    env = dict(os.environ, TMPDIR=os.path.join(sdir, "tmp"), HOME=os.path.join(sdir, "home"),
               MPLCONFIGDIR=os.path.join(CORPUS, "mplconfig"), LC_ALL="C.UTF-8")
    env.pop("SGAI_HOME", None)
    t0 = time.time()
    p = subprocess.Popen(argv, cwd=sdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, preexec_fn=limits)
    try:
        out, err = p.communicate(timeout=args.timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = "timeout"
    took = time.time() - t0
    out = out.decode("utf-8", "replace")
    err = err.decode("utf-8", "replace")
    problems = []
    errlines = err.splitlines()
    elines = [l for l in errlines if l.startswith("sgai: error:")]
    if rc == "timeout":
        problems.append(f"hang: no exit after {args.timeout:.0f} s")
    elif rc < 0 or rc not in (0, 1, 2):
        problems.append(f"exit status {rc if rc >= 0 else 'signal ' + signal.Signals(-rc).name}")
    else:
        if rc == 0 and c["expect"] == "fail":
            problems.append("exit 0 on bad input")
        if rc != 0 and c["expect"] == "ok":
            problems.append(f"exit {rc} on acceptable input")
        if "rc" in c and rc != c["rc"] and not (rc == 0 and c["expect"] != "fail"):
            problems.append(f"exit {rc}, expected {c['rc']}")
        if rc != 0:
            if len(elines) != 1:
                problems.append(f"{len(elines)} 'sgai: error:' lines")
            else:
                for n in c.get("names") or []:
                    if n not in elines[0]:
                        problems.append(f"error line lacks {n!r}")
            noise = [l for l in errlines if not l.startswith("sgai: error:") and not INFO_LINE.match(l)]
            if len(noise) > 2:
                problems.append(f"{len(noise)} other lines on stderr before/after the error")
    m = ABORT.search(err) or ABORT.search(out)
    if m:
        problems.append(f"abort text {m.group(0)!r}")
    after = snapshot(sdir)
    od = c.get("out", "out")  # the case's output folder, relative to the scratch folder
    inside = lambda k: k == od or k.startswith(od + "/")
    new_outside = [k for k in after if k not in before and not inside(k)]
    changed_outside = [k for k in before if not inside(k) and k in after and after[k] != before[k]
                       and after[k][0] == "f"]
    if new_outside:
        problems.append("wrote outside the output folder: " + ", ".join(sorted(new_outside)[:4]))
    if changed_outside:
        problems.append("changed a file outside the output folder: " + ", ".join(sorted(changed_outside)[:4]))
    left = [k for k in after if LEFTOVER.search(k)]
    if left:
        problems.append("left behind: " + ", ".join(sorted(left)[:4]))
    if rc != 0 and rc != "timeout":
        out_before = {k: v for k, v in before.items() if inside(k)}
        out_after = {k: v for k, v in after.items() if inside(k)}
        if out_before != out_after:
            diff = sorted(set(out_after) ^ set(out_before)) or sorted(k for k in out_after if out_after[k] != out_before.get(k))
            problems.append("output folder changed on failure: " + ", ".join(diff[:4]))
    # /tmp: nothing named after the process, nothing named as the corpus' absolute-path cases
    # (only entries that were not there before the corpus ran: a stale file of an earlier run whose
    # name holds this process's number by chance is not this case's)
    try:
        tmp_new = [n for n in os.listdir("/tmp") if n not in TMP_BEFORE and
                   ((str(p.pid) in n and "sgai" in n) or n.startswith("sgai-hostile"))]
    except OSError:
        tmp_new = []
    if tmp_new:
        problems.append("wrote in /tmp: " + ", ".join(tmp_new[:4]))
    if not problems:
        make_writable(sdir)
        shutil.rmtree(sdir, ignore_errors=True)
    return c, rc, problems, (elines[0] if elines else (errlines[-1] if errlines else "")), took, argv


def short(argv):
    s = " ".join(a if len(a) < 80 else a[:40] + "..." for a in argv[1:])
    return s.replace(IN, "IN").replace(SCRATCH, "S")


def main():
    global TMP_BEFORE
    TMP_BEFORE = set(os.listdir("/tmp"))
    os.makedirs(SCRATCH, exist_ok=True)
    in_hash = tree_hash(IN)
    passed = failed = skipped = fixed_known = 0
    t0 = time.time()
    slow = []
    # Known hangs are not run: each would cost the whole time limit.
    hangs = [c for c in cases if (known_reason(c["id"]) or "").startswith("hang")]
    skipped = len(hangs)
    todo = [c for c in cases if c not in hangs]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for c, rc, problems, eline, took, argv in ex.map(run_case, todo):
            slow.append((took, c["id"]))
            reason = known_reason(c["id"])
            if problems and reason:
                skipped += 1
                if args.verbose:
                    print(f"known  {c['id']}: {'; '.join(problems)} [{reason}]")
            elif problems:
                failed += 1
                print(f"FAIL {c['id']}: {'; '.join(problems)}\n     sgai {short(argv)}\n     rc={rc} {eline[:300]}")
            else:
                passed += 1
                if reason:
                    fixed_known += 1
                    print(f"note: {c['id']} passes now: remove it from the known failures")
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        failed += 1
        print("FAIL: /dev/null is no longer a device (a case renamed a file over it)")
    if tree_hash(IN) != in_hash:
        failed += 1
        print("FAIL: a case changed the shared inputs")
    slow.sort(reverse=True)
    print(f"slowest: " + ", ".join(f"{i} {t:.1f}s" for t, i in slow[:3]))
    print(f"{passed} passed, {failed} failed ({skipped} known failures skipped, {len(hangs)} of them known hangs "
          f"not run; {time.time() - t0:.0f} s)")
    return 1 if failed else 0


sys.exit(main())
