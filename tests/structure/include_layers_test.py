#!/usr/bin/env python3
"""Checks the floors of docs/ARCHITECTURE.md ("Layers"): a source file
includes project headers only from its own folder and the folders its floor
may use. Prints each include that breaks the rule and exits 1.

Usage: include_layers_test.py SOURCE_DIR
"""
import pathlib
import re
import sys

# What each folder may include besides itself; "zcrawl.pb.h" counts as proto.
ALLOWED = {
    "proto": set(),
    "common": {"proto"},
    "net": {"proto", "common"},
    "warc": {"proto", "common"},
    "frontier": {"proto", "common", "net"},
    "fetcher": {"proto", "common", "net", "warc"},
    "writer": {"proto", "common", "net", "warc"},
    "launcher": {"proto", "common", "net", "warc", "frontier", "fetcher", "writer"},
    "tools": {"proto", "common", "net", "warc", "frontier", "fetcher", "writer"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def folder_of(header):
    if header == "zcrawl.pb.h":
        return "proto"
    return header.split("/", 1)[0] if "/" in header else None


def main():
    root = pathlib.Path(sys.argv[1])
    broken = []
    checked = 0
    for folder, allowed in ALLOWED.items():
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".h", ".cc"):
                continue
            checked += 1
            for header in INCLUDE.findall(path.read_text(errors="replace")):
                used = folder_of(header)
                if used is None or used == folder or used in allowed:
                    continue
                broken.append(f"{path.relative_to(root)}: includes {header} ({folder}/ may use "
                              f"{', '.join(sorted(allowed)) or 'nothing'})")
    if checked == 0:
        print(f"no sources under {root}")
        return 1
    for line in broken:
        print(line)
    print(f"{checked} files checked, {len(broken)} includes across floors")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
