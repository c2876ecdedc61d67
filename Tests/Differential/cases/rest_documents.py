"""Documents over REST: get/patch/create/delete with masks, preconditions and transforms;
commit, batchWrite, batchGet, listDocuments and listCollectionIds, their errors included."""
from cases.steps import (case, commit, delete, delete_write, docs, get, http, name, patch, seed, to_fields,
                         update, OWNER)

CASES = []
A = {"a": 1, "b": {"c": "x", "d": [1, 2]}, "e": None}


def add(label, *steps):
    CASES.append(case(label, *steps))


# --- get -------------------------------------------------------------------------------------
add("get existing", seed({"c/a": A}), get("c/a"))
add("get missing", get("c/missing"))
add("get mask one field", seed({"c/a": A}), get("c/a", "mask.fieldPaths=a"))
add("get mask nested", seed({"c/a": A}), get("c/a", "mask.fieldPaths=b.c"))
add("get mask two", seed({"c/a": A}), get("c/a", "mask.fieldPaths=a&mask.fieldPaths=e"))
add("get mask missing field", seed({"c/a": A}), get("c/a", "mask.fieldPaths=zz"))
add("get mask backquoted", seed({"c/a": {"a.b": 1}}), get("c/a", "mask.fieldPaths=%60a.b%60"))
add("get mask invalid path", seed({"c/a": A}), get("c/a", "mask.fieldPaths=a..b"))
add("get mask __name__", seed({"c/a": A}), get("c/a", "mask.fieldPaths=__name__"))
add("get readTime before create", seed({"c/a": A}, save={"t": "commitTime"}),
    get("c/a", "readTime=1970-01-01T00:00:01Z"))
add("get readTime at commit", seed({"c/a": A}, save={"t": "commitTime"}), patch("c/a", {"a": 2}), get("c/a", "readTime=${t}"))
add("get readTime in the future", seed({"c/a": A}), get("c/a", "readTime=2999-01-01T00:00:00Z"))
add("get readTime garbage", seed({"c/a": A}), get("c/a", "readTime=yesterday"))
add("get readTime seconds form", seed({"c/a": A}), get("c/a", "readTime.seconds=1"))
add("get transaction garbage", seed({"c/a": A}), get("c/a", "transaction=AAAA", timeout=3))
add("get subcollection document", seed({"c/a/s/b": {"x": 1}}), get("c/a/s/b"))
add("get document under missing parent", seed({"c/a/s/b": {"x": 1}}), get("c/a"))
add("get unicode id", seed({"c/é✓": {"x": 1}}), get("c/%C3%A9%E2%9C%93"))
add("get id with space", seed({"c/a b": {"x": 1}}), get("c/a%20b"))
add("get id dot", get("c/."))
add("get id dotdot", get("c/.."))
add("get id reserved", get("c/__x__"))
add("get id of 1500 bytes", get("c/" + "a" * 1500))
add("get id of 1501 bytes", get("c/" + "a" * 1501))

