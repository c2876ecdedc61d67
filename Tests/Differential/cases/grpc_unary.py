"""Every unary and server-streaming RPC over gRPC, with the official client's messages: reads,
writes, commits, transactions, queries, aggregations, listings, batch writes, partitions,
their errors, metadata (auth) and gzip-compressed requests."""
from cases.steps import DB, OWNER, case, composite, field_filter, grpc_doc, name, query, rpc, to_fields, to_value, update

CASES = []


def add(label, *steps):
    CASES.append(case(f"grpc {label}", *steps))


DOCS = DB + "/documents"
A = {"a": 1, "b": {"c": "x"}, "d": [1, 2.5], "e": None, "t": {"timestampValue": "2024-01-02T03:04:05.123456Z"}}


def seed(docs):
    return rpc("Commit", {"database": DB, "writes": [update(p, f) for p, f in docs.items()]})


def commit(writes, **kw):
    return rpc("Commit", {"database": DB, "writes": writes, **({"transaction": kw.pop("transaction")} if "transaction" in kw else {})}, **kw)


def begin(options=None, save="tx"):
    body = {"database": DB}
    if options is not None:
        body["options"] = options
    return rpc("BeginTransaction", body, save={save: "messages.0.transaction"})


# GetDocument
add("get existing", seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a")}))
add("get missing", rpc("GetDocument", {"name": name("c/zz")}))
add("get mask", seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a"), "mask": {"fieldPaths": ["a", "b.c"]}}))
add("get collection name", rpc("GetDocument", {"name": DOCS + "/c"}))
add("get relative name", rpc("GetDocument", {"name": "c/a"}))
add("get empty request", rpc("GetDocument", {}))
add("get read time", seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a"), "readTime": "2001-01-01T00:00:00Z"}))
add("get in transaction", seed({"c/a": A}), begin(), rpc("GetDocument", {"name": name("c/a"), "transaction": "${tx}"}))
add("get unknown transaction", seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a"), "transaction": "AAAAAAAA"}))
add("get nanosecond timestamp", rpc("Commit", {"database": DB, "writes": [{"update": {"name": name("c/a"), "fields": {"t": {"timestampValue": "2024-01-02T03:04:05.123456789Z"}}}}]}),
    rpc("GetDocument", {"name": name("c/a")}))
add("get without auth", seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a")}, auth=None))
add("get with user token", seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a")}, auth={"uid": "alice"}))
add("get gzip request", seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a")}, compression="gzip"))
add("commit gzip request", rpc("Commit", {"database": DB, "writes": [update("c/a", {"x": "y" * 3000})]}, compression="gzip"),
    rpc("GetDocument", {"name": name("c/a")}, compression="gzip"))
add("query gzip request", seed({"c/a": A}), rpc("RunQuery", {"parent": DOCS, "structuredQuery": query()}, compression="gzip"))

# CreateDocument / UpdateDocument / DeleteDocument
add("create", rpc("CreateDocument", {"parent": DOCS, "collectionId": "c", "documentId": "a", "document": {"fields": to_fields({"x": 1})}}))
add("create existing", seed({"c/a": A}), rpc("CreateDocument", {"parent": DOCS, "collectionId": "c", "documentId": "a", "document": {}}))
add("create named document", rpc("CreateDocument", {"parent": DOCS, "collectionId": "c", "documentId": "a", "document": {"name": name("c/a")}}))
add("create bad id", rpc("CreateDocument", {"parent": DOCS, "collectionId": "c", "documentId": "a/b", "document": {}}))
add("create reserved collection", rpc("CreateDocument", {"parent": DOCS, "collectionId": "__c__", "documentId": "a", "document": {}}))
add("create mask", rpc("CreateDocument", {"parent": DOCS, "collectionId": "c", "documentId": "a", "document": {"fields": to_fields({"x": 1, "y": 2})},
                                          "mask": {"fieldPaths": ["y"]}}))
add("update upsert", rpc("UpdateDocument", {"document": grpc_doc("c/a", {"x": 1})}), rpc("GetDocument", {"name": name("c/a")}))
add("update mask", seed({"c/a": A}), rpc("UpdateDocument", {"document": grpc_doc("c/a", {"a": 5}), "updateMask": {"fieldPaths": ["a", "e"]}}),
    rpc("GetDocument", {"name": name("c/a")}))
add("update exists precondition", rpc("UpdateDocument", {"document": grpc_doc("c/a", {"x": 1}), "currentDocument": {"exists": True}}))
add("update stale update time", seed({"c/a": A}), rpc("UpdateDocument", {"document": grpc_doc("c/a", {"x": 1}), "currentDocument": {"updateTime": "2001-01-01T00:00:00Z"}}))
add("update no name", rpc("UpdateDocument", {"document": {"fields": {}}}))
add("update reserved field", rpc("UpdateDocument", {"document": grpc_doc("c/a", {"__x__": 1})}))
add("delete", seed({"c/a": A}), rpc("DeleteDocument", {"name": name("c/a")}), rpc("GetDocument", {"name": name("c/a")}))
add("delete missing", rpc("DeleteDocument", {"name": name("c/a")}))
add("delete exists precondition", rpc("DeleteDocument", {"name": name("c/a"), "currentDocument": {"exists": True}}))

# Commit
add("commit empty", rpc("Commit", {"database": DB}))
add("commit two writes", commit([update("c/a", {"x": 1}), update("c/b", {"y": 2})]))
add("commit same document twice", commit([update("c/a", {"x": 1}), update("c/a", {"y": 2})]), rpc("GetDocument", {"name": name("c/a")}))
add("commit create twice", commit([update("c/a", {"x": 1}, exists=False), update("c/a", {"y": 2}, exists=False)]))
add("commit transforms", seed({"c/a": {"n": 1, "l": [1]}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"integerValue": "2"}},
                                                  {"fieldPath": "l", "appendMissingElements": {"values": [to_value(2)]}},
                                                  {"fieldPath": "m", "maximum": to_value(3)}])]),
    rpc("GetDocument", {"name": name("c/a")}))
add("commit no operation", commit([{"currentDocument": {"exists": True}}]))
add("commit other database", commit([{"update": {"name": "projects/$P/databases/other/documents/c/a", "fields": {}}}]))
add("commit database mismatch", rpc("Commit", {"database": "projects/other/databases/(default)", "writes": [update("c/a", {"x": 1})]}))
add("commit no database", rpc("Commit", {"writes": [update("c/a", {"x": 1})]}))
add("commit string over limit", commit([{"update": {"name": name("c/a"), "fields": {"s": {"stringValue": "x" * 1048488}}}}]))
add("commit document over limit", commit([{"update": {"name": name("c/a"), "fields": {"s": {"stringValue": "x" * 600000}, "t": {"stringValue": "y" * 600000}}}}]))
add("commit vector of ints", commit([{"update": {"name": name("c/a"), "fields": {"v": {"mapValue": {"fields": {
    "__type__": {"stringValue": "__vector__"}, "value": {"arrayValue": {"values": [{"integerValue": "1"}]}}}}}}}}]))
add("commit nested arrays", commit([{"update": {"name": name("c/a"), "fields": {"v": {"arrayValue": {"values": [{"arrayValue": {}}]}}}}}]))
add("commit empty value", commit([{"update": {"name": name("c/a"), "fields": {"v": {}}}}]))
add("commit 501 writes", commit([update(f"c/d{i}", {"i": i}) for i in range(501)]))

# Transactions
add("tx begin default", begin())
add("tx begin read-only", begin({"readOnly": {}}))
add("tx begin read-only old time", begin({"readOnly": {"readTime": "2001-01-01T00:00:00Z"}}))
add("tx commit", begin(), commit([update("c/a", {"x": 1})], transaction="${tx}"))
add("tx commit twice", begin(), commit([], transaction="${tx}"), commit([], transaction="${tx}"))
add("tx rollback", begin(), rpc("Rollback", {"database": DB, "transaction": "${tx}"}), rpc("Rollback", {"database": DB, "transaction": "${tx}"}))
add("tx rollback unknown", rpc("Rollback", {"database": DB, "transaction": "AAAAAAAA"}))
add("tx rollback empty", rpc("Rollback", {"database": DB}))
add("tx write in read-only", begin({"readOnly": {}}), commit([update("c/a", {"x": 1})], transaction="${tx}"))
add("tx read then write", seed({"c/a": {"n": 1}}), begin(), rpc("GetDocument", {"name": name("c/a"), "transaction": "${tx}"}),
    commit([update("c/a", {"n": 2})], transaction="${tx}"), rpc("GetDocument", {"name": name("c/a")}))
add("tx update missing", begin(), commit([update("c/a", {"x": 1}, exists=True)], transaction="${tx}"))
add("tx create existing", seed({"c/a": {"n": 1}}), begin(), commit([update("c/a", {"x": 1}, exists=False)], transaction="${tx}"))
add("tx batchGet new transaction", seed({"c/a": {"n": 1}}), rpc("BatchGetDocuments", {"database": DB, "documents": [name("c/a"), name("c/zz")],
                                                                                   "newTransaction": {}}))
add("tx query new transaction empty", rpc("RunQuery", {"parent": DOCS, "structuredQuery": query(), "newTransaction": {"readWrite": {}}},
                                          save={"tx": "messages.0.transaction"}),
    commit([update("c/b", {"y": 1})], transaction="${tx}"))
add("tx aggregation in transaction", seed({"c/a": {"n": 1}}), begin(),
    rpc("RunAggregationQuery", {"parent": DOCS, "structuredAggregationQuery": {"structuredQuery": query(), "aggregations": [{"alias": "n", "count": {}}]},
                                "transaction": "${tx}"}))

# BatchGetDocuments
add("batchGet found and missing", seed({"c/a": A, "c/b": A}), rpc("BatchGetDocuments", {"database": DB, "documents": [name("c/zz"), name("c/b"), name("c/a")]}))
add("batchGet duplicates", seed({"c/a": A}), rpc("BatchGetDocuments", {"database": DB, "documents": [name("c/a"), name("c/a")]}))
add("batchGet mask", seed({"c/a": A}), rpc("BatchGetDocuments", {"database": DB, "documents": [name("c/a")], "mask": {"fieldPaths": ["a"]}}))
add("batchGet empty", rpc("BatchGetDocuments", {"database": DB}))
add("batchGet other database", rpc("BatchGetDocuments", {"database": DB, "documents": ["projects/$P/databases/other/documents/c/a"]}))

# RunQuery / RunAggregationQuery
DATA = {"c/a": {"n": 1, "s": "x"}, "c/b": {"n": 2, "s": "y"}, "c/c": {"n": 3, "s": "x"}, "c/a/c/d": {"n": 4}}
def RQ(q, auth=OWNER, **kw):
    return rpc("RunQuery", {"parent": DOCS, "structuredQuery": q, **kw}, auth=auth)
add("query all", seed(DATA), RQ(query()))
add("query filter order limit", seed(DATA), RQ(query(where=field_filter("s", "EQUAL", "x"), order=[("n", "DESCENDING")], limit=1)))
add("query offset", seed(DATA), RQ(query(order=["n"], offset=1)))
add("query cursor", seed(DATA), RQ(query(order=["n"], start={"values": [to_value(2)], "before": True})))
add("query group", seed(DATA), RQ(query(all_descendants=True)))
add("query or", seed(DATA), RQ(query(where=composite("OR", field_filter("n", "EQUAL", 1), field_filter("n", "EQUAL", 3)))))
add("query not-in", seed(DATA), RQ(query(where=field_filter("n", "NOT_IN", [1, 2]))))
add("query select", seed(DATA), RQ(query(select=["s"])))
add("query under document", seed(DATA), rpc("RunQuery", {"parent": DOCS + "/c/a", "structuredQuery": query()}))
add("query no from", seed(DATA), RQ({}))
add("query too many disjunctions", RQ(query(where=field_filter("n", "IN", list(range(31))))))
add("query negative limit", RQ({"from": [{"collectionId": "c"}], "limit": -1}))
add("query cursor too long", RQ(query(order=["n"], start={"values": [to_value(1), to_value(2)]})))
add("query read time", seed(DATA), RQ(query(), readTime="2001-01-01T00:00:00Z"))
add("query new transaction", seed(DATA), RQ(query(limit=1), newTransaction={}))
add("query explain", seed(DATA), RQ(query(), explainOptions={"analyze": True}))
add("query 101 order-bys", RQ(query(order=[f"f{i}" for i in range(101)])))
AQ = lambda aggs, q=None, **kw: rpc("RunAggregationQuery", {"parent": DOCS, "structuredAggregationQuery": {"structuredQuery": q or query(), "aggregations": aggs}, **kw})  # noqa: E731
add("aggregate count sum avg", seed(DATA), AQ([{"alias": "c", "count": {}}, {"alias": "s", "sum": {"field": {"fieldPath": "n"}}},
                                               {"alias": "a", "avg": {"field": {"fieldPath": "n"}}}]))
add("aggregate empty", AQ([{"alias": "c", "count": {}}, {"alias": "s", "sum": {"field": {"fieldPath": "n"}}}, {"alias": "a", "avg": {"field": {"fieldPath": "n"}}}]))
add("aggregate up to", seed(DATA), AQ([{"alias": "c", "count": {"upTo": "1"}}]))
add("aggregate none", AQ([]))
add("aggregate duplicate alias", AQ([{"alias": "c", "count": {}}, {"alias": "c", "count": {}}]))

# ListDocuments / ListCollectionIds / BatchWrite / PartitionQuery
add("list documents", seed(DATA), rpc("ListDocuments", {"parent": DOCS, "collectionId": "c"}))
add("list documents page", seed(DATA), rpc("ListDocuments", {"parent": DOCS, "collectionId": "c", "pageSize": 2}, save={"tok": "messages.0.nextPageToken"}),
    rpc("ListDocuments", {"parent": DOCS, "collectionId": "c", "pageSize": 2, "pageToken": "${tok}"}))
add("list documents show missing", seed({"c/a/s/x": {"n": 1}}), rpc("ListDocuments", {"parent": DOCS, "collectionId": "c", "showMissing": True}))
add("list documents order", seed(DATA), rpc("ListDocuments", {"parent": DOCS, "collectionId": "c", "orderBy": "n desc"}))
add("list documents mask", seed(DATA), rpc("ListDocuments", {"parent": DOCS, "collectionId": "c", "mask": {"fieldPaths": ["n"]}}))
add("list collection ids", seed({"b/x": {}, "a/x": {}, "a/x/s/y": {}}), rpc("ListCollectionIds", {"parent": DOCS}))
add("list collection ids under document", seed({"a/x/s/y": {}, "a/x/t/y": {}}), rpc("ListCollectionIds", {"parent": DOCS + "/a/x"}))
add("list collection ids without owner", seed({"a/x": {}}), rpc("ListCollectionIds", {"parent": DOCS}, auth=None))
add("batch write", seed({"c/b": A}), rpc("BatchWrite", {"database": DB, "writes": [update("c/a", {"x": 1}), update("c/b", {"y": 1}, exists=False)]}))
add("batch write same document", rpc("BatchWrite", {"database": DB, "writes": [update("c/a", {"x": 1}), update("c/a", {"y": 1})]}))
add("batch write without owner", rpc("BatchWrite", {"database": DB, "writes": [update("c/a", {"x": 1})]}, auth=None))
add("partition query", seed(DATA), rpc("PartitionQuery", {"parent": DOCS, "structuredQuery": query(all_descendants=True, order=["__name__"]),
                                                          "partitionCount": "2"}))

# Rules over gRPC
RULES = ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /c/{id} {\n"
         "      allow read: if request.auth.uid == 'alice';\n      allow write: if request.resource.data.owner == request.auth.uid;\n    }\n  }\n}\n")


def load_rules():
    return {"kind": "http", "method": "PUT", "path": "/emulator/v1/projects/$P:securityRules",
            "body": {"rules": {"files": [{"name": "firestore.rules", "content": RULES}]}}}


add("rules get allowed", load_rules(), seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a")}, auth={"uid": "alice"}))
add("rules get denied", load_rules(), seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a")}, auth={"uid": "bob"}))
add("rules commit denied", load_rules(), commit([update("c/a", {"owner": "bob"})], auth={"uid": "alice"}))
add("rules query denied", load_rules(), seed({"c/a": A}), RQ(query(), auth=None))

# Method routing
add("unknown method", {"kind": "grpc", "method": "GetDocument", "request": {"name": name("c/a")}, "metadata": {"authorization": "Bearer owner"},
                       "path": "/google.firestore.v1.Firestore/Nope"})
add("get without resource prefix", seed({"c/a": A}), rpc("GetDocument", {"name": name("c/a")}, prefix=False))
add("commit without resource prefix", rpc("Commit", {"database": DB, "writes": [update("c/a", {"x": 1})]}, prefix=False))


add("tx retry rolled back", begin(), rpc("Rollback", {"database": DB, "transaction": "${tx}"}),
    begin({"readWrite": {"retryTransaction": "${tx}"}}, save="tx2"))
add("tx retry never issued", begin({"readWrite": {"retryTransaction": "AAAAAAAA"}}))
