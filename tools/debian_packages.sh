# Sourced by ./run and bench/run_bench.sh: the Debian packages each command
# needs, and the one function that installs the missing ones.
#
# Each list is what one command adds on top of the ones before it:
# crawling needs BUILD_PACKAGES, `./run test` also TEST_PACKAGES, `./run
# bench` also BENCH_PACKAGES, `./run package` also PACKAGE_PACKAGES.
#
# The install path is tested (tests/install/install_path_test.sh) against
# stand-in dpkg-query, apt-get and sudo on PATH; keep to bash builtins plus
# those three tools here, so the test can run with nothing else on PATH.

BUILD_PACKAGES=(
  build-essential cmake pkg-config ca-certificates
  libzmq3-dev cppzmq-dev libprotobuf-dev protobuf-compiler
  libcurl4-openssl-dev libgumbo-dev libmodest-dev libidn2-dev
  libspdlog-dev libcli11-dev libssl-dev zlib1g-dev libdeflate-dev libisal-dev libbrotli-dev libzstd-dev
  libjemalloc-dev librocksdb-dev libpsl-dev nlohmann-json3-dev libzip-dev libmicrohttpd-dev
)
# libsqlite3-dev, sqlite3: the replacement writer's test reads its SQLite output; python3-*: the warc
# checker and the replacement writer; nginx + openssl: the HTTPS tests (a CA
# made per test, HTTP/2 and HTTP/1.1); iproute2: the network-namespace tests;
# python3-html5lib, python3-doc, postgresql-doc-15: the link extractor held to
# html5lib on two real documentation sets; clang: the suite's thread-safety
# check (tests/structure/thread_safety_check.py, clang's analysis of the
# GUARDED_BY annotations over the sources that take locks); chromium: the
# web console's browser test (tests/console/console_check.sh).
TEST_PACKAGES=(
  libgtest-dev libsqlite3-dev sqlite3 python3 python3-zmq python3-protobuf
  nginx openssl iproute2 python3-html5lib python3-doc postgresql-doc-15 clang chromium
)
BENCH_PACKAGES=(
  libbenchmark-dev nginx libnginx-mod-http-echo wget wget2 wrk time gnuplot-nox
)
# clang: `./run test --clang`, the whole build under clang with the
# thread-safety analysis, and `./run fuzz`.
CLANG_PACKAGES=(clang)
# dpkg-dev: dpkg-shlibdeps, which CPack uses to declare runtime dependencies.
PACKAGE_PACKAGES=(dpkg-dev)

pkg_log() { printf 'run: %s\n' "$*" >&2; }

# missing_packages PKG...: prints those of PKG that dpkg does not have fully
# installed, one a line. dpkg-query exits non-zero when any PKG is unknown to
# it, which is the normal case on a fresh machine: its status is not an error.
missing_packages() {
  local listing pkg status
  local -A installed=()
  listing="$(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null)" || true
  while read -r pkg status; do
    [ "$status" = "install ok installed" ] && installed[$pkg]=1
  done <<<"$listing"
  for pkg in "$@"; do
    [ -n "${installed[$pkg]:-}" ] || printf '%s\n' "$pkg"
  done
}

# as_root SUDO CMD...: CMD non-interactively, through SUDO unless it is empty
# (sudo resets the environment, but takes VAR=value before the command).
as_root() {
  local sudo="$1"; shift
  if [ -n "$sudo" ]; then
    "$sudo" DEBIAN_FRONTEND=noninteractive "$@"
  else
    DEBIAN_FRONTEND=noninteractive "$@"
  fi
}

# ensure_packages PKG...: installs the missing ones with apt-get (as root, or
# through sudo), saying what it does. Returns non-zero, after saying why, when
# it cannot. ZCRAWL_NO_INSTALL=1 only reports what is missing (non-Debian
# systems, or packages managed some other way). ZCRAWL_TEST_EUID stands in for
# the real user id in the install-path test.
ensure_packages() {
  local -a wanted=() missing=()
  local -A seen=()
  local p
  for p in "$@"; do
    [ -n "${seen[$p]:-}" ] || wanted+=("$p")
    seen[$p]=1
  done
  if ! command -v dpkg-query >/dev/null 2>&1; then
    [ "${ZCRAWL_NO_INSTALL:-0}" = 1 ] && return 0
    pkg_log "error: dpkg-query not found: zcrawl installs its dependencies with Debian's package tools."
    pkg_log "  On another system install the equivalents of these Debian packages, then run again"
    pkg_log "  with ZCRAWL_NO_INSTALL=1: ${wanted[*]}"
    return 1
  fi
  mapfile -t missing < <(missing_packages "${wanted[@]}")
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "${ZCRAWL_NO_INSTALL:-0}" = 1 ]; then
    pkg_log "warning: ZCRAWL_NO_INSTALL=1, not installing: ${missing[*]}"
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    pkg_log "error: apt-get not found; install these Debian packages, then run again: ${missing[*]}"
    return 1
  fi
  local sudo=""
  if [ "${ZCRAWL_TEST_EUID:-$EUID}" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      pkg_log "error: ${#missing[@]} Debian packages are missing and installing them needs root;"
      pkg_log "  run this as root, install sudo, or run as root: apt-get install ${missing[*]}"
      return 1
    fi
    sudo=sudo
  fi
  pkg_log "installing ${#missing[@]} missing Debian packages${sudo:+ through sudo}: ${missing[*]}"
  pkg_log "apt-get update ..."
  local out
  if ! out="$(as_root "$sudo" apt-get update -q 2>&1)"; then
    printf '%s\n' "$out" >&2
    pkg_log "error: apt-get update failed (its output is above)"
    return 1
  fi
  pkg_log "apt-get install ... (this takes a few minutes on a fresh machine)"
  if ! out="$(as_root "$sudo" apt-get install -y -q --no-install-recommends "${missing[@]}" 2>&1)"; then
    printf '%s\n' "$out" >&2
    pkg_log "error: apt-get install failed (its output is above)"
    return 1
  fi
  # apt-get can exit 0 yet leave a package unconfigured: check again.
  mapfile -t missing < <(missing_packages "${wanted[@]}")
  if [ ${#missing[@]} -ne 0 ]; then
    pkg_log "error: still not installed after apt-get: ${missing[*]}"
    return 1
  fi
  pkg_log "packages installed"
}
