#!/usr/bin/env bash
# Starts the local single-node Kafka broker (KRaft, combined broker+controller) on
# 127.0.0.1:${KAFKA_PORT:-9092}, fetching Kafka ${KAFKA_VERSION:-4.4.0} from Maven Central on first use.
# Idempotent: if our broker already runs on the port, it says so and exits 0.
# KAFKA_SECURE=1 starts the secured broker instead (default port 9392; TLS, SASL_SSL with SCRAM users,
# mTLS, ACLs): certificates from secure-certs.sh, server-secure.properties.template on top of the
# plaintext template. See docs/development.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_java
mkdir -p "$RUN_DIR"
# two starts on one port at once (two test runs, CI and a developer) would format and launch twice;
# flock is util-linux's, missing on macOS: there the lock is skipped. The broker must not inherit fd 9
# (9>&- below), or it would hold the lock for its whole life
if command -v flock >/dev/null 2>&1; then
  exec 9>"$RUN_DIR/broker-$KAFKA_PORT.lock"
  flock -w 180 9 || die "another start.sh on port $KAFKA_PORT did not finish within 180 s"
fi
clean_stale_pid

pid="$(live_pid)"
if [[ -n "$pid" ]]; then
  running_version="$(state_field "$STATE_FILE" version 2>/dev/null || true)"
  log "already running: pid $pid, Kafka ${running_version:-?} on 127.0.0.1:$KAFKA_PORT (nothing to do)"
  if [[ -n "$running_version" && "$running_version" != "$KAFKA_VERSION" ]]; then
    log "note: KAFKA_VERSION=$KAFKA_VERSION was asked for; stop it first (npm run kafka:stop) to switch versions"
  fi
  exit 0
fi

ensure_classpath

if port_open "$KAFKA_PORT"; then
  # not ours: accept it if it is a Kafka broker, refuse otherwise
  if run_tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" describe >/dev/null 2>&1; then
    log "a Kafka broker not started by this script already answers on 127.0.0.1:$KAFKA_PORT; leaving it alone"
    exit 0
  fi
  die "port 127.0.0.1:$KAFKA_PORT is taken by something that is not a Kafka broker; set KAFKA_PORT to a free port"
fi
if port_open "$KAFKA_CONTROLLER_PORT"; then
  die "controller port 127.0.0.1:$KAFKA_CONTROLLER_PORT is taken; set KAFKA_CONTROLLER_PORT to a free port"
fi
if [[ "$KAFKA_SECURE" == 1 ]]; then
  for p in "$KAFKA_SASL_SSL_PORT" "$KAFKA_MTLS_PORT"; do
    port_open "$p" && die "port 127.0.0.1:$p (a secured listener) is taken; set KAFKA_PORT to another base port"
  done
  bash "$KAFKA_SCRIPTS_DIR/secure-certs.sh" "$SECURE_DIR"
fi

mkdir -p "$DATA_DIR" "$LOG_DIR" "$RUN_DIR"
CONFIG="$NODE_DIR/server.properties"
templates=("$KAFKA_SCRIPTS_DIR/server.properties.template")
[[ "$KAFKA_SECURE" == 1 ]] && templates+=("$KAFKA_SCRIPTS_DIR/server-secure.properties.template")
# the secured template's keys come last: java.util.Properties keeps the last value of a key
cat "${templates[@]}" | sed -e "s|@PORT@|$KAFKA_PORT|g" -e "s|@CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
  -e "s|@DATA_DIR@|$DATA_DIR|g" -e "s|@SASL_SSL_PORT@|$KAFKA_SASL_SSL_PORT|g" \
  -e "s|@MTLS_PORT@|$KAFKA_MTLS_PORT|g" -e "s|@SECURE_DIR@|$SECURE_DIR|g" \
  -e "s|@STORE_PASSWORD@|$SECURE_STORE_PASSWORD|g" >"$CONFIG"

# SCRAM credentials live in the cluster metadata: written at format time, so they exist before the
# first client connects (names and passwords are test fixtures, listed in docs/development.md)
scram_args=()
if [[ "$KAFKA_SECURE" == 1 ]]; then
  for user in admin:admin-secret sharesink:sharesink-secret sharesink-noacl:noacl-secret; do
    scram_args+=(--add-scram "SCRAM-SHA-512=[name=${user%%:*},password=${user#*:}]")
  done
  scram_args+=(--add-scram "SCRAM-SHA-256=[name=sharesink,password=sharesink-secret]")
fi

t0=$SECONDS
if [[ ! -f "$DATA_DIR/meta.properties" ]]; then
  # cluster id: 16 random bytes, base64url without padding (22 chars); a leading '-' would read as a flag
  cluster_id="-"
  while [[ "$cluster_id" == -* ]]; do
    cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
  done
  log "formatting KRaft storage in $DATA_DIR (cluster id $cluster_id)"
  # same jars as the broker: storage formatted by a newer Kafka is not readable by an older one
  if ! run_tool kafka.tools.StorageTool format -t "$cluster_id" -c "$CONFIG" "${scram_args[@]}" \
    >"$LOG_DIR/format.log" 2>&1; then
    cat "$LOG_DIR/format.log" >&2
    die "formatting the storage failed (log: $LOG_DIR/format.log)"
  fi
