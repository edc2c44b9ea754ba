#!/usr/bin/env bash
# docs/DEPLOY.md walked with the package's programs (issue 50 point 6): the
# .deb of this build (tools/make_package.sh), unpacked into a temporary
# root, and its usr/bin given to the multi-machine crawl test
# (tests/integration/netns_crawl_test.cc): network namespaces stand in for
# the frontier's, the writer's and two fetchers' machines; keys made with
# the package's zcrawl-keys; the allow-lists of DEPLOY.md section 2 (the
# ops key included); status and control from another machine with the ops
# key; a fetcher whose key nobody allowed shut out and saying so.
#   deploy_walk_test.sh BUILD_DIR
# Exits 77 (skipped) without dpkg-deb, cpack or dpkg-shlibdeps, or when
# this machine cannot make network namespaces.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
BUILD="${1:?usage: deploy_walk_test.sh BUILD_DIR}"

for t in dpkg-deb cpack dpkg-shlibdeps; do
  if ! command -v "$t" >/dev/null 2>&1; then
    echo "deploy_walk_test: skipped: $t not found (./run deps package installs it)"
    exit 77
  fi
done
[ -x "$BUILD/bin/netns_crawl_test" ] || { echo "deploy_walk_test: $BUILD/bin/netns_crawl_test is not built"; exit 1; }

WORK="$(mktemp -d /tmp/zcrawl-deploy-walk.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

if ! DEB="$("$REPO/tools/make_package.sh" "$BUILD" 2>"$WORK/make_package.log")"; then
  cat "$WORK/make_package.log"
  echo "deploy_walk_test: FAIL: tools/make_package.sh $BUILD"
  exit 1
fi
if ! dpkg-deb -x "$DEB" "$WORK/root" 2>"$WORK/x.log"; then
  cat "$WORK/x.log"
  echo "deploy_walk_test: FAIL: dpkg-deb -x $DEB"
  exit 1
fi

# The test takes its programs from ZCRAWL_BIN_DIR: the package's, here.
ZCRAWL_BIN_DIR="$WORK/root/usr/bin" "$BUILD/bin/netns_crawl_test" >"$WORK/walk.log" 2>&1
rc=$?
cat "$WORK/walk.log"
if grep -q '^\[  SKIPPED \]' "$WORK/walk.log"; then
  echo "deploy_walk_test: skipped: the multi-machine test could not run here"
  exit 77
fi
[ "$rc" -eq 0 ] && echo "deploy_walk_test: the package's programs crawled across machines" || echo "deploy_walk_test: FAIL"
exit "$rc"
