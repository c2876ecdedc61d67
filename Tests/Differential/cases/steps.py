"""Helpers for writing cases: a case is {"name", "steps"}; each step is one request (or one
move on an open stream) whose answer is recorded. Every case runs in a project of its own
(named from the case's name), so cases never see each other's data or rules.

In any string of a case, `$P` is the case's project, `$DOCS` the resource name of its
default database's documents (projects/$P/databases/(default)/documents) and `$V1` the REST
path of it (/v1/$DOCS). `${name}` is a value saved from an earlier answer of the same case
(a step's `save={"name": "dotted.path"}`), filled in when the case runs.
"""
import base64
import hashlib
import json

OWNER = "owner"
DB = "projects/$P/databases/(default)"


def project_for(name):
    return "demo-d" + hashlib.sha1(name.encode()).hexdigest()[:12]


def expand(value, project):
    if isinstance(value, str):
        return (value.replace("$V1", "/v1/$DOCS").replace("$DOCS", "projects/$P/databases/(default)/documents")
                .replace("$P", project))
    if isinstance(value, list):
        return [expand(x, project) for x in value]
    if isinstance(value, dict):
        return {expand(k, project): expand(x, project) for k, x in value.items()}
    return value


def case(name, *steps):
    """A case; steps may be nested lists (a helper can return several steps)."""
    flat = []

    def add(s):
        if isinstance(s, list):
            for x in s:
                add(x)
        elif s is not None:
            flat.append(s)
    add(list(steps))
    return {"name": name, "steps": expand(flat, project_for(name))}


# --- auth ---------------------------------------------------------------------------------

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def user_token(uid, **claims):
    """An unsigned mock-user token like the SDKs' emulator helpers make."""
    payload = {"iss": "https://securetoken.google.com/$P", "aud": "$P", "iat": 0, "exp": 4102444800,
               "auth_time": 0, "sub": uid, "user_id": uid,
               "firebase": {"sign_in_provider": "custom", "identities": {}}}
    payload.update(claims)
    return (b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode()) + "." +
            b64url(json.dumps(payload).encode()) + ".")


def auth_header(auth):
    """None: no header; "owner": the admin token; a dict {"uid", ...claims}: a user."""
    if auth is None:
        return {}
    if auth == OWNER:
        return {"Authorization": "Bearer owner"}
    if isinstance(auth, str):
        return {"Authorization": auth}
    claims = dict(auth)
    uid = claims.pop("uid")
    return {"Authorization": "Bearer " + user_token(uid, **claims)}


# --- REST ---------------------------------------------------------------------------------

def http(method, path, body=None, auth=None, headers=None, **opts):
    step = {"kind": "http", "method": method, "path": path}
    if body is not None:
        step["body"] = body
    h = dict(auth_header(auth))
    h.update(headers or {})
    if h:
        step["headers"] = h
    step.update(opts)
    return step


def docs(method, suffix="", body=None, **kw):
    """A request under /v1/projects/$P/databases/(default)/documents (suffix like "/c/a" or ":runQuery")."""
    return http(method, "$V1" + suffix, body, **kw)


def get(path, query="", **kw):
    return docs("GET", "/" + path + (("?" + query) if query else ""), **kw)


def patch(path, fields=None, query="", raw_fields=None, **kw):
    body = {"fields": raw_fields if raw_fields is not None else to_fields(fields or {})}
    return docs("PATCH", "/" + path + (("?" + query) if query else ""), body, **kw)


def delete(path, query="", **kw):
    return docs("DELETE", "/" + path + (("?" + query) if query else ""), **kw)


def commit(writes, transaction=None, **kw):
    body = {"writes": writes}
    if transaction:
        body["transaction"] = transaction
    return docs("POST", ":commit", body, **kw)


def run_query(query, **kw):
    body = {"structuredQuery": query}
    for k in ("transaction", "newTransaction", "readTime"):
        if k in kw:
            body[k] = kw.pop(k)
    return docs("POST", ":runQuery", body, **kw)


def seed(docs_by_path, **kw):
    """One commit writing each document whole."""
    return commit([update(p, f) for p, f in docs_by_path.items()], auth=kw.pop("auth", OWNER), **kw)


