#!/usr/bin/env bash
# The export format against the official emulator, where gcloud is installed (skips
# otherwise): Hearth imports an export the official emulator made (every value type,
# 2,033 documents, Tests/HearthCoreTests/Export/Fixtures/official-export), exports it, the
# official emulator imports Hearth's export and must read back the same documents; then the
# official emulator's own export of them must import into Hearth identically
# (export_official_check.py). Needs only python3's standard library.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=export-official
if ! command -v gcloud >/dev/null 2>&1; then
    echo "export-official: SKIPPED — gcloud (the official emulator) is not installed."
    exit 0
fi
OFFICIAL=""
extra_cleanup() { [ -n "$OFFICIAL" ] && kill -- -"$OFFICIAL" 2>/dev/null || true; }  # setsid: its own process group
source Tests/Compat/hearth-server.bash
PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
setsid gcloud emulators firestore start --host-port="127.0.0.1:$PORT" > "$WORK/official.log" 2>&1 &
OFFICIAL=$!
for _ in $(seq 1 240); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break; sleep 0.5; done
curl -sf "http://127.0.0.1:$PORT/" >/dev/null || { echo "export-official: the official emulator did not start"; cat "$WORK/official.log"; exit 1; }
swift run "${SCRATCH[@]}" --skip-build hearth import "$ROOT/Tests/HearthCoreTests/Export/Fixtures/official-export" --address "$HOST" --project demo-export
python3 Tests/Compat/export_official_check.py "$HOST" "127.0.0.1:$PORT" demo-export "$WORK"
kill -- -"$OFFICIAL" 2>/dev/null || true
stop_hearth
echo "export-official: passed"
