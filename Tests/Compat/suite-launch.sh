#!/usr/bin/env bash
# firebase-tools' launch of the Firestore emulator, replayed through `hearth suite-launcher`'s
# JAR with this machine's Java runtime, as `FIRESTORE_EMULATOR_BINARY_PATH=launcher.jar
# firebase emulators:start --import DIR` runs it. The command line is firebase-tools
# v15.28.1's: src/emulator/downloadableEmulators.ts (Commands.firestore: java with two -D
# flags and -jar, then each flag as two words, in the order the args object was filled:
# controller.ts host, port, websocket_port, database-edition, project_id, seed_from_export,
# rules, single_project_mode; firestoreEmulator.ts start() adds functions_emulator).
# Checked: ready (a TCP connect, as registry.ts polls) well within firebase-tools' 60 s,
# with the time printed; the --rules file enforced; the --seed_from_export export
# imported; the CLI's rules hot reload (PUT :securityRules) and export (POST :export) with
# its exact bodies, and their answers' shapes as the official JAR 1.19.9 gave them (recorded
# in docs/emulator-suite.md); SIGINT to the JVM stops it with status 0; SIGKILL of the JVM
# leaves no hearth behind; hearth dying makes the JVM exit non-zero. About 10 s.
# Skipped, with a note, when there is no java. SUITE_PORT_BASE picks the ports (else free ones).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=suite-launch
if ! command -v java >/dev/null || ! java -version >/dev/null 2>&1; then
    echo "$CHECK: skipped (no Java runtime: install one, e.g. apt-get install openjdk-17-jre-headless)"
    exit 0
fi
SCRATCH=()
[ -n "${HEARTH_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$HEARTH_SCRATCH_PATH")
swift build "${SCRATCH[@]}" --product hearth 2>&1 | tail -1
HEARTH="$(swift build "${SCRATCH[@]}" --show-bin-path)/hearth"
WORK=$(mktemp -d)
JVM=""
cleanup() {
    [ -n "$JVM" ] && kill -9 "$JVM" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "$CHECK: FAILED: $*"; echo "--- firestore-debug.log"; cat "$WORK/firestore-debug.log" 2>/dev/null || true; exit 1; }

"$HEARTH" suite-launcher "$WORK/launcher.jar" > /dev/null

# Ports: the main one, the request feed's, and a Functions emulator nobody runs.
if [ -n "${SUITE_PORT_BASE:-}" ]; then
    PORT=$SUITE_PORT_BASE; WS_PORT=$((SUITE_PORT_BASE + 1)); FN_PORT=$((SUITE_PORT_BASE + 2))
else
    read -r PORT WS_PORT FN_PORT < <(python3 -c 'import socket
s=[socket.socket() for _ in range(3)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
fi
PROJECT=demo-suite
BASE="http://127.0.0.1:$PORT"
DOCS="$BASE/v1/projects/$PROJECT/databases/(default)/documents"

# firebase.json's rules file, and an --import folder as firebase-tools lays it out: its
# metadata names firestore_export/firestore_export.overall_export_metadata. The export is
# the official emulator's (one document, only/doc {hello: "world", n: 1}).
cat > "$WORK/firestore.rules" <<'EOF'
rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /only/{doc} { allow read; }
    match /open/{doc} { allow read, write; }
  }
}
EOF
mkdir -p "$WORK/import"
cp -R Tests/HearthCoreTests/Export/Fixtures/official-export-single/firestore_export "$WORK/import/"
SEED="$WORK/import/firestore_export/firestore_export.overall_export_metadata"

