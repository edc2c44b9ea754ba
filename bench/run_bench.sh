#!/usr/bin/env bash
# run_bench.sh BIN_DIR [options]: zcrawl against GNU wget and wget2 in one run.
# `./run bench [options]` calls it with the build's bin folder. Over 500
# lines on purpose: one script owns the servers, the alternated rounds and
# the rusage of every part, so each part's figures come from the same run.
#
# What it does (bench/RESULTS.md has figures and analysis):
#  1. generates a deterministic 4-host site (bench/gen_site.py: 20,000 pages
#     of ~18 KB, ~30 links each of every kind) in a temp folder;
#  2. serves it with nginx (own config, access log off) on 127.0.0.2-5:PORT;
#  3. "ceiling": nginx's own limit with wrk (127.0.0.2, cycling all pages);
#  4. "fast": crawls the whole site with zcrawl ("zcrawl" = --parser gumbo,
#     and --parser myhtml; "zcrawl-blocking" = myhtml with --io blocking, a
#     thread per fetch instead of the event loop), wget and wget2, every
#     page written to disk,
#     politeness off; REPEATS rounds, crawlers interleaved;
#  5. "slow": the same with 20 ms of server latency per response (nginx echo
#     module's echo_sleep): zcrawl at 256 (gumbo, myhtml, blocking) and 16 requests in
#     flight, wget2 at 16, against the bound in_flight / latency;
#  6. "memory": zcrawl crawls stopped at 100 URLs and at half the site, whose
#     frontier RSS is subtracted from the full crawl's to estimate frontier
#     bytes per known URL (half: the marginal cost; 100: fixed costs included);
#  7. "profile" (only when asked): perf record on one zcrawl crawl per
#     parser (scan, myhtml), flat profiles per process and thread, and on one wget2
#     crawl; then the syscalls of one zcrawl-scan and one wget2 crawl
#     (strace -f -c), per page;
#  8. "micro": the Google Benchmark microbenchmarks in BIN_DIR;
#  9. "sinks": the writer's throughput per sink (sink_throughput_bench)
#     against the raw disk in the same run: `dd bs=1M count=1024
#     conv=fsync` of 1 GiB, and the bench's own raw write+fsync baselines,
#     REPEATS rounds interleaved, all in the working folder's file system;
#     then the zcrawl-writer process itself per sink, fed 40,000 pages over
#     ZeroMQ by two fake fetchers (writer_feed_bench);
#  9b. "endless": a real crawl (zcrawl-myhtml, the "fast" flags) of an endless
#     web nginx generates (echo module) beside the site: every page of
#     127.0.0.2-5 under /w/ links 28 new pages and its host's home, ~19 KB like
#     the site's pages; no cap, so every page's 28 new links are admitted,
#     stopped with SIGINT after 15 s (pages/s: the pages stored over the
#     whole run, its shutdown included); its rounds alternate with "fast"'s,
#     so its pages/s and CPU per page read against the site's: the frontier
#     admits ~28 new URLs per page there instead of ~0 (issue 17);
#  9c. "struggling" (only when asked): issue 49's rate-limited site, 1,500
#     pages on two hosts (127.0.0.2-3) behind nginx's limit_req, 20
#     requests/s per host (burst 20, nodelay), answering 429 with
#     Retry-After: 2 beyond it; zcrawl (--delay-ms 0 --per-host 8, separate
#     processes and --single-process) and wget2 (--max-threads 16, the same
#     parallelism), REPEATS rounds alternated, nginx restarted for each crawl
#     (full buckets, its own access log): pages stored, requests sent, 429s
#     received and time to finish;
#  9d. "web" (only when asked): issue 51's web-like site (bench/web/): HTTPS
#     through a local CA, HTTP/2 on 4 hosts in 5, gzip, 1,000 hosts of Zipf
#     sizes on 127.1.x.y, 10,000 pages of heavy-tailed size, 15-300 ms per
#     answer, robots.txt, 404s and redirects; zcrawl (zcrawl-scan: separate
#     processes, zcrawl-single) and wget2, 64 requests in flight each,
#     robots.txt obeyed, REPEATS rounds alternated, nginx restarted per
#     crawl: pages/s, CPU per page, RSS, and from the access log requests,
#     connections, TLS sessions resumed and HTTP/2 connections; a crawler
#     killed by a signal is run again and its crash reported;
# 10. "frontier-scale" (only when asked: an hour by default): the
#     zcrawl-frontier process alone, driven by fake fetchers over a synthetic
#     web (frontier_scale_bench) until it knows --scale-urls URLs or
#     --scale-seconds pass, in --scale-memory-mb; with --kill-resume it is
#     then killed with SIGKILL and its resume on the same state timed. State
#     in WORK/frontier-scale/, samples in WORK/frontier-scale.csv (drawn in
#     WORK/frontier-scale.png), the resume's figures in
#     WORK/frontier-scale-resume.csv, its summary in results.md.
# 11. "digest-index" (only when asked): the WARC writer's payload-digest
#     index alone (digest_index_bench) storing --digest-payloads pages (10^7),
#     a fifth of them repeats, within the writer's default --dedup-memory-mb
#     (64): RSS, disk per payload and lookups/s as it grows, in
#     WORK/digest-index.csv and results.md.
# Then prints the results table (medians) and ratios, also written to
# WORK/results.md.
#
# Options:
#   --repeats N          rounds per crawler and scenario (3)
#   --only LIST          parts to run, comma-separated, from
#                        ceiling,fast,slow,memory,profile,micro,sinks,
#                        endless,struggling,web,frontier-scale,digest-index
#                        (default: all but profile, struggling, web,
#                        frontier-scale and digest-index)
#   --profile            also run the profile part
#   --port P             nginx port (18080, or the next free one)
#   --pages-per-host N   site size per host (5000; 4 hosts)
#   --latency-ms N       server latency of the slow scenario (20)
#   --zcrawl-fast ARGS   zcrawl flags for "fast" (default below)
#   --zcrawl-slow ARGS   zcrawl flags for "slow" (default below)
#   --zcrawl-format F    zcrawl's --format in the crawls: files (default, as
#                        wget and wget2 store pages), warc or jsonl
#   --wget2-threads N    wget2 --max-threads (16)
#   --crawlers LIST      which runs, from zcrawl-scan,zcrawl-noconsole,zcrawl-single,zcrawl,zcrawl-myhtml,
#                        zcrawl-blocking,zcrawl-myhtml-ph16,zcrawl-16,wget2,wget
#                        (zcrawl-scan: --parser scan, the default;
#                        zcrawl-single: the same with --single-process, the
#                        components as threads of one process;
#                        zcrawl-noconsole: zcrawl-scan with --console-port 0,
#                        the web console off (it is on by default; issue 50
#                        point 5), "fast" only, when asked; default:
#                        all but zcrawl-myhtml-ph16; zcrawl-16 runs in
#                        "slow" only, wget and zcrawl-myhtml-ph16 in "fast"
#                        only)
#   --site DIR           reuse (or create) the generated site in DIR
#   --work DIR           working folder (default: a new /tmp/zcrawl-bench.*)
#   --settle             before every crawl: delete earlier outputs, sync, drop
#                        the page cache (when root) and wait 35 s, so each
#                        crawl starts from the same disk and memory state
#                        (slower; crawls that write without fsync, like wget2,
#                        gain most from a clean page cache)
#   --keep               keep everything in the working folder (site,
#                        perf data); otherwise only logs and results stay
#   --micro-min-time S   Google Benchmark --benchmark_min_time (0.5)
#   --quick              1 round, 500 pages per host, short microbenchmarks
#   --scale-urls N       frontier-scale: stop once the frontier knows N URLs
#                        (20000000)
#   --scale-seconds N    frontier-scale: or after N seconds (3600)
#   --scale-memory-mb N  frontier-scale: the frontier's --memory-mb (1024)
#   --digest-payloads N  digest-index: pages stored (10000000)
#   --kill-resume        frontier-scale: then SIGKILL the frontier, restart it
#                        on the same state and time its resume (first lease,
#                        seen filter rebuilt, RSS, rates)
#   --scale-args ARGS    frontier-scale: more frontier_scale_bench flags, e.g.
#                        "--hosts 100000 --fetchers 2" (its --help lists them)
#   --baseline-bin DIR   another zcrawl build's bin folder (zcrawl-crawl and its
#                        components): every zcrawl crawl of "fast", "slow" and
#                        "endless" also runs with it, labelled LABEL@base, in
#                        the same round, the order flipped every round (this
#                        build first in odd rounds), and the report compares
#                        the two round by round. `./run bench --baseline-rev
#                        REV` builds REV's programs and passes this.
#   --baseline-crawlers LIST  only these zcrawl crawlers also run with the
#                        baseline (all, by default; e.g. zcrawl-myhtml when
#                        the baseline predates --parser scan)
#   --tmpfs              crawl outputs (and zcrawl's state in them) on a tmpfs
#                        (/dev/shm), each deleted after its crawl: the disk
#                        taken out, to compare the crawlers' own CPU
#
# Before every round of "fast" and "slow" the output file system's own speed
# is measured (dd of 256 MiB, conv=fsync) and reported beside the rounds.
#
# Measurement (the same for every crawler):
#   wall     date before and after the command, the whole process tree's
#            life including start-up and clean shutdown;
#   CPU      user + sys of the whole process tree from wait4() (children
#            are included once reaped, and every process here is reaped);
#   RSS      the sum over the crawler's processes of each one's peak RSS:
#            wget and wget2 are one process each (GNU time %M); zcrawl's
#            frontier, writer and fetchers come from wait4() through
#            bench_rusage_wrap, its launcher from VmHWM sampled every 50 ms.
#            Shared library pages count once per process (as in top), so
#            this overstates a multi-process crawler somewhat.
#   stored   files the crawler wrote (zcrawl: without its .zcrawl state and
#            index.jsonl), compared with the pages the site has.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ $# -lt 1 ] || [ "${1:0:1}" = "-" ]; then
  awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
