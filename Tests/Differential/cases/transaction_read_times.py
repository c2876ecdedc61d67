"""Reads inside a read-only transaction begun at a read time: every answer reports that read
time (batchGet, runQuery, runAggregationQuery; REST and gRPC), and sees the data as of it.
The steps compare read times as ordinals with the commit times (`read_times`), so "the
transaction's read time is the first commit's time" is checked, not just present."""
from cases.steps import DB, case, docs, name, query, rpc, run_query, seed, update

CASES = []


def add(label, *steps):
    CASES.append(case(f"read time {label}", *steps))


def first_commit():
    return seed({"c/a": {"x": 1}}, save={"t": "commitTime"})


def later_commit():
    return seed({"c/a": {"x": 2}, "c/b": {"x": 3}})


def begin_at(t="${t}"):
    return docs("POST", ":beginTransaction", {"options": {"readOnly": {"readTime": t}}}, save={"tx": "transaction"}, read_times=True)


BATCH_GET = {"documents": [name("c/a"), name("c/b")]}
add("batchGet in read-only transaction", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(), begin_at(),
    docs("POST", ":batchGet", {**BATCH_GET, "transaction": "${tx}"}, read_times=True))
add("batchGet new read-only transaction", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(),
    docs("POST", ":batchGet", {**BATCH_GET, "newTransaction": {"readOnly": {"readTime": "${t}"}}}, read_times=True))
add("batchGet with readTime", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(),
    docs("POST", ":batchGet", {**BATCH_GET, "readTime": "${t}"}, read_times=True))
add("runQuery in read-only transaction", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(), begin_at(),
    run_query(query(), transaction="${tx}", read_times=True))
add("aggregation in read-only transaction", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(), begin_at(),
    docs("POST", ":runAggregationQuery", {"structuredAggregationQuery": {"structuredQuery": query(), "aggregations": [{"alias": "n", "count": {}}]},
                                          "transaction": "${tx}"}, read_times=True))
add("batchGet in read-only transaction twice", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(), begin_at(),
    docs("POST", ":batchGet", {**BATCH_GET, "transaction": "${tx}"}, read_times=True),
    docs("POST", ":batchGet", {"documents": [name("c/b")], "transaction": "${tx}"}, read_times=True))
add("grpc batchGet in read-only transaction", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(),
    rpc("BeginTransaction", {"database": DB, "options": {"readOnly": {"readTime": "${t}"}}}, save={"tx": "messages.0.transaction"}),
    rpc("BatchGetDocuments", {"database": DB, **BATCH_GET, "transaction": "${tx}"}, read_times=True))
add("grpc batchGet new read-only transaction", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(),
    rpc("BatchGetDocuments", {"database": DB, **BATCH_GET, "newTransaction": {"readOnly": {"readTime": "${t}"}}}, read_times=True))
add("grpc runQuery in read-only transaction", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(),
    rpc("BeginTransaction", {"database": DB, "options": {"readOnly": {"readTime": "${t}"}}}, save={"tx": "messages.0.transaction"}),
    rpc("RunQuery", {"parent": DB + "/documents", "structuredQuery": query(), "transaction": "${tx}"}, read_times=True))
add("grpc get in read-only transaction", first_commit(), {"kind": "sleep", "seconds": 0.05}, later_commit(),
    rpc("BeginTransaction", {"database": DB, "options": {"readOnly": {"readTime": "${t}"}}}, save={"tx": "messages.0.transaction"}),
    rpc("GetDocument", {"name": name("c/a"), "transaction": "${tx}"}, read_times=True))
