"""The Listen stream: query and document targets, several at once, resume tokens and read
times, once-targets, removals, invalid targets, and changes arriving while listening."""
from cases.steps import (DB, case, delete_write, field_filter, name, query, rpc, stream_close, stream_open, stream_recv,
                         stream_send, update)

CASES = []
DOCS = DB + "/documents"


def add(label, *steps):
    CASES.append(case(f"listen {label}", *steps))


def seed(docs):
    return rpc("Commit", {"database": DB, "writes": [update(p, f) for p, f in docs.items()]})


def commit(*writes):
    return rpc("Commit", {"database": DB, "writes": list(writes)})


def add_query(target_id, q, **extra):
    return {"database": DB, "addTarget": {"targetId": target_id, "query": {"parent": DOCS, "structuredQuery": q}, **extra}}


def add_docs(target_id, paths, **extra):
    return {"database": DB, "addTarget": {"targetId": target_id, "documents": {"documents": [name(p) for p in paths]}, **extra}}


def remove(target_id):
    return {"database": DB, "removeTarget": target_id}


DATA = {"c/a": {"n": 1}, "c/b": {"n": 2}, "d/x": {"m": 1}}
L = "L"
open_ = stream_open(L)
add("query target", seed(DATA), open_, stream_send(L, add_query(1, query())), stream_recv(L), stream_close(L))
add("empty query target", open_, stream_send(L, add_query(1, query())), stream_recv(L), stream_close(L))
add("query then change", seed(DATA), open_, stream_send(L, add_query(1, query(where=field_filter("n", "GREATER_THAN", 1)))), stream_recv(L),
    commit(update("c/c", {"n": 5})), stream_recv(L), commit(update("c/b", {"n": 0})), stream_recv(L), commit(delete_write("c/c")), stream_recv(L),
    stream_close(L))
add("document target", seed(DATA), open_, stream_send(L, add_docs(1, ["c/a", "c/zz"])), stream_recv(L),
    commit(update("c/zz", {"n": 9})), stream_recv(L), commit(delete_write("c/a")), stream_recv(L), stream_close(L))
add("two targets", seed(DATA), open_, stream_send(L, add_query(1, query())), stream_send(L, add_query(2, query("d"))), stream_recv(L),
    commit(update("d/y", {"m": 2})), stream_recv(L), stream_close(L))
add("two targets same query", seed(DATA), open_, stream_send(L, add_query(1, query())), stream_send(L, add_query(2, query())),
    stream_recv(L), commit(update("c/a", {"n": 7})), stream_recv(L), stream_close(L))
add("remove target", seed(DATA), open_, stream_send(L, add_query(1, query())), stream_recv(L), stream_send(L, remove(1)), stream_recv(L),
    commit(update("c/a", {"n": 7})), stream_recv(L), stream_close(L))
add("remove target at once", seed(DATA), open_, stream_send(L, add_query(1, query())), stream_send(L, remove(1)), stream_recv(L),
    commit(update("c/a", {"n": 7})), stream_recv(L), stream_close(L))
add("remove unknown target", open_, stream_send(L, remove(5)), stream_recv(L), stream_close(L))
add("duplicate target id", seed(DATA), open_, stream_send(L, add_query(1, query())), stream_recv(L), stream_send(L, add_query(1, query("d"))),
    stream_recv(L), stream_close(L))
add("once target", seed(DATA), open_, stream_send(L, add_query(1, query(), once=True)), stream_recv(L),
    commit(update("c/a", {"n": 7})), stream_recv(L), stream_close(L))
add("once document target", seed(DATA), open_, stream_send(L, add_docs(1, ["c/a"], once=True)), stream_recv(L), stream_close(L))
add("invalid query target", open_, stream_send(L, add_query(1, {"from": [{"collectionId": "c"}], "orderBy": [{"field": {"fieldPath": "a"}}, {"field": {"fieldPath": "a"}}]})),
    stream_recv(L), stream_close(L))
add("invalid target then valid", seed(DATA), open_, stream_send(L, add_query(1, query(where=field_filter("n", "IN", list(range(31)))))),
    stream_send(L, add_query(2, query())), stream_recv(L), stream_close(L))
add("resume token", seed(DATA), stream_open("A"), stream_send("A", add_query(1, query())),
    stream_recv("A", save={"token": "messages.-1.targetChange.resumeToken"}), stream_close("A"),
    commit(update("c/a", {"n": 8})),
    open_, stream_send(L, add_query(1, query(), resumeToken="${token}")), stream_recv(L), stream_close(L))
add("resume document token", seed(DATA), stream_open("A"), stream_send("A", add_docs(1, ["c/a"])),
    stream_recv("A", save={"token": "messages.-1.targetChange.resumeToken"}), stream_close("A"),
    commit(delete_write("c/a")),
    open_, stream_send(L, add_docs(1, ["c/a"], resumeToken="${token}")), stream_recv(L), stream_close(L))
add("read time target", seed(DATA), {"kind": "sleep", "seconds": 0.2},
    rpc("Commit", {"database": DB, "writes": [update("c/z", {"n": 3})]}, save={"t": "messages.0.commitTime"}),
    commit(update("c/a", {"n": 10})),
    open_, stream_send(L, add_query(1, query(), readTime="${t}")), stream_recv(L), stream_close(L))
add("expected count", seed(DATA), open_, stream_send(L, add_query(1, query(), expectedCount=5)), stream_recv(L), stream_close(L))
add("target without database", open_, stream_send(L, {"addTarget": {"targetId": 1, "query": {"parent": DOCS, "structuredQuery": query()}}}),
    stream_recv(L), stream_close(L))
add("collection group target", seed({"c/a": {"n": 1}, "x/y/c/b": {"n": 2}}), open_,
    stream_send(L, add_query(1, query(all_descendants=True))), stream_recv(L), stream_close(L))
add("limit target pushes out", seed({"c/a": {"n": 1}, "c/b": {"n": 2}, "c/c": {"n": 3}}), open_,
    stream_send(L, add_query(1, query(order=["n"], limit=2))), stream_recv(L), commit(update("c/z", {"n": 0})), stream_recv(L), stream_close(L))
add("rules denied target", {"kind": "http", "method": "PUT", "path": "/emulator/v1/projects/$P:securityRules",
                             "body": {"rules": {"files": [{"name": "firestore.rules", "content": "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /c/{id} {\n      allow read: if false;\n    }\n  }\n}\n"}]}}},
    stream_open(L, auth={"uid": "alice"}), stream_send(L, add_query(1, query())), stream_recv(L), stream_close(L))
add("batch of writes one snapshot", seed(DATA), open_, stream_send(L, add_query(1, query())), stream_recv(L),
    commit(update("c/p", {"n": 4}), update("c/q", {"n": 5}), delete_write("c/a")), stream_recv(L), stream_close(L))
add("without resource prefix", seed(DATA), stream_open(L, prefix=False), stream_send(L, add_query(1, query())), stream_recv(L), stream_close(L))