BIN_DIR="$(cd "$1" && pwd)"
shift

REPEATS=3
ONLY="ceiling,fast,slow,memory,micro,sinks,endless"
PORT=18080
HOSTS=4
PAGES_PER_HOST=5000
PAGE_BYTES=18000
LATENCY_MS=20
# 2 cores: two fetcher processes keep both busy. 128 URLs in flight: a URL
# counts against its host's limit until its page is acknowledged by the
# writer (after an fsync), so with 32 the fetchers waited on group commits;
# on the event loop, slots cost no threads (64 per fetcher: -15% CPU per
# page and +10-20% pages/s against 16, measured by hand). per-host x hosts
# = fetchers x threads on purpose: with more per-host room than fetcher
# slots the frontier busy-polls (see RESULTS.md); "zcrawl-myhtml-ph16"
# (not in the default list) measures exactly that case.
ZC_FAST="--fetchers 2 --threads 64 --per-host 32"
ZC_FAST_PH16="--fetchers 2 --threads 16 --per-host 16"
# 512 in flight: one fetcher of 512 transfers. Its event loop parses on
# one worker per core, so one process keeps both cores busy; a second only
# adds messaging: run G (RESULTS.md) made 4,531 pages/s with 1 x 256
# against run F's 3,812 with 2 x 128 (wget2 moved 1% between them). At
# zero latency two fetchers still did better (5,111 against 3,789). 512,
# not 256: a URL holds its slot until the writer acknowledges its page, so
# at 256 a slot's cycle was 35 ms for 20 ms of server (run U: 71% of the CPU
# bound; 85% at 512, where the CPU is the limit). --prefetch 256 (with
# per-host room for it) keeps URLs queued in the fetcher, so a finished
# transfer's slot does not wait for a lease round trip, and --max-batch-pages
# 64 acknowledges pages in smaller group commits: both break up the waves
# in which one thread ran alone while the other core idled (run AI: steady
# idle 13-15% -> 8-9%, 82% -> 85% of the CPU bound).
ZC_SLOW="--fetchers 1 --threads 512 --per-host 192 --prefetch 256 --max-batch-pages 64"
# 16 requests on the wire at most, as wget2's 16 threads: the threads bound
# it; per-host 8 leaves room so a URL whose page is still on its way to the
# writer does not hold back the next request to its host.
ZC_SLOW16="--fetchers 2 --threads 8 --per-host 8"
# The struggling site (issue 49): a user in a hurry, as the issue tried it;
# run_crawler adds --delay-ms 0. 2 hosts x 8 = wget2's 16 threads.
ZC_STRUGGLING="--per-host 8"
STRUGGLING_HOSTS=2
STRUGGLING_PAGES_PER_HOST=750
STRUGGLING_RATE=20
# The web-like site (issue 51): its settings and functions.
# shellcheck source=bench/web/web_part.sh
. "$BENCH_DIR/web/web_part.sh"
WGET2_THREADS=16
CRAWLERS="zcrawl-scan,zcrawl-single,zcrawl,zcrawl-myhtml,zcrawl-blocking,zcrawl-16,wget2,wget"
SITE_DIR=""
WORK=""
KEEP=0
SETTLE=0
MICRO_MIN_TIME=0.5
ZC_FORMAT=files
SCALE_URLS=20000000
SCALE_SECONDS=3600
DIGEST_PAYLOADS=10000000
SCALE_MEMORY_MB=1024
SCALE_KILL_RESUME=0
SCALE_ARGS=""
BASE_BIN_DIR=""
BASE_CRAWLERS=""
TMPFS=0

while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) REPEATS="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --profile) ONLY="$ONLY,profile"; shift ;;
    --port) PORT="$2"; shift 2 ;;
    --pages-per-host) PAGES_PER_HOST="$2"; shift 2 ;;
    --latency-ms) LATENCY_MS="$2"; shift 2 ;;
    --zcrawl-fast) ZC_FAST="$2"; shift 2 ;;
    --zcrawl-slow) ZC_SLOW="$2"; shift 2 ;;
    --zcrawl-format) ZC_FORMAT="$2"; shift 2 ;;
    --wget2-threads) WGET2_THREADS="$2"; shift 2 ;;
    --crawlers) CRAWLERS="$2"; shift 2 ;;
    --site) SITE_DIR="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --settle) SETTLE=1; shift ;;
    --micro-min-time) MICRO_MIN_TIME="$2"; shift 2 ;;
    --quick) REPEATS=1; PAGES_PER_HOST=500; MICRO_MIN_TIME=0.1; shift ;;
    --scale-urls) SCALE_URLS="$2"; shift 2 ;;
    --scale-seconds) SCALE_SECONDS="$2"; shift 2 ;;
    --scale-memory-mb) SCALE_MEMORY_MB="$2"; shift 2 ;;
    --kill-resume) SCALE_KILL_RESUME=1; shift ;;
    --scale-args) SCALE_ARGS="$2"; shift 2 ;;
    --baseline-bin) BASE_BIN_DIR="$(cd "$2" && pwd)"; shift 2 ;;
    --baseline-crawlers) BASE_CRAWLERS="$2"; shift 2 ;;
    --tmpfs) TMPFS=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --digest-payloads) DIGEST_PAYLOADS="$2"; shift 2 ;;
    *) echo "run_bench: unknown option $1" >&2; exit 2 ;;
  esac
