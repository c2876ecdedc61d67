"""Sends the same plain REST requests to hearth serve and the official emulator and compares
the HTTP status and the shape of the answers (documents' fields, error status names).
Points where the official emulator is known to differ (wire-protocol.md §14) are not sent.
Usage: rest_compare.py HEARTH_HOST OFFICIAL_HOST"""
import json
import sys
import urllib.request

P = "/v1/projects/demo-compare/databases/(default)/documents"
OWNER = {"Authorization": "Bearer owner"}
REQUESTS = [
    ("DELETE", "/emulator/v1/projects/demo-compare/databases/(default)/documents", None, {}),
    ("PATCH", f"{P}/c/a", {"fields": {"i": {"integerValue": "-9007199254740993"}, "d": {"doubleValue": "NaN"},
                                      "t": {"timestampValue": "2024-01-02T03:04:05.006Z"}, "b": {"bytesValue": "AP_-"},
                                      "n": {"nullValue": 0}, "a": {"arrayValue": {}}, "m": {"mapValue": {}}}}, {}),
    ("GET", f"{P}/c/a", None, {}),
    ("GET", f"{P}/c/a?mask.fieldPaths=i", None, {}),
    ("GET", f"{P}/c/missing", None, {}),
    ("PATCH", f"{P}/c/b?currentDocument.exists=true", {"fields": {}}, {}),
    ("POST", f"{P}/c?documentId=a", {"fields": {}}, {}),
    ("PATCH", f"{P}/c/a?updateMask.fieldPaths=x&updateMask.fieldPaths=d", {"fields": {"x": {"stringValue": "y"}}}, {}),
    ("GET", f"{P}/c", None, {}),
    ("POST", f"{P}:runQuery", {"structuredQuery": {"from": [{"collectionId": "c"}],
                                                   "where": {"fieldFilter": {"field": {"fieldPath": "x"}, "op": "EQUAL", "value": {"stringValue": "y"}}}}}, {}),
    ("POST", f"{P}:runQuery", {"structuredQuery": {"from": [{"collectionId": "c"}], "bogus": 1}}, {}),
    ("POST", f"{P}:runAggregationQuery", {"structuredAggregationQuery": {"structuredQuery": {"from": [{"collectionId": "c"}]},
                                                                          "aggregations": [{"alias": "n", "count": {}}]}}, {}),
    ("POST", f"{P}:listCollectionIds", {}, {}),
    ("POST", f"{P}:listCollectionIds", {}, OWNER),
    ("POST", f"{P}:batchWrite", {"writes": []}, {}),
    ("POST", f"{P}:commit", {"writes": [{"bogus": {}}]}, {}),
    ("POST", f"{P}:commit", "{not json", {}),
    ("POST", f"{P}:batchGet", {"documents": [f"projects/demo-compare/databases/(default)/documents/c/a",
                                             f"projects/demo-compare/databases/(default)/documents/c/zz"]}, {}),
    ("POST", f"{P}:rollback", {"transaction": "AAAA"}, {}),
    ("DELETE", f"{P}/c/a", None, {}),
    ("GET", f"{P}/c/a", None, {}),
    ("GET", "/", None, {}),
    ("GET", "/nope", None, {}),
]


def send(host, method, path, body, headers):
    data = None if body is None else (body if isinstance(body, str) else json.dumps(body)).encode()
    req = urllib.request.Request(f"http://{host}{path}", method=method, data=data,
                                 headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def shape(body):
    try:
        j = json.loads(body)
    except Exception:
        return body.decode(errors="replace").strip()
    def strip(v):
        if isinstance(v, dict):
            if "error" in v:
                return {"error": v["error"].get("status")}
            return {k: strip(x) for k, x in v.items() if k not in ("createTime", "updateTime", "readTime", "commitTime", "transaction", "done")}
        if isinstance(v, list):
            return [strip(x) for x in v if not (isinstance(x, dict) and set(x) <= {"readTime", "done", "transaction"} and len(v) > 1)]
        if isinstance(v, float):
            return float(v)
        return v
    return strip(j)


mismatches = 0
for method, path, body, headers in REQUESTS:
    a = send(sys.argv[1], method, path, body, headers)
    b = send(sys.argv[2], method, path, body, headers)
    same = a[0] == b[0] and shape(a[1]) == shape(b[1])
    print(("same " if same else "DIFF ") + f"{method} {path[:90]} -> hearth {a[0]}, official {b[0]}")
    if not same:
        print(f"     hearth:   {shape(a[1])}\n     official: {shape(b[1])}")
        mismatches += 1
print(f"{len(REQUESTS) - mismatches}/{len(REQUESTS)} answers agree")
sys.exit(1 if mismatches else 0)
