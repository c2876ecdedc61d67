#!/usr/bin/env bash
# Hostile clients against `hearth serve` (Tests/Compat/hostile_clients.py): rapid reset,
# SETTINGS/PING floods, uploads filling buffers, pipelined and Listen answers never read,
# oversized input, slow prefaces/headers/bodies/half frames, a send that times out, rules with
# 10,000-term chains, and on the Requests feed's WebSocket port (--websocket_port) oversized and
# unmasked frames, a stalled handshake, half a frame and 10,000 idle sockets. Each case on a
# fresh server on a loopback port, bounded, under three minutes in all. Needs `hpack` from PyPI (with `h2`), in a venv of its own under .build/;
# skipped when PyPI is unreachable.
#
# Cases the current server is known to fail are listed in hostile-expected-failures.txt
# (one a line, with why): they are reported as XFAIL and do not fail CI. A listed case that
# passes is reported (HEARTH_HOSTILE_STRICT=1 makes that fail, to keep the list honest).
# HEARTH_HOSTILE_EXPECT_FAIL=case,case overrides the list; HEARTH_HOSTILE_CASES=case,case
# runs only those; HEARTH_HOSTILE_LOG_DIR=DIR keeps each case's server log there.
# HEARTH_BIN runs that `hearth` as it is; HEARTH_SANITIZE=thread|address builds one with that
# sanitizer (Tests/Compat/sanitizers.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=hostile-clients
VENV="$ROOT/.build/hostile-venv"
PINS="h2==4.4.1 hpack==4.2.0 hyperframe==6.1.0"
source Tests/Compat/python-venv.bash  # not *.sh: .ci/run runs every *.sh as a check

source Tests/Compat/swift-build-flags.bash  # SCRATCH: HEARTH_SCRATCH_PATH, HEARTH_SANITIZE
if [ -n "${HEARTH_BIN:-}" ]; then BIN=$HEARTH_BIN; else  # HEARTH_BIN: that binary, no build
    swift build "${SCRATCH[@]}" --product hearth
    BIN=$(swift build "${SCRATCH[@]}" --show-bin-path)/hearth
fi

EXPECTED="${HEARTH_HOSTILE_EXPECT_FAIL-$( (grep -v "^#" Tests/Compat/hostile-expected-failures.txt || true) | awk "NF {print \$1}" | paste -sd, -)}"
CASES=()
for c in $(echo "${HEARTH_HOSTILE_CASES:-}" | tr ',' ' '); do CASES+=(--case "$c"); done
timeout 300 "$VENV/bin/python" Tests/Compat/hostile_clients.py --hearth "$BIN" --expect-fail "$EXPECTED" "${CASES[@]}"