done

log() { printf 'bench: %s\n' "$*" >&2; }
part() { [[ ",$ONLY," == *",$1,"* ]]; }
crawler_on() { [[ ",$CRAWLERS," == *",$1,"* ]]; }
# True when a part other than frontier-scale and digest-index runs: those
# need no site, server or crawler, only their own programs.
crawl_parts() {
  local p
  for p in ${ONLY//,/ }; do [ "$p" = frontier-scale ] || [ "$p" = digest-index ] || return 0; done
  return 1
}

# --- Tools -------------------------------------------------------------------

ECHO_MODULE=/usr/lib/nginx/modules/ngx_http_echo_module.so
# The packages come from the one list in tools/debian_packages.sh.
# shellcheck source=../tools/debian_packages.sh
. "$(dirname "$0")/../tools/debian_packages.sh"
ensure_tools() {
  local extra=()
  part profile && extra+=(linux-perf strace)
  ensure_packages python3 "${BENCH_PACKAGES[@]}" "${extra[@]}" || exit 1
  [ -f "$ECHO_MODULE" ] || { log "no $ECHO_MODULE after installing libnginx-mod-http-echo"; exit 1; }
}
if crawl_parts; then ensure_tools; else ensure_packages python3 || exit 1; fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

needed_bins=()
if crawl_parts; then needed_bins+=(zcrawl-crawl zcrawl-frontier zcrawl-writer zcrawl-fetcher); fi
if part frontier-scale; then needed_bins+=(zcrawl-frontier frontier_scale_bench); fi
if part digest-index; then needed_bins+=(digest_index_bench); fi
for b in "${needed_bins[@]}"; do
  [ -x "$BIN_DIR/$b" ] || { log "no $BIN_DIR/$b: build first (./run setup; frontier_scale_bench: ./run bench)"; exit 1; }
done
if [ -n "$BASE_BIN_DIR" ]; then
  for b in zcrawl-crawl zcrawl-frontier zcrawl-writer zcrawl-fetcher; do
    [ -x "$BASE_BIN_DIR/$b" ] || { log "no $BASE_BIN_DIR/$b: --baseline-bin wants a zcrawl build's bin folder"; exit 1; }
  done
fi

# --- Working folder, cleanup --------------------------------------------------

if [ -z "$WORK" ]; then WORK="$(mktemp -d /tmp/zcrawl-bench.XXXXXX)"; fi
mkdir -p "$WORK"/{logs,out,nginx}
chmod 755 "$WORK"
NGINX_PID=""
# Where the crawls write: WORK/out, or with --tmpfs a folder on /dev/shm.
OUT_ROOT="$WORK/out"
if [ "$TMPFS" = 1 ]; then
  [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || { log "--tmpfs: /dev/shm is not a tmpfs here"; exit 1; }
  OUT_ROOT="$(mktemp -d /dev/shm/zcrawl-bench-out.XXXXXX)"
fi

stop_nginx() {
  if [ -n "$NGINX_PID" ]; then
    kill -QUIT "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=""
  fi
}
cleanup() {
  stop_nginx
  if [ "$KEEP" = 1 ]; then
    log "kept $WORK"
  else
    rm -rf "$WORK/out" "$WORK/bin" "$WORK/bin-base" "$WORK/site" "$WORK/site-struggling" "$WORK"/perf-*.data "$WORK/frontier-scale/state"
  fi
  # A tmpfs holds RAM: never left behind, --keep or not.
  if [ "$TMPFS" = 1 ]; then rm -rf "$OUT_ROOT"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- Port and site --------------------------------------------------------------

port_busy() { (exec 3<>"/dev/tcp/127.0.0.2/$1") 2>/dev/null; }
while port_busy "$PORT"; do PORT=$((PORT + 1)); done

[ -n "$SITE_DIR" ] || SITE_DIR="$WORK/site"
EXPECTED=$((HOSTS * PAGES_PER_HOST))
SITE_PARAMS="port=$PORT hosts=$HOSTS pages=$PAGES_PER_HOST bytes=$PAGE_BYTES"
needs_site() { part ceiling || part fast || part slow || part memory || part profile; }
if needs_site && [ "$(cat "$SITE_DIR/.params" 2>/dev/null)" != "$SITE_PARAMS" ]; then
  log "generating the site in $SITE_DIR ($SITE_PARAMS)"
  rm -rf "$SITE_DIR"
  mkdir -p "$SITE_DIR"
  python3 "$BENCH_DIR/gen_site.py" "$SITE_DIR" "$PORT" --hosts "$HOSTS" \
    --pages-per-host "$PAGES_PER_HOST" --bytes "$PAGE_BYTES" >&2
  echo "$SITE_PARAMS" > "$SITE_DIR/.params"
fi
if needs_site; then chmod -R a+rX "$SITE_DIR"; fi
HOST_LIST=""
SEEDS=()
for ((h = 0; h < HOSTS; h++)); do
  ip="127.0.0.$((h + 2))"
  SEEDS+=("http://$ip:$PORT/")
  HOST_LIST="${HOST_LIST:+$HOST_LIST,}$ip"
done

# --- nginx ------------------------------------------------------------------

# start_nginx LATENCY_MS: serves the site on 127.0.0.2..: PORT, each response
# delayed by LATENCY_MS (0: plain static files, and the endless web under /w).
start_nginx() {
  local latency_ms="$1" servers="" location
  # The endless web of the "endless" part, beside the site's files: page
  # P/ links P/0/ .. P/27/ (new) and /w/ (known); the padding makes it about
  # as large as the site's pages. Paths end in "/", so the files output
  # stores each page as a folder's index.html.
  local endless="" links="" k
  for ((k = 0; k < 28; k++)); do links+="<li><a href=\"\${uri}$k/\">page $k</a>"; done
  endless="location /w {
      echo '<!DOCTYPE html><html><head><title>\$uri</title></head><body><p><a href=\"/w/\">home</a></p><ul>';
      echo '$links</ul><p>';
      echo_duplicate 1500 'endless web ';
      echo '</p></body></html>';
    }"
  if [ "$latency_ms" -gt 0 ]; then
    local seconds
    seconds="$(awk -v ms="$latency_ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
    location="location / { echo_sleep $seconds; echo_exec @static; }
    location @static { try_files \$uri \$uri/index.html =404; }"
  else
    location="location / { }
    $endless"
  fi
  for ((h = 0; h < HOSTS; h++)); do
    servers+="  server {
    listen 127.0.0.$((h + 2)):$PORT;
    root $SITE_DIR/127.0.0.$((h + 2));
    $location
  }
"
  done
  launch_nginx "  access_log off;
$servers" "http://127.0.0.$((HOSTS + 1)):$PORT/"
}

# launch_nginx HTTP_BLOCK PROBE_URL: runs nginx with HTTP_BLOCK (servers and
# their settings) inside the settings every scenario shares, until
# stop_nginx; returns once PROBE_URL answers.
launch_nginx() {
  local conf="$WORK/nginx/nginx.conf"
  cat > "$conf" <<EOF
load_module $ECHO_MODULE;
worker_processes auto;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 8192; }
http {
  default_type text/html;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  client_body_temp_path $WORK/nginx/client_body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
$1}
EOF
  "$NGINX" -c "$conf" -p "$WORK/nginx" -e "$WORK/nginx/error.log" &
  NGINX_PID=$!
  local i
  for ((i = 0; i < 100; i++)); do
    if curl -sf -o /dev/null "$2"; then return 0; fi
    sleep 0.1
  done
  log "nginx did not come up; see $WORK/nginx/error.log"
  exit 1
}

