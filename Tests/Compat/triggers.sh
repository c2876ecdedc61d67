#!/usr/bin/env bash
# Cloud Functions triggers against `hearth serve` (python3 only; nothing to install):
#  1. the trigger cases recorded from the official emulator (Tests/Differential/cases/triggers.py)
#     replayed, a stand-in Functions emulator (Tests/Differential/functions.py) receiving the
#     events: registrations' answers and every event's headers and body must agree, or differ
#     as known-differences.json says;
#  2. 1,000 writes with four triggers (trigger_delivery_check.py): every event delivered
#     once, in per-document order.
# Hearth is pointed at the stand-in with PUT /emulator/v1/triggers:config (what
# `--functions_emulator` sets at start).
set -euo pipefail
cd "$(dirname "$0")/../.."
CHECK=triggers
source Tests/Compat/hearth-server.bash
free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"; }
FUNCTIONS=${TRIGGERS_FUNCTIONS_PORT:-$(free_port)}   # fixed ports for a local run: TRIGGERS_*_PORT, HEARTH_PORT
curl -sf -X PUT "http://$HOST/emulator/v1/triggers:config" -d "{\"functionsEmulator\": \"127.0.0.1:$FUNCTIONS\"}" >/dev/null
echo "== trigger cases against hearth serve at $HOST (Functions stand-in on :$FUNCTIONS)"
python3 Tests/Differential/differential.py replay "$HOST" --log "$WORK/serve.log" --functions "$FUNCTIONS" --only triggers --brief
echo "== 1,000 writes with triggers"
python3 Tests/Compat/trigger_delivery_check.py "$HOST" "${TRIGGERS_DELIVERY_PORT:-$(free_port)}"
stop_hearth
echo "triggers: passed"
