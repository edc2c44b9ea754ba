#!/usr/bin/env python3
"""Independent checker for the WARC files WarcSink writes (stdlib only).

Usage: warc_check.py [--no-details] PATH...   (files, or folders of *.warc.gz)

Reads every gzip member on its own (zlib.decompressobj per member) and
requires each member to hold exactly one WARC/1.1 record. Per record it checks
the mandatory fields, Content-Length, WARC-Block-Digest and (for responses)
WARC-Payload-Digest, the HTTP message inside request/response records, that
request and response name each other in WARC-Concurrent-To, that metadata
records refer to a response of the same file, and that every file starts
with its one warcinfo record. A revisit record (identical-payload-digest
profile) must hold an HTTP head and nothing else, name the first record's
target URI and date, and, when it names that record's id, a response of the
files checked with that URI, date and payload digest. A revisit of the
server-not-modified profile (a recrawl's 304) must hold a 304 head and
nothing else, name its own URI, and may leave out the payload digest (the
earlier capture's, when known). Prints a JSON summary on stdout; exits 0 when
no error was found, 1 otherwise.
"""

import base64
import hashlib
import json
import os
import re
import sys
import zlib

CHUNK = 1 << 16
RECORD_ID_RE = re.compile(
    r"^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$")
MAX_ERRORS = 50
IDENTICAL_PAYLOAD_PROFILE = "http://netpreserve.org/warc/1.1/revisits/identical-payload-digest"
NOT_MODIFIED_PROFILE = "http://netpreserve.org/warc/1.1/revisits/server-not-modified"


