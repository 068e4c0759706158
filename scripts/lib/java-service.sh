# shellcheck shell=bash
# What scripts/kafka and scripts/registry share: a Java service on a loopback port, started by our
# scripts, found again through a pid file. Source it after setting:
#   SERVICE_TAG      log prefix, e.g. kafka
#   SERVICE_WHAT     what needs Java, for its error message, e.g. "Kafka 4.4.0"
#   SERVICE_CMDLINE  a grep pattern its java command line matches (a pid whose process does not match
#                    is a stale file, not ours)
#   PID_FILE, STATE_FILE
# The caller's own lib.sh sets these, then sources this file.

# fail loudly, never silently: report the command that tripped `set -e`
set -E
trap 'printf "[%s] ERROR: unexpected failure in %s line %s: %s\n" "$SERVICE_TAG" "${BASH_SOURCE[0]##*/}" "$LINENO" "$BASH_COMMAND" >&2' ERR

log() { printf '[%s] %s\n' "$SERVICE_TAG" "$*"; }
die() {
  printf '[%s] ERROR: %s\n' "$SERVICE_TAG" "$*" >&2
  exit 1
}

require_java() {
  command -v java >/dev/null 2>&1 ||
    die "'java' not found on PATH. $SERVICE_WHAT needs Java 17 or newer (e.g. apt-get install openjdk-17-jre-headless)."
  local line major
  line="$(java -version 2>&1 | head -n 1)"
  # 'openjdk version "17.0.15" ...' or 'java version "1.8.0_392"'
  major="$(sed -E -n 's/.*version "([0-9]+)(\.([0-9]+))?.*/\1 \3/p' <<<"$line")"
  if [[ "$major" == 1\ * ]]; then major="${major#1 }"; else major="${major%% *}"; fi
  [[ "$major" =~ ^[0-9]+$ ]] || die "cannot parse the Java version from: $line (Java 17 or newer is needed)"
  ((major >= 17)) || die "Java $major found ($line); $SERVICE_WHAT needs Java 17 or newer."
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Prints the pid from PID_FILE if that process is alive and is the service; otherwise nothing.
live_pid() {
  [[ -f "$PID_FILE" ]] || return 0
  local pid
  pid="$(tr -dc '0-9' <"$PID_FILE")"
  [[ -n "$pid" ]] || return 0
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$SERVICE_CMDLINE"; then
    echo "$pid"
  fi
}

# Removes a pid file whose process is gone (or is no longer the service).
clean_stale_pid() {
  if [[ -f "$PID_FILE" && -z "$(live_pid)" ]]; then
    log "removing stale pid file $PID_FILE (pid $(tr -dc '0-9' <"$PID_FILE") is not running)"
    rm -f "$PID_FILE" "$STATE_FILE"
  fi
}

# stop_service <port> <timeout seconds> <noun>: SIGTERM, then SIGKILL after the timeout. Something on
# the port that our pid file does not name is left alone.
stop_service() {
  local port="$1" timeout="$2" noun="$3" pid t0 deadline
  clean_stale_pid
  pid="$(live_pid)"
  if [[ -z "$pid" ]]; then
    if port_open "$port"; then
      log "no $noun started by this script on port $port, but something answers there; not touching it"
    else
      log "not running (port $port)"
    fi
    return 0
  fi
  log "stopping pid $pid (SIGTERM, up to ${timeout}s)"
  t0=$SECONDS
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + timeout))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.3; done
  if kill -0 "$pid" 2>/dev/null; then
    log "still running after ${timeout}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  fi
  rm -f "$PID_FILE" "$STATE_FILE"
  log "stopped after $((SECONDS - t0)) s"
}
