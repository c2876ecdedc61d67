#!/usr/bin/env bash
# The web console in a real browser: Debian's chromium and chromium-driver (installed with apt
# when missing), selenium and the official Python client (gRPC) from PyPI in a venv of their
# own under .build/, `hearth serve` with the documented apps' seeds and rules, then
# console_browser_check.py. Skips cleanly when apt or PyPI is unreachable.
# CONSOLE_SCREENSHOTS=docs/console writes a PNG of each panel there.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=console-browser

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
    if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium chromium-driver; } >/dev/null 2>&1; then
        echo "$CHECK: SKIPPED — chromium and chromium-driver could not be installed with apt." >&2
        exit 0
    fi
fi

VENV="$ROOT/.build/console-venv"
EXTRA_PINS="selenium==4.38.0"
source Tests/Compat/python-venv.bash  # not *.sh: .ci/run runs every *.sh as a check

SERVE_ARGS=(--console-port 0 --demo-apps)
source Tests/Compat/hearth-server.bash
CONSOLE=$(sed -n 's/^hearth serve: console at //p' "$WORK/serve.log")
[ -n "$CONSOLE" ] || { echo "$CHECK: hearth serve printed no console address"; cat "$WORK/serve.log"; exit 1; }
echo "== hearth serve at $HOST, console at $CONSOLE"
timeout 600 "$VENV/bin/python" Tests/Compat/console_browser_check.py --console "$CONSOLE" --emulator "$HOST" \
    ${CONSOLE_SCREENSHOTS:+--screenshots "$CONSOLE_SCREENSHOTS"}
stop_hearth
echo "$CHECK: passed"
