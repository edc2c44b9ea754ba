#!/usr/bin/env python3
"""Medians of frontier_scale_bench's 10-s samples by band of known URLs, for
runs compared side by side (per_ip_rounds.sh's on/off CSVs, bench/RESULTS.md
runs BA-BC).

    band_medians.py NAME=FILE.csv [NAME=FILE.csv ...]

For each band (1-2, 1.5-2, 1.8-2 x 10^8, and the last half of each run's
samples) prints the samples counted and the medians of leases/s and new
URLs/s per run; then each run's time to its last sample's known URLs and
peak RSS. Several files under one NAME (NAME=a.csv NAME=b.csv) are pooled.
"""
import csv
import statistics
import sys

BANDS = ((1.0e8, 2.0e8), (1.5e8, 2.0e8), (1.8e8, 2.0e8))


def read(path):
    with open(path) as f:
        return [{k: float(v) for k, v in row.items() if v not in ("", None)} for row in csv.DictReader(f)]


def main():
    runs = {}
    for arg in sys.argv[1:]:
        name, path = arg.split("=", 1)
        runs.setdefault(name, []).append(read(path))
    names = list(runs)
    print("band\t" + "\t".join("%s: samples, leases/s, new URLs/s" % n for n in names))
    for lo, hi in BANDS:
        cells = []
        for n in names:
            rows = [r for run in runs[n] for r in run if lo <= r["known_urls"] <= hi]
            if rows:
                cells.append("%d, %.1fk, %.1fk" % (len(rows), statistics.median(r["leases_per_s"] for r in rows) / 1e3,
                                                   statistics.median(r["new_urls_per_s"] for r in rows) / 1e3))
            else:
                cells.append("-")
        print("%.1f-%.1f x 10^8\t%s" % (lo / 1e8, hi / 1e8, "\t".join(cells)))
    cells = []
    for n in names:
        rows = [r for run in runs[n] for r in run[len(run) // 2:]]
        cells.append("%d, %.1fk, %.1fk" % (len(rows), statistics.median(r["leases_per_s"] for r in rows) / 1e3,
                                           statistics.median(r["new_urls_per_s"] for r in rows) / 1e3))
    print("last half of each run\t" + "\t".join(cells))
    for n in names:
        for i, run in enumerate(runs[n]):
            last = run[-1]
            print("%s #%d: %.0f known URLs at %.0f s, peak RSS %.0f MB" % (
                n, i + 1, last["known_urls"], last["elapsed_s"], max(r.get("hwm_mb", 0) for r in run)))


if __name__ == "__main__":
    main()
