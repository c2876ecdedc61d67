"""REST forms a new user tries: repeated or comma-separated masks, `%2F` and unicode in ids,
empty and slashed documentId, trailing slashes, garbage page tokens, list orderBy forms,
system parameters (fields, alt, prettyPrint, key), and runQuery cursors at their edges."""
from cases.steps import case, docs, get, http, name, patch, query, run_query, seed, OWNER

CASES = []
DATA = {"c/a": {"x": 1, "y": 2, "z": 3}, "c/b": {"x": 2, "y": 1}, "c/c": {"x": 3}}


def add(label, *steps):
    CASES.append(case(f"edge {label}", *steps))


def ref(path):
    return {"referenceValue": name(path)}


add("mask comma separated", seed(DATA), get("c/a", "mask.fieldPaths=x,y", auth=OWNER))
add("mask empty value", seed(DATA), get("c/a", "mask.fieldPaths=", auth=OWNER))
add("mask backquoted", seed(DATA), get("c/a", "mask.fieldPaths=%60x%60", auth=OWNER))
add("mask repeated on list", seed(DATA), get("c", "mask.fieldPaths=x&mask.fieldPaths=z", auth=OWNER))
add("escaped slash in id", seed(DATA), get("c/a%2Fb", auth=OWNER))
add("escaped slash in patch", patch("c/a%2Fb", {"x": 1}, auth=OWNER), get("c/a", auth=OWNER))
add("escaped slash in collection", get("c%2Fa/b", auth=OWNER))
add("unicode id escaped", patch("c/%C3%A9%E2%9C%93", {"x": 1}, auth=OWNER), get("c/%C3%A9%E2%9C%93", auth=OWNER), get("c", auth=OWNER))
add("unicode id raw", patch("c/é✓", {"x": 1}, auth=OWNER), get("c/%C3%A9%E2%9C%93", auth=OWNER))
add("unicode id via documentId", docs("POST", "/c?documentId=%F0%9F%94%A5", {"fields": {"x": {"integerValue": "1"}}}, auth=OWNER),
    get("c/%F0%9F%94%A5", auth=OWNER))
add("space in id", patch("c/a%20b", {"x": 1}, auth=OWNER), get("c/a%20b", auth=OWNER))
add("plus in id", patch("c/a+b", {"x": 1}, auth=OWNER), get("c/a%2Bb", auth=OWNER))
add("empty documentId", docs("POST", "/c?documentId=", {"fields": {"x": {"integerValue": "1"}}}, auth=OWNER, generated=["$DOCS/c/"]))
add("documentId with slash", docs("POST", "/c?documentId=a/b", {"fields": {"x": {"integerValue": "1"}}}, auth=OWNER))
add("documentId escaped slash", docs("POST", "/c?documentId=a%2Fb", {"fields": {"x": {"integerValue": "1"}}}, auth=OWNER))
add("documentId dot", docs("POST", "/c?documentId=.", {"fields": {}}, auth=OWNER))
add("documentId reserved", docs("POST", "/c?documentId=__x__", {"fields": {}}, auth=OWNER))
add("trailing slash on document", seed(DATA), get("c/a/", auth=OWNER))
add("trailing slash on collection", seed(DATA), get("c/", auth=OWNER))
add("double slash", seed(DATA), get("c//a", auth=OWNER))
add("trailing slash on patch", patch("c/a/", {"x": 1}, auth=OWNER))
add("page token garbage", seed(DATA), get("c", "pageToken=garbage", auth=OWNER))
add("page token empty", seed(DATA), get("c", "pageToken=", auth=OWNER))
add("page token base64 garbage", seed(DATA), get("c", "pageToken=AAAAAAAA", auth=OWNER))
add("page token from another collection", seed({**DATA, "d/a": {"x": 1}, "d/b": {"x": 1}}),
    get("d", "pageSize=1", auth=OWNER, save={"tok": "nextPageToken"}), get("c", "pageToken=${tok}", auth=OWNER))
