#!/usr/bin/env bash
# Stops the local broker on 127.0.0.1:${KAFKA_PORT:-9092}: SIGTERM (controlled shutdown), then SIGKILL
# after KAFKA_STOP_TIMEOUT seconds. Leaves no process behind.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

clean_stale_pid
pid="$(live_pid)"
if [[ -z "$pid" ]]; then
  if port_open "$KAFKA_PORT"; then
    log "no broker started by this script on port $KAFKA_PORT, but something answers there; not touching it"
  else
    log "not running (port $KAFKA_PORT)"
  fi
  exit 0
fi

log "stopping pid $pid (SIGTERM, up to ${KAFKA_STOP_TIMEOUT}s)"
t0=$SECONDS
kill -TERM "$pid" 2>/dev/null || true
deadline=$((SECONDS + KAFKA_STOP_TIMEOUT))
while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.5; done
if kill -0 "$pid" 2>/dev/null; then
  log "still running after ${KAFKA_STOP_TIMEOUT}s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
fi
rm -f "$PID_FILE" "$STATE_FILE"
log "stopped after $((SECONDS - t0)) s"