# --- patch (update / upsert) -------------------------------------------------------------------
add("patch creates", patch("c/a", {"a": 1}), get("c/a"))
add("patch replaces", seed({"c/a": A}), patch("c/a", {"z": 1}), get("c/a"))
add("patch mask merges", seed({"c/a": A}), patch("c/a", {"a": 5}, "updateMask.fieldPaths=a"), get("c/a"))
add("patch mask deletes missing", seed({"c/a": A}), patch("c/a", {}, "updateMask.fieldPaths=a"), get("c/a"))
add("patch mask nested", seed({"c/a": A}), patch("c/a", {"b": {"c": "y"}}, "updateMask.fieldPaths=b.c"), get("c/a"))
add("patch mask nested replaces map", seed({"c/a": A}), patch("c/a", {"b": {"c": "y"}}, "updateMask.fieldPaths=b"), get("c/a"))
add("patch mask field not in body deletes nested", seed({"c/a": A}), patch("c/a", {}, "updateMask.fieldPaths=b.c"), get("c/a"))
add("patch mask __name__", seed({"c/a": A}), patch("c/a", {"a": 3}, "updateMask.fieldPaths=__name__&updateMask.fieldPaths=a"), get("c/a"))
add("patch mask body field outside mask", seed({"c/a": A}), patch("c/a", {"a": 3, "q": 1}, "updateMask.fieldPaths=a"), get("c/a"))
add("patch mask conflicting paths", seed({"c/a": A}), patch("c/a", {"b": {"c": 1}}, "updateMask.fieldPaths=b&updateMask.fieldPaths=b.c"))
add("patch mask duplicate paths", seed({"c/a": A}), patch("c/a", {"a": 1}, "updateMask.fieldPaths=a&updateMask.fieldPaths=a"))
add("patch exists true missing", patch("c/a", {"a": 1}, "currentDocument.exists=true"))
add("patch exists true present", seed({"c/a": A}), patch("c/a", {"a": 1}, "currentDocument.exists=true"))
add("patch exists false present", seed({"c/a": A}), patch("c/a", {"a": 1}, "currentDocument.exists=false"))
add("patch exists false missing", patch("c/a", {"a": 1}, "currentDocument.exists=false"), get("c/a"))
add("patch exists maybe", seed({"c/a": A}), patch("c/a", {"a": 1}, "currentDocument.exists=maybe"))
add("patch updateTime matches", seed({"c/a": A}, save={"t": "writeResults.0.updateTime"}),
    patch("c/a", {"a": 9}, "currentDocument.updateTime=${t}"))
add("patch updateTime stale", seed({"c/a": A}), patch("c/a", {"a": 9}, "currentDocument.updateTime=2001-01-01T00:00:00Z"))
add("patch updateTime on missing", patch("c/a", {"a": 9}, "currentDocument.updateTime=2001-01-01T00:00:00Z"))
add("patch no-op keeps updateTime", seed({"c/a": {"a": 1}}), patch("c/a", {"a": 1}), get("c/a"))
add("patch mask returned fields", seed({"c/a": A}), patch("c/a", {"a": 2}, "updateMask.fieldPaths=a&mask.fieldPaths=b"))
add("patch name in body differs", docs("PATCH", "/c/a", {"name": "$DOCS/c/other", "fields": {}}, timeout=3))
add("patch name in body equal", docs("PATCH", "/c/a", {"name": "$DOCS/c/a", "fields": to_fields({"x": 1})}))
add("patch body not json", docs("PATCH", "/c/a", "{nope"))
add("patch body unknown field", docs("PATCH", "/c/a", {"fields": {}, "bogus": 1}))
add("patch body createTime ignored", docs("PATCH", "/c/a", {"fields": {}, "createTime": "2001-01-01T00:00:00Z"}), get("c/a"))
add("patch empty body", docs("PATCH", "/c/a", {}), get("c/a"))
add("patch collection path", docs("PATCH", "/c", {"fields": {}}))

# --- createDocument ------------------------------------------------------------------------------
add("create with id", docs("POST", "/c?documentId=a", {"fields": to_fields({"x": 1})}), get("c/a"))
add("create existing id", seed({"c/a": A}), docs("POST", "/c?documentId=a", {"fields": {}}))
add("create generated id", http("POST", "$V1/c", {"fields": to_fields({"x": 1})}, generated=["$DOCS/c/"]))
add("create subcollection", docs("POST", "/c/a/s?documentId=b", {"fields": {}}), get("c/a/s/b"))
add("create bad id slash", docs("POST", "/c?documentId=a%2Fb", {"fields": {}}))
add("create reserved id", docs("POST", "/c?documentId=__x__", {"fields": {}}))
add("create empty id", docs("POST", "/c?documentId=", {"fields": {}}, generated=["$DOCS/c/"]))
add("create with mask", docs("POST", "/c?documentId=a&mask.fieldPaths=x", {"fields": to_fields({"x": 1, "y": 2})}))
add("create name in body", docs("POST", "/c?documentId=a", {"name": "$DOCS/c/a", "fields": {}}))
add("create on document path", docs("POST", "/c/a", {"fields": {}}))

