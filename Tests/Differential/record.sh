#!/usr/bin/env bash
# Re-records the differential corpus from the official Firestore emulator (gcloud): starts it on
# a free port, runs every case of cases/*.py (or those whose module name contains one of the
# arguments) and writes recorded/*.json. Then replay against Hearth (Tests/Compat/differential.sh)
# and fix or list (known-differences.json) whatever now differs.
# The trigger cases (cases/triggers.py) need the emulator's --functions_emulator, which gcloud's
# wrapper does not pass: they are recorded from the emulator's JAR run directly, pointed at the
# stand-in Functions emulator differential.py serves (functions.py).
#   Tests/Differential/record.sh [WORD...]
set -euo pipefail
cd "$(dirname "$0")"
command -v gcloud >/dev/null || { echo "record.sh: gcloud (with the cloud-firestore-emulator component) is needed" >&2; exit 1; }
ROOT=$(cd ../.. && pwd)
PYTHON=python3
VENV="${HEARTH_COMPAT_VENV:-$ROOT/.build/compat-venv}"
[ -x "$VENV/bin/python" ] && PYTHON="$VENV/bin/python"   # gRPC cases need grpcio (Tests/Compat/python-venv.bash)
WORK=$(mktemp -d)
free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"; }
PORT=$(free_port)
# Its own process group, so the JVM it starts is stopped with it.
setsid gcloud emulators firestore start --host-port="127.0.0.1:$PORT" > "$WORK/official.log" 2>&1 &
EMULATOR=$!
JAR_PID=""
trap 'kill -- -$EMULATOR 2>/dev/null; [ -n "$JAR_PID" ] && kill -- -$JAR_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break; sleep 0.5; done
ONLY=()
for w in "$@"; do ONLY+=(--only "$w"); done
"$PYTHON" differential.py record "127.0.0.1:$PORT" --log "$WORK/official.log" "${ONLY[@]}"

wants_triggers=$([ $# -eq 0 ] && echo yes || true)
for w in "$@"; do case triggers in *"$w"*) wants_triggers=yes ;; esac; done
if [ -n "$wants_triggers" ]; then
    JAR=$(dirname "$(readlink -f "$(command -v gcloud)")")/../platform/cloud-firestore-emulator/cloud-firestore-emulator.jar
    PORT=$(free_port)
    FUNCTIONS=$(free_port)
    setsid java -cp "$JAR" com.google.cloud.datastore.emulator.firestore.CloudFirestore --host 127.0.0.1 --port "$PORT" --functions_emulator "127.0.0.1:$FUNCTIONS" > "$WORK/jar.log" 2>&1 &
    JAR_PID=$!
    for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break; sleep 0.5; done
    "$PYTHON" differential.py record "127.0.0.1:$PORT" --log "$WORK/jar.log" --functions "$FUNCTIONS" --only triggers
fi
