#!/usr/bin/env bash
# Faults on demand with a real client (docs/faults.md): the official Python client
# (google-cloud-firestore, gRPC) against `hearth serve`, with faults set through
# /emulator/v1/projects/{p}/faults — its read retries on UNAVAILABLE and a reset, its
# transaction retry after ABORTED (the transaction commits once), a commit whose answer is
# dropped (what the client does; the data holds each server commit once) and a Listen stream
# dropped mid-way (the watch reconnects). Skips cleanly when PyPI is unreachable.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=faults
source Tests/Compat/python-venv.bash  # not *.sh: .ci/run runs every *.sh as a check

source Tests/Compat/hearth-server.bash
echo "== hearth serve at $HOST (faults through the endpoint)"
FIRESTORE_EMULATOR_HOST="$HOST" GOOGLE_CLOUD_PROJECT=demo-faults timeout 60 "$VENV/bin/python" Tests/Compat/faults_check.py
stop_hearth
echo "faults: passed"
