"""Drives `hearth serve` (or the official emulator) with google-cloud-firestore's GAPIC
FirestoreClient over its REST transport and checks every answer. Exits non-zero on the
first mismatch. Usage: rest_client_check.py HOST:PORT"""
import base64
import datetime
import json
import sys
import urllib.request

from google.auth.credentials import AnonymousCredentials
from google.cloud.firestore_v1.services.firestore import FirestoreClient
from google.cloud.firestore_v1.services.firestore.transports.rest import FirestoreRestTransport
from google.cloud.firestore_v1.types import (
    aggregation_result, common, document, firestore, query, write)
from google.protobuf import wrappers_pb2

HOST = sys.argv[1]
PROJECT = "demo-compat"
DB = f"projects/{PROJECT}/databases/(default)"
ROOT = f"{DB}/documents"
ADMIN = [("authorization", "Bearer owner")]
failures = []


def check(label, actual, expected):
    if actual != expected:
        failures.append(f"{label}: expected {expected!r}, got {actual!r}")
        print(f"FAIL {label}: expected {expected!r}, got {actual!r}")
    else:
        print(f"ok   {label}")


def http(method, path, body=None):
    req = urllib.request.Request(f"http://{HOST}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


client = FirestoreClient(transport=FirestoreRestTransport(
    host=HOST, credentials=AnonymousCredentials(), url_scheme="http"))

status, _ = http("DELETE", f"/emulator/v1/projects/{PROJECT}/databases/(default)/documents")
check("clear database", status, 200)

# CRUD (createDocument's REST binding needs a parent below the root: the root document is
# created by a commit with an exists=false precondition, the subcollection one below).
ALICE = {
    "name": document.Value(string_value="Alice"),
    "age": document.Value(integer_value=-9007199254740993),
    "score": document.Value(double_value=1.5),
    "tags": document.Value(array_value=document.ArrayValue(values=[document.Value(string_value="a")])),
    "raw": document.Value(bytes_value=b"\x00\xff\xfe"),
    "when": document.Value(timestamp_value=datetime.datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=datetime.timezone.utc)),
}
client.commit(request=firestore.CommitRequest(database=DB, writes=[write.Write(
    update=document.Document(name=f"{ROOT}/users/alice", fields=ALICE),
    current_document=common.Precondition(exists=False))]), metadata=ADMIN)
created = client.create_document(request=firestore.CreateDocumentRequest(
    parent=f"{ROOT}/users/alice", collection_id="posts", document_id="p1",
    document=document.Document(fields={"title": document.Value(string_value="hi")})), metadata=ADMIN)
check("create name", created.name, f"{ROOT}/users/alice/posts/p1")
got = client.get_document(request=firestore.GetDocumentRequest(name=f"{ROOT}/users/alice"), metadata=ADMIN)
check("get int64", got.fields["age"].integer_value, -9007199254740993)
check("get double", got.fields["score"].double_value, 1.5)
check("get bytes", got.fields["raw"].bytes_value, b"\x00\xff\xfe")
check("get timestamp", got.fields["when"].timestamp_value.isoformat(), "2024-01-02T03:04:05.006000+00:00")
masked = client.get_document(request=firestore.GetDocumentRequest(
    name=f"{ROOT}/users/alice", mask=common.DocumentMask(field_paths=["name"])), metadata=ADMIN)
check("get mask", sorted(masked.fields.keys()), ["name"])
updated = client.update_document(request=firestore.UpdateDocumentRequest(
    document=document.Document(name=f"{ROOT}/users/alice", fields={"name": document.Value(string_value="Al")}),
    update_mask=common.DocumentMask(field_paths=["name", "score"]),
    current_document=common.Precondition(exists=True)), metadata=ADMIN)
check("patch sets masked field", updated.fields["name"].string_value, "Al")
check("patch deletes absent masked field", "score" in updated.fields, False)
try:
    client.update_document(request=firestore.UpdateDocumentRequest(
        document=document.Document(name=f"{ROOT}/users/nobody"),
        update_mask=common.DocumentMask(field_paths=["x"]),
        current_document=common.Precondition(exists=True)), metadata=ADMIN)
    check("patch missing with exists=true", "no error", "NotFound")
