"""Cloud Functions triggers: how the Functions emulator registers them (1st gen: PUT
/emulator/v1/projects/{p}/triggers/{key}; 2nd gen: POST …/eventarcTrigger?eventarcTriggerId=),
including bad bodies, and the events the emulator then POSTs to the Functions emulator
(http://{functions_emulator}/functions/projects/{p}/triggers/{key}) for every kind of write.
An `events` step answers with what the stand-in Functions emulator (functions.py) received
since the last one. Needs `differential.py --functions PORT` (record.sh, Tests/Compat/triggers.sh).
"""
from cases.steps import (case, commit, delete, delete_write, docs, http, patch, update, OWNER, to_fields)

NEEDS_FUNCTIONS = True
CASES = []

V1_TYPE = "providers/cloud.firestore/eventTypes/document."
V2_TYPE = "google.cloud.firestore.document.v1."
USER = {"uid": "alice", "email": "alice@example.com"}


def add(label, *steps):
    CASES.append(case(f"trigger {label}", *steps))


def v1(key, event, resource, body=None, method="PUT"):
    """Registers a 1st-gen trigger on `resource` (a path under the database's documents)."""
    if body is None:
        body = {"eventTrigger": {"eventType": V1_TYPE + event,
                                 "resource": "projects/$P/databases/(default)/documents/" + resource,
                                 "service": "firestore.googleapis.com"}}
    return http(method, f"/emulator/v1/projects/$P/triggers/{key}", body)


def v2(key, event, document, match="PATH_PATTERN", body=None, method="POST", query=None):
    """Registers a 2nd-gen (Eventarc) trigger."""
    if body is None:
        body = {"eventType": V2_TYPE + event, "database": "(default)", "namespace": "(default)",
                "document": {"value": document, "matchType": match}}
    q = f"?eventarcTriggerId={key}" if query is None else query
    return http(method, f"/emulator/v1/projects/$P/eventarcTrigger{q}", body)


def events(**opts):
    step = {"kind": "events", "quiet": 0.6, "wait": 2.0}
    step.update(opts)
    return step


def tx_begin():
    return docs("POST", ":beginTransaction", {}, save={"tx": "transaction"})


def ALL_V1(pattern, prefix="t"):
    return [v1(f"us-central1-{prefix}{e.capitalize()}-0", e, pattern) for e in ("write", "create", "update", "delete")]


def ALL_V2(document, match="PATH_PATTERN", prefix="e", auth=False):
    suffix = ".withAuthContext" if auth else ""
    return [v2(f"us-central1-{prefix}{e.capitalize()}-0", e + suffix, document, match)
            for e in ("written", "created", "updated", "deleted")]


# --- registration ---------------------------------------------------------------------------

for e in ("write", "create", "update", "delete"):
    add(f"register v1 {e}", v1(f"us-central1-f-0", e, "users/{uid}"))
for e in ("written", "created", "updated", "deleted"):
    add(f"register v2 {e}", v2(f"us-central1-f-0", e, "users/{uid}"))
    add(f"register v2 {e} with auth context", v2(f"us-central1-f-0", e + ".withAuthContext", "users/{uid}"))
add("register v2 exact", v2("us-central1-f-0", "written", "users/alice", "EXACT"))
add("register v1 twice", v1("us-central1-f-0", "write", "users/{uid}"), v1("us-central1-f-0", "write", "users/{uid}"))
add("register v1 empty body", v1("k", "", "", body={}))
add("register v1 empty trigger", v1("k", "", "", body={"eventTrigger": {}}))
add("register v1 not json", v1("k", "", "", body="{nope"))
add("register v1 unknown event type", v1("k", "", "", body={"eventTrigger": {
    "eventType": V1_TYPE + "nope", "resource": "projects/$P/databases/(default)/documents/users/{uid}", "service": "firestore.googleapis.com"}}))
add("register v1 other service", v1("k", "", "", body={"eventTrigger": {
    "eventType": V1_TYPE + "write", "resource": "projects/$P/databases/(default)/documents/users/{uid}", "service": "pubsub.googleapis.com"}}))
add("register v1 no resource", v1("k", "", "", body={"eventTrigger": {"eventType": V1_TYPE + "write", "service": "firestore.googleapis.com"}}))
add("register v1 resource not a document path", v1("k", "", "", body={"eventTrigger": {
    "eventType": V1_TYPE + "write", "resource": "users/{uid}", "service": "firestore.googleapis.com"}}))
