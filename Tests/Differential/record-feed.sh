#!/usr/bin/env bash
# Re-records the Requests feed's cases (cases/request_feed.py) from the official emulator: gcloud's
# wrapper has no flag for the feed's port, so the emulator's JAR is started directly with
# --websocket_port (the way firebase-tools starts it), then differential.py records with --feed.
#   Tests/Differential/record-feed.sh [WORD...]      (default: request_feed)
set -euo pipefail
cd "$(dirname "$0")"
JAR=${FIRESTORE_EMULATOR_JAR:-$(dirname "$(command -v gcloud)")/../platform/cloud-firestore-emulator/cloud-firestore-emulator.jar}
[ -f "$JAR" ] || JAR=/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar
[ -f "$JAR" ] || { echo "record-feed.sh: the cloud-firestore-emulator JAR is needed (gcloud components install cloud-firestore-emulator)" >&2; exit 1; }
ROOT=$(cd ../.. && pwd)
PYTHON=python3
VENV="${HEARTH_COMPAT_VENV:-$ROOT/.build/compat-venv}"
[ -x "$VENV/bin/python" ] && PYTHON="$VENV/bin/python"   # the gRPC cases need grpcio (Tests/Compat/python-venv.bash)
WORK=$(mktemp -d)
free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"; }
PORT=$(free_port)
WS_PORT=$(free_port)
setsid java -cp "$JAR" com.google.cloud.datastore.emulator.firestore.CloudFirestore \
    --host 127.0.0.1 --port "$PORT" --websocket_port "$WS_PORT" > "$WORK/official.log" 2>&1 &
EMULATOR=$!
trap 'kill -- -$EMULATOR 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break; sleep 0.5; done
ONLY=()
for w in "${@:-request_feed}"; do ONLY+=(--only "$w"); done
"$PYTHON" differential.py record "127.0.0.1:$PORT" --feed "127.0.0.1:$WS_PORT" --log "$WORK/official.log" "${ONLY[@]}"
