#!/usr/bin/env bash
# Shows the local schema registry on 127.0.0.1:${REGISTRY_PORT:-18081}. Exit 0 if it answers, 3 if not.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

clean_stale_pid
pid="$(live_pid)"
if [[ -z "$pid" ]]; then
  if api_answers; then
    log "a registry not started by this script answers at $CCOMPAT_URL"
    exit 0
  fi
  log "not running (port $REGISTRY_PORT)"
  exit 3
fi
answers=no
api_answers && answers=yes
log "running: pid $pid, Apicurio Registry $(sed -E -n 's/.*"version": *"([^"]*)".*/\1/p' "$STATE_FILE"), answering: $answers"
log "url: $CCOMPAT_URL"
log "log: $LOG_DIR/stdout.log"
[[ "$answers" == yes ]] || exit 3
