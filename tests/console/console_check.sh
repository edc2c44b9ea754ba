#!/usr/bin/env bash
# The web console of a real crawl in a real browser (console_check.js):
# a slow local site (slow_site.py, its requests logged), `./run crawl` of
# it with the console on (as by default), the console's address read from
# the crawl's beacon, and chromium driven through it. Saves the screenshot
# to $1 (default: the work folder; docs/console.png is one, taken so).
#   tests/console/console_check.sh [SCREENSHOT.png]
# Needs /usr/bin/chromium (TEST_PACKAGES) and playwright-core (tests/node,
# installed by ./run test into build/node); exits 77 (skipped) without them.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$REPO/tests/console"
BIN="${ZCRAWL_BIN_DIR:-$REPO/build/bin}"
NODE_MODULES="${ZCRAWL_NODE_MODULES:-$(dirname "$BIN")/node/node_modules}"
skip() { echo "SKIP: $*"; exit 77; }
[ -x /usr/bin/chromium ] || skip "no /usr/bin/chromium (./run deps test installs it)"
command -v node >/dev/null || skip "no node"
[ -f "$NODE_MODULES/playwright-core/package.json" ] || skip "no playwright-core in $NODE_MODULES"

WORK="$(mktemp -d /tmp/zcrawl-console.XXXXXX)"
SHOT="${1:-$WORK/console.png}"
# shellcheck source=tests/support/script_servers.sh
. "$REPO/tests/support/script_servers.sh"

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 "$HERE/slow_site.py" "$PORT" "$WORK/site.log" >"$WORK/site.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.2/$PORT") 2>/dev/null && break; sleep 0.1; done

ZCRAWL_NO_BUILD=1 ZCRAWL_BIN_DIR="$BIN" "$REPO/run" crawl "http://127.0.0.1:$PORT/" "http://127.0.0.2:$PORT/" --out "$WORK/out" \
  --delay-ms 200 --per-host 1 --fetchers 1 >"$WORK/crawl.log" 2>&1 &
PIDS+=($!)
URL=""
for _ in $(seq 100); do
  URL="$(sed -n 's/^console \(http[^ ]*\).*/\1/p' "$WORK/out/.zcrawl/frontier.beacon" 2>/dev/null | head -1)"
  [ -n "$URL" ] && break
  sleep 0.1
done
[ -n "$URL" ] || { cat "$WORK/crawl.log"; echo "FAIL: no console address in the crawl's beacon"; exit 1; }
echo "console at $URL"
# Three more viewers asking 20 times a second each, beside the browser:
# the frontier still builds one snapshot a second (and one per control).
started=$(date +%s)
for _ in 1 2 3; do
  (while :; do curl -s -o /dev/null "${URL}api/status"; sleep 0.05; done) &
  PIDS+=($!)
done
NODE_PATH="$NODE_MODULES" node "$HERE/console_check.js" "$URL" "$WORK/site.log" "$SHOT" "http://127.0.0.2:$PORT" && failed=0
elapsed=$(( $(date +%s) - started + 1 ))
snapshots="$(curl -s "${URL}metrics" | awk '$1 == "zcrawl_frontier_console_snapshots_total" { print $2 }')"
# Three controls (pause, block, resume) add one each.
if [ -n "$snapshots" ] && [ "${snapshots%.*}" -le $((elapsed + 3 + 2)) ] && [ "${snapshots%.*}" -ge $((elapsed / 2)) ]; then
  echo "OK   one snapshot a second for every viewer: $snapshots in ${elapsed} s"
else
  echo "FAIL snapshots built: '$snapshots' in ${elapsed} s (at most one a second expected)"
  failed=1
fi
exit "$failed"
