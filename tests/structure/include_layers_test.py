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
    # The frontier's parts (docs/ARCHITECTURE.md, "The frontier's parts"):
    # its top folder (the settings, and main) and each part may use the
    # parts listed; other floors see the frontier as one.
    "frontier": {"proto", "common", "net", "frontier/store", "frontier/seen", "frontier/scheduler",
                 "frontier/admission", "frontier/broker", "frontier/control", "frontier/console"},
    "frontier/store": {"proto", "common", "net", "frontier"},
    "frontier/seen": {"proto", "common", "net", "frontier", "frontier/store"},
    "frontier/control": {"proto", "common", "net", "frontier"},
    "frontier/console": {"proto", "common", "net", "frontier", "frontier/control"},
    "frontier/scheduler": {"proto", "common", "net", "frontier", "frontier/store", "frontier/control"},
    "frontier/admission": {"proto", "common", "net", "frontier", "frontier/store", "frontier/seen",
                           "frontier/scheduler", "frontier/control"},
    "frontier/broker": {"proto", "common", "net", "frontier", "frontier/store", "frontier/seen",
                        "frontier/scheduler", "frontier/admission", "frontier/control", "frontier/console"},
    "fetcher": {"proto", "common", "net", "warc"},
    "writer": {"proto", "common", "net", "warc"},
    "launcher": {"proto", "common", "net", "warc", "frontier", "fetcher", "writer"},
    "tools": {"proto", "common", "net", "warc", "frontier", "fetcher", "writer"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


SUBFLOORS = {floor for floor in ALLOWED if "/" in floor}


def folder_of(header):
    """The floor of a header or source path: its top folder, or the
    frontier's part it is in."""
    if header == "zcrawl.pb.h":
        return "proto"
    parts = header.split("/")
    if len(parts) < 2:
        return None
    if len(parts) > 2 and f"{parts[0]}/{parts[1]}" in SUBFLOORS:
        return f"{parts[0]}/{parts[1]}"
    return parts[0]


def main():
    root = pathlib.Path(sys.argv[1])
    broken = []
    checked = 0
    for top in sorted({floor.split("/")[0] for floor in ALLOWED}):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in (".h", ".cc"):
                continue
            checked += 1
            folder = folder_of(path.relative_to(root).as_posix())
            allowed = ALLOWED[folder]
            for header in INCLUDE.findall(path.read_text(errors="replace")):
                used = folder_of(header)
                if used is not None and "/" in used and used.split("/")[0] not in (folder.split("/")[0],):
                    used = used.split("/")[0]  # another floor sees the frontier as one
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
