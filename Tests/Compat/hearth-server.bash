# Sourced by the compatibility checks: builds `hearth`, starts `hearth serve` on an
# ephemeral port and sets $HOST (host:port), $SERVER (its pid) and $WORK (a scratch folder,
# removed on exit with the server). `stop_hearth` ends it with POST /shutdown. Needs $CHECK.
# Define `extra_cleanup` before sourcing to stop more processes on exit, and the array
# SERVE_ARGS to pass more flags to `hearth serve`.
# HEARTH_SCRATCH_PATH lets a local run reuse another build directory; HEARTH_PORT fixes the port.
# HEARTH_SANITIZE=thread|address builds and runs a sanitizer build (in .build/tsan or .build/asan
# unless HEARTH_SCRATCH_PATH says otherwise; Tests/Compat/sanitizers.sh uses it).
# HEARTH_BIN runs that `hearth` binary as it is (no build).
source "$(dirname "${BASH_SOURCE[0]}")/swift-build-flags.bash"
if [ -n "${HEARTH_BIN:-}" ]; then
    HEARTH_RUN=("$HEARTH_BIN")
else
    swift build "${SCRATCH[@]}" --product hearth
    HEARTH_RUN=(swift run "${SCRATCH[@]}" --skip-build hearth)
fi
WORK=$(mktemp -d)
READY="$WORK/ready"
"${HEARTH_RUN[@]}" serve --port "${HEARTH_PORT:-0}" --ready-file "$READY" ${SERVE_ARGS[@]+"${SERVE_ARGS[@]}"} > "$WORK/serve.log" 2>&1 &
SERVER=$!
cleanup() {
    kill "$SERVER" 2>/dev/null || true
    if declare -F extra_cleanup >/dev/null; then extra_cleanup; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
# 10 s to start; a sanitizer build starts several times slower.
for _ in $(seq 1 "$([ -n "${HEARTH_SANITIZE:-}" ] && echo 600 || echo 100)"); do [ -s "$READY" ] && break; sleep 0.1; done
[ -s "$READY" ] || { echo "$CHECK: hearth serve did not start"; cat "$WORK/serve.log"; exit 1; }
HOST=$(cat "$READY")

stop_hearth() {
    curl -sf -X POST "http://$HOST/shutdown" >/dev/null
    wait "$SERVER"
}
