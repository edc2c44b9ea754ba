#!/bin/sh
# plot.sh CSV PNG: draws a frontier_scale_bench CSV as one PNG of four
# panels against the URLs the frontier knows: the rates (seen checks, new
# URLs, leases, links reported per second), the frontier's RSS and peak
# RSS, its RSS and disk bytes per known URL, and the duplicate share of
# reported links beside the frontier's CPU in cores.
#
# Uses gnuplot (Debian: gnuplot-nox) if installed, else python3 with
# matplotlib (Debian: python3-matplotlib); FRONTIER_PLOT_TOOL=gnuplot or
# =matplotlib picks one. Columns are found by their header names, so extra
# columns in later CSVs do not break it.
set -eu

if [ $# -ne 2 ]; then
  echo "usage: $0 CSV PNG" >&2
  exit 2
fi
csv=$1
png=$2
if [ ! -r "$csv" ]; then
  echo "plot.sh: cannot read $csv" >&2
  exit 2
fi
if [ "$(wc -l < "$csv")" -lt 2 ]; then
  echo "plot.sh: $csv has no samples (only a header, or nothing)" >&2
  exit 2
fi
for column in known_urls seen_checks_per_s new_urls_per_s leases_per_s rss_mb hwm_mb disk_bytes_per_url; do
  if ! head -n 1 "$csv" | tr ',' '\n' | grep -qx "$column"; then
    echo "plot.sh: $csv has no column $column: not a frontier_scale_bench CSV?" >&2
    exit 2
  fi
done

# The first python3 that has matplotlib: the one on PATH may be another
# installation (pyenv, a venv) than Debian's, which python3-matplotlib fills.
python=
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import matplotlib' > /dev/null 2>&1; then
    python=$candidate
    break
  fi
done
tool=${FRONTIER_PLOT_TOOL:-}
if [ -z "$tool" ]; then
  if command -v gnuplot > /dev/null 2>&1; then
    tool=gnuplot
  elif [ -n "$python" ]; then
    tool=matplotlib
  fi
fi
if [ -z "$tool" ] || { [ "$tool" = gnuplot ] && ! command -v gnuplot > /dev/null 2>&1; } ||
   { [ "$tool" = matplotlib ] && [ -z "$python" ]; }; then
  echo "plot.sh: needs gnuplot or python3 with matplotlib; install one:" >&2
  echo "  sudo apt-get install gnuplot-nox      (or: sudo apt-get install python3-matplotlib)" >&2
  exit 1
fi

has_column() { head -n 1 "$csv" | tr ',' '\n' | grep -qx "$1"; }

case $tool in
gnuplot)
  terminal="pngcairo size 1400,1000 font ',10'"
  if ! gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo; then
    terminal="png size 1400,1000"
  fi
  # Older CSVs may lack the optional columns: their lines are left out.
  links_line=""
  has_column links_reported_per_s &&
    links_line=", '' using (column('known_urls')/1e6):(column('links_reported_per_s')) with linespoints title 'links reported/s'"
  rss_per_url_line=""
  has_column rss_bytes_per_url &&
    rss_per_url_line=", '' using (column('known_urls')/1e6):(column('rss_bytes_per_url')) with linespoints title 'RSS B/URL'"
  share_plot="set title 'no duplicate_share column'; unset key; plot 0 notitle"
  if has_column duplicate_share && has_column frontier_cores; then
    share_plot="set title 'duplicate share of reported links, frontier CPU'; set ylabel 'duplicate share'; \
set y2label 'CPU cores'; set ytics nomirror; set y2tics; set yrange [0:1]; set y2range [0:*]; \
plot '$csv' using (column('known_urls')/1e6):(column('duplicate_share')) with linespoints title 'duplicate share', \
'' using (column('known_urls')/1e6):(column('frontier_cores')) axes x1y2 with linespoints title 'frontier CPU (cores)'"
  fi
  gnuplot <<EOF
set terminal $terminal
set output '$png'
set datafile separator ','
set grid
set key below horizontal
set xlabel 'known URLs (millions)'
set multiplot layout 2,2 title 'frontier scale: $(basename "$csv")' noenhanced
set title 'rates'
set ylabel 'per second'
set yrange [0:*]
plot '$csv' using (column('known_urls')/1e6):(column('seen_checks_per_s')) with linespoints title 'seen checks/s', \
     '' using (column('known_urls')/1e6):(column('new_urls_per_s')) with linespoints title 'new URLs/s', \
     '' using (column('known_urls')/1e6):(column('leases_per_s')) with linespoints title 'leases/s'$links_line
set title 'frontier memory'
set ylabel 'MB'
plot '$csv' using (column('known_urls')/1e6):(column('rss_mb')) with linespoints title 'RSS', \
     '' using (column('known_urls')/1e6):(column('hwm_mb')) with linespoints title 'peak RSS (VmHWM)'
set title 'bytes per known URL'
set ylabel 'bytes / URL'
set logscale y
set yrange [*:*]
plot '$csv' using (column('known_urls')/1e6):(column('disk_bytes_per_url')) with linespoints title 'disk B/URL'$rss_per_url_line
unset logscale y
$share_plot
unset multiplot
EOF
  ;;
matplotlib)
  "$python" - "$csv" "$png" <<'EOF'
import csv
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

path, png = sys.argv[1], sys.argv[2]
with open(path, newline="") as f:
    rows = list(csv.DictReader(f))
def col(name):
    return [float(r[name]) for r in rows] if rows and name in rows[0] else None
x = [v / 1e6 for v in col("known_urls")]
fig, axes = plt.subplots(2, 2, figsize=(14, 10))
fig.suptitle("frontier scale: " + os.path.basename(path))
def lines(ax, title, ylabel, series, log=False):
    for name, label in series:
        values = col(name)
        if values is not None:
            ax.plot(x, values, marker="o", markersize=3, label=label)
    ax.set_title(title)
    ax.set_xlabel("known URLs (millions)")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.grid(True)
    ax.legend()
lines(axes[0][0], "rates", "per second", [("seen_checks_per_s", "seen checks/s"), ("new_urls_per_s", "new URLs/s"),
      ("leases_per_s", "leases/s"), ("links_reported_per_s", "links reported/s")])
lines(axes[0][1], "frontier memory", "MB", [("rss_mb", "RSS"), ("hwm_mb", "peak RSS (VmHWM)")])
lines(axes[1][0], "bytes per known URL", "bytes / URL",
      [("disk_bytes_per_url", "disk B/URL"), ("rss_bytes_per_url", "RSS B/URL")], log=True)
ax = axes[1][1]
share, cores = col("duplicate_share"), col("frontier_cores")
ax.set_title("duplicate share of reported links, frontier CPU")
ax.set_xlabel("known URLs (millions)")
ax.grid(True)
if share is not None:
    ax.plot(x, share, marker="o", markersize=3, label="duplicate share")
    ax.set_ylim(0, 1)
    ax.set_ylabel("duplicate share")
    ax.legend(loc="lower left")
if cores is not None:
    right = ax.twinx()
    right.plot(x, cores, marker="o", markersize=3, color="tab:red", label="frontier CPU (cores)")
    right.set_ylim(bottom=0)
    right.set_ylabel("CPU cores")
    right.legend(loc="lower right")
fig.tight_layout()
fig.savefig(png, dpi=100)
EOF
  ;;
*)
  echo "plot.sh: FRONTIER_PLOT_TOOL must be gnuplot or matplotlib, not $tool" >&2
  exit 2
  ;;
esac
echo "wrote $png"
