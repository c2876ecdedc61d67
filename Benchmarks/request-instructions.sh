#!/usr/bin/env bash
# Instructions the whole server process spends per request, counted by callgrind (steady on a
# noisy machine, unlike time): `hearth serve` runs under valgrind twice per request kind, once
# answering N1 requests and once N2, and the difference divided by N2 - N1 is one request's
# cost — start-up, seeding and shutdown cancel out. Everything is counted: sockets, HTTP/1.1
# or HTTP/2, gRPC framing, routing, placement and thread hand-offs, the handler.
#
#   Benchmarks/request-instructions.sh [BIN] [KIND...]
#     BIN: a release `hearth` (default: this checkout's, swift build -c release)
#     KIND: grpc-get grpc-batchget grpc-commit rest-get rest-patch (default: all; grpc-batchget
#           reads 20 documents a call)
#   N1/N2 in the environment (default 500/2500); PORT fixes the port (default: a free one);
#   C/M the gRPC load's connections and streams per connection (h2load -c/-m; default 1/1);
#   KEEP=DIR keeps each run's callgrind output as DIR/KIND-N.out (for callgrind_annotate).
#
# Needs valgrind and nghttp2-client (h2load). Compare two builds by running it on each.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-$(swift build -c release --show-bin-path)/hearth}
shift || true
KINDS=("$@"); [ ${#KINDS[@]} -gt 0 ] || KINDS=(grpc-get grpc-batchget grpc-commit rest-get rest-patch)
N1=${N1:-500}; N2=${N2:-2500}
command -v valgrind >/dev/null && command -v h2load >/dev/null || { echo "needs valgrind and h2load" >&2; exit 1; }
WORK=$(mktemp -d); trap 'if [ -n "${SERVER:-}" ]; then kill "$SERVER" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT

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
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$BIN" serve --port "${PORT:-0}" --no-console \
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