except Exception as e:  # google.api_core.exceptions.NotFound
    check("patch missing with exists=true", type(e).__name__, "NotFound")

# Batch writes and commits with transforms
bw = client.batch_write(request=firestore.BatchWriteRequest(database=DB, writes=[
    write.Write(update=document.Document(name=f"{ROOT}/nums/n{i}", fields={"v": document.Value(integer_value=i)}))
    for i in range(1, 6)]), metadata=ADMIN)
check("batchWrite statuses", [s.code for s in bw.status], [0] * 5)
commit = client.commit(request=firestore.CommitRequest(database=DB, writes=[write.Write(
    update=document.Document(name=f"{ROOT}/users/bob", fields={"n": document.Value(integer_value=1)}),
    update_transforms=[
        write.DocumentTransform.FieldTransform(field_path="n", increment=document.Value(integer_value=41)),
        write.DocumentTransform.FieldTransform(field_path="at", set_to_server_value=write.DocumentTransform.FieldTransform.ServerValue.REQUEST_TIME),
    ])]), metadata=ADMIN)
check("commit transform result", commit.write_results[0].transform_results[0].integer_value, 42)
check("commit server timestamp == commit time",
      commit.write_results[0].transform_results[1].timestamp_value, commit.commit_time)

# Queries
def run(q, **kw):
    return [r for r in client.run_query(request=firestore.RunQueryRequest(parent=ROOT, structured_query=q, **kw), metadata=ADMIN)]

rows = run(query.StructuredQuery(
    from_=[query.StructuredQuery.CollectionSelector(collection_id="nums")],
    where=query.StructuredQuery.Filter(field_filter=query.StructuredQuery.FieldFilter(
        field=query.StructuredQuery.FieldReference(field_path="v"),
        op=query.StructuredQuery.FieldFilter.Operator.GREATER_THAN, value=document.Value(integer_value=2))),
    order_by=[query.StructuredQuery.Order(field=query.StructuredQuery.FieldReference(field_path="v"),
                                          direction=query.StructuredQuery.Direction.DESCENDING)],
    limit=wrappers_pb2.Int32Value(value=2)))
check("runQuery results", [r.document.fields["v"].integer_value for r in rows if r.document.name], [5, 4])
rows = run(query.StructuredQuery(
    from_=[query.StructuredQuery.CollectionSelector(collection_id="nums")],
    where=query.StructuredQuery.Filter(composite_filter=query.StructuredQuery.CompositeFilter(
        op=query.StructuredQuery.CompositeFilter.Operator.OR, filters=[
            query.StructuredQuery.Filter(field_filter=query.StructuredQuery.FieldFilter(
                field=query.StructuredQuery.FieldReference(field_path="v"),
                op=query.StructuredQuery.FieldFilter.Operator.EQUAL, value=document.Value(integer_value=1))),
            query.StructuredQuery.Filter(field_filter=query.StructuredQuery.FieldFilter(
                field=query.StructuredQuery.FieldReference(field_path="v"),
                op=query.StructuredQuery.FieldFilter.Operator.IN, value=document.Value(array_value=document.ArrayValue(
                    values=[document.Value(integer_value=3), document.Value(integer_value=5)])))),
        ])),
    # A cursor names a value per order-by the request writes (the official emulator refuses
    # one on the implicit __name__ order: "Cursor has too many values."), as the SDKs do.
    order_by=[query.StructuredQuery.Order(field=query.StructuredQuery.FieldReference(field_path="__name__"),
                                          direction=query.StructuredQuery.Direction.ASCENDING)],
    start_at=query.Cursor(values=[document.Value(reference_value=f"{ROOT}/nums/n2")], before=True),
    ))
check("runQuery OR + cursor", [r.document.fields["v"].integer_value for r in rows if r.document.name], [3, 5])
empty = run(query.StructuredQuery(from_=[query.StructuredQuery.CollectionSelector(collection_id="none")]))
check("runQuery empty", [r.document.name for r in empty], [""])

