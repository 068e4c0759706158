# shellcheck shell=bash
# Shared helpers for scripts/registry/{start,stop,status}.sh. Source it; do not run it.
#
# The local schema registry is Apicurio Registry (Maven Central: io.apicurio:apicurio-registry-app,
# tar.gz classifier `all`), which serves the Confluent Schema Registry REST API under
# /apis/ccompat/v7. Storage is in memory: schema ids start at 1 on every start.
#
# Environment (all optional):
#   REGISTRY_VERSION        Apicurio Registry release (default 3.0.9; 3.3.x needs Java 21)
#   REGISTRY_PORT           HTTP port on 127.0.0.1 (default 18081)
#   REGISTRY_MGMT_PORT      Quarkus management port on 127.0.0.1 (default REGISTRY_PORT + 1; its default 9000 is moved)
#   REGISTRY_HEAP_OPTS      JVM heap flags (default -Xms64m -Xmx192m)
#   REGISTRY_START_TIMEOUT  seconds to wait for the API to answer (default 90)
#   REGISTRY_STOP_TIMEOUT   seconds between SIGTERM and SIGKILL (default 20)
#   REGISTRY_HOME_DIR       state root (default <repo>/.registry; next to KAFKA_HOME_DIR's .kafka when that is set)

REGISTRY_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$REGISTRY_SCRIPTS_DIR/../.." && pwd)"

REGISTRY_VERSION="${REGISTRY_VERSION:-3.0.9}"
REGISTRY_PORT="${REGISTRY_PORT:-18081}"
REGISTRY_MGMT_PORT="${REGISTRY_MGMT_PORT:-$((REGISTRY_PORT + 1))}"
REGISTRY_HEAP_OPTS="${REGISTRY_HEAP_OPTS:--Xms64m -Xmx192m}"
REGISTRY_START_TIMEOUT="${REGISTRY_START_TIMEOUT:-90}"
REGISTRY_STOP_TIMEOUT="${REGISTRY_STOP_TIMEOUT:-20}"
if [[ -z "${REGISTRY_HOME_DIR:-}" ]]; then
  if [[ -n "${KAFKA_HOME_DIR:-}" ]]; then
    REGISTRY_HOME_DIR="$(dirname "$KAFKA_HOME_DIR")/.registry"
  else
    REGISTRY_HOME_DIR="$REPO_ROOT/.registry"
  fi
fi

VERSION_DIR="$REGISTRY_HOME_DIR/$REGISTRY_VERSION"
APP_DIR="$VERSION_DIR/app"
RUN_DIR="$REGISTRY_HOME_DIR/run"
LOG_DIR="$REGISTRY_HOME_DIR/logs-$REGISTRY_PORT"
PID_FILE="$RUN_DIR/registry-$REGISTRY_PORT.pid"
STATE_FILE="$RUN_DIR/registry-$REGISTRY_PORT.json"
CCOMPAT_URL="http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7"

SERVICE_TAG=registry
SERVICE_WHAT="Apicurio Registry $REGISTRY_VERSION"
SERVICE_CMDLINE='apicurio-registry-app'
# shellcheck source=../lib/java-service.sh
source "$REGISTRY_SCRIPTS_DIR/../lib/java-service.sh"

# 0 when the Confluent-compatible API answers GET /subjects with 200.
api_answers() {
  local code
  code="$(curl -s -o /dev/null -m 3 -w '%{http_code}' "$CCOMPAT_URL/subjects" 2>/dev/null || true)"
  [[ "$code" == 200 ]]
}

# Fetches and unpacks the registry distribution once per version (Maven Central, about 109 MB).
ensure_app() {
  local runner="$APP_DIR/apicurio-registry-app-$REGISTRY_VERSION-runner.jar"
  [[ -f "$runner" ]] && return 0
  command -v mvn >/dev/null 2>&1 ||
    die "'mvn' not found on PATH. Maven 3.8+ is needed once to fetch Apicurio Registry from Maven Central (e.g. apt-get install maven)."
  mkdir -p "$VERSION_DIR"
  local repo tarball started=$SECONDS
  repo="$(mvn -B -q help:evaluate -Dexpression=settings.localRepository -DforceStdout 2>/dev/null || true)"
  [[ -n "$repo" && -d "$repo" ]] || repo="$HOME/.m2/repository"
  tarball="$repo/io/apicurio/apicurio-registry-app/$REGISTRY_VERSION/apicurio-registry-app-$REGISTRY_VERSION-all.tar.gz"
  if [[ ! -f "$tarball" ]]; then
    log "fetching io.apicurio:apicurio-registry-app:$REGISTRY_VERSION (tar.gz, about 109 MB) with Maven (first use)..."
    if ! mvn -B -q dependency:get -Dartifact="io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:tar.gz:all" \
      -Dtransitive=false >"$VERSION_DIR/maven.log" 2>&1; then
      tail -n 30 "$VERSION_DIR/maven.log" >&2
      die "Maven could not fetch io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:tar.gz:all (log: $VERSION_DIR/maven.log)"
    fi
    [[ -f "$tarball" ]] || die "Maven reported success but $tarball is missing"
  fi
  local tmp="$VERSION_DIR/app.tmp"
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -xzf "$tarball" -C "$tmp"
  # the archive holds the runner jar and lib/, possibly under one top-level folder
  local found
  found="$(find "$tmp" -name "apicurio-registry-app-$REGISTRY_VERSION-runner.jar" -print -quit)"
  [[ -n "$found" ]] || die "no apicurio-registry-app-$REGISTRY_VERSION-runner.jar in $tarball"
  rm -rf "$APP_DIR"
  mv "$(dirname "$found")" "$APP_DIR"
  rm -rf "$tmp"
  log "unpacked into $APP_DIR ($((SECONDS - started)) s)"
}