# --- delete --------------------------------------------------------------------------------------
add("delete existing", seed({"c/a": A}), delete("c/a"), get("c/a"))
add("delete missing", delete("c/a"))
add("delete exists true missing", delete("c/a", "currentDocument.exists=true"))
add("delete exists true present", seed({"c/a": A}), delete("c/a", "currentDocument.exists=true"))
add("delete exists false present", seed({"c/a": A}), delete("c/a", "currentDocument.exists=false"))
add("delete updateTime stale", seed({"c/a": A}), delete("c/a", "currentDocument.updateTime=2001-01-01T00:00:00Z"))
add("delete keeps subcollections", seed({"c/a": A, "c/a/s/b": {"x": 1}}), delete("c/a"), get("c/a/s/b"))
add("delete collection path", seed({"c/a": A}), docs("DELETE", "/c"), get("c/a"))

# --- commit ----------------------------------------------------------------------------------------
add("commit empty", commit([]))
add("commit one update", commit([update("c/a", {"x": 1})]), get("c/a"))
add("commit update and delete", seed({"c/b": A}), commit([update("c/a", {"x": 1}), delete_write("c/b")]), get("c/b"))
add("commit same document twice", commit([update("c/a", {"x": 1}), update("c/a", {"y": 2})]), get("c/a"))
add("commit update then delete same", commit([update("c/a", {"x": 1}), delete_write("c/a")]), get("c/a"))
add("commit exists false twice", commit([update("c/a", {"x": 1}, exists=False), update("c/a", {"y": 1}, exists=False)]))
add("commit precondition fails rolls back", commit([update("c/a", {"x": 1}), update("c/b", {"y": 1}, exists=True)]), get("c/a"))
add("commit verify missing", commit([{"verify": name("c/a"), "currentDocument": {"exists": True}}]))
add("commit verify existing", seed({"c/a": A}), commit([{"verify": name("c/a"), "currentDocument": {"exists": True}}]))
add("commit verify no precondition", commit([{"verify": name("c/a")}]))
add("commit delete with exists false", seed({"c/a": A}), commit([delete_write("c/a", exists=False)]))
add("commit write without operation", commit([{"currentDocument": {"exists": True}}]))
add("commit unknown operation", commit([{"bogus": {}}]))
add("commit two operations", commit([{"update": {"name": name("c/a"), "fields": {}}, "delete": name("c/a")}]))
add("commit name in another project", commit([{"update": {"name": "projects/other/databases/(default)/documents/c/a", "fields": {}}}]))
add("commit name in another database", commit([{"update": {"name": "projects/$P/databases/other/documents/c/a", "fields": {}}}]))
add("commit name of a collection", commit([{"update": {"name": "$DOCS/c", "fields": {}}}]))
add("commit relative name", commit([{"update": {"name": "c/a", "fields": {}}}]))
add("commit mask with missing field", seed({"c/a": A}), commit([update("c/a", {}, mask=["a"])]), get("c/a"))
add("commit mask invalid path", commit([update("c/a", {}, mask=["a..b"])]))
add("commit transform server time", commit([update("c/a", {"x": 1}, transforms=[{"fieldPath": "t", "setToServerValue": "REQUEST_TIME"}])]), get("c/a"))
add("commit transform increment int", seed({"c/a": {"n": 1}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"integerValue": "2"}}])]), get("c/a"))
add("commit transform increment double on int", seed({"c/a": {"n": 1}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"doubleValue": 0.5}}])]), get("c/a"))
add("commit transform increment missing", commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"integerValue": "2"}}])]), get("c/a"))
add("commit transform increment string", seed({"c/a": {"n": "x"}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"integerValue": "2"}}])]), get("c/a"))
add("commit transform increment overflow", seed({"c/a": {"n": 9223372036854775807}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"integerValue": "1"}}])]), get("c/a"))
add("commit transform increment by string", commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"stringValue": "1"}}])]))
add("commit transform maximum", seed({"c/a": {"n": 5}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "maximum": {"doubleValue": 7.5}}])]), get("c/a"))
add("commit transform minimum mixed", seed({"c/a": {"n": 5.0}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "minimum": {"integerValue": "5"}}])]), get("c/a"))
add("commit transform array union", seed({"c/a": {"l": [1, 2]}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "l", "appendMissingElements": {"values": to_fields({"x": [2, 3, 3]})["x"]["arrayValue"]["values"]}}])]), get("c/a"))
add("commit transform array remove", seed({"c/a": {"l": [1, 2, 1, 3]}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "l", "removeAllFromArray": {"values": [{"integerValue": "1"}]}}])]), get("c/a"))
add("commit transform on non-array union", seed({"c/a": {"l": 7}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "l", "appendMissingElements": {"values": [{"integerValue": "1"}]}}])]), get("c/a"))
add("commit transform two on one field", seed({"c/a": {"n": 1}}),
    commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"integerValue": "1"}},
                                                    {"fieldPath": "n", "increment": {"integerValue": "10"}}])]), get("c/a"))
