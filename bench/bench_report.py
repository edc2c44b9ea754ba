#!/usr/bin/env python3
"""Turns a run_bench.sh working folder into the results report (Markdown).

    bench_report.py WORK_DIR

Reads WORK_DIR/machine.txt, runs.tsv (one line per crawl), ceiling.tsv (wrk),
disk.tsv (the output file system's dd per round), micro.txt (Google Benchmark
output), profile-*.txt and the sinks part's sinks-R.json / sinks-dd-R.txt
when present. Every figure per crawler is the median over its rounds (each
metric on its own); ratios between crawlers are taken between those medians,
except this build against --baseline-bin's (labels LABEL and LABEL@base),
which is the median of the per-round ratios: both ran in the same round.
"""
import glob
import json
import os
import re
import statistics
import sys


def read_kv(path):
  out = {}
  if os.path.exists(path):
    for line in open(path):
      if "=" in line:
        k, v = line.rstrip("\n").split("=", 1)
        out[k] = v
  return out


def read_runs(path):
  runs = []
  if not os.path.exists(path):
    return runs
  for line in open(path):
    f = line.rstrip("\n").split("\t")
    if len(f) < 10:
      continue
    detail = {}
    for item in (f[10].split(",") if len(f) > 10 and f[10] else []):
      if ":" in item:
        k, v = item.split(":", 1)
        detail[k] = v
    runs.append({
        "scenario": f[0], "label": f[1], "round": int(f[2]), "expected": int(f[3]),
        "stored": int(f[4]), "wall": float(f[5]), "cpu_ms": float(f[6]),
        "rss_kb": float(f[7]), "load": float(f[8]), "exit": int(f[9]), "detail": detail})
  return runs


def in_flight(flags):
  """Requests zcrawl can have in flight with these flags, on `hosts` hosts."""
  def flag(name, default):
    m = re.search(r"--%s[ =](\d+)" % name, flags)
    return int(m.group(1)) if m else default
  return flag("fetchers", 2) * flag("threads", 16), flag("per-host", 2)


def tree_ms(run, key):
  """The whole tree's user_ms or sys_ms of one crawl (NaN from older runs.tsv)."""
  v = run["detail"].get(key)
  return float(v) if v not in (None, "") else float("nan")


def with_baselines(labels, present):
  """labels in order, each followed by its LABEL@base when that ran."""
  out = []
  for label in labels:
    for name in (label, label + "@base"):
      if name in present:
        out.append(name)
  return out


def summarize(runs):
  s = {
      "n": len(runs),
      "stored": min(r["stored"] for r in runs),
      "expected": runs[0]["expected"],
      "all_ok": all(r["stored"] == r["expected"] and r["exit"] == 0 for r in runs),
      "wall": statistics.median(r["wall"] for r in runs),
      "pps": statistics.median(r["stored"] / r["wall"] for r in runs),
      "pps_min": min(r["stored"] / r["wall"] for r in runs),
      "pps_max": max(r["stored"] / r["wall"] for r in runs),
      "cpu_per_page": statistics.median(r["cpu_ms"] / max(r["stored"], 1) for r in runs),
      "user_per_page": statistics.median(tree_ms(r, "user_ms") / max(r["stored"], 1) for r in runs),
      "sys_per_page": statistics.median(tree_ms(r, "sys_ms") / max(r["stored"], 1) for r in runs),
      "cpu_s": statistics.median(r["cpu_ms"] / 1000 for r in runs),
      "rss_mb": statistics.median(r["rss_kb"] / 1024 for r in runs),
      "nginx_per_page": statistics.median(tree_ms(r, "nginx_ms") / max(r["stored"], 1) for r in runs),
      "load": (min(r["load"] for r in runs), max(r["load"] for r in runs)),
      "exits": sorted(set(r["exit"] for r in runs)),
  }
  return s


def stored_cell(s):
  mark = "" if s["all_ok"] else " **(incomplete or failed: exits %s)**" % s["exits"]
  return "%d / %d%s" % (s["stored"], s["expected"], mark)


def process_split(runs):
  """Median own CPU ms and peak RSS kB per zcrawl process kind."""
  kinds = {}
  for r in runs:
    for k, v in r["detail"].items():
      m = re.match(r"(\d+)ms/(\d+)kB", v)
      if m:
        kinds.setdefault(k, []).append((int(m.group(1)), int(m.group(2)), r["stored"]))
  return {k: (statistics.median(c for c, _, _ in v), statistics.median(m for _, m, _ in v),
              statistics.median(c / max(n, 1) for c, _, n in v)) for k, v in kinds.items()}


