# Sourced by bench/run_bench.sh: the "web" part (issue 51), a web-like site
# where the costs of the real web show: HTTPS through a local CA, HTTP/2
# on most hosts, gzip, 1,000 hosts of Zipf sizes, heavy-tailed pages,
# 15-300 ms per response, robots.txt, 404s and redirects
# (bench/web/gen_web_site.py has the site). zcrawl (separate processes and
# --single-process) and wget2 with at most 64 requests in flight each, rounds
# alternated, nginx restarted for each crawl with its own access log, from
# which the connections, TLS handshakes and resumptions are counted.
# Uses run_bench.sh's run_crawler, launch_nginx and stop_nginx.

WEB_HOSTS="${WEB_HOSTS:-1000}"
WEB_PAGES="${WEB_PAGES:-10000}"
# 64 requests in flight at most for each crawler; robots.txt obeyed. zcrawl:
# 64 transfers, any of them on one host (--per-ip 0: each host has its own
# address here, and the per-address budget of 16 would hold the biggest
# host's tail to 16 while wget2 has no such bound). wget2: 64 threads, each
# with one HTTP/2 stream at a time; by default a thread multiplexes up to 30
# streams, and the server's log showed up to ~600 requests in flight.
ZC_WEB="--fetchers 1 --threads 64 --per-host 64 --per-ip 0"
WEB_WGET2_THREADS=64
WEB_WGET2_ARGS="--max-threads $WEB_WGET2_THREADS --http2-request-window=1"

# web_prepare: the site, its CA and one certificate per host (an EC P-256
# key shared by all, a certificate naming each host's address), made once
# per parameters in WORK/site-web; sets WEB_SEEDS and WEB_CA.
web_prepare() {
  # nginx listens on an address per host, and each worker inherits them all.
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((4 * WEB_HOSTS)) ]; then
    log "WARNING: open files limited to $(ulimit -n); nginx needs about $((4 * WEB_HOSTS)) for $WEB_HOSTS hosts"
  fi
  WEB_SITE="$WORK/site-web"
  local params="port=$PORT hosts=$WEB_HOSTS pages=$WEB_PAGES v1"
  if [ "$(cat "$WEB_SITE/.params" 2>/dev/null)" != "$params" ]; then
    log "generating the web-like site in $WEB_SITE ($params)"
    rm -rf "$WEB_SITE"
    mkdir -p "$WEB_SITE/tls"
    python3 "$BENCH_DIR/web/gen_web_site.py" "$WEB_SITE" "$PORT" --hosts "$WEB_HOSTS" --pages "$WEB_PAGES" >&2
    web_certs "$WEB_SITE/tls" "$WEB_SITE/hosts.tsv"
    echo "$params" > "$WEB_SITE/.params"
    chmod -R a+rX "$WEB_SITE"
  fi
  WEB_CA="$WEB_SITE/tls/ca.pem"
  WEB_SEEDS=()
  local ip rest
  while IFS=$'\t' read -r ip rest; do WEB_SEEDS+=("https://$ip:$PORT/"); done < "$WEB_SITE/hosts.tsv"
}

# web_certs DIR HOSTS_TSV: the CA and a certificate per host address.
web_certs() {
  local dir="$1" ip rest serial=1
  openssl ecparam -name prime256v1 -genkey -noout -out "$dir/ca.key" 2>/dev/null
  openssl req -x509 -new -key "$dir/ca.key" -days 30 -subj "/CN=zcrawl web bench CA" -out "$dir/ca.pem" 2>/dev/null
  openssl ecparam -name prime256v1 -genkey -noout -out "$dir/host.key" 2>/dev/null
  openssl req -new -key "$dir/host.key" -subj "/CN=web bench host" -out "$dir/host.csr" 2>/dev/null
  while IFS=$'\t' read -r ip rest; do
    printf 'subjectAltName=IP:%s\n' "$ip" > "$dir/san.ext"
    openssl x509 -req -in "$dir/host.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -set_serial "$serial" \
      -days 30 -extfile "$dir/san.ext" -out "$dir/$ip.pem" 2>/dev/null
    serial=$((serial + 1))
  done < "$2"
}

