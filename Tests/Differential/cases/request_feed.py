"""The Emulator UI's Requests feed (the WebSocket on `--websocket_port`): the rules evaluation
each request makes, as the feed sends it, for every kind of request over REST and gRPC, and
each outcome — allowed (alice), denied (bob), an evaluation error (no auth: `request.auth.uid`
of null) and the owner (`Bearer owner`, which bypasses the rules). Then the array a second
connection gets first. Needs a server started with a WebSocket port (differential.py --feed)."""
from cases.steps import (DB, OWNER, case, commit, delete_write, docs, get, http, name, query, rpc, rules, run_query,
                         seed, update)

FEED = True
CASES = []

RULES = ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
         "    match /c/{id} {\n      allow read, write: if request.auth.uid == 'alice';\n    }\n"
         "    match /open/{id} {\n      allow get;\n      allow list: if true;\n      allow create, update: if request.resource.data.n > 0;\n"
         "      allow delete: if resource.data.n == 1;\n    }\n"
         "    match /c/{id}/sub/{sub} {\n      allow read: if get(/databases/$(database)/documents/c/$(id)).data.n == 1;\n    }\n"
         "  }\n}\n")

WHO = {"alice": {"uid": "alice", "email": "alice@example.com"}, "bob": {"uid": "bob"}, "none": None, "owner": OWNER}


def feed(quiet=0.8):
    return {"kind": "feed", "quiet": quiet}


def feed_initial():
    return {"kind": "feed_initial"}


def add(label, *steps):
    CASES.append(case(f"feed {label}", rules(RULES), seed({"c/a": {"n": 1}, "c/b": {"n": 2}}), *steps, feed()))


DOCS = DB + "/documents"

REST = {
    "get": lambda a: get("c/a", auth=a),
    "get missing": lambda a: get("c/zz", auth=a),
    "list": lambda a: get("c", auth=a),
    "query": lambda a: run_query(query("c"), auth=a),
    "query where": lambda a: run_query(query("c", where={"fieldFilter": {"field": {"fieldPath": "n"}, "op": "EQUAL",
                                                                          "value": {"integerValue": "1"}}}), auth=a),
    "aggregation": lambda a: docs("POST", ":runAggregationQuery", {"structuredAggregationQuery": {
        "structuredQuery": query("c"), "aggregations": [{"alias": "n", "count": {}}]}}, auth=a),
    "batchGet": lambda a: docs("POST", ":batchGet", {"documents": [name("c/a"), name("c/zz")]}, auth=a),
    "create": lambda a: docs("POST", "/c?documentId=new", {"fields": {"n": {"integerValue": "3"}}}, auth=a),
    "update": lambda a: docs("PATCH", "/c/a?currentDocument.exists=true", {"fields": {"n": {"integerValue": "5"}}}, auth=a),
    "upsert": lambda a: docs("PATCH", "/c/a", {"fields": {"n": {"integerValue": "5"}}}, auth=a),
    "delete": lambda a: docs("DELETE", "/c/b", auth=a),
    "batch": lambda a: commit([update("c/a", {"n": 7}), delete_write("c/b"), update("c/new", {"n": 8})], auth=a),
    "batchWrite": lambda a: docs("POST", ":batchWrite", {"writes": [update("c/a", {"n": 7}), delete_write("c/b")]}, auth=a),
    "listCollectionIds": lambda a: docs("POST", "/c/a:listCollectionIds", {}, auth=a),
}

for what, make in REST.items():
    for who, auth in WHO.items():
        add(f"rest {what} {who}", make(auth))

for who, auth in WHO.items():
    add(f"rest transaction {who}",
        docs("POST", ":beginTransaction", {}, auth=auth, save={"tx": "transaction"}),
        docs("POST", ":batchGet", {"documents": [name("c/a")], "transaction": "${tx}"}, auth=auth),
        commit([update("c/a", {"n": 9})], transaction="${tx}", auth=auth))