# Job control: a background job then keeps SIGINT (a non-interactive shell would start it
# with SIGINT ignored, which the JVM honours), as node's spawn leaves it.
set -m
launch() {
    : > "$WORK/firestore-debug.log"
    local start
    start=$(date +%s%N)
    java -Dgoogle.cloud_firestore.debug_log_level=FINE -Duser.language=en -jar "$WORK/launcher.jar" \
        --host 127.0.0.1 --port "$PORT" --websocket_port "$WS_PORT" --database-edition standard \
        --project_id "$PROJECT" --seed_from_export "$SEED" --rules "$WORK/firestore.rules" \
        --single_project_mode true --functions_emulator "127.0.0.1:$FN_PORT" \
        >> "$WORK/firestore-debug.log" 2>&1 &
    JVM=$!
    # firebase-tools polls a TCP connect every 200 ms for 60 s; this polls every 20 ms to measure.
    for _ in $(seq 1 3000); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
            READY_MS=$((($(date +%s%N) - start) / 1000000))
            HEARTH_PID=$(pgrep -P "$JVM" || true)
            [ -n "$HEARTH_PID" ] || fail "no hearth process under the JVM"
            return 0
        fi
        kill -0 "$JVM" 2>/dev/null || fail "the JVM exited before the port accepted"
        sleep 0.02
    done
    fail "the port did not accept within 60 s"
}
# The status of a job of this shell (not in $(…): a subshell cannot wait for it).
status_of() { STATUS=0; wait "$1" || STATUS=$?; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
gone_within() {  # PID SECONDS: whether PID is gone in time
    for _ in $(seq 1 $(($2 * 20))); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
    return 1
}

# 1. Launch, serve, SIGINT.
launch
echo "$CHECK: ready in $READY_MS ms (launch → port accepting; firebase-tools waits up to 60 s)"
[ "$READY_MS" -lt 20000 ] || fail "start-up took $READY_MS ms"

body=$(curl -sf "$DOCS/only/doc") || fail "the --seed_from_export document is missing"
grep -q '"stringValue": *"world"' <<< "$body" || fail "the imported document is wrong: $body"
[ "$(code -X PATCH -H 'Content-Type: application/json' -d '{"fields":{}}' "$DOCS/open/x")" = 200 ] || fail "--rules: allowed write refused"
[ "$(code -X PATCH -H 'Content-Type: application/json' -d '{"fields":{}}' "$DOCS/closed/x")" = 403 ] || fail "--rules: denied write allowed"
# The JAR's --rules hold for every project (the official emulator does the same).
[ "$(code -X PATCH -H 'Content-Type: application/json' -d '{"fields":{}}' "$BASE/v1/projects/demo-other/databases/(default)/documents/closed/x")" = 403 ] \
    || fail "--rules does not hold for another project"
grep -q "Multiple projectIds are not recommended in single project mode" "$WORK/firestore-debug.log" \
    || fail "--single_project_mode true: no warning for another project"

# Rules hot reload with firebase-tools' body (firestoreEmulator.ts updateRules).
RULES_URL="$BASE/emulator/v1/projects/$PROJECT:securityRules"
reload='{"ignore_errors":true,"rules":{"files":[{"name":"security.rules","content":"rules_version = '"'"'2'"'"';\nservice cloud.firestore {\n  match /databases/{db}/documents {\n    match /closed/{d} { allow read, write: if true; }\n  }\n}\n"}]}}'
answer=$(curl -sf -X PUT -H 'Content-Type: application/json' -d "$reload" "$RULES_URL") || fail "PUT :securityRules failed"
python3 -c 'import json,sys; a=json.loads(sys.argv[1]); assert a.get("issues", []) == [], a' "$answer" || fail "hot reload answer: $answer"
[ "$(code -X PATCH -H 'Content-Type: application/json' -d '{"fields":{}}' "$DOCS/closed/x")" = 200 ] || fail "hot-reloaded rules not enforced"
[ "$(code -X PATCH -H 'Content-Type: application/json' -d '{"fields":{}}' "$DOCS/open/x")" = 403 ] || fail "old rules still enforced after the reload"
bad='{"ignore_errors":true,"rules":{"files":[{"name":"security.rules","content":"rules_version = '"'"'2'"'"';\nservice cloud.firestore {\n  match /databases/{db}/documents {\n    match /closed/{d} { allow read: if ; }\n  }\n}\n"}]}}'
answer=$(curl -s -X PUT -H 'Content-Type: application/json' -d "$bad" "$RULES_URL")
python3 - "$answer" <<'EOF' || fail "hot reload with an error: $answer"
import json, sys
a = json.loads(sys.argv[1])
# The official JAR: {"issues":[{"sourcePosition":{"fileName","line":4,"column":40,…},"description","severity":"ERROR"}]}
issue = a["issues"][0]
assert issue["severity"] == "ERROR" and issue["sourcePosition"]["line"] == 4, a
assert isinstance(issue["sourcePosition"]["column"], int) and issue["description"], a
EOF

# Export with firebase-tools' body (hubExport.ts exportFirestore); the directory exists, as the CLI makes it.
mkdir -p "$WORK/exported"
answer=$(curl -s -w ' %{http_code}' -X POST -H 'Content-Type: application/json' \
    -d "{\"database\":\"projects/$PROJECT/databases/(default)\",\"export_directory\":\"$WORK/exported\",\"export_name\":\"firestore_export\"}" \
    "$BASE/emulator/v1/projects/$PROJECT:export")
[ "${answer##* }" = 200 ] || fail "POST :export answered $answer"
[ -s "$WORK/exported/firestore_export/firestore_export.overall_export_metadata" ] || fail "the export wrote no metadata file"

kill -INT "$JVM"
status_of "$JVM"; JVM=""
[ "$STATUS" = 0 ] || fail "SIGINT: the JVM exited with $STATUS, not 0"
gone_within "$HEARTH_PID" 5 || fail "SIGINT: hearth $HEARTH_PID still running"
echo "$CHECK: SIGINT stopped the JVM and hearth with status 0"

# 2. SIGKILL of the JVM: hearth sees its stdin close and exits.
launch
times="$READY_MS"
{ kill -9 "$JVM"; status_of "$JVM"; } 2>/dev/null; JVM=""
gone_within "$HEARTH_PID" 5 || { kill -9 "$HEARTH_PID"; fail "SIGKILL of the JVM left hearth $HEARTH_PID running"; }
grep -q "standard input closed" "$WORK/firestore-debug.log" || fail "hearth did not say why it stopped"
echo "$CHECK: SIGKILL of the JVM left no hearth process"

# 3. hearth dies: the JVM exits non-zero.
launch
times="$times $READY_MS"
kill -9 "$HEARTH_PID"
status_of "$JVM" 2>/dev/null; JVM=""
[ "$STATUS" != 0 ] || fail "hearth was killed but the JVM exited 0"
echo "$CHECK: hearth killed → the JVM exited $STATUS"
echo "$CHECK: more start-ups: $times ms"
echo "$CHECK: passed"
