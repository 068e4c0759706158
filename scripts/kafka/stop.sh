#!/usr/bin/env bash
# Stops the local broker on 127.0.0.1:${KAFKA_PORT:-9092}: SIGTERM (controlled shutdown), then SIGKILL
# after KAFKA_STOP_TIMEOUT seconds. Leaves no process behind.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stop_service "$KAFKA_PORT" "$KAFKA_STOP_TIMEOUT" broker
