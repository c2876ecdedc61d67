#!/usr/bin/env python3
"""Records expected verdicts for the rules corpus from the official Firestore emulator.

For each <name>.cases.json (docs/formats.md#rules-test-cases) this loads the rules into a running emulator,
runs every case as an unsigned mock-user request over REST (docs/protocol.md#auth) and
rewrites the file with each case's "expect" set to what the emulator answered (a new case
may omit "expect"). Start the emulator with
`gcloud emulators firestore start --host-port=127.0.0.1:PORT`, then
`record-verdicts.py 127.0.0.1:PORT Tests/RulesCorpus/*.cases.json` (standard library only).
"""
import base64, json, sys, time, urllib.request, urllib.error, os

PROJECT = "demo-hearth"

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

def mock_token(uid, claims):
    payload = {"iss": f"https://securetoken.google.com/{PROJECT}", "aud": PROJECT, "iat": 0, "exp": 3600,
               "auth_time": 0, "sub": uid, "user_id": uid,
               "firebase": {"sign_in_provider": "custom", "identities": {}}}
    payload.update(claims or {})
    return b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode()) + "." + b64url(json.dumps(payload).encode()) + "."

def call(host, method, path, body=None, token="owner"):
    req = urllib.request.Request(f"http://{host}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        text = e.read()
        try:
            return e.code, json.loads(text)
        except Exception:
            return e.code, {"raw": text.decode(errors="replace")}

def to_rest(v, db):
    """Hearth JSON -> Firestore REST value."""
    if v is None: return {"nullValue": None}
    if isinstance(v, bool): return {"booleanValue": v}
    if isinstance(v, int): return {"integerValue": str(v)}
    if isinstance(v, float): return {"doubleValue": v}
    if isinstance(v, str): return {"stringValue": v}
    if isinstance(v, list): return {"arrayValue": {"values": [to_rest(x, db) for x in v]}}
    if isinstance(v, dict):
        if len(v) == 1:
            (k, x), = v.items()
            if k == "$timestamp": return {"timestampValue": x}
            if k == "$double": return {"doubleValue": float(x)}
            if k == "$bytes": return {"bytesValue": x}
            if k == "$reference": return {"referenceValue": f"projects/{PROJECT}/databases/{db}/documents/{x}"}
            if k == "$geopoint": return {"geoPointValue": {"latitude": x[0], "longitude": x[1]}}
            if k == "$map": return {"mapValue": {"fields": {a: to_rest(b, db) for a, b in x.items()}}}
        return {"mapValue": {"fields": {a: to_rest(b, db) for a, b in v.items()}}}
    raise ValueError(v)

def docs_base(db):
    return f"/v1/projects/{PROJECT}/databases/{db}/documents"

def seed(host, data, db):
    call(host, "DELETE", f"/emulator/v1/projects/{PROJECT}/databases/{db}/documents", token=None)
    writes = [{"update": {"name": f"projects/{PROJECT}/databases/{db}/documents/{p}",
                          "fields": {k: to_rest(x, db) for k, x in f.items()}}} for p, f in data.items()]
    if writes:
        s, r = call(host, "POST", f"{docs_base(db)}:commit", {"writes": writes})
        assert s == 200, r

OPS = {"==": "EQUAL", "!=": "NOT_EQUAL", "<": "LESS_THAN", "<=": "LESS_THAN_OR_EQUAL", ">": "GREATER_THAN",
       ">=": "GREATER_THAN_OR_EQUAL", "array-contains": "ARRAY_CONTAINS", "in": "IN", "not-in": "NOT_IN",
       "array-contains-any": "ARRAY_CONTAINS_ANY"}

def run_case(host, case, db):
    token = None if not case.get("auth") else mock_token(case["auth"]["uid"], case["auth"].get("token"))
    base = docs_base(db)
    name = f"projects/{PROJECT}/databases/{db}/documents/{case['path']}"
    m = case["method"]
    fields = {k: to_rest(x, db) for k, x in (case.get("data") or {}).items()}
    if m == "get":
        s, r = call(host, "GET", f"{base}/{case['path']}", token=token)
        return s, r
    if m in ("create", "update", "delete"):
        if m == "delete":
            w = {"delete": name}
        else:
            w = {"update": {"name": name, "fields": fields}, "currentDocument": {"exists": m == "update"}}
            if m == "update":
                w["updateMask"] = {"fieldPaths": ["`%s`" % k.replace("`", "\\`") if not k.replace("_", "a").isalnum() or k[0].isdigit() else k
                                                  for k in (case.get("data") or {}).keys()]}
        return call(host, "POST", f"{base}:commit", {"writes": [w]}, token=token)
    if m == "list":
        parts = case["path"].split("/")
        parent = "/".join(parts[:-1])
        q = {"from": [{"collectionId": parts[-1], "allDescendants": bool(case.get("collectionGroup"))}]}
        spec = case.get("query") or {}
        filters = []
        for f, op, v in spec.get("where", []):
            filters.append({"fieldFilter": {"field": {"fieldPath": f}, "op": OPS[op], "value": to_rest(v, db)}})
        if len(filters) == 1: q["where"] = filters[0]
        elif filters: q["where"] = {"compositeFilter": {"op": "AND", "filters": filters}}
        if spec.get("orderBy"):
            q["orderBy"] = [{"field": {"fieldPath": o[0]}, "direction": "DESCENDING" if len(o) > 1 and o[1] == "desc" else "ASCENDING"} for o in spec["orderBy"]]
        if "limit" in spec: q["limit"] = spec["limit"]
        url = f"{base}/{parent}:runQuery" if parent and not case.get("collectionGroup") else f"{base}:runQuery"
        return call(host, "POST", url, {"structuredQuery": q}, token=token)
    raise ValueError(m)

def main():
    host = sys.argv[1]
    for spec_path in sys.argv[2:]:
        folder = os.path.dirname(spec_path)
        spec = json.load(open(spec_path))
        rules = open(os.path.join(folder, spec["rules"])).read()
        s, r = call(host, "PUT", f"/emulator/v1/projects/{PROJECT}:securityRules",
                    {"rules": {"files": [{"name": "security.rules", "content": rules}]}}, token=None)
        if s != 200:
            print(spec_path, "rules rejected:", r); sys.exit(1)
        data = spec.get("data", {})
        if isinstance(data, str):
            data = json.load(open(os.path.join(folder, data)))
        dirty, seeded = set(), set()
        out_cases = []
        for case in spec["cases"]:
            db = case.get("database", "(default)")
            # Each case starts from the seeded state: reseed after a write went through.
            if db not in seeded or db in dirty:
                seed(host, data, db)
                seeded.add(db)
                dirty.discard(db)
            s, r = run_case(host, case, db)
            if s == 200 or (s == 404 and case["method"] == "get"):
                verdict = "allow"
                if case["method"] in ("create", "update", "delete"):
                    dirty.add(db)
            elif s == 403:
                verdict = "deny"
            else:
                print(f"{spec_path}: {case['name']}: unexpected {s} {r}", file=sys.stderr)
                verdict = "deny"
                dirty.add(db)
            c = {k: v for k, v in case.items() if k != "expect"}
            c["expect"] = verdict
            out_cases.append(c)
            if os.environ.get("VERBOSE"):
                print(verdict, case["name"], "" if verdict == "allow" else json.dumps(r)[:200])
        out = {"rules": spec["rules"], "data": spec.get("data", {}), "cases": out_cases}
        out_path = spec_path
        with open(out_path, "w") as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"{out_path}: {sum(c['expect'] == 'allow' for c in out_cases)} allow, {sum(c['expect'] == 'deny' for c in out_cases)} deny")

main()