add("register v1 resource of a collection", v1("k", "write", "users"))
add("register v1 unknown field", v1("k", "", "", body={"eventTrigger": {
    "eventType": V1_TYPE + "write", "resource": "projects/$P/databases/(default)/documents/users/{uid}",
    "service": "firestore.googleapis.com"}, "nope": 1}))
add("register v1 POST", v1("k", "write", "users/{uid}", method="POST"))
add("register v1 GET", http("GET", "/emulator/v1/projects/$P/triggers/k"))
add("register v1 DELETE", http("DELETE", "/emulator/v1/projects/$P/triggers/k"))
add("register v2 empty body", v2("k", "", "", body={}))
add("register v2 not json", v2("k", "", "", body="{nope"))
add("register v2 unknown event type", v2("k", "nope", "users/{uid}"))
add("register v2 no document", v2("k", "", "", body={"eventType": V2_TYPE + "written", "database": "(default)", "namespace": "(default)"}))
add("register v2 unknown match type", v2("k", "written", "users/{uid}", "NOPE"))
add("register v2 no match type", v2("k", "", "", body={"eventType": V2_TYPE + "written", "database": "(default)",
                                                       "namespace": "(default)", "document": {"value": "users/{uid}"}}))
add("register v2 no trigger id", v2("k", "written", "users/{uid}", query=""))
add("register v2 PUT", v2("k", "written", "users/{uid}", method="PUT"))
add("register v2 other database", v2("k", "", "", body={"eventType": V2_TYPE + "written", "database": "other", "namespace": "(default)",
                                                        "document": {"value": "users/{uid}", "matchType": "PATH_PATTERN"}}))

# --- delivery: each event type, each kind of change -----------------------------------------

add("v1 create update delete",
    ALL_V1("users/{uid}"),
    patch("users/alice", {"a": 1, "s": "x"}), events(),
    patch("users/alice", {"b": 2}, query="updateMask.fieldPaths=b"), events(),
    patch("users/alice", {"a": 2, "s": "x"}), events(),
    delete("users/alice"), events())
add("v2 create update delete",
    ALL_V2("users/{uid}"),
    patch("users/alice", {"a": 1, "s": "x"}), events(),
    patch("users/alice", {"b": 2}, query="updateMask.fieldPaths=b"), events(),
    patch("users/alice", {"a": 2, "s": "x"}), events(),
    delete("users/alice"), events())
add("v1 unchanged write", ALL_V1("users/{uid}"), patch("users/alice", {"a": 1}), events(),
    patch("users/alice", {"a": 1}), events(), patch("users/alice", {"a": 1}, query="updateMask.fieldPaths=a"), events())
add("v2 unchanged write", ALL_V2("users/{uid}"), patch("users/alice", {"a": 1}), events(),
    patch("users/alice", {"a": 1}), events(), patch("users/alice", {"a": 1}, query="updateMask.fieldPaths=a"), events())
add("v1 delete missing", ALL_V1("users/{uid}"), delete("users/nobody"), events())
add("v2 delete missing", ALL_V2("users/{uid}"), delete("users/nobody"), events())
add("v1 empty document", ALL_V1("users/{uid}"), patch("users/alice", {}), events(), patch("users/alice", {"a": 1}), events(),
    patch("users/alice", {}), events())
add("v2 empty document", ALL_V2("users/{uid}"), patch("users/alice", {}), events(), patch("users/alice", {"a": 1}), events(),
    patch("users/alice", {}), events())
add("v1 update mask fields", v1("us-central1-u-0", "update", "users/{uid}"),
    patch("users/alice", {"a": 1, "b": {"c": 1, "d": 2}, "e": 5}), events(),
    patch("users/alice", {"a": 2, "b": {"c": 3}}, query="updateMask.fieldPaths=a&updateMask.fieldPaths=b.c&updateMask.fieldPaths=e"), events())
add("v2 update mask fields", v2("us-central1-u-0", "updated", "users/{uid}"),
    patch("users/alice", {"a": 1, "b": {"c": 1, "d": 2}, "e": 5}), events(),
    patch("users/alice", {"a": 2, "b": {"c": 3}}, query="updateMask.fieldPaths=a&updateMask.fieldPaths=b.c&updateMask.fieldPaths=e"), events())

# --- batches, transactions, transforms ------------------------------------------------------

BATCH = [update("users/a", {"n": 1}), update("users/b", {"n": 2}), update("other/c", {"n": 3}), update("users/d", {"n": 4})]
add("v1 batch", v1("us-central1-w-0", "write", "users/{uid}"), commit(BATCH), events(),
    commit([update("users/a", {"n": 10}), delete_write("users/b"), delete_write("users/zz"), update("users/e", {"n": 5})]), events())