agg = list(client.run_aggregation_query(request=firestore.RunAggregationQueryRequest(
    parent=ROOT, structured_aggregation_query=query.StructuredAggregationQuery(
        structured_query=query.StructuredQuery(from_=[query.StructuredQuery.CollectionSelector(collection_id="nums")]),
        aggregations=[
            query.StructuredAggregationQuery.Aggregation(alias="n", count=query.StructuredAggregationQuery.Aggregation.Count()),
            query.StructuredAggregationQuery.Aggregation(alias="s", sum=query.StructuredAggregationQuery.Aggregation.Sum(
                field=query.StructuredQuery.FieldReference(field_path="v"))),
            query.StructuredAggregationQuery.Aggregation(alias="a", avg=query.StructuredAggregationQuery.Aggregation.Avg(
                field=query.StructuredQuery.FieldReference(field_path="v"))),
        ])), metadata=ADMIN))
fields = agg[0].result.aggregate_fields
check("aggregation count", fields["n"].integer_value, 5)
check("aggregation sum", fields["s"].integer_value, 15)
check("aggregation avg", fields["a"].double_value, 3.0)

# Transactions
txn = client.begin_transaction(request=firestore.BeginTransactionRequest(database=DB), metadata=ADMIN).transaction
found = list(client.batch_get_documents(request=firestore.BatchGetDocumentsRequest(
    database=DB, documents=[f"{ROOT}/users/bob", f"{ROOT}/users/ghost"], transaction=txn), metadata=ADMIN))
check("batchGet in transaction", sorted((r.found.name or r.missing) for r in found), [f"{ROOT}/users/bob", f"{ROOT}/users/ghost"])
committed = client.commit(request=firestore.CommitRequest(database=DB, transaction=txn, writes=[
    write.Write(update=document.Document(name=f"{ROOT}/users/bob", fields={"n": document.Value(integer_value=7)}))]), metadata=ADMIN)
check("transaction commit", len(committed.write_results), 1)
txn2 = client.begin_transaction(request=firestore.BeginTransactionRequest(database=DB), metadata=ADMIN).transaction
client.rollback(request=firestore.RollbackRequest(database=DB, transaction=txn2), metadata=ADMIN)
try:
    client.commit(request=firestore.CommitRequest(database=DB, transaction=txn2), metadata=ADMIN)
    check("commit after rollback", "no error", "InvalidArgument")
except Exception as e:
    # api_core names the HTTP 400 of a REST call BadRequest (INVALID_ARGUMENT over gRPC).
    check("commit after rollback", type(e).__name__ in ("InvalidArgument", "BadRequest"), True)

# Listing
listed = client.list_documents(request=firestore.ListDocumentsRequest(parent=ROOT, collection_id="nums", page_size=2), metadata=ADMIN)
check("listDocuments (all pages)", [d.name.rsplit("/", 1)[1] for d in listed], ["n1", "n2", "n3", "n4", "n5"])
ids = client.list_collection_ids(request=firestore.ListCollectionIdsRequest(parent=ROOT), metadata=ADMIN)
check("listCollectionIds root", sorted(ids), ["nums", "users"])
ids = client.list_collection_ids(request=firestore.ListCollectionIdsRequest(parent=f"{ROOT}/users/alice"), metadata=ADMIN)
check("listCollectionIds sub", list(ids), ["posts"])

client.delete_document(request=firestore.DeleteDocumentRequest(name=f"{ROOT}/users/alice"), metadata=ADMIN)
try:
    client.get_document(request=firestore.GetDocumentRequest(name=f"{ROOT}/users/alice"), metadata=ADMIN)
    check("get after delete", "found", "NotFound")
except Exception as e:
    check("get after delete", type(e).__name__, "NotFound")

# Plain HTTP: emulator endpoints
status, body = http("DELETE", f"/emulator/v1/projects/{PROJECT}/databases/(default)/documents/nums")
check("clear subtree", status, 200)
status, body = http("GET", f"/v1/{ROOT}/nums/n1")
check("subtree cleared", status, 404)
status, body = http("GET", "/")
check("GET /", (status, body), (200, b"Ok\n"))

if failures:
    print(f"{len(failures)} mismatches")
    sys.exit(1)
print("all REST client checks passed")
