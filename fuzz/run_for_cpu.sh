#!/usr/bin/env bash
# run_for_cpu.sh CPU_SECONDS FUZZER [ARGS...]: runs a libFuzzer binary until
# it has used CPU_SECONDS of CPU time (user + system), then interrupts it so
# it prints its final stats. `./run fuzz` uses it: issue 21 asks for CPU
# minutes per target, and libFuzzer's -max_total_time counts wall time,
# which a busy 2-core machine stretches.
# Exit: 0 when the budget was used up, libFuzzer's own code when it stopped
# by itself (a crash: nonzero, its input is in the artifact folder).
set -uo pipefail

[ $# -ge 2 ] || { echo "usage: run_for_cpu.sh CPU_SECONDS FUZZER [ARGS...]" >&2; exit 2; }
budget="$1"; shift
ticks_per_second="$(getconf CLK_TCK)"

"$@" &
pid=$!
trap 'kill -INT "$pid" 2>/dev/null' INT TERM

# utime + stime of the fuzzer, fields 14 and 15 of /proc/PID/stat (the
# command name, field 2, may hold spaces: count from after its ')').
cpu_seconds() {
  local stat rest
  stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || return 1
  rest="${stat##*) }"
  set -- $rest
  echo $(( (${12} + ${13}) / ticks_per_second ))
}

used=0
while kill -0 "$pid" 2>/dev/null; do
  used="$(cpu_seconds)" || break
  if [ "$used" -ge "$budget" ]; then
    kill -INT "$pid" 2>/dev/null
    break
  fi
  sleep 2
done
wait "$pid"
rc=$?
# libFuzzer exits 72 when interrupted, after its final stats.
if [ "$used" -ge "$budget" ] && { [ "$rc" -eq 72 ] || [ "$rc" -eq 0 ]; }; then
  echo "run_for_cpu: stopped after ${used} CPU seconds (budget ${budget})" >&2
  exit 0
fi
echo "run_for_cpu: the fuzzer stopped by itself after ${used} CPU seconds, exit ${rc}" >&2
exit "$rc"
