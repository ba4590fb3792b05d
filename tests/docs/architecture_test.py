"""docs/architecture.md's module table against the CMake modules (build/modules.txt, written at
configure time by sgai_add_library: name|folder|the sgai modules it depends on). Every module has
a row `sgai::NAME` with its folder, and the sgai modules named in its "depends on" cell are exactly
its CMake dependencies (other words there, such as SimGrid or zlib, are external ones); every
`sgai::` row is a module (a row whose role says "(optional)" may be absent from a build without
its dependency).
Usage: architecture_test.py docs/architecture.md build/modules.txt"""
import re
import sys

doc, table = sys.argv[1], sys.argv[2]
modules = {}
for line in open(table):
    line = line.strip()
    if line:
        name, folder, deps = line.split("|")
        modules[name] = (folder, set(d for d in deps.split(",") if d))

rows = {}
for line in open(doc):
    m = re.match(r"^\| `sgai::([a-z_]+)` \| ([^|]+) \| ([^|]*) \| ([^|]*) \|$", line.strip())
    if m:
        rows[m.group(1)] = (m.group(2).strip(), m.group(3), m.group(4))

failures = []
for name, (folder, deps) in sorted(modules.items()):
    if name not in rows:
        failures.append(f"sgai::{name} ({folder}) has no row in {doc}")
        continue
    row_folder, row_deps, _ = rows[name]
    if row_folder != folder:
        failures.append(f"sgai::{name}: the table says folder {row_folder}, CMake {folder}")
    named = set(w for w in re.findall(r"[a-z_]+", row_deps) if w in modules)
    if named != deps:
        failures.append(f"sgai::{name}: the table names {sorted(named)} as its sgai dependencies, "
                        f"CMake has {sorted(deps)}")
for name, (_, _, role) in sorted(rows.items()):
    if name not in modules and "(optional)" not in role:
        failures.append(f"the table's sgai::{name} is no CMake module")
for f in failures:
    print("FAIL:", f)
print("FAILED" if failures else f"ok: {len(modules)} modules, each in the table as CMake has it")
sys.exit(1 if failures else 0)
