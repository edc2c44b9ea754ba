#!/usr/bin/env bash
# The Debian package of the programs: `./run package` builds them, then runs
# this. See docs/DEPLOY.md ("Installing from the package").
#   tools/make_package.sh BUILD_DIR
# Runs CPack's DEB generator in BUILD_DIR (rules in cmake/packaging.cmake),
# then prints the path of the .deb on standard output and its Depends line
# on standard error. Needs cpack and dpkg-shlibdeps (Debian: cmake, dpkg-dev).
set -euo pipefail

log() { printf 'make_package: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ $# -eq 1 ] || die "usage: tools/make_package.sh BUILD_DIR"
[ -d "$1" ] || die "no build folder $1"
BUILD_DIR="$(cd "$1" && pwd)"
[ -f "$BUILD_DIR/CPackConfig.cmake" ] ||
  die "$BUILD_DIR has no CPackConfig.cmake: configure it with cmake first (./run package does)"

# CPack installs what is built and builds nothing itself.
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mapfile -t PROGRAMS < <(grep -v '^#' "$REPO/deploy/programs.txt")
missing=()
for p in "${PROGRAMS[@]}"; do
  [ -x "$BUILD_DIR/bin/$p" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] ||
  die "not built in $BUILD_DIR/bin: ${missing[*]} (build target zcrawl_programs first; ./run package does)"

for tool in cpack dpkg-shlibdeps dpkg-deb; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "$tool not found (Debian packages: cmake, dpkg-dev; ./run deps package installs them)"
done

log "running cpack -G DEB in $BUILD_DIR"
if ! out="$(cd "$BUILD_DIR" && cpack -G DEB --config CPackConfig.cmake 2>&1)"; then
  printf '%s\n' "$out" >&2
  die "cpack failed (its output is above)"
fi
# "CPack: - package: /path/zcrawl_0.1.0_amd64.deb generated."
deb="$(sed -n 's/^CPack: - package: \(.*\.deb\) generated\.$/\1/p' <<<"$out" | tail -n 1)"
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
  printf '%s\n' "$out" >&2
  die "cpack made no .deb that its output names (its output is above)"
fi

depends="$(dpkg-deb --field "$deb" Depends)" || die "dpkg-deb cannot read $deb"
log "Depends: $depends"
log "size: $(du -h "$deb" | cut -f1)"
printf '%s\n' "$deb"
