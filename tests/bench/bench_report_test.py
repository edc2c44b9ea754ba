#!/usr/bin/env python3
"""bench_report.py's comparison of this build with --baseline-bin's.

    bench_report_test.py REPO_ROOT

Writes a run_bench.sh working folder by hand (machine.txt, runs.tsv,
disk.tsv) and checks the report's "This build against the baseline" table:
each cell must be the median of the per-round ratios (this build / the
baseline of the same round), which differs here on purpose from the ratio
of the medians, so a report that pairs crawls wrongly or compares medians
fails. Also: a baseline crawl whose round has no partner is left out, a
figure an older build did not log shows as "-", and each round's dd line is
reported. And the struggling server's table: per crawler, medians (with
their range) of pages stored, time, requests and 429s from the access logs,
and of each round's share refused.
"""
import os
import subprocess
import sys
import tempfile
import unittest

REPO = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
REPORT = os.path.join(REPO, "bench", "bench_report.py")


def run_line(scenario, label, rnd, stored, wall, cpu_ms, user_ms=None, sys_ms=None, frontier_ms=None):
  detail = []
  if user_ms is not None:
    detail += ["user_ms:%d" % user_ms, "sys_ms:%d" % sys_ms]
  if frontier_ms is not None:
    detail.append("frontier:%dms/1000kB" % frontier_ms)
  return "\t".join(str(x) for x in (scenario, label, rnd, stored, stored, wall, cpu_ms, 50000, 0.5, 0,
                                     ",".join(detail)))


def struggling_line(label, rnd, stored, wall, requests, refused):
  detail = "user_ms:1,sys_ms:1,nginx_ms:1,requests:%d,http_429:%d" % (requests, refused)
  return "\t".join(str(x) for x in ("struggling", label, rnd, 1500, stored, wall, 2, 50000, 0.5, 0, detail))


class BaselineReportTest(unittest.TestCase):
  def report(self, lines, disk=()):
    with tempfile.TemporaryDirectory() as work:
      with open(os.path.join(work, "machine.txt"), "w") as f:
        f.write("date=2026-12-02\nbuild=/b/new\nbaseline=/b/old (abc123)\nout_fs=tmpfs\npages=1000\n"
                "struggling=2 hosts x 750 pages, 20 requests/s per host\nrepeats=3\n")
      with open(os.path.join(work, "runs.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
      with open(os.path.join(work, "disk.tsv"), "w") as f:
        f.write("".join("%s\t%s\t%s\n" % d for d in disk))
      return subprocess.run([sys.executable, REPORT, work], check=True, capture_output=True, text=True).stdout

  def row(self, text, scenario, label):
    for line in text.splitlines():
      cells = [c.strip() for c in line.strip("|").split("|")]
      if cells[:2] == [scenario, label]:
        return cells
    self.fail("no row %s %s in:\n%s" % (scenario, label, text))

  def test_cells_are_medians_of_same_round_ratios(self):
    # pages/s this: 1000, 500, 2000; baseline: 500, 1000, 1000 -> ratios 2, 0.5, 2: median 2.
    # (The ratio of the medians would be 1000 / 1000 = 1.)
    # CPU ms/page this: 1.0, 2.0, 0.4; baseline: 2.0, 1.0, 0.5 -> 0.5, 2, 0.8: median 0.8
    # (medians 1.0 / 1.0 = 1).
    lines = [
        run_line("fast", "zcrawl-myhtml", 1, 1000, 1.0, 1000, 600, 400, 100),
        run_line("fast", "zcrawl-myhtml@base", 1, 1000, 2.0, 2000, 1500, 500, 200),
        run_line("fast", "zcrawl-myhtml@base", 2, 1000, 1.0, 1000, 700, 300, 100),
        run_line("fast", "zcrawl-myhtml", 2, 1000, 2.0, 2000, 1400, 600, 300),
        run_line("fast", "zcrawl-myhtml", 3, 1000, 0.5, 400, 300, 100, 50),
        run_line("fast", "zcrawl-myhtml@base", 3, 1000, 1.0, 500, 400, 100, 50),
        # A baseline round without its partner: not paired, not counted.
        run_line("fast", "zcrawl-myhtml@base", 4, 1000, 0.1, 10, 5, 5, 1),
        # wget2 has no baseline: no row in the table.
        run_line("fast", "wget2", 1, 1000, 0.5, 300, 200, 100),
    ]
    text = self.report(lines, disk=[("fast", "1", "268435456 bytes (268 MB, 256 MiB) copied, 0.5 s, 537 MB/s")])
    self.assertIn("## This build against the baseline", text)
    self.assertIn("/b/old (abc123)", text)
    cells = self.row(text, "fast", "zcrawl-myhtml")
    self.assertEqual(cells[2], "3")  # rounds paired
    self.assertEqual(cells[3], "2.000 (0.50-2.00)")  # pages/s
    self.assertEqual(cells[4], "0.800 (0.50-2.00)")  # CPU ms/page
    # user: 0.6/1.5=0.4, 1.4/0.7=2, 0.3/0.4=0.75 -> 0.75; sys: 0.8, 2, 1 -> 1
    self.assertEqual(cells[5], "0.750 (0.40-2.00)")
    self.assertEqual(cells[6], "1.000 (0.80-2.00)")
    # frontier: 100/200, 300/100, 50/50 -> 0.5, 3, 1 -> 1
    self.assertEqual(cells[7], "1.000 (0.50-3.00)")
    self.assertEqual(cells[8], "-")  # no fetcher figures logged
    self.assertNotIn("| fast | wget2 |", text)
    # The main table lists the baseline's rows beside this build's.
    self.assertIn("| zcrawl-myhtml@base |", text)
    # The disk before the round: 268435456 B / 0.5 s = 537 MB/s.
    self.assertIn("| fast | 1 | 537 |", text)
    self.assertIn("crawl outputs on: tmpfs", text)

  def test_no_baseline_no_section(self):
    text = self.report([run_line("fast", "zcrawl-myhtml", 1, 1000, 1.0, 1000, 600, 400)])
    self.assertNotIn("against the baseline", text)
    self.assertIn("| zcrawl-myhtml |", text)

  def test_struggling_server_table(self):
    lines = [
        struggling_line("zcrawl", 1, 1500, 42.0, 1500, 15),
        struggling_line("wget2", 1, 42, 0.05, 794, 752),
        struggling_line("zcrawl", 2, 1490, 50.0, 1600, 96),
        struggling_line("zcrawl", 3, 1500, 40.0, 2000, 60),
    ]
    text = self.report(lines)
    self.assertIn("## Struggling server: 2 hosts x 750 pages, 20 requests/s per host", text)
    cells = self.row(text, "zcrawl", "1500 (1490-1500) / 1500")
    self.assertEqual(cells[2], "42.0 (40.0-50.0)")  # time to finish
    self.assertEqual(cells[3], "1600 (1500-2000)")  # requests
    self.assertEqual(cells[4], "60 (15-96)")  # 429s
    # The median of each round's share (1%, 6%, 3%), not 60 / 1600.
    self.assertEqual(cells[5], "3.0 (1.0-6.0)")
    cells = self.row(text, "wget2", "42 (42-42) / 1500")
    self.assertEqual(cells[4], "752 (752-752)")
    self.assertNotIn("Struggling server", self.report([run_line("fast", "zcrawl", 1, 1000, 1.0, 1000, 600, 400)]))


if __name__ == "__main__":
  unittest.main()
