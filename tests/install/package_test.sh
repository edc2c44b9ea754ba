#!/usr/bin/env bash
# shellcheck disable=SC2317  # helpers are called through check()
# The Debian package of `./run package`: made from a build folder with
# tools/make_package.sh (or an existing .deb), unpacked with dpkg-deb -x into
# a temporary root, and used from there: its declared dependencies, every
# program's --help, the systemd units and the programs they start, the example
# configs, the postinst, and zcrawl-crawl starting its siblings from the
# unpacked usr/bin in a crawl of a one-page site (python3's http.server).
#   package_test.sh BUILD_DIR | FILE.deb
# Exits 77 (skipped) without dpkg-deb, cpack or dpkg-shlibdeps.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
ARG="${1:?usage: package_test.sh BUILD_DIR | FILE.deb}"
mapfile -t PROGRAMS < <(grep -v '^#' "$REPO/deploy/programs.txt")
UNITS=(zcrawl-frontier.service zcrawl-writer.service zcrawl-fetcher@.service)

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { printf 'FAIL: %s\n' "$*"; failed=$((failed + 1)); }
# check DESCRIPTION CMD...: CMD's status is the check's result.
check() {
  local what="$1"; shift
  if "$@"; then pass; else fail "$what"; fi
}
# Every library found on this machine; no RUNPATH into a build folder.
missing_libraries() { ldd "$1" 2>&1 | grep 'not found' | tr -s ' \t' ' '; }
has_no_missing_libraries() { [ -z "$(missing_libraries "$1")" ]; }
has_no_runpath() { ! readelf -d "$1" 2>/dev/null | grep -qE 'RPATH|RUNPATH'; }
finish() {
  printf 'package_test: %d passed, %d failed\n' "$passed" "$failed"
  [ "$failed" -eq 0 ] && exit 0
  exit 1
}

tools=(dpkg-deb)
[ -f "$ARG" ] || tools+=(cpack dpkg-shlibdeps)
for t in "${tools[@]}"; do
  if ! command -v "$t" >/dev/null 2>&1; then
    echo "package_test: skipped: $t not found (./run deps package installs it)"
    exit 77
  fi
done

WORK="$(mktemp -d /tmp/zcrawl-package-test.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# The package.
if [ -f "$ARG" ]; then
  DEB="$ARG"
elif ! DEB="$("$REPO/tools/make_package.sh" "$ARG" 2>"$WORK/make_package.log")"; then
  cat "$WORK/make_package.log"
  fail "tools/make_package.sh $ARG"
  finish
fi
check "the package $DEB exists" test -f "$DEB"

# Its control fields.
fields="$(dpkg-deb --field "$DEB" Package Version Architecture Depends 2>&1)" || fields=""
depends="$(dpkg-deb --field "$DEB" Depends 2>/dev/null)"
echo "Depends: $depends"
check "dpkg-deb reads its fields" test -n "$fields"
check "Package is zcrawl" test "$(dpkg-deb --field "$DEB" Package 2>/dev/null)" = zcrawl
# Debian 12 names of the libraries (dpkg -S /usr/lib/x86_64-linux-gnu/libzmq.so.5 ...).
for dep in libzmq5 libcurl4 adduser; do
  check "Depends lists $dep: '$depends'" grep -qE "(^|, )$dep( |,|$)" <<<"$depends"
done

# Unpacked into a temporary root.
ROOT="$WORK/root"
mkdir -p "$ROOT"
if ! dpkg-deb -x "$DEB" "$ROOT" 2>"$WORK/x.log"; then
  cat "$WORK/x.log"
  fail "dpkg-deb -x $DEB"
  finish
fi
BIN="$ROOT/usr/bin"

for p in "${PROGRAMS[@]}"; do
  if [ ! -x "$BIN/$p" ]; then
    fail "usr/bin/$p is in the package"
    continue
  fi
  pass
  help="$("$BIN/$p" --help 2>&1)"
  rc=$?
  check "usr/bin/$p --help exits 0 (got $rc)" test "$rc" -eq 0
  check "usr/bin/$p --help prints its usage" test -n "$help"
  if command -v ldd >/dev/null 2>&1; then
    check "usr/bin/$p finds all its libraries:$(missing_libraries "$BIN/$p")" has_no_missing_libraries "$BIN/$p"
  fi
  if command -v readelf >/dev/null 2>&1; then
    check "usr/bin/$p has no RPATH/RUNPATH" has_no_runpath "$BIN/$p"
  fi
