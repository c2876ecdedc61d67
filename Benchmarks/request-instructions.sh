#!/usr/bin/env bash
# Instructions the whole server process spends per request, counted by callgrind (steady on a
# noisy machine, unlike time): `hearth serve` runs under valgrind twice per request kind, once
# answering N1 requests and once N2, and the difference divided by N2 - N1 is one request's
# cost — start-up, seeding and shutdown cancel out. Everything is counted: sockets, HTTP/1.1
# or HTTP/2, gRPC framing, routing, placement and thread hand-offs, the handler.
#
#   Benchmarks/request-instructions.sh [BIN] [KIND...]
#     BIN: a release `hearth` (default: this checkout's, swift build -c release)
#     KIND: grpc-get grpc-batchget grpc-commit rest-get rest-patch (default: these five;
#           grpc-batchget reads 20 documents a call), or listen: one gRPC Listen stream on
#           the document while N REST PATCHes change it, each waiting for its change to arrive
#           (per request: a rest-patch plus its Listen delivery)
#   N1/N2 in the environment (default 500/2500); PORT fixes the port (default: a free one);
#   C/M the gRPC load's connections and streams per connection (h2load -c/-m; default 1/1);
#   CALLGRIND_ARGS adds valgrind options (e.g. --dump-instr=yes);
#   KEEP=DIR keeps each run's callgrind output as DIR/KIND-N.out (for callgrind_annotate).
#
# Needs valgrind and nghttp2-client (h2load). Compare two builds by running it on each.
# Two sources of run-to-run drift are switched off: SWIFT_DETERMINISTIC_HASHING=1 (with
# the per-process random seed a Set or Dictionary of strings probes a different number of
# slots each run: two runs of one binary differed by ~700 instructions per GetDocument) and
# LD_BIND_NOW=1 (the dynamic linker's lazy symbol lookups otherwise land in either run).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-$(swift build -c release --show-bin-path)/hearth}
shift || true
KINDS=("$@"); [ ${#KINDS[@]} -gt 0 ] || KINDS=(grpc-get grpc-batchget grpc-commit rest-get rest-patch)
N1=${N1:-500}; N2=${N2:-2500}
command -v valgrind >/dev/null && command -v h2load >/dev/null || { echo "needs valgrind and h2load" >&2; exit 1; }
WORK=$(mktemp -d)
# `kill 0` would signal the whole process group (the shell that ran this, a build beside
# it: that is how it was found): only a server that is still running is stopped.
trap '[ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# The request bodies: a gRPC GetDocumentRequest and CommitRequest (protobuf, framed), and the
# REST equivalents, all on one seeded document.
python3 - "$WORK" <<'PY'
import struct, sys, json
work = sys.argv[1]
def varint(n):
    out = b""
    while n >= 0x80: out += bytes([(n & 0x7F) | 0x80]); n >>= 7
    return out + bytes([n])
def field(num, payload): return varint(num << 3 | 2) + varint(len(payload)) + payload
def frame(msg): return b"\x00" + struct.pack(">I", len(msg)) + msg
db = b"projects/cost/databases/(default)"
name = db + b"/documents/c/d1"
open(f"{work}/get.bin", "wb").write(frame(field(1, name)))
value = field(17, b"hello")                       # Value.string_value
entry = field(1, b"f") + field(2, value)          # map entry
doc = field(1, name) + field(2, entry)
write = field(1, doc)                             # Write.update
open(f"{work}/commit.bin", "wb").write(frame(field(1, db) + field(2, write)))
names = [db + b"/documents/c/d%d" % i for i in range(1, 21)]
open(f"{work}/batchget.bin", "wb").write(frame(field(1, db) + b"".join(field(2, n) for n in names)))
open(f"{work}/seed.json", "w").write(json.dumps({"c/d1": {"f": "hello"}}))
open(f"{work}/seed20.json", "w").write(json.dumps({"c/d%d" % i: {"f": "hello"} for i in range(1, 21)}))
open(f"{work}/patch.json", "w").write(json.dumps({"fields": {"f": {"stringValue": "hello"}}}))
PY

count() {  # KIND N → total instructions of a server run answering N requests
    local kind=$1 n=$2
    rm -f "$WORK/ready" "$WORK/cg.out"
    local seed=seed.json; [ "$kind" = grpc-batchget ] && seed=seed20.json
    SWIFT_DETERMINISTIC_HASHING=1 LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" ${CALLGRIND_ARGS:-} "$BIN" serve --port "${PORT:-0}" --no-console \
        --ready-file "$WORK/ready" --seed "$WORK/$seed" --project cost > "$WORK/serve.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 1 600); do [ -s "$WORK/ready" ] && break; sleep 0.1; done
    local host; host=$(cat "$WORK/ready")
    local grpc=(-H "content-type: application/grpc" -H "te: trailers" -c "${C:-1}" -m "${M:-1}" -n "$n")
    case "$kind" in
        grpc-get) h2load "${grpc[@]}" -d "$WORK/get.bin" "http://$host/google.firestore.v1.Firestore/GetDocument" >/dev/null ;;
        grpc-batchget) h2load "${grpc[@]}" -d "$WORK/batchget.bin" "http://$host/google.firestore.v1.Firestore/BatchGetDocuments" >/dev/null ;;
        grpc-commit) h2load "${grpc[@]}" -d "$WORK/commit.bin" "http://$host/google.firestore.v1.Firestore/Commit" >/dev/null ;;
        rest-get|rest-patch) python3 - "$host" "$kind" "$n" "$WORK/patch.json" <<'PY' ;;
