#!/usr/bin/env bash
# Does a WACZ that zcrawl writes replay in ReplayWeb.page with its styles,
# images and font? Crawls a small local site (make_site.py) with
# `./run crawl --format wacz`, stops the site, serves the WACZ beside
# ReplayWeb.page's ui.js and replay/sw.js, and lets replay_check.js open it in
# headless Chromium and read the replayed page back.
#   tests/replay/replay_check.sh [--keep]   (from the repo root)
# --keep: keep the work folder (site, crawl, replay folder, screenshot); it
#   is kept anyway when a check failed.
# Needs /usr/bin/chromium (apt-get install chromium) and the npm packages
# replaywebpage and playwright-core in $ZCRAWL_REPLAY_TOOLS (default
# /work/replay-tools/node_modules); exits 77 (skipped) without them. As
# checked on 2026-12-03 (ReplayWeb.page 2.5.3, Chromium 156):
#   apt-get install -y chromium
#   mkdir -p /work/replay-tools && cd /work/replay-tools && npm init -y
#   npm pkg set private=true overrides.warcio=2.4.11   # the newest warcio
#                      # the registry here has; ui.js and sw.js come built
#   npm install replaywebpage@2.5.3 playwright-core
# Uses the programs already built in $ZCRAWL_BIN_DIR (default build/bin;
# ZCRAWL_NO_BUILD=1). In ./run test it is replay_check_test, skipped where
# the tools are missing.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$REPO/tests/replay"
TOOLS="${ZCRAWL_REPLAY_TOOLS:-/work/replay-tools/node_modules}"
KEEP=0
for arg in "$@"; do
  case "$arg" in
    --keep) KEEP=1 ;;
    *) echo "usage: $0 [--keep]" >&2; exit 2 ;;
  esac
done

skip() { echo "SKIP: $*"; exit 77; }
[ -x /usr/bin/chromium ] || skip "no /usr/bin/chromium (apt-get install chromium)"
command -v node >/dev/null || skip "no node"
for m in replaywebpage/ui.js replaywebpage/sw.js playwright-core/package.json; do
  [ -f "$TOOLS/$m" ] || skip "no $TOOLS/$m (npm install replaywebpage playwright-core)"
done
BIN="${ZCRAWL_BIN_DIR:-$REPO/build/bin}"
[ -x "$BIN/zcrawl-crawl" ] || skip "zcrawl not built ($BIN/zcrawl-crawl)"

START=$SECONDS
WORK="$(mktemp -d /tmp/zcrawl-replay.XXXXXX)"
# Servers are ours alone: stopped by PID however the script ends.
# shellcheck source=tests/support/script_servers.sh
. "$REPO/tests/support/script_servers.sh"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# serve DIR PORT: python's static server on 127.0.0.1, up before returning.
serve() {
  (cd "$1" && exec python3 -m http.server --bind 127.0.0.1 "$2" >"$WORK/server-$2.log" 2>&1) &
  PIDS+=($!)
  for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$2/" && return 0
    sleep 0.1
  done
  echo "FAIL: server on port $2 did not start"; exit 1
}

# 1. The site, and a crawl of it.
REAL_FONT=$(python3 "$HERE/make_site.py" "$WORK/site") || exit 1
SITE_PORT=$(free_port)
serve "$WORK/site" "$SITE_PORT"
SEED="http://127.0.0.1:$SITE_PORT/"
echo "crawling $SEED"
if ! (cd "$REPO" && ZCRAWL_NO_BUILD=1 ZCRAWL_BIN_DIR="$BIN" timeout 300 ./run crawl "$SEED" --format wacz \
        --out "$WORK/crawl" --fetchers 1 >"$WORK/crawl.log" 2>&1); then
  tail -20 "$WORK/crawl.log"; echo "FAIL: crawl (log: $WORK/crawl.log)"; exit 1
fi
# From here on only the archive can answer for the site.
kill "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null
WACZ="$WORK/crawl/crawl.wacz"
if [ ! -f "$WACZ" ]; then
  (cd "$REPO" && ZCRAWL_NO_BUILD=1 ZCRAWL_BIN_DIR="$BIN" ./run pack "$WORK/crawl" "$WACZ") || { echo "FAIL: no WACZ"; exit 1; }
fi

# 2. The replay folder: the embedding page, ui.js, and sw.js under the
# replayBase path, whose scope the service worker then controls.
mkdir -p "$WORK/replay/replay"
cp "$TOOLS/replaywebpage/ui.js" "$WORK/replay/"
cp "$TOOLS/replaywebpage/sw.js" "$WORK/replay/replay/"
cp "$WACZ" "$WORK/replay/crawl.wacz"
cat >"$WORK/replay/index.html" <<EOF
<!doctype html>
<html><head><meta charset="utf-8"><script src="ui.js"></script></head>
<body style="margin:0">
<replay-web-page style="display:block;height:680px" source="crawl.wacz"
  url="$SEED" replayBase="./replay/" embed="replayonly"></replay-web-page>
</body></html>
EOF
REPLAY_PORT=$(free_port)
serve "$WORK/replay" "$REPLAY_PORT"

# 3. The replay, checked from inside the replayed page.
SHOT="$WORK/replay.png"
NODE_PATH="$TOOLS" timeout 180 node "$HERE/replay_check.js" \
  "http://127.0.0.1:$REPLAY_PORT/index.html" "$SEED" "$SHOT" \
  "$([ "$REAL_FONT" = real ] && echo 1 || echo 0)"
failed=$?
echo "replay check $([ "$failed" = 0 ] && echo passed || echo FAILED) in $((SECONDS - START)) s"
exit "$failed"
