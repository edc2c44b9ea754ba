# Sourced by the test scripts that start servers of their own
# (tests/console/console_check.sh, tests/replay/replay_check.sh): each
# server's PID goes into PIDS, and at exit every one is stopped by its PID.
# WORK, the script's work folder, is removed unless the script failed
# (failed stays 1 until it sets failed=0) or KEEP=1.
PIDS=()
failed=1
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  if [ "${KEEP:-0}" = 1 ] || [ "$failed" != 0 ]; then echo "work folder kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
