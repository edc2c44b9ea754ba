#!/usr/bin/env bash
# The install path of ./run (tools/debian_packages.sh) against stand-in
# dpkg-query, apt-get and sudo: the only programs on PATH. Each stand-in logs
# its calls; dpkg-query answers from a file of "installed" packages that the
# stand-in apt-get install adds to, as the real ones would.
#   install_path_test.sh REPO_ROOT
set -uo pipefail

REPO="$(cd "${1:?usage: install_path_test.sh REPO_ROOT}" && pwd)"
BASH_BIN="$(command -v bash)"
WORK="$(mktemp -d /tmp/zcrawl-install-test.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=../../tools/debian_packages.sh
. "$REPO/tools/debian_packages.sh"

failures=0
checks=0
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); }

# make_tools DIR TOOL...: writes the stand-ins named (dpkg-query apt-get sudo).
make_tools() {
  local dir="$1"; shift
  mkdir -p "$dir"
  local t
  for t in "$@"; do
    case "$t" in
      dpkg-query) cat >"$dir/dpkg-query" <<EOF
#!$BASH_BIN
# dpkg-query -W -f=FORMAT PKG...: one line per installed PKG, an error and
# exit 1 for each unknown one, as dpkg-query does.
# Bash alone: nothing else is on PATH.
echo "dpkg-query \$*" >>"$WORK/calls"
listed() { local l; while read -r l; do [ "\$l" = "\$2" ] && return 0; done <"\$1"; return 1; } 2>/dev/null
shift 2
rc=0
for p in "\$@"; do
  if listed "$WORK/installed" "\$p"; then
    echo "\$p install ok installed"
  elif listed "$WORK/half-installed" "\$p"; then
    echo "\$p install ok half-configured"
  else
    echo "dpkg-query: no packages found matching \$p" >&2; rc=1
  fi
done
exit \$rc
EOF
      ;;
      apt-get) cat >"$dir/apt-get" <<EOF
#!$BASH_BIN
echo "apt-get \$* frontend=\${DEBIAN_FRONTEND:-}" >>"$WORK/calls"
case "\$1" in
  update)
    if [ -f "$WORK/fail-update" ]; then echo "E: The repository is not signed." >&2; exit 100; fi ;;
  install)
    if [ -f "$WORK/fail-install" ]; then echo "E: Unable to locate package libzmq3-dev" >&2; exit 100; fi
    [ -f "$WORK/noop-install" ] && exit 0
    shift
    for p in "\$@"; do
      case "\$p" in -*) ;; *) echo "\$p" >>"$WORK/installed" ;; esac
    done ;;
esac
EOF
      ;;
      sudo) cat >"$dir/sudo" <<EOF
#!$BASH_BIN
# sudo VAR=value... CMD ARGS...: as sudo runs them (the environment reset).
echo "sudo \$*" >>"$WORK/calls"
while [[ "\$1" == *=* ]]; do export "\$1"; shift; done
exec "\$@"
EOF
      ;;
    esac
    chmod +x "$dir/$t"
  done
}

# run_deps NAME EUID TOOLS... -- : runs `./run deps test` with only TOOLS on
# PATH and the given user id; leaves rc, stderr in $WORK/NAME.err.
run_deps() {
  local name="$1" euid="$2"; shift 2
  rm -rf "$WORK/bin" && make_tools "$WORK/bin" "$@"
  : >"$WORK/calls"
  env -i PATH="$WORK/bin" ZCRAWL_TEST_EUID="$euid" "$BASH_BIN" "$REPO/run" deps test \
    >"$WORK/$name.out" 2>"$WORK/$name.err"
  rc=$?
}
calls_matching() { grep -c -- "$1" "$WORK/calls" 2>/dev/null || true; }
all_test_packages=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}")

# 1. Some packages missing, as root: apt-get update once, then an install of
#    exactly the missing ones, non-interactive; then the same call is a no-op.
printf '%s\n' "${all_test_packages[@]}" | grep -vxE 'libgtest-dev|cppzmq-dev|nginx' >"$WORK/installed"
run_deps missing 0 dpkg-query apt-get sudo
check; [ "$rc" -eq 0 ] || fail "missing: exit $rc: $(cat "$WORK/missing.err")"
check; [ "$(calls_matching '^apt-get update')" = 1 ] || fail "missing: apt-get update not called once: $(cat "$WORK/calls")"
check; grep -qx 'apt-get install -y -q --no-install-recommends cppzmq-dev libgtest-dev nginx frontend=noninteractive' "$WORK/calls" \
  || fail "missing: install line wrong: $(grep install "$WORK/calls")"
