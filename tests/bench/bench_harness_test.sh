#!/usr/bin/env bash
# bench_harness_test.sh REPO_ROOT BIN_DIR: run_bench.sh's --baseline-bin and
# --tmpfs on a small site, the real crawls against the real nginx.
#
# The baseline is a copy of BIN_DIR whose zcrawl-fetcher notes each start in
# a file before it execs the real one, so the test proves the baseline's
# programs ran (and only in the baseline's crawls). Checked: one warm-up
# crawl per build, not counted; both builds crawl every round, in flipped
# order; every crawl stores the whole site;
# each round's dd probe is recorded; user and sys CPU are logged per crawl;
# the report compares the builds; the tmpfs output folder is gone after.
# Exits 77 (skipped) without nginx and its echo module (bench packages).
set -euo pipefail
REPO="$(cd "${1:?usage: bench_harness_test.sh REPO_ROOT BIN_DIR}" && pwd)"
BIN="$(cd "${2:?usage: bench_harness_test.sh REPO_ROOT BIN_DIR}" && pwd)"

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ] ||
   [ ! -f /usr/lib/nginx/modules/ngx_http_echo_module.so ]; then
  echo "skipped: needs nginx and libnginx-mod-http-echo (./run deps bench)"
  exit 77
fi

TMP="$(mktemp -d /tmp/zcrawl-bench-harness-test.XXXXXX)"
chmod 755 "$TMP"  # nginx's workers (www-data) read the site below it
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The baseline: the same programs, its fetcher counting its starts.
mkdir -p "$TMP/base"
for b in zcrawl-crawl zcrawl-frontier zcrawl-writer; do cp "$BIN/$b" "$TMP/base/$b"; done
cp "$BIN/zcrawl-fetcher" "$TMP/base/zcrawl-fetcher.real"
cat > "$TMP/base/zcrawl-fetcher" <<SCRIPT
#!/bin/sh
echo started >> "$TMP/baseline-fetcher-starts"
exec "$TMP/base/zcrawl-fetcher.real" "\$@"
SCRIPT
chmod +x "$TMP/base/zcrawl-fetcher"
echo "test-baseline" > "$TMP/base/.zcrawl-source-rev"

shm_before="$(ls -d /dev/shm/zcrawl-bench-out.* 2>/dev/null | sort || true)"
WORK="$TMP/work"
# ZCRAWL_NO_INSTALL: a test never calls apt-get (wget2, wrk are not needed here).
ZCRAWL_NO_INSTALL=1 "$REPO/bench/run_bench.sh" "$BIN" --work "$WORK" --only fast --crawlers zcrawl-myhtml \
  --pages-per-host 40 --repeats 2 --tmpfs --baseline-bin "$TMP/base" --port $((20000 + RANDOM % 20000)) \
  > "$TMP/report.md" 2> "$TMP/bench.log" || { cat "$TMP/bench.log" >&2; fail "run_bench.sh exited non-zero"; }

# Both builds every round, this one first in odd rounds and last in even ones.
order="$(cut -f2,3 "$WORK/runs.tsv" | tr '\t' ' ' | paste -sd, -)"
[ "$order" = "zcrawl-myhtml 1,zcrawl-myhtml@base 1,zcrawl-myhtml@base 2,zcrawl-myhtml 2" ] ||
  fail "crawl order: $order"
# Every crawl stored the whole site (4 hosts x 40 pages) and exited 0.
awk -F'\t' '$4 != 160 || $5 != 160 || $10 != 0 { bad = 1; print "bad crawl: " $0 > "/dev/stderr" } END { exit bad }' \
  "$WORK/runs.tsv" || fail "a crawl did not store the whole site"
# User and sys CPU logged per crawl, and they add up to the crawl's CPU.
awk -F'\t' '{ if (match($11, /user_ms:[0-9]+,sys_ms:[0-9]+/) == 0) exit 1
              split(substr($11, RSTART, RLENGTH), f, /[:,]/); if (f[2] + f[4] != $7) exit 1 }' \
  "$WORK/runs.tsv" || fail "user_ms/sys_ms missing or not summing to cpu_ms: $(cat "$WORK/runs.tsv")"
# One warm-up crawl per build first, not counted among the rounds.
[ "$(cut -f2 "$WORK/warmup.tsv" | paste -sd, -)" = "warmup,warmup@base" ] ||
  fail "warm-up crawls: $(cat "$WORK/warmup.tsv")"
# The baseline's programs ran: two fetchers (the "fast" flags) in each of its
# 3 crawls (warm-up and 2 rounds).
starts="$(wc -l < "$TMP/baseline-fetcher-starts" 2>/dev/null || echo 0)"
[ "$starts" = 6 ] || fail "baseline fetcher started $starts times, not 6"
# A dd probe before each round, on the tmpfs.
[ "$(wc -l < "$WORK/disk.tsv")" = 2 ] || fail "disk.tsv: $(cat "$WORK/disk.tsv")"
grep -q '^out_fs=tmpfs$' "$WORK/machine.txt" || fail "outputs not on a tmpfs: $(cat "$WORK/machine.txt")"
grep -q "^baseline=$TMP/base (test-baseline)$" "$WORK/machine.txt" || fail "baseline not named in machine.txt"
# The report compares the two builds over both rounds.
grep -q '^## This build against the baseline' "$TMP/report.md" || fail "no baseline section in the report"
grep -qE '^\| fast \| zcrawl-myhtml \| 2 \| [0-9.]+ \(' "$TMP/report.md" || fail "no paired row in the report"
# The tmpfs folder holds RAM: it must be gone.
shm_after="$(ls -d /dev/shm/zcrawl-bench-out.* 2>/dev/null | sort || true)"
[ "$shm_after" = "$shm_before" ] || fail "tmpfs output left behind: $shm_after"
echo "ok: 4 crawls, both builds, alternated, tmpfs removed"