fi

# (re)start the logs of this run; keep the previous ones for a post-mortem
for f in server.log stdout.log; do
  if [[ -f "$LOG_DIR/$f" ]]; then mv -f "$LOG_DIR/$f" "$LOG_DIR/$f.prev"; fi
done
# shellcheck disable=SC2086 # KAFKA_HEAP_OPTS is a list of flags
nohup java $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError \
  -Djava.awt.headless=true -Dkafka.logs.dir="$LOG_DIR" \
  -Dlog4j2.configurationFile="$KAFKA_SCRIPTS_DIR/log4j2.properties" \
  -cp "$(cat "$CLASSPATH_FILE")" kafka.Kafka "$CONFIG" >"$LOG_DIR/stdout.log" 2>&1 </dev/null 9>&- &
pid=$!
echo "$pid" >"$PID_FILE"
secure_json=""
if [[ "$KAFKA_SECURE" == 1 ]]; then
  secure_json=", \"secure\": true, \"saslSslPort\": $KAFKA_SASL_SSL_PORT, \"mtlsPort\": $KAFKA_MTLS_PORT, \"secureDir\": \"$SECURE_DIR\""
fi
cat >"$STATE_FILE" <<JSON
{"pid": $pid, "version": "$KAFKA_VERSION", "port": $KAFKA_PORT, "controllerPort": $KAFKA_CONTROLLER_PORT, "classpathFile": "$CLASSPATH_FILE", "logDir": "$LOG_DIR", "dataDir": "$DATA_DIR"$secure_json}
JSON
log "starting Kafka $KAFKA_VERSION (pid $pid) on 127.0.0.1:$KAFKA_PORT, controller 127.0.0.1:$KAFKA_CONTROLLER_PORT"

fail_start() {
  printf '[kafka] ERROR: %s\n' "$1" >&2
  for f in server.log stdout.log; do
    if [[ -s "$LOG_DIR/$f" ]]; then
      printf -- '----- last 40 lines of %s -----\n' "$LOG_DIR/$f" >&2
      tail -n 40 "$LOG_DIR/$f" >&2
    fi
  done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$PID_FILE" "$STATE_FILE"
  exit 1
}

# wait for the listener, then for the broker to answer a real request
deadline=$((SECONDS + KAFKA_START_TIMEOUT))
until port_open "$KAFKA_PORT"; do
  kill -0 "$pid" 2>/dev/null || fail_start "the broker exited during startup"
  ((SECONDS < deadline)) || fail_start "the broker did not open 127.0.0.1:$KAFKA_PORT within ${KAFKA_START_TIMEOUT}s"
  sleep 0.5
done
features=""
until features="$(run_tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" describe 2>&1)"; do
  kill -0 "$pid" 2>/dev/null || fail_start "the broker exited during startup"
  ((SECONDS < deadline)) || fail_start "the broker did not answer FeatureCommand describe within ${KAFKA_START_TIMEOUT}s: $features"
  sleep 1
done

# share groups need the share.version feature >= 1 (default on a fresh 4.2+ cluster)
share_level() { sed -E -n 's/.*Feature: share\.version.*FinalizedVersionLevel: ([0-9]+).*/\1/p' <<<"$1" | head -n 1; }
level="$(share_level "$features")"
if [[ -z "$level" ]]; then
  fail_start "Kafka $KAFKA_VERSION has no share.version feature (share groups need Kafka 4.1+, GA in 4.2):
$features"
fi
if ((level < 1)); then
  log "share.version is $level; upgrading it to 1"
  run_tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" \
    upgrade --feature share.version=1 || fail_start "could not upgrade share.version to 1"
  features="$(run_tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" describe)"
  level="$(share_level "$features")"
fi

if [[ "$KAFKA_SECURE" == 1 ]]; then
  # the TLS listeners open after PLAINTEXT; a test must not find them closed
  until port_open "$KAFKA_SASL_SSL_PORT" && port_open "$KAFKA_MTLS_PORT"; do
    kill -0 "$pid" 2>/dev/null || fail_start "the broker exited during startup"
    ((SECONDS < deadline)) || fail_start "the secured listeners did not open within ${KAFKA_START_TIMEOUT}s"
    sleep 0.5
  done
fi
log "ready after $((SECONDS - t0)) s: Kafka $KAFKA_VERSION on 127.0.0.1:$KAFKA_PORT, share.version=$level"
if [[ "$KAFKA_SECURE" == 1 ]]; then
  log "secured: SASL_SSL on 127.0.0.1:$KAFKA_SASL_SSL_PORT, mTLS on 127.0.0.1:$KAFKA_MTLS_PORT, ACLs on; certificates in $SECURE_DIR"
fi
log "logs: $LOG_DIR/server.log (stdout/stderr: $LOG_DIR/stdout.log)"
log "stop with: npm run kafka:stop"
