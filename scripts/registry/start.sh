#!/usr/bin/env bash
# Starts the local schema registry (Apicurio Registry, Confluent-compatible API) on
# 127.0.0.1:${REGISTRY_PORT:-18081}, fetching it from Maven Central on first use, and prints the URL a
# converter's schema.registry.url takes. Idempotent: if our registry already runs, it says so and exits 0.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_java
mkdir -p "$RUN_DIR"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$RUN_DIR/registry-$REGISTRY_PORT.lock"
  flock -w 300 9 || die "another start.sh on port $REGISTRY_PORT did not finish within 300 s"
fi
clean_stale_pid

pid="$(live_pid)"
if [[ -n "$pid" ]]; then
  log "already running: pid $pid on 127.0.0.1:$REGISTRY_PORT (nothing to do)"
  echo "$CCOMPAT_URL"
  exit 0
fi
if port_open "$REGISTRY_PORT"; then
  if api_answers; then
    log "a registry not started by this script already answers on 127.0.0.1:$REGISTRY_PORT; leaving it alone"
    echo "$CCOMPAT_URL"
    exit 0
  fi
  die "port 127.0.0.1:$REGISTRY_PORT is taken by something that does not answer $CCOMPAT_URL/subjects; set REGISTRY_PORT to a free port"
fi
port_open "$REGISTRY_MGMT_PORT" &&
  die "management port 127.0.0.1:$REGISTRY_MGMT_PORT is taken; set REGISTRY_MGMT_PORT to a free port"

ensure_app
mkdir -p "$LOG_DIR"
if [[ -f "$LOG_DIR/stdout.log" ]]; then mv -f "$LOG_DIR/stdout.log" "$LOG_DIR/stdout.log.prev"; fi

t0=$SECONDS
# small heap, C1 only and serial GC: about 170 MB RSS on 2 cores; H2 in memory with a small pool
# shellcheck disable=SC2086 # REGISTRY_HEAP_OPTS is a list of flags
(cd "$APP_DIR" && exec nohup java $REGISTRY_HEAP_OPTS -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
  -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$REGISTRY_PORT" \
  -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$REGISTRY_MGMT_PORT" \
  -Dquarkus.otel.sdk.disabled=true -Dquarkus.banner.enabled=false \
  -Dapicurio.datasource.jdbc.initial-size=1 -Dapicurio.datasource.jdbc.min-size=1 \
  -Dapicurio.datasource.jdbc.max-size=4 \
  -jar "apicurio-registry-app-$REGISTRY_VERSION-runner.jar" >"$LOG_DIR/stdout.log" 2>&1 </dev/null 9>&-) &
pid=$!
echo "$pid" >"$PID_FILE"
cat >"$STATE_FILE" <<JSON
{"pid": $pid, "version": "$REGISTRY_VERSION", "port": $REGISTRY_PORT, "managementPort": $REGISTRY_MGMT_PORT, "url": "$CCOMPAT_URL", "logDir": "$LOG_DIR"}
JSON
log "starting Apicurio Registry $REGISTRY_VERSION (pid $pid) on 127.0.0.1:$REGISTRY_PORT"

fail_start() {
  printf '[registry] ERROR: %s\n' "$1" >&2
  if [[ -s "$LOG_DIR/stdout.log" ]]; then
    printf -- '----- last 40 lines of %s -----\n' "$LOG_DIR/stdout.log" >&2
    tail -n 40 "$LOG_DIR/stdout.log" >&2
  fi
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$PID_FILE" "$STATE_FILE"
  exit 1
}

deadline=$((SECONDS + REGISTRY_START_TIMEOUT))
until api_answers; do
  kill -0 "$pid" 2>/dev/null || fail_start "the registry exited during startup"
  ((SECONDS < deadline)) || fail_start "the registry did not answer $CCOMPAT_URL/subjects within ${REGISTRY_START_TIMEOUT}s"
  sleep 0.5
done
log "ready after $((SECONDS - t0)) s (in-memory storage: schema ids start at 1); log: $LOG_DIR/stdout.log"
log "stop with: npm run registry:stop"
echo "$CCOMPAT_URL"
