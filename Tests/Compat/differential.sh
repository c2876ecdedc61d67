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
source Tests/Compat/hearth-server.bash
echo "== differential corpus against hearth serve at $HOST $GRPC_NOTE"
"$PYTHON" Tests/Differential/differential.py replay "$HOST" --log "$WORK/serve.log" --brief
stop_hearth
echo "differential: passed"