SINK_ROWS = (
    ("dd", "dd bs=1M count=1024 conv=fsync (1 GiB, one fsync)"),
    ("raw_stepwise", "raw write + fsync every 512 pages' worth"),
    ("raw_overlapped", "raw, each fsync overlapped with the next writes"),
    ("warc", "warc, gzip 1, record blocks compressed by the fetchers, pipelined commit (the writer's way)"),
    ("warc_sync", "warc, gzip 1, fetchers' blocks, Flush waited for"),
    ("warc_one_thread", "warc, gzip 1, fetchers' blocks, no encoding threads"),
    ("warc_writer_compresses", "warc, gzip 1 (igzip), the writer compresses every record (--no-fetcher-compression)"),
    ("warc_own_digest", "warc, gzip 1, the writer compresses, pages without the fetcher's body_sha1"),
    ("warc_stored", "warc, stored (--warc-gzip-level 0)"),
    ("files", "files"),
    ("jsonl", "jsonl (no body: pages/s is the figure)"),
)


def dd_mb_per_s(line):
  # "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 0.66 s, 1.6 GB/s"
  m = re.match(r"(\d+) bytes.* copied, ([\d.]+) s", line)
  return int(m.group(1)) / float(m.group(2)) / 1e6 if m else None


def read_sink_rounds(work):
  """[{row: (MB/s, pages/s, output ratio)}] per round of the sinks part."""
  rounds = []
  for path in sorted(glob.glob(os.path.join(work, "sinks-[0-9]*.json"))):
    r = re.search(r"sinks-(\d+)\.json$", path).group(1)
    row = {}
    try:
      data = json.load(open(path))
    except ValueError:
      continue
    for b in data.get("benchmarks", []):
      parts = b["name"].split("/")
      key = parts[1] if parts[0] == "BM_Sink" else "raw_" + parts[1]
      row[key] = (b.get("bytes_per_second", 0) / 1e6, b.get("pages_per_s"), b.get("output_ratio"))
    dd_path = os.path.join(work, "sinks-dd-%s.txt" % r)
    if os.path.exists(dd_path):
      mb = dd_mb_per_s(open(dd_path).read().strip())
      if mb:
        row["dd"] = (mb, None, 1.0)
    row["_round"] = r
    rounds.append(row)
  return rounds


def sink_section(work, p):
  rounds = read_sink_rounds(work)
  if not rounds:
    return
  p("## Writer throughput per sink against the raw disk (medians of %d rounds)" % len(rounds))
  p("")
  p("sink_throughput_bench: ~18 KB pages, a group commit (fsync) every 512 pages; MB/s of page")
  p("bodies. Shares are medians of the per-round ratios (each round measures its own baselines).")
  p("")
  p("| what | MB/s | pages/s | bytes on disk per body byte | share of dd | share of raw stepwise | share of raw overlapped |")
  p("|---|---:|---:|---:|---:|---:|---:|")

  def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

  def cell(v, fmt):
    return fmt % v if v is not None else "-"

  for key, title in SINK_ROWS:
    have = [r for r in rounds if key in r]
    if not have:
      continue
    mb = med([r[key][0] for r in have])
    pages = med([r[key][1] for r in have])
    ratio = med([r[key][2] for r in have])
    shares = []
    for base in ("dd", "raw_stepwise", "raw_overlapped"):
      s = med([r[key][0] / r[base][0] for r in have if base in r and r[base][0]])
      shares.append(cell(100 * s, "%.0f%%") if s is not None and key != "jsonl" else "-")
    p("| %s | %s | %s | %s | %s |" % (title, cell(mb, "%.0f") if key != "jsonl" else "-",
                                      cell(pages, "%.0f"), cell(ratio, "%.2f"), " | ".join(shares)))
  p("")
  p("Per round (MB/s): " + "; ".join(
      ", ".join("%s %.0f" % (k, r[k][0]) for k in ("dd", "raw_stepwise", "raw_overlapped", "warc") if k in r)
      for r in rounds))
  p("")


def per_page(run, key):
  """CPU ms per stored page of one crawl: "cpu" (the whole tree), "user_ms" or
  "sys_ms" (the tree's), or a zcrawl process kind's own (frontier, ...)."""
  pages = max(run["stored"], 1)
  if key == "cpu":
    return run["cpu_ms"] / pages
  if key in ("user_ms", "sys_ms"):
    return tree_ms(run, key) / pages
  m = re.match(r"(\d+)ms/", run["detail"].get(key, ""))
  return int(m.group(1)) / pages if m else float("nan")


