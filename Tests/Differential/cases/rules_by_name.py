"""List queries constrained by the document name (`__name__ ==` or `in`, `documentId()` in the
SDKs) under per-document rules: the official emulator binds the document wildcard from the
named documents and evaluates the rule for each, so `where(documentId(), '==', 'alice')` is
allowed as alice under `allow read: if request.auth.uid == uid`. Variants: `in` with some
names allowed and some not, other filters alongside, `resource.data` conditions, collection
groups, aggregations, ranges and not-in on the name, `get`-only and `list`-only rules."""
from cases.steps import (case, composite, docs, field_filter, name, query, rules, run_query, seed, OWNER)

CASES = []
ALICE = {"uid": "alice"}


def ruleset(body):
    return ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
            + body + "\n  }\n}\n")


def name_filter(op, *paths):
    if op in ("IN", "NOT_IN"):
        value = {"arrayValue": {"values": [{"referenceValue": name(p)} for p in paths]}}
    else:
        value = {"referenceValue": name(paths[0])}
    return {"fieldFilter": {"field": {"fieldPath": "__name__"}, "op": op, "value": value}}


UID = "    match /priv/{uid} {\n      allow read: if request.auth.uid == uid;\n    }"
UID_GET = "    match /priv/{uid} {\n      allow get: if request.auth.uid == uid;\n    }"
UID_LIST = "    match /priv/{uid} {\n      allow list: if request.auth.uid == uid;\n    }"
UID_DATA = "    match /priv/{uid} {\n      allow read: if request.auth.uid == uid && resource.data.visible == true;\n    }"
UID_DEBUG = "    match /priv/{uid} {\n      allow read: if debug(uid) == request.auth.uid && debug(resource) != 0;\n    }"
UID_GROUP = "    match /{path=**}/priv/{uid} {\n      allow read: if request.auth.uid == uid;\n    }"
UID_LIMIT = "    match /priv/{uid} {\n      allow read: if request.auth.uid == uid && request.query.limit <= 5;\n    }"
DATA = {"priv/alice": {"visible": True, "n": 1}, "priv/bob": {"visible": True, "n": 2}, "priv/carol": {"visible": False, "n": 3}}


def add(label, body, *steps):
    CASES.append(case(f"rules by name {label}", rules(ruleset(body)), seed(DATA), *steps))


def q(where=None, **kw):
    return query("priv", where=where, **kw)


add("equal own", UID, run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE))
add("equal other", UID, run_query(q(name_filter("EQUAL", "priv/bob")), auth=ALICE))
add("equal own signed out", UID, run_query(q(name_filter("EQUAL", "priv/alice"))))
add("equal missing own", UID, run_query(q(name_filter("EQUAL", "priv/zed")), auth={"uid": "zed"}))
add("in own", UID, run_query(q(name_filter("IN", "priv/alice")), auth=ALICE))
add("in own and other", UID, run_query(q(name_filter("IN", "priv/alice", "priv/bob")), auth=ALICE))
add("in own twice", UID, run_query(q(name_filter("IN", "priv/alice", "priv/alice")), auth=ALICE))
add("not in", UID, run_query(q(name_filter("NOT_IN", "priv/bob")), auth=ALICE))
add("not equal", UID, run_query(q(name_filter("NOT_EQUAL", "priv/bob")), auth=ALICE))
add("range", UID, run_query(q(name_filter("GREATER_THAN_OR_EQUAL", "priv/alice")), auth=ALICE))
add("range both ends", UID, run_query(q(composite("AND", name_filter("GREATER_THAN_OR_EQUAL", "priv/alice"),
                                                 name_filter("LESS_THAN_OR_EQUAL", "priv/alice"))), auth=ALICE))
add("equal and field filter", UID, run_query(q(composite("AND", name_filter("EQUAL", "priv/alice"), field_filter("n", "EQUAL", 1))), auth=ALICE))
add("equal and field filter no match", UID, run_query(q(composite("AND", name_filter("EQUAL", "priv/alice"), field_filter("n", "EQUAL", 2))), auth=ALICE))
add("equal and order limit", UID, run_query(q(name_filter("EQUAL", "priv/alice"), order=["n"], limit=1), auth=ALICE))
add("or own and other", UID, run_query(q(composite("OR", name_filter("EQUAL", "priv/alice"), name_filter("EQUAL", "priv/bob"))), auth=ALICE))
add("or own twice", UID, run_query(q(composite("OR", name_filter("EQUAL", "priv/alice"), field_filter("n", "EQUAL", 1))), auth=ALICE))
add("two equalities", UID, run_query(q(composite("AND", name_filter("EQUAL", "priv/alice"), name_filter("EQUAL", "priv/alice"))), auth=ALICE))
add("equal and in", UID, run_query(q(composite("AND", name_filter("EQUAL", "priv/alice"), name_filter("IN", "priv/alice", "priv/bob"))), auth=ALICE))
add("other collection name", UID, run_query(q(name_filter("EQUAL", "other/alice")), auth=ALICE))
add("deeper name", UID, run_query(q(name_filter("EQUAL", "priv/alice/sub/x")), auth=ALICE))
add("get rule only", UID_GET, run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE))
add("list rule only", UID_LIST, run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE))
add("resource data visible", UID_DATA, run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE))
add("resource data hidden", UID_DATA, run_query(q(name_filter("EQUAL", "priv/carol")), auth={"uid": "carol"}))
add("resource data missing", UID_DATA, run_query(q(name_filter("EQUAL", "priv/zed")), auth={"uid": "zed"}))
add("resource data with filter", UID_DATA, run_query(q(composite("AND", name_filter("EQUAL", "priv/alice"), field_filter("visible", "EQUAL", True))), auth=ALICE))
add("debug bindings", UID_DEBUG, run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE, debug=True))
add("debug bindings in", UID_DEBUG, run_query(q(name_filter("IN", "priv/alice", "priv/zed")), auth=ALICE, debug=True))
add("query limit", UID_LIMIT, run_query(q(name_filter("EQUAL", "priv/alice"), limit=3), auth=ALICE))
add("query without limit", UID_LIMIT, run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE))
add("group equal own", UID_GROUP, run_query(query("priv", where=name_filter("EQUAL", "priv/alice"), all_descendants=True), auth=ALICE))
add("group equal other", UID_GROUP, run_query(query("priv", where=name_filter("EQUAL", "priv/bob"), all_descendants=True), auth=ALICE))
add("group nested own", UID_GROUP, seed({"x/y/priv/alice": {"n": 4}}),
    run_query(query("priv", where=name_filter("EQUAL", "x/y/priv/alice"), all_descendants=True), auth=ALICE))
