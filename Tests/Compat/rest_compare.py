"""Sends the same plain REST requests to hearth serve and the official emulator and compares
the HTTP status and the shape of the answers (documents' fields, error status names).
Points where the official emulator is known to differ (docs/protocol.md#observed-on-the-official-emulator) are not sent.
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


def jwt(claims):
    """An unsigned (alg: none) token, as the emulator SDK helpers send."""
    import base64
    enc = lambda o: base64.urlsafe_b64encode(json.dumps(o).encode()).decode().rstrip("=")
    return {"Authorization": f"Bearer {enc({'alg': 'none', 'typ': 'JWT'})}.{enc(claims)}."}


# Security rules: loading them, then the same requests as the owner, a user and signed out.
R = "/v1/projects/demo-compare-rules/databases/(default)/documents"
RN = "projects/demo-compare-rules/databases/(default)/documents"
RULES_URL = "/emulator/v1/projects/demo-compare-rules:securityRules"
RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /posts/{id} {
      allow get: if request.auth != null;
      allow list: if request.auth != null && resource.data.owner == request.auth.uid;
      allow create: if request.auth.uid == request.resource.data.owner;
    }
    match /notes/{id} {
      allow create: if existsAfter(/databases/$(database)/documents/owners/$(request.auth.uid));
    }
    match /owners/{uid} {
      allow create: if request.auth.uid == uid;
    }
  }
}
"""
ALICE = jwt({"sub": "alice", "user_id": "alice"})
MINE = {"structuredQuery": {"from": [{"collectionId": "posts"}],
                            "where": {"fieldFilter": {"field": {"fieldPath": "owner"}, "op": "EQUAL", "value": {"stringValue": "alice"}}}}}
REQUESTS += [
    ("DELETE", "/emulator/v1/projects/demo-compare-rules/databases/(default)/documents", None, {}),
    ("PUT", RULES_URL, {"rules": {"files": [{"name": "firestore.rules", "content": RULES.replace("if request.auth != null;", "if foo bar;")}]}}, {}),
    ("PUT", RULES_URL, {"rules": {"files": [{"name": "firestore.rules", "content": RULES}]}}, {}),
    ("PUT", RULES_URL, {}, {}),
    ("PATCH", f"{R}/posts/a1", {"fields": {"owner": {"stringValue": "alice"}}}, OWNER),
    ("GET", f"{R}/posts/a1", None, OWNER),
    ("GET", f"{R}/posts/a1", None, ALICE),
    ("GET", f"{R}/posts/a1", None, {}),
    ("GET", f"{R}/posts/missing", None, ALICE),
    ("GET", f"{R}/posts/missing", None, {}),
    ("GET", f"{R}/other/x", None, ALICE),
    ("POST", f"{R}:batchGet", {"documents": [f"{RN}/posts/a1", f"{RN}/other/x"]}, ALICE),
    ("POST", f"{R}:runQuery", MINE, ALICE),
    ("POST", f"{R}:runQuery", {"structuredQuery": {"from": [{"collectionId": "posts"}]}}, ALICE),
    ("GET", f"{R}/posts", None, ALICE),
    ("POST", f"{R}:runAggregationQuery", {"structuredAggregationQuery": {**MINE, "aggregations": [{"alias": "n", "count": {}}]}}, ALICE),
    ("POST", f"{R}/posts?documentId=b1", {"fields": {"owner": {"stringValue": "bob"}}}, ALICE),
    ("POST", f"{R}:commit", {"writes": [{"update": {"name": f"{RN}/posts/a2", "fields": {"owner": {"stringValue": "alice"}}}},
                                         {"update": {"name": f"{RN}/posts/b2", "fields": {"owner": {"stringValue": "bob"}}}}]}, ALICE),
    ("GET", f"{R}/posts/a2", None, OWNER),
    ("POST", f"{R}:commit", {"writes": [{"update": {"name": f"{RN}/notes/n1"}}]}, ALICE),
    ("POST", f"{R}:commit", {"writes": [{"update": {"name": f"{RN}/notes/n1"}}, {"update": {"name": f"{RN}/owners/alice"}}]}, ALICE),
    ("DELETE", f"{R}/posts/a1", None, ALICE),
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