BASELINE_METRICS = (
    ("pages/s", lambda r: r["stored"] / r["wall"]),
    ("CPU ms/page", lambda r: per_page(r, "cpu")),
    ("user", lambda r: per_page(r, "user_ms")),
    ("sys", lambda r: per_page(r, "sys_ms")),
    ("frontier", lambda r: per_page(r, "frontier")),
    ("fetchers", lambda r: per_page(r, "fetcher")),
    ("writer", lambda r: per_page(r, "writer")),
)


def baseline_pairs(runs):
  """{(scenario, label): [(this run, baseline run)]}, paired by round."""
  index = {(r["scenario"], r["label"], r["round"]): r for r in runs}
  pairs = {}
  for (scenario, label, rnd), base in sorted(index.items()):
    if not label.endswith("@base"):
      continue
    this = index.get((scenario, label[:-len("@base")], rnd))
    if this is not None:
      pairs.setdefault((scenario, this["label"]), []).append((this, base))
  return pairs


def baseline_section(machine, runs, p):
  pairs = baseline_pairs(runs)
  if not pairs:
    return
  p("## This build against the baseline")
  p("")
  p("This build: `%s`; baseline (`--baseline-bin`): `%s`. Both crawled in every round, the order "
    "flipped every round; each cell is the median over rounds of this build's figure divided by the "
    "baseline's in the same round (min-max in brackets): pages/s above 1, CPU below 1 favour this "
    "build. user and sys: the whole tree's; frontier, fetchers, writer: each process's own CPU per "
    "page." % (machine.get("build"), machine.get("baseline")))
  p("")
  p("| scenario | crawler | rounds | " + " | ".join(name for name, _ in BASELINE_METRICS) + " |")
  p("|---|---|---:|" + "---:|" * len(BASELINE_METRICS))
  for (scenario, label), rounds in sorted(pairs.items()):
    cells = []
    for _, metric in BASELINE_METRICS:
      ratios = [metric(t) / metric(b) for t, b in rounds if metric(b) > 0]
      ratios = [x for x in ratios if x == x]  # NaN: a figure an older build did not log
      cells.append("%.3f (%.2f-%.2f)" % (statistics.median(ratios), min(ratios), max(ratios))
                   if ratios else "-")
    p("| %s | %s | %d | %s |" % (scenario, label, len(rounds), " | ".join(cells)))
  p("")


def disk_section(machine, work, p):
  path = os.path.join(work, "disk.tsv")
  rows = []
  if os.path.exists(path):
    for line in open(path):
      f = line.rstrip("\n").split("\t")
      if len(f) >= 3:
        rows.append((f[0], f[1], dd_mb_per_s(f[2])))
  if not rows:
    return
  p("## The output file system before each round (%s)" % machine.get("out_fs", "?"))
  p("")
  p("dd bs=1M count=256 conv=fsync into the crawls' output folder, just before the round's crawls.")
  p("")
  p("| scenario | round | MB/s |")
  p("|---|---:|---:|")
  for scenario, rnd, mb in rows:
    p("| %s | %s | %s |" % (scenario, rnd, "%.0f" % mb if mb else "-"))
  p("")


def read_strace_counts(path):
  """{syscall: calls} from an `strace -c` summary (the "total" line too)."""
  counts = {}
  if not os.path.exists(path):
    return counts
  for line in open(path):
    f = line.split()
    if len(f) in (5, 6) and not line.startswith(("%", "-")):
      try:
        counts[f[-1]] = int(f[3])
      except ValueError:
        pass
  return counts


def syscall_section(machine, work, p):
  zc = read_strace_counts(os.path.join(work, "strace-zcrawl.txt"))
  wg = read_strace_counts(os.path.join(work, "strace-wget2.txt"))
  if not zc or not wg:
    return
  pages = int(machine.get("pages", "1")) or 1
  p("## Syscalls per page: zcrawl (--parser scan) against wget2 (strace -f -c, whole process trees, one crawl each)")
  p("")
  p("| syscall | zcrawl per page | wget2 per page |")
  p("|---|---:|---:|")
  names = sorted((k for k in set(zc) | set(wg) if k != "total"), key=lambda k: -(zc.get(k, 0) + wg.get(k, 0)))
  for k in ["total"] + names[:20]:
    p("| %s | %.2f | %.2f |" % (k, zc.get(k, 0) / pages, wg.get(k, 0) / pages))
  p("")


