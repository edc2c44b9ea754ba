#!/usr/bin/env python3
"""clang's thread-safety analysis over the sources that take locks, in the
suite (issue 48 point 7): the GUARDED_BY / REQUIRES annotations
(common/thread_annotations.h) are checked by every `./run test`, not only by
the clang build of `./run test --clang`.

Usage: thread_safety_check.py BUILD_DIR [CLANG]

Reads BUILD_DIR/compile_commands.json (the GCC build's, CMake writes it) and
re-runs, with clang and -fsyntax-only, each translation unit that uses a lock
or an annotation, in its own text or in a project header it includes
directly, with every warning off but -Wthread-safety, which is an error.
Cheap: no code is generated. Prints one line per finding and a closing
"N passed, N failed"; exits 1 on any finding, 77 (skipped) without clang.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

LOCKING = re.compile(
    r"\b(Mutex|MutexLock|WriterPreferringRwLock|ReaderLock|WriterLock|GUARDED_BY|PT_GUARDED_BY|"
    r"REQUIRES|REQUIRES_SHARED|EXCLUDES|ACQUIRE|RELEASE|ACQUIRED_BEFORE|ACQUIRED_AFTER)\b")
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def uses_locks(path, root):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return False
    if LOCKING.search(text):
        return True
    for header in INCLUDE.findall(text):
        full = os.path.join(root, header)
        if os.path.isfile(full) and LOCKING.search(open(full, encoding="utf-8", errors="replace").read()):
            return True
    return False


def clang_command(entry, clang):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out = [clang]
    skip = False
    for arg in args[1:]:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-c"):
            skip = arg == "-o"
            continue
        if arg.startswith("-W") or arg.startswith("-O") or arg == entry["file"]:
            continue
        out.append(arg)
    return out + ["-fsyntax-only", "-Wno-everything", "-Wthread-safety", "-Werror=thread-safety", entry["file"]]


def main():
    build = sys.argv[1]
    clang = sys.argv[2] if len(sys.argv) > 2 else (shutil.which("clang++") or "")
    if not clang:
        print("thread_safety_check: no clang++ (./run test installs it)")
        return 77
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    entries = json.load(open(os.path.join(build, "compile_commands.json")))
    units = [e for e in entries if e["file"].startswith(root + os.sep) and uses_locks(e["file"], root)]
    if not units:
        print("thread_safety_check: no translation unit takes a lock; the filter is broken")
        return 1

    def check(entry):
        done = subprocess.run(clang_command(entry, clang), cwd=entry["directory"], capture_output=True, text=True)
        return entry["file"], done.returncode, done.stderr

    failed = 0
    with ThreadPoolExecutor(max_workers=int(os.environ.get("ZCRAWL_JOBS", "2"))) as pool:
        for path, code, stderr in pool.map(check, units):
            if code != 0:
                failed += 1
                print(f"FAIL {os.path.relpath(path, root)}\n{stderr}")
    print(f"thread_safety_check: {len(units) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
