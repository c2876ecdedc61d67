#!/usr/bin/env bash
# The official Go client (cloud.google.com/go/firestore 0.56, over grpc-go 1.33 — its own
# HTTP/2 implementation, unlike the Python client's C core) runs its own integration tests
# (integration_test.go, unchanged: documents, batches, queries, collection groups,
# transactions, transforms, watch on documents and queries) against `hearth serve` through
# FIRESTORE_EMULATOR_HOST, as a user's Go code would. `hearth serve` runs with
# `--index-mode enforce`: the tests expect production's FAILED_PRECONDITION for a query that
# lacks a composite index.
# Then Tests/Compat/go-client/faults.go runs the same client against faults set through
# /emulator/v1/projects/{p}/faults (docs/faults.md): reads through UNAVAILABLE and a reset, a
# transaction re-run after ABORTED, a commit whose answer is dropped, a Listen stream dropped
# mid-way (about 15 s more, most of it compiling the program).
# Go and the packages are Debian's (bookworm): taken from the system when installed, else
# fetched with `apt-get download` (no root) and unpacked into .build/go (debian-packages.bash); skipped,
# with a note, when neither works.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=go-client
MIN_PASSED=32
PACKAGES=(golang-1.19-go golang-1.19-src golang-google-cloud-dev golang-google-cloud-compute-metadata-dev
          golang-google-genproto-dev golang-google-grpc-dev golang-google-api-dev golang-github-golang-protobuf-1-3-dev
          golang-github-googleapis-gax-go-dev golang-go.opencensus-dev golang-golang-x-net-dev golang-golang-x-oauth2-dev
          golang-golang-x-oauth2-google-dev golang-golang-x-sync-dev golang-golang-x-sys-dev golang-golang-x-text-dev
          golang-golang-x-time-dev golang-github-google-go-cmp-dev golang-github-google-btree-dev
          golang-github-google-martian-dev golang-github-golang-groupcache-dev golang-github-golang-mock-dev
          golang-rsc-binaryregexp-dev golang-glog-dev)

PKG=src/cloud.google.com/go/firestore
if command -v go >/dev/null && [ -f "/usr/share/gocode/$PKG/integration_test.go" ]; then
    GO=$(command -v go)
    GOPATH_DIR=/usr/share/gocode
else
    GODIR="$ROOT/.build/go"
    if [ ! -x "$GODIR/root/usr/lib/go-1.19/bin/go" ] || [ ! -f "$GODIR/root/usr/share/gocode/$PKG/integration_test.go" ]; then
        source Tests/Compat/debian-packages.bash
        unpack_debian_packages "$GODIR" "Go 1.19 and the Go client's packages (~95 MB)" "${PACKAGES[@]}"
    fi
    GO="$GODIR/root/usr/lib/go-1.19/bin/go"
    GOPATH_DIR="$GODIR/root/usr/share/gocode"
fi

SERVE_ARGS=(--index-mode enforce)
source Tests/Compat/hearth-server.bash
echo "== hearth serve at $HOST: cloud.google.com/go/firestore integration tests ($("$GO" version | cut -d' ' -f3))"

# The tests start only with a project and a service-account key file; over
# FIRESTORE_EMULATOR_HOST the client never uses the key (it sends "Bearer owner"), so a
# throwaway one will do.
python3 - "$WORK/key.json" <<'EOF'
import json, subprocess, sys
key = subprocess.run(["openssl", "genrsa", "2048"], capture_output=True, text=True, check=True).stdout
json.dump({"type": "service_account", "project_id": "demo-go", "private_key_id": "unused", "private_key": key,
           "client_email": "unused@demo-go.iam.gserviceaccount.com", "client_id": "0",
           "token_uri": "http://127.0.0.1:9/token"}, open(sys.argv[1], "w"))
EOF

cd "$GOPATH_DIR/$PKG"
set +e
env -u GOROOT GO111MODULE=off GOFLAGS= GOPATH="$GOPATH_DIR" GOCACHE="$ROOT/.build/go-cache" \
    FIRESTORE_EMULATOR_HOST="$HOST" GCLOUD_TESTS_GOLANG_FIRESTORE_PROJECT_ID=demo-go \
    GCLOUD_TESTS_GOLANG_FIRESTORE_KEY="$WORK/key.json" \
    timeout 900 "$GO" test -v -count=1 -timeout 600s -run '^TestIntegration' . > "$WORK/go-test.log" 2>&1
status=$?
set -e
cd "$ROOT"
passed=$(grep -c '^--- PASS' "$WORK/go-test.log" || true)
failed=$(grep -c '^--- FAIL' "$WORK/go-test.log" || true)
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -lt "$MIN_PASSED" ]; then
    grep -E '^(--- FAIL|\s+integration_test)|^(FAIL|panic)' "$WORK/go-test.log" | head -40 || true
    tail -20 "$WORK/go-test.log"
    echo "$CHECK: failed ($passed passed, $failed failed, exit $status; at least $MIN_PASSED must pass)"
    exit 1
fi

echo "== the Go client under injected faults (Tests/Compat/go-client/faults.go)"
set +e
(cd Tests/Compat/go-client && env -u GOROOT GO111MODULE=off GOFLAGS= GOPATH="$GOPATH_DIR" GOCACHE="$ROOT/.build/go-cache" \
    FIRESTORE_EMULATOR_HOST="$HOST" timeout 300 "$GO" run faults.go) 2>&1 | tee "$WORK/go-faults.log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ] || ! grep -q '^go-client faults: all passed' "$WORK/go-faults.log"; then
    echo "$CHECK: failed (the fault cases: exit $status)"
    exit 1
fi
faults=$(grep -c '^ok ' "$WORK/go-faults.log")
stop_hearth
echo "$CHECK: passed ($passed tests, $faults fault checks)"
