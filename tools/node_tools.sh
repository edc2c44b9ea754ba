# Sourced by ./run: the npm packages `./run test` holds zcrawl's output to
# (tests/node/package.json, pinned by its package-lock.json): warcio's CDXJ
# indexer, and playwright-core, which drives chromium through the web
# console. Installed with `npm ci` into BUILD_DIR/node, again whenever the
# lock changes. npm comes from Debian's npm package when no npm is on PATH
# (a machine with Node.js from elsewhere keeps its own).

# ensure_node_tools BUILD_DIR: installs them; fails with npm's message.
ensure_node_tools() {
  local dir="$1/node" lock="$ROOT/tests/node/package-lock.json"
  if [ -f "$dir/node_modules/.zcrawl-lock" ] && cmp -s "$lock" "$dir/node_modules/.zcrawl-lock"; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    ensure_packages npm || return 1
  fi
  mkdir -p "$dir"
  cp "$ROOT/tests/node/package.json" "$lock" "$dir/"
  pkg_log "installing the tests' npm packages (tests/node/package.json) into $dir"
  local attempt
  for attempt in 1 2; do
    if (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2); then
      cp "$lock" "$dir/node_modules/.zcrawl-lock"
      return 0
    fi
    pkg_log "npm ci failed (attempt $attempt)"
  done
  pkg_log "error: the tests' npm packages could not be installed (npm's message is above)"
  return 1
}
