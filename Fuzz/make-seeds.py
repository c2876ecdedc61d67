#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora, Fuzz/corpus/<target>/ (docs/reliability.md#fuzzing).

Deterministic: the same repository gives the same files. Seeds come from the recorded
differential cases (Tests/Differential/recorded: REST requests, resource names, rules), the
official export fixtures (Tests/HearthCoreTests/Export/Fixtures), the example apps' seeds and
rules (Seeds/, Rules/, Tests/RulesCorpus) and hand-written inputs for the wire formats
(HTTP/1.1, HTTP/2, HPACK — RFC 7541's own examples —, WebSocket, gRPC, gzip, protobuf).
The durable-record and durable-store seeds come from the fuzz binary itself
(`HEARTH_FUZZ_TARGET=write-seeds`), which writes them with Hearth's own encoders.
Each seed stays under 4 KiB (libFuzzer's default input size) and each target under ~100.
"""
import base64, glob, gzip, hashlib, json, os, shutil, struct, sys, zlib, urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fuzz", "corpus")
MAX = 4096
seeds = {}

def add(target, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX:
        return
    seeds.setdefault(target, {})[hashlib.sha1(data).hexdigest()[:16]] = data

def recorded(module):
    with open(os.path.join(ROOT, "Tests", "Differential", "recorded", module + ".json")) as f:
        return json.load(f)["cases"]

# --- HTTP/1.1 -----------------------------------------------------------------------------
http1 = [
    "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "POST /v1/projects/p/databases/(default)/documents/c HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"fields\":{}}",
    "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: t\r\n\r\n",
    "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    "PUT /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nbody",
    "GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    "\r\nOPTIONS * HTTP/1.1\r\nHost: h\r\nAccess-Control-Request-Method: POST\r\n\r\n",
]
for i, r in enumerate(http1):
    for first in (0, 3, 60):
        add("http1", bytes([first]) + r.encode())

# --- HPACK and HTTP/2 ---------------------------------------------------------------------
def hpack_literal(name, value, indexing=False):
    out = bytes([0x40 if indexing else 0x00])
    for s in (name, value):
        s = s.encode()
        assert len(s) < 127
        out += bytes([len(s)]) + s
    return out

def request_block(path, method="POST"):
    return (hpack_literal(":method", method) + hpack_literal(":scheme", "http") + hpack_literal(":path", path)
            + hpack_literal(":authority", "localhost", True) + hpack_literal("content-type", "application/grpc", True)
            + hpack_literal("te", "trailers") + hpack_literal("grpc-encoding", "gzip"))

# RFC 7541 appendix C.3 (without Huffman) and C.4 (with Huffman): three requests each.
rfc_c3 = ["828684410f7777772e6578616d706c652e636f6d", "828684be58086e6f2d6361636865",
          "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565"]
rfc_c4 = ["828684418cf1e3c2e5f23a6ba0ab90f4ff", "828684be5886a8eb10649cbf",
          "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf"]
def blocks(hexes):
    out = b""
    for h in hexes:
        b = bytes.fromhex(h)
        out += struct.pack(">H", len(b)) + b
    return out
add("hpack", blocks(rfc_c3))
add("hpack", blocks(rfc_c4))
add("hpack", blocks(["3fe11f" + request_block("/google.firestore.v1.Firestore/Listen").hex()]))
add("hpack", blocks([request_block("/a").hex(), "be" + hpack_literal("x", "y", True).hex()]))

def frame(type_, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([type_, flags]) + struct.pack(">I", stream) + payload

def grpc_message(payload, compressed=False):
    return bytes([1 if compressed else 0]) + struct.pack(">I", len(payload)) + payload

DATA, HEADERS, PRIORITY, RST, SETTINGS, PUSH, PING, GOAWAY, WINDOW, CONT = range(10)
settings = frame(SETTINGS, 0, 0, struct.pack(">HI", 1, 4096) + struct.pack(">HI", 4, 65535) + struct.pack(">HI", 5, 16384))
get_doc = b"\x0a\x2aprojects/p/databases/(default)/documents/c/a"
h2_streams = [
    settings + frame(SETTINGS, 1, 0, b"") + frame(HEADERS, 4, 1, request_block("/google.firestore.v1.Firestore/GetDocument"))
    + frame(DATA, 1, 1, grpc_message(get_doc)),
    settings + frame(HEADERS, 0, 1, request_block("/google.firestore.v1.Firestore/Listen")[:20])
    + frame(CONT, 4, 1, request_block("/google.firestore.v1.Firestore/Listen")[20:]) + frame(DATA, 0, 1, grpc_message(b"\x0a\x01p"))
    + frame(WINDOW, 0, 1, struct.pack(">I", 1000)) + frame(RST, 0, 1, struct.pack(">I", 8)),
    settings + frame(PING, 0, 0, b"12345678") + frame(PRIORITY, 0, 3, struct.pack(">IB", 1, 16))
    + frame(HEADERS, 0x2D, 3, bytes([2]) + struct.pack(">IB", 0, 15) + request_block("/x") + b"\0\0")
    + frame(DATA, 0x09, 3, bytes([3]) + b"abc" + b"\0\0\0") + frame(WINDOW, 0, 0, struct.pack(">I", 1 << 20))
    + frame(GOAWAY, 0, 0, struct.pack(">II", 3, 0) + b"bye"),
    frame(SETTINGS, 0, 0, struct.pack(">HI", 2, 0) + struct.pack(">HI", 3, 10)) + frame(HEADERS, 5, 1, request_block("/y", "GET"))
    + frame(HEADERS, 5, 5, request_block("/z")) + frame(0x0A, 0, 0, b"unknown frame type") + frame(PUSH, 0, 1, b"\0\0\0\2"),
]
for s in h2_streams:
    for first in (0, 9):
        add("http2-frames", bytes([first]) + s)
        add("http2-connection", bytes([first]) + s)

# --- WebSocket ----------------------------------------------------------------------------
def ws(opcode, payload, fin=True, mask=b"\x01\x02\x03\x04"):
    b0 = (0x80 if fin else 0) | opcode
    n = len(payload)
    head = bytes([b0, 0x80 | n]) if n < 126 else bytes([b0, 0x80 | 126]) + struct.pack(">H", n)
    return head + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(payload))
add("websocket", b"\0" + ws(1, b"hello") + ws(9, b"ping") + ws(8, struct.pack(">H", 1000) + b"bye"))
add("websocket", b"\x05" + ws(1, b"frag", fin=False) + ws(0, b"ment") + ws(2, bytes(range(200))))
add("websocket", b"\0" + ws(10, b"") + ws(1, "é".encode()) + ws(8, b""))

# --- gRPC framing and gzip ----------------------------------------------------------------
payload = json.dumps({"fields": {"a": {"integerValue": "1"}}}).encode() * 4
for level in (0, 1, 9):
    add("gzip", gzip.compress(payload, compresslevel=level, mtime=0))
add("gzip", gzip.compress(b"", mtime=0) + gzip.compress(b"second member", mtime=0))
add("gzip", gzip.compress(bytes(range(256)) * 8, mtime=0))
for enc in range(4):
    add("grpc-framing", bytes([enc]) + grpc_message(get_doc) + grpc_message(gzip.compress(get_doc, mtime=0), True))
add("grpc-framing", bytes([2, 0]) + grpc_message(b"") + grpc_message(gzip.compress(payload, mtime=0), True)[:30])

# --- protobuf request messages ------------------------------------------------------------
def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])
def field(num, wt, data):
    key = varint(num << 3 | wt)
    if wt == 0: return key + varint(data)
    if wt == 1: return key + data
    if wt == 2:
        data = data.encode() if isinstance(data, str) else data
        return key + varint(len(data)) + data
    if wt == 5: return key + data
def msg(num, *parts): return field(num, 2, b"".join(parts))
DB = "projects/p/databases/(default)"
DOC = DB + "/documents/c/a"
def value(kind):
    return {
        "int": field(2, 0, 42), "double": field(3, 1, struct.pack("<d", 1.5)), "string": field(17, 2, "x"),
        "bool": field(1, 0, 1), "null": field(11, 0, 0), "bytes": field(18, 2, b"\0\1"),
        "time": msg(10, field(1, 0, 1700000000), field(2, 0, 5)), "ref": field(5, 2, DOC),
        "geo": msg(8, field(1, 1, struct.pack("<d", 1.0)), field(2, 1, struct.pack("<d", 2.0))),
        "array": msg(9, msg(1, field(2, 0, 1)), msg(1, field(17, 2, "y"))),
        "map": msg(6, msg(1, field(1, 2, "k"), msg(2, field(2, 0, 7)))),
    }[kind]
def fields_entries():
    return b"".join(msg(2, field(1, 2, k), msg(2, value(k))) for k in
                    ["int", "double", "string", "bool", "null", "bytes", "time", "ref", "geo", "array", "map"])
document = field(1, 2, DOC) + fields_entries()
write_update = msg(1, document) + msg(3, field(1, 2, "int"), field(1, 2, "map.k")) + msg(4, field(1, 0, 1))
write_transform = msg(6, field(1, 2, DOC), msg(2, field(1, 2, "n"), msg(3, field(2, 0, 1))), msg(2, field(1, 2, "t"), field(2, 0, 1)))
write_delete = field(2, 2, DOC) + msg(4, msg(2, field(1, 0, 1)))
query = (msg(2, field(2, 2, "c"), field(3, 0, 1))
         + msg(3, msg(2, msg(1, field(2, 2, "int")), field(2, 0, 5), msg(3, field(2, 0, 1))))
         + msg(4, msg(1, field(2, 2, "int")), field(2, 0, 2))
         + msg(7, msg(1, field(2, 0, 1)), field(2, 0, 1)) + msg(8, msg(1, field(2, 0, 9)))
         + field(6, 0, 1) + msg(5, field(1, 0, 10)))
composite = msg(2, field(2, 2, "c")) + msg(3, msg(1, field(1, 0, 2), msg(2, msg(3, field(1, 0, 3), msg(2, field(2, 2, "a"))))))
samples = {
    0: field(1, 2, DOC) + msg(2, field(1, 2, "a")),
    1: field(1, 2, DB + "/documents") + field(2, 2, "c") + field(3, 2, "id") + msg(4, fields_entries()),
    2: msg(1, document) + msg(2, field(1, 2, "int")) + msg(4, msg(2, field(1, 0, 5))),
    3: field(1, 2, DOC) + msg(2, field(1, 0, 1)),
    4: field(1, 2, DB + "/documents") + field(2, 2, "c") + field(3, 0, 2) + field(4, 2, "b2Zmc2V0OjI=") + field(6, 2, "int desc"),
    5: field(1, 2, DB + "/documents") + field(2, 0, 10) + field(3, 2, "b2Zmc2V0OjE="),
    6: field(1, 2, DB) + msg(2, write_update) + msg(2, write_delete),
    7: field(1, 2, DB) + msg(2, msg(2, field(1, 2, DB + "/documents"), msg(2, query)) + field(5, 0, 1)
                             + field(4, 2, b"\x08\x01") + field(6, 0, 1)),
    8: field(1, 2, DB) + msg(2, msg(1, msg(1, field(1, 2, "collection"), msg(2, field(17, 2, "/c"))),
                                    msg(1, field(1, 2, "limit"), msg(2, field(2, 0, 3))))),
    9: field(1, 2, DB) + field(2, 2, DOC) + field(2, 2, DB + "/documents/c/b") + msg(3, field(1, 2, "a")),
    10: field(1, 2, DB + "/documents") + msg(2, query),
    11: field(1, 2, DB + "/documents") + msg(2, msg(1, query) + msg(3, msg(1, b""), field(7, 2, "n"))
                                               + msg(3, msg(2, msg(1, field(2, 2, "int"))), field(7, 2, "s"))),
    12: field(1, 2, DB + "/documents") + msg(2, query) + field(3, 0, 4),
    13: field(1, 2, DB) + msg(2, msg(3, field(1, 2, b"tx"))),
    14: field(1, 2, DB) + field(2, 2, b"tx"),
    15: field(1, 2, DB) + msg(2, write_update) + msg(2, write_transform) + field(3, 2, b"tx"),
    16: field(1, 2, DB) + field(2, 2, "s") + msg(3, write_update) + field(4, 2, b"token"),
    17: struct.pack(">qI", 1700000000, 123456),
    18: msg(6, msg(1, field(1, 2, "k"), msg(2, value("array")))),
}
for selector, body in samples.items():
    add("protobuf", bytes([selector]) + body)
add("protobuf", bytes([10]) + field(1, 2, DB + "/documents") + msg(2, composite))

# --- REST (recorded differential cases) ---------------------------------------------------
def rest_request(step):
    head = f"{step['method']} {step['path']}\n"
    for k, v in (step.get("headers") or {}).items():
        head += f"{k}: {v}\n"
    body = step.get("body")
    text = head + "\n" + (json.dumps(body, separators=(",", ":")) if body is not None else "")
    return text.encode()
rest_count = 0
for module in ["rest_documents", "rest_queries", "rest_transactions", "rest_values", "rest_routing", "rest_gaps", "rules"]:
    for case in recorded(module)[::3]:
        steps = [s for s in case["steps"] if s.get("kind") == "http"]
        if not steps or len(steps) > 6:
            continue
        data = b"\0".join(rest_request(s) for s in steps)
        if len(data) <= MAX and rest_count < 120:
            add("rest", data)
            rest_count += 1

# --- WebChannel forward bodies ------------------------------------------------------------
listen = {"database": DB, "addTarget": {"query": {"parent": DB + "/documents", "structuredQuery": {
    "from": [{"collectionId": "c"}], "where": {"fieldFilter": {"field": {"fieldPath": "a"}, "op": "EQUAL", "value": {"integerValue": "1"}}},
    "orderBy": [{"field": {"fieldPath": "a"}}], "limit": 5}}, "targetId": 2, "resumeToken": "AAAA"}}
write = {"streamToken": "AQID", "writes": [{"update": {"name": DOC, "fields": {"a": {"stringValue": "x"}}},
                                           "updateTransforms": [{"fieldPath": "t", "setToServerValue": "REQUEST_TIME"}]}]}
def form(pairs): return urllib.parse.urlencode(pairs).encode()
add("webchannel", form([("headers", "Authorization:Bearer owner\r\nX-Goog-Api-Client:gl-js/\r\n"), ("count", "1"), ("ofs", "0"),
                        ("req0___data__", json.dumps(listen))]))
add("webchannel", form([("count", "2"), ("ofs", "5"), ("req0___data__", json.dumps({"database": DB})), ("req1___data__", json.dumps(write))]))
add("webchannel", form([("count", "1"), ("ofs", "0"), ("req0___data__", json.dumps({"removeTarget": 2}))]))
add("webchannel", form([("count", "1"), ("ofs", "1"), ("req0___data__", json.dumps({"addTarget": {"documents": {"documents": [DOC]}, "targetId": 4, "once": True}}))]))

# --- Request texts, resource names --------------------------------------------------------
for t in [base64.b64encode(b"offset:10").decode(), base64.b64encode(b"after:abc").decode(), "a desc, b asc, `c.d`",
          "pageSize=3&mask.fieldPaths=a&mask.fieldPaths=b.c&orderBy=a%20desc&showMissing=true&readTime=2020-01-01T00:00:00Z",
          "Bearer owner", "Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ1MSIsImVtYWlsIjoiYUBiLmMiLCJmaXJlYmFzZSI6e319.",
          "/v1/projects/p/databases/%28default%29/documents/c%2Fx/a%20b"]:
    add("request-texts", t)
names = set()
for case in recorded("resource_names"):
    for s in case["steps"]:
        if s.get("kind") == "http":
            p = s["path"].split("?")[0]
            if p.startswith("/v1/"):
                names.add(urllib.parse.unquote(p[4:].split(":")[0]))
for n in sorted(names)[:60]:
    add("resource-name", n)
for n in [DB, DOC, DB + "/documents", "projects/p/databases/d/documents/c/a/sub/b", "projects/a:b/databases/(default)/documents/c/__id7__"]:
    add("resource-name", n)

# --- Hearth JSON, rules -------------------------------------------------------------------
for f in sorted(glob.glob(os.path.join(ROOT, "Seeds", "*", "documents.json"))):
    add("hearth-json", open(f, "rb").read()[:MAX])
for j in [{"c/a": {"n": 1, "f": 1.5, "t": {"$timestamp": "2020-01-01T00:00:00Z"}, "r": {"$reference": "c/b"}, "b": {"$bytes": "AAE="},
                   "g": {"$geopoint": [1, 2]}, "v": {"$vector": [1, 2.5]}, "d": {"$double": "NaN"}, "arr": [1, "x", None, True],
                   "m": {"$map": {"$k": "v"}}}}, [1, [2, [3]], {"a": "\u00e9\\n", "e": 1e308, "i": -9223372036854775808}]]:
    add("hearth-json", json.dumps(j))
rules_sources = []
for f in sorted(glob.glob(os.path.join(ROOT, "Rules", "*.rules")) + glob.glob(os.path.join(ROOT, "Tests", "RulesCorpus", "*.rules"))):
    rules_sources.append(open(f, "rb").read())
for case in recorded("rules")[::6] + recorded("rules_operators")[::6]:
    for s in case["steps"]:
        body = s.get("body") or {}
        if isinstance(body, dict) and "rules" in body:
            for file in body["rules"].get("files", []):
                rules_sources.append(file["content"].encode())
for src in rules_sources:
    add("rules-source", src)
doc = json.dumps({"owner": "u", "n": 3, "tags": ["a", "b"], "m": {"x": 1.5}, "when": {"$timestamp": "2020-01-01T00:00:00Z"}}).encode()
claims = json.dumps({"email": "a@b.c", "email_verified": True, "firebase": {"sign_in_provider": "password"}, "admin": True}).encode()
for src in rules_sources[:40]:
    add("rules-eval", src + b"\0" + doc + b"\0" + claims + b"\0" + b"c/a")
for src in rules_sources[:10]:
    add("rules-eval", src + b"\0" + doc + b"\0\0users/u/items/x")

# --- Bundles ------------------------------------------------------------------------------
def bundle(elements):
    body = b"".join(str(len(e.encode())).encode() + e.encode() for e in elements[1:])
    meta = elements[0].replace("TOTAL", str(len(body)))
    return str(len(meta.encode())).encode() + meta.encode() + body
for first in (0, 7):
    add("bundle", bytes([first]) + bundle([
        '{"metadata":{"id":"b","createTime":{"seconds":1001,"nanos":9},"version":1,"totalDocuments":2,"totalBytes":TOTAL}}',
        '{"namedQuery":{"name":"q","readTime":{"seconds":1000,"nanos":0},"bundledQuery":{"parent":"%s/documents","structuredQuery":{"from":[{"collectionId":"c"}],"orderBy":[{"field":{"fieldPath":"a"},"direction":"DESCENDING"}],"limit":{"value":1}},"limitType":"LAST"}}}' % DB,
        '{"documentMetadata":{"name":"%s","readTime":{"seconds":1000,"nanos":0},"exists":true,"queries":["q"]}}' % DOC,
        '{"document":{"name":"%s","fields":{"a":{"integerValue":"1"},"m":{"mapValue":{"fields":{"x":{"nullValue":null}}}}},"createTime":{"seconds":1,"nanos":0},"updateTime":"2020-01-01T00:00:00Z"}}' % DOC,
        '{"documentMetadata":{"name":"%s/documents/c/gone","readTime":"2020-01-01T00:00:00Z","exists":false}}' % DB,
    ]))

# --- Export fixtures: LevelDB log records -------------------------------------------------
def log_records(path):
    data = open(path, "rb").read()
    out, pos, assembling = [], 0, b""
    while pos + 7 <= len(data):
        left = 32768 - pos % 32768
        if left < 7:
            pos += left
            continue
        length = data[pos + 4] | data[pos + 5] << 8
        kind = data[pos + 6]
        if kind == 0 and length == 0:
            pos += left
            continue
        frag = data[pos + 7:pos + 7 + length]
        pos += 7 + length
        if kind == 1: out.append(frag)
        elif kind == 2: assembling = frag
        elif kind == 3: assembling += frag
        elif kind == 4: out.append(assembling + frag)
    return out
fixtures = os.path.join(ROOT, "Tests", "HearthCoreTests", "Export", "Fixtures")
entities = []
for f in sorted(glob.glob(os.path.join(fixtures, "*", "*", "all_namespaces", "*", "output-*"))):
    entities += log_records(f)
overall = []
for f in sorted(glob.glob(os.path.join(fixtures, "*", "*", "*.overall_export_metadata"))):
    overall += log_records(f)
backup = [open(f, "rb").read() for f in sorted(glob.glob(os.path.join(fixtures, "*", "*", "all_namespaces", "*", "*.export_metadata")))]
small = sorted(set(e for e in entities if len(e) < 2000), key=lambda e: (len(e), e))
step = max(1, len(small) // 60)
for e in small[::step]:
    add("entity", e)
def framed_records(records): return b"".join(struct.pack(">H", len(r)) + r for r in records)
for i in range(0, min(len(small), 40), 4):
    add("export-log", bytes([i % 4, 0]) + framed_records(small[i:i + 4]))
for r in overall[:6] + backup[:6]:
    add("export-log", bytes([2, 0]) + framed_records([r]))
add("export-log", bytes([1, 2, 0x10, 0x22, 0x01, 0x07]) + framed_records(small[:3]))

def write():
    for target, files in seeds.items():
        d = os.path.join(OUT, target)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print(f"{target:18} {len(files):4} seeds, {sum(len(v) for v in files.values()):7} bytes")

if __name__ == "__main__":
    write()