add("commit update and transform same field", commit([update("c/a", {"n": 5}, transforms=[{"fieldPath": "n", "increment": {"integerValue": "1"}}])]), get("c/a"))
add("commit transform parent and child", commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "m", "setToServerValue": "REQUEST_TIME"},
                                                                                 {"fieldPath": "m.x", "increment": {"integerValue": "1"}}])]))
add("commit transform reserved field", commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "__x__", "increment": {"integerValue": "1"}}])]))
add("commit transform unknown server value", commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "t", "setToServerValue": "NOW"}])]))
add("commit transform without kind", commit([update("c/a", {}, mask=[], transforms=[{"fieldPath": "t"}])]))
add("commit standalone transform", commit([{"transform": {"document": name("c/a"), "fieldTransforms": [{"fieldPath": "n", "increment": {"integerValue": "1"}}]}}]))
add("commit 500 writes", commit([update(f"c/d{i}", {"i": i}) for i in range(500)]))
add("commit 501 writes", commit([update(f"c/d{i}", {"i": i}) for i in range(501)]))
add("commit unknown transaction", commit([update("c/a", {"x": 1})], transaction="AAAAAAAA"))
add("commit transaction not base64", commit([update("c/a", {"x": 1})], transaction="!!!"))
add("commit bad json", docs("POST", ":commit", "{not json"))
add("commit writes not a list", docs("POST", ":commit", {"writes": {}}))

# --- batchWrite -----------------------------------------------------------------------------------
BW = lambda writes, **kw: docs("POST", ":batchWrite", {"writes": writes, **kw}, auth=OWNER)
add("batchWrite without owner", docs("POST", ":batchWrite", {"writes": [update("c/a", {"x": 1})]}))
add("batchWrite empty", BW([]))
add("batchWrite mixed results", seed({"c/b": A}),
    BW([update("c/a", {"x": 1}), update("c/b", {"y": 1}, exists=False), delete_write("c/zz", exists=True)]), get("c/a"))
add("batchWrite same document twice", BW([update("c/a", {"x": 1}), update("c/a", {"y": 2})]), get("c/a"))
add("batchWrite labels", BW([update("c/a", {"x": 1})], labels={"k": "v"}))
add("batchWrite transform", BW([update("c/a", {}, mask=[], transforms=[{"fieldPath": "n", "increment": {"integerValue": "1"}}])]))
add("batchWrite invalid write", BW([{"bogus": 1}]))

