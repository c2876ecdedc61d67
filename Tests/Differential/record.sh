#!/usr/bin/env bash
# Re-records the differential corpus from the official Firestore emulator (gcloud): starts it on
# a free port, runs every case of cases/*.py (or those whose module name contains one of the
# arguments) and writes recorded/*.json. Then replay against Hearth (Tests/Compat/differential.sh)
# and fix or list (known-differences.json) whatever now differs.
#   Tests/Differential/record.sh [WORD...]
set -euo pipefail
cd "$(dirname "$0")"
command -v gcloud >/dev/null || { echo "record.sh: gcloud (with the cloud-firestore-emulator component) is needed" >&2; exit 1; }
ROOT=$(cd ../.. && pwd)
PYTHON=python3
VENV="${HEARTH_COMPAT_VENV:-$ROOT/.build/compat-venv}"
[ -x "$VENV/bin/python" ] && PYTHON="$VENV/bin/python"   # gRPC cases need grpcio (Tests/Compat/python-venv.bash)
WORK=$(mktemp -d)
PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
# Its own process group, so the JVM it starts is stopped with it.
setsid gcloud emulators firestore start --host-port="127.0.0.1:$PORT" > "$WORK/official.log" 2>&1 &
EMULATOR=$!
trap 'kill -- -$EMULATOR 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break; sleep 0.5; done
ONLY=()
for w in "$@"; do ONLY+=(--only "$w"); done
"$PYTHON" differential.py record "127.0.0.1:$PORT" --log "$WORK/official.log" "${ONLY[@]}"