# start_web_nginx ACCESS_LOG: every host on its address, TLS, HTTP/2 but on
# every 5th host, each answer held 15-300 ms (split_clients over the URL:
# a fixed delay per URL, 75 ms on average), pages gzipped ahead (gzip_static:
# the server spends no CPU compressing), /moved/PATH redirected to PATH.
start_web_nginx() {
  local servers="" ip pages robots h2
  while IFS=$'\t' read -r ip pages robots h2; do
    local protocols=" ssl"
    if [ "$h2" = 1 ]; then protocols=" ssl http2"; fi
    servers+="  server {
    listen $ip:$PORT$protocols;
    ssl_certificate $WEB_SITE/tls/$ip.pem;
    ssl_certificate_key $WEB_SITE/tls/host.key;
    root $WEB_SITE/$ip;
    location / { echo_sleep \$web_delay; echo_exec @static; }
    location @static { gzip_static on; try_files \$uri \$uri/index.html =404; }
    location /moved/ { rewrite ^/moved(/.*)\$ \$1 permanent; }
  }
"
  done < "$WEB_SITE/hosts.tsv"
  CURL_CA_BUNDLE="$WEB_CA" launch_nginx "  log_format web '\$connection \$connection_requests \$ssl_session_reused \$server_protocol \$status \$host';
  access_log $1 web;
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_cache shared:web:20m;
  ssl_session_timeout 1h;
  split_clients \"\${host}\${uri}\" \$web_delay { 30% 0.015; 30% 0.040; 20% 0.080; 12% 0.150; 8% 0.300; }
$servers" "${WEB_SEEDS[0]}"
}

# web_round LABEL ROUND TOOL [FLAGS]: one crawl of the web-like site; a
# crawler killed by a signal (wget2 1.99.1 segfaults now and then) is
# counted as a crash (label LABEL!crash in runs.tsv) and run again, twice
# at most.
web_round() {
  local label="$1" round="$2" attempt
  shift 2
  for attempt in 1 2 3; do
    local access_log="$WORK/logs/web-$label-$round.access"
    : > "$access_log"  # nginx appends: a log left by an earlier run must not count
    start_web_nginx "$access_log"
    RUN_SEEDS=("${WEB_SEEDS[@]}")
    RUN_HOSTS=- RUN_ACCESS_LOG="$access_log" RUN_ROBOTS=1 \
      RUN_WGET2_ARGS="--ca-certificate=$WEB_CA --compression=gzip $WEB_WGET2_ARGS" \
      EXPECT="$(cat "$WEB_SITE/expected.txt")" run_crawler web "$label" "$round" "$@"
    unset RUN_SEEDS
    stop_nginx
    local code
    code="$(tail -1 "$RUNS" | cut -f10)"
    if [ "$code" -lt 128 ]; then return 0; fi
    log "web $label round $round: killed by signal $((code - 128)) (attempt $attempt); running it again"
    # The crashed run stays in runs.tsv under another label, counted in the report.
    sed -i '$ s/^web\t'"$label"'\t/web\t'"$label"'!crash\t/' "$RUNS"
    mv "$access_log" "$access_log.crash$attempt"
  done
}

# web_zcrawl LABEL ROUND [FLAGS]: a zcrawl crawl, and with --baseline-bin
# the baseline build's too (LABEL@base), in the order flipped every round.
web_zcrawl() {
  local label="$1" round="$2"
  shift 2
  if [ -z "$BASE_BIN_DIR" ]; then
    web_round "$label" "$round" zcrawl "$@"
  elif [ $((round % 2)) = 1 ]; then
    web_round "$label" "$round" zcrawl "$@"
    web_round "$label@base" "$round" zcrawl-base "$@"
  else
    web_round "$label@base" "$round" zcrawl-base "$@"
    web_round "$label" "$round" zcrawl "$@"
  fi
}

web_part() {
  web_prepare
  local r
  for ((r = 1; r <= REPEATS; r++)); do
    # shellcheck disable=SC2086
    if crawler_on zcrawl-scan; then web_zcrawl zcrawl-scan "$r" $ZC_WEB --ca-file "$WEB_CA"; fi
    if crawler_on wget2; then web_round wget2 "$r" wget2; fi
    # shellcheck disable=SC2086
    if crawler_on zcrawl-single; then web_zcrawl zcrawl-single "$r" $ZC_WEB --ca-file "$WEB_CA" --single-process; fi
  done
}
