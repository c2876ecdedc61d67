#!/usr/bin/env bash
# The differential corpus (Tests/Differential): request sequences with the answers the official
# emulator gave, replayed against `hearth serve`. Every answer must agree, or differ exactly as
# Tests/Differential/known-differences.json says. REST, rules and emulator-endpoint cases need
# only python3; gRPC cases use the pinned official client's venv (python-venv.bash) and are
# skipped, with a note, when PyPI is unreachable.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=differential
PYTHON=python3
GRPC_NOTE=""
if (source Tests/Compat/python-venv.bash) >/dev/null 2>&1 && [ -x "${HEARTH_COMPAT_VENV:-$ROOT/.build/compat-venv}/bin/python" ]; then
    PYTHON="${HEARTH_COMPAT_VENV:-$ROOT/.build/compat-venv}/bin/python"
else
    GRPC_NOTE="(gRPC cases skipped: the official client could not be installed)"
fi
# The Requests feed's cases (cases/request_feed.py) read the WebSocket of --websocket_port.
# HEARTH_WS_PORT picks it (as HEARTH_PORT picks the server's), else a free one.
WS_PORT=${HEARTH_WS_PORT:-$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")}
SERVE_ARGS=(--websocket_port "$WS_PORT")
source Tests/Compat/hearth-server.bash
echo "== differential corpus against hearth serve at $HOST (Requests feed at 127.0.0.1:$WS_PORT) $GRPC_NOTE"
"$PYTHON" Tests/Differential/differential.py replay "$HOST" --feed "127.0.0.1:$WS_PORT" --log "$WORK/serve.log" --brief
stop_hearth
echo "differential: passed"
