#!/usr/bin/env bash
# The official Python client's REST transport against `hearth serve` (issue 7): a venv with
# pinned google-cloud-firestore from PyPI, the server on an ephemeral port, then
# rest_client_check.py (GAPIC FirestoreClient + FirestoreRestTransport) and, where the
# official emulator is installed (gcloud), rest_compare.py on both servers.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=rest-python
source Tests/Compat/python-venv.bash  # not *.sh: .ci/run runs every *.sh as a check

# HEARTH_SCRATCH_PATH lets a local run reuse another build directory.
SCRATCH=()
[ -n "${HEARTH_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$HEARTH_SCRATCH_PATH")
swift build "${SCRATCH[@]}" --product hearth
WORK=$(mktemp -d)
READY="$WORK/ready"
swift run "${SCRATCH[@]}" --skip-build hearth serve --port 0 --ready-file "$READY" > "$WORK/serve.log" 2>&1 &
SERVER=$!
OFFICIAL=""
cleanup() {
    kill "$SERVER" 2>/dev/null || true
    [ -n "$OFFICIAL" ] && kill "$OFFICIAL" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 1 100); do [ -s "$READY" ] && break; sleep 0.1; done
[ -s "$READY" ] || { echo "rest-python: hearth serve did not start"; cat "$WORK/serve.log"; exit 1; }
HOST=$(cat "$READY")
echo "== hearth serve at $HOST"
"$VENV/bin/python" Tests/Compat/rest_client_check.py "$HOST"

if command -v gcloud >/dev/null 2>&1; then
    PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
    gcloud emulators firestore start --host-port="127.0.0.1:$PORT" > "$WORK/official.log" 2>&1 &
    OFFICIAL=$!
    for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break; sleep 0.5; done
    echo "== comparing with the official emulator at 127.0.0.1:$PORT"
    "$VENV/bin/python" Tests/Compat/rest_compare.py "$HOST" "127.0.0.1:$PORT"
else
    echo "rest-python: gcloud not installed; skipping the comparison with the official emulator."
fi
# POST /shutdown ends the server cleanly.
curl -sf -X POST "http://$HOST/shutdown" >/dev/null
wait "$SERVER"
echo "rest-python: passed"