# --- Shadow bin folder for zcrawl (per-process accounting) ----------------------

WRAP="$BIN_DIR/bench_rusage_wrap"
if crawl_parts; then
  if [ ! -x "$WRAP" ]; then
    WRAP="$WORK/bench_rusage_wrap"
    g++ -std=c++20 -O2 -o "$WRAP" "$BENCH_DIR/rusage_wrap.cc"
  fi
  # shadow_bin DIR REAL: a copy of REAL's launcher beside wrapped components.
  shadow_bin() {
    mkdir -p "$1"
    cp "$2/zcrawl-crawl" "$1/zcrawl-crawl"
    for b in zcrawl-frontier zcrawl-writer zcrawl-fetcher zcrawl-local; do
      if [ -x "$2/$b" ]; then ln -sf "$WRAP" "$1/$b"; fi
    done
  }
  shadow_bin "$WORK/bin" "$BIN_DIR"
  if [ -n "$BASE_BIN_DIR" ]; then shadow_bin "$WORK/bin-base" "$BASE_BIN_DIR"; fi
fi

# --- Runs ----------------------------------------------------------------------

RUNS="$WORK/runs.tsv"
: > "$RUNS"
now() { date +%s.%N; }
# nginx_cpu_ms: CPU the nginx workers used so far (user + sys, from
# /proc/PID/stat), so that each crawl's share of the server is known: the
# CPU bound of the slow scenario counts it.
nginx_cpu_ms() {
  local total=0 pid ticks
  [ -n "$NGINX_PID" ] || { echo 0; return; }
  for pid in $(pgrep -P "$NGINX_PID" 2>/dev/null); do
    ticks="$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0)"
    total=$((total + ticks))
  done
  echo $((total * 1000 / $(getconf CLK_TCK)))
}
load1() { cut -d' ' -f1 /proc/loadavg; }