check; [ "$(calls_matching '^sudo')" = 0 ] || fail "missing: sudo used as root"
check; grep -q 'installing 3 missing Debian packages: cppzmq-dev libgtest-dev nginx' "$WORK/missing.err" \
  || fail "missing: does not say what it installs: $(cat "$WORK/missing.err")"

# 2. Everything present: no apt-get call at all, nothing said.
run_deps present 0 dpkg-query apt-get sudo
check; [ "$rc" -eq 0 ] || fail "present: exit $rc"
check; [ "$(calls_matching '^apt-get')" = 0 ] || fail "present: apt-get called: $(cat "$WORK/calls")"
check; [ "$(calls_matching '^dpkg-query')" = 1 ] || fail "present: dpkg-query not asked"
check; [ ! -s "$WORK/present.err" ] || fail "present: printed: $(cat "$WORK/present.err")"

# 3. Not root: through sudo, which gets DEBIAN_FRONTEND as an argument.
grep -vx nginx "$WORK/installed" >"$WORK/installed.new" && mv "$WORK/installed.new" "$WORK/installed"
run_deps sudo 1000 dpkg-query apt-get sudo
check; [ "$rc" -eq 0 ] || fail "sudo: exit $rc: $(cat "$WORK/sudo.err")"
check; grep -qx 'sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nginx' "$WORK/calls" \
  || fail "sudo: install not through sudo: $(cat "$WORK/calls")"
check; grep -q 'through sudo' "$WORK/sudo.err" || fail "sudo: does not say it uses sudo"

# 4. Not root and no sudo: a clear message naming the packages; no apt-get.
grep -vx nginx "$WORK/installed" >"$WORK/installed.new" && mv "$WORK/installed.new" "$WORK/installed"
run_deps nosudo 1000 dpkg-query apt-get
check; [ "$rc" -ne 0 ] || fail "nosudo: exit 0"
check; grep -q 'needs root' "$WORK/nosudo.err" && grep -q 'nginx' "$WORK/nosudo.err" \
  || fail "nosudo: message: $(cat "$WORK/nosudo.err")"
check; [ "$(calls_matching '^apt-get')" = 0 ] || fail "nosudo: apt-get called"

# 5. apt-get install fails: its message is shown, the exit is non-zero, and
#    nothing after it runs (deps prints nothing more).
touch "$WORK/fail-install"
run_deps failinstall 0 dpkg-query apt-get sudo
check; [ "$rc" -ne 0 ] || fail "failinstall: exit 0"
check; grep -q 'E: Unable to locate package libzmq3-dev' "$WORK/failinstall.err" \
  || fail "failinstall: apt-get's message not shown: $(cat "$WORK/failinstall.err")"
check; grep -q 'apt-get install failed' "$WORK/failinstall.err" || fail "failinstall: no cause line"
rm "$WORK/fail-install"

# 6. apt-get update fails: stops before installing.
touch "$WORK/fail-update"
run_deps failupdate 0 dpkg-query apt-get sudo
check; [ "$rc" -ne 0 ] || fail "failupdate: exit 0"
check; grep -q 'The repository is not signed' "$WORK/failupdate.err" || fail "failupdate: message not shown"
check; [ "$(calls_matching '^apt-get install')" = 0 ] || fail "failupdate: installed anyway"
rm "$WORK/fail-update"

# 7. apt-get exits 0 but leaves a package half-configured: an error.
echo nginx >"$WORK/half-installed"
touch "$WORK/noop-install"
run_deps half 0 dpkg-query apt-get sudo
check; [ "$rc" -ne 0 ] && grep -q 'still not installed after apt-get: nginx' "$WORK/half.err" \
  || fail "half: a package left unconfigured was not reported: rc=$rc $(cat "$WORK/half.err")"
rm -f "$WORK/half-installed" "$WORK/noop-install"