def feed_section(work, p):
  """The writer process fed over ZeroMQ (writer_feed_bench), per sink."""
  rounds = []
  for path in sorted(glob.glob(os.path.join(work, "feed-[0-9]*.jsonl"))):
    r = re.search(r"feed-(\d+)\.jsonl$", path).group(1)
    rows = {}
    for line in open(path):
      try:
        row = json.loads(line)
      except ValueError:
        continue
      rows[row["writer_flags"]] = row
    rounds.append((r, rows))
  if not rounds:
    return
  sinks = {row["_round"]: row for row in read_sink_rounds(work)}
  p("## The writer process per sink, fed over ZeroMQ (medians of %d rounds)" % len(rounds))
  p("")
  p("writer_feed_bench: zcrawl-writer on a loopback port, two fake fetchers sending 40,000 of the")
  p("site's pages as our fetchers would (body_sha1; the compressed WARC record blocks, and no body,")
  p("where the writer asks for that), up to 1,024 unacknowledged each; wall time from the first page")
  p("sent to the last ack. Includes ZeroMQ's TCP transfer, decoding, group commits and acks. MB/s")
  p("counts page bodies (body_length). Shares against the same round's baselines of the sink bench.")
  p("")
  p("| writer flags | MB/s | pages/s | writer CPU s per GB | bytes on disk per body byte | share of dd | share of raw overlapped | complete |")
  p("|---|---:|---:|---:|---:|---:|---:|---|")
  flags_seen = []
  for _, rows in rounds:
    for f in rows:
      if f not in flags_seen:
        flags_seen.append(f)
  for f in flags_seen:
    have = [(r, rows[f]) for r, rows in rounds if f in rows]
    mb = statistics.median(x["mb_per_s"] for _, x in have)
    pps = statistics.median(x["pages_per_s"] for _, x in have)
    cpu = statistics.median(x["writer_cpu_s"] / max(x["mb_per_s"] * x["seconds"] / 1000, 1e-9) for _, x in have)
    ratio = statistics.median(x["output_ratio"] for _, x in have)
    shares = []
    for base in ("dd", "raw_overlapped"):
      vals = [x["mb_per_s"] / sinks[r][base][0] for r, x in have if r in sinks and base in sinks[r]]
      shares.append("%.0f%%" % (100 * statistics.median(vals)) if vals else "-")
    complete = all(x["complete"] for _, x in have)
    p("| `%s` | %.0f | %.0f | %.1f | %.2f | %s | %s |%s" % (
        f, mb, pps, cpu, ratio, shares[0], shares[1], " yes |" if complete else " **no** |"))
  p("")


def struggling_section(machine, by, p):
  """The struggling server (issue 49): how each crawler yields to a rate limit."""
  labels = [l for l in ("zcrawl", "zcrawl-single", "wget2") if ("struggling", l) in by]
  if not labels:
    return
  p("## Struggling server: %s, 429 with Retry-After: 2 beyond it" % machine.get("struggling", "?"))
  p("")
  p("nginx `limit_req` (burst 20, nodelay) per host name, restarted for every crawl; requests and "
    "429s from that crawl's access log. zcrawl `%s --delay-ms 0 --no-robots` (zcrawl-single: with "
    "`--single-process`), wget2 `--max-threads %s`. Medians (min-max) of %s rounds." % (
        machine.get("zc_struggling"), machine.get("wget2_threads"), machine.get("repeats")))
  p("")
  p("| crawler | pages stored | time to finish s | requests sent | 429s received | % of requests refused | exits |")
  p("|---|---|---:|---:|---:|---:|---|")

  def spread(values, fmt):
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(values), min(values), max(values))

  for label in labels:
    runs = by[("struggling", label)]
    requests = [int(r["detail"].get("requests", 0)) for r in runs]
    refused = [int(r["detail"].get("http_429", 0)) for r in runs]
    share = [100.0 * t / n if n else 0.0 for t, n in zip(refused, requests)]
    p("| %s | %s / %d | %s | %s | %s | %s | %s |" % (
        label, spread([r["stored"] for r in runs], "%d"), runs[0]["expected"],
        spread([r["wall"] for r in runs], "%.1f"), spread(requests, "%d"), spread(refused, "%d"),
        spread(share, "%.1f"), ",".join(str(e) for e in sorted(set(r["exit"] for r in runs)))))
  p("")