done

# The systemd units, each starting a program of the package with a config
# under /etc/zcrawl.
UNIT_DIR=""
for d in usr/lib/systemd/system lib/systemd/system; do
  [ -d "$ROOT/$d" ] && UNIT_DIR="$ROOT/$d" && break
done
for u in "${UNITS[@]}"; do
  if [ -z "$UNIT_DIR" ] || [ ! -f "$UNIT_DIR/$u" ]; then
    fail "lib/systemd/system/$u is in the package"
    continue
  fi
  pass
  exec_start="$(sed -n 's/^ExecStart=//p' "$UNIT_DIR/$u")"
  program="${exec_start%% *}"
  check "$u starts a program of the package ($program)" \
    test -n "$program" -a -x "$ROOT$program" -a "${program#/usr/bin/}" != "$program"
  check "$u reads /etc/zcrawl/*.toml ($exec_start)" grep -qE -- '--config /etc/zcrawl/[a-z]+\.toml' <<<"$exec_start"
  check "$u runs as the user zcrawl" grep -qx 'User=zcrawl' "$UNIT_DIR/$u"
done

# Documentation, and example configs every program reads as they are.
DOC="$ROOT/usr/share/doc/zcrawl"
for f in README.md docs/DEPLOY.md docs/CONFIG.md; do
  check "usr/share/doc/zcrawl/$f is in the package" test -f "$DOC/$f"
done
for role in frontier writer fetcher; do
  cfg="$DOC/examples/$role.toml"
  if [ ! -f "$cfg" ]; then
    fail "usr/share/doc/zcrawl/examples/$role.toml is in the package"
    continue
  fi
  pass
  out="$("$BIN/zcrawl-$role" --config "$cfg" --print-config 2>&1)"
  rc=$?
  check "zcrawl-$role reads examples/$role.toml (exit $rc): $(head -c 300 <<<"$out")" test "$rc" -eq 0
done

# The postinst: creates the user, valid shell.
mkdir -p "$WORK/control"
dpkg-deb -e "$DEB" "$WORK/control" 2>/dev/null
check "the package has an executable postinst" test -x "$WORK/control/postinst"
check "the postinst is valid sh" sh -n "$WORK/control/postinst"
check "the postinst creates the user zcrawl" grep -q 'adduser --system' "$WORK/control/postinst"

# zcrawl-crawl starts frontier, writer and fetcher from its own folder (the
# unpacked usr/bin): a crawl of a one-page site on loopback stores the page.
if [ -x "$BIN/zcrawl-crawl" ] && command -v python3 >/dev/null 2>&1; then
  mkdir -p "$WORK/site"
  echo '<html><head><title>zcrawl package test</title></head><body>packaged</body></html>' \
    >"$WORK/site/index.html"
  python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$WORK/site" >"$WORK/http.log" 2>&1 &
  http_pid=$!
  trap 'kill "$http_pid" 2>/dev/null; wait "$http_pid" 2>/dev/null; rm -rf "$WORK"' EXIT
  port=""
  for _ in $(seq 100); do
    port="$(sed -n 's/.* port \([0-9][0-9]*\) .*/\1/p' "$WORK/http.log")"
    [ -n "$port" ] && break
    sleep 0.1
  done
  check "a local web server for the crawl started: $(cat "$WORK/http.log")" test -n "$port"
  out="$(cd "$WORK" && timeout 120 "$BIN/zcrawl-crawl" --out "$WORK/crawl-out" --fetchers 1 --threads 2 \
           --no-robots --log-level warn "http://127.0.0.1:$port/" 2>&1)"
  rc=$?
  check "zcrawl-crawl from the unpacked usr/bin runs a crawl (exit $rc): $(tail -n 5 <<<"$out")" test "$rc" -eq 0
  check "the crawl stored the page" grep -qr 'packaged' "$WORK/crawl-out" --include=index.html --exclude-dir=.zcrawl
else
  echo "package_test: python3 not found: the crawl from the unpacked files is not checked"
fi

finish
