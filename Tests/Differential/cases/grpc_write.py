"""The Write stream (mobile and web SDKs): the handshake, writes with stream tokens, errors
and what ends the stream."""
from cases.steps import DB, case, delete_write, name, rpc, stream_close, stream_open, stream_recv, stream_send, update

CASES = []


def add(label, *steps):
    CASES.append(case(f"write stream {label}", *steps))


W = "W"
open_ = stream_open(W, "Write")
hello = stream_send(W, {"database": DB})
add("handshake", open_, hello, stream_recv(W), stream_close(W))
add("one write", open_, hello, stream_recv(W, save={"tok": "messages.0.streamToken"}),
    stream_send(W, {"streamToken": "${tok}", "writes": [update("c/a", {"x": 1})]}), stream_recv(W),
    rpc("GetDocument", {"name": name("c/a")}), stream_close(W))
add("two batches", open_, hello, stream_recv(W, save={"tok": "messages.0.streamToken"}),
    stream_send(W, {"streamToken": "${tok}", "writes": [update("c/a", {"x": 1})]}), stream_recv(W, save={"tok2": "messages.0.streamToken"}),
    stream_send(W, {"streamToken": "${tok2}", "writes": [update("c/a", {"x": 2}), update("c/b", {"y": 1})]}), stream_recv(W), stream_close(W))
add("empty batch", open_, hello, stream_recv(W, save={"tok": "messages.0.streamToken"}),
    stream_send(W, {"streamToken": "${tok}", "writes": []}), stream_recv(W), stream_close(W))
add("failed precondition ends stream", open_, hello, stream_recv(W, save={"tok": "messages.0.streamToken"}),
    stream_send(W, {"streamToken": "${tok}", "writes": [update("c/a", {"x": 1}, exists=True)]}), stream_recv(W), stream_close(W))
add("writes before handshake", open_, stream_send(W, {"database": DB, "writes": [update("c/a", {"x": 1})]}), stream_recv(W), stream_close(W))
add("no database", open_, stream_send(W, {}), stream_recv(W), stream_close(W))
add("stream id on handshake", open_, stream_send(W, {"database": DB, "streamId": "nope"}), stream_recv(W), stream_close(W))
add("wrong stream token", open_, hello, stream_recv(W), stream_send(W, {"streamToken": "AAAA", "writes": [update("c/a", {"x": 1})]}),
    stream_recv(W), stream_close(W))
add("transform result", rpc("Commit", {"database": DB, "writes": [update("c/a", {"n": 1})]}), open_, hello,
    stream_recv(W, save={"tok": "messages.0.streamToken"}),
    stream_send(W, {"streamToken": "${tok}", "writes": [update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"integerValue": "4"}}])]}),
    stream_recv(W), stream_close(W))
add("invalid write", open_, hello, stream_recv(W, save={"tok": "messages.0.streamToken"}),
    stream_send(W, {"streamToken": "${tok}", "writes": [{"update": {"name": name("c/a"), "fields": {"__x__": {"integerValue": "1"}}}}]}),
    stream_recv(W), stream_close(W))
add("labels", open_, stream_send(W, {"database": DB, "labels": {"k": "v"}}), stream_recv(W), stream_close(W))
add("without resource prefix", stream_open(W, "Write", prefix=False), hello, stream_recv(W), stream_close(W))


def batch(tok, *writes):
    return stream_send(W, {"streamToken": tok, "writes": list(writes)})


first = stream_recv(W, save={"tok": "messages.0.streamToken"})
add("pipelined batches on one token", open_, hello, first,
    batch("${tok}", update("c/a", {"x": 1})), batch("${tok}", update("c/b", {"x": 2})), batch("${tok}", update("c/a", {"x": 3})),
    stream_recv(W), rpc("GetDocument", {"name": name("c/a")}), stream_close(W))
add("delete then read", rpc("Commit", {"database": DB, "writes": [update("c/a", {"x": 1})]}), open_, hello, first,
    batch("${tok}", delete_write("c/a")), stream_recv(W), rpc("GetDocument", {"name": name("c/a")}), stream_close(W))
add("update of a missing document", open_, hello, first,
    batch("${tok}", update("c/nope", {"x": 1}, mask=["x"], exists=True)), stream_recv(W), stream_close(W))
add("delete with exists precondition", open_, hello, first,
    batch("${tok}", delete_write("c/nope", exists=True)), stream_recv(W), stream_close(W))
add("update time precondition", rpc("Commit", {"database": DB, "writes": [update("c/a", {"x": 1})]}), open_, hello, first,
    batch("${tok}", {"update": {"name": name("c/a"), "fields": {}}, "currentDocument": {"updateTime": "2001-01-01T00:00:00Z"}}),
    stream_recv(W), stream_close(W))
add("array and numeric transforms", rpc("Commit", {"database": DB, "writes": [update("c/a", {"n": 1.5, "tags": ["a"]})]}), open_, hello, first,
    batch("${tok}", update("c/a", {}, mask=[], transforms=[
        {"fieldPath": "n", "increment": {"integerValue": "2"}},
        {"fieldPath": "tags", "appendMissingElements": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}},
        {"fieldPath": "m", "maximum": {"integerValue": "7"}},
        {"fieldPath": "gone", "removeAllFromArray": {"values": [{"stringValue": "a"}]}}])),
    stream_recv(W), rpc("GetDocument", {"name": name("c/a")}), stream_close(W))
add("merge with mask", rpc("Commit", {"database": DB, "writes": [update("c/a", {"x": 1, "y": {"z": 2, "w": 3}})]}), open_, hello, first,
    batch("${tok}", update("c/a", {"y": {"z": 9}}, mask=["y.z", "q"])), stream_recv(W), rpc("GetDocument", {"name": name("c/a")}), stream_close(W))
add("several documents in one batch", open_, hello, first,
    batch("${tok}", update("c/a", {"x": 1}), update("c/b", {"x": 2}), delete_write("c/z"), update("d/e/f/g", {"deep": True})),
    stream_recv(W), rpc("BatchGetDocuments", {"database": DB, "documents": [name("c/a"), name("c/b"), name("c/z"), name("d/e/f/g")]}),
    stream_close(W))
add("second batch after a failed one", open_, hello, first,
    batch("${tok}", update("c/nope", {"x": 1}, mask=["x"], exists=True)), batch("${tok}", update("c/a", {"x": 1})),
    stream_recv(W), stream_close(W))
add("same document twice in one batch", open_, hello, first,
    batch("${tok}", update("c/a", {"x": 1}), update("c/a", {"y": 2}, mask=["y"])), stream_recv(W),
    rpc("GetDocument", {"name": name("c/a")}), stream_close(W))
add("rules denied write", {"kind": "http", "method": "PUT", "path": "/emulator/v1/projects/$P:securityRules",
                           "body": {"rules": {"files": [{"name": "firestore.rules", "content": "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /c/{id} {\n      allow read: if true;\n      allow write: if request.resource.data.x < 5;\n    }\n  }\n}\n"}]}}},
    stream_open(W, "Write", auth={"uid": "alice"}), hello, first,
    stream_send(W, {"streamToken": "${tok}", "writes": [update("c/a", {"x": 1})]}), stream_recv(W, save={"tok2": "messages.0.streamToken"}),
    stream_send(W, {"streamToken": "${tok2}", "writes": [update("c/b", {"x": 9})]}), stream_recv(W), stream_close(W))