# 8. No package tools at all: a clear error naming what is needed.
run_deps notools 0
check; [ "$rc" -ne 0 ] || fail "notools: exit 0"
check; grep -q "dpkg-query not found" "$WORK/notools.err" && grep -q 'libzmq3-dev' "$WORK/notools.err" \
  || fail "notools: message: $(cat "$WORK/notools.err")"

# 9. dpkg-query but no apt-get, packages missing: a clear error.
run_deps noapt 0 dpkg-query
check; [ "$rc" -ne 0 ] && grep -q 'apt-get not found' "$WORK/noapt.err" \
  || fail "noapt: rc=$rc $(cat "$WORK/noapt.err")"

# 10. ZCRAWL_NO_INSTALL=1 with nothing installed: warns, calls no apt-get.
rm -rf "$WORK/bin" && make_tools "$WORK/bin" dpkg-query apt-get
: >"$WORK/calls"; : >"$WORK/installed"
env -i PATH="$WORK/bin" ZCRAWL_NO_INSTALL=1 "$BASH_BIN" "$REPO/run" deps 2>"$WORK/noinstall.err"
rc=$?
check; [ "$rc" -eq 0 ] && [ "$(calls_matching '^apt-get')" = 0 ] && grep -q 'not installing' "$WORK/noinstall.err" \
  || fail "noinstall: rc=$rc calls=$(cat "$WORK/calls")"

# 11. The tests' npm packages (tools/node_tools.sh): `npm ci` into
#     BUILD/node from the lock, once; again only when the lock changes.
#     A stand-in npm; cp, cmp and mkdir are the real ones (linked in).
mkdir -p "$WORK/repo/tests/node" "$WORK/nodebin"
echo '{"name":"t"}' >"$WORK/repo/tests/node/package.json"
echo '{"lockfileVersion":3}' >"$WORK/repo/tests/node/package-lock.json"
for t in cp cmp mkdir; do ln -sf "$(command -v "$t")" "$WORK/nodebin/$t"; done
make_tools "$WORK/nodebin" dpkg-query apt-get
cat >"$WORK/nodebin/npm" <<EOF
#!$BASH_BIN
echo "npm \$* in \$PWD" >>"$WORK/calls"
[ -f package-lock.json ] || exit 1
mkdir -p node_modules/warcio
EOF
chmod +x "$WORK/nodebin/npm"
run_node_tools() {
  : >"$WORK/calls"
  env -i PATH="$1" "$BASH_BIN" -c '. "$1/tools/debian_packages.sh"; ROOT="$2"; . "$1/tools/node_tools.sh";
    ensure_node_tools "$3"' _ "$REPO" "$WORK/repo" "$WORK/build" >"$WORK/node.out" 2>"$WORK/node.err"
  rc=$?
}
run_node_tools "$WORK/nodebin"
check; [ "$rc" -eq 0 ] && grep -qx "npm ci --no-audit --no-fund --loglevel=error in $WORK/build/node" "$WORK/calls" \
  || fail "node: npm ci not run in build/node: rc=$rc $(cat "$WORK/calls" "$WORK/node.err")"
check; [ -d "$WORK/build/node/node_modules/warcio" ] || fail "node: nothing installed"
run_node_tools "$WORK/nodebin"
check; [ "$rc" -eq 0 ] && [ "$(calls_matching '^npm')" = 0 ] || fail "node: reinstalled with the same lock: $(cat "$WORK/calls")"
echo '{"lockfileVersion":3,"changed":1}' >"$WORK/repo/tests/node/package-lock.json"
run_node_tools "$WORK/nodebin"
check; [ "$(calls_matching '^npm ci')" = 1 ] || fail "node: a changed lock was not installed: $(cat "$WORK/calls")"

# 12. No npm on PATH (a fresh Debian): Debian's npm package first.
rm -f "$WORK/nodebin/npm" "$WORK/build/node/node_modules/.zcrawl-lock"
printf '%s\n' "${all_test_packages[@]}" >"$WORK/installed"
run_node_tools "$WORK/nodebin"
check; grep -qx 'apt-get install -y -q --no-install-recommends npm frontend=noninteractive' "$WORK/calls" \
  || fail "node: npm not installed from Debian: $(cat "$WORK/calls")"

echo "install_path_test: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
