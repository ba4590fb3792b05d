#!/usr/bin/env python3
"""Sizes of sgai's product code (docs/architecture.md, "Size"): no .cpp over 1,000 lines and no
function over 150 lines, counted from the line of its opening brace to the line of its closing
brace, comments and blank lines included, lambdas and local classes inside their function.
Product code is every tracked .cpp and .hpp outside tests/ and examples/.

The allow-list below holds at most 5 entries, each with the reason it stays.

  tools/check_size.py [REPO]            prints what is over and exits 1 if anything not allowed is
  tools/check_size.py [REPO] --all N    lists every function of N lines or more (largest first)
"""
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 150

# "path" for a file, "path:function" for a function: the reason it stays
ALLOWED = {
}

SCOPE_RE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$|extern\s+\"C\"\s*$")


def strip_code(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append(re.sub(r"[^\n]", " ", text[i:end]))
                i = end
            else:
                out.append(c)
                i += 1
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, last line) of every function body in the file."""
    code = strip_code(open(path, encoding="utf-8", errors="replace").read())
    code = re.sub(r"^\s*#.*$", "", code, flags=re.M)  # preprocessor lines
    stack = []  # (kind, name, line)
    found = []
    line = 1
    last = 0  # start of the current statement's text
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c in ";":
            last = i + 1
        elif c == "{":
            head = code[last:i]
            last = i + 1
            in_function = any(kind == "function" for kind, _, _ in stack)
            if in_function:
                stack.append(("block", "", line))
            elif SCOPE_RE.search(head.strip()) or not head.strip():
                stack.append(("scope", "", line))
            elif head.rstrip().endswith("=") or head.rstrip().endswith("]") or ")" not in head:
                stack.append(("data", "", line))
            else:
                m = re.search(r"([~\w:<>]+)\s*\([^()]*(\([^()]*\)[^()]*)*\)[^()]*$", head.strip(), re.S)
                name = m.group(1) if m else head.strip().split("(")[0].split()[-1]
                stack.append(("function", name, line))
        elif c == "}":
            last = i + 1
            if stack:
                kind, name, start = stack.pop()
                if kind == "function":
                    found.append((name, start, line))
    return found


def main():
    args = sys.argv[1:]
    repo = args.pop(0) if args and not args[0].startswith("--") else "."
    os.chdir(repo)
    list_all = None
    if args[:1] == ["--all"]:
        list_all = int(args[1])
    git = subprocess.run(["git", "ls-files", "*.cpp", "*.hpp"], capture_output=True, text=True)
    if git.returncode == 0:
        files = git.stdout.split()
    else:  # not a git checkout (an unpacked source tree): every .cpp and .hpp outside build folders
        files = [os.path.relpath(os.path.join(d, f)) for d, dirs, names in os.walk(".")
                 for f in names if f.endswith((".cpp", ".hpp"))]
        files = [f for f in files if not f.startswith(("build", ".git"))]
    files = [f for f in files if os.path.exists(f) and not f.startswith(("tests/", "examples/"))]
    over = []
    rows = []
    for f in files:
        lines = sum(1 for _ in open(f, encoding="utf-8", errors="replace"))
        if f.endswith(".cpp") and lines > MAX_FILE_LINES:
            over.append((f, f"{f}: {lines} lines (at most {MAX_FILE_LINES})"))
        for name, first, last in functions(f):
            size = last - first + 1
            rows.append((size, f, name, first))
            if size > MAX_FUNCTION_LINES:
                over.append((f"{f}:{name}", f"{f}:{first}: {name} is {size} lines (at most {MAX_FUNCTION_LINES})"))
    if list_all is not None:
        for size, f, name, first in sorted(rows, reverse=True):
            if size >= list_all:
                print(f"{size:5d}  {f}:{first}  {name}")
        return 0
    bad = [msg for key, msg in over if key not in ALLOWED]
    for key, msg in over:
        print(("allowed: " if key in ALLOWED else "FAIL: ") + msg)
    stale = [key for key in ALLOWED if key not in {k for k, _ in over}]
    for key in stale:
        print(f"FAIL: the allow-list names {key}, which is within the limits now: take it out")
    if len(ALLOWED) > 5:
        print(f"FAIL: the allow-list has {len(ALLOWED)} entries (at most 5)")
    failed = bad or stale or len(ALLOWED) > 5
    print("FAILED" if failed else f"ok: {len(files)} files, {len(rows)} functions within the limits")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
