#!/usr/bin/env bash
# Regenerates docs/CONFIG.md from the --help of every process.
set -euo pipefail
cd "$(dirname "$0")/.."
./run setup >/dev/null
bin="${ZCRAWL_BIN_DIR:-build/bin}"
{
  echo "# Configuration"
  echo
  echo "Every setting is a command-line flag. The options structs (\`frontier/frontier_options.h\`, \`fetcher/fetcher_options.h\`, \`writer/writer_options.h\`, \`launcher/crawl_options.h\`) document the trade-off of each default; this page is the \`--help\` of every process, regenerated with \`docs/make_config_md.sh\` whenever a flag changes."
  for c in crawl frontier fetcher writer inspect status keys; do
    echo; echo "## ./run $c"; echo; echo '```'; "$bin/zcrawl-$c" --help 2>&1 | sed "s#^Usage: [^ ]*zcrawl-#Usage: ./run #"; echo '```'
  done
} > docs/CONFIG.md
