#!/usr/bin/env bash
# The official Python client (google-cloud-firestore, pinned, gRPC transport) against
# `hearth serve`: the venv of python-venv.bash, the server on an ephemeral port,
# then grpc_client_check.py with FIRESTORE_EMULATOR_HOST set (on_snapshot watches included).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=grpc-python
source Tests/Compat/python-venv.bash  # not *.sh: .ci/run runs every *.sh as a check

source Tests/Compat/hearth-server.bash
echo "== hearth serve at $HOST (gRPC)"
FIRESTORE_EMULATOR_HOST="$HOST" GOOGLE_CLOUD_PROJECT=demo-grpc-compat timeout 300 "$VENV/bin/python" Tests/Compat/grpc_client_check.py
stop_hearth
echo "grpc-python: passed"
