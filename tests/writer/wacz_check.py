#!/usr/bin/env python3
"""Independent reader of a WACZ file (Python stdlib only).

  wacz_check.py FILE.wacz

Checks what a replay tool relies on:
- the layout: datapackage.json, datapackage-digest.json, pages/pages.jsonl,
  indexes/*.cdx(j), archive/*.warc(.gz); nothing else in those folders;
- archive entries stored, not compressed again (readers seek into them);
- datapackage.json: profile "data-package" (what ReplayWeb.page reads;
  the 1.2.0 draft's "wacz" it refuses), wacz_version; every other entry listed once with its
  true size and sha256; nothing listed that is not there;
- datapackage-digest.json: the sha256 of datapackage.json;
- page lists: a json-pages-1.0 header, then objects with url and an RFC 3339 ts;
- the index: sorted CDXJ lines whose filename is an archive entry and whose
  offset/length is one whole gzip member of it: a WARC response or revisit
  record for the line's url.
Prints a JSON summary; exits 0 when every check passed, 1 otherwise.
"""
import hashlib
import json
import re
import sys
import zipfile
import zlib

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def sha256_of(zf, name):
    digest = hashlib.sha256()
    with zf.open(name) as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def one_member(data):
    """The inflated gzip member that is all of `data`, or None."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data) + d.flush()
    except zlib.error:
        return None
    if not d.eof or d.unused_data:
        return None
    return out


def main(path):
    errors = []
    summary = {"file": path}
    with zipfile.ZipFile(path) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        names = set(infos)
        for required in ("datapackage.json", "datapackage-digest.json", "pages/pages.jsonl"):
            if required not in names:
                errors.append("missing " + required)
        archives = sorted(n for n in names if n.startswith("archive/"))
        indexes = sorted(n for n in names if n.startswith("indexes/"))
        pages = sorted(n for n in names if n.startswith("pages/"))
        for n in archives:
            if not (n.endswith(".warc") or n.endswith(".warc.gz")):
                errors.append("not a WARC file in archive/: " + n)
            if infos[n].compress_type != zipfile.ZIP_STORED:
                errors.append("compressed again: " + n)
        for n in indexes:
            if not re.search(r"\.(cdx|cdxj)(\.gz)?$", n):
                errors.append("not an index in indexes/: " + n)
        for n in pages:
            if not n.endswith(".jsonl"):
                errors.append("not a page list in pages/: " + n)
        if not archives:
            errors.append("no WARC file")
        if not indexes:
            errors.append("no index")

        package = json.loads(zf.read("datapackage.json")) if "datapackage.json" in names else {}
        if package.get("profile") != "data-package":
            errors.append("datapackage.json profile is %r" % package.get("profile"))
        if not package.get("wacz_version"):
            errors.append("datapackage.json has no wacz_version")
        listed = {}
        for resource in package.get("resources", []):
            p = resource.get("path")
            if p in listed:
                errors.append("listed twice: %s" % p)
            listed[p] = resource
            if p not in names:
                errors.append("listed but absent: %s" % p)
                continue
            if resource.get("bytes") != infos[p].file_size:
                errors.append("size of %s: listed %s, is %s" % (p, resource.get("bytes"), infos[p].file_size))
            if resource.get("hash") != "sha256:" + sha256_of(zf, p):
                errors.append("sha256 of %s does not match" % p)
        for n in names - {"datapackage.json", "datapackage-digest.json"}:
            if not n.endswith("/") and n not in listed:
                errors.append("not listed in datapackage.json: " + n)
        if "datapackage-digest.json" in names:
            digest = json.loads(zf.read("datapackage-digest.json"))
            if digest.get("path") != "datapackage.json":
                errors.append("datapackage-digest.json names %r" % digest.get("path"))
            if digest.get("hash") != "sha256:" + hashlib.sha256(zf.read("datapackage.json")).hexdigest():
                errors.append("datapackage-digest.json hash does not match datapackage.json")

        page_counts = {}
        for n in pages:
            lines = zf.read(n).decode("utf-8").splitlines()
            header = json.loads(lines[0]) if lines else {}
            if header.get("format") != "json-pages-1.0":
                errors.append("%s: header %r" % (n, header))
            for line in lines[1:]:
                page = json.loads(line)
                if not isinstance(page.get("url"), str) or not RFC3339.match(page.get("ts", "")):
                    errors.append("%s: bad page %s" % (n, line))
            page_counts[n] = max(len(lines) - 1, 0)
        summary["pages"] = page_counts

        archive_bytes = {n: zf.read(n) for n in archives}
        by_name = {n.split("/", 1)[1]: n for n in archives}
        index_lines = 0
        for n in indexes:
            data = zf.read(n)
            if n.endswith(".gz"):
                data = zlib.decompress(data, 16 + zlib.MAX_WBITS)
            lines = data.decode("utf-8").splitlines()
            if lines != sorted(lines):
                errors.append("%s is not sorted" % n)
            for line in lines:
                index_lines += 1
                key, ts, rest = line.split(" ", 2)
                fields = json.loads(rest)
                if not re.match(r"^\d{14}$", ts):
                    errors.append("bad timestamp: " + line)
                archive = by_name.get(fields.get("filename"))
                if archive is None:
                    errors.append("index names a file not in archive/: " + line)
                    continue
                offset, length = int(fields["offset"]), int(fields["length"])
                record = one_member(archive_bytes[archive][offset:offset + length])
                if record is None:
                    errors.append("offset/length is not one gzip member: " + line)
                    continue
                head = record.split(b"\r\n\r\n", 1)[0].decode("utf-8", "replace")
                if not re.search(r"^WARC-Type: (response|revisit)\r?$", head, re.M):
                    errors.append("not a response or revisit record: " + line)
                if ("WARC-Target-URI: %s" % fields.get("url")) not in head:
                    errors.append("record is for another URL: " + line)
        summary["index_lines"] = index_lines
        summary["archives"] = len(archives)
    summary["errors"] = errors[:50]
    summary["error_count"] = len(errors)
    print(json.dumps(summary))
    return 0 if not errors else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
