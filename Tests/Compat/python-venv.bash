# Sourced by the Python compatibility checks: makes $VENV, a venv with the official client
# at pinned versions (gRPC transport included), or exits 0 with a SKIPPED note when PyPI is
# unreachable. Needs $ROOT and $CHECK (the check's name, for messages). A check may set
# $VENV and $PINS (or $EXTRA_PINS, added to the usual ones) before sourcing for a venv of its
# own; a venv is rebuilt when its pins change.
VENV="${VENV:-${HEARTH_COMPAT_VENV:-$ROOT/.build/compat-venv}}"
PINS="${PINS:-google-cloud-firestore==2.34.1 google-api-core==2.44.0 google-auth==2.62.2 proto-plus==1.29.0 protobuf==7.36.2 requests==2.34.2 grpcio==1.85.1}${EXTRA_PINS:+ $EXTRA_PINS}"

if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/hearth-pins" 2>/dev/null)" != "$PINS" ]; then
    if ! python3 -c "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/pip/', timeout=10)" 2>/dev/null; then
        echo "$CHECK: SKIPPED — PyPI is unreachable, so the official client cannot be installed." >&2
        exit 0
    fi
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check $PINS
    echo "$PINS" > "$VENV/hearth-pins"
fi
