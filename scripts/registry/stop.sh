#!/usr/bin/env bash
# Stops the local schema registry on 127.0.0.1:${REGISTRY_PORT:-18081}: SIGTERM, then SIGKILL after
# REGISTRY_STOP_TIMEOUT seconds. A registry this script did not start is left alone.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

clean_stale_pid
pid="$(live_pid)"
if [[ -z "$pid" ]]; then
  if port_open "$REGISTRY_PORT"; then
    log "no registry started by this script on port $REGISTRY_PORT, but something answers there; not touching it"
  else
    log "not running (port $REGISTRY_PORT)"
  fi
  exit 0
fi
log "stopping pid $pid (SIGTERM, up to ${REGISTRY_STOP_TIMEOUT}s)"
t0=$SECONDS
kill -TERM "$pid" 2>/dev/null || true
deadline=$((SECONDS + REGISTRY_STOP_TIMEOUT))
while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.3; done
if kill -0 "$pid" 2>/dev/null; then
  log "still running after ${REGISTRY_STOP_TIMEOUT}s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
fi
rm -f "$PID_FILE" "$STATE_FILE"
log "stopped after $((SECONDS - t0)) s"
