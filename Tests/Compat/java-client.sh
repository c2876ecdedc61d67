#!/usr/bin/env bash
# A Java client over grpc-java 1.41 and Netty 4.1 — a third HTTP/2 implementation, after the
# Python client's C core and grpc-go, with its own flow-control, ping, SETTINGS and
# cancellation habits — drives every Firestore RPC against `hearth serve` and checks the
# answers' contents: Commit (set, masked update, transforms, delete), GetDocument,
# BatchGetDocuments, RunQuery, RunAggregationQuery, ListDocuments, transactions, Listen
# (snapshot, change, remove, half-close), the Write stream, 2 MB of streamed results, a
# 900 KB document and 4.5 MB requests, 200 calls from 8 threads and 500 at once on one channel, gzip, 350
# listeners attached and detached, deadlines, cancels, an idle reconnect and bad requests
# (Tests/Compat/java-client/FirestoreCheck.java); then, with faults set through
# /emulator/v1/projects/demo-java/faults and grpc-java's own retry policy, reads retried through
# UNAVAILABLE and a reset, a transaction re-run after ABORTED, a dropped commit answer and a
# dropped Listen resumed (docs/faults.md). About 20 s with the jars at hand, 8 of them the faults.
# The Firestore messages are not in the repository: they are written at run time, as a
# FileDescriptorSet, from the descriptors of the official Python client (the compat venv).
# Java and the jars are Debian's (bookworm): taken from the system when installed, else
# fetched with `apt-get download` (no root) and unpacked into .build/java; the check is
# skipped, with a note, when neither works.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
CHECK=java-client
PACKAGES=(libgrpc-java libprotobuf-java libnetty-java libopencensus-java libjctools-java libperfmark-java
          libguava-java libgoogle-gson-java)
JARS=(grpc-api grpc-context grpc-core grpc-netty grpc-stub protobuf protobuf-util netty-buffer netty-codec
      netty-codec-http netty-codec-http2 netty-common netty-handler netty-resolver netty-transport
      perfmark-api guava gson)

if ! command -v javac >/dev/null; then
    echo "$CHECK: skipped (no javac: install a JDK, e.g. apt-get install openjdk-17-jdk-headless)"
    exit 0
fi

JAVA_DIR="$ROOT/.build/java"
jar_dir=/usr/share/java
for jar in "${JARS[@]}"; do [ -f "$jar_dir/$jar.jar" ] || jar_dir=""; done
if [ -z "$jar_dir" ]; then
    jar_dir="$JAVA_DIR/root/usr/share/java"
    missing=0
    for jar in "${JARS[@]}"; do [ -f "$jar_dir/$jar.jar" ] || missing=1; done
    if [ "$missing" -eq 1 ]; then
        source Tests/Compat/debian-packages.bash
        unpack_debian_packages "$JAVA_DIR" "grpc-java, Netty and protobuf-java (~12 MB)" "${PACKAGES[@]}"
    fi
fi
CLASSPATH=$(printf "$jar_dir/%s.jar:" "${JARS[@]}")

# The Firestore message descriptors, from the official Python client.
source Tests/Compat/python-venv.bash
mkdir -p "$JAVA_DIR"
"$VENV/bin/python" - "$JAVA_DIR/firestore.desc" <<'EOF'
import sys
from google.protobuf import descriptor_pb2
from google.cloud.firestore_v1.types import firestore
files, seen = descriptor_pb2.FileDescriptorSet(), set()
def add(file):  # dependencies first, as protobuf-java builds them
    if file.name in seen:
        return
    seen.add(file.name)
    for dependency in file.dependencies:
        add(dependency)
    file.CopyToProto(files.file.add())
add(firestore.GetDocumentRequest.pb().DESCRIPTOR.file)
open(sys.argv[1], "wb").write(files.SerializeToString())
EOF

echo "== compiling the Java client ($(javac -version 2>&1))"
rm -rf "$JAVA_DIR/classes"
javac -nowarn -Xlint:none -cp "$CLASSPATH" -d "$JAVA_DIR/classes" Tests/Compat/java-client/FirestoreCheck.java

source Tests/Compat/hearth-server.bash
echo "== hearth serve at $HOST: grpc-java $(unzip -p "$jar_dir/grpc-core.jar" META-INF/MANIFEST.MF 2>/dev/null | sed -n 's/^Implementation-Version: //p' | tr -d '\r') over Netty"
set +e
timeout 300 java -cp "$CLASSPATH$JAVA_DIR/classes" FirestoreCheck "$HOST" "$JAVA_DIR/firestore.desc" 2>&1 | tee "$WORK/java.log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ] || ! grep -q "^$CHECK: passed" "$WORK/java.log"; then
    [ "$status" -eq 124 ] && echo "$CHECK: failed (timed out after 300 s)"
    grep -q "^$CHECK: failed" "$WORK/java.log" || echo "$CHECK: failed (exit $status)"
    exit 1
fi
stop_hearth
