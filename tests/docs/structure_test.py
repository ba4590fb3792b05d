"""The source tree's structure, as docs/architecture.md states it:
  includes   every #include "..." of sgai's own code names a file at that path in the repository
             (or, in tests/ and examples/, beside the including file); the one generated header
             allowed is sgai/version.hpp (and the protobuf classes chakra compiles)
  layers     no include from a layer to a higher one (cmake/layers.txt lists the layers)
  targets    a module's code includes only headers of its own module and of the modules it
             depends on in CMake, directly or through them (build/modules.txt: name|folder|deps)
Usage: structure_test.py REPO BUILD/modules.txt"""
import os
import re
import subprocess
import sys

repo, table = sys.argv[1], sys.argv[2]
os.chdir(repo)
files = subprocess.run(["git", "ls-files", "*.cpp", "*.hpp", "*.cpp.in"], capture_output=True, text=True,
                       check=True).stdout.split()
files = [f for f in files if os.path.exists(f)]
GENERATED = {"sgai/version.hpp", "sgai_chakra_et.pb.h"}

layers = []  # (folder, index, name)
for i, line in enumerate(l for l in open("cmake/layers.txt") if l.strip() and not l.startswith("#")):
    name, folders = line.split(":", 1)
    for folder in folders.split():
        layers.append((folder.rstrip("/"), i, name.strip()))


def longest(path, folders):
    best = None
    for entry in folders:
        folder = entry[0]
        if path == folder or path.startswith(folder + "/"):
            if best is None or len(folder) > len(best[0]):
                best = entry
    return best


modules = []  # (folder, name, deps)
deps = {}
for line in open(table):
    line = line.strip()
    if line:
        name, folder, d = line.split("|")
        deps[name] = set(x for x in d.split(",") if x)
        modules.append((folder, name))


def closure(name):
    seen, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(deps.get(n, ()))
    return seen


failures = []
include_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
count = 0
for f in files:
    text = open(f, encoding="utf-8", errors="replace").read()
    own_layer = longest(f, layers)
    own_module = longest(f, modules)
    for inc in include_re.findall(text):
        count += 1
        if inc in GENERATED:
            continue
        if os.path.isfile(inc):
            target = inc
        elif f.startswith(("tests/", "examples/")) and os.path.isfile(os.path.normpath(os.path.join(os.path.dirname(f), inc))):
            continue  # a test's or example's own helper beside it
        else:
            failures.append(f"{f}: #include \"{inc}\" names no file of the repository")
            continue
        inc_layer = longest(target, layers)
        if own_layer and inc_layer and inc_layer[1] > own_layer[1]:
            failures.append(f"{f} ({own_layer[2]}) includes {target} of a higher layer ({inc_layer[2]})")
        inc_module = longest(target, modules)
        if own_module and inc_module and inc_module[1] not in closure(own_module[1]):
            failures.append(f"{f} (sgai::{own_module[1]}) includes {target} of sgai::{inc_module[1]}, "
                            f"which it does not depend on in CMake")
for f in failures:
    print("FAIL:", f)
print("FAILED" if failures else f"ok: {count} includes in {len(files)} files: every one a file of the repository, "
      f"none to a higher layer, none to a module not depended on")
sys.exit(1 if failures else 0)