import http.client, sys
host, kind, n, patch = sys.argv[1], sys.argv[2], int(sys.argv[3]), open(sys.argv[4]).read()
c = http.client.HTTPConnection(host)
path = "/v1/projects/cost/databases/(default)/documents/c/d1"
for _ in range(n):
    if kind == "rest-get": c.request("GET", path)
    else: c.request("PATCH", path, body=patch, headers={"Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    assert r.status == 200, r.status
PY
        listen) python3 - "$host" "$n" "$WORK/patch.json" <<'PY' ;;
import http.client, socket, struct, sys
host, n, patch = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
h, p = host.rsplit(":", 1)
def varint(v):
    out = b""
    while v >= 0x80: out += bytes([(v & 0x7F) | 0x80]); v >>= 7
    return out + bytes([v])
def field(num, payload): return varint(num << 3 | 2) + varint(len(payload)) + payload
def frame(kind, flags, stream, payload): return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload
db = b"projects/cost/databases/(default)"
# HTTP/2 with 1 GiB windows (no flow control in the way), one Listen stream, one document target.
s = socket.create_connection((h, int(p)))
hello = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, struct.pack(">HIHI", 2, 0, 4, 1 << 30)) + frame(8, 0, 0, struct.pack(">I", 1 << 30))
block = b""
for k, v in [(":method", "POST"), (":scheme", "http"), (":path", "/google.firestore.v1.Firestore/Listen"), (":authority", "cost"),
             ("content-type", "application/grpc"), ("te", "trailers")]:
    block += b"\x00" + bytes([len(k)]) + k.encode() + bytes([len(v)]) + v.encode()
request = field(1, db) + field(2, field(3, field(2, db + b"/documents/c/d1")) + b"\x28\x01")  # target_id 1
s.sendall(hello + frame(1, 4, 1, block) + frame(0, 0, 1, b"\x00" + struct.pack(">I", len(request)) + request))
buffer, data, changes, settled = b"", b"", 0, False
def pump():  # reads frames; counts document_change (field 3) and a target_change (field 2) after one
    global buffer, data, changes, settled
    chunk = s.recv(1 << 16)
    assert chunk, "the server closed the Listen connection"
    buffer += chunk
    while len(buffer) >= 9:
        length = int.from_bytes(buffer[:3], "big")
        if len(buffer) < 9 + length: break
        kind, flags, payload = buffer[3], buffer[4], buffer[9:9 + length]
        buffer = buffer[9 + length:]
        if kind == 4 and not flags & 1: s.sendall(frame(4, 1, 0, b""))
        elif kind == 3 or kind == 7: raise SystemExit("Listen stream reset")
        elif kind == 0:
            data += payload
            while len(data) >= 5 and len(data) >= 5 + int.from_bytes(data[1:5], "big"):
                m = data[5:5 + int.from_bytes(data[1:5], "big")]
                data = data[5 + len(m):]
                if m[:1] == b"\x1a": changes, settled = changes + 1, False
                elif m[:1] == b"\x12" and changes: settled = True
while not (changes == 1 and settled): pump()  # the initial snapshot
c = http.client.HTTPConnection(host)
path = "/v1/projects/cost/databases/(default)/documents/c/d1"
for i in range(n):  # the value alternates, so every commit changes the document
    c.request("PATCH", path, body=patch.replace("hello", "hellp" if i % 2 == 0 else "hello"), headers={"Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    assert r.status == 200, r.status
    while not (changes == i + 2 and settled): pump()
s.close()
PY
    esac
    curl -s -X POST "http://$host/shutdown" >/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    SERVER=
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$WORK/cg.out" "$KEEP/$kind-$n.out"; fi
    awk '/^summary:/ {print $2}' "$WORK/cg.out"
}

echo "instructions per request (whole process, callgrind; N = $N1 and $N2) for $BIN"
for kind in "${KINDS[@]}"; do
    a=$(count "$kind" "$N1"); b=$(count "$kind" "$N2")
    echo "$kind: $(( (b - a) / (N2 - N1) ))"
done
