#!/usr/bin/env bash
# Runs the long chaos test N times with seeds 1..N and tallies the runs:
# how many passed, how many kills hit each kind, and the duplicates found in
# the WARC files by warcio's count. For exactly-once under writer kills
# (issue 47): with most extra kills aimed at the writer, a defect that shows
# in one run of two cannot pass 50 runs unseen (2^-50).
#
#   bench/chaos/repeat.sh BIN_DIR RUNS [RESULTS_FILE]
# Environment: as chaos_test (ZCRAWL_CHAOS_PAGES, _KILLS, _KINDS, _FORMAT,
# _DELAY_MS); defaults here: 1,500 pages, 10 kills, extra kills on the writer,
# WARC beside files. Each run has a time limit (CHAOS_RUN_TIMEOUT_S, 600).
set -uo pipefail
bin="${1:?bin dir}"
runs="${2:?runs}"
results="${3:-/dev/stdout}"
export ZCRAWL_CHAOS_PAGES="${ZCRAWL_CHAOS_PAGES:-1500}"
export ZCRAWL_CHAOS_KILLS="${ZCRAWL_CHAOS_KILLS:-10}"
export ZCRAWL_CHAOS_KINDS="${ZCRAWL_CHAOS_KINDS:-writer}"
export ZCRAWL_CHAOS_FORMAT="${ZCRAWL_CHAOS_FORMAT:-warc,files}"
export ZCRAWL_BIN_DIR="$bin"
passed=0
failed=0
for seed in $(seq 1 "$runs"); do
  log="$(mktemp)"
  ZCRAWL_CHAOS_SEED="$seed" timeout "${CHAOS_RUN_TIMEOUT_S:-600}" "$bin/chaos_test" >"$log" 2>&1
  rc=$?
  figures="$(grep -m1 '^chaos:' "$log" || echo "chaos: no figures (rc $rc)")"
  if [ "$rc" -eq 0 ]; then passed=$((passed + 1)); verdict=pass; else failed=$((failed + 1)); verdict=FAIL; fi
  printf '%s seed=%s %s\n' "$verdict" "$seed" "${figures#chaos: }" >>"$results"
  [ "$rc" -eq 0 ] || grep -E 'Failure|Expected|Which is|a page captured' "$log" | head -20 >>"$results"
  rm -f "$log"
done
printf '%s passed, %s failed\n' "$passed" "$failed" >>"$results"
[ "$failed" -eq 0 ]
