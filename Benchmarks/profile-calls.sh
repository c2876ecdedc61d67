#!/usr/bin/env bash
# Instructions the Firestore layer spends per call (decode, DocumentService, encode), counted
# by callgrind, which is steady on a noisy machine: `hearth serve` (release) runs under
# valgrind with collection switched on only inside one RPC handler (FirestoreRPCs.getDocument
# or .runQuery), so sockets, HTTP/2 and gRPC framing are left out; h2load sends N identical
# calls. Prints the handler's instructions per call and its costliest functions.
#
#   Benchmarks/profile-calls.sh [get|query-eq|query-range] [N]     (default: get 2000)
#
# Needs valgrind and nghttp2-client (apt-get install -y valgrind nghttp2-client) and a
# release build (swift build -c release).
set -euo pipefail
cd "$(dirname "$0")/.."
KIND=${1:-get}
N=${2:-2000}
BIN=$(swift build -c release --show-bin-path)/hearth
WORK=$(mktemp -d); echo "work folder: $WORK (KEEP=1 keeps it)"
# `kill 0` would signal the whole process group: only a server still running is stopped.
trap '[ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT

# The handler's symbol, exactly: a pattern would also match the closures inside it, and
# entering one would toggle collection off again.
case "$KIND" in
    get) HANDLER='13FirestoreRPCsV11getDocument'; METHOD=GetDocument ;;
    query-eq|query-range) HANDLER='13FirestoreRPCsV8runQuery'; METHOD=RunQuery ;;
    *) echo "usage: $0 [get|query-eq|query-range] [N]" >&2; exit 2 ;;
esac

SYMBOL=$(nm "$BIN" | awk -v h="$HANDLER" '$3 ~ h "yyS" && !found {print $3; found = 1}')
[ -n "$SYMBOL" ] || { echo "no symbol for $HANDLER in $BIN" >&2; exit 1; }
echo '{}' > "$WORK/empty.json"
valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" \
    "--toggle-collect=$SYMBOL" \
    "$BIN" serve --port 0 --ready-file "$WORK/ready" --seed "$WORK/empty.json" --project cost > "$WORK/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 600); do [ -s "$WORK/ready" ] && break; sleep 0.1; done
HOST=$(cat "$WORK/ready")

# 2,000 documents shaped like the benchmark workload's, and the request body.
python3 - "$HOST" "$KIND" "$WORK/body.bin" <<'PY'
import json, struct, sys, urllib.request
host, kind, out = sys.argv[1:]
root = "projects/cost/databases/(default)/documents"
def doc(i):
    s = lambda v: {"stringValue": v}
    n = lambda v: {"integerValue": str(v)}
    return {"category": s("cat-%02d" % (i % 20)), "score": n(i * 7919 % 1000000), "age": n(18 + i % 72),
            "name": s("name-%09d" % (i * 31)), "active": {"booleanValue": i % 2 == 0}, "price": {"doubleValue": i / 100},
            "tags": {"arrayValue": {"values": [s("tag-%d" % (i % 50)), s("tag-%d" % (i % 7)), s("tag-%d" % (i % 3))]}},
            "address": {"mapValue": {"fields": {"city": s("city-%d" % (i % 20)), "zip": s("%05d" % i), "street": s("%d Main St" % i)}}},
            "email": s("user%d@example.com" % i), "created": {"timestampValue": "2023-11-14T22:13:20Z"}, "counter": n(0)}
for start in range(0, 2000, 500):
    writes = [{"update": {"name": f"{root}/bench/d{i:08d}", "fields": doc(i)}} for i in range(start, start + 500)]
    req = urllib.request.Request(f"http://{host}/v1/{root}:commit", data=json.dumps({"writes": writes}).encode(), method="POST")
    urllib.request.urlopen(req, timeout=600).read()
def varint(n):
    b = bytearray()
    while n >= 0x80: b.append(n & 0x7F | 0x80); n >>= 7
    b.append(n); return bytes(b)
def f(num, payload): return varint(num << 3 | 2) + varint(len(payload)) + payload
def v(num, value): return varint(num << 3) + varint(value)
ref = lambda name: f(1, f(2, name.encode()))
if kind == "get":
    msg = f(1, f"{root}/bench/d00000001".encode())
elif kind == "query-eq":  # category == "cat-13": 100 documents
    msg = f(1, root.encode()) + f(2, f(2, f(2, b"bench")) + f(3, f(2, f(1, f(2, b"category")) + v(2, 5) + f(3, f(17, b"cat-13")))))
else:  # score >= 500000 ORDER BY score LIMIT 20
    msg = f(1, root.encode()) + f(2, f(2, f(2, b"bench")) + f(3, f(2, f(1, f(2, b"score")) + v(2, 4) + f(3, v(2, 500000))))
                                 + f(4, f(1, f(2, b"score")) + v(2, 1)) + f(5, v(1, 20)))
open(out, "wb").write(b"\0" + struct.pack(">I", len(msg)) + msg)
PY

h2load -n "$N" -c 1 -m 1 -d "$WORK/body.bin" -H 'content-type: application/grpc' -H 'te: trailers' \
    "http://$HOST/google.firestore.v1.Firestore/$METHOD" | grep -E "^requests|^status"
curl -sf -X POST "http://$HOST/shutdown" > /dev/null || true
wait $SERVER || true
TOTAL=$(callgrind_annotate "$WORK/callgrind.out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !found {gsub(",", "", $1); print $1; found = 1}')
echo "$(echo "$SYMBOL" | swift demangle --compact): $TOTAL instructions over $N calls = $((TOTAL / N)) per call"
callgrind_annotate --inclusive=no "$WORK/callgrind.out" 2>/dev/null | sed -n '/Ir .*file:function/,$p' | swift demangle --simplified | head -40
