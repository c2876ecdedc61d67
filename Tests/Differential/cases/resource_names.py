"""Resource names in every place a request carries one: document names in commits and
batchGet, reference values, REST paths, and gRPC `database` and `parent` fields — each
malformed in one way (a missing part, an empty, "." or ".." id, a trailing "/", extra text,
a reserved or over-long id)."""
from cases.steps import DB, case, commit, docs, get, patch, rpc, query

CASES = []
DOCS = DB + "/documents"


def add(label, *steps):
    CASES.append(case(label, *steps))


LONG = "x" * 1501
NAMES = [
    ("trailing slash after id", DOCS + "/c/a/"),
    ("trailing slash after collection", DOCS + "/c/"),
    ("documents with slash", DOCS + "/"),
    ("documents alone", DOCS),
    ("database alone", DB),
    ("databases with slash", "projects/$P/databases/"),
    ("database misspelt", "projects/$P/database/x"),
    ("docs instead of documents", DB + "/docs/c/a"),
    ("documents with suffix", DB + "/documentsX/c/a"),
    ("dot document id then more", DOCS + "/c/./d/e"),
    ("dotdot collection id", DOCS + "/../a"),
    ("empty document id", DOCS + "/c//a"),
    ("empty database id", "projects/$P/databases//documents/c/a"),
    ("leading slash", "/" + DOCS + "/c/a"),
    ("collection path", DOCS + "/c/a/b"),
    ("reserved collection id", DOCS + "/__x__/a"),
    ("numeric id", DOCS + "/c/__id5__"),
    ("document id of 1501 bytes", DOCS + "/c/" + LONG),
    ("collection id of 1501 bytes", DOCS + "/" + LONG + "/a"),
]

for label, text in NAMES:
    add(f"names commit {label}", commit([{"update": {"name": text, "fields": {}}}]))
for label, text in NAMES[:8]:
    add(f"names batchGet {label}", docs("POST", ":batchGet", {"documents": [text]}))
    add(f"names delete write {label}", commit([{"delete": text}]))

for label, text in NAMES + [("another database", "projects/$P/databases/other/documents/c/a"),
                            ("id with space", DOCS + "/c/a b")]:
    if label == "leading slash":
        continue  # the emulator reads this one as a database name (its own quirk)
    add(f"names reference {label}", patch("c/a", raw_fields={"v": {"referenceValue": text}}), get("c/a"))

add("names query reference dot", docs("POST", ":runQuery", {"structuredQuery": query(
    where={"fieldFilter": {"field": {"fieldPath": "__name__"}, "op": "EQUAL", "value": {"referenceValue": DOCS + "/c/./a"}}})}))
add("names query reference collection", docs("POST", ":runQuery", {"structuredQuery": query(
    where={"fieldFilter": {"field": {"fieldPath": "x"}, "op": "EQUAL", "value": {"referenceValue": DOCS + "/c"}}})}))

# REST paths: each method reads the path as the name it needs.
add("names get reserved collection", get("__x__/a"))
add("names get reserved subcollection", get("c/a/__x__/b"))
add("names get dot collection", get("c/a/./b"))
add("names get trailing slash", get("c/"))
add("names list all under document", get("c/a/"))
add("names patch trailing slash", patch("c/a/", {}))
add("names delete trailing slash", docs("DELETE", "/c/a/"))

# gRPC database and parent fields.
for label, text in [("empty", ""), ("with documents", DOCS), ("trailing slash", DB + "/"),
                    ("databases trailing slash", "projects/$P/databases/"), ("project only", "projects/$P"),
                    ("empty project", "projects//databases/x"), ("empty database", "projects/$P/databases//"),
                    ("one word", "x")]:
    add(f"grpc names database {label}", rpc("Commit", {"database": text, "writes": []}))
for label, text in [("database", DB), ("documents slash", DOCS + "/"), ("collection", DOCS + "/c"),
                    ("document slash", DOCS + "/c/a/"), ("dot id", DOCS + "/c/./b"),
                    ("reserved collection", DOCS + "/__x__/a"), ("relative", "c/a"),
                    ("documents suffix", DB + "/documentsX")]:
    add(f"grpc names parent runQuery {label}", rpc("RunQuery", {"parent": text, "structuredQuery": query()}))
    add(f"grpc names parent list {label}", rpc("ListDocuments", {"parent": text, "collectionId": "c"}))
    add(f"grpc names parent create {label}", rpc("CreateDocument", {"parent": text, "collectionId": "c", "documentId": "z",
                                                                     "document": {}}))