GRPC = {
    "get": lambda a: rpc("GetDocument", {"name": name("c/a")}, auth=a),
    "list": lambda a: rpc("ListDocuments", {"parent": DOCS, "collectionId": "c"}, auth=a),
    "query": lambda a: rpc("RunQuery", {"parent": DOCS, "structuredQuery": query("c")}, auth=a),
    "aggregation": lambda a: rpc("RunAggregationQuery", {"parent": DOCS, "structuredAggregationQuery": {
        "structuredQuery": query("c"), "aggregations": [{"alias": "n", "count": {}}]}}, auth=a),
    "batchGet": lambda a: rpc("BatchGetDocuments", {"database": DB, "documents": [name("c/a"), name("c/zz")]}, auth=a),
    "create": lambda a: rpc("CreateDocument", {"parent": DOCS, "collectionId": "c", "documentId": "new",
                                                "document": {"fields": {"n": {"integerValue": "3"}}}}, auth=a),
    "update": lambda a: rpc("UpdateDocument", {"document": {"name": name("c/a"), "fields": {"n": {"integerValue": "5"}}},
                                                "currentDocument": {"exists": True}}, auth=a),
    "delete": lambda a: rpc("DeleteDocument", {"name": name("c/b")}, auth=a),
    "batch": lambda a: rpc("Commit", {"database": DB, "writes": [update("c/a", {"n": 7}), delete_write("c/b")]}, auth=a),
}

for what, make in GRPC.items():
    for who, auth in WHO.items():
        add(f"grpc {what} {who}", make(auth))

for who, auth in WHO.items():
    add(f"grpc transaction {who}",
        rpc("BeginTransaction", {"database": DB}, auth=auth, save={"tx": "messages.0.transaction"}),
        rpc("GetDocument", {"name": name("c/a"), "transaction": "${tx}"}, auth=auth),
        rpc("Commit", {"database": DB, "writes": [update("c/a", {"n": 9})], "transaction": "${tx}"}, auth=auth))

# Rules that read other documents, resource and request.resource, and a collection group.
add("rest get() in rules", get("c/a/sub/x", auth=WHO["bob"]), get("c/b/sub/x", auth=WHO["bob"]))
add("rest create checks request.resource",
    docs("POST", "/open?documentId=x", {"fields": {"n": {"integerValue": "1"}, "s": {"stringValue": "t"}}}, auth=WHO["bob"]),
    docs("POST", "/open?documentId=y", {"fields": {"n": {"integerValue": "0"}}}, auth=WHO["bob"]))
add("rest delete checks resource", seed({"open/x": {"n": 1}, "open/y": {"n": 2}}),
    docs("DELETE", "/open/x", auth=WHO["bob"]), docs("DELETE", "/open/y", auth=WHO["bob"]))
add("rest values in request.resource", docs("POST", "/open?documentId=v", {"fields": {
    "n": {"integerValue": "1"}, "d": {"doubleValue": 1.5}, "b": {"booleanValue": True}, "z": {"nullValue": None},
    "t": {"timestampValue": "2024-01-02T03:04:05.123456Z"}, "g": {"geoPointValue": {"latitude": 1.5, "longitude": -2}},
    "y": {"bytesValue": "AAE="}, "r": {"referenceValue": name("c/a")},
    "a": {"arrayValue": {"values": [{"integerValue": "1"}, {"stringValue": "x"}]}},
    "m": {"mapValue": {"fields": {"k": {"stringValue": "v"}}}}}}, auth=WHO["alice"]))
add("rest collection group", run_query(query("sub", all_descendants=True), auth=WHO["alice"]))
add("rest no matching rule", get("nowhere/x", auth=WHO["alice"]))

# The array a second connection gets first.
CASES.append(case("feed initial array", rules(RULES), seed({"c/a": {"n": 1}}), get("c/a", auth=WHO["alice"]),
                  get("c/a", auth=WHO["bob"]), get("c/a"), get("c/a", auth=OWNER), feed(), feed_initial()))
CASES.append(case("feed initial array without rules", get("c/a", auth=WHO["alice"]), feed(), feed_initial()))