def sha1_b32(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def gzip_members(raw):
    """Yields (offset, member_length, decompressed bytes) for each member."""
    pos = 0
    while pos < len(raw):
        d = zlib.decompressobj(wbits=31)  # 31: gzip wrapper, one member only
        out = []
        start = pos
        while not d.eof:
            if pos >= len(raw):
                raise ValueError("gzip member at offset %d is truncated" % start)
            chunk = raw[pos:pos + CHUNK]
            out.append(d.decompress(chunk))
            pos += len(chunk)
        pos -= len(d.unused_data)
        yield start, pos - start, b"".join(out)


def parse_fields(text):
    """'Name: value' CRLF lines -> list of (name, value)."""
    fields = []
    for line in text.split("\r\n"):
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise ValueError("field line without colon: %r" % line[:80])
        fields.append((name.strip(), value.strip()))
    return fields


def parse_record(data):
    """One member's bytes -> (headers dict, block). Raises ValueError."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        raise ValueError("no end of WARC header")
    head = data[:end].decode("utf-8")
    version, _, rest = head.partition("\r\n")
    if version != "WARC/1.1":
        raise ValueError("version line %r" % version)
    headers = {}
    for name, value in parse_fields(rest):
        if name.lower() in headers:
            raise ValueError("repeated field %s" % name)
        headers[name.lower()] = value
    for required in ("warc-type", "warc-record-id", "warc-date", "content-length"):
        if required not in headers:
            raise ValueError("missing %s" % required)
    length = int(headers["content-length"])
    block = data[end + 4:end + 4 + length]
    if len(block) != length:
        raise ValueError("block shorter than Content-Length %d" % length)
    tail = data[end + 4 + length:]
    if tail != b"\r\n\r\n":
        raise ValueError("record not ended by exactly CRLF CRLF (tail %r)" % tail[:20])
    return headers, block


def parse_http(block):
    """HTTP message -> (start line, headers list, body)."""
    end = block.find(b"\r\n\r\n")
    if end < 0:
        raise ValueError("HTTP message without blank line")
    lines = block[:end].decode("latin-1").split("\r\n")
    return lines[0], parse_fields("\r\n".join(lines[1:])), block[end + 4:]


def check_file(path, state):
    raw = open(path, "rb").read()
    info = {"path": path, "bytes": len(raw), "records": 0, "first_type": None,
            "warcinfo_count": 0}
    responses = {}   # id -> concurrent-to
    requests = {}    # id -> concurrent-to
    refers = []      # (metadata id, refers-to)

    def error(msg):
        state["error_count"] += 1
        if len(state["errors"]) < MAX_ERRORS:
            state["errors"].append("%s: %s" % (os.path.basename(path), msg))

    members = []
    try:
        for member in gzip_members(raw):
            members.append(member)
    except (ValueError, zlib.error) as e:
        error(str(e))  # the members read before this one are still checked
    for offset, _, data in members:
        where = "offset %d" % offset
        try:
            h, block = parse_record(data)
        except (ValueError, UnicodeDecodeError) as e:
            error("%s: %s" % (where, e))
            continue
        info["records"] += 1
        rtype = h["warc-type"]
        rid = h["warc-record-id"]
        if info["first_type"] is None:
            info["first_type"] = rtype
        state["by_type"][rtype] = state["by_type"].get(rtype, 0) + 1
        if not RECORD_ID_RE.match(rid):
            error("%s: bad record id %s" % (where, rid))
        if rid in state["ids"]:
            error("%s: duplicate record id %s" % (where, rid))
        state["ids"].add(rid)
        if not DATE_RE.match(h["warc-date"]):
            error("%s: bad WARC-Date %s" % (where, h["warc-date"]))
        if "warc-block-digest" not in h:
            error("%s: %s record without WARC-Block-Digest" % (where, rtype))
        elif h["warc-block-digest"] != sha1_b32(block):
            error("%s: block digest mismatch" % where)

        if rtype == "warcinfo":
            info["warcinfo_count"] += 1
            if h.get("warc-filename") != os.path.basename(path):
                error("%s: WARC-Filename %s" % (where, h.get("warc-filename")))
            fields = dict(parse_fields(block.decode("utf-8")))
            for key in ("software", "format", "conformsTo"):
                if key not in fields:
                    error("%s: warcinfo without %s" % (where, key))
        elif rtype == "response":
            try:
                status_line, http_headers, body = parse_http(block)
            except ValueError as e:
                error("%s: %s" % (where, e))
                continue
            if h.get("content-type") != "application/http;msgtype=response":
                error("%s: response Content-Type %s" % (where, h.get("content-type")))
            if h.get("warc-payload-digest") != sha1_b32(body):
                error("%s: payload digest mismatch" % where)
            names = {n.lower(): v for n, v in http_headers}
            if "transfer-encoding" in names or "content-encoding" in names:
                error("%s: stored body still declares an encoding" % where)
            if names.get("content-length") != str(len(body)):
                error("%s: HTTP Content-Length %s but body %d" %
                      (where, names.get("content-length"), len(body)))
            parts = status_line.split(" ", 2)
            if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
                error("%s: bad status line %r" % (where, status_line))
                continue
            responses[rid] = h.get("warc-concurrent-to")
            state["originals"][rid] = (h.get("warc-target-uri"), h["warc-date"], h.get("warc-payload-digest"))
            state["responses"].append({
                "uri": h.get("warc-target-uri"), "status": int(parts[1]),
                "status_line": status_line, "payload_len": len(body),
                "date": h["warc-date"], "ip": h.get("warc-ip-address"),
                "truncated": h.get("warc-truncated"),
                "headers": [[n, v] for n, v in http_headers],
                "body_sha1": hashlib.sha1(body).hexdigest(),
                "payload_digest": h.get("warc-payload-digest"),
                "file": os.path.basename(path)})
        elif rtype == "revisit":
            if h.get("content-type") != "application/http;msgtype=response":
                error("%s: revisit Content-Type %s" % (where, h.get("content-type")))
            profile = h.get("warc-profile")
            if profile not in (IDENTICAL_PAYLOAD_PROFILE, NOT_MODIFIED_PROFILE):
                error("%s: revisit profile %s" % (where, profile))
            try:
                status_line, http_headers, body = parse_http(block)
            except ValueError as e:
                error("%s: %s" % (where, e))
                continue
            if body:
                error("%s: revisit holds %d payload bytes" % (where, len(body)))
            required = ["warc-refers-to-target-uri", "warc-refers-to-date"]
            if profile == NOT_MODIFIED_PROFILE:
                if not status_line.split(" ")[1:2] == ["304"]:
                    error("%s: not-modified revisit with status line %s" % (where, status_line))
                if h.get("warc-refers-to-target-uri") != h.get("warc-target-uri"):
                    error("%s: not-modified revisit refers to another URI" % where)
            else:
                required.append("warc-payload-digest")
            for field in required:
                if field not in h:
                    error("%s: revisit without %s" % (where, field))
            if not DATE_RE.match(h.get("warc-refers-to-date", "")) and \
                    not re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$", h.get("warc-refers-to-date", "")):
                error("%s: bad WARC-Refers-To-Date %s" % (where, h.get("warc-refers-to-date")))
            responses[rid] = h.get("warc-concurrent-to")
            state["revisits"].append({
                "uri": h.get("warc-target-uri"), "status_line": status_line, "date": h["warc-date"],
                "refers_to_uri": h.get("warc-refers-to-target-uri"),
                "refers_to_date": h.get("warc-refers-to-date"),
                "refers_to": h.get("warc-refers-to"), "profile": profile,
                "payload_digest": h.get("warc-payload-digest"),
                "file": os.path.basename(path), "where": where})
        elif rtype == "request":
            if h.get("content-type") != "application/http;msgtype=request":
                error("%s: request Content-Type %s" % (where, h.get("content-type")))
            try:
                request_line, request_headers, _ = parse_http(block)
            except ValueError as e:
                error("%s: %s" % (where, e))
                continue
            if len(request_line.split(" ")) != 3:
                error("%s: bad request line %r" % (where, request_line))
            requests[rid] = h.get("warc-concurrent-to")
            state["requests"].append({"uri": h.get("warc-target-uri"),
                                      "request_line": request_line,
                                      "headers": [[n, v] for n, v in request_headers]})
        elif rtype == "metadata":
            refers.append((rid, h.get("warc-refers-to")))
            if h.get("content-type") != "application/warc-fields":
                error("%s: metadata Content-Type %s" % (where, h.get("content-type")))
            fields = parse_fields(block.decode("utf-8"))
            state["metadata"].append({"uri": h.get("warc-target-uri"),
                                      "outlinks": [v for n, v in fields if n == "outlink"]})
        else:
            error("%s: unexpected record type %s" % (where, rtype))

    if info["first_type"] != "warcinfo" or info["warcinfo_count"] != 1:
        error("file must start with its one warcinfo (first %s, %d warcinfo)" %
              (info["first_type"], info["warcinfo_count"]))
    for rid, other in requests.items():
        if responses.get(other, "missing") != rid:
            error("request %s and response %s do not pair" % (rid, other))
    for rid, other in responses.items():
        if requests.get(other, "missing") != rid:
            error("response %s and request %s do not pair" % (rid, other))
    for rid, target in refers:
        if target not in responses:
            error("metadata %s refers to %s, no response in this file" % (rid, target))
    return info


def main(argv):
    details = True
    paths = []
    for arg in argv[1:]:
        if arg == "--no-details":
            details = False
        elif os.path.isdir(arg):
            paths.extend(sorted(os.path.join(arg, n) for n in os.listdir(arg)
                                if n.endswith(".warc.gz")))
        else:
            paths.append(arg)
    state = {"errors": [], "error_count": 0, "by_type": {}, "ids": set(),
             "responses": [], "requests": [], "metadata": [], "revisits": [], "originals": {}}
    files = [check_file(p, state) for p in paths]
    for revisit in state["revisits"]:
        if not revisit["refers_to"]:
            continue  # an earlier crawl's record: not among the files checked
        original = state["originals"].get(revisit["refers_to"])
        expected = (revisit["refers_to_uri"], revisit["refers_to_date"], revisit["payload_digest"])
        if original != expected:
            state["error_count"] += 1
            if len(state["errors"]) < MAX_ERRORS:
                state["errors"].append("%s: %s: revisit names %s, which is %s, not %s" % (
                    revisit["file"], revisit["where"], revisit["refers_to"], original, expected))
    summary = {
        "ok": state["error_count"] == 0,
        "error_count": state["error_count"],
        "errors": state["errors"],
        "files": files,
        "records": sum(f["records"] for f in files),
        "by_type": state["by_type"],
    }
    if details:
        summary["responses"] = state["responses"]
        summary["requests"] = state["requests"]
        summary["metadata"] = state["metadata"]
        summary["revisits"] = state["revisits"]
    json.dump(summary, sys.stdout)
    sys.stdout.write("\n")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
