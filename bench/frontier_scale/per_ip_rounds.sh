#!/bin/bash
# The frontier at scale with per-address budgets on (--per-ip 16) and off
# (--per-ip 0), rounds alternated, the fake fetchers naming an address per
# 4 hosts (issue 49 point 3; bench/RESULTS.md run BA).
#
#   bench/frontier_scale/per_ip_rounds.sh [BIN_DIR [TARGET_URLS [ROUNDS [OUT_DIR]]]]
#
# Each run's log and CSV go to OUT_DIR (default /tmp/per-ip-rounds); the
# medians by band of known URLs: bench/frontier_scale/band_medians.py
# on=OUT_DIR/on-1.csv off=OUT_DIR/off-1.csv (runs BB, BC).
set -u
bin=${1:-build/bin}
target=${2:-20000000}
rounds=${3:-2}
out=${4:-/tmp/per-ip-rounds}
mkdir -p "$out"
for ((round = 1; round <= rounds; round++)); do
  for mode in on off; do
    if [ "$mode" = on ]; then per_ip=16; else per_ip=0; fi
    state="$out/state-$mode"
    rm -rf "$state"
    timeout 3600 "$bin/frontier_scale_bench" --frontier-bin "$bin/zcrawl-frontier" --state "$state" \
      --memory-mb 1200 --children 3 --known-links 12 --target-urls "$target" --max-seconds 3000 \
      --hosts-per-address 4 --every-s 10 --csv "$out/$mode-$round.csv" -- --per-ip "$per_ip" \
      > "$out/$mode-$round.log" 2>&1
    echo "round $round per-ip $mode: exit $? $(grep 'seen checks' "$out/$mode-$round.log")"
    rm -rf "$state"
  done
done
