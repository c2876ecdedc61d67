# Sourced by the compatibility checks: builds `hearth`, starts `hearth serve` on an
# ephemeral port and sets $HOST (host:port), $SERVER (its pid) and $WORK (a scratch folder,
# removed on exit with the server). `stop_hearth` ends it with POST /shutdown. Needs $CHECK.
# Define `extra_cleanup` before sourcing to stop more processes on exit, and the array
# SERVE_ARGS to pass more flags to `hearth serve`.
# HEARTH_SCRATCH_PATH lets a local run reuse another build directory; HEARTH_PORT fixes the port.
SCRATCH=()
[ -n "${HEARTH_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$HEARTH_SCRATCH_PATH")
swift build "${SCRATCH[@]}" --product hearth
WORK=$(mktemp -d)
READY="$WORK/ready"
swift run "${SCRATCH[@]}" --skip-build hearth serve --port "${HEARTH_PORT:-0}" --ready-file "$READY" ${SERVE_ARGS[@]+"${SERVE_ARGS[@]}"} > "$WORK/serve.log" 2>&1 &
SERVER=$!
cleanup() {
    kill "$SERVER" 2>/dev/null || true
    if declare -F extra_cleanup >/dev/null; then extra_cleanup; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 1 100); do [ -s "$READY" ] && break; sleep 0.1; done
[ -s "$READY" ] || { echo "$CHECK: hearth serve did not start"; cat "$WORK/serve.log"; exit 1; }
HOST=$(cat "$READY")

stop_hearth() {
    curl -sf -X POST "http://$HOST/shutdown" >/dev/null
    wait "$SERVER"
}
