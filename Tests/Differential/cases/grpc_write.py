"""The Write stream (mobile and web SDKs): the handshake, writes with stream tokens, errors
and what ends the stream."""
from cases.steps import DB, case, name, rpc, stream_close, stream_open, stream_recv, stream_send, update

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