add("group rule plain query", UID_GROUP, run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE))
add("aggregation equal own", UID, docs("POST", ":runAggregationQuery", {"structuredAggregationQuery": {
    "structuredQuery": q(name_filter("EQUAL", "priv/alice")), "aggregations": [{"alias": "n", "count": {}}]}}, auth=ALICE))
add("aggregation equal other", UID, docs("POST", ":runAggregationQuery", {"structuredAggregationQuery": {
    "structuredQuery": q(name_filter("EQUAL", "priv/bob")), "aggregations": [{"alias": "n", "count": {}}]}}, auth=ALICE))
add("subcollection parent", "    match /u/{uid}/items/{item} {\n      allow read: if request.auth.uid == uid && item == 'a';\n    }",
    seed({"u/alice/items/a": {"n": 1}, "u/alice/items/b": {"n": 2}}),
    docs("POST", "/u/alice:runQuery", {"structuredQuery": query("items", where=name_filter("EQUAL", "u/alice/items/a"))}, auth=ALICE),
    docs("POST", "/u/alice:runQuery", {"structuredQuery": query("items", where=name_filter("EQUAL", "u/alice/items/b"))}, auth=ALICE),
    docs("POST", "/u/alice:runQuery", {"structuredQuery": query("items")}, auth=ALICE))
add("document wildcard ignored by rule", "    match /priv/{uid} {\n      allow list: if request.auth != null;\n    }",
    run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE))
add("wildcard compared to data", "    match /priv/{uid} {\n      allow read: if resource.data.n == 1 && uid == 'alice';\n    }",
    run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE),
    run_query(q(composite("AND", name_filter("EQUAL", "priv/alice"), field_filter("n", "EQUAL", 1))), auth=ALICE))
# debug() shows which bindings each evaluation saw, and in which order.
TRACE = "    match /priv/{uid} {\n      allow read: if debug(uid) == debug(request.auth.uid);\n    }"
TRACE_DATA = "    match /priv/{uid} {\n      allow read: if debug(uid) == request.auth.uid && debug(resource.data.n) > 0;\n    }"
for label, where in [("equal own", name_filter("EQUAL", "priv/alice")), ("equal other", name_filter("EQUAL", "priv/bob")),
                     ("in own and other", name_filter("IN", "priv/alice", "priv/bob")),
                     ("in other and own", name_filter("IN", "priv/bob", "priv/alice")),
                     ("in three", name_filter("IN", "priv/alice", "priv/bob", "priv/carol")),
                     ("or own and field", composite("OR", name_filter("EQUAL", "priv/alice"), field_filter("n", "EQUAL", 1))),
                     ("or field and own", composite("OR", field_filter("n", "EQUAL", 1), name_filter("EQUAL", "priv/alice"))),
                     ("no filter", None), ("field filter", field_filter("n", "EQUAL", 1)),
                     ("range", name_filter("GREATER_THAN", "priv/alice"))]:
    add(f"trace {label}", TRACE, run_query(q(where), auth=ALICE, debug=True))
    add(f"trace data {label}", TRACE_DATA, run_query(q(where), auth=ALICE, debug=True))
add("trace signed out", TRACE, run_query(q(name_filter("EQUAL", "priv/alice")), debug=True))
add("trace data signed out", TRACE_DATA, run_query(q(name_filter("EQUAL", "priv/alice")), debug=True))
add("trace data in missing", TRACE_DATA, run_query(q(name_filter("IN", "priv/alice", "priv/zed")), auth=ALICE, debug=True))
add("resource data hidden with filter", UID_DATA, run_query(q(composite("AND", name_filter("EQUAL", "priv/carol"), field_filter("visible", "EQUAL", True))),
                                                            auth={"uid": "carol"}))
add("trace data equal own with filter", TRACE_DATA, run_query(q(composite("AND", name_filter("EQUAL", "priv/alice"), field_filter("n", "EQUAL", 1))),
                                                                auth=ALICE, debug=True))
add("resource id", "    match /priv/{uid} {\n      allow read: if debug(resource.id) == uid;\n    }", run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE, debug=True))
add("two allows", "    match /priv/{uid} {\n      allow list: if resource.data.n == 5;\n      allow list: if uid == 'alice';\n    }",
    run_query(q(name_filter("EQUAL", "priv/alice")), auth=ALICE), run_query(q(name_filter("IN", "priv/alice", "priv/bob")), auth=ALICE))
add("in both error then data", UID_DATA, run_query(q(name_filter("IN", "priv/alice", "priv/carol")), auth=ALICE))
