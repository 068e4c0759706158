# shellcheck shell=bash
# Shared helpers for scripts/kafka/{start,stop,status,classpath}.sh. Source it; do not run it.
#
# Environment (all optional):
#   KAFKA_VERSION          Kafka release to run (default 4.4.0; 4.2.x works too)
#   KAFKA_PORT             PLAINTEXT listener on 127.0.0.1 (default 9092)
#   KAFKA_CONTROLLER_PORT  KRaft controller listener (default KAFKA_PORT + 1)
#   KAFKA_HEAP_OPTS        broker heap (default -Xms256m -Xmx768m)
#   KAFKA_START_TIMEOUT    seconds to wait for the broker to answer (default 90)
#   KAFKA_STOP_TIMEOUT     seconds between SIGTERM and SIGKILL (default 30)
#   KAFKA_HOME_DIR         state root (default <repo>/.kafka)
#   KAFKA_SECURE           1: the secured broker instead (TLS, SASL_SSL + SCRAM, mTLS, ACLs); its own
#                          node on KAFKA_PORT (default 9392), SASL_SSL on port + 2, mTLS on port + 3.
#                          It runs beside the plaintext broker on 9092, which it never touches.

KAFKA_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$KAFKA_SCRIPTS_DIR/../.." && pwd)"

KAFKA_VERSION="${KAFKA_VERSION:-4.4.0}"
KAFKA_SECURE="${KAFKA_SECURE:-0}"
if [[ "$KAFKA_SECURE" == 1 ]]; then
  KAFKA_PORT="${KAFKA_PORT:-9392}"
else
  KAFKA_PORT="${KAFKA_PORT:-9092}"
fi
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
KAFKA_HOME_DIR="${KAFKA_HOME_DIR:-$REPO_ROOT/.kafka}"
# secured broker only: its TLS listeners, and the CA / certificates secure-certs.sh writes (once, shared
# by every version and port, so the tests find them at one path)
KAFKA_SASL_SSL_PORT="${KAFKA_SASL_SSL_PORT:-$((KAFKA_PORT + 2))}"
KAFKA_MTLS_PORT="${KAFKA_MTLS_PORT:-$((KAFKA_PORT + 3))}"
SECURE_DIR="$KAFKA_HOME_DIR/secure"
SECURE_STORE_PASSWORD="changeit"

VERSION_DIR="$KAFKA_HOME_DIR/$KAFKA_VERSION"
CLASSPATH_FILE="$VERSION_DIR/broker.cp"
# a secured node has its own directory: its storage is formatted with SCRAM users, a plaintext one's is not
if [[ "$KAFKA_SECURE" == 1 ]]; then
  NODE_DIR="$VERSION_DIR/node-$KAFKA_PORT-secure"
else
  NODE_DIR="$VERSION_DIR/node-$KAFKA_PORT"
fi
DATA_DIR="$NODE_DIR/data"
LOG_DIR="$NODE_DIR/logs"
RUN_DIR="$KAFKA_HOME_DIR/run"
# one pid file per port: a port has at most one broker, whatever its version
PID_FILE="$RUN_DIR/broker-$KAFKA_PORT.pid"
STATE_FILE="$RUN_DIR/broker-$KAFKA_PORT.json"

# JVM flags for short-lived tool JVMs: C1 only and serial GC start noticeably faster on 2 cores
TOOL_JVM_OPTS=(-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true
  "-Dlog4j2.configurationFile=$KAFKA_SCRIPTS_DIR/tools-log4j2.properties")

SERVICE_TAG=kafka
SERVICE_WHAT="Kafka $KAFKA_VERSION"
SERVICE_CMDLINE='kafka\.Kafka'
# shellcheck source=../lib/java-service.sh
source "$KAFKA_SCRIPTS_DIR/../lib/java-service.sh"

require_maven() {
  command -v mvn >/dev/null 2>&1 ||
    die "'mvn' not found on PATH. Maven 3.8+ is needed once per Kafka version to fetch the broker jars from Maven Central (e.g. apt-get install maven)."
}

state_field() { # state_field <file> <key>: reads a string/number field of our flat JSON state file
  sed -E -n "s/.*\"$2\": *\"?([^\",}]*)\"?.*/\1/p" "$1" | head -n 1
}

# Resolves the broker + tools jars with Maven into CLASSPATH_FILE (once per version).
ensure_classpath() {
  if [[ -s "$CLASSPATH_FILE" ]]; then
    local missing=0 jar
    IFS=':' read -r -a jars <"$CLASSPATH_FILE" || true # no trailing newline: read returns 1
    for jar in "${jars[@]}"; do [[ -f "$jar" ]] || missing=1; done
    ((missing == 0)) && return 0
    log "jars listed in $CLASSPATH_FILE are missing (Maven cache cleared?); resolving again"
  fi
  require_maven
  mkdir -p "$VERSION_DIR"
  log "resolving Kafka $KAFKA_VERSION jars with Maven (first use of this version; needs Maven Central)..."
  local started=$SECONDS tmp="$CLASSPATH_FILE.tmp"
  if ! mvn -B -q -f "$KAFKA_SCRIPTS_DIR/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
    dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$tmp" \
    >"$VERSION_DIR/maven.log" 2>&1; then
    tail -n 30 "$VERSION_DIR/maven.log" >&2
    die "Maven could not resolve org.apache.kafka:kafka_2.13/kafka-tools:$KAFKA_VERSION (full log: $VERSION_DIR/maven.log). Is $KAFKA_VERSION a released version?"
  fi
  # exactly one SLF4J binding, or the broker logs nothing (or picks one at random)
  local bindings
  bindings="$(tr ':' '\n' <"$tmp" | grep -cE '/(log4j-slf4j2?-impl|slf4j-(simple|nop|jdk14|log4j12|reload4j)|logback-classic)-[^/]*\.jar$' || true)"
  [[ "$bindings" == 1 ]] || die "expected exactly one SLF4J binding on the classpath, found $bindings: see $tmp"
  mv "$tmp" "$CLASSPATH_FILE"
  log "classpath written to $CLASSPATH_FILE ($(tr ':' '\n' <"$CLASSPATH_FILE" | wc -l) jars, $((SECONDS - started)) s)"
}

# run_tool <main class> [args...]: runs a Kafka CLI tool from the resolved jars.
run_tool() {
  java "${TOOL_JVM_OPTS[@]}" -cp "$(cat "$CLASSPATH_FILE")" "$@"
}
