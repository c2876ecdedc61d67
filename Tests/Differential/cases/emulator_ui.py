"""The Emulator UI's own calls (firebase-tools-ui's Firestore pages): from another origin
(http://127.0.0.1:4000 or http://localhost:4000, so with CORS preflights) and as the owner
(`Authorization: Bearer owner`): listCollectionIds at the root and under a document, a
collection's page with `mask.fieldPaths=_none_&pageSize=300&showMissing=true`, and the
emulator's DELETE of every document, of a collection and of a document's subtree."""
from cases.steps import OWNER, case, docs, get, http, seed

CASES = []
ORIGINS = ("http://127.0.0.1:4000", "http://localhost:4000")
CORS = ["access-control-allow-origin", "access-control-allow-credentials", "access-control-allow-methods",
        "access-control-allow-headers"]
TREE = {"a/x": {"n": 1}, "a/y/s/z": {"n": 2}, "b/x": {"n": 3}, "b/x/t/u": {"n": 4}, "c/w/deep/v": {"n": 5}}


def add(label, *steps):
    CASES.append(case(f"ui {label}", *steps))


def ui(method, path, body=None, origin=ORIGINS[0], **kw):
    headers = {"Origin": origin}
    return http(method, path, body, auth=OWNER, headers=headers, compare_headers=CORS, **kw)


def preflight(method, path, origin, request_headers="authorization,content-type"):
    return http("OPTIONS", path, headers={"Origin": origin, "Access-Control-Request-Method": method,
                                          "Access-Control-Request-Headers": request_headers}, compare_headers=CORS)


for origin in ORIGINS:
    tag = "localhost" if "localhost" in origin else "127.0.0.1"
    add(f"preflight listCollectionIds {tag}", preflight("POST", "$V1:listCollectionIds", origin))
    add(f"preflight page {tag}", preflight("GET", "$V1/a?mask.fieldPaths=_none_&pageSize=300&showMissing=true", origin))
    add(f"preflight delete {tag}", preflight("DELETE", "/emulator/v1/projects/$P/databases/(default)/documents/a", origin))
    add(f"preflight patch {tag}", preflight("PATCH", "$V1/a/x", origin, "authorization,content-type,x-goog-api-client"))
    add(f"listCollectionIds root {tag}", seed(TREE), ui("POST", "$V1:listCollectionIds", {}, origin))
    add(f"listCollectionIds document {tag}", seed(TREE), ui("POST", "$V1/b/x:listCollectionIds", {}, origin))
    add(f"page with missing {tag}", seed(TREE), ui("GET", "$V1/a?mask.fieldPaths=_none_&pageSize=300&showMissing=true", origin=origin))

add("listCollectionIds page size", seed(TREE), ui("POST", "$V1:listCollectionIds", {"pageSize": 2}, save={"t": "nextPageToken"}),
    ui("POST", "$V1:listCollectionIds", {"pageSize": 2, "pageToken": "${t}"}))
add("listCollectionIds missing document", seed(TREE), ui("POST", "$V1/a/y:listCollectionIds", {}))
add("listCollectionIds empty", ui("POST", "$V1/zz/q:listCollectionIds", {}))
add("page with missing nested", seed(TREE), ui("GET", "$V1/c/w/deep?mask.fieldPaths=_none_&pageSize=300&showMissing=true"))
add("page with missing empty", ui("GET", "$V1/nothing?mask.fieldPaths=_none_&pageSize=300&showMissing=true"))
add("page of a subcollection", seed(TREE), ui("GET", "$V1/b/x/t?mask.fieldPaths=_none_&pageSize=300&showMissing=true"))
add("page without owner", seed(TREE), http("GET", "$V1/a?mask.fieldPaths=_none_&pageSize=300&showMissing=true",
                                            headers={"Origin": ORIGINS[0]}, compare_headers=CORS))
add("delete all", seed(TREE), ui("DELETE", "/emulator/v1/projects/$P/databases/(default)/documents"),
    get("a/x", auth=OWNER), get("b/x/t/u", auth=OWNER))
add("delete collection", seed(TREE), ui("DELETE", "/emulator/v1/projects/$P/databases/(default)/documents/a"),
    get("a/x", auth=OWNER), get("a/y/s/z", auth=OWNER), get("b/x", auth=OWNER))
add("delete document subtree", seed(TREE), ui("DELETE", "/emulator/v1/projects/$P/databases/(default)/documents/b/x"),
    get("b/x", auth=OWNER), get("b/x/t/u", auth=OWNER), get("a/x", auth=OWNER))
add("delete nested collection", seed(TREE), ui("DELETE", "/emulator/v1/projects/$P/databases/(default)/documents/b/x/t"),
    get("b/x", auth=OWNER), get("b/x/t/u", auth=OWNER))
add("delete missing path", ui("DELETE", "/emulator/v1/projects/$P/databases/(default)/documents/none/zz"))
add("delete localhost origin", seed(TREE), ui("DELETE", "/emulator/v1/projects/$P/databases/(default)/documents/c", origin=ORIGINS[1]),
    get("c/w/deep/v", auth=OWNER))
add("get as owner from the UI", seed(TREE), ui("GET", "$V1/a/x"))
add("patch as owner from the UI", ui("PATCH", "$V1/a/new", {"fields": {"s": {"stringValue": "ui"}}}), get("a/new", auth=OWNER))
add("delete document as owner from the UI", seed(TREE), ui("DELETE", "$V1/a/x"), get("a/x", auth=OWNER))