add("v2 batch", v2("us-central1-w-0", "written", "users/{uid}"), commit(BATCH), events(),
    commit([update("users/a", {"n": 10}), delete_write("users/b"), delete_write("users/zz"), update("users/e", {"n": 5})]), events())
add("v1 batch same document twice", v1("us-central1-w-0", "write", "users/{uid}"),
    commit([update("users/a", {"n": 1}), update("users/a", {"n": 2}, mask=["n"])]), events())
add("v2 batch same document twice", v2("us-central1-w-0", "written", "users/{uid}"),
    commit([update("users/a", {"n": 1}), update("users/a", {"n": 2}, mask=["n"])]), events())
# (A REST read in the transaction is left out: the official emulator never answers it.)
add("v1 transaction", v1("us-central1-w-0", "write", "users/{uid}"), patch("users/a", {"n": 1}), events(),
    tx_begin(),
    commit([update("users/a", {"n": 2}), update("users/b", {"n": 1})], transaction="${tx}"), events())
add("v2 transaction", v2("us-central1-w-0", "written", "users/{uid}"), patch("users/a", {"n": 1}), events(),
    tx_begin(),
    commit([update("users/a", {"n": 2}), update("users/b", {"n": 1})], transaction="${tx}"), events())
add("v1 batchWrite", v1("us-central1-w-0", "write", "users/{uid}"),
    docs("POST", ":batchWrite", {"writes": [update("users/a", {"n": 1}), update("users/b", {"n": 2})]}, auth=OWNER), events())
add("v2 batchWrite", v2("us-central1-w-0", "written", "users/{uid}"),
    docs("POST", ":batchWrite", {"writes": [update("users/a", {"n": 1}), update("users/b", {"n": 2})]}, auth=OWNER), events())
TRANSFORMS = [{"fieldPath": "at", "setToServerValue": "REQUEST_TIME"}, {"fieldPath": "n", "increment": {"integerValue": "2"}},
              {"fieldPath": "tags", "appendMissingElements": {"values": [{"stringValue": "x"}]}}]
# Steps whose answers hold REQUEST_TIME results are marked server_times (functions.server_times).
ST = {"server_times": True}
add("v1 transforms", v1("us-central1-w-0", "write", "users/{uid}"),
    dict(commit([update("users/a", {"s": "v"}, transforms=TRANSFORMS)]), **ST), events(**ST),
    dict(commit([update("users/a", {}, mask=[], transforms=TRANSFORMS)]), **ST), events(**ST),
    commit([{"transform": {"document": "$DOCS/users/a", "fieldTransforms": [{"fieldPath": "n", "increment": {"integerValue": "0"}}]}}]), events(**ST))
add("v2 transforms", v2("us-central1-w-0", "written", "users/{uid}"),
    dict(commit([update("users/a", {"s": "v"}, transforms=TRANSFORMS)]), **ST), events(**ST),
    dict(commit([update("users/a", {}, mask=[], transforms=TRANSFORMS)]), **ST), events(**ST),
    commit([{"transform": {"document": "$DOCS/users/a", "fieldTransforms": [{"fieldPath": "n", "increment": {"integerValue": "0"}}]}}]), events(**ST))

# --- matching ---------------------------------------------------------------------------------

