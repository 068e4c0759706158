#!/usr/bin/env bash
# Shows the local broker on 127.0.0.1:${KAFKA_PORT:-9092}. Exit 0 if it runs, 3 if not.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

clean_stale_pid
pid="$(live_pid)"
if [[ -z "$pid" ]]; then
  if port_open "$KAFKA_PORT"; then
    log "no broker started by this script on port $KAFKA_PORT, but something answers on 127.0.0.1:$KAFKA_PORT"
    exit 0
  fi
  log "not running (port $KAFKA_PORT)"
  exit 3
fi
version="$(state_field "$STATE_FILE" version)"
logs="$(state_field "$STATE_FILE" logDir)"
cp_file="$(state_field "$STATE_FILE" classpathFile)"
answers=no
port_open "$KAFKA_PORT" && answers=yes
log "running: pid $pid, Kafka $version, 127.0.0.1:$KAFKA_PORT (listening: $answers)"
log "logs: $logs/server.log"
log "classpath: $cp_file"
if [[ "${1:-}" == "--features" || "${1:-}" == "-v" ]]; then
  KAFKA_VERSION="$version"
  CLASSPATH_FILE="$cp_file"
  run_tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" describe
fi
