#!/usr/bin/env bash
# Prints the path of the classpath file for KAFKA_VERSION (default 4.4.0), resolving the jars with
# Maven first if needed. Used by the test harness to launch Java peers from the same jars.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_java
ensure_classpath >&2
echo "$CLASSPATH_FILE"
