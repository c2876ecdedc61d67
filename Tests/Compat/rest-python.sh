#!/usr/bin/env bash
# The official Python client's REST transport against `hearth serve`: a venv with
# pinned google-cloud-firestore from PyPI, the server on an ephemeral port, then
# rest_client_check.py (GAPIC FirestoreClient + FirestoreRestTransport) and, where the
# official emulator is installed (gcloud), rest_compare.py on both servers.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=rest-python
source Tests/Compat/python-venv.bash  # not *.sh: .ci/run runs every *.sh as a check

OFFICIAL=""
# setsid: the emulator in its own process group, stopped whole — killing gcloud alone left
# its JVM running after every run.
extra_cleanup() { [ -n "$OFFICIAL" ] && kill -- -"$OFFICIAL" 2>/dev/null || true; }
source Tests/Compat/hearth-server.bash
echo "== hearth serve at $HOST"
"$VENV/bin/python" Tests/Compat/rest_client_check.py "$HOST"

if command -v gcloud >/dev/null 2>&1; then
    PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
    setsid gcloud emulators firestore start --host-port="127.0.0.1:$PORT" > "$WORK/official.log" 2>&1 &
    OFFICIAL=$!
    for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break; sleep 0.5; done
    echo "== comparing with the official emulator at 127.0.0.1:$PORT"
    "$VENV/bin/python" Tests/Compat/rest_compare.py "$HOST" "127.0.0.1:$PORT"
else
    echo "rest-python: gcloud not installed; skipping the comparison with the official emulator."
fi
stop_hearth
echo "rest-python: passed"