def rules(source, auth=None, **kw):
    body = {"rules": {"files": [{"name": "firestore.rules", "content": source}]}}
    return http("PUT", "/emulator/v1/projects/$P:securityRules", body, auth=auth, **kw)


# --- writes and values --------------------------------------------------------------------

def name(path):
    return "$DOCS/" + path


def update(path, fields=None, mask=None, exists=None, raw_fields=None, transforms=None):
    w = {"update": {"name": name(path), "fields": raw_fields if raw_fields is not None else to_fields(fields or {})}}
    if mask is not None:
        w["updateMask"] = {"fieldPaths": mask}
    if exists is not None:
        w["currentDocument"] = {"exists": exists}
    if transforms:
        w["updateTransforms"] = transforms
    return w


def delete_write(path, exists=None):
    w = {"delete": name(path)}
    if exists is not None:
        w["currentDocument"] = {"exists": exists}
    return w


def to_value(v):
    """Python -> REST value; tagged dicts ({"$t": ...}) pass through as written."""
    if isinstance(v, dict) and len(v) == 1 and next(iter(v)).endswith("Value"):
        return v
    if v is None:
        return {"nullValue": None}
    if isinstance(v, bool):
        return {"booleanValue": v}
    if isinstance(v, int):
        return {"integerValue": str(v)}
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return {"doubleValue": "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")}
        return {"doubleValue": v}
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [to_value(x) for x in v]}}
    if isinstance(v, dict):
        return {"mapValue": {"fields": to_fields(v)}}
    raise ValueError(v)


def to_fields(d):
    return {k: to_value(v) for k, v in d.items()}


def ts(text):
    return {"timestampValue": text}


def ref(path):
    return {"referenceValue": name(path)}


def field_filter(path, op, value):
    return {"fieldFilter": {"field": {"fieldPath": path}, "op": op, "value": to_value(value)}}


def unary(path, op):
    return {"unaryFilter": {"field": {"fieldPath": path}, "op": op}}


def composite(op, *filters):
    return {"compositeFilter": {"op": op, "filters": list(filters)}}


def query(collection="c", where=None, order=None, limit=None, offset=None, start=None, end=None,
          select=None, all_descendants=False):
    q = {"from": [{"collectionId": collection, **({"allDescendants": True} if all_descendants else {})}]}
    if where is not None:
        q["where"] = where
    if order is not None:
        q["orderBy"] = [{"field": {"fieldPath": o[0]}, "direction": o[1]} if isinstance(o, tuple)
                        else {"field": {"fieldPath": o}} for o in order]
    if limit is not None:
        q["limit"] = limit
    if offset is not None:
        q["offset"] = offset
    if start is not None:
        q["startAt"] = start
    if end is not None:
        q["endAt"] = end
    if select is not None:
        q["select"] = {"fields": [{"fieldPath": f} for f in select]}
    return q


# --- gRPC ---------------------------------------------------------------------------------


def grpc_metadata(auth, prefix=True):
    """gRPC metadata for `auth` (as auth_header), lower-case as HTTP/2 wants it, with the
    `google-cloud-resource-prefix` the SDKs send (the official emulator's streams need it)."""
    meta = {k.lower(): v for k, v in auth_header(auth).items()}
    if prefix:
        meta["google-cloud-resource-prefix"] = DB
    return meta


def rpc(method, request, auth=OWNER, prefix=True, **opts):
    """One unary or server-streaming call; the answer is its messages and status."""
    step = {"kind": "grpc", "method": method, "request": request, "metadata": grpc_metadata(auth, prefix)}
    step.update(opts)
    return step


def stream_open(name, method="Listen", auth=OWNER, prefix=True):
    return {"kind": "open", "stream": name, "method": method, "metadata": grpc_metadata(auth, prefix)}


def stream_send(name, message):
    return {"kind": "send", "stream": name, "message": message}


def stream_recv(name, quiet=0.6, count=None, **opts):
    step = {"kind": "recv", "stream": name, "quiet": quiet}
    if count is not None:
        step["count"] = count
    step.update(opts)
    return step


def stream_close(name, quiet=0.6):
    return {"kind": "halfclose", "stream": name, "quiet": quiet}


def grpc_doc(path, fields=None):
    return {"name": name(path), "fields": to_fields(fields or {})}