# --- batchGet -------------------------------------------------------------------------------------
BG = lambda body, **kw: docs("POST", ":batchGet", body, **kw)
add("batchGet found and missing", seed({"c/a": A}), BG({"documents": [name("c/a"), name("c/zz")]}))
add("batchGet duplicates", seed({"c/a": A}), BG({"documents": [name("c/a"), name("c/a")]}))
add("batchGet empty", BG({"documents": []}))
add("batchGet no documents field", BG({}))
add("batchGet mask", seed({"c/a": A}), BG({"documents": [name("c/a")], "mask": {"fieldPaths": ["a"]}}))
add("batchGet other database", BG({"documents": ["projects/$P/databases/other/documents/c/a"]}))
add("batchGet collection name", BG({"documents": [name("c")]}))
add("batchGet readTime", seed({"c/a": A}), BG({"documents": [name("c/a")], "readTime": "1970-01-01T00:00:01Z"}))
add("batchGet newTransaction", seed({"c/a": A}), BG({"documents": [name("c/a")], "newTransaction": {}}))
add("batchGet newTransaction readWrite", seed({"c/a": A}), BG({"documents": [name("c/a")], "newTransaction": {"readWrite": {}}}))
add("batchGet transaction and readTime", seed({"c/a": A}),
    BG({"documents": [name("c/a")], "newTransaction": {}, "readTime": "2001-01-01T00:00:00Z"}))
add("batchGet order of answers", seed({"c/a": A, "c/b": A, "c/c": A}), BG({"documents": [name("c/c"), name("c/zz"), name("c/a"), name("c/b")]}))

# --- listDocuments --------------------------------------------------------------------------------
THREE = {"c/a": {"n": 3}, "c/b": {"n": 1}, "c/c": {"n": 2}, "c/b/s/x": {"n": 0}}
add("list collection", seed(THREE), get("c"))
add("list empty collection", get("c"))
add("list pageSize", seed(THREE), get("c", "pageSize=2"))
add("list pageSize zero", seed(THREE), get("c", "pageSize=0"))
add("list pageSize negative", seed(THREE), get("c", "pageSize=-1"))
add("list pageToken", seed(THREE), get("c", "pageSize=2", save={"tok": "nextPageToken"}), get("c", "pageSize=2&pageToken=${tok}"))
add("list pageToken garbage", seed(THREE), get("c", "pageToken=zzz"))
add("list orderBy field", seed(THREE), get("c", "orderBy=n"))
add("list orderBy desc", seed(THREE), get("c", "orderBy=n%20desc"))
add("list orderBy name desc", seed(THREE), get("c", "orderBy=__name__%20desc"))
add("list orderBy bad", seed(THREE), get("c", "orderBy=n%20sideways"))
add("list mask", seed(THREE), get("c", "mask.fieldPaths=n"))
add("list showMissing without owner", seed(THREE), get("c/b/s", "showMissing=true"))
add("list showMissing", seed({"c/b/s/x": {"n": 0}}), get("c", "showMissing=true", auth=OWNER))
add("list readTime", seed(THREE), get("c", "readTime=1970-01-01T00:00:01Z"))
add("list subcollection", seed(THREE), get("c/b/s"))
add("list trailing slash", seed(THREE), docs("GET", "/"))
add("list collectionId in path with dot", get("c.d"))

# --- listCollectionIds ----------------------------------------------------------------------------
LC = lambda suffix="", body=None, **kw: docs("POST", suffix + ":listCollectionIds", body if body is not None else {}, auth=kw.pop("auth", OWNER), **kw)
add("listCollectionIds root", seed({"b/x": {}, "a/x": {}, "c/x/s/y": {}}), LC())
add("listCollectionIds without owner", seed({"a/x": {}}), LC(auth=None))
add("listCollectionIds under document", seed({"c/x/s/y": {}, "c/x/t/y": {}}), LC("/c/x"))
add("listCollectionIds under missing document", LC("/c/nope"))
add("listCollectionIds on collection path", seed({"c/x/s/y": {}}), LC("/c"))
add("listCollectionIds pageSize", seed({"b/x": {}, "a/x": {}, "d/x": {}}), LC(body={"pageSize": 2}))
add("listCollectionIds pageToken", seed({"b/x": {}, "a/x": {}, "d/x": {}}), LC(body={"pageSize": 2}, save={"tok": "nextPageToken"}),
    LC(body={"pageSize": 2, "pageToken": "${tok}"}))
add("listCollectionIds readTime", seed({"a/x": {}}), LC(body={"readTime": "1970-01-01T00:00:01Z"}))
add("listCollectionIds unknown field", LC(body={"bogus": 1}))