def web_section(machine, by, p):
  """The web-like site (issue 51): speed, CPU and what the server saw."""
  labels = with_baselines(("zcrawl-scan", "zcrawl-single", "wget2"), {l for (sc, l) in by if sc == "web"})
  if not labels:
    return
  p("## Web-like site: %s" % machine.get("web", "?"))
  p("")
  p("HTTPS through a local CA, HTTP/2 on 4 hosts in 5, pages gzipped, 15-300 ms per answer (75 ms on "
    "average), robots.txt obeyed; nginx restarted for every crawl, connections and TLS resumptions "
    "from its access log. zcrawl `%s --delay-ms 0` (zcrawl-scan: separate processes; zcrawl-single: "
    "`--single-process`), wget2 `%s --compression=gzip`. Medians of %s rounds." % (
        machine.get("zc_web"),
        machine.get("web_wget2_args") or "--max-threads %s" % machine.get("web_wget2_threads"),
        machine.get("repeats")))
  p("")
  p("| crawler | pages stored | pages/s (min-max) | CPU ms/page | user | sys | peak RSS MB | requests | "
    "connections | TLS resumed | HTTP/2 conns | stored twice | crashes |")
  p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
  med = lambda runs, key: statistics.median(int(r["detail"].get(key, 0)) for r in runs)
  table = {}
  for label in labels:
    runs = by[("web", label)]
    s = summarize(runs)
    # wget2 exits 8 when any answer was an error: the site's 404s are.
    s["all_ok"] = all(r["stored"] == r["expected"] and r["exit"] in ((0, 8) if label == "wget2" else (0,))
                      for r in runs)
    table[label] = s
    crashes = len(by.get(("web", label + "!crash"), []))
    # Pages stored more than once, in the worst round (zcrawl's index says;
    # wget2 keeps one file per URL).
    twice = [int(r["detail"]["stored_twice"]) for r in runs if "stored_twice" in r["detail"]]
    p("| %s | %s | %.0f (%.0f-%.0f) | %.3f | %.3f | %.3f | %.1f | %d | %d | %d | %d | %s | %d |" % (
        label, stored_cell(s), s["pps"], s["pps_min"], s["pps_max"], s["cpu_per_page"], s["user_per_page"],
        s["sys_per_page"], s["rss_mb"], med(runs, "requests"), med(runs, "connections"),
        med(runs, "tls_resumed"), med(runs, "h2_connections"), max(twice) if twice else "-", crashes))
  if "wget2" in table and table["wget2"]["pps"] > 0:
    p("")
    for label in labels:
      if label != "wget2":
        z, w = table[label], table["wget2"]
        p("%s / wget2: %.2fx pages/s, %.2fx CPU ms/page, %.2fx peak RSS." % (
            label, z["pps"] / w["pps"], z["cpu_per_page"] / w["cpu_per_page"], z["rss_mb"] / w["rss_mb"]))
  p("")