# run_crawler SCENARIO LABEL ROUND TOOL [zcrawl flags]: one complete crawl.
# TOOL: zcrawl (this build), zcrawl-base (--baseline-bin's), wget or wget2.
# Appends: scenario label round expected stored wall_s cpu_ms rss_kb load exit detail
# (detail: user_ms, sys_ms of the whole tree, and per zcrawl process CPU/RSS)
run_crawler() {
  local scenario="$1" label="$2" round="$3" tool="$4"
  local expected="${EXPECT:-$EXPECTED}"
  shift 4
  local out="$OUT_ROOT/$scenario-$label-$round"
  local logf="$WORK/logs/$scenario-$label-$round.log"
  local rus="$WORK/logs/$scenario-$label-$round.rusage"
  local timef="$WORK/logs/$scenario-$label-$round.time"
  rm -rf "$out" "$rus" "$timef"
  if [ "$SETTLE" = 1 ]; then
    rm -rf "$OUT_ROOT"/*
    sync
    if [ -w /proc/sys/vm/drop_caches ]; then echo 3 > /proc/sys/vm/drop_caches; fi
    sleep 35
  fi
  mkdir -p "$out"
  sync
  local load t0 t1 code=0 stored stored_twice="" cpu_ms rss_kb detail=""
  # RUN_SEEDS, RUN_HOSTS: another web's (the endless web, the struggling site).
  local seeds=("${SEEDS[@]}") hosts="${RUN_HOSTS:-$HOST_LIST}"
  if [ -n "${RUN_SEEDS+x}" ]; then seeds=("${RUN_SEEDS[@]}"); fi
  # RUN_ROBOTS=1 (the web-like site): robots.txt obeyed by every crawler.
  local no_robots=(--no-robots)
  if [ -n "${RUN_ROBOTS:-}" ]; then no_robots=(); fi
  # RUN_HOSTS=- : no -D list for wget and wget2 (wget2 1.99.1 exits 2 on a
  # list of a thousand addresses); without -H they keep to the seeds' hosts.
  local domains=(-D "$hosts")
  if [ "$hosts" = - ]; then domains=(); fi
  load="$(load1)"
  local nginx0
  nginx0="$(nginx_cpu_ms)"
  t0="$(now)"
  case "$tool" in
    zcrawl|zcrawl-base)
      local real_bin="$BIN_DIR" shadow="$WORK/bin"
      if [ "$tool" = zcrawl-base ]; then real_bin="$BASE_BIN_DIR" shadow="$WORK/bin-base"; fi
      # RUN_TIMEOUT_S (the endless web): stopped with SIGINT, as a user would.
      ZCRAWL_BENCH_REAL_BIN_DIR="$real_bin" ZCRAWL_BENCH_RUSAGE_LOG="$rus" \
        ${RUN_TIMEOUT_S:+timeout -s INT "$RUN_TIMEOUT_S"} \
        "$WRAP" --exec "$shadow/zcrawl-crawl" "${seeds[@]}" "$@" --delay-ms 0 "${no_robots[@]}" \
        --out "$out" --format "$ZC_FORMAT" --log-level warn >"$logf" 2>&1 || code=$?
      ;;
    wget)
      /usr/bin/time -f "%e %U %S %M" -o "$timef" \
        wget -r -l inf -nv -e robots=off -H "${domains[@]}" -P "$out" -o "$logf" "${seeds[@]}" || code=$?
      ;;
    wget2)
      # RUN_WGET2_ARGS: the scenario's own options (word-split on purpose).
      # shellcheck disable=SC2086
      /usr/bin/time -f "%e %U %S %M" -o "$timef" \
        wget2 -r -l inf -nv "${no_robots[@]}" --max-threads "$WGET2_THREADS" ${RUN_WGET2_ARGS:-} "${domains[@]}" \
        -P "$out" -o "$logf" "${seeds[@]}" || code=$?
      ;;
  esac
  t1="$(now)"
  local nginx_ms=$(( $(nginx_cpu_ms) - nginx0 ))
  if [ "$tool" = zcrawl ] || [ "$tool" = zcrawl-base ]; then
    case "$ZC_FORMAT" in
      # The web-like site (RUN_ROBOTS): its 404 and 301 answers are stored
      # too; count its distinct pages, and the pages stored more than once
      # (detail "stored_twice", issue 51 point 4).
      files) if [ -n "${RUN_ROBOTS:-}" ]; then read -r stored stored_twice < <(python3 -c 'import json, sys
pages = [j.get("final_url") or j["url"] for j in map(json.loads, open(sys.argv[1])) if j.get("status") == 200]
print(len(set(pages)), len(pages) - len(set(pages)))' "$out/index.jsonl")
             else stored="$(find "$out" -type f ! -path "$out/.zcrawl/*" ! -path "$out/index.jsonl" | wc -l)"; fi ;;
      warc) stored="$(cat "$out"/*-index.jsonl 2>/dev/null | wc -l)" ;;  # one line per page
      *) stored="$(cat "$out/pages.jsonl" 2>/dev/null | wc -l)" ;;
    esac
    # CPU: the launcher's wait4 figures cover the whole tree. RSS: own peaks.
    read -r cpu_ms rss_kb detail < <(awk '
      { name = $1; sub(/^zcrawl-/, "", name) }
      $1 == "zcrawl-crawl" { total = $4 + $5; user = $4; sys = $5; own_cpu["launcher"] += $7; own_rss["launcher"] += $8; rss += $8; next }
      { own_cpu[name] += $7; own_rss[name] += $8; rss += $8 }
      END {
        d = "user_ms:" user ",sys_ms:" sys
        for (k in own_cpu) d = d "," k ":" own_cpu[k] "ms/" own_rss[k] "kB"
        print total, rss, d
      }' "$rus")
    detail="$detail,index_lines:$(wc -l < "$out/index.jsonl" 2>/dev/null || echo 0)${stored_twice:+,stored_twice:$stored_twice}"
  else
    stored="$(find "$out" -type f ! -name robots.txt | wc -l)"
    # GNU time adds a "Command exited with non-zero status" line first on failure.
    read -r u s m < <(tail -1 "$timef" | awk '{ print $2, $3, $4 }')
    cpu_ms="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%d", (u + s) * 1000 }')"
    detail="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "user_ms:%d,sys_ms:%d", u * 1000, s * 1000 }')"
    rss_kb="$m"
  fi
  detail="$detail,nginx_ms:$nginx_ms"
  # RUN_ACCESS_LOG: nginx's log of this crawl alone ("$status ..." lines).
  if [ -n "${RUN_ACCESS_LOG:-}" ] && [ -n "${RUN_ROBOTS:-}" ]; then
    # The web-like site's log: "$connection $connection_requests
    # $ssl_session_reused $server_protocol $status $host" (web_part.sh).
    # A connection's first request tells whether its TLS session was resumed.
    detail="$detail,$(awk '{ n++; status[$5]++ }
      $2 == 1 { conns++; if ($3 == "r") resumed++; if ($4 == "HTTP/2.0") h2++ }
      END { printf "requests:%d,connections:%d,tls_resumed:%d,h2_connections:%d,http_404:%d,http_301:%d",
                   n, conns, resumed, h2, status[404], status[301] }' "$RUN_ACCESS_LOG")"
  elif [ -n "${RUN_ACCESS_LOG:-}" ]; then
    detail="$detail,$(awk '{ n++; if ($1 == 429) t++ } END { printf "requests:%d,http_429:%d", n, t }' "$RUN_ACCESS_LOG")"
  fi
  # On a tmpfs every output is RAM, and there is no inode window to respect.
  if [ "$TMPFS" = 1 ]; then rm -rf "$out"; fi
  if [ -n "${RUN_TIMEOUT_S:-}" ]; then
    # A web without an end: what was stored is the crawl; SIGINT's exit is its end.
    expected="$stored"
    if [ "$code" = 124 ] || [ "$code" = 130 ]; then code=0; fi
  fi
  local wall
  wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$label" "$round" "$expected" \
    "$stored" "$wall" "$cpu_ms" "$rss_kb" "$load" "$code" "$detail" >> "$RUNS"
  log "$scenario $label round $round: $stored/$expected pages in ${wall}s, cpu ${cpu_ms}ms, rss ${rss_kb}kB, exit $code (load $load)"
  [ "$stored" = "$expected" ] || log "WARNING: $label stored $stored of $expected pages (kept log $logf)"
}

# Deletes the crawl outputs, then waits until the filesystem has forgotten
# them. Outputs are not deleted between runs because ext4 without a journal
# (as on the VM this was written on) skips inodes deleted in the last ~30 s
# when it allocates new ones, checking each one on disk: files created
# right after a big delete cost several times more system CPU, whoever
# creates them.
settle() {
  rm -rf "${OUT_ROOT:?}"/*
  [ "$TMPFS" = 1 ] && return 0  # a tmpfs has no such window
  sync
  log "waiting 35 s after deleting outputs (ext4 recently-deleted inode window)"
  sleep 35
}

# disk_probe SCENARIO ROUND: the output file system's own write speed now
# (dd of 256 MiB with one fsync), reported beside the round's crawls: this
# VM's disk changes speed within minutes, and wget2's cost follows it.
disk_probe() {
  local line
  line="$(dd if=/dev/zero of="$OUT_ROOT/dd-probe.bin" bs=1M count=256 conv=fsync 2>&1 | tail -1)"
  rm -f "$OUT_ROOT/dd-probe.bin"
  printf '%s\t%s\t%s\n' "$1" "$2" "$line" >> "$WORK/disk.tsv"
}

# warm_up SCENARIO FLAGS...: one crawl of each zcrawl build, not counted
# (logs/SCENARIO-warmup-*), so that the first round does not pay for cold
# binaries and site files alone: its build would always come out slower.
warm_up() {
  local scenario="$1"
  shift
  RUNS="$WORK/warmup.tsv" run_crawler "$scenario" warmup 0 zcrawl "$@"
  if [ -n "$BASE_BIN_DIR" ]; then RUNS="$WORK/warmup.tsv" run_crawler "$scenario" warmup@base 0 zcrawl-base "$@"; fi
}

# zcrawl_round SCENARIO LABEL ROUND FLAGS...: one crawl of this build and,
# with --baseline-bin, one of the baseline labelled LABEL@base; this build
# first in odd rounds, the baseline first in even ones, so that a drift of
# the machine within a round falls on both equally over the rounds.
zcrawl_round() {
  local scenario="$1" label="$2" round="$3"
  shift 3
  if [ -z "$BASE_BIN_DIR" ] || { [ -n "$BASE_CRAWLERS" ] && [[ ",$BASE_CRAWLERS," != *",$label,"* ]]; }; then
    run_crawler "$scenario" "$label" "$round" zcrawl "$@"
  elif [ $((round % 2)) = 1 ]; then
    run_crawler "$scenario" "$label" "$round" zcrawl "$@"
    run_crawler "$scenario" "$label@base" "$round" zcrawl-base "$@"
  else
    run_crawler "$scenario" "$label@base" "$round" zcrawl-base "$@"
    run_crawler "$scenario" "$label" "$round" zcrawl "$@"
  fi
}

# wrk_ceiling LABEL CONNECTIONS [URL]: requests/s nginx serves on 127.0.0.2.
wrk_ceiling() {
  local label="$1" conns="$2" url="${3:-}"
  local out="$WORK/logs/wrk-$label.txt"
  if [ -z "$url" ]; then
    cat > "$WORK/urls.lua" <<EOF
local paths = {}
for line in io.lines("$SITE_DIR/urls-127.0.0.2.txt") do paths[#paths + 1] = line end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
EOF
    wrk -t2 -c"$conns" -d10s -s "$WORK/urls.lua" "http://127.0.0.2:$PORT" > "$out"
  else
    wrk -t2 -c"$conns" -d10s "http://127.0.0.2:$PORT$url" > "$out"
  fi
  local rps
  rps="$(awk '/Requests\/sec/ { print $2 }' "$out")"
  printf 'ceiling\t%s\t%s\t%s\n' "$label" "$conns" "$rps" >> "$WORK/ceiling.tsv"
  log "nginx ceiling $label, $conns connections: $rps requests/s"
}

# source_rev BIN_DIR: " (REV)" when the build says which commit it is from
# (./run bench --baseline-rev writes .zcrawl-source-rev beside its programs).
source_rev() {
  if [ -f "$1/.zcrawl-source-rev" ]; then printf ' (%s)' "$(cat "$1/.zcrawl-source-rev")"; fi
}

: > "$WORK/ceiling.tsv"
: > "$WORK/disk.tsv"
{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cores=$(nproc)"
  echo "cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
  echo "mem_mb=$(awk '/MemTotal/ { printf "%d", $2 / 1024 }' /proc/meminfo)"
  echo "kernel=$(uname -r)"
  echo "nginx=$("$NGINX" -v 2>&1 | sed 's/.*nginx\///')"
  echo "wget=$(wget --version | head -1 | awk '{ print $3 }')"
  echo "wget2=$(wget2 --version | head -1 | awk '{ print $3 }')"
  echo "pages=$EXPECTED"
  echo "site_bytes=$(du -sb "$SITE_DIR" 2>/dev/null | cut -f1)"
  echo "latency_ms=$LATENCY_MS"
  echo "zc_fast=$ZC_FAST"
  echo "zc_fast_ph16=$ZC_FAST_PH16"
  echo "zc_format=$ZC_FORMAT"
  echo "zc_slow=$ZC_SLOW"
  echo "zc_slow16=$ZC_SLOW16"
  echo "wget2_threads=$WGET2_THREADS"
  echo "zc_struggling=$ZC_STRUGGLING"
  echo "zc_web=$ZC_WEB"
  echo "web_wget2_args=$WEB_WGET2_ARGS"
  echo "web=$WEB_HOSTS hosts, $WEB_PAGES pages"
  echo "struggling=$STRUGGLING_HOSTS hosts x $STRUGGLING_PAGES_PER_HOST pages, $STRUGGLING_RATE requests/s per host"
  echo "repeats=$REPEATS"
  echo "load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "out_fs=$(stat -f -c %T "$OUT_ROOT")"
  echo "build=$BIN_DIR$(source_rev "$BIN_DIR")"
  if [ -n "$BASE_BIN_DIR" ]; then echo "baseline=$BASE_BIN_DIR$(source_rev "$BASE_BIN_DIR")"; fi
} > "$WORK/machine.txt"

ENDLESS_SEEDS=()
for ((h = 0; h < HOSTS; h++)); do ENDLESS_SEEDS+=("http://127.0.0.$((h + 2)):$PORT/w/"); done
# One round of the endless web: no cap (every page's 28 links are admitted),
# stopped with SIGINT after about as long as a crawl of the site takes.
ENDLESS_SECONDS=15
endless_round() {
  RUN_SEEDS=("${ENDLESS_SEEDS[@]}")
  RUN_TIMEOUT_S="$ENDLESS_SECONDS"
  # shellcheck disable=SC2086
  zcrawl_round endless zcrawl-myhtml "$1" $ZC_FAST --parser myhtml
  unset RUN_SEEDS RUN_TIMEOUT_S
}

if part ceiling || part fast || part memory || part profile || part endless; then
  start_nginx 0
  if part ceiling; then
    wrk_ceiling all-pages 64
    wrk_ceiling one-page 64 /s0/t0/p1.html
  fi
  if part fast; then
    # shellcheck disable=SC2086
    if crawler_on zcrawl || crawler_on zcrawl-myhtml || crawler_on zcrawl-blocking; then
      warm_up fast $ZC_FAST --parser myhtml
    fi
    for ((r = 1; r <= REPEATS; r++)); do
      disk_probe fast "$r"
      # shellcheck disable=SC2086
      if crawler_on zcrawl; then zcrawl_round fast zcrawl "$r" $ZC_FAST --parser gumbo; fi
      if crawler_on wget2; then run_crawler fast wget2 "$r" wget2; fi
      # shellcheck disable=SC2086
      if crawler_on zcrawl-myhtml; then zcrawl_round fast zcrawl-myhtml "$r" $ZC_FAST --parser myhtml; fi
      # shellcheck disable=SC2086
      if crawler_on zcrawl-scan; then zcrawl_round fast zcrawl-scan "$r" $ZC_FAST --parser scan; fi
      # shellcheck disable=SC2086
      if crawler_on zcrawl-noconsole; then zcrawl_round fast zcrawl-noconsole "$r" $ZC_FAST --parser scan --console-port 0; fi
      # shellcheck disable=SC2086
      if crawler_on zcrawl-single; then
        zcrawl_round fast zcrawl-single "$r" $ZC_FAST --parser scan --single-process
      fi
      if crawler_on wget; then run_crawler fast wget "$r" wget; fi
      # shellcheck disable=SC2086
      if crawler_on zcrawl-blocking; then
        zcrawl_round fast zcrawl-blocking "$r" $ZC_FAST --parser myhtml --io blocking
      fi
      # shellcheck disable=SC2086
      if crawler_on zcrawl-myhtml-ph16; then
        zcrawl_round fast zcrawl-myhtml-ph16 "$r" $ZC_FAST_PH16 --parser myhtml
      fi
      # Alternated with the site's rounds, so the two read against each other.
      if part endless; then endless_round "$r"; fi
    done
  elif part endless; then
    for ((r = 1; r <= REPEATS; r++)); do endless_round "$r"; done
  fi
  if part memory; then
    # shellcheck disable=SC2086
    EXPECT=100 run_crawler memory zcrawl-100 1 zcrawl $ZC_FAST --max-pages 100
    # Half the site: full minus half is the cost of the second half's URLs
    # alone, without fixed costs (SQLite page cache, allocator arenas).
    # shellcheck disable=SC2086
    EXPECT=$((EXPECTED / 2)) run_crawler memory zcrawl-half 1 zcrawl $ZC_FAST --max-pages $((EXPECTED / 2))
  fi
  if part profile; then
    for parser in scan myhtml; do
      log "profiling one zcrawl crawl (--parser $parser) with perf (cpu-clock samples of its process tree)"
      # shellcheck disable=SC2086
      perf record -g -e cpu-clock -F 999 -o "$WORK/perf-$parser.data" -- \
        env ZCRAWL_BENCH_REAL_BIN_DIR="$BIN_DIR" ZCRAWL_BENCH_RUSAGE_LOG="$WORK/logs/profile-$parser.rusage" \
        "$WRAP" --exec "$WORK/bin/zcrawl-crawl" "${SEEDS[@]}" $ZC_FAST --parser "$parser" --delay-ms 0 \
        --no-robots --out "$OUT_ROOT/profile-$parser" --format files --log-level warn \
        > "$WORK/logs/profile-$parser.log" 2>&1 || true
      report() { perf report -i "$WORK/perf-$parser.data" --no-children --stdio "$@" 2>/dev/null \
                   | grep -v '^#' | grep -v '^$' || true; }
      report --sort comm | head -12 > "$WORK/profile-$parser-comm.txt"
      report --sort comm,dso | head -30 > "$WORK/profile-$parser-dso.txt"
      : > "$WORK/profile-$parser-sym.txt"
      # Per process (the first fetcher stands for both), by thread and function.
      for c in zcrawl-fetcher zcrawl-frontier zcrawl-writer; do
        pid="$(awk -v c="$c" '$1 == c { print $2; exit }' "$WORK/logs/profile-$parser.rusage")"
        [ -n "$pid" ] || continue
        { echo "== $c (pid $pid): top functions by thread, % of this process's samples"
          report --pid "$pid" --percentage relative --sort comm,dso,sym | head -30; } >> "$WORK/profile-$parser-sym.txt"
      done
      # Where the kernel's irq-enable samples come from (on this VM's
      # paravirtualised kernel, pvm_irq_enable takes the samples of a
      # context switch or a lock released with irqs off): per thread, the
      # first frames under it, from the call graphs (-g).
      perf script -i "$WORK/perf-$parser.data" -F comm,ip,sym 2>/dev/null | awk '
        /^[^ \t]/ { comm = $1; n = 0; hit = 0; path = ""; next }
        NF == 0 { if (hit) print comm path; hit = 0; next }
        { n++; if (n == 1) { hit = ($2 == "pvm_irq_enable"); next }
          if (hit && n <= 6 && $2 !~ /pvm_irq_enable|entry_SYSCALL|do_syscall_64/) path = path " < " $2 }' \
        | sort | uniq -c | sort -rn | head -25 > "$WORK/profile-$parser-irq-enable.txt" || true
      log "profile: $WORK/profile-$parser-{comm,dso,sym,irq-enable}.txt"
    done
    # wget2 on the same site with the same sampling, beside zcrawl's.
    log "profiling one wget2 crawl with perf"
    perf record -e cpu-clock -F 999 -o "$WORK/perf-wget2.data" -- \
      wget2 -r -l inf -nv --no-robots --max-threads "$WGET2_THREADS" -D "$HOST_LIST" \
      -P "$OUT_ROOT/profile-wget2" -o "$WORK/logs/profile-wget2.log" "${SEEDS[@]}" >/dev/null 2>&1 || true
    perf report -i "$WORK/perf-wget2.data" --no-children --stdio --sort dso,sym 2>/dev/null \
      | grep -v '^#' | grep -v '^$' | head -30 > "$WORK/profile-wget2-sym.txt" || true
    # Syscalls of each whole process tree on the same crawl (strace -f -c:
    # counts are exact, times are inflated by strace itself).
    if command -v strace >/dev/null 2>&1; then
      log "counting the syscalls of one zcrawl-scan and one wget2 crawl (strace -f -c)"
      # shellcheck disable=SC2086
      strace -f -c -o "$WORK/strace-zcrawl.txt" -- \
        env ZCRAWL_BENCH_REAL_BIN_DIR="$BIN_DIR" ZCRAWL_BENCH_RUSAGE_LOG="$WORK/logs/strace-zcrawl.rusage" \
        "$WRAP" --exec "$WORK/bin/zcrawl-crawl" "${SEEDS[@]}" $ZC_FAST --parser scan --delay-ms 0 \
        --no-robots --out "$OUT_ROOT/strace-zcrawl" --format "$ZC_FORMAT" --log-level warn \
        > "$WORK/logs/strace-zcrawl.log" 2>&1 || true
      strace -f -c -o "$WORK/strace-wget2.txt" -- \
        wget2 -r -l inf -nv --no-robots --max-threads "$WGET2_THREADS" -D "$HOST_LIST" \
        -P "$OUT_ROOT/strace-wget2" -o "$WORK/logs/strace-wget2.log" "${SEEDS[@]}" >/dev/null 2>&1 || true
    fi
    rm -rf "$OUT_ROOT"/profile-* "$OUT_ROOT"/strace-*
  fi
  stop_nginx
  settle
fi

if part slow; then
  start_nginx "$LATENCY_MS"
  # shellcheck disable=SC2086
  if crawler_on zcrawl || crawler_on zcrawl-myhtml || crawler_on zcrawl-blocking; then
    warm_up slow $ZC_SLOW --parser myhtml
  fi
  for ((r = 1; r <= REPEATS; r++)); do
    disk_probe slow "$r"
    # shellcheck disable=SC2086
    if crawler_on zcrawl; then zcrawl_round slow zcrawl "$r" $ZC_SLOW --parser gumbo; fi
    if crawler_on wget2; then run_crawler slow wget2 "$r" wget2; fi
    # shellcheck disable=SC2086
    if crawler_on zcrawl-myhtml; then zcrawl_round slow zcrawl-myhtml "$r" $ZC_SLOW --parser myhtml; fi
    # shellcheck disable=SC2086
    if crawler_on zcrawl-scan; then zcrawl_round slow zcrawl-scan "$r" $ZC_SLOW --parser scan; fi
    # shellcheck disable=SC2086
    if crawler_on zcrawl-single; then
      zcrawl_round slow zcrawl-single "$r" $ZC_SLOW --parser scan --single-process
    fi
    # shellcheck disable=SC2086
    if crawler_on zcrawl-blocking; then
      zcrawl_round slow zcrawl-blocking "$r" $ZC_SLOW --parser myhtml --io blocking
    fi
    # shellcheck disable=SC2086
    if crawler_on zcrawl-16; then zcrawl_round slow zcrawl-16 "$r" $ZC_SLOW16; fi
  done
  stop_nginx
  settle
fi

# --- Struggling server ----------------------------------------------------------

# start_struggling_nginx ACCESS_LOG: the struggling site on 127.0.0.2..:PORT,
# each host behind its own limit_req bucket (keyed by $host): 20 requests/s,
# a burst of 20 served at once (nodelay), 429 with Retry-After: 2 beyond it;
# every request logged to ACCESS_LOG as "STATUS HOST TIME". A fresh nginx
# per crawl, so each starts with full buckets.
start_struggling_nginx() {
  local servers="" h
  for ((h = 0; h < STRUGGLING_HOSTS; h++)); do
    servers+="  server {
    listen 127.0.0.$((h + 2)):$PORT;
    root $STRUGGLING_SITE/127.0.0.$((h + 2));
    limit_req zone=struggling burst=$STRUGGLING_RATE nodelay;
    error_page 429 @too_many;
    location / { }
    location @too_many { add_header Retry-After 2 always; return 429 \"slow down\\n\"; }
  }
"
  done
  # Refusals are the scenario, not errors: logged below the error log's level.
  launch_nginx "  log_format struggling '\$status \$host \$msec';
  access_log $1 struggling;
  limit_req_zone \$host zone=struggling:1m rate=${STRUGGLING_RATE}r/s;
  limit_req_status 429;
  limit_req_log_level info;
$servers" "http://127.0.0.2:$PORT/"
  : > "$1"  # the probe's request is not the crawl's
}

# struggling_round LABEL ROUND TOOL [FLAGS]: one crawl of the struggling site.
struggling_round() {
  local access_log="$WORK/logs/struggling-$1-$2.access"
  start_struggling_nginx "$access_log"
  RUN_SEEDS=("${STRUGGLING_SEEDS[@]}")
  RUN_HOSTS="$STRUGGLING_HOST_LIST" RUN_ACCESS_LOG="$access_log" \
    EXPECT=$((STRUGGLING_HOSTS * STRUGGLING_PAGES_PER_HOST)) run_crawler struggling "$@"
  unset RUN_SEEDS
  stop_nginx
}

if part struggling; then
  STRUGGLING_SITE="$WORK/site-struggling"
  params="port=$PORT hosts=$STRUGGLING_HOSTS pages=$STRUGGLING_PAGES_PER_HOST bytes=$PAGE_BYTES"
  if [ "$(cat "$STRUGGLING_SITE/.params" 2>/dev/null)" != "$params" ]; then
    log "generating the struggling site in $STRUGGLING_SITE ($params)"
    rm -rf "$STRUGGLING_SITE"
    mkdir -p "$STRUGGLING_SITE"
    python3 "$BENCH_DIR/gen_site.py" "$STRUGGLING_SITE" "$PORT" --hosts "$STRUGGLING_HOSTS" \
      --pages-per-host "$STRUGGLING_PAGES_PER_HOST" --bytes "$PAGE_BYTES" >&2
    echo "$params" > "$STRUGGLING_SITE/.params"
    chmod -R a+rX "$STRUGGLING_SITE"
  fi
  STRUGGLING_SEEDS=()
  STRUGGLING_HOST_LIST=""
  for ((h = 0; h < STRUGGLING_HOSTS; h++)); do
    STRUGGLING_SEEDS+=("http://127.0.0.$((h + 2)):$PORT/")
    STRUGGLING_HOST_LIST="${STRUGGLING_HOST_LIST:+$STRUGGLING_HOST_LIST,}127.0.0.$((h + 2))"
  done
  for ((r = 1; r <= REPEATS; r++)); do
    # shellcheck disable=SC2086
    if crawler_on zcrawl; then struggling_round zcrawl "$r" zcrawl $ZC_STRUGGLING; fi
    if crawler_on wget2; then struggling_round wget2 "$r" wget2; fi
    # shellcheck disable=SC2086
    if crawler_on zcrawl-single; then struggling_round zcrawl-single "$r" zcrawl $ZC_STRUGGLING --single-process; fi
  done
  settle
fi

if part web; then
  web_part
  settle
fi

if part micro; then
  : > "$WORK/micro.txt"
  for b in url_bench html_parser_bench content_decode_bench crawl_scheduler_bench warc_sink_bench; do
    if [ -x "$BIN_DIR/$b" ]; then
      log "microbenchmark $b"
      "$BIN_DIR/$b" --benchmark_min_time="$MICRO_MIN_TIME" 2>&1 | tee -a "$WORK/micro.txt" >&2
    else
      log "no $BIN_DIR/$b (built with ZCRAWL_BUILD_BENCH and libbenchmark-dev)"
    fi
  done
fi

if part sinks; then
  if [ -x "$BIN_DIR/sink_throughput_bench" ]; then
    for ((r = 1; r <= REPEATS; r++)); do
      log "sinks round $r: dd of 1 GiB, then sink_throughput_bench"
      # dd prints "... copied, S s, R MB/s"; keep its last line.
      dd if=/dev/zero of="$WORK/dd.bin" bs=1M count=1024 conv=fsync 2>&1 | tail -1 > "$WORK/sinks-dd-$r.txt"
      rm -f "$WORK/dd.bin"
      TMPDIR="$WORK" "$BIN_DIR/sink_throughput_bench" --benchmark_format=json > "$WORK/sinks-$r.json" 2>/dev/null
    done
    # Then the writer process itself, fed over ZeroMQ by fake fetchers: after
    # all rounds above, because deleting its 40,000 files slows the next file
    # creations on ext4 for ~30 s (bench/README.md: "Outputs are deleted").
    if [ -x "$BIN_DIR/writer_feed_bench" ]; then
      for ((r = 1; r <= REPEATS; r++)); do
        log "sinks round $r: writer_feed_bench"
        : > "$WORK/feed-$r.jsonl"
        for flags in "--format warc" "--format warc --no-fetcher-compression" "--format warc --warc-gzip-level 0" \
                     "--format jsonl" "--format files"; do
          # shellcheck disable=SC2086  # the flags are words on purpose
          "$BIN_DIR/writer_feed_bench" "$BIN_DIR/zcrawl-writer" "$WORK/feed-out" --pages 40000 -- $flags \
            >> "$WORK/feed-$r.jsonl" 2>> "$WORK/logs/feed.log" || log "writer_feed_bench $flags failed (see logs/feed.log)"
        done
      done
    fi
  else
    log "no $BIN_DIR/sink_throughput_bench (built with ZCRAWL_BUILD_BENCH and libbenchmark-dev)"
  fi
fi

# frontier-scale: last, being the longest. The bench prints a line per
# sample (shown as progress) and its summary, which goes into results.md.
SCALE_CODE=""
if part frontier-scale; then
  rm -rf "$WORK/frontier-scale"
  mkdir -p "$WORK/frontier-scale"
  scale_cmd=("$BIN_DIR/frontier_scale_bench" --frontier-bin "$BIN_DIR/zcrawl-frontier"
             --state "$WORK/frontier-scale/state" --memory-mb "$SCALE_MEMORY_MB"
             --target-urls "$SCALE_URLS" --max-seconds "$SCALE_SECONDS" --csv "$WORK/frontier-scale.csv")
  [ "$SCALE_KILL_RESUME" = 1 ] && scale_cmd+=(--kill-resume)
  # shellcheck disable=SC2206  # the extra flags are words on purpose
  scale_cmd+=($SCALE_ARGS)
  log "frontier-scale: ${scale_cmd[*]}"
  set +e
  "${scale_cmd[@]}" 2>"$WORK/logs/frontier-scale.log" | tee "$WORK/frontier-scale.txt" >&2
  SCALE_CODE=${PIPESTATUS[0]}
  set -e
  [ "$SCALE_CODE" = 0 ] || log "WARNING: frontier_scale_bench exited $SCALE_CODE (see $WORK/logs/frontier-scale.log)"
  if [ -s "$WORK/frontier-scale.csv" ]; then
    "$BENCH_DIR/frontier_scale/plot.sh" "$WORK/frontier-scale.csv" "$WORK/frontier-scale.png" >&2 ||
      log "no frontier-scale.png (plot.sh needs gnuplot or python3-matplotlib)"
  fi
fi

DIGEST_CODE=""
if part digest-index; then
  log "digest-index: $DIGEST_PAYLOADS pages"
  "$BIN_DIR/digest_index_bench" --payloads "$DIGEST_PAYLOADS" --sample-every $(((DIGEST_PAYLOADS + 9) / 10)) \
    --memory-mb 64 --dir "$WORK/digest-index" \
    > "$WORK/digest-index.csv" 2> "$WORK/logs/digest-index.log"
  DIGEST_CODE=$?
  rm -rf "$WORK/digest-index"
fi

# digest_index_report: the "Payload-digest index" section of results.md.
digest_index_report() {
  [ -n "$DIGEST_CODE" ] || return 0
  echo "## Payload-digest index"
  echo ""
  echo "The WARC writer's digest index alone (bench/digest_index_bench.cc): $DIGEST_PAYLOADS pages, a fifth"
  echo "repeats, bound 64 MB (--dedup-memory-mb's default); digest_index_bench exited $DIGEST_CODE."
  echo ""
  echo '```text'
  cat "$WORK/digest-index.csv"
  echo '```'
  echo ""
}

# frontier_scale_report: the "Frontier scale" section of results.md.
frontier_scale_report() {
  [ -n "$SCALE_CODE" ] || return 0
  local resume="" files="\`frontier-scale.csv\`"
  [ "$SCALE_KILL_RESUME" = 1 ] && resume=", then killed (SIGKILL) and resumed on the same state"
  [ -f "$WORK/frontier-scale.png" ] && files+=", drawn in \`frontier-scale.png\`"
  [ -f "$WORK/frontier-scale-resume.csv" ] && files+="; the resume: \`frontier-scale-resume.csv\`, the resumed frontier's log \`frontier-scale/state-resume.log\`"
  echo "## Frontier scale"
  echo ""
  echo "zcrawl-frontier alone, driven by fake fetchers over a synthetic web (bench/README.md, \"Frontier scale\"):"
  echo "until it knows $SCALE_URLS URLs or $SCALE_SECONDS s pass, --memory-mb $SCALE_MEMORY_MB$resume${SCALE_ARGS:+; flags: $SCALE_ARGS}."
  echo "frontier_scale_bench exited $SCALE_CODE. Samples in $files (in WORK)."
  echo ""
  echo '```text'
  # The summary: from the stop on (the samples are in the CSV).
  sed -n '/^stopped: /,$p' "$WORK/frontier-scale.txt"
  echo '```'
  echo ""
}

{ python3 "$BENCH_DIR/bench_report.py" "$WORK"; frontier_scale_report; digest_index_report; } | tee "$WORK/results.md"
log "results in $WORK/results.md"
