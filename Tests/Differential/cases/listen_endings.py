"""The last messages of Listen targets, in order: a document target whose document is deleted
(alone, or next to another document), deleted and created again, a once-target's ending
(query and document targets, found or missing), and a query target losing a document."""
from cases.steps import case, delete_write, stream_close, stream_open, stream_recv, stream_send, update
from cases.grpc_listen import add_docs, add_query, commit, remove, seed
from cases.steps import field_filter, query

CASES = []
L = "L"


def add(label, *steps):
    CASES.append(case(f"listen ending {label}", *steps))


add("document deleted", seed({"c/a": {"n": 1}}), stream_open(L), stream_send(L, add_docs(1, ["c/a"])), stream_recv(L, count=4, quiet=2),
    commit(delete_write("c/a")), stream_recv(L), stream_close(L))
add("document deleted next to another", seed({"c/a": {"n": 1}, "c/b": {"n": 2}}), stream_open(L), stream_send(L, add_docs(1, ["c/a", "c/b"])),
    stream_recv(L), commit(delete_write("c/a")), stream_recv(L), stream_close(L))
add("document deleted then created", seed({"c/a": {"n": 1}}), stream_open(L), stream_send(L, add_docs(1, ["c/a"])), stream_recv(L),
    commit(delete_write("c/a")), stream_recv(L), commit(update("c/a", {"n": 2})), stream_recv(L), stream_close(L))
add("document deleted two targets", seed({"c/a": {"n": 1}}), stream_open(L), stream_send(L, add_docs(1, ["c/a"])),
    stream_send(L, add_docs(2, ["c/a"])), stream_recv(L), commit(delete_write("c/a")), stream_recv(L), stream_close(L))
add("document deleted then target removed", seed({"c/a": {"n": 1}}), stream_open(L), stream_send(L, add_docs(1, ["c/a"])), stream_recv(L),
    commit(delete_write("c/a")), stream_recv(L), stream_send(L, remove(1)), stream_recv(L), stream_close(L))
add("once document missing", stream_open(L), stream_send(L, add_docs(1, ["c/zz"], once=True)), stream_recv(L), stream_close(L))
add("once document found and missing", seed({"c/a": {"n": 1}}), stream_open(L), stream_send(L, add_docs(1, ["c/a", "c/zz"], once=True)),
    stream_recv(L), stream_close(L))
add("once query empty", stream_open(L), stream_send(L, add_query(1, query(), once=True)), stream_recv(L), stream_close(L))
add("once query then remove", seed({"c/a": {"n": 1}}), stream_open(L), stream_send(L, add_query(1, query(), once=True)), stream_recv(L),
    stream_send(L, remove(1)), stream_recv(L), stream_close(L))
add("query document deleted", seed({"c/a": {"n": 1}, "c/b": {"n": 2}}), stream_open(L), stream_send(L, add_query(1, query())), stream_recv(L),
    commit(delete_write("c/a")), stream_recv(L), stream_close(L))
add("query only document deleted", seed({"c/a": {"n": 1}}), stream_open(L), stream_send(L, add_query(1, query())), stream_recv(L),
    commit(delete_write("c/a")), stream_recv(L), stream_close(L))
add("query document leaves", seed({"c/a": {"n": 1}}), stream_open(L), stream_send(L, add_query(1, query(where=field_filter("n", "EQUAL", 1)))),
    stream_recv(L), commit(update("c/a", {"n": 2})), stream_recv(L), stream_close(L))