def main():
  work = sys.argv[1]
  machine = read_kv(os.path.join(work, "machine.txt"))
  runs = read_runs(os.path.join(work, "runs.tsv"))
  out = []
  p = out.append
  p("# zcrawl vs GNU wget vs wget2: results of bench/run_bench.sh")
  p("")
  p("- date: %s; machine: %s cores (%s), %s MB RAM, kernel %s" % (
      machine.get("date"), machine.get("cores"), machine.get("cpu"), machine.get("mem_mb"),
      machine.get("kernel")))
  p("- nginx %s, wget %s, wget2 %s; load average at start: %s" % (
      machine.get("nginx"), machine.get("wget"), machine.get("wget2"), machine.get("load_at_start")))
  if runs:
    loads = [r["load"] for r in runs]
    p("- 1-minute load average when each crawl started: %.2f to %.2f (other work shares this machine)" %
      (min(loads), max(loads)))
    if any(r["scenario"] != "struggling" for r in runs):  # that one has its own site
      p("- site: %s pages, %.0f MB, 4 hosts on 127.0.0.2-5; rounds per crawler: %s (medians below)" % (
          machine.get("pages"), int(machine.get("site_bytes") or 0) / 1e6, machine.get("repeats")))
    p("- crawl outputs on: %s%s" % (machine.get("out_fs", "?"),
                                   " (--tmpfs: the disk taken out)" if machine.get("out_fs") == "tmpfs" else ""))
  p("")

  ceiling = {}
  cpath = os.path.join(work, "ceiling.tsv")
  if os.path.exists(cpath):
    for line in open(cpath):
      f = line.rstrip("\n").split("\t")
      if len(f) >= 4 and f[3]:
        ceiling[f[1]] = (int(f[2]), float(f[3]))
  if ceiling:
    p("## nginx ceiling (wrk -t2, 10 s, 127.0.0.2, same files)")
    p("")
    p("| what | connections | requests/s |")
    p("|---|---:|---:|")
    for k, (c, rps) in ceiling.items():
      p("| %s | %d | %.0f |" % (k, c, rps))
    p("")

  by = {}
  for r in runs:
    by.setdefault((r["scenario"], r["label"]), []).append(r)

  fast = {label: summarize(v) for (sc, label), v in by.items() if sc == "fast"}
  if fast:
    p("## Zero latency: the whole site, every page written to %s" % (
        "a tmpfs (--tmpfs)" if machine.get("out_fs") == "tmpfs" else "disk"))
    p("")
    p("zcrawl flags: `%s --delay-ms 0 --no-robots --format %s`; wget2 `--max-threads %s`." % (
        machine.get("zc_fast"), machine.get("zc_format", "files"), machine.get("wget2_threads")))
    p("")
    p("zcrawl-scan: the same with `--parser scan` (the default; its web console on, as by default); "
      "zcrawl-noconsole: zcrawl-scan with `--console-port 0`; zcrawl-single: zcrawl-scan with "
      "`--single-process` (frontier, writer and fetchers as threads of one process); zcrawl-myhtml: with `--parser myhtml`; zcrawl-blocking: that with `--io blocking` "
      "(a thread per fetch, the same-run baseline of the event loop); zcrawl-myhtml-ph16: "
      "`%s --parser myhtml`." % machine.get("zc_fast_ph16"))
    p("")
    p("| crawler | pages stored | wall s | pages/s (min-max) | CPU s | CPU ms/page | user | sys | peak RSS MB (sum) |")
    p("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for label in with_baselines(("zcrawl-scan", "zcrawl-noconsole", "zcrawl-single", "zcrawl", "zcrawl-myhtml",
                                 "zcrawl-blocking", "zcrawl-myhtml-ph16", "wget2", "wget"), fast):
      s = fast[label]
      p("| %s | %s | %.1f | %.0f (%.0f-%.0f) | %.1f | %.3f | %.3f | %.3f | %.1f |" % (
          label, stored_cell(s), s["wall"], s["pps"], s["pps_min"], s["pps_max"], s["cpu_s"],
          s["cpu_per_page"], s["user_per_page"], s["sys_per_page"], s["rss_mb"]))
    p("")
    zlabels = [l for l in ("zcrawl-scan", "zcrawl-single", "zcrawl", "zcrawl-myhtml") if l in fast]
    if zlabels:
      if "wget2" in fast or "wget" in fast:
        p("Ratios (zcrawl / other; speed >1 and CPU, RSS <1 favour zcrawl):")
        p("")
        p("| zcrawl run | against | pages/s | CPU ms/page | peak RSS |")
        p("|---|---|---:|---:|---:|")
      for zl in zlabels:
        z = fast[zl]
        for other in ("wget2", "wget"):
          if other in fast:
            o = fast[other]
            p("| %s | %s | %.2fx | %.2fx | %.2fx |" % (
                zl, other, z["pps"] / o["pps"], z["cpu_per_page"] / o["cpu_per_page"], z["rss_mb"] / o["rss_mb"]))
      if "all-pages" in ceiling:
        p("")
        for zl in zlabels:
          p("%s reaches %.0f%% of nginx's all-pages ceiling (%.0f requests/s)." % (
              zl, 100 * fast[zl]["pps"] / ceiling["all-pages"][1], ceiling["all-pages"][1]))
      if "zcrawl-scan" in fast and "zcrawl-noconsole" in fast:
        on, off = fast["zcrawl-scan"], fast["zcrawl-noconsole"]
        p("")
        p("Web console on / off (zcrawl-scan / zcrawl-noconsole, nobody looking): %.2fx pages/s, "
          "%.2fx CPU ms/page." % (on["pps"] / off["pps"], on["cpu_per_page"] / off["cpu_per_page"]))
      if "zcrawl-myhtml" in fast and "zcrawl-blocking" in fast:
        m, b = fast["zcrawl-myhtml"], fast["zcrawl-blocking"]
        p("")
        p("Event loop / blocking (zcrawl-myhtml / zcrawl-blocking): %.2fx pages/s, %.2fx CPU ms/page, "
          "%.2fx peak RSS." % (m["pps"] / b["pps"], m["cpu_per_page"] / b["cpu_per_page"],
                               m["rss_mb"] / b["rss_mb"]))
      for zl in with_baselines(("zcrawl-scan", "zcrawl-single", "zcrawl", "zcrawl-myhtml", "zcrawl-blocking",
                                "zcrawl-myhtml-ph16"), fast):
        split = process_split(by[("fast", zl)])
        if not split:
          continue
        total = sum(v[0] for k, v in split.items())
        p("")
        p("%s per process (own CPU and peak RSS, medians; fetcher = all fetchers together):" % zl)
        p("")
        p("| process | CPU s | share | CPU ms/page | peak RSS MB |")
        p("|---|---:|---:|---:|---:|")
        for k in ("frontier", "fetcher", "writer", "local", "launcher"):
          if k in split:
            c, m, per = split[k]
            p("| %s | %.1f | %.0f%% | %.3f | %.1f |" % (k, c / 1000, 100 * c / max(total, 1), per, m / 1024))
    p("")

  endless = by.get(("endless", "zcrawl-myhtml"))
  if endless:
    e = summarize(endless)
    p("## Endless web: every page brings 28 new links")
    p("")
    p("zcrawl-myhtml with the \"fast\" flags on nginx's endless web (run_bench.sh, \"endless\"), "
      "stopped with SIGINT after 15 s; its rounds alternate with the site's. The frontier admits 28 "
      "new URLs per page here; on the site almost every link is known.")
    p("")
    p("| web | pages stored | pages/s (min-max) | CPU ms/page | frontier CPU ms/page | peak RSS MB (sum) |")
    p("|---|---|---:|---:|---:|---:|")
    rows = [("endless", endless)]
    if ("fast", "zcrawl-myhtml") in by:
      rows.insert(0, ("the site (fast)", by[("fast", "zcrawl-myhtml")]))
    for name, runs_ in rows:
      s_ = summarize(runs_)
      fr = process_split(runs_).get("frontier")
      p("| %s | %s | %.0f (%.0f-%.0f) | %.3f | %s | %.1f |" % (
          name, stored_cell(s_), s_["pps"], s_["pps_min"], s_["pps_max"], s_["cpu_per_page"],
          "%.3f" % fr[2] if fr else "-", s_["rss_mb"]))
    if ("fast", "zcrawl-myhtml") in by:
      f_ = summarize(by[("fast", "zcrawl-myhtml")])
      p("")
      p("Endless / site: %.2fx pages/s, %.2fx CPU ms/page." % (e["pps"] / f_["pps"],
                                                           e["cpu_per_page"] / f_["cpu_per_page"]))
    p("")

  slow = {label: summarize(v) for (sc, label), v in by.items() if sc == "slow"}
  latency_ms = float(machine.get("latency_ms", "20"))
  if slow:
    p("## %g ms server latency per response" % latency_ms)
    p("")
    p("Concurrency bound = requests in flight / latency. zcrawl `%s` and `%s`; wget2 `--max-threads %s`." % (
        machine.get("zc_slow"), machine.get("zc_slow16"), machine.get("wget2_threads")))
    p("")
    cores = int(machine.get("cores", "2") or 2)
    p("CPU bound = cores / (the crawler's CPU per page + nginx's, both measured in the same crawl); "
      "of bound: pages/s against the lesser of the two bounds.")
    p("")
    p("| crawler | in flight | concurrency bound | CPU bound | pages stored | wall s | pages/s | of bound | CPU ms/page | user | sys | nginx ms/page | peak RSS MB |")
    p("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    hosts = 4
    for label in with_baselines(("zcrawl-scan", "zcrawl-single", "zcrawl", "zcrawl-myhtml", "zcrawl-blocking",
                                 "zcrawl-16", "wget2"), slow):
      s = slow[label]
      if label == "wget2":
        flight = int(machine.get("wget2_threads", "16"))
      else:
        sixteen = label.split("@")[0] == "zcrawl-16"
        slots, per_host = in_flight(machine.get("zc_slow16" if sixteen else "zc_slow", ""))
        flight = min(slots, per_host * hosts)
      bound = flight * 1000.0 / latency_ms
      nginx = s["nginx_per_page"]
      cpu_bound = cores * 1000.0 / (s["cpu_per_page"] + nginx) if nginx == nginx else float("nan")
      lesser = min(bound, cpu_bound) if cpu_bound == cpu_bound else bound
      p("| %s | %d | %.0f | %.0f | %s | %.1f | %.0f | %.0f%% | %.3f | %.3f | %.3f | %.3f | %.1f |" % (
          label, flight, bound, cpu_bound, stored_cell(s), s["wall"], s["pps"], 100 * s["pps"] / lesser,
          s["cpu_per_page"], s["user_per_page"], s["sys_per_page"], nginx, s["rss_mb"]))
    if "wget2" in slow:
      p("")
      for zl in ("zcrawl-scan", "zcrawl-single", "zcrawl", "zcrawl-myhtml", "zcrawl-blocking", "zcrawl-16"):
        if zl in slow:
          p("%s / wget2: %.2fx pages/s, %.2fx CPU ms/page, %.2fx peak RSS." % (
              zl, slow[zl]["pps"] / slow["wget2"]["pps"],
              slow[zl]["cpu_per_page"] / slow["wget2"]["cpu_per_page"],
              slow[zl]["rss_mb"] / slow["wget2"]["rss_mb"]))
    if "zcrawl-myhtml" in slow and "zcrawl-blocking" in slow:
      m, b = slow["zcrawl-myhtml"], slow["zcrawl-blocking"]
      p("")
      p("Event loop / blocking at %d in flight: %.2fx pages/s, %.2fx CPU ms/page, %.2fx peak RSS." % (
          min(in_flight(machine.get("zc_slow", ""))[0], in_flight(machine.get("zc_slow", ""))[1] * hosts),
          m["pps"] / b["pps"], m["cpu_per_page"] / b["cpu_per_page"], m["rss_mb"] / b["rss_mb"]))
    if "zcrawl-myhtml" in slow and "zcrawl-myhtml" in fast:
      p("")
      p("zcrawl-myhtml at %g ms reaches %.0f%% of its own zero-latency rate in this run (the CPU bound)." % (
          latency_ms, 100 * slow["zcrawl-myhtml"]["pps"] / fast["zcrawl-myhtml"]["pps"]))
    p("")

  struggling_section(machine, by, p)
  web_section(machine, by, p)
  baseline_section(machine, runs, p)
  disk_section(machine, work, p)

  mem = by.get(("memory", "zcrawl-100"))
  if mem and ("fast", "zcrawl") in by:
    small = process_split(mem).get("frontier")
    full = process_split(by[("fast", "zcrawl")]).get("frontier")
    if small and full:
      known = int(machine.get("pages", "20000"))
      p("## Frontier memory")
      p("")
      p("Frontier peak RSS: %.1f MB for the full crawl (%d known URLs), %.1f MB for a 100-URL crawl "
        "(--max-pages 100): (%.1f - %.1f) MB / %d = **%.0f bytes per known URL** (includes the "
        "queues, visited set, leases, link batches in flight and allocator slack)." % (
            full[1] / 1024, known, small[1] / 1024, full[1] / 1024, small[1] / 1024, known - 100,
            (full[1] - small[1]) * 1024 / (known - 100)))
      half_run = by.get(("memory", "zcrawl-half"))
      half = process_split(half_run).get("frontier") if half_run else None
      if half:
        half_known = known // 2
        p("Marginal cost: %.1f MB for a crawl stopped at %d URLs (--max-pages %d): (%.1f - %.1f) MB / "
          "%d = **%.0f bytes per known URL** for the second half of the site's URLs, without the "
          "fixed costs (SQLite's page cache, allocator arenas) that the 100-URL crawl leaves out." % (
              half[1] / 1024, half_known, half_known, full[1] / 1024, half[1] / 1024,
              known - half_known, (full[1] - half[1]) * 1024 / (known - half_known)))
        p("")

  for parser in ("scan", "myhtml", "gumbo"):
    for name, title in (("comm", "CPU samples per process name"),
                        ("dso", "per process name and library"),
                        ("sym", "top functions")):
      path = os.path.join(work, "profile-%s-%s.txt" % (parser, name))
      if os.path.exists(path) and os.path.getsize(path) > 0:
        p("## Profile, --parser %s: %s (perf record -e cpu-clock, zcrawl processes only)" % (parser, title))
        p("")
        p("```")
        out.extend(line.rstrip("\n") for line in open(path))
        p("```")
        p("")

  path = os.path.join(work, "profile-wget2-sym.txt")
  if os.path.exists(path) and os.path.getsize(path) > 0:
    p("## Profile, wget2: top functions (perf record -e cpu-clock, the same site)")
    p("")
    p("```")
    out.extend(line.rstrip("\n") for line in open(path))
    p("```")
    p("")
  syscall_section(machine, work, p)

  sink_section(work, p)
  feed_section(work, p)

  micro = os.path.join(work, "micro.txt")
  if os.path.exists(micro) and os.path.getsize(micro) > 0:
    p("## Microbenchmarks (Google Benchmark, one thread)")
    p("")
    p("```")
    for line in open(micro):
      line = line.rstrip("\n")
      # Keep the result lines; drop the per-binary preamble (date, caches).
      if (not line.strip() or line.startswith(("***WARNING***", "Running ", "Run on ", "CPU Caches", "  L",
                                                "Load Average")) or re.match(r"\d{4}-\d\d-\d\dT", line)):
        continue
      out.append(line)
    p("```")
  print("\n".join(out))


if __name__ == "__main__":
  main()
