#!/usr/bin/env bash
# The official Python client (google-cloud-firestore, pinned, gRPC transport) against
# `hearth serve` (issue 8): the venv of python-venv.bash, the server on an ephemeral port,
# then grpc_client_check.py with FIRESTORE_EMULATOR_HOST set (on_snapshot watches included).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=grpc-python
source Tests/Compat/python-venv.bash  # not *.sh: .ci/run runs every *.sh as a check

# HEARTH_SCRATCH_PATH lets a local run reuse another build directory.
SCRATCH=()
[ -n "${HEARTH_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$HEARTH_SCRATCH_PATH")
swift build "${SCRATCH[@]}" --product hearth
WORK=$(mktemp -d)
READY="$WORK/ready"
swift run "${SCRATCH[@]}" --skip-build hearth serve --port 0 --ready-file "$READY" > "$WORK/serve.log" 2>&1 &
SERVER=$!
cleanup() {
    kill "$SERVER" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 1 100); do [ -s "$READY" ] && break; sleep 0.1; done
[ -s "$READY" ] || { echo "grpc-python: hearth serve did not start"; cat "$WORK/serve.log"; exit 1; }
HOST=$(cat "$READY")
echo "== hearth serve at $HOST (gRPC)"
FIRESTORE_EMULATOR_HOST="$HOST" GOOGLE_CLOUD_PROJECT=demo-grpc-compat timeout 300 "$VENV/bin/python" Tests/Compat/grpc_client_check.py
curl -sf -X POST "http://$HOST/shutdown" >/dev/null
wait "$SERVER"
echo "grpc-python: passed"
