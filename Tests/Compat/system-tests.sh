#!/usr/bin/env bash
# The official Python client's own system tests (google-cloud-firestore 2.23.0, tests/system
# from its PyPI sdist, unchanged) against `hearth serve` over gRPC. system-tests/conftest.py is copied
# next to them: it turns the pipeline cross-check into a no-op, un-skips the vector-search
# tests (seeding their documents) and the "stretch" tests the official emulator fails
# (update preconditions and messages, get_all streaming order, PartitionQuery).
# Passes when no test fails and at least $MIN_PASSED pass (the official emulator: 450).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=system-tests
MIN_PASSED=466
VENV="$ROOT/.build/systest-venv"
PINS="google-cloud-firestore==2.23.0 pytest==8.3.5 pytest-asyncio==0.21.2 pytest-timeout==2.4.0 mock==5.2.0 google-cloud-testutils==1.10.1 six==1.17.0 PyYAML==6.0.3"
source Tests/Compat/python-venv.bash  # not *.sh: .ci/run runs every *.sh as a check

# The upstream tests, from the pinned sdist (copied out so its google/ tree does not shadow
# the installed package).
SRC="$ROOT/.build/systest-src"
if [ ! -f "$SRC/google_cloud_firestore-2.23.0/tests/system/test_system.py" ]; then
    rm -rf "$SRC"
    "$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
        "google-cloud-firestore==2.23.0" -d "$SRC"
    tar -xzf "$SRC/google_cloud_firestore-2.23.0.tar.gz" -C "$SRC"
fi

source Tests/Compat/hearth-server.bash
mkdir -p "$WORK/run"
cp -r "$SRC/google_cloud_firestore-2.23.0/tests/system" "$WORK/run/system"
cp Tests/Compat/system-tests/conftest.py "$WORK/run/system/conftest.py"

# The client retries UNAVAILABLE for minutes per call: fail at once if nothing listens.
python3 -c "import socket, sys; socket.create_connection(('${HOST%:*}', ${HOST##*:}), timeout=5)" \
    || { echo "$CHECK: hearth serve at $HOST does not accept connections"; exit 1; }

echo "== hearth serve at $HOST: google-cloud-firestore 2.23.0 tests/system"
cd "$WORK/run"
set +e
FIRESTORE_EMULATOR_HOST="$HOST" GCLOUD_PROJECT=demo-system-tests \
HEARTH_SYSTEST_UNSKIP="Require index and seed data,Internal Issue b/137867104,Internal Issue b/137865992,PartitionQuery not implemented in emulator" \
    timeout 900 "$VENV/bin/pytest" -p no:cacheprovider -q -rfE --timeout=120 --maxfail=50 \
    system/test_system.py system/test_system_async.py > "$WORK/pytest.log" 2>&1
status=$?
set -e
cd "$ROOT"
summary=$(tail -n 1 "$WORK/pytest.log")
echo "$summary"
passed=$(echo "$summary" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+" || echo 0)
if [ "$status" -ne 0 ] || [ "$passed" -lt "$MIN_PASSED" ]; then
    grep -E "^(FAILED|ERROR)" "$WORK/pytest.log" | head -60 || true
    tail -n 80 "$WORK/pytest.log"
    echo "$CHECK: failed (pytest exit $status, $passed passed, at least $MIN_PASSED needed)"
    exit 1
fi
stop_hearth
echo "$CHECK: passed ($passed tests)"