for gen, register in (("v1", lambda k, p: v1(k, "write", p)), ("v2", lambda k, p: v2(k, "written", p))):
    add(f"{gen} nested path", register("us-central1-n-0", "a/{x}/c/{y}"),
        patch("a/b/c/d", {"n": 1}), patch("a/b", {"n": 1}), patch("a/b/c/d/e/f", {"n": 1}), patch("x/b/c/d", {"n": 1}), events())
    add(f"{gen} exact path", register("us-central1-x-0", "a/b/c/d"),
        patch("a/b/c/d", {"n": 1}), patch("a/b/c/e", {"n": 1}), events())
    add(f"{gen} several wildcards", register("us-central1-s-0", "{coll}/{doc}/posts/{post}"),
        patch("users/alice/posts/p1", {"n": 1}), patch("rooms/r/posts/p2", {"n": 1}), patch("users/alice", {"n": 1}), events())
    add(f"{gen} wildcard collection", register("us-central1-c-0", "{coll}/fixed"),
        patch("a/fixed", {"n": 1}), patch("b/fixed", {"n": 1}), patch("a/other", {"n": 1}), events())
    add(f"{gen} recursive wildcard", register("us-central1-r-0", "users/{rest=**}"),
        patch("users/a", {"n": 1}), patch("users/a/b/c", {"n": 1}), events())
    add(f"{gen} two triggers one write", register("us-central1-one-0", "users/{uid}"), register("us-central1-two-0", "users/{id}"),
        patch("users/alice", {"n": 1}), events())
    add(f"{gen} other database", register("us-central1-o-0", "users/{uid}"),
        http("PATCH", "/v1/projects/$P/databases/other/documents/users/alice", {"fields": to_fields({"n": 1})}), events())
    add(f"{gen} subcollection of a match", register("us-central1-m-0", "users/{uid}"),
        patch("users/alice/posts/p", {"n": 1}), events())
    add(f"{gen} special characters", register("us-central1-q-0", "users/{uid}"),
        patch("users/%C3%A9t%C3%A9%20x", {"n": 1}), events())
    add(f"{gen} clear database", register("us-central1-cl-0", "users/{uid}"), patch("users/alice", {"n": 1}), events(),
        http("DELETE", "/emulator/v1/projects/$P/databases/(default)/documents"), events())
    add(f"{gen} failed write", register("us-central1-f-0", "users/{uid}"), patch("users/alice", {"n": 1}), events(),
        commit([update("users/alice", {"n": 2}, exists=False)]), commit([update("users/bob", {"n": 2}, exists=True)]), events())
    add(f"{gen} re-registered key", register("us-central1-k-0", "users/{uid}"), register("us-central1-k-0", "rooms/{rid}"),
        patch("users/alice", {"n": 1}), patch("rooms/r", {"n": 1}), events())
add("v2 exact match type", v2("us-central1-x-0", "written", "users/alice", "EXACT"), v2("us-central1-y-0", "written", "users/{uid}", "EXACT"),
    patch("users/alice", {"n": 1}), patch("users/bob", {"n": 1}), events())
add("v2 pattern without wildcard", v2("us-central1-x-0", "written", "users/alice"), patch("users/alice", {"n": 1}), events())

# --- values -----------------------------------------------------------------------------------

VALUES = {"null": None, "t": True, "f": False, "i": -42, "big": 9223372036854775807, "d": 1.5, "neg0": -0.0, "nan": float("nan"),
          "inf": float("inf"), "s": "a=b<c>&'\"\u00e9\u4e2d\U0001F600", "empty": "",
          "ts": {"timestampValue": "2020-01-02T03:04:05.123456Z"}, "ts0": {"timestampValue": "1970-01-01T00:00:00Z"},
          "bytes": {"bytesValue": "AAEC/w=="}, "geo": {"geoPointValue": {"latitude": 1.5, "longitude": -2.25}},
          "ref": {"referenceValue": "projects/$P/databases/(default)/documents/c/d"},
          "arr": [1, "x", {"in": [2]}, {}], "map": {"k": {"deep": [None]}, "with space": 1}, "empty_map": {}}
add("v1 every value type", v1("us-central1-w-0", "write", "users/{uid}"), patch("users/alice", VALUES), events())
add("v2 every value type", v2("us-central1-w-0", "written", "users/{uid}"), patch("users/alice", VALUES), events())

# --- auth context -----------------------------------------------------------------------------

for label, auth in (("unauthenticated", None), ("user", USER), ("owner", OWNER)):
    add(f"v2 auth context {label}", ALL_V2("users/{uid}", auth=True),
        patch("users/alice", {"n": 1}, auth=auth), events(), patch("users/alice", {"n": 2}, auth=auth), events(),
        delete("users/alice", auth=auth), events())
    add(f"v1 auth {label}", v1("us-central1-w-0", "write", "users/{uid}"), patch("users/alice", {"n": 1}, auth=auth), events())
    add(f"v2 without auth context {label}", v2("us-central1-w-0", "written", "users/{uid}"),
        patch("users/alice", {"n": 1}, auth=auth), events())
add("v2 auth context batch", v2("us-central1-w-0", "written.withAuthContext", "users/{uid}"),
    commit([update("users/a", {"n": 1}), update("users/b", {"n": 1})], auth={"uid": "bob"}), events())
add("v2 auth context token without sub", v2("us-central1-w-0", "written.withAuthContext", "users/{uid}"),
    patch("users/a", {"n": 1}, auth="Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ1c2VyX2lkIjoiYWxpY2UifQ."), events())
add("v1 other region", v1("europe-west1-f-0", "write", "users/{uid}"), patch("users/alice", {"n": 1}), events())
add("v2 other region", v2("europe-west1-f-0", "written", "users/{uid}"), patch("users/alice", {"n": 1}), events())
add("v2 key without region", v2("f", "written", "users/{uid}"), patch("users/alice", {"n": 1}), events())
