#!/usr/bin/env python3
"""Checks that source files stay small (STYLE.md, "One concept per file"):
no .h or .cc file under the source folders runs over MAX_LINES lines unless
one of its first MARKER_LINES lines is a comment that says why, the reason
starting on that line after the marker:

    // RobotsRules tests. Over 500 lines on purpose: one table of rules and
    // paths per concern, all over one small API.

A file past the limit usually holds a second concept; the marker is for
those that do not (a test listing many cases, one state machine). Prints
each file over the limit without a reason and exits 1.

Usage: file_length_test.py SOURCE_DIR
"""
import pathlib
import re
import sys

MAX_LINES = 500
MARKER_LINES = 5
FOLDERS = ["common", "fetcher", "frontier", "writer", "launcher", "net", "warc", "tools", "tests",
           "bench", "fuzz"]
# "// ... Over 500 lines on purpose: <reason>", the reason not empty.
MARKER = re.compile(r"^\s*//.*\bover 500 lines on purpose:\s*\S", re.IGNORECASE)



def main():
    root = pathlib.Path(sys.argv[1])
    problems = []
    checked = 0
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".h", ".cc") or not path.is_file():
                continue
            checked += 1
            name = path.relative_to(root).as_posix()
            lines = path.read_text(errors="replace").splitlines()
            if len(lines) <= MAX_LINES or any(MARKER.match(line) for line in lines[:MARKER_LINES]):
                continue
            problems.append(f"{name}: {len(lines)} lines (over {MAX_LINES}) and no 'Over 500 lines on "
                            f"purpose:' reason in its first {MARKER_LINES}")
    if checked == 0:
        print(f"no sources under {root}")
        return 1
    for line in problems:
        print(line)
    print(f"{checked} files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
