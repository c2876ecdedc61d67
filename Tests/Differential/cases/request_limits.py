"""Production's documented limits over REST and gRPC (a field name or field path over 1,500
bytes, a document name over 6 KiB, a request over 10 MiB), as the official emulator answers
them; where it differs from production, known-differences.json says so with the quota."""
from cases.steps import DB, case, commit, docs, get, http, name, patch, query, rpc, run_query, update

CASES = []
MiB = 1024 * 1024
F1500, F1501 = "f" * 1500, "f" * 1501
# Five segments of 1,400 bytes: every id within its own limit, the name over 6 KiB.
LONG_PATH = "/".join(["c", "a" * 1400, "d", "b" * 1400, "e", "c" * 1400, "f", "d" * 1400, "g", "e" * 1400])
# Just under: four segments of 1,400 bytes (about 5.5 KiB with the database prefix).
SHORTER_PATH = "/".join(["c", "a" * 1400, "d", "b" * 1400, "e", "c" * 1400, "f", "d" * 1400])


def add(label, *steps):
    CASES.append(case(f"limits {label}", *steps))


def grpc_commit(writes, **kw):
    return rpc("Commit", {"database": DB, "writes": writes}, **kw)


def big(n, ch="x"):
    return {"stringValue": {"$repeat": ch, "times": n}}


add("rest field name of 1500 bytes", patch("c/a", raw_fields={F1500: {"integerValue": "1"}}))
add("rest nested field name of 1501 bytes", patch("c/a", raw_fields={"m": {"mapValue": {"fields": {F1501: {"integerValue": "1"}}}}}), get("c/a"))
add("rest field path of 1501 bytes", patch("c/a", raw_fields={"m": {"mapValue": {"fields": {"f" * 1000: {"mapValue": {"fields": {"g" * 500: {"integerValue": "1"}}}}}}}}),
    get("c/a"))
add("rest update mask of 1501 bytes", patch("c/a", query="updateMask.fieldPaths=" + F1501, raw_fields={}))
add("rest order by field of 1501 bytes", run_query(query(order=[F1501])))
add("rest filter field of 1501 bytes", run_query({"from": [{"collectionId": "c"}], "where": {"fieldFilter": {"field": {"fieldPath": F1501}, "op": "EQUAL", "value": {"integerValue": "1"}}}}))
add("rest commit name over 6 KiB", commit([update(LONG_PATH, {"x": 1})]))
add("rest patch name over 6 KiB", patch(LONG_PATH, {"x": 1}))
add("rest get name over 6 KiB", get(LONG_PATH))
add("rest name under 6 KiB", patch(SHORTER_PATH, {"x": 1}), get(SHORTER_PATH))
add("rest commit of 5 MiB", commit([{"update": {"name": name(f"c/{i}"), "fields": {"s": big(MiB - 200)}}} for i in range(5)]))
add("rest commit over 10 MiB", commit([{"update": {"name": name(f"c/{i}"), "fields": {"s": big(MiB - 200)}}} for i in range(11)]), get("c/0"))
add("grpc field name of 1501 bytes", grpc_commit([{"update": {"name": name("c/a"), "fields": {F1501: {"integerValue": "1"}}}}]),
    rpc("GetDocument", {"name": name("c/a")}))
add("grpc field name of 1500 bytes", grpc_commit([{"update": {"name": name("c/a"), "fields": {F1500: {"integerValue": "1"}}}}]))
add("grpc nested field name of 1501 bytes", grpc_commit([{"update": {"name": name("c/a"), "fields": {"m": {"mapValue": {"fields": {F1501: {"integerValue": "1"}}}}}}}]))
add("grpc update mask of 1501 bytes", grpc_commit([{"update": {"name": name("c/a"), "fields": {}}, "updateMask": {"fieldPaths": [F1501]}}]))
add("grpc order by field of 1501 bytes", rpc("RunQuery", {"parent": DB + "/documents", "structuredQuery": query(order=[F1501])}))
add("grpc commit name over 6 KiB", grpc_commit([{"update": {"name": name(LONG_PATH), "fields": {}}}]))
add("grpc get name over 6 KiB", rpc("GetDocument", {"name": name(LONG_PATH)}))
add("grpc commit of 5 MiB", grpc_commit([{"update": {"name": name(f"c/{i}"), "fields": {"s": big(MiB - 200)}}} for i in range(5)]))
add("grpc commit over 10 MiB", grpc_commit([{"update": {"name": name(f"c/{i}"), "fields": {"s": big(MiB - 200)}}} for i in range(11)]),
    rpc("GetDocument", {"name": name("c/0")}))
