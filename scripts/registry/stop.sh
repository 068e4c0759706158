#!/usr/bin/env bash
# Stops the local schema registry on 127.0.0.1:${REGISTRY_PORT:-18081}: SIGTERM, then SIGKILL after
# REGISTRY_STOP_TIMEOUT seconds. A registry this script did not start is left alone.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stop_service "$REGISTRY_PORT" "$REGISTRY_STOP_TIMEOUT" registry