add("page size zero", seed(DATA), get("c", "pageSize=0", auth=OWNER))
add("page size negative", seed(DATA), get("c", "pageSize=-1", auth=OWNER))
add("list orderBy desc", seed(DATA), get("c", "orderBy=x%20desc", auth=OWNER))
add("list orderBy two fields", seed(DATA), get("c", "orderBy=y,x", auth=OWNER))
add("list orderBy bad direction", seed(DATA), get("c", "orderBy=x%20down", auth=OWNER))
add("list orderBy with page", seed(DATA), get("c", "orderBy=x&pageSize=2", auth=OWNER, save={"tok": "nextPageToken"}),
    get("c", "orderBy=x&pageSize=2&pageToken=${tok}", auth=OWNER))
add("list orderBy changed between pages", seed(DATA), get("c", "orderBy=x&pageSize=2", auth=OWNER, save={"tok": "nextPageToken"}),
    get("c", "orderBy=y&pageSize=2&pageToken=${tok}", auth=OWNER))
add("fields parameter", seed(DATA), get("c/a", "fields=name", auth=OWNER))
add("alt json", seed(DATA), get("c/a", "alt=json", auth=OWNER))
add("prettyPrint false", seed(DATA), get("c/a", "prettyPrint=false", auth=OWNER))
add("key parameter", seed(DATA), get("c/a", "key=abc", auth=OWNER))
add("unknown parameter", seed(DATA), get("c/a", "bogus=1", auth=OWNER))
# runQuery cursors.
add("cursor more values than order", seed(DATA), run_query(query(order=["x"], start={"values": [{"integerValue": "1"}, ref("c/a"), {"integerValue": "3"}]})))
add("cursor name as string", seed(DATA), run_query(query(order=["__name__"], start={"values": [{"stringValue": "a"}]})))
add("cursor name other collection", seed(DATA), run_query(query(order=["__name__"], start={"values": [ref("d/a")]})))
add("cursor name deeper", seed(DATA), run_query(query(order=["__name__"], start={"values": [ref("c/a/d/e")]})))
add("cursor type mismatch", seed(DATA), run_query(query(order=["x"], start={"values": [{"stringValue": "a"}]})))
add("cursor without order", seed(DATA), run_query(query(start={"values": [ref("c/b")]})))
add("cursor without order with filter", seed(DATA), run_query(query(where={"fieldFilter": {"field": {"fieldPath": "x"}, "op": "GREATER_THAN", "value": {"integerValue": "0"}}},
                                                               start={"values": [{"integerValue": "2"}]})))
add("cursor empty values", seed(DATA), run_query(query(order=["x"], start={"values": []})))
add("cursor before false end", seed(DATA), run_query(query(order=["x"], end={"values": [{"integerValue": "2"}], "before": False})))
add("cursor start after end", seed(DATA), run_query(query(order=["x"], start={"values": [{"integerValue": "3"}]}, end={"values": [{"integerValue": "1"}]})))
add("cursor descending name", seed(DATA), run_query(query(order=[("x", "DESCENDING")], start={"values": [{"integerValue": "2"}, ref("c/b")], "before": False})))
add("cursor with offset", seed(DATA), run_query(query(order=["x"], start={"values": [{"integerValue": "1"}]}, offset=1)))
add("cursor with limit to last", seed(DATA), run_query({**query(order=["x"]), "limit": 1, "endAt": {"values": [{"integerValue": "2"}]}}))
add("cursor null value", seed({**DATA, "c/n": {"x": None}}), run_query(query(order=["x"], start={"values": [{"nullValue": None}]})))
add("cursor NaN value", seed({**DATA, "c/n": {"x": float("nan")}}), run_query(query(order=["x"], start={"values": [{"doubleValue": "NaN"}], "before": False})))
add("collection group cursor name", seed({**DATA, "x/y/c/d": {"x": 4}}),
    run_query(query(order=["__name__"], start={"values": [ref("x/y/c/d")]}, all_descendants=True)))
